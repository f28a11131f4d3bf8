"""Rows of the Fourier transforms and complex views (``ops/fft.py``). Each transform's gradient
is its adjoint: the opposite transform with the opposite normalisation (``numerics/fft.SWAP``),
the input's length restored (``n`` trimmed or padded it), and, for a real input, the real part
(libtorch's convention: the gradient of a complex value is ``dL/dRe + i dL/dIm``)."""
from __future__ import annotations

from ..autograd.forward_ad import tangent
from ..autograd.rows import row
from ..numerics.fft import SWAP


@row("FftC2CBackward0")
def _fft_c2c(F, g, needs, dim, norm, inverse, m, n, onesided):
    """self: the opposite transform of g, normalised the opposite way, refit to the input"""
    return F.fft_fit(F.fft_c2c(g, dim, SWAP[norm], not inverse), dim, m)


@row("FftR2CBackward0")
def _fft_r2c(F, g, needs, dim, norm, inverse, m, n, onesided):
    """self: real part of the adjoint transform of g (one-sided: zero-padded to n first)"""
    if onesided:
        g = F.fft_fit(g, dim, n)
    return F.real_part(F.fft_fit(F.fft_c2c(g, dim, SWAP[norm], not inverse), dim, m))


@row("FftC2RBackward0")
def _fft_c2r(F, g, needs, dim, norm, m, n):
    """self: the one-sided transform of g normalised the opposite way, the frequencies that
    appear twice in the signal doubled, refit to the input"""
    gi = F.fft_r2c(g, dim, SWAP[norm])
    twice = n - gi.shape[dim]
    if twice > 0:
        gi = F.fft_double(gi, dim, 1, twice)
    return F.fft_fit(gi, dim, m)


@row("ViewAsRealBackward0")
def _view_as_real(F, g, needs):
    """self: the pairs of g as complex numbers"""
    return F.view_as_complex(g)


@row("ViewAsComplexBackward0")
def _view_as_complex(F, g, needs):
    """self: the complex g as pairs"""
    return F.view_as_real(g)


@row("ConjBackward0")
def _conj(F, g, needs):
    """self: conj(g)"""
    return F.conj(g)


# Forward mode: every one of these maps is linear, so a tangent goes through the map itself (the
# transpose trick would give the conjugate map for complex values).
@tangent("FftC2CBackward0", "FftR2CBackward0")
def _fft_tangent(F, tans, inputs, outputs, params):
    """the transform of the tangent"""
    dim, norm, inverse, m, n, onesided = params
    t = F.fft_fit(tans[0], dim, n)
    return F.fft_r2c(t, dim, norm) if onesided else F.fft_c2c(t, dim, norm, inverse)


@tangent("FftC2RBackward0")
def _fft_c2r_tangent(F, tans, inputs, outputs, params):
    """the real signal of the tangent's frequencies"""
    dim, norm, m, n = params
    return F.fft_c2r(tans[0], n, dim, norm)


@tangent("ViewAsRealBackward0")
def _view_as_real_tangent(F, tans, inputs, outputs, params):
    """the tangent as pairs"""
    return F.view_as_real(tans[0])


@tangent("ViewAsComplexBackward0")
def _view_as_complex_tangent(F, tans, inputs, outputs, params):
    """the tangent's pairs as complex numbers"""
    return F.view_as_complex(tans[0])


@tangent("ConjBackward0")
def _conj_tangent(F, tans, inputs, outputs, params):
    """the conjugate of the tangent"""
    return F.conj(tans[0])
