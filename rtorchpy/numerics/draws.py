"""How libtorch's CPU kernels turn the engine's words into values, as array operations.

Each function takes an ``Engine`` (``mt19937.py``) and consumes its words exactly as libtorch's
kernel does for a contiguous tensor, element by element in memory order:

* float32 uniform: the low 24 bits of one 32-bit word, times 2^-24; float64: the low 53 bits
  of a 64-bit word (two 32-bit words), times 2^-53; then ``x * (to - from) + from``, one
  rounding (the compiler fuses it).
* normal, 16 or more contiguous values: all values first drawn uniform, then Box-Muller over
  blocks of 16 (the first 8 give the radii, the next 8 the angles); when the count is not a
  multiple of 16, 16 more uniforms are drawn and the last 16 values recomputed from them.
  float32 uses the vectorised logarithm and sine/cosine (``avx_math.py``, in the form
  specialised to the sampler's inputs of ``box_muller32.py``), float64 the C library's
  (``libm.py``).
* normal, fewer than 16 values (or a tensor that is not contiguous): one value at a time by
  the polar-free Box-Muller on two float64 uniforms, the second value kept in the engine's
  cache for the next normal draw.
* integers in ``[base, base + range)``: a word modulo ``range``, one 32-bit word each, or a
  64-bit word when ``range >= 2^32`` (and the dtype is 64-bit or floating).
"""
from __future__ import annotations

import math

import numpy as np

from . import avx_math, box_muller32, libm, shuffle

_F32 = np.float32
_F64 = np.float64
_M24 = np.uint64((1 << 24) - 1)
_M53 = np.uint64((1 << 53) - 1)
_SPLIT = 134217729.0  # 2^27 + 1, Veltkamp's splitter for float64
_SLICE = 65536  # a multiple of 16


def fma64(a, b, c):
    """a * b + c for float64 arrays with (almost always) one rounding: the product's error is
    recovered exactly by Dekker's splitting and the sum's by Knuth's two-sum."""
    a = np.asarray(a, _F64)
    b = np.asarray(b, _F64)
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    low = (p - (s - bb)) + (c - bb)
    return s + (low + err)


def fma32(a, b, c):
    """a * b + c for float32 values, rounded once to float32 (``avx_math._fma``)."""
    return avx_math._fma(a, b, c)


def unit_float32(engine, n):
    """``n`` float32 uniforms on [0, 1), one 32-bit word each."""
    w = engine.words32(n)
    w &= _M24
    return w.astype(_F32) * _F32(2.0 ** -24)


def unit_float64(engine, n):
    """``n`` float64 uniforms on [0, 1), one 64-bit word each."""
    w = engine.words64(n)
    w &= _M53
    return w.astype(_F64) * (2.0 ** -53)


def uniform(engine, n, dtype, low=0.0, high=1.0):
    """libtorch's ``uniform_(low, high)`` for ``n`` values of ``dtype`` (float32 or float64;
    float16 is drawn as float32 and rounded, with libtorch's word use for float16)."""
    dtype = np.dtype(dtype)
    if dtype == _F64:
        x = unit_float64(engine, n)
        if low == 0.0 and high == 1.0:
            return x
        return fma64(x, _F64(high) - _F64(low), _F64(low))
    lo, hi = _F32(low), _F32(high)
    if dtype == np.float16:
        # (libtorch keeps as many bits as the dtype's significand: 11 for float16)
        w = engine.words32(n) & np.uint64(0x7FF)
        x = w.astype(_F32) * _F32(2.0 ** -11)
    else:
        x = unit_float32(engine, n)
    if lo == 0 and hi == 1:
        return x.astype(dtype, copy=False)
    return fma32(x, hi - lo, lo).astype(dtype, copy=False)


def _box_muller16_f64(u, mean, std):
    d = u.reshape(-1, 2, 8)
    radius = np.sqrt(-2.0 * libm.log(1.0 - d[:, 0]).reshape(-1, 8))
    theta = (2.0 * math.pi) * d[:, 1]
    out = np.empty_like(d)
    a = radius * libm.cos(theta).reshape(-1, 8)
    b = radius * libm.sin(theta).reshape(-1, 8)
    if std == 1.0 and mean == 0.0:
        out[:, 0], out[:, 1] = a, b
    else:
        out[:, 0], out[:, 1] = fma64(a, std, mean), fma64(b, std, mean)
    return out.reshape(-1)


def normal_fill(engine, n, dtype, mean=0.0, std=1.0):
    """libtorch's ``normal_`` of ``n >= 16`` contiguous values (float32 or float64)."""
    is64 = np.dtype(dtype) == _F64
    draw = unit_float64 if is64 else unit_float32
    box = _box_muller16_f64 if is64 else box_muller32.box_muller
    u = draw(engine, n)
    whole = n - n % 16
    out = np.empty(n, _F64 if is64 else _F32)
    # in slices that fit in the cache: the float32 kernel is ~100 array operations, which
    # then work on data already there (2.5x faster for 10^6 values than whole arrays; smaller
    # slices pay NumPy's per-call overhead more often)
    for i in range(0, whole, _SLICE):
        out[i:min(i + _SLICE, whole)] = box(u[i:min(i + _SLICE, whole)], mean, std)
    if whole != n:
        out[n - 16:] = box(draw(engine, 16), mean, std)
    return out


def normal_scalar(engine, n, mean=0.0, std=1.0):
    """``n`` float64 normal values one at a time, as libtorch's ``normal_distribution<double>``
    (the cached second value of each pair first)."""
    out = np.empty(n, _F64)
    i = 0
    if n and engine.next_double_normal is not None:
        out[0] = engine.next_double_normal
        engine.next_double_normal = None
        i = 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = unit_float64(engine, 2 * pairs).reshape(pairs, 2)
        radius = np.sqrt(-2.0 * libm.log1p(-u[:, 1]))
        theta = (2.0 * math.pi) * u[:, 0]
        both = np.empty((pairs, 2), _F64)
        both[:, 0] = radius * libm.cos(theta)
        both[:, 1] = radius * libm.sin(theta)
        flat = both.reshape(-1)
        out[i:] = flat[:n - i]
        if (n - i) % 2:
            engine.next_double_normal = float(flat[-1])
    if std == 1.0 and mean == 0.0:
        return out
    return fma64(out, std, mean)


def normal(engine, n, dtype, contiguous=True, mean=0.0, std=1.0):
    """libtorch's ``normal_(mean, std)`` of ``n`` values of ``dtype``: the vectorised path for
    16 or more contiguous values, else the one-at-a-time one."""
    dtype = np.dtype(dtype)
    if n >= 16 and contiguous and dtype in (_F32, _F64):
        return normal_fill(engine, n, dtype, mean, std)
    return normal_scalar(engine, n, mean, std).astype(dtype)


def integers(engine, n, range_, base, wide_ok):
    """``n`` integers ``base + word % range_`` (int64 array); ``wide_ok``: whether the dtype
    takes 64-bit words when ``range_ >= 2^32`` (int64 and the floating dtypes do)."""
    if range_ >= (1 << 32) and wide_ok:
        w = engine.words64(n)
    else:
        w = engine.words32(n)
    r = w % np.uint64(range_)
    return r.astype(np.int64) + np.int64(base)


def exponential(engine, n, lambd):
    """``n`` float64 exponential values of rate ``lambd``: ``-1/lambd * log1p(-u)``."""
    u = unit_float64(engine, n)
    return (-1.0 / lambd) * libm.log1p(-u)


def permutation(engine, n):
    """libtorch's ``randperm(n)``: Fisher-Yates with one 32-bit word per step below 2^32 / 20,
    the inside-out shuffle with 64-bit words above (``shuffle.py``; no loop per element)."""
    if n < shuffle.LARGE:
        if n <= 1:
            return np.arange(n, dtype=np.int64)
        steps = engine.words32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
        return shuffle.fisher_yates(steps.astype(np.int64) + np.arange(n - 1, dtype=np.int64))
    z = engine.words64(n) % np.arange(1, n + 1, dtype=np.uint64)
    return shuffle.inside_out(z.astype(np.int64))
