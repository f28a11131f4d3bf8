"""NumPy building blocks of the linear-algebra ops (``ops/linalg_*.py``) and of their
derivative formulas (``numerics/formula_linalg.py``): checks with libtorch's error texts, batched
triangular solves, and LAPACK's LU and Cholesky written out, for what ``np.linalg`` cannot tell
(which pivot of a singular matrix is zero, the partial factor of a matrix that is not positive
definite, the inf/NaN a solve with a singular matrix gives in libtorch).

Everything here works on ndarrays of shape ``(*, m, n)``: the leading dims are a batch.
"""
from __future__ import annotations

import numpy as np

from .format import type_word_for

# ------------------------------------------------------------------------------ checks


def c_array(a):
    """``a`` as a C-contiguous ndarray (copied only when it is not one; 0-d stays 0-d, unlike
    np.ascontiguousarray), as libtorch's ops return fresh contiguous results."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy()


def type_word(dtype):
    """libtorch's name of a NumPy dtype (``Float``, ``Double``, ``Long``, ...)."""
    return type_word_for(np.dtype(dtype))


def check_float(t, name, kernel=None):
    """libtorch's checkFloatingOrComplex; float16 has no LAPACK kernel: refused too, naming
    libtorch's ``kernel`` (e.g. "lu_cpu")."""
    dt = t._data.dtype
    if dt.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{type_word(dt)}")
    if dt.itemsize < 4:
        raise NotImplementedError(f'"{kernel or name}" not implemented for \'{type_word(dt)}\'')


def check_matrix(t, name, arg="A"):
    if t._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def check_square(t, name, arg="A"):
    check_matrix(t, name, arg)
    m, n = t._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {m} "
                           f"by {n} matrices")


def batch_prefix(batch_shape, index):
    """``(Batch element i): `` for a batched input, as libtorch's _linalg_check_errors."""
    if not batch_shape:
        return ""
    return f"(Batch element {int(np.ravel_multi_index(index, batch_shape))}): "


def first_failure(info):
    """The batch index (a tuple) of the first non-zero entry of ``info`` in C order, or None."""
    info = np.asarray(info)
    if not info.any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(info.reshape(-1) != 0)),
                                                  info.shape))


def eye(n, dtype):
    return np.eye(n, dtype=dtype)


def broadcast_batch(a, b):
    """``a`` and ``b`` (matrices) with their batch dims broadcast to one shape."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return (np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))


# ------------------------------------------------------------------------------ LU (getrf)

def lu_factor(a):
    """LAPACK's getrf, unblocked: ``(lu, perm, info)`` for a batch of square matrices. ``perm``
    is the row permutation as an index array per matrix, ``info`` the 1-based index of the first
    exactly zero pivot (0 when there is none). The factorization goes on past a zero pivot, as
    LAPACK's does."""
    lu = np.array(a, dtype=a.dtype, copy=True)
    n = lu.shape[-1]
    batch = lu.shape[:-2]
    perm = np.broadcast_to(np.arange(n), batch + (n,)).copy()
    sign = np.ones(batch, dtype=a.dtype)
    info = np.zeros(batch, dtype=np.int32)
    flat, fperm, fsign, finfo = (lu.reshape(-1, n, n), perm.reshape(-1, n), sign.reshape(-1),
                                 info.reshape(-1))
    for b in range(flat.shape[0]):
        m = flat[b]
        for j in range(n):
            p = j + int(np.argmax(np.abs(m[j:, j])))
            if p != j:
                m[[j, p]] = m[[p, j]]
                fperm[b, [j, p]] = fperm[b, [p, j]]
                fsign[b] = -fsign[b]
            if m[j, j] == 0:
                if finfo[b] == 0:
                    finfo[b] = j + 1
                continue
            m[j + 1:, j] /= m[j, j]
            m[j + 1:, j + 1:] -= np.outer(m[j + 1:, j], m[j, j + 1:])
    return lu, perm, sign, info


def lu_solve(lu, perm, b):
    """Solve with :func:`lu_factor`'s factors, dividing by zero pivots as LAPACK's getrs does
    (inf or NaN, no error). ``b`` has the batch shape of ``lu``."""
    x = np.take_along_axis(b, perm[..., None], axis=-2).astype(lu.dtype)
    n = lu.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(n):  # forward substitution with unit-diagonal L
            if i:
                x[..., i, :] -= np.einsum("...j,...jk->...k", lu[..., i, :i], x[..., :i, :])
        for i in range(n - 1, -1, -1):
            if i < n - 1:
                x[..., i, :] -= np.einsum("...j,...jk->...k", lu[..., i, i + 1:], x[..., i + 1:, :])
            x[..., i, :] /= lu[..., i, i, None]
    return x


def getrf(a):
    """LAPACK's getrf for a batch of (possibly rectangular) matrices: ``(lu, pivots, info)``,
    ``pivots`` the 1-based row interchanges (int32, ``min(m, n)`` per matrix), ``info`` the
    1-based index of the first exactly zero pivot (0: none). One step per column, vectorised
    over the batch; a zero pivot leaves its column unscaled and the factorization goes on."""
    lu = np.array(a, dtype=a.dtype, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    flat = lu.reshape((-1, m, n))
    rows = np.arange(flat.shape[0])
    piv = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        swap = flat[rows, p].copy()
        flat[rows, p] = flat[:, j]
        flat[:, j] = swap
        d = flat[:, j, j]
        zero = d == 0
        info[zero & (info == 0)] = j + 1
        flat[:, j + 1:, j] /= np.where(zero, 1, d)[:, None]
        flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    batch = lu.shape[:-2]
    return lu, piv.reshape(batch + (k,)), info.reshape(batch)


def pivots_to_perm(piv, m):
    """The row order ``perm`` of LAPACK's 1-based interchanges ``piv`` (``(*, k)``) applied in
    turn to ``m`` rows: ``A[perm] = L U``, so ``A = P L U`` with ``P[perm[i], i] = 1``."""
    piv = np.asarray(piv)
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy().reshape(-1, m)
    flat = piv.reshape(-1, piv.shape[-1]).astype(np.int64) - 1
    rows = np.arange(perm.shape[0])
    for j in range(flat.shape[-1]):
        p = flat[:, j]
        a, b = perm[:, j].copy(), perm[rows, p].copy()
        perm[:, j], perm[rows, p] = b, a
    return perm.reshape(batch + (m,))


def perm_matrix(perm, dtype):
    """The permutation matrices ``P`` with ``P[perm[i], i] = 1`` (batch of ``perm`` rows)."""
    m = perm.shape[-1]
    out = np.zeros(perm.shape + (m,), dtype)
    idx = np.arange(m)
    flat_out = out.reshape(-1, m, m)
    flat_perm = perm.reshape(-1, m)
    flat_out[np.arange(flat_out.shape[0])[:, None], flat_perm, idx[None, :]] = 1
    return out


# ------------------------------------------------------------------------------ triangular

def tri_mask(n, m, upper, k=0):
    """The boolean mask of triu(k) / tril(k) of an n x m matrix."""
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    return (j - i >= k) if upper else (j - i <= k)


def triangle(a, upper, unit=False):
    """triu/tril of a batch of matrices; ``unit`` puts ones on the diagonal."""
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t = np.array(t, copy=True)
        idx = np.arange(min(t.shape[-2:]))
        t[..., idx, idx] = 1
    return t


def substitute(t, b, upper):
    """``t^{-1} b`` for a batch of triangular ``t`` by substitution, dividing by zero pivots
    without error (trsm's inf and NaN)."""
    n = t.shape[-1]
    t, b = broadcast_batch(t, b)
    x = np.array(b, dtype=np.result_type(t, b), copy=True)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in order:
            rest = slice(i + 1, n) if upper else slice(0, i)
            if (i + 1 < n) if upper else i:
                x[..., i, :] -= np.einsum("...j,...jk->...k", t[..., i, rest], x[..., rest, :])
            x[..., i, :] /= t[..., i, i, None]
    return x


def solve_triangular(a, b, upper, left=True, unit=False):
    """``A^{-1} B`` (``left``) or ``B A^{-1}`` with only the upper or lower triangle of ``A``
    read, as libtorch's linalg_solve_triangular; batch dims broadcast."""
    t = triangle(a, upper, unit)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return np.swapaxes(solve_triangular(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2),
                                            not upper, True, unit), -1, -2)
    diag = np.diagonal(t, 0, -2, -1)
    if t.shape[-1] and np.all(diag != 0) and np.all(np.isfinite(t)):
        t, b = broadcast_batch(t, b)
        return np.linalg.solve(t, b)
    return substitute(t, b, upper)


def solve(a, b):
    """``A^{-1} B`` for batches (broadcast) of square ``A`` and matrices ``B``; a singular ``A``
    gives libtorch's inf/NaN (LU with a zero pivot) instead of NumPy's error."""
    try:
        return np.linalg.solve(*broadcast_batch(a, b))
    except np.linalg.LinAlgError:
        a, b = broadcast_batch(a, b)
        lu, perm, _, _ = lu_factor(a)
        return lu_solve(lu, perm, b)


# ------------------------------------------------------------------------------ Cholesky

def cholesky_info(a):
    """LAPACK potrf2's recursive Cholesky (lower) of each matrix: ``(partial factor, info)``,
    info the order of the first leading minor that is not positive definite (0: none). Only
    used when NumPy's Cholesky has failed, to report what libtorch reports."""
    out = np.array(np.tril(a), copy=True)
    n = a.shape[-1]
    flat = out.reshape(-1, n, n)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for b in range(flat.shape[0]):
        info[b] = _potrf2(flat[b])
    return np.tril(out), info.reshape(a.shape[:-2])


def _potrf2(m):
    n = m.shape[0]
    if n == 1:
        if not m[0, 0] > 0:  # also NaN
            return 1
        m[0, 0] = np.sqrt(m[0, 0])
        return 0
    n1 = n // 2
    info = _potrf2(m[:n1, :n1])
    if info:
        return info
    l11 = np.tril(m[:n1, :n1])
    m[n1:, :n1] = np.linalg.solve(l11, m[n1:, :n1].T).T
    m[n1:, n1:] -= m[n1:, :n1] @ m[n1:, :n1].T
    info = _potrf2(m[n1:, n1:])
    return info + n1 if info else 0


def tolerances(a, atol, rtol, hermitian_abs=None):
    """libtorch's get_atol_rtol: rtol defaults to eps * max(m, n), or 0 when atol > 0."""
    atol = 0.0 if atol is None else atol
    if rtol is None:
        default = np.finfo(a.dtype).eps * max(a.shape[-2], a.shape[-1])
        rtol = np.where(np.asarray(atol) > 0, 0.0, default)
    return _num(atol), _num(rtol)


def _num(x):
    return x._data if hasattr(x, "_data") else np.asarray(x)


def pinv_array(a, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of a batch of matrices as libtorch computes it (SVD, or eigh for
    ``hermitian``; singular values at most max(atol, rtol * largest) are dropped)."""
    atol, rtol = tolerances(a, atol, rtol)
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    if hermitian:
        s, u = np.linalg.eigh(a)
        size = np.abs(s)
        tol = np.maximum(atol[..., None], rtol[..., None] * size.max(-1, keepdims=True))
        with np.errstate(divide="ignore"):
            s_inv = np.where(size > tol, 1 / s, 0).astype(a.dtype)
        return (u * s_inv[..., None, :]) @ np.swapaxes(u, -1, -2)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    tol = np.maximum(atol[..., None], rtol[..., None] * s[..., :1])
    with np.errstate(divide="ignore"):
        s_inv = np.where(s > tol, 1 / s, 0).astype(a.dtype)
    return (np.swapaxes(vh, -1, -2) * s_inv[..., None, :]) @ np.swapaxes(u, -1, -2)
