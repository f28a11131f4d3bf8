"""R torch's ``[`` and ``[<-`` for the R package: 1-based positions, inclusive slices, ``drop``,
negative indices from the end, masks and index vectors applied per dim (part of the R bridge,
see ``rtorchpy/_r/__init__.py`` for the protocol)."""
from __future__ import annotations

import numpy as np

from ..ops.index import getitem
from ..tensor import Tensor
from .errors import ZERO_INDEX, RIndexError
from .handles import _dec, _get, _index_values, _r_int, guarded, r_value_tensor

# R sends one item per index argument: ("f",) an empty argument (full range), ("e",) `..`,
# ("n",) newaxis/NULL, ("i", i) a number or 0-d integer tensor, ("s", start, end, step) an
# inclusive `a:b:s` range (None = open), ("v", values) a vector of indices (numbers or an integer
# tensor), ("m", mask) a logical vector or bool tensor.

def _r_position(i, n):
    i = _r_int(i)
    if not isinstance(i, int) or isinstance(i, bool):
        raise RIndexError("Unsupported index.")
    if i == 0:
        raise RIndexError(ZERO_INDEX)
    return i - 1 if i > 0 else i


def _r_slice(start, end, step, n):
    a = None if start is None else _r_position(start, n)
    b = None
    if end is not None:
        e = _r_int(end)
        if e == 0:
            raise RIndexError(ZERO_INDEX)
        b = e if e > 0 else n + e + 1
        if b >= n:
            b = None
    s = 1 if step is None else int(_r_int(step))
    return slice(a, b, s)


def _as_mask(v):
    m = v._data if isinstance(v, Tensor) else np.asarray(v, dtype=np.bool_)
    if m.dtype.kind != "b":
        raise RIndexError("Unsupported index.")
    return m


def _parse_items(items, ndim):
    """Decoded items, with ``..`` replaced by the number of dims it covers."""
    items = [[_dec(x) for x in it] for it in items]
    used = 0
    for it in items:
        kind, v = _item_kind(it)
        if kind == "m":  # a mask uses its number of dims: none for TRUE or a 0-dim bool tensor
            used += _as_mask(v).ndim
        elif kind not in ("e", "n"):
            used += 1
    if sum(1 for it in items if it[0] == "e") > 1:
        raise RIndexError("an index can only have a single ellipsis ('..')")
    if used > ndim:
        raise RIndexError(f"too many indices for tensor of dimension {ndim}")
    return [["e", ndim - used] if it[0] == "e" else it for it in items]


def _item_kind(it):
    kind, v = it[0], (it[1] if len(it) > 1 else None)
    if kind == "i" and isinstance(v, Tensor):
        if v._data.dtype.kind == "b":
            return "m", v
        if v._data.ndim > 0:
            return "v", v
    if kind == "v" and isinstance(v, Tensor) and v._data.dtype.kind == "b":
        return "m", v
    return kind, v


def _slice_dim(t, d, s):
    """``t`` sliced along dim ``d`` only; recorded (SliceBackward0) even when the slice is the
    whole dim, as libtorch's C++ indexing records R torch's ranges and empty arguments."""
    start, stop, step = s.indices(t.shape[d])
    if step == 1:
        return t.narrow(d, start, max(stop - start, 0))
    return getitem(t, (slice(None),) * d + (slice(start, stop, step),))


@guarded
def index(h, items, drop=True):
    """``x[...]`` with R torch's rules: 1-based, inclusive ranges, one index per dimension
    applied independently (R semantics for vectors), scalars drop their dim unless
    ``drop = FALSE``, an empty argument is a (recorded) full slice."""
    out = _get(h)
    d = 0
    for it in _parse_items(items, out.ndim):
        kind, v = _item_kind(it)
        before = (slice(None),) * d
        if kind == "e":
            d += v
        elif kind == "n":
            out = out.unsqueeze(d)
            d += 1
        elif kind == "f":
            out = _slice_dim(out, d, slice(None))
            d += 1
        elif kind == "i":
            out = out.select(d, _r_position(v, out.shape[d]))
            if not drop:
                out = out.unsqueeze(d)
                d += 1
        elif kind == "s":
            out = _slice_dim(out, d, _r_slice(v, it[2], it[3], out.shape[d]))
            d += 1
        elif kind == "v":
            out = getitem(out, before + (_index_values(v),))
            d += 1
        elif kind == "m":
            out = getitem(out, before + (_as_mask(v),))
            d += 1
        else:
            raise RIndexError("Unsupported index.")
    return out


@guarded
def set_index(h, items, value):
    """``x[...] <- value`` (in place): numbers, ranges, masks, `..`; one vector at most."""
    t = _get(h)
    key, d, vectors = [], 0, 0
    for it in _parse_items(items, t.ndim):
        kind, v = _item_kind(it)
        if kind == "e":
            key.extend([slice(None)] * v)
            d += v
            continue
        if kind == "n":
            key.append(None)
            continue
        n = t.shape[d] if d < t.ndim else 1
        if kind == "f":
            key.append(slice(None))
        elif kind == "i":
            key.append(_r_position(v, n))
        elif kind == "s":
            key.append(_r_slice(v, it[2], it[3], n))
        elif kind == "v":
            vectors += 1
            key.append(_index_values(v))
        elif kind == "m":
            m = _as_mask(v)
            key.append(m)
            d += m.ndim - 1
        d += 1
    if vectors > 1:
        raise RIndexError("Vector-like indices are not allowed in assignment: use one vector, "
                          "or assign through a mask.")
    value = _dec(value)
    if isinstance(value, list):
        value = r_value_tensor(value)
    t[tuple(key)] = value
    return t
