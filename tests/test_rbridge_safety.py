"""The R bridge's safety rules checked from Python (rtorchpy/_r/), and the R safety
tests (r-shim/tests/testthat/test-bridge-safety.R) run again with the C bridge switched off
(RTORCHPY_DIRECT=0: every call through reticulate)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import Job, background

from rtorchpy._r import errors, handles, ops
from rtorchpy._r.protocol import ERROR_CLASS, ERROR_IN_R, ERROR_MESSAGE
from rtorchpy._r.session import collect_warnings, live_counts, take_warnings
from rtorchpy.tensor import Tensor


@pytest.fixture
def handle():
    """A tensor in the bridge registry and its handle, removed afterwards."""
    t = Tensor._make(np.array([1.0, 2.0], dtype=np.float32))
    h = handles._put(t)
    yield t, h
    handles.release([h.real])


def test_a_complex_value_is_not_read_as_a_handle(handle):
    t, h = handle
    assert handles._dec(h) is t
    for value in (complex(h.real, 1.0), complex(h.real, 0.0), complex(h.real, handles.MAGIC_GC)):
        with pytest.raises(TypeError, match="complex numbers are not supported"):
            handles._dec(value)
        # through an op caller and an operator, the error comes back as R's error reply
        assert _is_error(ops.op_caller("add")(h, value))
        for r in (ops.BINARY["+"](h, value), ops.BINARY["*"](value, h)):
            assert _is_error(r, "complex numbers are not supported")
            assert r[ERROR_CLASS] == "type_error" and r[ERROR_IN_R] is False


def _is_error(reply, text=""):
    """Whether ``reply`` is an error reply (a dict read by field names) whose message holds
    ``text``."""
    return type(reply) is dict and text in reply[ERROR_MESSAGE]


def test_error_messages_name_r_types():
    t = errors.translate_error
    undefined = " (an undefined tensor, such as x$grad before any backward, counts as NULL)"
    assert t("can't convert an element of type NoneType to a tensor") == \
        "can't convert an element of R type 'NULL' to a tensor" + undefined
    assert t("torch_sin(): argument 'self' must be a Tensor, not NoneType") == \
        "torch_sin(): argument 'self' must be a tensor, not R type 'NULL'" + undefined
    assert t("'NoneType' object has no attribute '_data'") == \
        "expected a tensor, got an R value of type 'NULL'" + undefined
    assert t("can't convert an element of type str to a tensor") == \
        "can't convert an element of R type 'character' to a tensor"
    assert t("'str' object has no attribute '_data'") == \
        "expected a tensor, got an R value of type 'character'"
    assert t("min must be a Tensor or a number, got NoneType") == \
        "min must be a Tensor or a number, got R type 'NULL'" + undefined
    assert t("argument 'other' must be a Tensor, not str") == \
        "argument 'other' must be a tensor, not R type 'character'"
    assert t("a Python type of argument") == "a Python type of argument"


def test_python_warnings_are_collected_for_r(handle):
    from rtorchpy._r.session import _collect
    from rtorchpy.numerics.warn import warn
    t, _ = handle
    collect_warnings(True)
    try:
        take_warnings()
        assert warnings.showwarning is not _collect  # the global hook is left alone
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warn("first")
            h = handles._put(t)
            assert h.imag == handles.MAGIC - handles.FLAG_WARN      # R fetches the warnings
            assert take_warnings() == ["first"]
            assert handles._put(t).imag == handles.MAGIC           # cleared
            warn("second")
            assert handles._enc(3) == ["W", ["second"], ["v", 3]]
            assert handles._enc(3) == ["v", 3]
            warnings.warn("not the package's")                     # Python shows it itself
            assert handles._enc(3) == ["v", 3]
            handles.release([h.real])
    finally:
        collect_warnings(False)
        take_warnings()
    assert warnings.showwarning is not _collect


def test_every_python_warning_goes_to_r_only_when_asked_for():
    from rtorchpy._r.session import _collect
    collect_warnings(True, True)
    try:
        assert warnings.showwarning is _collect
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = _collect  # (catch_warnings restores the hook it found)
            warnings.warn("anyone's")
            assert take_warnings() == ["anyone's"]
    finally:
        collect_warnings(False)
        take_warnings()
    assert warnings.showwarning is warnings._showwarning_orig


def test_the_package_warns_only_through_numerics_warn():
    """R receives the package's warnings through numerics.warn (the global hook is left alone),
    so a direct warnings.warn in the package would never reach an R user."""
    import ast
    from pathlib import Path
    pkg = Path(__file__).resolve().parents[1] / "rtorchpy"
    direct = []
    for path in pkg.rglob("*.py"):
        if path.name == "warn.py" and path.parent.name == "numerics":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "warn" and \
                    isinstance(node.value, ast.Name) and node.value.id == "warnings":
                direct.append(f"{path.relative_to(pkg)}:{node.lineno}")
    assert not direct, f"use rtorchpy.numerics.warn.warn: {direct}"


def test_live_counts_count_registry_and_tensors(handle):
    tag, [(_, handles), (_, tensors)] = live_counts()   # an R list of two numbers
    assert tag == "L" and handles >= 1 and tensors >= 1


# The R files run again with the C bridge off: one Rscript for all of them (in the background
# under conftest.py), each file still its own test.
SAFETY = "test-bridge-safety.R"
EVERY_MODE = ["test-bad-input.R", "test-serialization-safety.R", "test-hook-memory.R",
              "test-closure-memory.R"]
NO_C_BRIDGE = "Sys.setenv(RTORCHPY_DIRECT = '0'); "


def _run_without_c_bridge(files):
    from test_r_shim import run_testthat_files
    return run_testthat_files(files, setup=NO_C_BRIDGE)


def _wanted(items):
    return [f for f in [SAFETY] + EVERY_MODE
            if any(i.name == "test_r_safety_suite_without_the_c_bridge" if f == SAFETY
                   else i.name == f"test_r_bad_input_in_every_bridge_mode[{f}]" for i in items)]


def background_jobs(items):
    import shutil
    files = _wanted(items)
    if not files or shutil.which("Rscript") is None:
        return []
    mine = [i for i in items if i.name == "test_r_safety_suite_without_the_c_bridge"
            or i.name.startswith("test_r_bad_input_in_every_bridge_mode[")]
    return [Job("no_c_bridge", lambda d: _run_without_c_bridge(files), 45, mine)]


def _result(request, name):
    from test_r_shim import _rscript
    _rscript()
    job = background(request, "no_c_bridge")
    counts, direct, out = job.result() if job is not None else _run_without_c_bridge([name])
    fields = counts.get(name)
    assert fields is not None, f"testthat did not report {name}:\n{out[-6000:]}"
    return fields, direct, out


def test_r_safety_suite_without_the_c_bridge(request):
    fields, direct, out = _result(request, SAFETY)
    assert direct == "FALSE", out
    assert fields["failed"] == "0" and fields["errors"] == "0", out
    assert int(fields["passed"]) > 0, out


@pytest.mark.parametrize("name", EVERY_MODE)
def test_r_bad_input_in_every_bridge_mode(name, request):
    """R's NA, bad flags and crafted files are refused the same way whichever path a call takes:
    C (the default, the main run) or reticulate (RTORCHPY_DIRECT=0)."""
    fields, direct, out = _result(request, name)
    assert direct == "FALSE", out
    assert fields["failed"] == "0" and fields["errors"] == "0", out
    assert int(fields["passed"]) > 0, out


def test_r_na_is_refused_by_the_argument_name():
    """R's NA_integer_ arrives as -2^31 (R's integers never take that value): every caller
    refuses it, naming the argument, instead of using -2147483648 as a number."""
    t = rt_tensor = handles._put(Tensor._make(np.eye(3, dtype=np.float32)))
    reply = ops.op_caller("diag")(t, handles.R_NA_INT)
    assert _is_error(reply, "'diagonal' is NA")
    reply = ops.op_caller("sum")(t, 1, handles.R_NA_INT)
    assert _is_error(reply, "'keepdim' is NA")
    reply = ops.binary_callers()["+"](rt_tensor, handles.R_NA_INT)
    assert _is_error(reply, "is NA")
    # inside a list (a size vector c(2L, NA))
    reply = ops.op_caller("reshape")(t, [9, handles.R_NA_INT])
    assert _is_error(reply, "is NA")


def test_handles_are_sparse_so_a_typed_complex_number_names_nothing():
    t = handles._put(Tensor._make(np.ones(2, dtype=np.float32)))
    key = int(t.real)
    assert handles.is_key(key) and key > 2 ** 40
    for fake in (complex(1, handles.MAGIC), complex(key + 1, handles.MAGIC),
                 complex(0.5, handles.MAGIC), complex(key, -7.0)):
        with pytest.raises(TypeError, match="complex numbers are not supported"):
            handles._get(fake)
    assert handles._get(t)._data.tolist() == [1.0, 1.0]
    handles.release([t.real])
    with pytest.raises(RuntimeError, match="freed"):
        handles._get(t)


def test_int64_beyond_32_bits_goes_to_r_as_a_double():
    assert handles._enc(2 ** 33) == ["v", float(2 ** 33)]
    assert handles._enc(5) == ["v", 5]
    assert handles._enc(np.int64(-2 ** 40)) == ["v", float(-2 ** 40)]


def test_an_operator_on_a_freed_handle_says_freed():
    t = handles._put(Tensor._make(np.ones(2, dtype=np.float32)))
    handles.release([t.real])
    reply = ops.binary_callers()["+"](t, 1.0)
    assert _is_error(reply, "freed")
    reply = ops.binary_callers()["+"](complex(3, handles.MAGIC), 1.0)
    assert _is_error(reply, "complex numbers are not supported")
