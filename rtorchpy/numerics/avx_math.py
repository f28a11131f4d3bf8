"""The float32 logarithm, sine and cosine of libtorch's vectorised normal sampler, step by step.

libtorch's float32 ``normal_`` (and so ``randn``) of 16 or more contiguous values, on x86 CPUs
with AVX2, runs Box-Muller with ``log256_ps`` and ``sincos256_ps`` from ``avx_mathfun.h``:
Cephes-style range reductions and polynomials in float32 arithmetic, not the C library's
functions. To give the same bits, they are replayed here operation by operation on float32
arrays. The compiler fuses each multiply-then-add of the polynomials into one FMA (one
rounding), so those steps are written as ``_fma`` (the product and sum formed in float64,
where a float32 product is exact, and rounded once to float32). Which multiply the compiler
fused where two could be (``y*z + e*q1`` in the logarithm, ``c*z - z/2`` in the cosine) was
settled against PyTorch 2.13: only the choice made here gives its bits.
"""
from __future__ import annotations

import numpy as np

_F32 = np.float32
_F64 = np.float64

_SQRTHF = _F32(0.707106781186547524)
_LOG_P = [_F32(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                             -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                             2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
_LOG_Q1 = _F32(-2.12194440e-4)
_LOG_Q2 = _F32(0.693359375)
_MIN_NORM = _F32(1.17549435e-38)

_FOPI = _F32(1.27323954473516)
_DP = [_F32(v) for v in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)]
_SIN_P = [_F32(v) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COS_P = [_F32(v) for v in (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)]


_HALF_BITS = np.int64(1 << 28)   # a float64 at a float32 rounding midpoint: these low bits
_LOW_BITS = np.int64((1 << 29) - 1)


def _fma(a, b, c):
    """a * b + c with one rounding to float32 (a, b, c float32 arrays or scalars).

    The product is exact in float64 and the sum is rounded once there; rounding that to
    float32 is then exact unless the float64 sum fell on a float32 midpoint while the exact
    sum was not there (double rounding, about once in 2^29). Those few are found by their bit
    pattern and pushed off the midpoint towards the exact sum (its remainder, by two-sum)."""
    p = np.multiply(a, b, dtype=_F64)
    s = p + c
    tie = (s.view(np.int64) & _LOW_BITS) == _HALF_BITS
    if tie.any():
        s = np.array(s, copy=True)
        pt = np.broadcast_to(p, s.shape)[tie]
        ct = np.broadcast_to(np.asarray(c, _F64), s.shape)[tie]
        st = s[tie]
        bb = st - pt
        rem = (pt - (st - bb)) + (ct - bb)
        s[tie] = np.where(rem == 0, st, np.nextafter(st, st + rem))
    return s.astype(_F32)


def log_ps(x):
    """``log256_ps`` of a float32 array of positive values."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 126).astype(_F32)      # exponent + 1 (mantissa put in [0.5, 1))
    m = ((bits & ~np.int32(0x7F800000)) | np.int32(0x3F000000)).view(_F32)
    small = m < _SQRTHF
    # x < sqrt(1/2): use 2x - 1 and one less in the exponent
    e -= small.astype(_F32)
    m = (m - _F32(1)) + np.where(small, m, _F32(0))
    z = m * m
    y = np.full(m.shape, _LOG_P[0], _F32)
    for p in _LOG_P[1:]:
        y = _fma(y, m, p)
    y = y * m
    y = _fma(y, z, e * _LOG_Q1)
    y = y - z * _F32(0.5)
    m = m + y
    return _fma(e, _LOG_Q2, m)


def sincos_ps(x):
    """``sincos256_ps`` of a float32 array (here: angles in [0, 2 pi)): (sin, cos)."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~np.int32(1)
    y = j.astype(_F32)
    swap_sin = (j & 4) != 0
    poly2 = (j & 2) == 0          # the sine polynomial gives sin (else they swap)
    x = _fma(y, _DP[0], x)
    x = _fma(y, _DP[1], x)
    x = _fma(y, _DP[2], x)
    neg_cos = ((j - 2) & 4) == 0
    sign_sin = sign_sin ^ swap_sin
    z = x * x
    c = _fma(np.full(z.shape, _COS_P[0], _F32), z, _COS_P[1])
    c = _fma(c, z, _COS_P[2])
    c = c * z
    c = _fma(c, z, -(z * _F32(0.5)))
    c = c + _F32(1)
    s = _fma(np.full(z.shape, _SIN_P[0], _F32), z, _SIN_P[1])
    s = _fma(s, z, _SIN_P[2])
    s = s * z
    s = _fma(s, x, x)
    sin = np.where(poly2, s, c)
    cos = np.where(poly2, c, s)
    sin = np.where(sign_sin, -sin, sin)
    cos = np.where(neg_cos, -cos, cos)
    return sin, cos
