"""Decompositions and what is built on them: ``linalg_cholesky(_ex)``, ``linalg_qr``,
``linalg_eigh``, ``linalg_eigvalsh``, ``linalg_svd``, ``linalg_svdvals``, ``linalg_pinv``,
``linalg_lstsq``, ``linalg_matrix_rank``, ``linalg_householder_product``.

Batched over leading dims, computed with NumPy's LAPACK; a decomposition's vectors are unique
only up to sign (and rotation, for repeated values), so they may differ from libtorch's by such
a factor: the gradient of a loss that does not depend on that choice is the same.
"""
from __future__ import annotations

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import linalg as lnp
from ..numerics.linalg import c_array as _c
from ..numerics.linalg import pinv_array
from ..numerics.linalg import tolerances as _tolerances
from .linalg_solve import _check_batch, is_vector_rhs, record_multi
from .registry import as_tensor, op, recording, wrap


def _empty(dtype):
    return wrap(np.zeros((0,), dtype=dtype))


# ---------------------------------------------------------------- Cholesky
def _cholesky(A, upper, name, check):
    """(factor, info): NumPy's Cholesky; where it fails, LAPACK's partial factor and info."""
    lnp.check_square(A, name)
    lnp.check_float(A, name)
    a = A._data
    src = np.swapaxes(a, -1, -2) if upper else a  # the upper triangle = the transpose's lower
    try:
        L = np.linalg.cholesky(src) if a.size else np.zeros(a.shape, a.dtype)
        info = np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        L, info = lnp.cholesky_info(src)
        if check:
            idx = lnp.first_failure(info)
            raise RuntimeError(
                f"{name}: {lnp.batch_prefix(a.shape[:-2], idx)}The factorization could not be "
                "completed because the input is not positive-definite (the leading minor of "
                f"order {int(np.asarray(info)[idx])} is not positive-definite).") from None
    L = np.swapaxes(L, -1, -2) if upper else L
    return wrap(_c(L)), info


@op("linalg_cholesky", method=False)
def linalg_cholesky(A, upper=False):
    """The Cholesky factor ``L`` (lower, ``A = L L^T``) of each symmetric positive-definite
    matrix; ``upper=True``: ``U`` with ``A = U^T U``. Only that triangle of ``A`` is read."""
    A = as_tensor(A)
    out, _ = _cholesky(A, bool(upper), "linalg.cholesky", True)
    if recording(A):
        record(NODES["LinalgCholeskyExBackward0"], (A,), (out,), (bool(upper),))
    return out


@op("linalg_cholesky_ex", method=False)
def linalg_cholesky_ex(A, upper=False, check_errors=False):
    """``(L, info)``: as ``linalg_cholesky``, with info (int32 per matrix) the order of the
    first leading minor that is not positive-definite (0: none) instead of an error, unless
    ``check_errors=True``."""
    A = as_tensor(A)
    out, info = _cholesky(A, bool(upper), "linalg.cholesky_ex", bool(check_errors))
    if recording(A):
        record(NODES["LinalgCholeskyExBackward0"], (A,), (out,), (bool(upper),))
    return out, wrap(np.asarray(info))


# ---------------------------------------------------------------- QR
@op("linalg_qr", method=False)
def linalg_qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R``: mode "reduced" (Q ``(*, m, k)``, k = min(m, n)),
    "complete" (Q ``(*, m, m)``) or "r" (Q empty, only R; not differentiable)."""
    A = as_tensor(A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    lnp.check_matrix(A, "linalg.qr")
    lnp.check_float(A, "linalg.qr")
    a = A._data
    if mode == "r":
        q, r = np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r")
        m, n = a.shape[-2:]
        r = r[..., :min(m, n), :]
    else:
        q, r = np.linalg.qr(a, mode=mode)
    Q, R = wrap(_c(q)), wrap(_c(r))
    if recording(A):
        record_multi("LinalgQrBackward0", (A,), (Q, R), (mode,))
    return Q, R


# ---------------------------------------------------------------- symmetric eigenproblem
def _eigh(A, UPLO, name, vectors):
    A = as_tensor(A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    lnp.check_square(A, name)
    if A._data.dtype.kind != "f" or A._data.dtype.itemsize < 4:
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                  f"'{lnp.type_word(A._data.dtype)}'")
    a = A._data
    need_v = vectors or recording(A)
    if need_v:
        w, v = np.linalg.eigh(a, UPLO=UPLO)
    else:
        w, v = np.linalg.eigvalsh(a, UPLO=UPLO), None
    L = wrap(_c(w))
    V = wrap(_c(v)) if v is not None else None
    if recording(A):
        record_multi("LinalgEighBackward0", (A,), (L, V))
    return L, V


@op("linalg_eigh", method=False)
def linalg_eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix (ascending eigenvalues,
    eigenvectors as columns), reading its lower (``UPLO="L"``) or upper triangle."""
    return _eigh(A, UPLO, "linalg.eigh", True)


@op("linalg_eigvalsh", method=False)
def linalg_eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each symmetric matrix; its gradient is always finite."""
    return _eigh(A, UPLO, "linalg.eigvalsh", False)[0]


# ---------------------------------------------------------------- SVD
def _svd(A, full_matrices, name, vectors):
    A = as_tensor(A)
    lnp.check_matrix(A, name)
    lnp.check_float(A, name)
    a = A._data
    m, n = a.shape[-2:]
    need_uv = vectors or recording(A)
    if a.size == 0:
        k = min(m, n)
        batch = a.shape[:-2]
        u = np.zeros(batch + (m, m if full_matrices else k), a.dtype)
        s = np.zeros(batch + (k,), a.dtype)
        vh = np.zeros(batch + (n if full_matrices else k, n), a.dtype)
        for x in (u, vh):
            idx = np.arange(min(x.shape[-2:]))
            x[..., idx, idx] = 1
    elif need_uv:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    else:
        u = vh = None
        s = np.linalg.svd(a, compute_uv=False)
    S = wrap(_c(s))
    U = wrap(_c(u)) if u is not None else None
    Vh = wrap(_c(vh)) if vh is not None else None
    if recording(A):
        record_multi("LinalgSvdBackward0", (A,), (U, S, Vh), (bool(full_matrices),))
    return U, S, Vh


@op("linalg_svd", method=False)
def linalg_svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (singular values descending); ``full_matrices
    =False`` gives the reduced ``U`` ``(*, m, k)`` and ``Vh`` ``(*, k, n)``."""
    return _svd(A, bool(full_matrices), "linalg.svd", True)


@op("linalg_svdvals", method=False)
def linalg_svdvals(A):
    """The singular values (descending) of each matrix; their gradient is always finite."""
    return _svd(A, False, "linalg.svd", False)[1]


# ---------------------------------------------------------------- pseudo-inverse, rank
@op("linalg_pinv", method=False)
def linalg_pinv(A, rcond=None, hermitian=False, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix: singular values (eigenvalues' absolute
    values when ``hermitian``) at most ``max(atol, rtol * largest)`` count as zero; ``rtol``
    defaults to eps * max(m, n) (0 when ``atol > 0``); ``rcond`` is ``rtol``'s old name."""
    A = as_tensor(A)
    a = A._data
    if a.ndim < 2 or a.dtype.kind != "f":
        raise RuntimeError(f"linalg.pinv({lnp.type_word(a.dtype)}{{{list(a.shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble "
                           "types")
    if rcond is not None and rtol is None:
        rtol = rcond
    out = wrap(_c(pinv_array(a, atol, rtol, bool(hermitian))))
    if recording(A):
        record(NODES["LinalgPinvBackward0"], (A,), (out,))
    return out


@op("linalg_matrix_rank", method=False)
def linalg_matrix_rank(A, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values (absolute eigenvalues when ``hermitian``) above
    ``max(atol, rtol * largest)`` for each matrix (int64); ``tol`` is ``atol``'s old name."""
    A = as_tensor(A)
    a = A._data
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    lnp.check_matrix(A, "linalg.matrix_rank")
    if tol is not None and atol is None:
        atol = tol
    atol, rtol = _tolerances(a, atol, rtol)
    if a.size == 0:
        return wrap(np.zeros(a.shape[:-2], np.int64))
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    smax = s.max(-1)
    thresh = np.maximum(atol, rtol * smax)
    return wrap(np.asarray(np.sum(s > thresh[..., None], axis=-1), dtype=np.int64))


# ---------------------------------------------------------------- least squares
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@op("linalg_lstsq", method=False)
def linalg_lstsq(A, B, rcond=None, driver=None):
    """``(solution, residuals, rank, singular_values)`` of min ||A X - B|| as libtorch's CPU
    drivers report them: "gelsy" (default): rank; "gelsd"/"gelss": rank and singular values;
    residuals (squared, per column) for tall full-rank A with "gels", "gelsd", "gelss". What a
    driver does not compute is an empty tensor. The solution is the minimum-norm one (singular
    values at most rcond * largest dropped; rcond defaults to eps * max(m, n))."""
    A, B = as_tensor(A), as_tensor(B)
    name = "torch.linalg.lstsq"
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    a, b = A._data, B._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    lnp.check_float(A, name)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype.word} and other's dtype {B.dtype.word}")
    if not (a.ndim >= b.ndim and a.ndim - b.ndim <= 1):
        raise RuntimeError(f"{name}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = is_vector_rhs(a, b)
    if a.ndim - b.ndim == 1 and not vector:  # libtorch broadcasts B's shape against A's
        raise RuntimeError(f"The size of tensor a ({a.shape[0]}) must match the size of tensor "
                           f"b ({b.shape[0]}) at non-singleton dimension 0")
    bm = b[..., None] if vector else b
    if bm.ndim < 1 or bm.shape[-2] != a.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    batch = _check_batch(a.shape[:-2], bm.shape[:-2])
    a_ = np.broadcast_to(a, batch + a.shape[-2:])
    b_ = np.broadcast_to(bm, batch + bm.shape[-2:])
    m, n = a.shape[-2:]
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    u, s, vh = np.linalg.svd(a_, full_matrices=False)
    keep = s > rcond * s[..., :1] if s.shape[-1] else s > 0
    with np.errstate(divide="ignore"):
        s_inv = np.where(keep, 1 / s, 0).astype(a.dtype)
    x = np.swapaxes(vh, -1, -2) @ (s_inv[..., :, None] * (np.swapaxes(u, -1, -2) @ b_))
    rank = np.sum(keep, axis=-1).astype(np.int64)
    residuals = np.zeros((0,), a.dtype)
    if m > n and driver != "gelsy" and (driver == "gels" or np.all(rank == n)):
        residuals = np.sum((a_ @ x - b_) ** 2, axis=-2)  # (*, k): a vector B keeps k = 1
    X = wrap(_c(x[..., 0] if vector else x))
    R = wrap(_c(residuals))
    rank_t = wrap(rank) if driver != "gels" else wrap(np.zeros((0,), np.int64))
    sv = wrap(_c(s)) if driver in ("gelsd", "gelss") else _empty(a.dtype)
    if recording(A, B):
        record_multi("LinalgLstsqBackward0", (A, B), (X, R), (vector,))
    return X, R, rank_t, sv


# ---------------------------------------------------------------- Householder products
@op("linalg_householder_product", method=False)
def linalg_householder_product(A, tau):
    """The first n columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, with ``v_i``
    column i of ``A`` below the diagonal and 1 on it (``A`` ``(*, m, n)``, ``tau`` ``(*, k)``,
    k <= n <= m): the Q of a QR decomposition from LAPACK's geqrf output."""
    A, tau = as_tensor(A), as_tensor(tau)
    name = "torch.linalg.householder_product"
    a, t = A._data, tau._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if t.ndim == 0 or n < t.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if a.ndim - t.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {t.ndim} and input.ndim is equal to {a.ndim}")
    if t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(t.shape[:-1])}")
    if a.dtype != t.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype.word} does not match input dtype "
                           f"{A.dtype.word}")
    lnp.check_float(A, name)
    k = t.shape[-1]
    v = np.tril(a, -1) + np.eye(m, n, dtype=a.dtype)
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for i in range(k - 1, -1, -1):  # q = H_i q, from the last reflector to the first
        vi = v[..., :, i:i + 1]
        q -= t[..., i, None, None] * vi @ (np.swapaxes(vi, -1, -2) @ q)
    out = wrap(q)
    if recording(A, tau):
        record(NODES["LinalgHouseholderProductBackward0"], (A, tau), (out,))
    return out
