"""optim_rprop and optim_asgd (issue 29): PyTorch's updates, checked against values recorded
from PyTorch 2.13 (torch.optim.Rprop / ASGD, 8 steps of least squares) and, when PyTorch is
installed, against it directly."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

RNG = np.random.RandomState(0)
A = RNG.randn(5, 3)
Y = RNG.randn(5)
CASES = [
    ("rprop", {}, [0.111152, 0.486128, -0.111152]),
    ("rprop", dict(etas=(0.3, 1.5), step_sizes=(1e-3, 0.2)), [-0.03671875, 0.64671875, -0.0771875]),
    ("asgd", dict(lambd=1e-2, t0=3), [0.06761185, 0.56725945, -0.12189047]),
    ("asgd", dict(weight_decay=0.1), [0.06954757, 0.56133682, -0.12145086]),
]


def _run(name, kw):
    w = rt.torch_zeros(3, dtype=rt.torch_float64(), requires_grad=True)
    opt = getattr(rt, "optim_" + name)([w], lr=0.05, **kw)
    for _ in range(8):
        opt.zero_grad()
        ((rt.torch_tensor(A).matmul(w) - rt.torch_tensor(Y)) ** 2).sum().backward()
        opt.step()
    return w.detach().numpy()


@pytest.mark.parametrize("name, kw, expected", CASES)
def test_against_recorded_pytorch_values(name, kw, expected):
    np.testing.assert_allclose(_run(name, kw), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name, kw, expected", CASES)
def test_against_pytorch(name, kw, expected):
    torch = pytest.importorskip("torch")
    tw = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    opt = {"rprop": torch.optim.Rprop, "asgd": torch.optim.ASGD}[name]([tw], lr=0.05, **kw)
    for _ in range(8):
        opt.zero_grad()
        ((torch.tensor(A) @ tw - torch.tensor(Y)) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(_run(name, kw), tw.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_bad_options_are_refused():
    w = rt.torch_zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid eta values"):
        rt.optim_rprop([w], etas=(1.5, 0.5))
    with pytest.raises(TypeError, match="etas must be two numbers"):
        rt.optim_rprop([w], etas=3)
    with pytest.raises(ValueError, match="Invalid weight_decay value"):
        rt.optim_asgd([w], weight_decay=-1)
