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


def _axes(dim):
    """One dim or several (the n-dimensional transforms pass a tuple)."""
    return tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)


def fit(x, dim, length):
    """``x`` trimmed or zero-padded along ``dim`` to ``length`` (what ``n`` does to an input);
    ``dim`` and ``length`` may be tuples (one length per dim, what ``s`` does)."""
    if isinstance(dim, (tuple, list)):
        for d, size in zip(dim, length):
            x = fit(x, d, size)
        return x
    have = x.shape[dim]
    if have == length:
        return x
    if have > length:
        return x[(slice(None),) * dim + (slice(0, length),)]
    widths = [(0, 0)] * x.ndim
    widths[dim] = (0, length - have)
    return np.pad(x, widths)


def c2c(x, dim, norm, inverse):
    """The complex transform of ``x`` along ``dim`` (one dim or a tuple; inverse: the positive
    exponent). No dims at all: ``x`` itself as complex, as libtorch does."""
    axes = _axes(dim)
    if not axes:
        return x.astype(complex_of(x.dtype))
    out = (np.fft.ifftn if inverse else np.fft.fftn)(x, axes=axes, norm=norm)
    return out.astype(complex_of(x.dtype), copy=False)


def r2c(x, dim, norm):
    """The one-sided transform of the real ``x``: the first ``n // 2 + 1`` frequencies (of the
    last dim when ``dim`` is a tuple; the other dims are transformed in full)."""
    out = np.fft.rfftn(x, axes=_axes(dim), norm=norm)
    return out.astype(complex_of(x.dtype), copy=False)


def c2r(x, n, dim, norm):
    """The real signal whose one-sided transform is ``x`` (Hermitian): of length ``n`` along
    the last of ``dim``, the other dims (a tuple) keeping ``x``'s sizes."""
    real = np.float32 if complex_of(x.dtype) == np.complex64 else np.float64
    axes = _axes(dim)
    sizes = [x.shape[d] for d in axes[:-1]] + [n]
    return np.fft.irfftn(x, s=sizes, axes=axes, norm=norm).astype(real, copy=False)


def real_of(dt):
    return np.dtype(np.float32) if dt == np.complex64 else np.dtype(np.float64)
