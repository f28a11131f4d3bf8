"""float64 ``log``, ``log1p``, ``sin`` and ``cos`` with the C library's bits, on whole arrays.

libtorch's float64 Box-Muller calls the C library (glibc's ``log``, ``sin``, ``cos``), which is
accurate to about 0.52 ULP. NumPy's float64 kernels on AVX-512 machines are Intel's SVML,
which differs from glibc in the last bit about once in a thousand values, so they cannot be
used directly. Python's ``math`` module is glibc, but calling it per element costs ~0.13 s per
million values.

So: evaluate in long double (x87 extended, 11 more bits than float64), round to float64, and
only where the long double value lies so close to the midpoint between two float64 values that
glibc's own rounding could go either way ask ``math`` itself for that element (a few percent
of them; checked against ``math`` on millions of values). ``log1p`` is always per element:
glibc's is less accurate, so no margin is safe; ``sin`` and ``cos`` too, where that is faster.
Where ``long double`` is no wider than float64 every element goes through ``math``. (Where it is
x87 extended, the closeness to a midpoint is read from the 11 significand bits that rounding to
float64 drops, in integer passes.)

Where NumPy's own float64 kernel gives the C library's bits, it is used as it is, in one pass:
NumPy calls the C library on CPUs where it has no SIMD version of a function, and its SIMD
versions (SVML, its AVX-512 logarithm) differ from the library in the last bit of a few values
in a thousand. Which case holds is only known by running, so a one-time probe (on first use)
compares NumPy with ``math`` on 2^15 inputs spread over the function's domain in the samplers
(``[0, 2 pi)`` for ``sin``/``cos``, ``(0, 1]`` for ``log``); a kernel that differs from the
library in one value of a thousand fails it with near certainty. Where it fails, the routes
above stay. (On the AVX-512 machine these notes were written on, NumPy 2.4's ``sin`` and
``cos`` pass and its ``log`` fails: 3567 last-bit differences in 10^6 of the sampler's inputs.)
"""
from __future__ import annotations

import math

import numpy as np

_LD = np.longdouble
_WIDE = np.finfo(_LD).nmant > 52
# how close to a midpoint (in float64 ULP) glibc may round the other way than exact rounding
_NEAR = 0.02
# x87 extended (64-bit significand, little-endian, 16 bytes): the 11 significand bits that
# rounding to float64 drops are then read directly (midpoint 1024, the margin in 1/2048 ULP)
_X87 = (np.finfo(_LD).nmant == 63 and np.dtype(_LD).itemsize == 16
        and np.little_endian)
_NEAR_BITS = math.ceil(_NEAR * 2048)


def _per_element(fn, x):
    return np.fromiter(map(fn, x.tolist()), np.float64, count=x.size)


# probe inputs per grid (two grids: a regular one and one with an irrational step)
_PROBE_SIZE = 1 << 14


def _probe_inputs(hi):
    """The probe's inputs in ``(0, hi]``: a regular grid (the samplers feed multiples of 2^-53
    times ``hi``, as the grid points are), a grid with an irrational step (so that all the last
    bits vary), the domain's ends, and the points where sine and cosine's range reduction
    switches (multiples of pi/4, and their neighbours)."""
    k = np.arange(1, _PROBE_SIZE + 1, dtype=np.float64)
    grid = hi * (k / _PROBE_SIZE)
    jitter = hi * ((k * 0.6180339887498949) % 1.0)
    edges = np.array([hi, np.nextafter(hi, 0), 2.0 ** -53, 2.0 ** -24, 0.5, 1.0 - 2.0 ** -53])
    quarters = np.arange(1, 9) * (np.pi / 4)
    quarters = np.concatenate([quarters, np.nextafter(quarters, 0), np.nextafter(quarters, 9)])
    x = np.concatenate([grid, jitter, edges, quarters])
    return x[(x > 0) & (x <= hi)]


def numpy_matches(np_fn, math_fn, hi):
    """Whether NumPy's float64 ``np_fn`` gives ``math_fn``'s (the C library's) bits on the
    probe's inputs in ``(0, hi]``."""
    x = _probe_inputs(hi)
    with np.errstate(all="ignore"):
        got = np.asarray(np_fn(x), dtype=np.float64)
    return bool(np.array_equal(got.view(np.int64), _per_element(math_fn, x).view(np.int64)))


def _x87_doubt(ext, out):
    # (a few integer passes instead of the long double arithmetic of _generic_doubt; the
    # non-finite results are kept in doubt, so that the library decides them as before)
    low = (ext.view(np.uint64)[0::2] & np.uint64(0x7FF)).view(np.int64)
    low -= 1024
    np.abs(low, out=low)
    return np.flatnonzero((low <= _NEAR_BITS) | ~np.isfinite(out))


def _generic_doubt(ext, out):
    resid = np.abs((ext - out.astype(_LD)).astype(np.float64))
    half = np.spacing(np.abs(out)) * 0.5
    return np.flatnonzero(~(np.abs(resid - half) > _NEAR * 2 * half))


def _make(np_fn, math_fn, wide=_WIDE, probe_hi=None):
    state = {}

    def numpy_is_exact():
        # probed on first use, not at import: the probe costs ~10 ms of calls to math
        if "exact" not in state:
            state["exact"] = probe_hi is not None and numpy_matches(np_fn, math_fn, probe_hi)
        return state["exact"]

    def evaluate(x):
        x = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        if x.size > 32 and numpy_is_exact():
            return np_fn(x)
        if not wide or x.size <= 32:
            return _per_element(math_fn, x)
        with np.errstate(all="ignore"):
            ext = np_fn(x.astype(_LD))
            out = ext.astype(np.float64)
            doubt = _x87_doubt(ext, out) if _X87 else _generic_doubt(ext, out)
        if doubt.size:
            out[doubt] = _per_element(math_fn, x[doubt])
        return out

    evaluate.__name__ = math_fn.__name__
    # (the probe's verdict lives in probe_state: tests set it to check both routes)
    evaluate.numpy_is_exact = numpy_is_exact
    evaluate.probe_state = state
    return evaluate


log = _make(np.log, math.log, probe_hi=1.0)
# glibc's log1p is the older kind, up to about 1 ULP off: no shortcut, every element by math
log1p = _make(np.log1p, math.log1p, wide=False)
# sine and cosine: long double's are slow (x87 fsin, ~0.27 us each here), so where the probe
# fails calling the library itself per element is 2.5x faster than the long double route
sin = _make(np.sin, math.sin, wide=False, probe_hi=2 * math.pi)
cos = _make(np.cos, math.cos, wide=False, probe_hi=2 * math.pi)
