"""The R bridge's protocol has one definition (rtorchpy/_r/protocol.py): the C header and the R
file written from it are current, and no source restates a constant by hand."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from rtorchpy._r import handles, protocol

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "r-shim"


def test_generated_protocol_files_are_current():
    res = subprocess.run([sys.executable, str(SHIM / "tools" / "generate_protocol.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr


def test_python_uses_the_protocol_values():
    assert handles.MAGIC is protocol.MAGIC
    assert handles.FLAG_GC == protocol.FLAG_GC and handles.FLAG_WARN == protocol.FLAG_WARN
    # the flags must be told apart from the magic number after rounding (R/bridge.R's .t)
    assert protocol.FLAG_WARN == 2 * protocol.FLAG_GC


def test_named_structures_use_the_protocol_names():
    """An error reply and a direct entry are read by the names of their fields: Python makes
    them with the protocol's names (C and R read the generated copies)."""
    from rtorchpy._r import direct, errors
    reply = errors._err(ValueError("bad value"))
    assert set(reply) == {protocol.ERROR_MESSAGE, protocol.ERROR_CLASS, protocol.ERROR_IN_R}
    assert reply[protocol.ERROR_CLASS] == "value_error" and reply[protocol.ERROR_IN_R] is False
    assert errors._err(errors.RCallbackError("boom"))[protocol.ERROR_IN_R] is True
    entry = direct.direct_fn(0, "sin")
    assert getattr(entry, protocol.DIRECT_FN) is entry.fn
    assert getattr(entry, protocol.DIRECT_HANDLE_FIRST) is entry.handle_first


def _sources():
    for path in list((SHIM / "src").glob("*.[ch]")) + list((SHIM / "R").glob("*.R")):
        if path.name not in ("protocol.h", "gen-protocol.R", "gen-ops.R"):
            yield path, path.read_text()


def test_no_source_restates_a_protocol_constant():
    magic = re.compile(r"-7\.25")
    reply = re.compile(r"raw1\(\s*\d+\s*\)|as\.raw\(\s*[1-4]L?\s*\)")
    # field names of the named structures (the generic "message" and "fn" are too common)
    field = re.compile(r"[\"'](condition_class|r_callback|handle_first)[\"']")
    batch = re.compile(r"\b1024L?\b")
    for path, text in _sources():
        code = "\n".join(line.split("#")[0] if path.suffix == ".R" else line
                         for line in text.splitlines())
        assert not magic.search(code), f"{path.name} restates MAGIC"
        assert not reply.search(code), f"{path.name} writes a raw reply code by number"
        if path.suffix in (".c", ".h"):
            assert not batch.search(code), f"{path.name} restates RELEASE_BATCH"
        assert not field.search(code), f"{path.name} names a protocol field by hand"
    for path in (ROOT / "rtorchpy" / "_r").glob("*.py"):
        if path.name != "protocol.py":
            text = path.read_text()
            assert not re.search(r"^\s*(MAGIC|FLAG_GC|FLAG_WARN)\s*=", text, re.M), \
                f"{path.name} defines a constant"
            assert not field.search(text), f"{path.name} names a protocol field by hand"
