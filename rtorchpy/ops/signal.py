"""Signal helpers that make new tensors: the window functions (``torch_hann_window``,
``torch_hamming_window``, ``torch_blackman_window``, ``torch_bartlett_window``,
``torch_kaiser_window``) and the sample frequencies of a discrete Fourier transform
(``torch_fft_fftfreq``, ``torch_fft_rfftfreq``).

The cosine and triangular windows follow libtorch's order of operations in the requested dtype
(with float32 cosines correctly rounded, the same on every CPU; libtorch's vectorised cosine may
differ from them in the last bit). The Kaiser window is computed in float64 and rounded once.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes as _dt
from ..numerics import rounded
from ..tensor import Tensor

__all__ = [
    "torch_hann_window", "torch_hamming_window", "torch_blackman_window",
    "torch_bartlett_window", "torch_kaiser_window", "torch_fft_fftfreq", "torch_fft_rfftfreq",
]


def _length(value, fname, arg="window_length"):
    if isinstance(value, Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not (
            isinstance(value, (numbers.Integral, np.integer))
            or isinstance(value, float) and value.is_integer()):
        raise TypeError(f"{fname}(): argument '{arg}' must be an integer, got {value!r}")
    if value < 0:
        raise RuntimeError(f"{fname} requires non-negative {arg}, got {arg}={int(value)}")
    return int(value)


def _window_dtype(dtype, fname):
    d = _dt.as_dtype(dtype) if dtype is not None else _dt.torch_get_default_dtype()
    if not d.is_floating_point:
        raise RuntimeError(f"{fname} expects floating point dtypes, got: {d!r}")
    return d.numpy


def _finish(values, dtype, requires_grad):
    t = Tensor._make(np.ascontiguousarray(values, dtype=dtype))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_device(device):
    if device is not None and str(device).lower() != "cpu":
        raise RuntimeError(f"rtorchpy computes on the CPU only; got device {device!r}")


def _steps(n, periodic, scale, dt):
    """``k * (scale / (N - 1))`` for ``k = 0..n-1`` in the result dtype ``dt``, as libtorch
    computes it (the factor rounded to ``dt`` first). A periodic window is the symmetric window
    of length ``n + 1`` without its last value."""
    full = n + 1 if periodic else n
    return np.arange(n, dtype=dt) * dt.type(scale / (full - 1))


def _cos(x):
    return rounded.cos(x)  # float32: correctly rounded on every CPU


def _cosine_sum(fname, window_length, periodic, terms, dtype, device, requires_grad):
    """``alpha - beta cos(...)`` (Hann, Hamming) or Blackman's three terms, in ``dt``, in
    libtorch's order of operations."""
    _check_device(device)
    n = _length(window_length, fname)
    dt = _window_dtype(dtype, fname)
    if n <= 1:
        return _finish(np.ones(n), dt, requires_grad)
    if terms == "blackman":
        x = _steps(n, bool(periodic), math.pi, dt)
        w = (_cos(x * dt.type(4)) * dt.type(0.08) - _cos(x * dt.type(2)) * dt.type(0.5)
             + dt.type(0.42))
    else:
        alpha, beta = terms
        x = _steps(n, bool(periodic), 2.0 * math.pi, dt)
        w = _cos(x) * dt.type(-beta) + dt.type(alpha)
    return _finish(w, dt, requires_grad)


def torch_hann_window(window_length, periodic=True, dtype=None, layout=None, device=None,
                      requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))``, ``k = 0..N-1``. With
    ``periodic=True`` (the default, for spectral analysis) it is the symmetric window of length
    ``window_length + 1`` without its last value."""
    return _cosine_sum("hann_window", window_length, periodic, (0.5, 0.5), dtype, device,
                       requires_grad)


def torch_hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, dtype=None,
                         layout=None, device=None, requires_grad=False):
    """The generalised Hamming window ``alpha - beta cos(2 pi k / (N - 1))``."""
    return _cosine_sum("hamming_window", window_length, periodic, (float(alpha), float(beta)),
                       dtype, device, requires_grad)


def torch_blackman_window(window_length, periodic=True, dtype=None, layout=None, device=None,
                          requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``."""
    return _cosine_sum("blackman_window", window_length, periodic, "blackman", dtype, device,
                       requires_grad)


def torch_bartlett_window(window_length, periodic=True, dtype=None, layout=None, device=None,
                          requires_grad=False):
    """The triangular Bartlett window ``1 - |2 k / (N - 1) - 1|``."""
    _check_device(device)
    n = _length(window_length, "bartlett_window")
    dt = _window_dtype(dtype, "bartlett_window")
    if n <= 1:
        return _finish(np.ones(n), dt, requires_grad)
    w = _steps(n, bool(periodic), 2.0, dt)
    # the second half falls again: 2 - w (libtorch's order of operations, in dt)
    first = ((n + (1 if periodic else 0) - 1) >> 1) + 1
    w[first:] = dt.type(2) - w[first:]
    return _finish(w, dt, requires_grad)


def torch_kaiser_window(window_length, periodic=True, beta=12.0, dtype=None, layout=None,
                        device=None, requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - ((k - m) / m)^2)) / I0(beta)``, ``m = (N - 1) / 2``,
    with ``I0`` the modified Bessel function of order zero."""
    _check_device(device)
    n = _length(window_length, "kaiser_window")
    dt = _window_dtype(dtype, "kaiser_window")
    beta = float(beta)
    if n <= 1:
        return _finish(np.ones(n), dt, requires_grad)
    full = n + 1 if periodic else n
    k = np.arange(n, dtype=np.float64)
    m = (full - 1) / 2.0
    inside = np.clip(1.0 - ((k - m) / m) ** 2, 0.0, None)
    return _finish(np.i0(beta * np.sqrt(inside)) / np.i0(beta), dt, requires_grad)


def _spacing(d):
    if isinstance(d, Tensor) and d.numel() == 1:
        d = d.item()
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Real, np.number)):
        raise TypeError(f"fftfreq(): argument 'd' must be a number, got {d!r}")
    return float(d)


def torch_fft_fftfreq(n, d=1.0, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of a length-``n`` discrete Fourier transform with sample spacing
    ``d``: ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)``."""
    _check_device(device)
    n = _length(n, "fft_fftfreq", "n")
    d = _spacing(d)
    dt = _window_dtype(dtype, "fft_fftfreq")
    k = np.arange(n, dtype=np.float64)
    k[(n + 1) // 2:] -= n
    return _finish(_scaled(k, n, d, dt), dt, requires_grad)


def torch_fft_rfftfreq(n, d=1.0, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of a length-``n`` real Fourier transform:
    ``[0, 1, ..., floor(n/2)] / (d n)``."""
    _check_device(device)
    n = _length(n, "fft_rfftfreq", "n")
    d = _spacing(d)
    dt = _window_dtype(dtype, "fft_rfftfreq")
    k = np.arange(n // 2 + 1, dtype=np.float64)
    return _finish(_scaled(k, n, d, dt), dt, requires_grad)


def _scaled(k, n, d, dt):
    # libtorch multiplies by the reciprocal 1 / (n d), rounded to the result's dtype (dividing
    # would differ in the last bit)
    with np.errstate(divide="ignore", invalid="ignore"):  # n d = 0: inf, as in C (0 * inf: NaN)
        return k.astype(dt) * dt.type(np.float64(1.0) / np.float64(n * d))
