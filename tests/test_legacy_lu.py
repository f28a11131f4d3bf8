"""torch_lu, torch_lu_unpack, torch_lu_solve, torch_orgqr, torch_ormqr, torch_chain_matmul
(rtorchpy/ops/legacy_lu.py): values recorded from PyTorch 2.13, gradients, warnings, errors;
and against PyTorch itself when it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.ops import legacy_lu

A = np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]])
# recorded from PyTorch 2.13 (float64)
LU = np.array([[7.0, 8.0, 10.0], [0.14285714285714285, 0.8571428571428572, 1.5714285714285714],
               [0.5714285714285714, 0.5, -0.5]])
PIV = np.array([3, 3, 3], np.int32)
ORGQR = np.array([[-0.1231, 0.9045, 0.4082], [-0.4924, 0.3015, -0.8165],
                  [-0.8616, -0.3015, 0.4082]])
ORMQR_ONES = np.array([1.1897, -1.0074, -0.7549])


def t(a, **kw):
    return rt.torch_tensor(np.asarray(a), **kw)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_lu_values_and_pivots_as_pytorch():
    lu, piv = rt.torch_lu(t(A))
    np.testing.assert_allclose(lu.numpy(), LU, atol=1e-12)
    assert piv.numpy().tolist() == PIV.tolist() and piv.dtype == rt.torch_int32()
    lu, piv, info = t(A).lu(get_infos=True)
    assert info.numpy() == 0 and info.dtype == rt.torch_int32()


def test_lu_singular_reports_info_without_error():
    lu, piv, info = rt.torch_lu(t(np.zeros((2, 2))), get_infos=True)
    assert int(info.numpy()) == 1 and piv.numpy().tolist() == [1, 2]


def test_lu_unpack_and_solve():
    P, L, U = rt.torch_lu_unpack(t(LU), t(PIV))
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), A, atol=1e-12)
    np.testing.assert_array_equal(P.numpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    P2, L2, U2 = rt.torch_lu_unpack(t(LU), t(PIV), unpack_data=False)
    assert L2.shape == (0,) and U2.shape == (0,)
    x = rt.torch_lu_solve(t(np.ones((3, 2))), t(LU), t(PIV))
    np.testing.assert_allclose(x.numpy(), [[-1, -1], [1, 1], [0, 0]], atol=1e-12)


def test_rectangular_and_batched_lu():
    rng = np.random.default_rng(3)
    for shape in [(2, 3, 5), (5, 3)]:
        a = rng.standard_normal(shape)
        lu, piv = rt.torch_lu(t(a))
        P, L, U = rt.torch_lu_unpack(lu, piv)
        np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), a, atol=1e-12)


def test_householder_functions_recorded_values():
    a, tau = rt.torch_geqrf(t(A))
    np.testing.assert_allclose(rt.torch_orgqr(a, tau).numpy(), ORGQR, atol=1e-4)
    np.testing.assert_allclose(a.orgqr(tau).numpy(), ORGQR, atol=1e-4)
    r = rt.torch_ormqr(a, tau, t(np.ones((3, 2))))
    np.testing.assert_allclose(r.numpy(), np.stack([ORMQR_ONES] * 2, 1), atol=1e-4)
    q = ORGQR
    c = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(a.ormqr(tau, t(c), left=False, transpose=True).numpy(), c @ q.T,
                               atol=1e-3)


def test_gradients_flow():
    a = t(A + np.eye(3), requires_grad=True)
    b = t(np.ones((3, 2)), requires_grad=True)
    lu, piv = rt.torch_lu(a)
    assert lu.grad_fn.name == "LinalgLuFactorExBackward0"
    rt.torch_lu_solve(b, lu, piv).sum().backward()
    x_inv = np.linalg.inv(A + np.eye(3))
    gb = x_inv.T @ np.ones((3, 2))
    np.testing.assert_allclose(b.grad.numpy(), gb, atol=1e-10)
    x = x_inv @ np.ones((3, 2))
    np.testing.assert_allclose(a.grad.numpy(), -gb @ x.T, atol=1e-10)


def test_deprecation_warnings_once():
    legacy_lu._WARNED.clear()
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        rt.torch_lu(t(A))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.torch_lu(t(A))  # once per session, as TORCH_WARN_ONCE
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        rt.torch_chain_matmul(t(A), t(A))
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        rt.torch_lu_solve(t(np.ones((3, 1))), t(LU), t(PIV))


@pytest.mark.parametrize("call, message", [
    (lambda: rt.torch_lu(t([1.0, 2.0])), "Expected tensor with 2 or more dimensions"),
    (lambda: rt.torch_lu(t(A), pivot=False), "LU without pivoting is not implemented"),
    (lambda: rt.torch_lu(t(np.ones((2, 2), np.int64))), "not implemented for 'Long'"),
    (lambda: rt.torch_lu_unpack(t(LU), t(PIV.astype(np.int64))), "torch.int32 dtype"),
    (lambda: rt.torch_lu_solve(t(np.ones((2, 1))), t(LU), t(PIV)),
     r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x1\)"),
    (lambda: rt.torch_chain_matmul(), "Expected one or more matrices"),
    (lambda: rt.torch_chain_matmul(t([1.0, 2.0])), "Tensor dimension is 1, expected 2"),
])
def test_errors(call, message):
    with pytest.raises((RuntimeError, NotImplementedError), match=message):
        call()


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for shape in [(4, 4), (2, 3, 5), (5, 3)]:
        a = rng.standard_normal(shape)
        ra = t(a, requires_grad=True)
        ta = torch.tensor(a, requires_grad=True)
        lu, piv = rt.torch_lu(ra)
        tlu, tpiv = torch.lu(ta)
        np.testing.assert_allclose(lu.detach().numpy(), tlu.detach().numpy(), atol=1e-12)
        assert piv.numpy().tolist() == tpiv.numpy().tolist()
        w = rng.standard_normal(lu.shape)
        (lu * t(w)).sum().backward()
        (tlu * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(ra.grad.numpy(), ta.grad.numpy(), atol=1e-10)
    h, tau = torch.geqrf(torch.tensor(rng.standard_normal((2, 4, 3))))
    c = rng.standard_normal((2, 4, 2))
    for left, tr in [(True, False), (True, True)]:
        r = rt.torch_ormqr(t(h.numpy()), t(tau.numpy()), t(c), left, tr)
        np.testing.assert_allclose(
            r.numpy(), torch.ormqr(h, tau, torch.tensor(c), left, tr).numpy(), atol=1e-12)
