"""The discrete Fourier transforms on arrays (NumPy's pocketfft), with libtorch's normalisation
modes and result dtypes: float32 and complex64 inputs give complex64 (NumPy 1 computes in
complex128; the result is rounded back), everything else complex128."""
from __future__ import annotations

import numpy as np

NORMS = ("backward", "forward", "ortho")
# the adjoint of a transform normalised one way is the opposite transform normalised the other
SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def complex_of(dt):
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64, np.float16) else \
        np.dtype(np.complex128)


def fit(x, dim, length):
    """``x`` trimmed or zero-padded along ``dim`` to ``length`` (what ``n`` does to an input)."""
    have = x.shape[dim]
    if have == length:
        return x
    if have > length:
        return x[(slice(None),) * dim + (slice(0, length),)]
    widths = [(0, 0)] * x.ndim
    widths[dim] = (0, length - have)
    return np.pad(x, widths)


def c2c(x, dim, norm, inverse):
    """The complex transform of ``x`` along ``dim`` (inverse: the positive exponent)."""
    out = (np.fft.ifft if inverse else np.fft.fft)(x, axis=dim, norm=norm)
    return out.astype(complex_of(x.dtype), copy=False)


def r2c(x, dim, norm):
    """The one-sided transform of the real ``x``: the first ``n // 2 + 1`` frequencies."""
    return np.fft.rfft(x, axis=dim, norm=norm).astype(complex_of(x.dtype), copy=False)


def c2r(x, n, dim, norm):
    """The real signal of length ``n`` whose one-sided transform is ``x`` (Hermitian)."""
    real = np.float32 if complex_of(x.dtype) == np.complex64 else np.float64
    return np.fft.irfft(x, n=n, axis=dim, norm=norm).astype(real, copy=False)


def real_of(dt):
    return np.dtype(np.float32) if dt == np.complex64 else np.dtype(np.float64)
