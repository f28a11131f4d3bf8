"""Indexing: ``x[key]`` with libtorch's node names, gather/scatter, index_select, masked_fill.

Basic keys (ints, slices, None, Ellipsis) become a chain of Select/Slice/Unsqueeze views, one
node per indexed dim, as libtorch records them. A key holding an integer or boolean array (or a
list, or a long/bool tensor) is advanced indexing, done in libtorch's two stages: the basic
entries first (their nodes as above), then one IndexBackward0 for the arrays, whose result is a
copy. The dims of the arrays go where libtorch puts them, which is not always where NumPy does:
integers do not count as advanced indices, so on a (3, 4, 5) tensor ``x[0, :, [1, 2]]`` is
(4, 2) (NumPy: (2, 4)); see ``numerics/index_order.py``. Assignment and the gradients use the
same rule.
"""
from __future__ import annotations

import numbers
import re

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.record import record
from ..autograd.rows import NODES
from ..autograd.views import gained_grad, share_view
from ..numerics.args import INT64_MAX, INT64_MIN
from ..numerics.dims import normalize_dim
from ..numerics.format import type_word_for
from ..numerics.formula_arrays import ARRAY_OPS
from ..numerics.index_order import add_at, has_arrays, put, scatter_add_into, split_key, take
from ..numerics.shape_errors import broadcast_error, expand_error, shape_error
from ..numerics.warn import warn
from ..tensor import Tensor
from .registry import as_tensor, op, recording, wrap


def _index_array(k):
    """An advanced-index entry as an int64 or bool ndarray, or None if ``k`` is basic."""
    if isinstance(k, Tensor):
        arr = k._data
        if arr.dtype == np.uint8:  # a byte tensor is a mask in libtorch (deprecated there)
            warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                 "torch.bool instead.", UserWarning, stacklevel=3)
            arr = arr.astype(np.bool_)
    elif isinstance(k, np.ndarray):
        arr = k
    elif isinstance(k, (list, tuple)):
        arr = np.asarray(k)
        if arr.dtype == object:
            raise IndexError(f"unsupported index {k!r}")
        if arr.size == 0:
            arr = arr.astype(np.int64)
    else:
        return None
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind in "iu":
        if arr.ndim == 0 and isinstance(k, Tensor):
            return None  # a 0-dim integer tensor indexes like an int
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise IndexError(f"index {arr.max()} is out of bounds (beyond int64)")
        return arr.astype(np.int64, copy=False)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _expand_key(key, ndim):
    """A tuple key with Ellipsis replaced by full slices."""
    if not isinstance(key, tuple):
        key = (key,)
    # a bool mask covers as many dims as it has (a 0-dim one covers none: it adds a dim)
    consumed = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype.kind == "b" else 1
                   for k in key if k is not None and k is not Ellipsis)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - consumed))
        else:
            out.append(k)
    return tuple(out)


@op("__getitem__", namespace=False)
def getitem(self, key, keep_full_slices=False):
    """``x[key]``. ``keep_full_slices`` records a node even for ``:`` (R torch's indexing does)."""
    if type(key) is int and self._data.ndim:  # x[i], the common case: what the loop below does
        return self.select(0, _check_int(key, self._data.shape[0], 0))
    raw = key if isinstance(key, tuple) else (key,)
    converted = []
    advanced = False
    for k in raw:
        arr = _index_array(k)
        if arr is not None:
            converted.append(arr)
            advanced = True
        elif isinstance(k, Tensor):
            converted.append(int(k.item()))
        elif k is None or k is Ellipsis or isinstance(k, slice):
            converted.append(k)
        elif isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, bool):
            converted.append(int(k))
        elif isinstance(k, (bool, np.bool_)):
            converted.append(np.asarray(k))
            advanced = True
        else:
            raise IndexError(f"unsupported index of type {type(k).__name__}: only integers, "
                             "slices, None, ..., and integer or boolean tensors/arrays are valid")
    key = _expand_key(tuple(converted), self._data.ndim)
    if advanced:
        return _advanced(self, key)
    out, d = self, 0
    for k in key:
        if k is None:
            out = out.unsqueeze(d)
            d += 1
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            if k != slice(None) or keep_full_slices:
                out = _slice(out, d, k)
            d += 1
        else:
            out = out.select(d, _check_int(k, out._data.shape[d], d))
    return out


def _check_int(i, size, dim):
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return i


def _slice(self, d, s):
    key = (slice(None),) * d + (s,)
    data = self._data[key]
    out = Tensor._make(data)
    share_view(self, out)
    if STATE.grad_enabled:
        if self._requires_grad or gained_grad(self):
            record(NODES["SliceBackward0"], (self,), (out,), (self._data.shape, key))
    else:
        out._view_meta = "no_grad"
    return out


def _advanced(self, key):
    """``self[key]`` for a key with index arrays, in libtorch's two stages (see
    ``numerics/index_order.py``): the integers, slices and new dims first (the basic path's
    nodes), then one IndexBackward0 whose key holds only full slices and arrays."""
    basic, advanced = split_key(key)
    if basic is not None:
        self = getitem(self, basic)
    try:
        data = self._data[advanced]
    except IndexError as e:
        raise IndexError(_torch_index_error(str(e), self._data.shape, advanced)) from None
    out = wrap(np.ascontiguousarray(data))  # libtorch: a fresh contiguous tensor, whose later
    # views (t(), reshape) then share or copy memory as they do there
    if recording(self):
        record(NODES["IndexBackward0"], (self,), (out,), (self._data.shape, advanced))
    return out


def _torch_index_error(msg, shape, key):
    """NumPy's IndexError text in libtorch's words."""
    if msg.startswith("shape mismatch"):
        # a mask stands for one index tensor per dim, each as long as its count of trues
        shapes = ", ".join(
            ", ".join([f"[{np.count_nonzero(k)}]"] * k.ndim) if k.dtype.kind == "b"
            else str(list(k.shape)) for k in key if isinstance(k, np.ndarray))
        return ("shape mismatch: indexing tensors could not be broadcast together with shapes "
                + shapes)
    if msg.startswith("boolean index did not match"):
        d = 0
        for k in key:
            if isinstance(k, np.ndarray) and k.dtype.kind == "b":
                for j, n in enumerate(k.shape):
                    if n != shape[d + j]:
                        return (f"The shape of the mask {list(k.shape)} at index {j} does not "
                                f"match the shape of the indexed tensor {list(shape)} at index "
                                f"{d + j}")
                d += k.ndim
            else:
                d += 1
    if re.match(r"index -?\d+ is out of bounds for axis", msg):
        return _out_of_bounds(shape, key) or msg.replace("axis", "dimension")
    return msg.replace("axis", "dimension")


# --------------------------------------------------------------------- backward helpers as ops

def _is_basic(key):
    return not has_arrays(key)


def index_backward(g, shape, key):
    """Zeros of ``shape`` with ``g`` added at ``key`` (the gradient of indexing); differentiable."""
    out = wrap(ARRAY_OPS.index_backward(g._data, shape, key))
    if recording(g):
        record(NODES["IndexBackwardBackward0"], (g,), (out,), (key,))
    return out


def scatter_zeros(shape, dim, index, src, accumulate=False):
    """Zeros of ``shape`` with ``src`` put (or added) at ``index`` along ``dim``; differentiable
    (its gradient gathers)."""
    idx = index._data if isinstance(index, Tensor) else index
    data = src._data
    z = np.zeros(shape, dtype=data.dtype)
    if accumulate:
        scatter_add_into(z, dim, idx, data)
    else:
        np.put_along_axis(z, idx, data, axis=dim)
    out = wrap(z)
    if recording(src):
        record(NODES["ScatterAddBackward0"], (Tensor._make(z), src), (out,), (dim, idx, data.shape))
    return out


# --------------------------------------------------------------------- public ops

@op("gather", dims=("dim",), index_args=("index",))
def gather(self, dim, index):
    """``out[i][j] = self[index[i][j]][j]`` for dim 0 (and likewise for other dims)."""
    index = as_tensor(index)
    if index._data.dtype.kind not in "iu":
        raise RuntimeError("gather(): Expected dtype int64 for index")
    d = normalize_dim(dim, self._data.ndim)
    idx = index._data.astype(np.int64, copy=False)
    x = self._data
    if idx.ndim != max(x.ndim, 1) and not (x.ndim == 0 and idx.ndim == 0):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    n = x.shape[d] if x.ndim else 1
    too_big = [i for i, (k, s) in enumerate(zip(idx.shape, x.shape)) if i != d and k > s]
    if too_big:
        raise RuntimeError(f"Size does not match at dimension {too_big[0]} expected index "
                           f"{list(idx.shape)} to be no larger than self {list(x.shape)} apart "
                           f"from dimension {d}")
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    if x.ndim:  # the index may be smaller than self in the other dims: only that corner is read
        x = x[tuple(slice(None) if i == d else slice(0, k) for i, k in enumerate(idx.shape))]
    else:
        x, idx = x.reshape(1), idx.reshape(1)
    data = np.take_along_axis(x, idx, axis=d)
    out = wrap(data.reshape(index._data.shape))
    if recording(self):
        record(NODES["GatherBackward0"], (self,), (out,), (self._data.shape, d, idx))
    return out


@op("scatter_add", dims=("dim",), index_args=("index",))
def scatter_add(self, dim, index, src):
    """A copy of ``self`` with ``src`` added at ``index`` along ``dim``."""
    index, src = as_tensor(index), as_tensor(src)
    d = normalize_dim(dim, self._data.ndim)
    idx = index._data.astype(np.int64, copy=False)
    z = self._data.copy()
    scatter_add_into(z, d, idx, src._data.astype(z.dtype, copy=False))
    out = wrap(z)
    if recording(self, src):
        record(NODES["ScatterAddBackward0"], (self, src), (out,), (d, idx, src._data.shape))
    return out


@op("index_select", dims=("dim",), index_args=("index",))
def index_select(self, dim, index):
    """The entries at ``index`` (a 1-d integer tensor) along ``dim``. A 0-dim ``self`` takes an
    index of exactly one element, 0, and gives itself back."""
    index = as_tensor(index)
    if index._data.dtype.kind not in "iu":
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = normalize_dim(dim, self._data.ndim)
    idx = index._data.reshape(-1).astype(np.int64, copy=False)
    scalar = self._data.ndim == 0
    if scalar and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    n = 1 if scalar else self._data.shape[d]
    if idx.size and (idx.min() < 0 or idx.max() >= n):  # (negative indices too, as libtorch)
        raise IndexError("index out of range in self" if scalar else
                         f"index out of range in self (dimension {d} has size {n})")
    # a 0-dim self: a 1-element view to index, then back to 0 dims
    key = (slice(None),) * d + (idx,)
    data = self._data.reshape(1)[key].reshape(()) if scalar else self._data[key]
    out = wrap(data)
    if recording(self):
        if scalar:
            key = ()  # the gradient is g itself, written at the only position
        record(NODES["IndexSelectBackward0"], (self,), (out,), (self._data.shape, key))
    return out


@op("masked_fill")
def masked_fill(self, mask, value):
    """A copy of ``self`` with ``value`` where the bool ``mask`` is true. ``self`` and ``mask``
    broadcast together, as in libtorch: a mask with more dims gives a larger result (the
    in-place ``masked_fill_`` keeps ``self``'s shape, so there only the mask broadcasts)."""
    mask = as_tensor(mask)
    if mask._data.dtype.kind != "b":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.word}")
    x, m = self._data, mask._data
    if m.shape != x.shape:
        try:
            shape = np.broadcast_shapes(m.shape, x.shape)
        except ValueError as e:  # NumPy's broadcasting error (libtorch names the mask a)
            raise shape_error(e, m.shape, x.shape) from None
        m = np.broadcast_to(m, shape)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        out = wrap(np.where(m, value._data.astype(x.dtype), x))
        if recording(self, value):
            record(NODES["MaskedFillBackward1"], (self, value), (out,), (m,))
        return out
    if x.dtype.kind in "iu" and isinstance(value, int) and not isinstance(value, bool) and \
            not INT64_MIN <= value <= INT64_MAX:
        raise RuntimeError(f"value cannot be converted to type int64 without overflow: {value}")
    out = wrap(np.where(m, np.asarray(value).astype(x.dtype), x))
    if recording(self):
        record(NODES["MaskedFillBackward0"], (self,), (out,), (m,))
    return out


@op("index_put", index_args=("indices",))
def index_put(self, indices, values, accumulate=False):
    """A copy of ``self`` with ``values`` written (or, with ``accumulate``, added) at
    ``self[indices]``. A list or tuple holds one index per dim, as PyTorch's ``index_put``
    takes them; any other key indexes as ``x[key]``."""
    if isinstance(indices, list):
        indices = tuple(indices)
    return _index_put(self, indices, values, accumulate, "IndexPutBackward0")


def _out_of_bounds(shape, key):
    """libtorch's text for an index array out of range: it walks the broadcast positions in
    order, checks the index tensors in order at each, and names the first bad one by its
    number among the index tensors (a mask counts once per dim)."""
    tensors, sizes, d = [], [], 0
    for k in key:
        if isinstance(k, np.ndarray):
            if k.dtype.kind == "b":
                tensors.extend(np.nonzero(k))
                sizes.extend(shape[d:d + k.ndim])
                d += k.ndim
                continue
            tensors.append(k)
            sizes.append(shape[d])
        d += 1
    try:
        tensors = np.broadcast_arrays(*tensors)
    except ValueError:
        return None
    bad = np.stack([(t < -n) | (t >= n) for t, n in zip(tensors, sizes)]).reshape(len(sizes), -1)
    where = np.flatnonzero(bad.any(axis=0))
    if not where.size:
        return None
    nth = int(np.argmax(bad[:, where[0]]))
    value = tensors[nth].reshape(-1)[where[0]]
    return f"index {value} is out of bounds for dimension {nth} with size {sizes[nth]}"


def _put_index_error(msg, z, key):
    """The text of an IndexError from writing into ``z`` at ``key``, as ``_torch_index_error``
    words it for the advanced stage (or as it is, for a basic key or a failing basic stage)."""
    if _is_basic(key):
        return msg.replace("axis", "dimension")
    basic, advanced = split_key(key)
    try:
        part = z if basic is None else z[basic]
    except IndexError:
        return msg.replace("axis", "dimension")
    return _torch_index_error(msg, part.shape, advanced)


def _put_entry(k):
    """An entry of an assignment's key as ``getitem`` converts it."""
    arr = _index_array(k)
    if arr is not None:
        return arr
    if isinstance(k, Tensor):
        return int(k.item())
    if isinstance(k, (bool, np.bool_)):
        return np.asarray(k)
    return k


def _put_shape_error(z, key, v):
    """The RuntimeError libtorch raises when ``v`` does not fit ``z[key]`` (None if it does)."""
    target = take(z, key).shape
    if broadcast_error(target, v.shape) is None and len(v.shape) <= len(target):
        return None
    # (a basic key never gets here: fit_value has checked its values with libtorch's errors)
    return RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be "
                        f"broadcast to indexing result of shape {list(target)}")


def _index_put(self, key, values, accumulate, basic_node):
    """``index_put``; a key without index arrays records ``basic_node`` (``x[0] = v`` is
    CopySlices in libtorch, ``x[[0, 1]] = v`` IndexPutBackward0)."""
    if not isinstance(key, tuple):
        key = (key,)
    key = _expand_key(tuple(_put_entry(k) for k in key), self._data.ndim)
    values = as_tensor(values)
    z = self._data.copy()
    v = values._data.astype(z.dtype, copy=False)
    try:
        if _is_basic(key):
            v = fit_value(values._data, z[key].shape).astype(z.dtype, copy=False)
        if accumulate:
            add_at(z, key, v)
        else:
            put(z, key, v)
    except IndexError as e:
        raise IndexError(_put_index_error(str(e), z, key)) from None
    except ValueError as e:  # values that do not fit: libtorch's text
        raise _put_shape_error(z, key, v) or e from None
    out = wrap(z)
    if recording(self, values):
        # integers, slices or new dims before the index arrays make libtorch write through a
        # view of self: CopySlices, as for a basic key
        node = (basic_node if _is_basic(key) or split_key(key)[0] is not None
                else "IndexPutBackward0")
        record(NODES[node], (self, values), (out,), (key, accumulate))
    return out


def fit_value(v, target):
    """The array ``v`` assigned to a place of shape ``target`` (``x[key] = v``): leading size-1
    dims beyond the target's dropped, as libtorch does (``x[0] = torch_tensor([2.0])``), then
    checked to broadcast, with libtorch's errors. The gradient of ``v`` gets its shape back in
    the engine (see ``sum_to_shape``)."""
    shape = v.shape
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand(torch.{type_word_for(v.dtype)}Tensor{{[{', '.join(map(str, shape))}]}}, "
            f"size=[{', '.join(map(str, target))}]): the number of sizes provided ({len(target)}) "
            f"must be greater or equal to the number of dimensions in the tensor ({len(shape)})")
    error = expand_error(target, shape)
    if error is not None:
        raise error
    return v.reshape(shape) if shape != v.shape else v
