"""Ops around sequences and vectors (issue 33): ``cross``, ``cummax``/``cummin`` (values and
indices), ``bincount``, ``vander``, ``atleast_1d``/``2d``/``3d``, ``index`` (``x[indices]``
with one index tensor per dim), ``result_type``, and the methods ``fill_diagonal_``, ``put_``,
``resize_`` and ``narrow_copy``.

``cross`` and ``cummax``/``cummin`` record libtorch's nodes (``LinalgCrossBackward0``,
``CummaxBackward0``, ``CumminBackward0``); ``vander``, ``atleast_*``, ``index`` and
``narrow_copy`` are made of registered ops, whose rows give their gradients.
"""
from __future__ import annotations

import numbers

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..autograd.record import record
from ..autograd.graph import bump_version
from ..autograd.grad_mode import FORWARD_AD, STATE
from ..autograd.rows import NODES
from ..autograd.views import regenerate, share_view
from ..derivatives import seq_extras as _rows  # noqa: F401  (the rows, before NODES is read)
from ..numerics.dims import normalize_dim
from ..numerics.format import type_word_for
from ..tensor import Tensor
from .. import dtypes as _dt
from .creation import _size
from .inplace import inplace
from .bf16 import bfloat16_result
from .registry import OPS, as_tensor, default_float, op, promote, recording, scalar_dtype, wrap


def _fn(name):
    return OPS[name].fn


# ------------------------------------------------------------------------------ cross
def _cross_dim(shape, dim, a_shape, b_shape):
    if dim is None:
        # the first dimension of size 3 (libtorch's deprecated default, which R torch keeps)
        for d, n in enumerate(shape):
            if n == 3:
                return d
        raise RuntimeError(f"cross(): no dimension of size 3 in input (input sizes "
                           f"{list(a_shape)} and {list(b_shape)})")
    d = normalize_dim(dim, len(shape))
    if shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a_shape[d]} and {b_shape[d]}")
    return d


def _cross_arrays(a, b, d):
    # the components as rolled copies: (a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}
    return (np.roll(a, -1, axis=d) * np.roll(b, -2, axis=d)
            - np.roll(a, -2, axis=d) * np.roll(b, -1, axis=d))


@op("cross", dims=("dim",))
def cross(self, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (the inputs broadcast; their dtypes must be
    the same). Without ``dim``, the first dimension of size 3 (R torch's default)."""
    self, other = as_tensor(self), as_tensor(other)
    if self._data.ndim != other._data.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. Got "
                           f"{self._data.ndim} and {other._data.ndim}")
    try:
        shape = np.broadcast_shapes(self._data.shape, other._data.shape)
    except ValueError:
        raise RuntimeError(f"linalg.cross: the sizes of input {list(self._data.shape)} and other "
                           f"{list(other._data.shape)} cannot be broadcast together") from None
    d = _cross_dim(shape, dim, self._data.shape, other._data.shape)
    if self._data.dtype != other._data.dtype:  # libtorch does not promote here either
        raise RuntimeError(f"cross(): expected other to have input's dtype "
                           f"({_dt.from_numpy_dtype(self._data.dtype).word}), but got "
                           f"{_dt.from_numpy_dtype(other._data.dtype).word}")
    out = wrap(np.ascontiguousarray(_cross_arrays(self._data, other._data, d)))
    if recording(self, other):
        record(NODES["LinalgCrossBackward0"], (self, other), (out,), (d,))
    return out


# ------------------------------------------------------------------------------ cummax / cummin
def _cum_extreme(self, dim, name, accumulate, node):
    x = self._data
    if x.dtype.kind == "b":
        x = x.astype(np.uint8)
    d = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        values, idx = x.copy(), np.zeros((), np.int64)
    elif x.size == 0:
        values, idx = x.copy(), np.zeros(x.shape, np.int64)
    else:
        values = accumulate(x, axis=d)
        # position i is marked where x_i reaches the running extreme (ties: the later position,
        # as libtorch); NaN propagates and each later NaN is marked
        if x.dtype.kind == "f":
            hit = (x == values) | (np.isnan(x) & np.isnan(values))
        else:
            hit = x == values
        shape = [1] * x.ndim
        shape[d] = x.shape[d]
        pos = np.arange(x.shape[d], dtype=np.int64).reshape(shape)
        idx = np.maximum.accumulate(np.where(hit, pos, 0), axis=d)
    values = values.astype(self._data.dtype, copy=False)
    out_v, out_i = wrap(values), wrap(idx)
    if recording(self):
        record(NODES[node], (self,), (out_v,), (self._data.shape, d, idx))
    return out_v, out_i


@op("cummax", dims=("dim",), returns_index=True)
def cummax(self, dim):
    """The running maximum along ``dim`` and where each was found: a pair (values, indices)."""
    return _cum_extreme(as_tensor(self), dim, "cummax", np.maximum.accumulate,
                        "CummaxBackward0")


@op("cummin", dims=("dim",), returns_index=True)
def cummin(self, dim):
    """The running minimum along ``dim`` and where each was found: a pair (values, indices)."""
    return _cum_extreme(as_tensor(self), dim, "cummin", np.minimum.accumulate, "CumminBackward0")


# ------------------------------------------------------------------------------ bincount
def _whole(v, fname, arg):
    """An integer argument (a float with an integer value too: R's numbers are doubles)."""
    if isinstance(v, (bool, np.bool_)) or not (isinstance(v, (numbers.Integral, np.integer)) or
                                               isinstance(v, float) and v.is_integer()):
        raise TypeError(f"{fname}(): argument '{arg}' must be an integer, got {v!r}")
    return int(v)


@op("bincount")
def bincount(self, weights=None, minlength=0):
    """How often each non-negative integer occurs in the 1-d ``self`` (or, with ``weights``,
    the sum of their weights); at least ``minlength`` bins."""
    self = as_tensor(self)
    x = self._data
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    minlength = _whole(minlength, "bincount", "minlength")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.size and x.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None or isinstance(weights, (list, tuple)) and not len(weights):
        return wrap(np.bincount(x, minlength=int(minlength)).astype(np.int64))
    w = as_tensor(weights)
    if w._data.ndim != 1 or w._data.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # libtorch: float32 weights give float32 counts, any other dtype float64
    dt = np.float32 if w._data.dtype == np.float32 else np.float64
    counts = np.bincount(x, weights=w._data.astype(np.float64), minlength=int(minlength))
    return wrap(counts.astype(dt))


# ------------------------------------------------------------------------------ vander
@op("vander", method=False)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d ``x``: column ``j`` holds ``x^(N-1-j)`` (or ``x^j``
    with ``increasing``); ``N`` columns, ``len(x)`` by default."""
    x = as_tensor(x)
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else _whole(N, "vander", "N")
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    n = int(n)
    if x._data.dtype.kind in "biu":  # integer inputs give int64 (libtorch promotes with long)
        x = _fn("to")(x, dtype=_dt.torch_int64())
    rows = x._data.shape[0]
    ones = wrap(np.ones((rows, min(n, 1)), x._data.dtype))
    if n > 1:
        # cumulative products of [1, x, x, ...]: the powers, multiplied in libtorch's order
        reps = _fn("expand")(_fn("unsqueeze")(x, 1), rows, n - 1)
        out = _fn("cumprod")(_fn("cat")([ones, reps], 1), 1)
    else:
        out = _fn("mul")(ones, 1) if recording(x) else ones
    return out if increasing else _fn("flip")(out, [1])


# ------------------------------------------------------------------------------ atleast_*
def _atleast(tensors, nd, shape_of):
    def one(t):
        t = as_tensor(t)
        return t if t._data.ndim >= nd else _fn("reshape")(t, shape_of(t._data.shape))
    if isinstance(tensors, (list, tuple)):
        return [one(t) for t in tensors]
    return one(tensors)


@op("atleast_1d", method=False)
def atleast_1d(self):
    """``self`` with at least one dimension (a 0-dim tensor becomes shape (1)); a list of
    tensors gives a list."""
    return _atleast(self, 1, lambda s: (1,))


@op("atleast_2d", method=False)
def atleast_2d(self):
    """``self`` with at least two dimensions (leading dims of size 1 added)."""
    return _atleast(self, 2, lambda s: (1,) * (2 - len(s)) + tuple(s))


def _shape_3d(s):
    if len(s) == 0:
        return (1, 1, 1)
    if len(s) == 1:
        return (1, s[0], 1)
    return tuple(s) + (1,)


@op("atleast_3d", method=False)
def atleast_3d(self):
    """``self`` with at least three dimensions: ``(n)`` becomes ``(1, n, 1)`` and ``(m, n)``
    becomes ``(m, n, 1)``."""
    return _atleast(self, 3, _shape_3d)


# ------------------------------------------------------------------------------ index
@op("index", index_args=("indices",))
def index(self, indices):
    """``self[indices]``, with ``indices`` a list holding one index tensor (or None) per
    leading dim, as libtorch's ``index`` takes them."""
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"index(): argument 'indices' must be a list of tensors, got "
                        f"{type(indices).__name__}")
    return as_tensor(self)[tuple(slice(None) if i is None else i for i in indices)]


# ------------------------------------------------------------------------------ result_type
def _operand_dtype(v, name):
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (bool, np.bool_, numbers.Number)) and not isinstance(v, complex):
        return v
    raise TypeError(f"result_type(): argument '{name}' must be a tensor or a number, got "
                    f"{type(v).__name__}")


@op("result_type", method=False)
def result_type(tensor1, tensor2):
    """The dtype libtorch's type promotion gives an op on ``tensor1`` and ``tensor2`` (tensors
    or numbers)."""
    a, b = _operand_dtype(tensor1, "tensor1"), _operand_dtype(tensor2, "tensor2")
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        dt = promote(a, b)
    elif isinstance(a, Tensor):
        dt = scalar_dtype(a._data.dtype, b)
    elif isinstance(b, Tensor):
        dt = scalar_dtype(b._data.dtype, a)
    else:  # two numbers: as two 0-dim tensors made from them
        dt = promote(as_tensor(a), as_tensor(b))
        if dt.kind == "f":
            dt = default_float()
    if np.dtype(dt) == np.float32 and bfloat16_result([t for t in (a, b) if isinstance(t, Tensor)]):
        return _dt.torch_bfloat16()  # (bfloat16 is computed in float32: ops/bf16.py)
    return _dt.from_numpy_dtype(np.dtype(dt))


# ------------------------------------------------------------------------------ methods
@op("fill_diagonal_", namespace=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal of ``self`` (all dims of equal size, or a
    matrix); with ``wrap``, a tall matrix's diagonal starts again every ``ncol + 1`` rows."""
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    if nd > 2 and len(set(self._data.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if FORWARD_AD[0]:
        # (writes through views do not carry tangents yet: a masked fill of the whole tensor
        # does, with the same values and gradients, recorded as MaskedFillBackward0)
        mask = np.zeros(self._data.shape, bool)
        for part in _diagonal_parts(mask, wrap):
            part[...] = True
        return inplace(self, lambda t: _fn("masked_fill")(t, Tensor._make(mask), fill_value))
    # as libtorch: fill_ on strided views of the diagonal, so the graph shows CopySlices (one
    # per view) wrapping the fill, with the diagonal's gradient zero
    for part in _diagonal_parts(self._data, wrap):
        _fn("fill_")(_strided_view(self, part), fill_value)
    return self


def _diagonal_parts(d, wrap):
    """NumPy views of ``d``'s main diagonal: one, and with ``wrap`` on a matrix with more than
    ``ncol + 1`` rows, a second one starting ``ncol + 1`` rows down."""
    rows, cols = d.shape[:2]
    size, stride = min(rows, cols), sum(d.strides)
    parts = [as_strided(d, (size,), (stride,))]
    if wrap and d.ndim == 2 and rows > cols + 1:
        step = cols + 1
        parts.append(as_strided(d[step:], ((d.size + step - 1) // step - size,), (stride,)))
    return parts


def _strided_view(self, data):
    """``data`` (a NumPy view of ``self``'s memory) as a view tensor of ``self``'s base, with
    the grad_fn libtorch gives an ``as_strided`` view (AsStridedBackward0 from the base's
    history)."""
    out = Tensor._make(data)
    share_view(self, out)
    if STATE.grad_enabled and out._base._grad_fn is not None:
        regenerate(out)
    elif STATE.grad_enabled and out._base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    elif not STATE.grad_enabled:
        out._view_meta = "no_grad"
    return out


@op("put_", namespace=False, index_args=("index",))
def put_(self, index, source, accumulate=False):
    """Write ``source``'s values at the flat positions ``index`` of ``self`` (read in row-major
    order; negative positions count from the end), or add them with ``accumulate``."""
    index, source = as_tensor(index), as_tensor(source)
    if index._data.dtype.kind not in "iu":
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_dt.from_numpy_dtype(index._data.dtype)!r}")
    if index._data.size != source._data.size:
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source._data.size}, "
                           f"index.numel() = {index._data.size}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {type_word_for(self._data.dtype)} and source.dtype = "
                           f"{type_word_for(source._data.dtype)}")
    n = self._data.size
    idx = index._data.reshape(-1).astype(np.int64)
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx[(idx >= n) | (idx < -n)][0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    idx = np.where(idx < 0, idx + n, idx)
    shape, source_shape = self._data.shape, source._data.shape
    params = (shape, source_shape, idx, bool(accumulate))

    def compute(t):
        # one PutBackward0 node, as libtorch records it
        data = t._data.copy()
        src = source._data.reshape(-1).astype(data.dtype, copy=False)
        if accumulate:
            np.add.at(data.reshape(-1), idx, src)
        else:
            data.reshape(-1)[idx] = src
        out = wrap(data)
        if recording(t, source):
            record(NODES["PutBackward0"], (t, source), (out,), params)
        return out
    return inplace(self, compute, source)


@op("resize_", namespace=False)
def resize_(self, *size):
    """Give ``self`` the shape ``size``, keeping its first elements in row-major order (new
    elements are uninitialised, here zero). Not allowed on a tensor that requires grad."""
    shape = _size(size)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    self._check_inplace(())
    flat = self._data.reshape(-1)
    count = int(np.prod(shape, dtype=np.int64))
    data = np.zeros(count, self._data.dtype)
    k = min(count, flat.size)
    data[:k] = flat[:k]
    self._data = data.reshape(shape)
    bump_version(self)
    return self


@op("narrow_copy", dims=("dim",))
def narrow_copy(self, dim, start, length):
    """A copy (not a view) of ``length`` elements along ``dim`` from ``start``."""
    return _fn("clone")(_fn("narrow")(as_tensor(self), dim, start, length))
