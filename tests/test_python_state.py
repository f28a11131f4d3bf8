"""Importing and using rtorchpy leaves the process's Python state as it was (issue 28): warning
filters and hooks, the collector, sys.path, signal and exception hooks, NumPy's settings. The
check runs in a fresh interpreter (this one imported rtorchpy long ago); the snapshot code is the
R test's (r-shim/tests/testthat/fixtures/python_state.py)."""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

import rtorchpy as rt
from rtorchpy._r import session

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / "r-shim" / "tests" / "testthat" / "fixtures" / "python_state.py"

_WORKLOAD = """
import numpy, warnings
exec(open(STATE).read())
before = python_state()
import rtorchpy as rt
x = rt.torch_randn(3, 2, requires_grad=True)
h = x.register_hook(lambda g: g * 2)
y = (x.log().abs() + rt.torch_tensor([0.0, 1.0]) / 0).sum()
y.backward()
h.remove()
try:
    rt.torch_ones(2) + rt.torch_ones(3)
except RuntimeError:
    pass
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    rt.nnf_mse_loss(rt.torch_ones(7), rt.torch_ones(7, 1))
assert any("different to the input size" in str(w.message) for w in seen), seen
repr(x)
import rtorchpy._r  # (what R imports too)
for line in state_changes(before, python_state()):
    print("CHANGED", line)
print("DONE")
"""


def test_import_and_use_leave_python_state_alone():
    code = f"STATE = {str(STATE)!r}\n" + _WORKLOAD
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "DONE" in res.stdout
    assert [line for line in res.stdout.splitlines() if line.startswith("CHANGED")] == []


def test_inf_and_nan_results_do_not_warn_but_users_numpy_still_does():
    x = rt.torch_tensor([0.0, -1.0, 100.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (ahead of pytest's ignore::RuntimeWarning:rtorchpy)
        y = x.log() + x.sqrt() + x.exp() * 1e38 + rt.torch_log(x) + x / 0 + 1 / x + x.pow(-1)
        y.sum().backward()
        rt.nnf_log_softmax(rt.torch_tensor([[-np.inf, 0.0]]), dim=1)
        rt.torch_tensor([0.0]).div_(0)
    assert np.isnan(y.tolist()[1])
    before = np.geterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    assert [str(w.message) for w in seen] == ["divide by zero encountered in log"]
    assert np.geterr() == before


def test_an_optimizer_step_on_inf_gradients_does_not_warn():
    w = rt.torch_ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for opt in (rt.optim_adam([w], lr=0.1), rt.optim_rmsprop([w])):
            w.grad = None
            (w * float("inf")).sum().backward()
            opt.step()
            opt.step()


def test_users_numpy_error_settings_are_kept_outside_and_ignored_inside():
    with np.errstate(all="raise"):
        out = rt.torch_tensor([1.0, 0.0]) / 0  # libtorch: inf and nan, no error
        assert np.geterr()["divide"] == "raise"
    assert np.isinf(out.tolist()[0])


def test_collect_warnings_restores_the_hook_that_was_there():
    def mine(*args, **kwargs):
        pass

    old = warnings.showwarning
    try:
        warnings.showwarning = mine
        session.collect_warnings(True, False)
        assert warnings.showwarning is mine  # not asked for every warning: not touched
        session.collect_warnings(True, True)
        assert warnings.showwarning is session._collect
        session.collect_warnings(True, True)
        session.collect_warnings(False)
        assert warnings.showwarning is mine
        # a hook someone set over the collecting one stays
        session.collect_warnings(True, True)
        other = print
        warnings.showwarning = other
        session.collect_warnings(False)
        assert warnings.showwarning is other
    finally:
        session.collect_warnings(False)
        warnings.showwarning = old
