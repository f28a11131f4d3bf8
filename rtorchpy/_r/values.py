"""Values between R and Python: R vectors (column-major bytes) to tensors and back, printing."""
from __future__ import annotations

import numpy as np

from .handles import Raw, _array_from_r, _get, guarded

# ----------------------------------------------------------------------------- values <-> R

@guarded
def from_r(rarray, dtype=None, requires_grad=False):
    """``torch_tensor()`` of an R vector, matrix or array (see :func:`_array_from_r`)."""
    t = _array_from_r(rarray[1], rarray[2], rarray[3], dtype)
    return t.requires_grad_(True) if requires_grad else t


@guarded
def to_r(h):
    """A tensor's values for R: (bytes in column-major order, R type, shape). Floats become
    doubles, integers R integers (int32; values beyond R's range NA, flagged), bools logicals."""
    a = _get(h)._data
    shape = list(a.shape)
    if a.dtype.kind == "f":
        kind, out = "double", a.astype(np.float64, copy=False)
    elif a.dtype.kind == "b":
        kind, out = "logical", a.astype(np.int32)
    elif a.dtype.kind in "iu":
        kind = "integer"
        outside = (a > 2147483647) | (a < -2147483647)  # R's integers; -2^31 is R's NA
        out = a.astype(np.int32)
        if outside.any():
            # NA, as R's own as.integer() gives for a number outside its range
            out[outside] = np.iinfo(np.int32).min
            kind = "integer_overflow"
    else:
        raise TypeError(f"can't convert a tensor of dtype {a.dtype} to R")
    return Raw(["v", [bytearray(out.tobytes(order="F")), kind, shape]])


@guarded
def format_tensor(h, n=30):
    t = _get(h)
    if t is None:
        return "torch_tensor\n[ Tensor (undefined) ]"
    return t.format(int(n))


@guarded
def item(h):
    return _get(h).item()
