"""nnf_celu, nnf_softmin, nnf_glu, nnf_hardswish, nnf_prelu, nnf_rrelu (evaluation),
nnf_softsign, nnf_tanhshrink, nnf_threshold and their modules: values recorded from PyTorch
2.13 on a fixed input, gradients to second order, and live comparisons with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

X = [[-2.0, -0.5, 0.0, 0.7, 3.0, -4.0]]
SLOPES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
RECORDED = {  # torch.nn.functional.<name>(x, ...) in float64
    "celu": [-0.6597971665126678, -0.3573208383101328, 0.0, 0.7, 3.0, -0.6976910459708426],
    "softmin": [0.11335985573451791, 0.02529400276444588, 0.015341588183492532,
                0.0076184072287423365, 0.0007638126997631564, 0.8376223333890381],
    "glu": [-1.3363755443363323, -0.4762870634112167, 0.0],
    "hardswish": [-0.3333333333333333, -0.20833333333333334, 0.0, 0.43166666666666664, 3.0,
                  -0.0],
    "prelu": [-0.2, -0.1, 0.0, 0.7, 3.0, -2.4],
    "rrelu": [-0.4583333333333333, -0.11458333333333333, 0.0, 0.7, 3.0, -0.9166666666666666],
    "softsign": [-0.6666666666666666, -0.3333333333333333, 0.0, 0.4117647058823529, 0.75, -0.8],
    "tanhshrink": [-1.035972419924183, -0.03788284273999021, 0.0, 0.09563222288283646,
                   2.0049452463132695, -3.000670700260933],
    "threshold": [-9.0, -9.0, -9.0, 0.7, 3.0, -9.0],
}


def _apply(name, x, slopes):
    return {"celu": lambda: rt.nnf_celu(x, 0.7),
            "softmin": lambda: rt.nnf_softmin(x, 1),
            "glu": lambda: rt.nnf_glu(x, 1),
            "hardswish": lambda: rt.nnf_hardswish(x),
            "prelu": lambda: rt.nnf_prelu(x.view(1, 6, 1), slopes).view(-1),
            "rrelu": lambda: rt.nnf_rrelu(x),
            "softsign": lambda: rt.nnf_softsign(x),
            "tanhshrink": lambda: rt.nnf_tanhshrink(x),
            "threshold": lambda: rt.nnf_threshold(x, 0.5, -9.0)}[name]()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_values_and_gradients(name):
    x = rt.torch_tensor(X, dtype=rt.torch_float64())
    slopes = rt.torch_tensor(SLOPES, dtype=rt.torch_float64())
    np.testing.assert_allclose(_apply(name, x, slopes)._data.reshape(-1), RECORDED[name],
                               atol=1e-15)
    # gradients away from the kinks, first and second order
    y = rt.torch_tensor([[-1.3, -0.4, 0.2, 0.9, 2.1, -3.2]], dtype=rt.torch_float64(),
                        requires_grad=True)
    s = rt.torch_tensor(SLOPES, dtype=rt.torch_float64(), requires_grad=True)
    assert rt.autograd_gradcheck(lambda y, s: _apply(name, y, s), [y, s]) if name == "prelu" \
        else rt.autograd_gradcheck(lambda y: _apply(name, y, s), [y])
    if name not in ("threshold",):
        assert rt.autograd_gradgradcheck(lambda y: _apply(name, y, s), [y])


def test_modules_and_errors():
    x = rt.torch_tensor(X)
    assert np.allclose(rt.nn_celu(0.7)(x)._data, RECORDED["celu"], atol=1e-6)
    assert tuple(rt.nn_glu()(rt.torch_randn(3, 4)).shape) == (3, 2)
    p = rt.nn_prelu(3)
    assert tuple(p.weight.shape) == (3,) and float(p.weight[0]) == 0.25
    m = rt.nn_rrelu()
    m.eval()
    np.testing.assert_allclose(m(x)._data.reshape(-1), RECORDED["rrelu"], atol=1e-6)
    m.train()  # random slopes in training mode (tests/test_nn_more.py)
    assert m(x).grad_fn is None or m(x).grad_fn.name == "RreluWithNoiseBackward0"
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is "
                                           "size 5"):
        rt.nnf_glu(rt.torch_randn(2, 5))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel "
                                           "size"):
        rt.nnf_prelu(rt.torch_randn(2, 4), rt.torch_ones(3))
    for mod in (rt.nn_softsign(), rt.nn_tanhshrink(), rt.nn_hardswish(), rt.nn_softmin(1),
                rt.nn_threshold(0.1, 20)):
        assert tuple(mod(rt.torch_randn(2, 3)).shape) == (2, 3)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 6)) * 2
    w = rng.random(6)
    t = {"celu": lambda x, s: F.celu(x, 0.7), "softmin": lambda x, s: F.softmin(x, 1),
         "glu": lambda x, s: F.glu(x, 1), "hardswish": lambda x, s: F.hardswish(x),
         "prelu": lambda x, s: F.prelu(x.view(1, 18, 1)[:, :6], s).view(-1),
         "rrelu": lambda x, s: F.rrelu(x, training=False),
         "softsign": lambda x, s: F.softsign(x), "tanhshrink": lambda x, s: F.tanhshrink(x),
         "threshold": lambda x, s: F.threshold(x, 0.5, -9.0)}[name]
    xt, st = torch.tensor(a, requires_grad=True), torch.tensor(w, requires_grad=True)
    xr, sr = rt.torch_tensor(a, requires_grad=True), rt.torch_tensor(w, requires_grad=True)
    if name == "prelu":
        rr = rt.nnf_prelu(xr.view(1, 18, 1)[:, :6], sr).view(-1)
    else:
        rr = _apply(name, xr, sr)
    tt = t(xt, st)
    np.testing.assert_allclose(rr._data, tt.detach().numpy(), atol=1e-14)
    g = rng.standard_normal(tuple(tt.shape))
    (tt * torch.tensor(g)).sum().backward()
    (rr * rt.torch_tensor(g)).sum().backward()
    np.testing.assert_allclose(xr.grad._data, xt.grad.numpy(), atol=1e-14)
    if name == "prelu":
        np.testing.assert_allclose(sr.grad._data, st.grad.numpy(), atol=1e-14)
