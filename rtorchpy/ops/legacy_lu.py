"""R torch's older LU and Householder functions: ``torch_lu``, ``torch_lu_unpack``,
``torch_lu_solve``, ``torch_orgqr``, ``torch_ormqr``, and ``torch_chain_matmul``.

``lu`` is a factorization of its own (LAPACK's getrf, its gradient libtorch's
``LinalgLuFactorExBackward0``); the others are written with registered ops (triangular parts,
triangular solves, ``linalg_householder_product``, matmul), so their gradients come from those
ops' rows. PyTorch deprecates ``lu``, ``lu_solve`` and ``chain_matmul``: they warn once per
session, in PyTorch's words, as libtorch's ``TORCH_WARN_ONCE`` does.
"""
from __future__ import annotations

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import linalg as lnp
from ..numerics.warn import warn
from ..tensor import Tensor
from .registry import OPS, as_tensor, op, recording, wrap

_WARNED: set = set()

_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)")
_CHAIN_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters.")


def _warn_once(key, message):
    if key not in _WARNED:
        _WARNED.add(key)
        warn(message, UserWarning, stacklevel=3)


def _fn(name):
    return OPS[name].fn


def _const(a):
    return Tensor._make(np.ascontiguousarray(a))


# ---------------------------------------------------------------- LU
@op("lu")
def lu(self, pivot=True, get_infos=False):
    """``(LU, pivots)`` (with ``get_infos``: ``(LU, pivots, infos)``): the LU factorization with
    partial pivoting of each ``(*, m, n)`` matrix, packed as LAPACK's getrf packs it (``U`` on
    and above the diagonal, ``L`` below it, its unit diagonal implied); ``pivots`` are LAPACK's
    1-based row interchanges (int32, in R as in Python), ``infos`` the 1-based index of the first
    zero pivot (0: none). A singular matrix is no error. Differentiable in ``self``."""
    A = as_tensor(self)
    _warn_once("lu", _LU_DEPRECATED)
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:  # libtorch's kernel dispatch refuses it
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{lnp.type_word(a.dtype)}\'')
    packed, piv, info = lnp.getrf(a)
    LU = wrap(packed)
    if recording(A):
        record(NODES["LinalgLuFactorExBackward0"], (A,), (LU,), (piv,))
    out = (LU, wrap(piv))
    return out + (wrap(info),) if get_infos else out


def _check_pivots(lu_data, lu_pivots, name="torch.lu_unpack"):
    if lu_pivots._data.dtype != np.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    if lu_data._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LU_data must have at least 2 dimensions.")
    m, n = lu_data.shape[-2:]
    want = tuple(lu_data.shape[:-2]) + (min(m, n),)
    if tuple(lu_pivots.shape) != want:
        raise RuntimeError(f"{name}: Expected LU_pivots of shape {list(want)} (batch dims of "
                           f"LU_data and min(m, n)), but got {list(lu_pivots.shape)}")


def _perm_matrix(lu_data, lu_pivots):
    """The permutation matrices P (``A = P L U``) of the pivots, in LU_data's dtype."""
    m = lu_data.shape[-2]
    piv = lu_pivots._data
    if piv.size and (piv.min() < 1 or piv.max() > m):
        raise RuntimeError("torch.lu_unpack: Expected the pivots to be between 1 and "
                           f"{m}, as LAPACK's, but got values out of that range")
    return lnp.perm_matrix(lnp.pivots_to_perm(piv, m), lu_data._data.dtype)


@op("lu_unpack", method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from ``lu``'s packed factors, ``A = P L U``: ``L`` ``(*, m, k)`` unit lower
    triangular, ``U`` ``(*, k, n)`` upper triangular (k = min(m, n)), ``P`` ``(*, m, m)`` in
    ``LU_data``'s dtype. What is not unpacked (``unpack_data``/``unpack_pivots`` false) is an
    empty tensor. Differentiable in ``LU_data``."""
    LU_data, LU_pivots = as_tensor(LU_data), as_tensor(LU_pivots)
    _check_pivots(LU_data, LU_pivots)
    dt = LU_data._data.dtype
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = wrap(np.zeros((0,), dt))
    P = _const(_perm_matrix(LU_data, LU_pivots)) if unpack_pivots else empty
    if not unpack_data:
        return P, empty, empty
    L = LU_data.narrow(-1, 0, k).tril(-1) + _const(np.eye(m, k, dtype=dt))
    U = LU_data.narrow(-2, 0, k).triu()
    return P, L, U


@op("lu_solve")
def lu_solve(self, LU_data, LU_pivots):
    """The solution ``X`` of ``A X = self`` from ``lu(A)``'s factors (square ``A``; batch dims
    broadcast). Differentiable in ``self`` and ``LU_data``."""
    B, LU_data, LU_pivots = as_tensor(self), as_tensor(LU_data), as_tensor(LU_pivots)
    _warn_once("lu_solve", _LU_SOLVE_DEPRECATED)
    _check_pivots(LU_data, LU_pivots, "linalg.lu_solve")
    m, n = LU_data.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if B.shape[-2] != m:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({m}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if B._data.dtype != LU_data._data.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           f"found LU of type {LU_data.dtype.word} and B of type "
                           f"{B.dtype.word} instead")
    P, L, U = lu_unpack(LU_data, LU_pivots)
    y = _fn("matmul")(P.mT, B)  # P^T B: the rows in the factorization's order
    solve = _fn("linalg_solve_triangular")
    y = solve(L, y, upper=False, unitriangular=True)
    return solve(U, y, upper=True)


# ---------------------------------------------------------------- Householder products
@op("orgqr")
def orgqr(self, input2):
    """The ``Q`` (first n columns) of the Householder reflectors ``geqrf`` returns:
    ``linalg_householder_product(self, input2)``."""
    return _fn("linalg_householder_product")(self, input2)


@op("ormqr")
def ormqr(self, input2, input3, left=True, transpose=False):
    """``Q C``, ``Q^T C`` (``transpose``), ``C Q`` or ``C Q^T`` (``left = FALSE``) for ``C =
    input3`` ``(*, m, n)`` and the full square ``Q = H_1 ... H_k`` of the Householder
    reflectors in ``self`` (below the diagonal) and ``input2`` (their scales), as ``geqrf``
    returns them. Differentiable in all three."""
    A, tau, C = as_tensor(self), as_tensor(input2), as_tensor(input3)
    name = "torch.ormqr"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if C.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    mn = C.shape[-2] if left else C.shape[-1]
    which = "-2" if left else "-1"
    if A.shape[-2] != mn:
        raise RuntimeError(f"{name}: other.shape[{which}] must be equal to input.shape[-2]")
    k = tau.shape[-1] if tau.ndim else 0
    if tau.ndim == 0 or k > mn or k > A.shape[-1]:
        raise RuntimeError(f"{name}: tau.shape[-1] must be less than or equal to "
                           "min(input.shape[-2], input.shape[-1])")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.ndim != C.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {C.ndim} and input.ndim is equal "
                           f"to {A.ndim}")
    if tuple(A.shape[:-2]) != tuple(C.shape[:-2]) or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of input, tau and other to be "
                           "equal")
    if not (A._data.dtype == tau._data.dtype == C._data.dtype):
        raise RuntimeError(f"{name}: Expected input, tau and other to have the same dtype, got "
                           f"{A.dtype.word}, {tau.dtype.word} and {C.dtype.word}")
    # the full mn x mn Q: the k reflectors padded with zero columns and zero scales (H = I)
    batch = tuple(A.shape[:-2])
    dt = A._data.dtype
    V = A.narrow(-1, 0, k)
    cat = _fn("cat")
    if mn > k:
        V = cat([V, _const(np.zeros(batch + (mn, mn - k), dt))], -1)
        tau = cat([tau, _const(np.zeros(batch + (mn - k,), dt))], -1)
    Q = _fn("linalg_householder_product")(V, tau)
    if transpose:
        Q = Q.mT
    matmul = _fn("matmul")
    return matmul(Q, C) if left else matmul(C, Q)


# ---------------------------------------------------------------- chain_matmul
@op("chain_matmul", method=False)
def chain_matmul(matrices=None, *more):
    """The product of the 2-d ``matrices`` (a list; in Python also several arguments, as
    ``torch.chain_matmul(a, b, c)``) in the cheapest order: ``linalg_multi_dot``, which it
    predates; one matrix is returned as a copy."""
    if matrices is None:
        matrices = ()
    elif isinstance(matrices, Tensor) or more:
        matrices = (matrices,) + more
    matrices = tuple(matrices.values()) if isinstance(matrices, dict) else tuple(matrices)
    _warn_once("chain_matmul", _CHAIN_DEPRECATED)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    ts = [as_tensor(t) for t in matrices]
    for t in ts:
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    if len(ts) == 1:
        return ts[0].clone()
    return _fn("linalg_multi_dot")(ts)
