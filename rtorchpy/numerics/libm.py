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
Where ``long double`` is no wider than float64 every element goes through ``math``.
"""
from __future__ import annotations

import math

import numpy as np

_LD = np.longdouble
_WIDE = np.finfo(_LD).nmant > 52
# how close to a midpoint (in float64 ULP) glibc may round the other way than exact rounding
_NEAR = 0.02


def _per_element(fn, x):
    return np.fromiter(map(fn, x.tolist()), np.float64, count=x.size)


def _make(np_fn, math_fn, wide=_WIDE):
    def evaluate(x):
        x = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        if not wide or x.size <= 32:
            return _per_element(math_fn, x)
        with np.errstate(all="ignore"):
            ext = np_fn(x.astype(_LD))
            out = ext.astype(np.float64)
            resid = np.abs((ext - out.astype(_LD)).astype(np.float64))
            half = np.spacing(np.abs(out)) * 0.5
            doubt = np.flatnonzero(~(np.abs(resid - half) > _NEAR * 2 * half))
        if doubt.size:
            out[doubt] = _per_element(math_fn, x[doubt])
        return out

    evaluate.__name__ = math_fn.__name__
    return evaluate


log = _make(np.log, math.log)
# glibc's log1p is the older kind, up to about 1 ULP off: no shortcut, every element by math
log1p = _make(np.log1p, math.log1p, wide=False)
# sine and cosine: long double's are slow (x87 fsin, ~0.27 us each here), so calling the
# library itself per element is 2.5x faster than the long double route
sin = _make(np.sin, math.sin, wide=False)
cos = _make(np.cos, math.cos, wide=False)
