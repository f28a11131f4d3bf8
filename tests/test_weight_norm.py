"""nn_utils_weight_norm / nn_utils_remove_weight_norm: the parameters PyTorch makes, the weight
recomputed before every forward, values and gradients recorded from PyTorch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
# torch.nn.utils.weight_norm(lin, dim=1); y = lin([[1, 2, 3]]); (y * [[1, -2]]).sum().backward()
G = [[1.5811388300841898, 1.0307764064044151, 2.1360009363293826]]
G_GRAD = [[-1.5811388300841895, -2.9104275004359956, 4.915728182237484]]
V_GRAD = [[1.5, -0.8235294117647056, -1.602739726027398],
          [-0.5000000000000002, -3.2941176470588234, -4.273972602739725]]


def make_lin():
    lin = rt.nn_linear(3, 2)
    with rt.with_no_grad():
        lin.weight.copy_(rt.torch_tensor(W))
        lin.bias.zero_()
    return lin.to(dtype=rt.torch_float64())


def test_weight_norm_parameters_values_and_gradients():
    lin = rt.nn_utils_weight_norm(make_lin(), dim=1)
    assert list(lin.parameters.keys()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(lin.weight_g.detach().numpy(), G, rtol=1e-15)
    y = lin(rt.torch_tensor(np.array([[1.0, 2.0, 3.0]])))
    (y * rt.torch_tensor(np.array([[1.0, -2.0]]))).sum().backward()
    np.testing.assert_allclose(lin.weight_g.grad.numpy(), G_GRAD, rtol=1e-14)
    np.testing.assert_allclose(lin.weight_v.grad.numpy(), V_GRAD, rtol=1e-14)


def test_weight_is_recomputed_before_each_forward_and_removed():
    lin = rt.nn_utils_weight_norm(make_lin())
    assert tuple(lin.weight_g.shape) == (2, 1)
    with rt.with_no_grad():
        lin.weight_g.mul_(2.0)
    x = rt.torch_tensor(np.eye(3))
    np.testing.assert_allclose(lin(x).detach().numpy(), 2 * W.T, rtol=1e-14)
    rt.nn_utils_remove_weight_norm(lin)
    assert sorted(lin.parameters.keys()) == ["bias", "weight"]
    np.testing.assert_allclose(lin.weight.detach().numpy(), 2 * W, rtol=1e-14)
    np.testing.assert_allclose(lin(x).detach().numpy(), 2 * W.T, rtol=1e-14)


def test_weight_norm_whole_tensor_and_errors():
    lin = rt.nn_utils_weight_norm(make_lin(), dim=None)
    assert lin.weight_g.shape == ()
    with pytest.raises(RuntimeError, match="two weight_norm hooks"):
        rt.nn_utils_weight_norm(lin)
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        rt.nn_utils_weight_norm(make_lin(), "nope")
    with pytest.raises(IndexError, match="Dimension out of range"):
        rt.nn_utils_weight_norm(make_lin(), dim=2)
    with pytest.raises(ValueError, match="not found"):
        rt.nn_utils_remove_weight_norm(make_lin())


def test_against_pytorch_conv():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 2, 3))
    x = rng.normal(size=(2, 2, 7))
    for dim in (0, 1, 2, None):
        tc = torch.nn.Conv1d(2, 4, 3, bias=False).double()
        with torch.no_grad():
            tc.weight.copy_(torch.tensor(w))
        torch.nn.utils.weight_norm(tc, dim=dim)
        rc = rt.nn_conv1d(2, 4, 3, bias=False).to(dtype=rt.torch_float64())
        with rt.with_no_grad():
            rc.weight.copy_(rt.torch_tensor(w))
        rt.nn_utils_weight_norm(rc, dim=dim)
        tc(torch.tensor(x)).pow(2).sum().backward()
        rc(rt.torch_tensor(x)).pow(2).sum().backward()
        for n in ("weight_g", "weight_v"):
            np.testing.assert_allclose(getattr(rc, n).grad.numpy(),
                                       getattr(tc, n).grad.numpy(), rtol=1e-12, atol=1e-14)
