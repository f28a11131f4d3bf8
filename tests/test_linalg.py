"""The ``linalg_*`` ops (and ``torch_logdet``, ``torch_cholesky_solve``): values, dtypes and
grad_fn names, first- and second-order gradients against PyTorch (live when it is installed,
recorded in tests/fixtures/linalg_torch.json always), gradcheck and gradgradcheck, batches,
libtorch's errors and its behaviour at singular inputs."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy import (autograd_grad, autograd_gradcheck, autograd_gradgradcheck, torch_float32,
                     torch_float64, torch_tensor)

from linalg_cases import CASES, NO_GRADIENT, RT, cotangents, spd, wellcond

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "linalg_torch.json").read_text())
NAMES = sorted(CASES)
F64 = np.float64


def t64(a, requires_grad=False):
    return torch_tensor(np.asarray(a, dtype=F64), requires_grad=requires_grad)


# ============================================================================ against PyTorch

def _run(name):
    """rtorchpy's record of a case, in the form tests/record_linalg.py records PyTorch's."""
    fn, arrays = CASES[name]
    xs = [t64(a, True) for a in arrays]
    outs = fn(RT, *xs)
    rec = {"outputs": [o.detach().numpy() for o in outs],
           "dtypes": [str(o.dtype.numpy) if hasattr(o.dtype, "numpy") else str(o.dtype)
                      for o in outs],
           "shapes": [list(o.shape) for o in outs],
           "grad_fn": [o.grad_fn.name if o.grad_fn is not None else None for o in outs]}
    if name in NO_GRADIENT:
        return rec
    vs = cotangents(outs)
    pairs = [(o, v) for o, v in zip(outs, vs) if v is not None and o.requires_grad]
    loss = pairs[0][0].mul(t64(pairs[0][1])).sum()
    for o, v in pairs[1:]:
        loss = loss + (o * t64(v)).sum()
    grads = autograd_grad(loss, xs, create_graph=True, allow_unused=True)
    rec["grads"] = [None if g is None else g.detach().numpy() for g in grads]
    ws = np.random.default_rng(2000)
    terms = [(g * t64(ws.uniform(-1, 1, tuple(x.shape)))).sum()
             for g, x in zip(grads, xs) if g is not None]
    terms = [t for t in terms if t.requires_grad]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        grads2 = autograd_grad(total, xs, allow_unused=True)
        rec["grads2"] = [None if g is None else g.numpy() for g in grads2]
    return rec


def _compare(got, want, name):
    assert got["shapes"] == want["shapes"], name
    assert got["dtypes"] == want["dtypes"], name
    # grad_fn names: rtorchpy's batched matmul records MatmulBackward0 where libtorch's gives
    # UnsafeViewBackward0 (a project-wide difference, see docs/differences.md); the linalg
    # nodes themselves must agree
    for a, b in zip(got["grad_fn"], want["grad_fn"]):
        if (a, b) != ("MatmulBackward0", "UnsafeViewBackward0"):
            assert a == b, f"{name}: grad_fn {a} != {b}"
    for a, b in zip(got["outputs"], want["outputs"]):
        np.testing.assert_allclose(a, np.asarray(b, dtype=a.dtype), rtol=1e-10, atol=1e-11,
                                   err_msg=f"{name}: forward values")
    for key, tol in (("grads", 1e-8), ("grads2", 1e-7)):
        if key not in want:
            assert key not in got or all(g is None for g in got[key]), name
            continue
        for i, (a, b) in enumerate(zip(got[key], want[key])):
            if b is None:
                assert a is None or not np.any(a), f"{name}: {key} {i}: PyTorch has none"
                continue
            assert a is not None, f"{name}: {key} {i}: no gradient"
            np.testing.assert_allclose(a, np.asarray(b), rtol=tol, atol=tol,
                                       err_msg=f"{name}: {key} of input {i}")


@pytest.mark.parametrize("name", NAMES)
def test_matches_recorded_pytorch(name):
    _compare(_run(name), RECORDED["cases"][name], name)


@pytest.mark.parametrize("name", NAMES)
def test_matches_pytorch(name):
    pytest.importorskip("torch")
    import torch
    from record_linalg import run
    want = json.loads(json.dumps(run(name, torch)))
    _compare(_run(name), want, name)


def test_recorded_values_cover_every_case():
    assert sorted(RECORDED["cases"]) == NAMES


# ============================================================================ gradcheck

def _sym(a):
    return (a + a.mT) * 0.5


def _lower(a):
    return a * torch_tensor(np.tril(np.ones(a.shape[-2:])))


def _eigh_inv(a):
    w, v = rt.linalg_eigh(_sym(a))
    return w, v * v


def _svd_inv(a):
    u, s, vh = rt.linalg_svd(a, full_matrices=False)
    return s, u * u, rt.torch_matmul(u, vh)


GRADCHECK = {
    "det": (rt.linalg_det, [wellcond(1, 2, 3, 3)]),
    "slogdet": (rt.linalg_slogdet, [wellcond(2, 3, 3)]),
    "logdet": (rt.torch_logdet, [spd(3, 3, 3)]),
    "inv": (rt.linalg_inv, [wellcond(4, 2, 3, 3)]),
    "inv_ex": (lambda a: rt.linalg_inv_ex(a)[0], [wellcond(5, 3, 3)]),
    "solve": (rt.linalg_solve, [wellcond(6, 2, 3, 3), np.ones((3,)) * 0.5]),
    "solve_triangular": (lambda a, b: rt.linalg_solve_triangular(a, b, upper=True),
                         [wellcond(7, 3, 3), np.arange(6.0).reshape(3, 2)]),
    "cholesky": (lambda a: rt.linalg_cholesky(_sym(a)), [spd(8, 2, 3, 3)]),
    "cholesky_ex": (lambda a: rt.linalg_cholesky_ex(_sym(a), upper=True)[0], [spd(9, 3, 3)]),
    "cholesky_solve": (lambda b, u: rt.torch_cholesky_solve(b, _lower(u)),
                       [np.arange(6.0).reshape(3, 2), np.linalg.cholesky(spd(10, 3, 3))]),
    "qr": (rt.linalg_qr, [wellcond(11, 4, 4)[:, :3]]),
    "eigh": (_eigh_inv, [spd(12, 3, 3)]),
    "eigvalsh": (lambda a: rt.linalg_eigvalsh(_sym(a)), [spd(13, 2, 3, 3)]),
    "svd": (_svd_inv, [wellcond(14, 3, 3)[:2] * np.array([1.0, 2.0, 3.0])]),
    "svdvals": (rt.linalg_svdvals, [wellcond(15, 2, 3, 3)]),
    "vector_norm": (lambda a: rt.linalg_vector_norm(a, 3, dim=-1), [wellcond(16, 3, 3)]),
    "matrix_norm": (lambda a: rt.linalg_matrix_norm(a, "nuc"), [wellcond(17, 3, 3)]),
    "norm": (rt.linalg_norm, [wellcond(18, 2, 3, 3)]),
    "cond": (rt.linalg_cond, [wellcond(19, 3, 3)]),
    "pinv": (rt.linalg_pinv, [wellcond(20, 4, 4)[:3]]),
    "lstsq": (lambda a, b: rt.linalg_lstsq(a, b, driver="gelsd")[:2],
              [wellcond(21, 4, 4)[:, :3], np.arange(8.0).reshape(4, 2)]),
    "matrix_power": (lambda a: rt.linalg_matrix_power(a, -2), [wellcond(22, 3, 3)]),
    "multi_dot": (lambda a, b, c: rt.linalg_multi_dot([a, b, c]),
                  [np.arange(3.0), wellcond(23, 3, 3), np.arange(6.0).reshape(3, 2)]),
    "tensorinv": (lambda a: rt.linalg_tensorinv(a, 1), [wellcond(24, 4, 4).reshape(4, 2, 2)]),
    "tensorsolve": (rt.linalg_tensorsolve, [wellcond(25, 4, 4).reshape(2, 2, 4),
                                            np.arange(4.0).reshape(2, 2)]),
    "householder_product": (rt.linalg_householder_product,
                            [wellcond(26, 4, 4)[:, :3], np.array([0.5, -0.3])]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    fn, arrays = GRADCHECK[name]
    inputs = tuple(t64(a, True) for a in arrays)
    assert autograd_gradcheck(fn, inputs)
    assert autograd_gradgradcheck(fn, inputs)


# ============================================================================ forward details

def test_names_are_exported_without_the_torch_prefix():
    for name in ("linalg_det", "linalg_svd", "linalg_vector_norm", "linalg_lstsq"):
        assert name in rt.__all__ and callable(getattr(rt, name))
        assert not hasattr(rt, "torch_" + name)
    assert "torch_logdet" in rt.__all__ and "torch_cholesky_solve" in rt.__all__
    x = t64(spd(1, 3, 3))
    assert x.logdet().item() == pytest.approx(rt.torch_logdet(x).item())
    b = t64(np.ones((3, 1)))
    np.testing.assert_allclose(b.cholesky_solve(rt.linalg_cholesky(x)).numpy(),
                               np.linalg.solve(spd(1, 3, 3), np.ones((3, 1))))
    assert not hasattr(x, "linalg_det")  # no method forms, as in libtorch


def test_float32_stays_float32():
    a = wellcond(3, 2, 3, 3).astype(np.float32)
    x = torch_tensor(a)
    for out in (rt.linalg_det(x), rt.linalg_inv(x), rt.linalg_solve(x, x),
                rt.linalg_svdvals(x), rt.linalg_matrix_norm(x), rt.linalg_qr(x)[1]):
        assert out.dtype == torch_float32()
    np.testing.assert_allclose(rt.linalg_det(x).numpy(), np.linalg.det(a.astype(F64)), rtol=1e-5)


def test_batched_results_have_the_batch_shape():
    a = wellcond(4, 2, 5, 3, 3)
    x = t64(a)
    assert rt.linalg_det(x).shape == (2, 5)
    assert rt.linalg_inv(x).shape == (2, 5, 3, 3)
    assert rt.linalg_solve(x, t64(np.ones((2, 5, 3)))).shape == (2, 5, 3)  # a batch of vectors
    assert rt.linalg_solve(x, t64(np.ones((3,)))).shape == (2, 5, 3)     # one vector
    assert rt.linalg_solve(x, t64(np.ones((3, 3)))).shape == (2, 5, 3, 3)  # one matrix
    s, la = rt.linalg_slogdet(x)
    np.testing.assert_allclose((s * la.exp()).numpy(), np.linalg.det(a))
    assert rt.linalg_svd(t64(np.ones((2, 4, 3))))[0].shape == (2, 4, 4)
    assert rt.linalg_svd(t64(np.ones((2, 4, 3))), full_matrices=False)[0].shape == (2, 4, 3)
    assert rt.linalg_matrix_rank(t64(np.ones((2, 4, 3)))).tolist() == [1, 1]


def test_lstsq_returns_what_each_driver_computes():
    a, b = t64(np.arange(12.0).reshape(4, 3) ** 1.5), t64(np.ones((4, 2)))
    x, res, rank, sv = rt.linalg_lstsq(a, b)  # gelsy (the default, as R torch's)
    assert res.shape == (0,) and rank.dtype == rt.torch_long() and sv.shape == (0,)
    x, res, rank, sv = rt.linalg_lstsq(a, b, driver="gelsd")
    assert res.shape == (2,) and sv.shape == (3,) and rank.item() == 3
    x, res, rank, sv = rt.linalg_lstsq(a, b, driver="gels")
    assert rank.shape == (0,) and res.shape == (2,)
    np.testing.assert_allclose(x.numpy(), np.linalg.lstsq(a.numpy(), b.numpy(), rcond=None)[0])


def test_qr_modes_shapes():
    a = t64(np.arange(12.0).reshape(4, 3) + np.eye(4, 3))
    assert [tuple(t.shape) for t in rt.linalg_qr(a)] == [(4, 3), (3, 3)]
    assert [tuple(t.shape) for t in rt.linalg_qr(a, "complete")] == [(4, 4), (4, 3)]
    assert [tuple(t.shape) for t in rt.linalg_qr(a, "r")] == [(0,), (3, 3)]


def test_matrix_power_zero_is_the_identity_in_the_graph():
    x = t64(wellcond(1, 3, 3), True)
    y = rt.linalg_matrix_power(x, 0)
    np.testing.assert_array_equal(y.detach().numpy(), np.eye(3))
    assert y.grad_fn.name == "CopyBackwards"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 3)))


# ============================================================================ singular inputs

SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])


def test_det_gradient_at_a_singular_matrix_is_libtorchs():
    # first order: libtorch's LU solve against g * det = 0 gives 0
    x = t64(SINGULAR, True)
    rt.linalg_det(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 3)))
    # create_graph: the adjugate through the SVD (here the exact cofactor matrix)
    x = t64(SINGULAR, True)
    (g,) = autograd_grad(rt.linalg_det(x), [x], create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), _cofactors(SINGULAR), atol=1e-12)
    (h,) = autograd_grad((g * g).sum(), [x])
    np.testing.assert_allclose(h.numpy(), [[-4.0, 8.0, 4.0], [-8.0, 16.0, 8.0],
                                           [100.0, -80.0, 20.0]], atol=1e-9)  # PyTorch's


def _cofactors(a):
    n = a.shape[0]
    c = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c


def test_singular_matrices_give_libtorchs_values_and_errors():
    s2 = t64([[1.0, 2.0], [2.0, 4.0]])
    sign, logabs = rt.linalg_slogdet(s2)
    assert logabs.item() == -math.inf and sign.item() == 0 and math.copysign(1, sign.item()) < 0
    inv, info = rt.linalg_inv_ex(s2)
    assert info.item() == 2 and info.dtype == rt.torch_int()
    np.testing.assert_array_equal(inv.numpy(), [[-math.inf, math.inf], [math.inf, -math.inf]])
    with pytest.raises(RuntimeError, match=r"linalg.inv: The diagonal element 2 is zero"):
        rt.linalg_inv(s2)
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): The diagonal element 2"):
        rt.linalg_inv(rt.torch_stack([t64(np.eye(2)), s2]))
    with pytest.raises(RuntimeError, match="The solver failed because the input matrix is "
                                           "singular"):
        rt.linalg_solve(s2, t64([1.0, 1.0]))
    assert rt.torch_logdet(t64(-np.eye(3))).isnan().item()
    assert rt.linalg_cond(s2, "fro").item() == math.inf
    out = rt.linalg_solve_triangular(t64([[0.0, 1.0], [0.0, 1.0]]), t64(np.ones((2, 1))), True)
    assert np.isnan(out.numpy()).any() or np.isinf(out.numpy()).any()


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    with pytest.raises(RuntimeError, match=r"linalg.cholesky: The factorization could not be "
                                           r"completed because the input is not positive-definite "
                                           r"\(the leading minor of order 2 is not "
                                           r"positive-definite\)."):
        rt.linalg_cholesky(t64([[1.0, 2.0], [2.0, 4.0]]))
    L, info = rt.linalg_cholesky_ex(t64([[4.0, 2, 1], [2, 5, 3], [1, 3, -9]]))
    assert info.item() == 3 and info.dtype == rt.torch_int()
    L, info = rt.linalg_cholesky_ex(t64(-np.eye(2)))
    assert info.item() == 1
    np.testing.assert_array_equal(L.numpy(), [[-1.0, 0.0], [0.0, -1.0]])
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): .* order 1 "):
        rt.linalg_cholesky(rt.torch_stack([t64(np.eye(2)), t64(-np.eye(2))]))


def test_repeated_singular_values_or_eigenvalues():
    # the vectors' gradient divides by the gaps (NaN/inf, as libtorch); the values' does not
    x = t64(np.eye(3), True)
    rt.linalg_svdvals(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.eye(3))
    x = t64(np.eye(3), True)
    rt.linalg_svd(x)[0].sum().backward()
    assert not np.isfinite(x.grad.numpy()).all()
    x = t64(np.eye(3), True)
    rt.linalg_eigh(x)[1].sum().backward()
    assert not np.isfinite(x.grad.numpy()).all()


def test_backwards_libtorch_refuses():
    a = t64(np.arange(12.0).reshape(4, 3) + np.eye(4, 3), True)
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        rt.linalg_qr(a, "r")[1].sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > "
                                           "ncols"):
        rt.linalg_qr(a, "complete")[0].sum().backward()
    # cond's non-spectral orders overwrite the inverse libtorch saved (masked_fill_): its
    # backward fails with the in-place error, in libtorch as here
    w = t64(wellcond(1, 3, 3), True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        rt.linalg_cond(w, "fro").backward()


def test_vector_norm_order_zero_has_no_gradient():
    x = t64(np.arange(4.0), True)
    y = rt.linalg_vector_norm(x, 0)
    assert y.item() == 3 and y.grad_fn.name == "LinalgVectorNormBackward0"
    (g,) = autograd_grad(y, [x], allow_unused=True)
    assert g is None


def test_linalg_eig_needs_complex_tensors():
    for f in (rt.linalg_eig, rt.linalg_eigvals):
        with pytest.raises(RuntimeError, match="has no complex results yet"):
            f(t64(np.eye(2)))


# ============================================================================ errors

A32 = np.arange(6.0).reshape(3, 2)
ERRORS = [
    (lambda: rt.linalg_det(t64(A32)), "linalg.det: A must be batches of square matrices, but they "
                                      "are 3 by 2 matrices"),
    (lambda: rt.linalg_det(t64([1.0, 2.0])), "linalg.det: The input tensor A must have at least 2 "
                                             "dimensions."),
    (lambda: rt.linalg_inv(torch_tensor(np.eye(2, dtype=np.int64))),
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: rt.linalg_solve(t64(np.eye(3)), t64([1.0, 1.0])),
     r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x1\)"),
    (lambda: rt.linalg_solve(t64(np.eye(3)), torch_tensor(np.ones(3, np.float32))),
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Double and B of "
     "type Float instead"),
    (lambda: rt.linalg_solve(t64(np.ones((2, 3, 3))), t64(np.ones((4, 3, 2)))),
     r"The size of tensor a \(4\) must match the size of tensor b \(2\) at non-singleton "
     "dimension 0"),
    (lambda: rt.linalg_solve_triangular(t64(np.eye(2)), t64([1.0, 1.0]), upper=True),
     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda: rt.linalg_solve_triangular(t64(np.eye(2)), t64(np.ones((3, 1))), True, left=False),
     r"Incompatible shapes of A and B for the equation XA = B \(2x2 and 3x1\)"),
    (lambda: rt.linalg_qr(t64(A32), "x"), "qr received unrecognized mode 'x' but expected one of "
                                          r"'reduced' \(default\), 'r', or 'complete'"),
    (lambda: rt.linalg_eigh(t64(np.eye(2)), "X"), "Expected UPLO argument to be 'L' or 'U', but "
                                                  "got X"),
    (lambda: rt.linalg_vector_norm(t64(A32), "fro"), "argument 'ord' .* must be Number, not str"),
    (lambda: rt.linalg_matrix_norm(t64(A32), 3), "linalg.matrix_norm: Order 3 not supported."),
    (lambda: rt.linalg_matrix_norm(t64(A32), dim=(0,)), "linalg.matrix_norm: dim must be a "
                                                        "2-tuple. Got 0"),
    (lambda: rt.linalg_norm(t64(np.ones((2, 2, 2))), 2), "linalg.norm: If dim is not specified but "
                                                         "ord is, the input must be 1D or 2D. "
                                                         "Got 3D."),
    (lambda: rt.linalg_cond(t64(A32), "fro"), r"linalg.cond\(ord=fro\): A must be batches of "
                                              "square matrices"),
    (lambda: rt.linalg_cond(t64(A32), 1.0), r"linalg.cond\(ord=1.000000\): A must be batches"),
    (lambda: rt.linalg_cond(t64(np.eye(2)), 3), "linalg.cond got an invalid norm type: 3"),
    (lambda: rt.linalg_lstsq(t64(A32), t64(np.ones((2, 1)))),
     r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)"),
    (lambda: rt.linalg_lstsq(t64(A32), t64(np.ones((3, 1))), driver="x"),
     r"parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\)"),
    (lambda: rt.linalg_matrix_power(t64(A32), 2), "linalg.matrix_power: A must be batches of "
                                                  "square matrices"),
    (lambda: rt.linalg_matrix_power(t64(np.eye(2)), 2.5), "argument 'n' .* must be int, not float"),
    (lambda: rt.linalg_multi_dot([t64(A32)]), r"multi_dot\(\): expected at least 2 tensors but "
                                              "got 1"),
    (lambda: rt.linalg_multi_dot([t64(A32), t64(A32)]),
     r"multi_dot\(\): tensors 0 and 1 with shapes \[3, 2\] and \[3, 2\] cannot be multiplied"),
    (lambda: rt.linalg_tensorinv(t64(np.ones((2, 3))), 1),
     r"prod\(self.shape\[ind:\]\) == prod\(self.shape\[:ind\]\), but got 3 != 2"),
    (lambda: rt.linalg_tensorinv(t64(np.ones((2, 2))), 0),
     "Expected a strictly positive integer for 'ind', but got 0"),
    (lambda: rt.linalg_householder_product(t64(np.ones((2, 3))), t64([1.0, 1.0])),
     r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"),
    (lambda: rt.torch_cholesky_solve(t64(np.ones((3, 1))), t64(np.eye(2))),
     "Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix "
     "is 3 by 1"),
    (lambda: rt.linalg_matrix_rank(torch_tensor(np.eye(2, dtype=np.int64))),
     "This function doesn't handle types other than float and double"),
]


@pytest.mark.parametrize("call,message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_errors_carry_libtorchs_text(call, message):
    with pytest.raises((RuntimeError, TypeError)) as info:
        call()
    import re
    assert re.search(message, str(info.value)), str(info.value)


def test_float64_stays_precise_on_a_larger_solve():
    a = wellcond(9, 64, 64)
    b = np.random.default_rng(9).standard_normal((64, 64))
    x = rt.linalg_solve(t64(a), t64(b)).numpy()
    np.testing.assert_allclose(a @ x, b, atol=1e-11)
    assert rt.linalg_solve(t64(a), t64(b)).dtype == torch_float64()
