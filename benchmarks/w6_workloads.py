"""W6's workloads on the Python side: the same work as ``w6_workloads.R`` defines for R, run by
the Python that reticulate started in the R session (the same rtorchpy). Imported by
``w6_from_r.R`` (wall clock: :func:`timed`) and ``r_instructions.py`` (callgrind:
:func:`loop`), so both measure one definition of each workload.

Each workload is a function of no arguments named in :data:`WORKLOADS`; :func:`model_init`
gives the Python model R's weights and data first, so that both sides compute the same numbers.
"""
from __future__ import annotations

import time

import numpy as np

import rtorchpy as rt

_cx = rt.torch_tensor([0.1, -0.2, 0.3, 0.4], requires_grad=True)


def _chain4(y):
    for _ in range(25):
        y = y * 1.01
        y = y + 0.1
        y = rt.torch_sin(y)
        y = rt.torch_tanh(y)
    return y


_chain4(_cx).sum().backward()


def chain():
    """The 100-op chain on 4 elements, forward and backward."""
    _cx.grad.zero_()
    _chain4(_cx).sum().backward()


rt.torch_manual_seed(0)
_X = rt.torch_randn(100, 3)
_Y = _X.matmul(rt.torch_tensor([[1.0], [-2.0], [0.5]])) + 0.3
_w = rt.torch_zeros(3, 1, requires_grad=True)
_b = rt.torch_zeros(1, requires_grad=True)


def sgd():
    """One manual-SGD step of a 100x3 linear regression."""
    loss = ((_X.matmul(_w) + _b - _Y) ** 2).mean()
    loss.backward()
    with rt.with_no_grad():
        _w.sub_(_w.grad * 0.01)
        _b.sub_(_b.grad * 0.01)
        _w.grad.zero_()
        _b.grad.zero_()


_mx = rt.torch_tensor([1.0, 2.0, 3.0, 4.0])
_my = rt.torch_tensor([0.5, 0.25, 2.0, -1.0])


def mul():
    return _mx * _my


def sin():
    return rt.torch_sin(_mx)


_model = rt.nn_sequential(rt.nn_linear(3, 8), rt.nn_relu(), rt.nn_linear(8, 1))
_opt = rt.optim_sgd(_model.parameters, lr=0.01)
_x16 = rt.torch_randn(16, 3)
_y16 = rt.torch_randn(16, 1)


def _f32(a, shape):
    # `a` is R's array flattened (column-major): reticulate 1.28 cannot convert R arrays to
    # NumPy 2, so plain vectors cross (a list, or a float for one value)
    return rt.torch_tensor(np.asarray(a, dtype=np.float32).reshape(shape, order="F"))


def model_init(params, x, y):
    """R's model weights and data (flattened column-major), copied into the Python model; the
    model's output on that data, for R to compare with its own."""
    global _x16, _y16
    ps = list(_model.parameters.values())
    assert len(ps) == len(params)
    with rt.with_no_grad():
        for p, a in zip(ps, params):
            p.copy_(_f32(a, tuple(p.shape)))
    _x16 = _f32(x, (16, 3))
    _y16 = _f32(y, (16, 1))
    return _model(_x16).tolist()


def model_fwd():
    return _model(_x16)


def opt_step():
    """A training step: zero_grad, mse loss of the model's output, backward, optim_sgd step."""
    _opt.zero_grad()
    loss = rt.nnf_mse_loss(_model(_x16), _y16)
    loss.backward()
    _opt.step()


def backward_once():
    """Gradients for opt_step_only() to step with."""
    _opt.zero_grad()
    rt.nnf_mse_loss(_model(_x16), _y16).backward()


def opt_step_only():
    _opt.step()


WORKLOADS = {"chain": chain, "sgd": sgd, "mul": mul, "sin": sin, "model_fwd": model_fwd,
             "opt_step": opt_step, "opt_step_only": opt_step_only}


def timed(name, n):
    """Seconds per call of workload `name`, over `n` calls (perf_counter, inside Python: no
    crossing is counted)."""
    f = WORKLOADS[name]
    n = int(n)
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n


def loop(name, n):
    """`n` calls of workload `name` (for instruction counts)."""
    f = WORKLOADS[name]
    for _ in range(int(n)):
        f()
