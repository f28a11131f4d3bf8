"""Selecting elements: where a tensor is non-zero (``nonzero``), and by rank along a dim
(``median``, ``kthvalue``), with libtorch's values, indices, nodes and errors.

Which index a rank selection returns among equal values follows libtorch's CPU kernels, since
the gradient lands there: ``median`` along a dim orders ties by position (the element at rank
``(n - 1) // 2`` of a stable sort; a slice holding NaN gives its first NaN), and ``kthvalue``
takes whatever element libtorch's quickselect leaves at rank ``k - 1``, replayed here for the
slices where the selected value is tied (a stable sort answers the others). The median of all
elements is libtorch's value (for a zero, its sign may differ: libtorch's comes from
``std::nth_element``).
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import matops as _rows  # noqa: F401  (the rows, before NODES is read below)
from ..numerics.dims import normalize_dim
from .matrix import _int
from .reduce import select_along
from .registry import op, recording, wrap

# ------------------------------------------------------------------------------ nonzero


@op("nonzero", returns_index=True)
def nonzero(self, as_tuple=False):
    """The indices of the non-zero elements, one row per element in row-major order: an int64
    tensor of shape (count, ndim). ``as_tuple=True`` gives one 1-d index tensor per dim
    instead (a 0-dim tensor counts as 1-d). No gradient."""
    x = self._data
    if as_tuple:
        where = np.nonzero(x.reshape(1) if x.ndim == 0 else x)
        return tuple(wrap(np.asarray(w, dtype=np.int64)) for w in where)
    # (a 0-dim input gives (count, 0): NumPy's argwhere agrees)
    return wrap(np.ascontiguousarray(np.argwhere(x), dtype=np.int64))


# ------------------------------------------------------------------------------ shared checks

def _not_bool(self, kernel):
    if self._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _reduced_dim(self, dim, name):
    """``dim`` as a non-negative int, after libtorch's check that the slices are not empty."""
    x = self._data
    d = normalize_dim(dim, x.ndim)
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return d


def _slices(x, d):
    """The slices of ``x`` along dim ``d`` as the rows of a 2-d array, and the shape of the
    other dims (a 0-dim ``x`` is one slice of one element)."""
    moved = np.moveaxis(x.reshape(1) if x.ndim == 0 else x, d, -1)
    return moved.reshape(-1, moved.shape[-1]), moved.shape[:-1]


def _pick(self, d, keepdim, idx, node, kept_shape):
    """(values, indices) of the positions ``idx`` (one per row of ``_slices``), shaped as a
    reduction over ``d``, recording ``node``."""
    return select_along(self, d, keepdim, np.expand_dims(idx.reshape(kept_shape), d), node)


# ------------------------------------------------------------------------------ median

def _median_all(self):
    x = self._data.reshape(-1)
    if x.size == 0:  # libtorch: NaN (an integer tensor gets its type's smallest value)
        fill = np.nan if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        return wrap(np.asarray(fill, dtype=x.dtype))
    if x.dtype.kind == "f" and np.isnan(x).any():
        return wrap(np.asarray(np.nan, dtype=x.dtype))
    return wrap(np.asarray(np.partition(x, (x.size - 1) // 2)[(x.size - 1) // 2]))


def _median_positions(rows):
    """Per row: the first NaN if there is one, else the element at rank (n - 1) // 2 of a
    stable sort (equal values ordered by position, as libtorch's comparison orders them)."""
    n = rows.shape[-1]
    idx = np.argsort(rows, axis=-1, kind="stable")[:, (n - 1) // 2]
    if rows.dtype.kind == "f":
        nan = np.isnan(rows)
        has_nan = nan.any(axis=-1)
        idx = np.where(has_nan, nan.argmax(axis=-1), idx)
    return idx


@op("median", dims=("dim",), returns_index=True)
def median(self, dim=None, keepdim=False):
    """The lower of the two middle values of all elements (NaN if there is a NaN; an empty
    tensor gives NaN), or with ``dim`` the pair (values, indices) of each slice's median
    along that dim; among equal values the first in the slice, and a slice's first NaN when
    it has one."""
    if dim is None:
        _not_bool(self, "median_cpu")
        out = _median_all(self)
        if recording(self):
            record(NODES["MedianBackward0"], (self,), (out,))
        return out
    _not_bool(self, "median_out")
    d = _reduced_dim(self, dim, "median")
    rows, kept = _slices(self._data, d)
    return _pick(self, d, keepdim, _median_positions(rows), "MedianBackward1", kept)


# ------------------------------------------------------------------------------ kthvalue

def _greater(a, b):
    """libtorch's order for selection: NaN above every number, NaNs equal to each other."""
    return (a > b) or (math.isnan(a) and not math.isnan(b))


def _quickselect(row, k):
    """The original position of the element libtorch's CPU quickselect (median-of-three pivot,
    Hoare partition) leaves at rank ``k`` of ``row``; replayed step by step, since among equal
    values it decides which one is returned."""
    vals, pos = row.tolist(), list(range(len(row)))

    def swap(i, j):
        vals[i], vals[j] = vals[j], vals[i]
        pos[i], pos[j] = pos[j], pos[i]

    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if _greater(vals[lo], vals[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if _greater(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if _greater(vals[lo], vals[hi]):
            swap(lo, hi)
        if _greater(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while _greater(pivot, vals[i]):
                i += 1
            j -= 1
            while _greater(vals[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return pos[k]


def _kth_positions(rows, k):
    """Per row, the position of its k-th smallest element (k 0-based) as libtorch picks it."""
    idx = np.argsort(rows, axis=-1, kind="stable")[:, k]  # NaN sorts last, as libtorch's
    chosen = np.take_along_axis(rows, idx[:, None], axis=-1)
    same = rows == chosen
    if rows.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(chosen)
    for r in np.flatnonzero(same.sum(axis=-1) > 1):  # ties: the stable order may differ
        idx[r] = _quickselect(rows[r], k)
    return idx


@op("kthvalue", dims=("dim",), returns_index=True)
def kthvalue(self, k, dim=-1, keepdim=False):
    """(values, indices) of the ``k``-th smallest element of each slice along ``dim``
    (``k`` counts from 1 in both languages); NaN counts as the largest."""
    _not_bool(self, "kthvalue_cpu")
    k = _int(k, "k")
    d = _reduced_dim(self, dim, "kthvalue")
    size = self._data.shape[d] if self._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    rows, kept = _slices(self._data, d)
    idx = _kth_positions(rows, k - 1) if rows.size else np.zeros(rows.shape[0], np.int64)
    return _pick(self, d, keepdim, idx, "KthvalueBackward0", kept)

