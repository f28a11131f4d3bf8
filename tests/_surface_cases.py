"""Forward cases of R torch's older names and everyday composites (rtorchpy/ops/legacy.py,
everyday.py), for tests/test_ops.py's table."""
from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(29)
X = RNG.uniform(-0.9, 0.9, (3, 4))
SQ = RNG.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T + np.eye(3)
LOW = np.linalg.cholesky(SPD)
MASK = RNG.random((3, 4)) > 0.5
# torch.lu of SQ_A in PyTorch 2.13: packed factors, pivots (3, 3, 3)
SQ_A = np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]])
SQ_LU = np.array([[7.0, 8, 10], [1 / 7, 6 / 7, 11 / 7], [4 / 7, 0.5, -0.5]])


def _plu(lu, piv):
    """P L U of packed factors (a check independent of lu_unpack)."""
    n = lu.shape[-1]
    a = np.tril(lu, -1) + np.eye(n)
    a = a @ np.triu(lu)
    for j in range(n - 1, -1, -1):  # undo the interchanges, last first
        a[[j, piv[j] - 1]] = a[[piv[j] - 1, j]]
    return a


def surface_cases(Case, inplace, same_values):
    def close(expected):
        def check(r, args):
            np.testing.assert_allclose(r.numpy(), expected, rtol=1e-10, atol=1e-10)
        return check

    def recon(combine, expected):
        def check(r, args):
            np.testing.assert_allclose(combine(*[t.numpy() for t in r]), expected, atol=1e-10)
        return check

    cases = {
        "less_equal": [Case(X, 0.1, expected=X <= 0.1)],
        "less": [Case(X, 0.1, expected=X < 0.1)],
        "greater": [Case(X, 0.1, expected=X > 0.1)],
        "greater_equal": [Case(X, 0.1, expected=X >= 0.1)],
        "not_equal": [Case(X, X[0], expected=X != X[0])],
        "arccos": [Case(X, expected=np.arccos(X))],
        "arcsin": [Case(X, expected=np.arcsin(X))],
        "arctan": [Case(X, expected=np.arctan(X))],
        "arccosh": [Case(X + 2, expected=np.arccosh(X + 2))],
        "arcsinh": [Case(X, expected=np.arcsinh(X))],
        "arctanh": [Case(X, expected=np.arctanh(X))],
        "absolute": [Case(X, expected=np.abs(X))],
        "fix": [Case(X * 3, expected=np.trunc(X * 3))],
        "sgn": [Case(X, expected=np.sign(X))],
        "inverse": [Case(SQ, expected=np.linalg.inv(SQ))],
        "pinverse": [Case(X, expected=close(np.linalg.pinv(X)))],
        "det": [Case(SQ, expected=np.asarray(np.linalg.det(SQ)))],
        "slogdet": [Case(SQ, expected=tuple(np.asarray(v) for v in np.linalg.slogdet(SQ)))],
        "cholesky": [Case(SPD, expected=LOW), Case(SPD, upper=True, expected=LOW.T)],
        "cholesky_inverse": [Case(LOW, expected=close(np.linalg.inv(SPD)))],
        "matrix_power": [Case(SQ, 2, expected=close(SQ @ SQ))],
        "svd": [Case(X, expected=recon(lambda u, s, v: u * s @ v.T, X))],
        "qr": [Case(X.T, expected=recon(lambda q, r: q @ r, X.T))],
        "triangular_solve": [Case(SQ[:, :1], np.triu(SQ), expected=recon(
            lambda x, a: a @ x, SQ[:, :1]))],
        "solve": [Case(SQ[:, :2], SQ, expected=recon(lambda x, lu: SQ @ x, SQ[:, :2]))],
        "geqrf": [Case(SQ, expected=lambda r, a: np.testing.assert_allclose(
            np.abs(np.triu(r[0].numpy())), np.abs(np.linalg.qr(SQ)[1]), atol=1e-10))],
        "lu": [Case(SQ, expected=lambda r, a: np.testing.assert_allclose(
            _plu(r[0].numpy(), r[1].numpy()), SQ, atol=1e-10))],
        "lu_unpack": [Case(SQ_LU, np.array([3, 3, 3], np.int32), expected=recon(
            lambda p, lo, up: p @ lo @ up, SQ_A))],
        "lu_solve": [Case(SQ_A[:, :2], SQ_LU, np.array([3, 3, 3], np.int32),
                          expected=close(np.linalg.solve(SQ_A, SQ_A[:, :2])))],
        "orgqr": [Case(np.zeros((3, 2)), np.zeros(2), expected=np.eye(3, 2))],
        "ormqr": [Case(np.zeros((3, 2)), np.zeros(2), X[:, :2], expected=X[:, :2])],
        "chain_matmul": [Case(SQ, SQ, SQ, expected=close(SQ @ SQ @ SQ))],
        "addcmul": [Case(X, X, X, value=2, expected=X + 2 * X * X)],
        "addcdiv": [Case(X, X, SPD[:, :1] + 1, expected=X + X / (SPD[:, :1] + 1))],
        "masked_select": [Case(X, MASK, expected=X[MASK])],
        "masked_scatter": [Case(X, MASK, -X, expected=np.where(
            MASK, (-X).ravel()[np.maximum(np.cumsum(MASK.ravel()) - 1, 0)].reshape(3, 4), X))],
        "view_as": [Case(X, np.zeros(12), expected=X.reshape(12))],
        "reshape_as": [Case(X, np.zeros((4, 3)), expected=X.reshape(4, 3))],
        "unsqueeze_": [Case(X, 0, expected=inplace(X[None]))],
        "squeeze_": [Case(X[None], expected=inplace(X))],
        "t_": [Case(X, expected=inplace(X.T))],
        "transpose_": [Case(X, 0, 1, expected=inplace(X.T))],
        "polygamma_": [Case(X + 2, 1, expected=lambda r, a: np.testing.assert_allclose(
            r.numpy(), __import__("rtorchpy").torch_polygamma(
                1, __import__("rtorchpy").torch_tensor(X + 2)).numpy(), rtol=1e-12))],
        "scatter_add_": [Case(np.zeros((2, 3)), 0, np.array([[0, 1, 0], [1, 0, 1]]),
                              np.ones((2, 3)),
                              expected=inplace(np.array([[1.0, 1, 1], [1, 1, 1]])))],
        "set_data": [Case(X, SQ, expected=lambda r, a: (np.testing.assert_array_equal(
            a[0].numpy(), SQ), r is None))],
    }
    return cases


def inplace_cases(Case, inplace, names, OPS, torch_tensor):
    """One case per generated in-place form: the out-of-place op's values, written into self."""
    cases = {}
    for name in names:
        base = name[:-1]
        binary = base in ("atan2", "eq", "ne", "lt", "le", "gt", "ge", "less", "less_equal",
                          "greater", "greater_equal", "not_equal", "fmod", "remainder",
                          "hypot", "logical_and", "logical_or", "logical_xor", "multiply",
                          "divide", "subtract", "true_divide")
        x = X + 2.0 if base in ("acosh", "arccosh") else X
        args = (x, X * 0 + 0.5) if binary else (x,)
        extra = {"clamp_min": (0.0,), "clamp_max": (0.0,), "clip": (-0.1, 0.1),
                 "addcmul": (X, X), "addcdiv": (X, X + 2), "masked_scatter": (MASK, X),
                 "addmm": (X, np.eye(4))}
        args = args + extra.get(base, ())
        ref = OPS[base].fn(*[torch_tensor(a) if isinstance(a, np.ndarray) else a
                             for a in args]).numpy()
        cases[name] = [Case(*args, expected=inplace(ref.astype(x.dtype), x.dtype))]
    return cases


II = RNG.integers(0, 8, (3, 4))
V3 = RNG.uniform(-1, 1, 3)
V4 = RNG.uniform(-1, 1, 4)
B3 = RNG.uniform(-1, 1, (2, 3, 3))


def composite_cases(Case, inplace):
    """Cases of rtorchpy/ops/composites.py (values against NumPy)."""
    z = np.zeros((3, 5))
    idx = np.array([[0], [1]])
    sc = z.copy()
    sc[0, 0] = sc[1, 0] = 1
    ia = np.array([0, 2])
    added = X.copy()
    added[ia] += 2 * np.ones((2, 4))
    filled = X.copy()
    filled[:, [1]] = -1.0
    copied = X.copy()
    copied[[2, 0]] = SQ[:2, :1] * np.ones((2, 4))
    cases = {
        "scatter": [Case(z, 0, idx, 1.0, expected=sc),
                    Case(z, 0, idx, np.full((2, 1), 7.0), expected=sc * 7)],
        "index_add": [Case(X, 0, ia, np.ones((2, 4)), alpha=2, expected=added)],
        "index_fill": [Case(X, 1, np.array([1]), -1.0, expected=filled)],
        "index_copy": [Case(X, 0, np.array([2, 0]), SQ[:2, :1] * np.ones((2, 4)),
                            expected=copied)],
        "frac": [Case(X * 3, expected=X * 3 - np.trunc(X * 3))],
        "exp2": [Case(X, expected=2.0 ** X)],
        "deg2rad": [Case(X, expected=np.deg2rad(X))],
        "rad2deg": [Case(X, expected=np.rad2deg(X))],
        "logaddexp": [Case(X, X[0], expected=np.logaddexp(X, X[0]))],
        "logaddexp2": [Case(X, X[0], expected=np.logaddexp2(X, X[0]))],
        "lerp": [Case(X, X[0], 0.25, expected=X + 0.25 * (X[0] - X))],
        "floor_divide": [Case(X * 5, 0.7, expected=np.floor(X * 5 / 0.7))],
        "heaviside": [Case(np.array([-1.0, 0, 2]), np.array([0.5]),
                           expected=np.array([0.0, 0.5, 1.0]))],
        "signbit": [Case(np.array([-0.0, 1.0, -2.0]), expected=np.array([True, False, True]))],
        "isposinf": [Case(np.array([np.inf, -np.inf, 1.0]),
                          expected=np.array([True, False, False]))],
        "isneginf": [Case(np.array([np.inf, -np.inf, 1.0]),
                          expected=np.array([False, True, False]))],
        "bitwise_and": [Case(II, II[0], expected=II & II[0])],
        "bitwise_or": [Case(II, II[0], expected=II | II[0])],
        "bitwise_xor": [Case(II, II[0], expected=II ^ II[0])],
        "bitwise_not": [Case(II, expected=~II), Case(MASK, expected=~MASK)],
        "nansum": [Case(np.array([1.0, np.nan, 2.0]), expected=np.asarray(3.0)),
                   Case(X, 1, expected=X.sum(1))],
        "count_nonzero": [Case(II, expected=np.asarray(np.count_nonzero(II))),
                          Case(II, 0, expected=np.count_nonzero(II, axis=0))],
        "vdot": [Case(V3, V3, expected=np.asarray(V3 @ V3))],
        "dist": [Case(X, X[0], expected=np.asarray(np.linalg.norm(X - X[0])))],
        "diagflat": [Case(V3, expected=np.diag(V3)), Case(V3, 1, expected=np.diag(V3, 1))],
        "addmv": [Case(V3, SQ, V3, beta=2, alpha=3, expected=2 * V3 + 3 * SQ @ V3)],
        "addr": [Case(X, V3, V4, expected=X + np.outer(V3, V4))],
        "baddbmm": [Case(B3, B3, B3, expected=B3 + B3 @ B3)],
        "addbmm": [Case(SQ, B3, B3, expected=SQ + (B3 @ B3).sum(0))],
        "take": [Case(X, np.array([[0, 11], [5, 3]]), expected=X.ravel()[[[0, 11], [5, 3]]])],
        "is_complex": [Case(X, expected=False)],
        "is_signed": [Case(X, expected=True), Case(MASK, expected=False)],
        "is_same_size": [Case(X, X, expected=True), Case(X, SQ, expected=False)],
        "is_nonzero": [Case(np.array([2.0]), expected=True), Case(np.array([0]), expected=False)],
        "scatter_": [Case(z, 0, idx, 1.0, expected=inplace(sc))],
        "index_add_": [Case(X, 0, ia, np.ones((2, 4)), 2, expected=inplace(added))],
        "index_fill_": [Case(X, 1, np.array([1]), -1.0, expected=inplace(filled))],
        "index_copy_": [Case(X, 0, np.array([2, 0]), SQ[:2, :1] * np.ones((2, 4)),
                             expected=inplace(copied))],
        "frac_": [Case(X * 3, expected=inplace(X * 3 - np.trunc(X * 3)))],
        "exp2_": [Case(X, expected=inplace(2.0 ** X))],
        "deg2rad_": [Case(X, expected=inplace(np.deg2rad(X)))],
        "rad2deg_": [Case(X, expected=inplace(np.rad2deg(X)))],
        "lerp_": [Case(X, X[0], 0.25, expected=inplace(X + 0.25 * (X[0] - X)))],
        "floor_divide_": [Case(X * 5, 0.7, expected=inplace(np.floor(X * 5 / 0.7)))],
        "heaviside_": [Case(np.array([-1.0, 0, 2]), np.array([0.5]),
                            expected=inplace(np.array([0.0, 0.5, 1.0])))],
        "bitwise_and_": [Case(II, II[0], expected=inplace(II & II[0]))],
        "bitwise_or_": [Case(II, II[0], expected=inplace(II | II[0]))],
        "bitwise_xor_": [Case(II, II[0], expected=inplace(II ^ II[0]))],
        "bitwise_not_": [Case(II, expected=inplace(~II))],
        "addmv_": [Case(V3, SQ, V3, expected=inplace(V3 + SQ @ V3))],
        "addr_": [Case(X, V3, V4, expected=inplace(X + np.outer(V3, V4)))],
        "baddbmm_": [Case(B3, B3, B3, expected=inplace(B3 + B3 @ B3))],
        "addbmm_": [Case(SQ, B3, B3, expected=inplace(SQ + (B3 @ B3).sum(0)))],
    }
    return cases
