"""bfloat16 values kept in float32 arrays.

NumPy has no bfloat16, so a bfloat16 tensor stores float32 values that all lie on the bfloat16
grid: the low 16 bits of each float32 are zero. :func:`to_grid` puts float32 values on that grid
the way libtorch converts a float to bfloat16 (round to nearest, ties to even; a NaN stays a
quiet NaN; values past the largest bfloat16 become infinite).
"""
from __future__ import annotations

import numpy as np

_LOW = np.uint32(0xFFFF)
_HIGH = np.uint32(0xFFFF0000)
_HALF = np.uint32(0x7FFF)
_ONE = np.uint32(1)
_NAN = np.uint32(0x7FC00000)


def to_grid(values) -> np.ndarray:
    """``values`` as a new float32 array rounded to bfloat16 precision (float64 input is
    first rounded to float32, as libtorch's conversion does)."""
    a = np.array(values, dtype=np.float32, copy=True)
    round_in_place(a)
    return a


def round_in_place(a: np.ndarray) -> None:
    """Round the float32 array ``a`` to bfloat16 precision, in place."""
    if a.size == 0:
        return
    bits = a.view(np.uint32)
    nan = np.isnan(a)
    # adding 0x7FFF plus the bit that survives makes the carry round half to even
    keep = (bits >> np.uint32(16)) & _ONE
    np.add(bits, _HALF + keep, out=bits)
    np.bitwise_and(bits, _HIGH, out=bits)
    if nan.any():
        bits[nan] = _NAN


def on_grid(a: np.ndarray) -> bool:
    """Whether every value of the float32 array ``a`` already is a bfloat16 value."""
    if a.size == 0:
        return True
    c = a if a.flags.c_contiguous or a.flags.f_contiguous else np.ascontiguousarray(a)
    return not (c.view(np.uint32) & _LOW).any()


def linspace(start: float, end: float, steps: int) -> np.ndarray:
    """libtorch's bfloat16 linspace: its kernel computes in bfloat16 (each operation rounded),
    the first half stepping up from ``start``, the rest down from ``end``."""
    f32 = np.float32
    s, e = to_grid(start), to_grid(end)
    if steps == 1:
        return s.reshape(1)
    step = to_grid(to_grid(e - s) / to_grid(f32(max(steps - 1, 1))))
    i = np.arange(steps)
    up = to_grid(s + to_grid(step * to_grid(i.astype(f32))))
    down = to_grid(e - to_grid(step * to_grid((steps - 1 - i).astype(f32))))
    return np.where(i < steps // 2, up, down).astype(f32)
