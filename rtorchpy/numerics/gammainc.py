"""The regularised lower incomplete gamma function P(a, x) in float64 arrays (what
``Gamma.cdf`` needs): the power series where ``x < a + 1``, else 1 minus the continued
fraction for Q (modified Lentz), both to float64 precision, all elements in step."""
from __future__ import annotations

import numpy as np

from .special import lgamma64

_EPS = 1e-16
_TINY = 1e-300
_MAX_ITER = 500


def _series(a, x):
    # P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
    term = np.ones_like(x)
    total = np.ones_like(x)
    ap = a.copy()
    for _ in range(_MAX_ITER):
        ap += 1
        term *= x / ap
        total += term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * np.exp(a * np.log(x) - x - lgamma64(a + 1))


def _continued_fraction(a, x):
    # Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))
    b = x + 1 - a
    c = np.full_like(x, 1 / _TINY)
    d = 1 / b
    h = d.copy()
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) <= _EPS):
            break
    return 1 - np.exp(a * np.log(x) - x - lgamma64(a)) * h


def gammainc(a, x):
    """P(a, x) for a > 0, x >= 0 (broadcast float64 arrays); NaN where a <= 0 or x < 0."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0)
    out[ok & (x == 0)] = 0.0
    out[ok & np.isposinf(x)] = 1.0
    pos = ok & (x > 0) & np.isfinite(x)
    low = pos & (x < a + 1)
    high = pos & ~low
    with np.errstate(all="ignore"):
        if low.any():
            out[low] = _series(a[low], x[low])
        if high.any():
            out[high] = _continued_fraction(a[high], x[high])
    return out
