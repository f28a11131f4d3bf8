"""libtorch's float32 Box-Muller (AVX2 ``log256_ps``/``sincos256_ps``) for its own inputs, with
as few array passes as the bits allow.

``avx_math.py`` replays those functions for any float32 input, guarding every fused
multiply-add against double rounding; that costs ~25 array operations per FMA. Here the inputs
are only what the sampler feeds them: ``1 - u`` to the logarithm and ``2 pi * u`` to the
sine/cosine, ``u`` a multiple of 2^-24 in [0, 1). That domain has 2^24 points, so it can be
checked whole: ``tests/test_box_muller32.py`` compares these functions with the guarded replay
on every one of them (bit for bit). Within it each FMA is computed as a float64 product (exact:
two 24-bit significands) plus the addend, rounded to float32 once by a cast; the exhaustive
check is what shows that the float64 sum never lands on a float32 rounding midpoint it should
not (the double rounding the guarded ``_fma`` looks for). Where a product is exact in float32
already (a small integer times a constant with few bits: the ``pi/4`` reduction steps and the
exponent's ``log 2``), plain float32 arithmetic is the FMA. All float32 operations used are
IEEE ones (add, multiply, square root), so results do not depend on the CPU.
"""
from __future__ import annotations

import numpy as np

from . import avx_math as _am

_F32 = np.float32
_F64 = np.float64
_LOG_P64 = [float(p) for p in _am._LOG_P]
_COS_P64 = [float(p) for p in _am._COS_P]
_SIN_P64 = [float(p) for p in _am._SIN_P]
_DP2_64 = float(_am._DP[2])
_EXP_MASK = np.int32(~0x7F800000)
_HALF_EXP = np.int32(0x3F000000)
# frexp exponents of the Horner steps' results over the whole domain (checked by the tests)
_COS_EXPS = (-9, -4)
_SIN_EXPS = (-6, -2)


def _fma_poly(y0, x64, coeffs):
    """Horner steps ``y = fma(y, x, c)`` from the constant ``y0``, each rounded to float32;
    ``x64`` is the float32 variable held in float64. Returns float32."""
    y = x64 * y0
    y += coeffs[0]
    for c in coeffs[1:]:
        y[:] = y.astype(_F32)
        y *= x64
        y += c
    return y.astype(_F32)


def _fixed_binade_poly(y0, x64, coeffs, exps):
    """The same Horner steps where each step's result is known to lie in one binade (``exps``:
    its exponent, as ``frexp`` gives it, for every input of the domain). Then rounding to
    float32 is rounding to a fixed multiple of 2^(e - 24), which adding and subtracting a
    constant does in float64 in one pass: ``y * x + (c + big)`` rounds once, to the float32
    value plus ``big``."""
    y = x64 * y0
    for c, e in zip(coeffs, exps):
        big = 1.5 * 2.0 ** (e + 28)
        y += c + big
        y -= big
        if c is not coeffs[-1]:
            y *= x64
    return y.astype(_F32)


def log_one_minus(u):
    """``log256_ps(1 - u)`` for float32 ``u`` that are multiples of 2^-24 in [0, 1)."""
    x = _F32(1) - u
    bits = x.view(np.int32)
    e = (bits >> 23).astype(_F32)
    e -= _F32(126)
    m = ((bits & _EXP_MASK) | _HALF_EXP).view(_F32)
    small = (m < _am._SQRTHF).view(np.uint8).astype(_F32)
    e -= small
    # m < sqrt(1/2): 2m - 1, else m - 1 (both exact; m * small is m or 0)
    small *= m
    m -= _F32(1)
    m += small
    m64 = m.astype(_F64)
    z = m * m
    y = _fma_poly(_LOG_P64[0], m64, _LOG_P64[1:])
    y *= m
    t = np.multiply(y, z, dtype=_F64)
    t += (e * _am._LOG_Q1).astype(_F64)
    y = t.astype(_F32)
    y -= z * _F32(0.5)
    m += y
    # e * log2's high part is exact in float32 (a small integer times a 9-bit constant)
    e *= _am._LOG_Q2
    m += e
    return m


def sincos_two_pi(u):
    """``sincos256_ps(2 pi * u)`` for float32 ``u`` that are multiples of 2^-24 in [0, 1):
    (sin, cos). The angles are non-negative, so the input's sign never enters. The octant
    logic (which polynomial gives which, and the signs) is done on the bits."""
    x = _am._F32(2 * np.pi) * u
    j = (x * _am._FOPI).astype(np.int32)
    j += 1
    j &= ~np.int32(1)
    y = j.astype(_F32)
    # the first two pi/4 parts have few bits: y * part is exact, one float32 rounding
    x += y * _am._DP[0]
    x += y * _am._DP[1]
    t = y.astype(_F64)
    t *= _DP2_64
    t += x
    x = t.astype(_F32)
    z = x * x
    z64 = z.astype(_F64)
    c = _fixed_binade_poly(_COS_P64[0], z64, _COS_P64[1:], _COS_EXPS)
    c *= z
    t = np.multiply(c, z64, dtype=_F64)
    t -= z * _F32(0.5)
    c = t.astype(_F32)
    c += _F32(1)
    s = _fixed_binade_poly(_SIN_P64[0], z64, _SIN_P64[1:], _SIN_EXPS)
    s *= z
    t = np.multiply(s, x, dtype=_F64)
    t += x
    s = t.astype(_F32)
    sb, cb = s.view(np.int32), c.view(np.int32)
    swap = (j >> 1) & 1
    np.negative(swap, out=swap)          # all ones where sin and cos trade polynomials
    d = sb ^ cb
    d &= swap
    sin = sb ^ d
    cos = cb ^ d
    # sign bits: sin is negated where j & 4, cos where (j - 2) & 4 is 0
    sin ^= (j & 4) << 29
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    cos ^= j
    return sin.view(_F32), cos.view(_F32)


def box_muller(u, mean, std):
    """libtorch's float32 normal values from uniforms ``u`` (length a multiple of 16): in each
    block of 16 the first 8 give the radii, the next 8 the angles."""
    d = u.reshape(-1, 2, 8)
    radius = log_one_minus(d[:, 0])
    radius *= _F32(-2)
    np.sqrt(radius, out=radius)
    sin, cos = sincos_two_pi(d[:, 1])
    out = np.empty_like(d)
    np.multiply(radius, cos, out=out[:, 0])
    np.multiply(radius, sin, out=out[:, 1])
    out = out.reshape(-1)
    if std == 1.0 and mean == 0.0:
        # fma(x, 1, 0) is x, except that it turns -0 into +0
        out += _F32(0)
        return out
    return _am._fma(out, _F32(std), _F32(mean))
