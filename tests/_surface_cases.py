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
                              np.ones((2, 3)), expected=inplace(np.array([[1.0, 1, 1], [1, 1, 1]])))],
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
