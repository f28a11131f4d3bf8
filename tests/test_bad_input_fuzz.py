"""A seeded sample of the bad-input fuzz (scripts/fuzz_bad_input.py, issue 36): public functions
and Tensor methods called with None, NaN, infinities, huge and negative integers, strings,
lists, complex numbers, bytearrays, NumPy's uint64 maximum and arbitrary objects, in a child
process with a time limit per call. No crash, no hang, only TypeError / ValueError /
IndexError / RuntimeError without internal wording, and grad mode, anomaly mode and the default
dtype unchanged after an error. The full run (every call, ~40,000) is the script itself."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "scripts"))

import fuzz_bad_input as fuzz  # noqa: E402

SAMPLE = 10000


def test_bad_input_sample():
    calls = fuzz.sample(SAMPLE, seed=36)
    findings = fuzz.run(calls, log=lambda line: None)
    assert not findings, "\n".join(f"{c}: {p}" for c, p in findings[:30])


def test_the_fuzz_sees_crashes_hangs_and_leaks(monkeypatch):
    # the guard itself (argument expressions are evaluated in the child): a crash, a hang, an
    # unexpected exception type and a state leak are each reported, and the run goes on
    monkeypatch.setattr(fuzz, "CALL_SECONDS", 3.0)
    calls = [("torch_sum", ["1"], {}),                                    # fine: a TypeError
             ("torch_sum", ["__import__('os').abort()"], {}),             # crash
             ("torch_sum", ["__import__('time').sleep(60)"], {}),         # hang
             ("torch_sum", ["(rt.autograd_set_grad_mode(False), 1 // 0)"], {}),  # both
             ("autograd_set_grad_mode", ["False"], {}),                   # fine: no error
             ("torch_sum", ["rt.torch_ones(2)"], {})]                     # fine
    found = dict((c[1][0], p) for c, p in fuzz.run(calls, log=lambda line: None))
    assert len(found) == 3, found
    assert found["__import__('os').abort()"].startswith("crash")
    assert found["__import__('time').sleep(60)"].startswith("hang")
    problem = found["(rt.autograd_set_grad_mode(False), 1 // 0)"]
    assert "grad mode left off" in problem and "ZeroDivisionError" in problem
