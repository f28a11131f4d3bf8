"""Special functions on NumPy arrays: erf, erfc, erfinv, lgamma, digamma, polygamma, and the
float64-then-rounded forms of atan2, hypot, logit and xlogy.

NumPy has no erf, lgamma or digamma and SciPy is not a dependency, so they are computed here,
to float64 precision:

* ``erf``, ``erfc`` and ``lgamma`` call Python's ``math`` functions element by element (erf
  and erfc within an ULP or two; CPython's own lgamma within ~1e-14 relative, where the C
  library's, which libtorch calls, is within an ULP).
* ``erfinv`` starts from Winitzki's closed-form approximation (~1e-3 relative) and takes three
  Halley steps on ``erf(x) - y``; in the tails the residual is formed as
  ``(1 - |y|) - erfc(|x|)``, which keeps it accurate where ``erf(x)`` rounds to 1.
* ``digamma`` shifts x up to 10 with psi(x) = psi(x + 1) - 1/x and uses the asymptotic series
  there; negative x by the reflection psi(x) = psi(1 - x) - pi / tan(pi frac(x)), as libtorch.
* ``polygamma(n, x)`` for n >= 1 is (-1)^(n+1) n! zeta(n + 1, x) (Hurwitz zeta: a direct sum
  until the argument reaches max(10, n + 1), then Euler-Maclaurin with Bernoulli numbers
  computed exactly at import). Trigamma (n = 1) reflects x < 0.5 as libtorch does.

Speed (10^6 float64 values, measured against ``np.exp`` of the same array): erf and erfc
~15x its time (0.1 us per element), lgamma ~40x, digamma ~30x, polygamma ~50-80x, erfinv
~150x. Correctness first: a vectorised rational approximation of erf would be the next step.

Special values follow libtorch's kernels (poles, signed zeros, inf and NaN), including their
quirks: ``polygamma(n >= 2, inf)`` is NaN, ``polygamma(1, -1)`` is ~6.6e32 (pi^2 / sin(-pi)^2,
as libtorch's reflection computes it) while ``polygamma(1, 0)`` is inf.

float32 and float16 inputs are computed in float64 and rounded once (``_rounded``), as
``numerics/rounded.py`` does for NumPy's transcendentals: the same bits on every CPU.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

_F64 = np.dtype(np.float64)


def _quiet(fn):
    """``fn`` with NumPy's floating-point warnings off: poles and overflow give inf and NaN
    by design here, as in libtorch, which does not warn."""
    def run(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def _rounded(fn64):
    """``fn64`` (float64 array -> float64 array) made to accept any float array: narrower
    floats are computed in float64 and rounded once to their dtype."""
    def evaluate(x):
        dt = x.dtype
        if dt == _F64:
            return fn64(x)
        return fn64(x.astype(_F64)).astype(dt)
    evaluate.__name__ = fn64.__name__.rstrip("64").rstrip("_")
    evaluate.__doc__ = fn64.__doc__
    return evaluate


def _elementwise(fn, x):
    """``fn`` (a Python float function) applied to every element of a float64 array."""
    flat = x.ravel().tolist()
    return np.fromiter(map(fn, flat), _F64, len(flat)).reshape(x.shape)


# ---------------------------------------------------------------------------------- erf

def erf64(x):
    """erf(x), float64 (Python's ``math.erf`` per element)."""
    return _elementwise(math.erf, x)


def erfc64(x):
    """erfc(x) = 1 - erf(x) without cancellation, float64."""
    return _elementwise(math.erfc, x)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@_quiet
def erfinv64(y):
    """The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside, signed zero kept."""
    y = np.asarray(y, _F64)
    a = np.abs(y)
    inside = a < 1
    t = np.where(inside, a, 0.5)
    # Winitzki: erfinv(t) ~ sqrt(sqrt(b^2 - ln(1 - t^2)/k) - b), b = 2/(pi k) + ln(1 - t^2)/2
    k = 0.147
    ln = np.log1p(-t) + np.log1p(t)  # ln(1 - t^2) without cancellation near 1
    b = 2.0 / (math.pi * k) + ln / 2
    x = np.sqrt(np.maximum(np.sqrt(b * b - ln / k) - b, 0.0))
    tail = t > 0.5
    for _ in range(3):  # Halley on f(x) = erf(x) - t: x -= u / (1 + x u), u = f / f'
        f = np.empty_like(x)
        f[tail] = (1.0 - t[tail]) - erfc64(x[tail])
        f[~tail] = erf64(x[~tail]) - t[~tail]
        u = f / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = x - u / (1.0 + x * u)
    out = np.copysign(x, y)
    out = np.where(a == 1, np.copysign(np.inf, y), out)
    return np.where((a > 1) | np.isnan(y), np.nan, out)


# ---------------------------------------------------------------------------------- gamma

def _lgamma1(v):
    try:
        return math.lgamma(v)
    except ValueError:  # the poles: 0 and the negative integers
        return math.inf
    except OverflowError:
        return math.inf


def lgamma64(x):
    """log|Gamma(x)|, float64: inf at the poles (0, negative integers) and at +-inf."""
    return _elementwise(_lgamma1, x)


def _bernoulli_even(count):
    """B_2, B_4, ..., B_2count as Fractions (the Akiyama-Tanigawa algorithm)."""
    n_max = 2 * count
    a = [Fraction(0)] * (n_max + 1)
    out = {}
    for m in range(n_max + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out[m] = a[0]  # B_m (with B_1 = +1/2, unused here)
    return [out[2 * j] for j in range(1, count + 1)]


_B2J = _bernoulli_even(12)
# psi(x) ~ ln x - 1/(2x) - sum_j B_2j / (2j x^2j)
_PSI_SERIES = [float(b / (2 * j)) for j, b in enumerate(_B2J[:7], start=1)]
# Euler-Maclaurin tail of the Hurwitz zeta: B_2j / (2j)!
_ZETA_SERIES = [float(b / math.factorial(2 * j)) for j, b in enumerate(_B2J, start=1)]
_PSI_10 = 2.25175258906672110764  # psi(10) = H_9 - Euler's gamma


def _digamma_positive(x):
    """psi(x) for x > 0 (float64 array; NaN and inf pass through)."""
    acc = np.zeros_like(x)
    y = x.copy()
    for _ in range(10):  # psi(x) = psi(x + 1) - 1/x until x >= 10 (whole-array steps: cheaper
        low = y < 10     # than selecting the elements that still need one)
        if not low.any():
            break
        acc -= np.where(low, 1.0 / y, 0.0)
        y += low
    z = 1.0 / (y * y)
    series = np.zeros_like(y)
    for c in reversed(_PSI_SERIES):
        series = series * z + c
    series *= z
    out = acc + np.log(y) - 0.5 / y - np.where(y < 1e17, series, 0.0)
    return np.where(y == 10, acc + _PSI_10, out)


@_quiet
def digamma64(x):
    """psi(x) = d/dx lgamma(x), float64: -inf at +0, inf at -0, NaN at the negative integers
    and -inf, reflection for x < 0 (as libtorch)."""
    x = np.asarray(x, _F64)
    out = np.empty_like(x)
    neg = x < 0
    pos = ~neg
    out[pos] = _digamma_positive(x[pos])
    if neg.any():
        xn = x[neg]
        frac = xn - np.trunc(xn)
        reflected = _digamma_positive(1.0 - xn) - math.pi / np.tan(math.pi * frac)
        out[neg] = np.where(frac == 0, np.nan, reflected)
    zero = x == 0
    if zero.any():
        out[zero] = np.copysign(np.inf, -x[zero])
    return out


def _hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2 and finite q that is not a pole
    (q > 0, or q < 0 not an integer). Direct sum until the argument reaches max(10, s), then
    Euler-Maclaurin; the tail stops adding terms once they no longer change the sum."""
    target = max(10.0, float(s))
    total = np.zeros_like(q)
    w = q.copy()
    active = w < target
    while active.any():
        total += np.where(active, np.power(w, -s), 0.0)
        w += active
        active = w < target
    b = np.power(w, -s)
    # (w^(1-s) on its own: w * w^-s would underflow to 0 first for very large w)
    total += np.power(w, 1 - s) / (s - 1) + 0.5 * b
    rising = float(s)  # s (s + 1) ... (s + 2j - 2)
    power = b / w      # w^(-s - 2j + 1)
    live = np.ones(q.shape, bool)
    for j, c in enumerate(_ZETA_SERIES, start=1):
        if j > 1:
            rising *= (s + 2 * j - 3) * (s + 2 * j - 2)
            power = power / (w * w)
        term = c * rising * power
        total = np.where(live, total + term, total)
        live &= np.abs(term) >= 1.1e-16 * np.abs(total)
        if not live.any():
            break
    return total


def _trigamma(x):
    x = np.asarray(x, _F64)
    out = np.empty_like(x)
    nan = np.isnan(x)
    out[nan] = np.nan
    low = (x < 0.5) & ~nan
    high = ~low & ~nan
    xh = x[high]
    finite = np.isfinite(xh)
    vals = np.zeros_like(xh)  # trigamma(inf) = 0
    vals[finite] = _hurwitz_zeta(2, xh[finite])
    out[high] = vals
    if low.any():
        xl = x[low]
        s = np.sin(math.pi * xl)
        with np.errstate(divide="ignore", invalid="ignore"):
            reflected = (math.pi * math.pi) / (s * s)
        one_minus = 1.0 - xl
        fin = np.isfinite(one_minus)
        rest = np.full_like(xl, np.nan)
        rest[fin] = _hurwitz_zeta(2, one_minus[fin])
        out[low] = reflected - rest
    return out


@_quiet
def polygamma64(n, x):
    """The n-th derivative of digamma, float64 (n = 0 is digamma)."""
    x = np.asarray(x, _F64)
    if n == 0:
        return digamma64(x)
    if n == 1:
        return _trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    scale = sign * float(math.factorial(n)) if n <= 170 else sign * math.inf
    out = np.empty_like(x)
    pole = (x <= 0) & (x == np.floor(x))  # 0, the negative integers and -inf: inf
    bad = np.isnan(x) | (x == np.inf)  # libtorch's zeta gives NaN at q = inf
    ok = ~pole & ~bad
    out[pole] = scale * np.inf
    out[bad] = np.nan
    out[ok] = scale * _hurwitz_zeta(n + 1, x[ok])
    return out


erf = _rounded(erf64)
erfc = _rounded(erfc64)
erfinv = _rounded(erfinv64)
lgamma = _rounded(lgamma64)
digamma = _rounded(digamma64)


def polygamma(n, x):
    """polygamma(n, x) for any float array (narrower floats through float64)."""
    if x.dtype == _F64:
        return polygamma64(n, x)
    return polygamma64(n, x.astype(_F64)).astype(x.dtype)


# ------------------------------------------------------------------- binary and logit

def _binary_rounded(fn64, x, y):
    """``fn64`` on two arrays: computed in float64, rounded once to their common float
    dtype (NumPy's result type of the two)."""
    dt = np.result_type(x, y)
    if dt.kind != "f":
        dt = _F64
    return np.asarray(fn64(np.asarray(x, _F64), np.asarray(y, _F64))).astype(dt, copy=False)


def atan2(y, x):
    """atan2(y, x) computed in float64 and rounded once."""
    return _binary_rounded(np.arctan2, y, x)


def hypot(x, y):
    """sqrt(x^2 + y^2) without overflow, computed in float64 and rounded once."""
    return _binary_rounded(np.hypot, x, y)


@_quiet
def xlogy64(x, y):
    """x * log(y), 0 where x == 0 (unless y is NaN), float64."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x * np.log(y)
    r = np.where(x == 0, 0.0, r)
    return np.where(np.isnan(y), np.nan, r)


def xlogy(x, y):
    """xlogy on two arrays (x may be bool), rounded once to the float dtype of the result:
    the float dtype among them (the wider one when both are floats)."""
    xd, yd = np.asarray(x).dtype, np.asarray(y).dtype
    floats = [d for d in (xd, yd) if d.kind == "f"]
    dt = np.result_type(*floats) if floats else _F64
    return np.asarray(xlogy64(np.asarray(x, _F64), np.asarray(y, _F64))).astype(dt, copy=False)


def logit_bounds(dt, eps):
    """libtorch's clamp bounds [eps, 1 - eps] for ``logit``, formed in the input's dtype."""
    lo = dt.type(eps)
    return float(lo), float(dt.type(1) - lo)


@_quiet
def logit(x, eps=None):
    """log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given (the bounds
    rounded to x's dtype, as libtorch's kernel forms them); float64 then rounded once."""
    dt = x.dtype
    z = x.astype(_F64)
    if eps is not None and eps >= 0:  # (a negative eps is no eps, as in libtorch)
        lo, hi = logit_bounds(dt, eps)
        z = np.where(z < lo, lo, np.where(z > hi, hi, z))  # libtorch's order when lo > hi
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(z / (1.0 - z))
    return r.astype(dt, copy=False)
