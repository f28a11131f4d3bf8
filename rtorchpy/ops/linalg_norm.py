"""Norms and condition numbers: ``linalg_vector_norm``, ``linalg_matrix_norm``, ``linalg_norm``,
``linalg_cond``, and ``torch_nan_to_num`` (which ``linalg_cond`` uses, as libtorch does).

``linalg_vector_norm`` is a node of its own (LinalgVectorNormBackward0); the matrix norms are
compositions of recorded ops exactly as libtorch composes them (the 2-norm is the largest
singular value: ``amax(svdvals(A.permute(...)))``, the 1-norm ``amax(vector_norm(A, 1, dim))``
...), so their grad_fn names and gradients are libtorch's.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import linalg as lnp
from ..numerics import rounded
from ..numerics.dims import normalize_dim, normalize_dims
from ..numerics.linalg import c_array as _c
from ..tensor import Tensor
from .linalg_decomp import linalg_svdvals
from .linalg_solve import linalg_inv_ex
from .registry import as_tensor, op, recording, wrap


def _fmt(x):
    """A number as libtorch prints a double in its messages (3, 3.5, inf)."""
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{float(x):g}"


def _as_dims(dim):
    if dim is None:
        return None
    if isinstance(dim, Tensor):
        dim = dim.tolist()
    if isinstance(dim, (list, tuple)):
        return [int(d) for d in dim]
    return [int(dim)]


@op("linalg_vector_norm", method=False, dims=("dim",))
def linalg_vector_norm(A, ord=2, dim=None, keepdim=False, dtype=None):
    """The vector ``ord``-norm of ``A`` over ``dim`` (all elements when None): sum(|a|^ord)^(1/
    ord); ord inf/-inf: max/min |a|; ord 0: the number of non-zero elements. ``dtype`` casts
    ``A`` first."""
    A = as_tensor(A)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    lnp.check_float(A, "linalg.vector_norm")
    ord = float(ord.item() if isinstance(ord, Tensor) else ord)
    x = A._data if dtype is None else A._data.astype(_dt.as_dtype(dtype).numpy)
    dims = normalize_dims(_as_dims(dim), x.ndim)
    axis = dims if dims is None else tuple(dims)
    a = np.abs(x)
    if ord == 0:
        data = np.sum(a != 0, axis=axis, keepdims=keepdim)
    elif ord == math.inf:
        data = np.max(a, axis=axis, keepdims=keepdim)
    elif ord == -math.inf:
        data = np.min(a, axis=axis, keepdims=keepdim)
    elif ord == 1:
        data = np.sum(a, axis=axis, keepdims=keepdim)
    elif ord == 2:
        data = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    else:
        data = rounded.power(np.sum(rounded.power(a, ord), axis=axis, keepdims=keepdim), 1 / ord)
    out = wrap(_c(np.asarray(data, dtype=x.dtype)))
    if recording(A):
        record(NODES["LinalgVectorNormBackward0"], (A,), (out,), (ord, dims, keepdim))
    return out


def _backshift(d0, d1, ndim):
    perm = [d for d in range(ndim) if d not in (d0, d1)] + [d0, d1]
    inverse = [0] * ndim
    for i, d in enumerate(perm):
        inverse[d] = i
    return perm, inverse


@op("linalg_matrix_norm", method=False, dims=("dim",))
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """The matrix norm of the matrices spanned by the two dims ``dim``: "fro" (Frobenius),
    "nuc" (nuclear: sum of singular values), 2 / -2 (largest / smallest singular value),
    1 / -1 (max / min column sum of |a|), inf / -inf (max / min row sum)."""
    A = as_tensor(A)
    name = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{name}: Order {ord} not supported.")
    else:
        ord = float(ord.item() if isinstance(ord, Tensor) else ord)
        if abs(ord) not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"{name}: Order {_fmt(ord)} not supported.")
    lnp.check_matrix(A, name)
    dims = _as_dims(dim)
    if dims is None or len(dims) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in (dims or []))}")
    d0, d1 = (normalize_dim(d, A.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{name}: dims must be different. Got ({d0}, {d1})")
    lnp.check_float(A, name)
    if ord == "fro":
        return linalg_vector_norm(A, 2, [d0, d1], keepdim, dtype)
    if ord == "nuc" or abs(ord) == 2:
        A_ = A if dtype is None else A.to(dtype)
        perm, inverse = _backshift(d0, d1, A.ndim)
        s = linalg_svdvals(A_.permute(*perm))
        if ord == "nuc":
            result = s.sum(dim=-1, keepdim=keepdim)
        else:
            result = s.amax(-1, keepdim) if ord > 0 else s.amin(-1, keepdim)
        if keepdim:
            result = result.unsqueeze(-1).permute(*inverse)
        return result
    if math.isinf(ord):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    v = linalg_vector_norm(A, 1.0, [d0], keepdim, dtype)
    return v.amax(d1, keepdim) if ord > 0 else v.amin(d1, keepdim)


@op("linalg_norm", method=False, dims=("dim",))
def linalg_norm(A, ord=None, dim=None, keepdim=False, dtype=None):
    """A vector norm (``dim`` an int, or ``A`` 1-d) or a matrix norm (``dim`` two dims, or ``A``
    2-d with ``ord`` given); with neither ``ord`` nor ``dim``, the 2-norm of all elements."""
    A = as_tensor(A)
    dims = _as_dims(dim)
    name = "linalg.norm"
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(f"{name}: If dim is specified, it must be of length 1 or 2. Got "
                               f"{dims}")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"{name}: If dim is not specified but ord is, the input must be 1D or "
                           f"2D. Got {A.ndim}D.")
    if isinstance(ord, str):
        return linalg_matrix_norm(A, ord, dims if dims is not None else [0, 1], keepdim, dtype)
    if ord is not None and ((dims is not None and len(dims) == 2) or
                            (dims is None and A.ndim == 2)):
        return linalg_matrix_norm(A, ord, dims if dims is not None else [0, 1], keepdim, dtype)
    return linalg_vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype)


_COND_ORDS = (1.0, -1.0, 2.0, -2.0, math.inf, -math.inf)


@op("linalg_cond", method=False)
def linalg_cond(A, p=None):
    """The condition number of each matrix for the norm ``p``: ``||A||_p ||A^{-1}||_p``;
    ``p`` None or +-2: the ratio of extreme singular values (any shape); 1, -1, inf, -inf,
    "fro", "nuc": square matrices, inf for singular ones. As in libtorch, only ``p`` None,
    +-2 and "nuc" can be differentiated (the others modify the saved inverse in place)."""
    A = as_tensor(A)
    if isinstance(p, str):
        lnp.check_square(A, f"linalg.cond(ord={p})")
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        pf = 2.0 if p is None else float(p.item() if isinstance(p, Tensor) else p)
        if pf not in _COND_ORDS:
            raise RuntimeError(f"linalg.cond got an invalid norm type: {_fmt(pf)}")
    lnp.check_float(A, "linalg.cond")
    if A._data.size == 0:
        return wrap(np.zeros(A._data.shape[:-2], A._data.dtype))
    if not isinstance(p, str) and abs(pf) == 2:
        s = linalg_svdvals(A)
        s_max, s_min = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return (s_min / s_max if pf < 0 else s_max / s_min).squeeze(-1)
    if not isinstance(p, str):
        # libtorch names the order as C++ prints it: an integer order as an int, else a double
        shown = str(int(pf)) if isinstance(p, int) and not isinstance(p, bool) else \
            ("inf" if pf == math.inf else "-inf" if pf == -math.inf else f"{pf:f}")
        lnp.check_square(A, f"linalg.cond(ord={shown})")
        ord = pf
    else:
        ord = p
    if ord == "nuc":
        s = linalg_svdvals(A)
        return s.sum(dim=-1) * s.reciprocal().sum(dim=-1)
    # in place, as libtorch: the inverse saved by LinalgInvExBackward0 is then modified, so a
    # backward through these orders raises libtorch's "modified by an inplace operation" error
    inverse, info = linalg_inv_ex(A)
    inverse.masked_fill_(wrap(info._data[..., None, None] > 0), math.inf)
    result = linalg_matrix_norm(A, ord) * linalg_matrix_norm(inverse, ord)
    return nan_to_num(result, math.inf, math.inf, -math.inf)


@op("nan_to_num")
def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    """``self`` with NaN replaced by ``nan``, inf by ``posinf`` and -inf by ``neginf`` (the
    dtype's largest and lowest finite values by default)."""
    self = as_tensor(self)
    x = self._data
    if x.dtype.kind != "f":
        out = wrap(x.copy())
    else:
        info = np.finfo(x.dtype)
        hi = info.max if posinf is None else posinf
        lo = info.min if neginf is None else neginf
        with np.errstate(over="ignore"):
            data = np.where(np.isnan(x), x.dtype.type(nan), x)
            data = np.where(data == np.inf, x.dtype.type(hi), data)
            data = np.where(data == -np.inf, x.dtype.type(lo), data)
        out = wrap(np.asarray(data, dtype=x.dtype))
    if recording(self):
        record(NODES["NanToNumBackward0"], (self,), (out,))
    return out
