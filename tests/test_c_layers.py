"""The R package's C files form layers (r-shim/src/pyapi.h lists them): each file calls only
functions and reads only globals defined in a lower layer, so no two files call each other."""
from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "r-shim" / "src"

LAYERS = {
    "errors.c": 0,
    "pyapi.c": 1, "handles.c": 1, "closures.c": 1,
    "registry.c": 2,
    "pycall.c": 3,
    "callback.c": 4, "direct.c": 4, "context.c": 4,
    "names.c": 5,
    "init.c": 6,
}

_DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;]*?\)\s*\{", re.M)
_GLOBAL = re.compile(r"^(?!static\b|extern\b|typedef\b|#|\s)[A-Za-z_][\w \t\*]*?\b(\w+)\s*"
                     r"(?:=[^;]*)?(?:,\s*\**\s*(\w+)\s*(?:=[^;]*)?)*;", re.M)
_MACRO = re.compile(r"^#define\s+(\w+)\s+(rtp_\w+)\s*$", re.M)


def _strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def _definitions():
    """name -> file defining it (non-static functions and globals), short names included."""
    macros = {long: short for short, long in _MACRO.findall((SRC / "pyapi.h").read_text())}
    owner = {}
    for path in SRC.glob("*.c"):
        text = _strip(path.read_text())
        names = set(_DEF.findall(text))
        for m in _GLOBAL.finditer(text):
            names.update(n for n in m.groups() if n)
            names.update(re.findall(r"\*\s*(\w+)", m.group(0)))  # (further pointers)
        for n in names:
            owner[n] = path.name
            if n in macros:
                owner[macros[n]] = path.name
    return owner


def test_every_c_file_has_a_layer():
    assert sorted(p.name for p in SRC.glob("*.c")) == sorted(LAYERS)


def test_c_files_call_only_lower_layers():
    owner = _definitions()
    wrong = []
    for path in SRC.glob("*.c"):
        text = _strip(path.read_text())
        used = set(re.findall(r"\b([A-Za-z_]\w*)\b", text))
        for name in used:
            home = owner.get(name)
            if home and home != path.name and LAYERS[home] >= LAYERS[path.name]:
                wrong.append(f"{path.name} (layer {LAYERS[path.name]}) uses {name} from "
                             f"{home} (layer {LAYERS[home]})")
    assert not wrong, "\n".join(sorted(wrong))
