"""Bridge helpers for R's data loading (``r-shim/R/data-*.R``): the rows of several tensors at
one R index vector in one crossing (``tensor_dataset``'s ``.getbatch``)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .handles import Raw, _get, guarded


def _r_indices(rarray):
    """An R integer or double vector (``.r_array`` bytes) as 0-based int64 positions."""
    _, data, kind, _ = rarray
    dt = "<f8" if kind == "double" else "<i4"
    idx = np.frombuffer(bytes(data), dtype=dt)
    if kind == "double":
        if not np.all(np.isfinite(idx)) or np.any(idx != np.floor(idx)):
            raise ValueError("indices must be whole numbers")
    return idx.astype(np.int64) - 1


@guarded
def take_rows(handles, rarray):
    """``lapply(tensors, function(x) x[index, ..])`` in one call: each tensor indexed once
    along its first dim at the 1-based ``index``."""
    tensors = [_get(h) for h in handles]
    idx = _r_indices(rarray)
    n = tensors[0].shape[0]
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise IndexError(f"index {int(bad[0]) + 1} is out of bounds for a tensor_dataset of {n} "
                         f"items")
    return [t[idx] for t in tensors]


@guarded
def export_tensor(h):
    """A tensor as (raw bytes in C order, NumPy dtype name, shape, requires_grad): what a data
    loader worker process sends back to R's main process (R serializes it; a handle would not
    survive the trip). Exact for every dtype."""
    t = _get(h)
    a = np.ascontiguousarray(t._data)
    return Raw(["v", [bytearray(a.tobytes()), a.dtype.name, list(a.shape),
                      bool(t.requires_grad)]])


@guarded
def import_tensor(data, dtype_name, shape, requires_grad=False):
    """The tensor :func:`export_tensor` described."""
    shape = [int(s) for s in (shape if isinstance(shape, list) else [shape])]
    a = np.frombuffer(bytes(data), dtype=np.dtype(dtype_name)).reshape(shape).copy()
    t = Tensor._make(a)
    return t.requires_grad_(True) if requires_grad else t
