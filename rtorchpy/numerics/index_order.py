"""Where advanced indexing puts its dimensions: libtorch's rule, applied with NumPy.

libtorch indexes in two stages. First the basic entries act: an integer selects (its dim goes
away), a slice slices, ``None`` inserts a dim, and a boolean scalar (``True``/``False``, or a
0-dim bool tensor) inserts a dim of size 1 that it then indexes with ``[0]`` or with nothing.
Then the index tensors (long or bool; an n-dim bool mask stands for n long tensors, its nonzero
positions) index what is left: their broadcast shape replaces them in place if they are
adjacent, and goes first otherwise.

NumPy counts an integer next to an index array as one more advanced index, so on a (3, 4, 5)
array ``a[0, :, [1, 2]]`` is (2, 4) in NumPy and (4, 2) in libtorch. Splitting the key into the
two stages and applying them one after the other gives libtorch's result, because in the
second stage only full slices and arrays remain, where both libraries agree.
"""
from __future__ import annotations

import numpy as np

_FULL = slice(None)
_TRUE_INDEX = np.zeros(1, dtype=np.int64)    # a boolean True indexes its new size-1 dim with [0]
_FALSE_INDEX = np.zeros(0, dtype=np.int64)   # and False with nothing


def split_key(key):
    """``(basic, advanced)`` for an expanded key (no Ellipsis) that holds index arrays.

    ``basic`` holds the integers, slices and new dims (``None`` when it would change nothing);
    ``advanced`` indexes the result of ``basic`` with full slices and arrays only."""
    basic, advanced, trivial = [], [], True
    for k in key:
        if isinstance(k, np.ndarray):
            if k.ndim == 0 and k.dtype.kind == "b":
                basic.append(None)
                advanced.append(_TRUE_INDEX if k else _FALSE_INDEX)
                trivial = False
            else:
                dims = k.ndim if k.dtype.kind == "b" else 1
                basic.extend([_FULL] * dims)
                advanced.append(k)
        elif isinstance(k, slice):
            basic.append(k)
            advanced.append(_FULL)
            trivial = trivial and k == _FULL
        elif k is None:
            basic.append(None)
            advanced.append(_FULL)
            trivial = False
        else:  # an integer: selected in the first stage, so gone in the second
            basic.append(k)
            trivial = False
    return (None if trivial else tuple(basic)), tuple(advanced)


def _stages(arr, key):
    """``arr`` after the basic stage (a view of it) and the advanced key for the rest."""
    basic, advanced = split_key(key)
    return (arr if basic is None else arr[basic]), advanced


def has_arrays(key):
    return any(isinstance(k, np.ndarray) for k in key)


def take(arr, key):
    """``arr`` indexed by ``key`` with libtorch's placement of the advanced dims."""
    if not has_arrays(key):
        return arr[key]
    part, advanced = _stages(arr, key)
    return part[advanced]


def put(arr, key, values):
    """Write ``values`` (broadcast) into ``arr`` at ``key``, in place."""
    if not has_arrays(key):
        arr[key] = values
        return
    part, advanced = _stages(arr, key)
    part[advanced] = values


def add_at(arr, key, values):
    """Add ``values`` (broadcast) into ``arr`` at ``key`` in place; repeated positions add up."""
    if not has_arrays(key):
        arr[key] += values
        return
    part, advanced = _stages(arr, key)
    np.add.at(part, advanced, values)


def scatter_add_into(z, dim, idx, src):
    grids = list(np.indices(idx.shape, sparse=True))
    grids[dim] = idx
    np.add.at(z, tuple(grids), src[tuple(slice(0, s) for s in idx.shape)])
