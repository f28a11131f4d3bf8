"""Repeating, scans, sorting, moments and quantiles along a dim: ``repeat_interleave``, ``tile``,
``diff``, ``cumprod``, ``sort``, ``argsort``, ``topk``, ``var_mean``, ``std_mean``, ``quantile``,
``nanquantile``, with libtorch's values, dtypes, nodes and errors (ties keep their order; NaN
sorts highest)."""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import matops as _rows  # noqa: F401  (the rows, before NODES is read below)
from ..numerics.arrays import reduced_count
from ..numerics.dims import normalize_dim
from ..tensor import Tensor
from .arith import sub as _sub
from .creation import torch_zeros_like
from .index import gather as _gather
from .index import index_select as _index_select
from .matrix import _int, _word  # noqa: F401
from .reduce import _correction, _dims_or_all, _reduced
from .registry import as_tensor, op, recording, wrap
from .shape import _view_of
from .shape import cat as _cat
from .shape import clone as _clone
from .shape import repeat as _repeat

# ------------------------------------------------------------------------------ repeating

@op("repeat_interleave", dims=("dim",))
def repeat_interleave(self, repeats, dim=None, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (of the flattened tensor when
    ``dim`` is None): an int, or an integer tensor with one count per element (or one count
    for all)."""
    x = self if dim is not None else self.reshape(-1)
    d = 0 if dim is None else normalize_dim(dim, self.ndim)
    if isinstance(repeats, Tensor) or isinstance(repeats, (list, tuple)):
        r = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
        if r.dtype.kind == "f" and not isinstance(repeats, Tensor) and np.all(r == np.round(r)):
            r = r.astype(np.int64)  # R's c(1, 2): whole numbers given as doubles
        if r.dtype.kind not in "iu":
            raise RuntimeError(f"repeat_interleave: repeats must be an integer tensor, got "
                               f"{as_tensor(repeats).dtype.word}")
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = x.shape[d] if x.ndim else 1
        r = r.reshape(-1)
        if r.size == 1:
            r = np.repeat(r, size)
        if r.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.size} and input.size({d}) = {size}")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = wrap(np.repeat(np.arange(size, dtype=np.int64), r))
        return _index_select(x, d, index)
    n = _int(repeats, "repeats")
    if n < 0:
        raise RuntimeError("Repeats must be non-negative")
    u = x.unsqueeze(d + 1)  # a 0-dim self with a dim: libtorch's out-of-range error here
    shape = list(u.shape)
    shape[d + 1] = n
    return _clone(u.expand(*shape)).flatten(d, d + 1)


@op("tile")
def tile(self, dims):
    """Repeat the tensor ``dims[i]`` times along dim i (``dims`` are repetition counts, not
    dimensions); fewer counts than dims count as leading 1s. libtorch's ``repeat`` does it."""
    reps = (dims,) if isinstance(dims, numbers.Real) else tuple(dims)  # R's 2 is a double
    reps = tuple(_int(r, "dims") for r in reps)
    if len(reps) < self.ndim:
        reps = (1,) * (self.ndim - len(reps)) + reps
    return _repeat(self, *reps)


@op("diff", dims=("dim",))
def diff(self, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim`` (``x[1:] - x[:-1]``, n times; logical xor
    for bool), after putting ``prepend`` and ``append`` (same number of dims, same sizes except
    along ``dim``) before and after ``self``."""
    n = _int(n, "n")
    if self.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = normalize_dim(dim, self.ndim)
    parts = [self]
    for extra, first in ((prepend, True), (append, False)):
        if extra is None:
            continue
        extra = as_tensor(extra)
        if extra.ndim != self.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(self.ndim):
            if i != d and extra.shape[i] != self.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to "
                                   "match that of input except along the differencing dimension; "
                                   f"input.size({i}) = {self.shape[i]}, but got "
                                   f"tensor.size({i}) = {extra.shape[i]}")
        parts.insert(0 if first else len(parts), extra)
    if n == 0:  # libtorch: a copy into zeros (its grad_fn is copy_'s)
        return torch_zeros_like(self).copy_(self)
    x = _cat(parts, d) if len(parts) > 1 else self
    n = min(n, x.shape[d])
    length = x.shape[d] - 1
    for _ in range(n):
        hi, lo = x.narrow(d, 1, length), x.narrow(d, 0, length)
        if x._data.dtype.kind == "b":
            x = hi.logical_xor(lo)
        else:
            x = _sub(hi, lo)
        length -= 1
    return x


# ------------------------------------------------------------------------------ scans

@op("cumprod", dims=("dim",))
def cumprod(self, dim, dtype=None):
    """Cumulative product along ``dim`` (integers and bools give int64). The gradient is exact
    where the input has zeros, as libtorch's."""
    x = self._data if dtype is None else self._data.astype(_dt.as_dtype(dtype).numpy)
    if dtype is None and x.dtype.kind in "biu":
        x = x.astype(np.int64)
    d = normalize_dim(dim, x.ndim)
    out = wrap(np.cumprod(x, axis=d, dtype=x.dtype) if x.ndim else x.copy())
    if recording(self):
        record(NODES["CumprodBackward0"], (self,), (out,), params=(d,))
    return out


# ------------------------------------------------------------------------------ sorting

def _argsort(x, d, descending):
    """Stable ascending (NaN last) or descending (NaN first, ties in their original order)."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    flipped = np.argsort(np.flip(x, d), axis=d, kind="stable")
    return (x.shape[d] - 1) - np.flip(flipped, d)


def _sorted(self, dim, descending, node, k=None):
    x = self._data
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        idx = np.zeros((), np.int64)
        values = x.copy()
    else:
        idx = _argsort(x, d, descending)
        if k is not None:
            idx = idx[(slice(None),) * d + (slice(0, k),)]
        values = np.take_along_axis(x, idx, axis=d)
    values, indices = wrap(values), wrap(np.array(idx, dtype=np.int64, order="C"))
    if node is not None and recording(self):
        record(NODES[node], (self,), (values,), params=(x.shape, d, idx))
    return values, indices


@op("sort", dims=("dim",), returns_index=True)
def sort(self, dim=-1, descending=False, stable=None):
    """``(values, indices)`` sorted along ``dim``; NaN sorts above every number. The sort is
    stable (equal values keep their order) whether or not ``stable`` is given; giving it
    selects libtorch's ``sort.stable`` (grad_fn SortBackward1)."""
    if stable is not None and not isinstance(stable, (bool, np.bool_)):
        raise TypeError(f"sort(): stable must be a bool, got {stable!r}")
    return _sorted(self, dim, bool(descending), "SortBackward0" if stable is None else
                   "SortBackward1")


@op("argsort", dims=("dim",), returns_index=True)
def argsort(self, dim=-1, descending=False, stable=False):
    """The indices that sort ``self`` along ``dim`` (stable; no gradient)."""
    return _sorted(self, dim, bool(descending), None)[1]


@op("topk", dims=("dim",), returns_index=True)
def topk(self, k, dim=-1, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements
    along ``dim``, largest first (smallest first); NaN counts as the largest. Among equal
    values the earlier index comes first, and the result is sorted whatever ``sorted`` says.
    libtorch promises neither: which of several equal values it returns, and the order when
    ``sorted=False``, follow its selection algorithm (the values agree, the indices of ties may
    not)."""
    k = _int(k, "k")
    size = self.shape[normalize_dim(dim, self.ndim)] if self.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return _sorted(self, dim, bool(largest), "TopkBackward0", k)


# ------------------------------------------------------------------------------ (var | std, mean)

def _moments(self, dim, unbiased, keepdim, correction, name):
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    c = _correction(unbiased, correction)
    dims = _dims_or_all(dim, self._data.ndim)
    count = reduced_count(self._data.shape, dims)
    axis = None if dims is None else dims
    x = self._data
    var = np.asarray(np.var(x, axis=axis, ddof=c, keepdims=keepdim), dtype=x.dtype)
    mean = np.asarray(np.mean(x, axis=axis, keepdims=keepdim, dtype=x.dtype))
    return var, mean, (dims, c, keepdim, count)


@op("var_mean", dims=("dim",))
def var_mean(self, dim=None, unbiased=True, keepdim=False, correction=None):
    """``(var, mean)`` over ``dim`` in one op (one node, VarMeanBackward0); ``unbiased`` and
    ``correction`` as in ``var``."""
    var, mean, params = _moments(self, dim, unbiased, keepdim, correction, "var_mean")
    v, m = _reduced(var), _reduced(mean)
    if recording(self):
        record(NODES["VarMeanBackward0"], (self,), (v, m), params=params)
    return v, m


@op("std_mean", dims=("dim",))
def std_mean(self, dim=None, unbiased=True, keepdim=False, correction=None):
    """``(std, mean)`` over ``dim`` in one op (one node, StdMeanBackward0); ``unbiased`` and
    ``correction`` as in ``std``."""
    var, mean, params = _moments(self, dim, unbiased, keepdim, correction, "std_mean")
    s, m = _reduced(np.asarray(np.sqrt(var))), _reduced(mean)
    if recording(self):
        record(NODES["StdMeanBackward0"], (self,), (s, m), params=params)
    return s, m


# ------------------------------------------------------------------------------ quantiles

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(start, end, weight):
    """libtorch's lerp with a tensor weight (LerpBackward1): ``start + w (end - start)`` for
    |w| < 0.5, else ``end - (end - start)(1 - w)``; float32 through float64, rounded once."""
    s, e, w = start._data, end._data, weight._data
    wide = np.float64 if s.dtype == np.float32 else s.dtype
    s64, e64, w64 = s.astype(wide), e.astype(wide), w.astype(wide)
    span = (e - s).astype(wide)
    data = np.where(np.abs(w64) < 0.5, s64 + w64 * span, e64 - span * (1 - w64))
    out = wrap(np.asarray(data, dtype=s.dtype))
    if recording(start, end, weight):
        record(NODES["LerpBackward1"], (start, end, weight), (out,))
    return out


def _squeeze_(t, shape):
    """libtorch's in-place ``squeeze_(dim)`` at the end of quantile: a view recorded as
    SqueezeBackward4."""
    return _view_of(t, t._data.reshape(shape), NODES["SqueezeBackward4"], (t._data.shape,))


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    x = self._data
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, (list, tuple)):
        q = wrap(np.asarray(q, dtype=x.dtype))
    if isinstance(q, Tensor):
        qa = q._data
        if qa.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if qa.dtype != x.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if qa.size and not ((qa >= 0) & (qa <= 1)).all():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    else:
        qv = float(q)
        if not 0 <= qv <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {qv}")
        qa = np.asarray(qv, dtype=x.dtype)
    if x.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if dim is None:
        reduced = (1,) * x.ndim if keepdim else ()
        srt = sort(self.reshape(-1))[0]
    else:
        d = normalize_dim(dim, x.ndim)
        shape = list(x.shape) if x.ndim else [1]
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
        reduced = tuple(shape) if x.ndim else ()
        if d == x.ndim - 1 or x.ndim == 0:
            srt = sort(self)[0]
        else:
            srt = sort(self.unsqueeze(-1).transpose(d, -1))[0]
    n = srt.shape[-1] if srt.ndim else 1
    srt = srt.reshape(*(reduced + (n,)))
    s = srt._data
    last = n - 1
    if ignore_nan:
        valid = (~np.isnan(s)).sum(-1, keepdims=True) - 1
        ranks = (qa * valid.astype(x.dtype)).astype(x.dtype)
        ranks = np.where(ranks < 0, x.dtype.type(0), ranks)
    else:
        ranks = np.where(np.isnan(s).any(-1, keepdims=True), x.dtype.type(last),
                         (qa * x.dtype.type(last)).astype(x.dtype))
    if ranks.ndim < s.ndim:  # a 0-d q and a 0-d reduction
        ranks = ranks.reshape((1,) * (s.ndim - ranks.ndim) + ranks.shape)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    values = _gather(srt, -1, wrap(below))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = _gather(srt, -1, wrap(np.ceil(ranks).astype(np.int64)))
        values = _lerp(values, above, wrap(np.asarray(weights, dtype=x.dtype)))
    if qa.ndim == 0:
        return _squeeze_(values, reduced)
    moved = values.unsqueeze(0).transpose(0, -1)
    return _squeeze_(moved, tuple(moved.shape[:-1]))


@op("quantile", dims=("dim",))
def quantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    """The ``q``-quantiles (a number in [0, 1], or a 1-d tensor of them, of ``self``'s dtype:
    then the quantiles are the first dim of the result) over ``dim`` (all elements when None).
    ``interpolation`` between the two nearest sorted values: "linear", "lower", "higher",
    "midpoint" or "nearest". A slice holding NaN gives NaN."""
    return _quantile(self, q, dim, keepdim, interpolation, False)


@op("nanquantile", dims=("dim",))
def nanquantile(self, q, dim=None, keepdim=False, interpolation="linear"):
    """``quantile`` ignoring NaN (a slice of only NaN gives NaN)."""
    return _quantile(self, q, dim, keepdim, interpolation, True)
