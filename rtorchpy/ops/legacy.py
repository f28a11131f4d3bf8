"""R torch's older names, kept because programs written for it still call them: the comparison
and trigonometric aliases (``torch_less_equal``, ``torch_arctanh``, ...) and the linear-algebra
forms that predate ``linalg_*`` (``torch_inverse``, ``torch_det``, ``torch_cholesky``,
``torch_svd``, ``torch_qr``, ``torch_triangular_solve``, ``torch_geqrf``, ...).

Each is written in terms of the registered op it stands for, so values, errors and gradients are
that op's (the ``grad_fn`` is the newer op's node, e.g. ``LinalgInvExBackward0``).
"""
from __future__ import annotations

import numpy as np

from ..numerics import linalg as lnp
from ..tensor import Tensor
from .boundary import boundary
from .registry import OPS, as_tensor, op, wrap


def _fn(name):
    return OPS[name].fn


def alias(new, old):
    """Register ``new`` as one more name of the op ``old`` (both forms, as ``op(aliases=)``)."""
    info = OPS[old]
    OPS[new] = info
    if info.method:
        setattr(Tensor, new, boundary(info.method_fn or info.fn, new))


for _new, _old in (("less_equal", "le"), ("less", "lt"), ("greater", "gt"),
                   ("greater_equal", "ge"), ("not_equal", "ne"), ("arccos", "acos"),
                   ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
                   ("arcsinh", "asinh"), ("arctanh", "atanh"), ("absolute", "abs"),
                   ("fix", "trunc"), ("sgn", "sign")):
    alias(_new, _old)


# ---------------------------------------------------------------- linear algebra, older forms
@op("inverse")
def inverse(self):
    """The inverse of each square matrix (``linalg_inv``'s older name)."""
    return _fn("linalg_inv")(self)


@op("pinverse")
def pinverse(self, rcond=1e-15):
    """The pseudo-inverse, singular values below ``rcond`` times the largest treated as zero."""
    return _fn("linalg_pinv")(self, rtol=rcond)


@op("det")
def det(self):
    """The determinant of each square matrix (``linalg_det``)."""
    return _fn("linalg_det")(self)


@op("slogdet")
def slogdet(self):
    """``(sign, logabsdet)`` of each square matrix (``linalg_slogdet``)."""
    return _fn("linalg_slogdet")(self)


@op("cholesky")
def cholesky(self, upper=False):
    """The Cholesky factor, lower (``A = L L^T``) or, with ``upper = TRUE``, upper."""
    return _fn("linalg_cholesky")(self, upper=upper)


@op("cholesky_inverse")
def cholesky_inverse(self, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``self`` (lower, or upper)."""
    self = as_tensor(self)
    lnp.check_square(self, "cholesky_inverse")
    n = self._data.shape[-1]
    eye = wrap(np.broadcast_to(np.eye(n, dtype=self._data.dtype), self._data.shape).copy())
    return _fn("cholesky_solve")(eye, self, upper=upper)


@op("matrix_power")
def matrix_power(self, n):
    """The ``n``-th power of each square matrix (negative: of the inverse)."""
    return _fn("linalg_matrix_power")(self, n)


@op("svd")
def svd(self, some=True, compute_uv=True):
    """``(U, S, V)`` with ``A = U diag(S) V^T`` (note ``V``, not ``V^T``); ``some = FALSE`` gives
    square ``U`` and ``V``; ``compute_uv = FALSE`` gives zero-filled ``U`` and ``V``."""
    self = as_tensor(self)
    if not compute_uv:
        s = _fn("linalg_svdvals")(self)
        m, n = self._data.shape[-2:]
        k = min(m, n)
        batch = self._data.shape[:-2]
        u = np.zeros(batch + ((m, k) if some else (m, m)), self._data.dtype)
        v = np.zeros(batch + ((n, k) if some else (n, n)), self._data.dtype)
        return wrap(u), s, wrap(v)
    u, s, vh = _fn("linalg_svd")(self, full_matrices=not some)
    return u, s, _fn("transpose")(vh, -2, -1)


@op("qr")
def qr(self, some=True):
    """``(Q, R)`` with ``A = Q R``: reduced (``some = TRUE``) or complete."""
    return _fn("linalg_qr")(self, mode="reduced" if some else "complete")


@op("triangular_solve")
def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """``(X, A)``: the solution of ``A X = self`` (``A^T X = self`` with ``transpose``) for a
    triangular ``A`` (upper unless ``upper = FALSE``), and a copy of ``A``."""
    A = as_tensor(A)
    M = _fn("transpose")(A, -2, -1) if transpose else A
    x = _fn("linalg_solve_triangular")(M, self, upper=bool(upper) != bool(transpose),
                                       unitriangular=unitriangular)
    return x, _fn("clone")(A)


def _lu_packed(a):
    """LU with partial pivoting of a batch of square matrices, packed as LAPACK's getrf packs
    it (L's unit diagonal implied). One step per column, vectorised over the batch."""
    a = np.array(a, dtype=a.dtype, copy=True)
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    rows = np.arange(flat.shape[0])
    for k in range(n - 1):
        p = k + np.argmax(np.abs(flat[:, k:, k]), axis=1)
        swap = flat[rows, p].copy()
        flat[rows, p] = flat[:, k]
        flat[:, k] = swap
        piv = flat[:, k, k][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            flat[:, k + 1:, k] /= piv
        flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k, None] * flat[:, k, None, k + 1:]
    return flat.reshape(a.shape)


@op("solve")
def solve(self, A):
    """``(X, LU)``: the solution of ``A X = self`` (``linalg_solve(A, self)``) and the packed LU
    factors of ``A`` (R torch's older ``x$solve(A)``)."""
    A = as_tensor(A)
    x = _fn("linalg_solve")(A, self)
    return x, wrap(_lu_packed(A._data))


@op("geqrf")
def geqrf(self):
    """``(a, tau)``: the QR factorisation as LAPACK's geqrf returns it (``R`` on and above the
    diagonal, the Householder vectors below it, and their scales). Not differentiable, as in
    libtorch."""
    self = as_tensor(self)
    lnp.check_matrix(self, "geqrf")
    lnp.check_float(self, "geqrf")
    a = self._data
    m, n = a.shape[-2:]
    flat = a.reshape((-1, m, n))
    hs, taus = [], []
    for mat in flat:  # (NumPy's raw QR takes one matrix at a time)
        h, tau = np.linalg.qr(mat, mode="raw")
        hs.append(h.T)
        taus.append(tau)
    out = np.stack(hs).reshape(a.shape).astype(a.dtype)
    tau = np.stack(taus).reshape(a.shape[:-2] + (min(m, n),)).astype(a.dtype)
    return wrap(np.ascontiguousarray(out)), wrap(tau)
