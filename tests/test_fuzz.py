"""Random programs over views, in-place ops through views, indexing, reductions, broadcasting and
matmul (tests/fuzz_programs.py): values and first- and second-order gradients compared with
PyTorch when it is installed, and gradients checked against finite differences always.

A program that PyTorch refuses must be refused here too, at the same step.
"""
from __future__ import annotations

import numpy as np
import pytest

from fuzz_programs import RtorchpyLib, TorchLib, draw_program, program_function, run_program

import rtorchpy as rt

N_TORCH = 1500
N_GRADCHECK = 400


def _weights(shape, seed):
    return np.random.default_rng(seed + 7).uniform(-1, 1, shape)


def _describe(trace):
    return "\n".join(repr(t) for t in trace)


def _run_with_grads(lib, x_values, steps, seed):
    x, h, trace = run_program(lib, x_values, steps)
    if h is None:
        return trace, None
    w = lib.tensor(_weights(tuple(h.shape), seed))
    out = (h * w).sum()
    try:  # a backward refused (a saved value modified in place) is compared like a step
        (g,) = lib.grad([out], [x], create_graph=True)
    except RuntimeError as e:
        return trace + [("backward", "error", type(e).__name__, str(e))], None
    wg = lib.tensor(_weights(tuple(g.shape), seed + 1))
    second = (g * wg).sum()
    if second.requires_grad:
        (g2,) = lib.grad([second], [x])
        g2 = lib.values(g2)
    else:  # a program linear in x: its second derivative is zero
        g2 = np.zeros(tuple(x.shape))
    return trace, (lib.values(h), lib.values(g), g2)


@pytest.mark.parametrize("seed", range(N_TORCH))
def test_program_matches_pytorch(seed):
    pytest.importorskip("torch")
    x_values, steps = draw_program(seed)
    theirs_trace, theirs = _run_with_grads(TorchLib(), x_values, steps, seed)
    ours_trace, ours = _run_with_grads(RtorchpyLib(), x_values, steps, seed)
    where = (f"program {seed}:\nPyTorch:\n{_describe(theirs_trace)}\n"
             f"rtorchpy:\n{_describe(ours_trace)}")
    if theirs is None:
        assert ours is None, "PyTorch refused this program and rtorchpy did not\n" + where
        assert len(ours_trace) == len(theirs_trace), "refused at another step\n" + where
        assert ours_trace[-1][2] == theirs_trace[-1][2], "another kind of error\n" + where
        return
    assert ours is not None, "rtorchpy refused a program PyTorch runs\n" + where
    for name, a, b in zip(("value", "gradient", "second-order gradient"), ours, theirs):
        assert a.shape == b.shape, f"{name} shape {a.shape} != PyTorch's {b.shape}\n{where}"
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=f"{name}\n{where}")


@pytest.mark.parametrize("seed", range(N_GRADCHECK))
def test_program_gradients_match_finite_differences(seed):
    x_values, steps = draw_program(seed)
    lib = RtorchpyLib()
    trace, result = _run_with_grads(lib, x_values, steps, seed)
    if result is None:
        pytest.skip("a program rtorchpy refuses (whether PyTorch does too is the other test's)")
    x = rt.torch_tensor(x_values, requires_grad=True)
    fn = program_function(lib, steps)
    assert rt.autograd_gradcheck(fn, (x,)), _describe(trace)
    assert rt.autograd_gradgradcheck(fn, (x,)), _describe(trace)
