"""Rows of the Fourier transforms and complex views (``ops/fft.py``). Each transform's gradient
is its adjoint: the opposite transform with the opposite normalisation (``numerics/fft.SWAP``),
the input's length restored (``n`` trimmed or padded it), and, for a real input, the real part
(libtorch's convention: the gradient of a complex value is ``dL/dRe + i dL/dIm``)."""
from __future__ import annotations

from ..autograd.forward_ad import tangent
from ..autograd.rows import row
from ..numerics.fft import SWAP


# The transforms record tuples: ``dims`` (the transformed dims, in the caller's order), ``ms``
# (the input's sizes along them) and ``ns`` (the signal sizes), so one row serves the 1-d and the
# n-dimensional forms, as in libtorch.
@row("FftC2CBackward0")
def _fft_c2c(F, g, needs, dims, norm, inverse, ms, ns, onesided):
    """self: the opposite transform of g, normalised the opposite way, refit to the input"""
    return F.fft_fit(F.fft_c2c(g, dims, SWAP[norm], not inverse), dims, ms)


@row("FftR2CBackward0")
def _fft_r2c(F, g, needs, dims, norm, inverse, ms, ns, onesided):
    """self: real part of the adjoint transform of g (one-sided: the last dim zero-padded to
    its signal size first)"""
    if onesided:
        g = F.fft_fit(g, dims[-1], ns[-1])
    return F.real_part(F.fft_fit(F.fft_c2c(g, dims, SWAP[norm], not inverse), dims, ms))


@row("FftC2RBackward0")
def _fft_c2r(F, g, needs, dims, norm, ms, ns):
    """self: the one-sided transform of g normalised the opposite way, the frequencies that
    appear twice in the signal doubled, refit to the input"""
    gi = F.fft_r2c(g, dims, SWAP[norm])
    twice = ns[-1] - gi.shape[dims[-1]]
    if twice > 0:
        gi = F.fft_double(gi, dims[-1], 1, twice)
    return F.fft_fit(gi, dims, ms)


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
    dims, norm, inverse, ms, ns, onesided = params
    t = F.fft_fit(tans[0], dims, ns)
    return F.fft_r2c(t, dims, norm) if onesided else F.fft_c2c(t, dims, norm, inverse)


@tangent("FftC2RBackward0")
def _fft_c2r_tangent(F, tans, inputs, outputs, params):
    """the real signal of the tangent's frequencies"""
    dims, norm, ms, ns = params
    t = F.fft_fit(tans[0], dims, ns[:-1] + (ns[-1] // 2 + 1,))
    return F.fft_c2r(t, ns[-1], dims, norm)


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
