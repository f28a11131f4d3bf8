"""Values between R and Python: R vectors (column-major bytes) to tensors and back, printing."""
from __future__ import annotations

import numpy as np

from ..numerics.warn import warn
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
    doubles, integers R integers, bools logicals. Integers beyond R's integer range become
    doubles, exact up to 2^53 (R torch's rule for int64 in R); beyond that rounded, flagged so
    that R warns."""
    a = _get(h)._data
    shape = list(a.shape)
    if a.dtype.kind == "f":
        kind, out = "double", a.astype(np.float64, copy=False)
    elif a.dtype.kind == "b":
        kind, out = "logical", a.astype(np.int32)
    elif a.dtype.kind in "iu":
        outside = (a > 2147483647) | (a < -2147483647)  # R's integers; -2^31 is R's NA
        if outside.any():
            out = a.astype(np.float64)
            big = (a > _EXACT) | (a < -_EXACT)
            rounded = big.any() and bool(np.any(out[big].astype(a.dtype) != a[big]))
            kind = "double_rounded" if rounded else "double"
        else:
            kind, out = "integer", a.astype(np.int32)
    else:
        raise TypeError(f"can't convert a tensor of dtype {a.dtype} to R")
    return Raw(["v", [bytearray(out.tobytes(order="F")), kind, shape]])


@guarded
def format_tensor(h, n=30):
    t = _get(h)
    if t is None:
        return "torch_tensor\n[ Tensor (undefined) ]"
    return t.format(int(n))


_EXACT = 2 ** 53  # the largest integer range a double holds exactly


@guarded
def item(h):
    """The value of a one-element tensor; an integer beyond R's integer range as a double (R's
    integers are 32-bit), with a warning when the double can't hold it exactly."""
    v = _get(h).item()
    if type(v) is int and not -2147483647 <= v <= 2147483647:
        if abs(v) > _EXACT and int(float(v)) != v:
            warn(f"the int64 value {v} is beyond 2^53: R's double rounds it to "
                 f"{float(v):.17g}", stacklevel=2)
        return float(v)
    return v
