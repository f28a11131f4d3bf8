"""The discrete Fourier transforms (``torch_fft_fft``, ``fft_ifft``, ``fft_rfft``,
``fft_irfft`` and their n-dimensional forms ``fft_fftn``, ``fft_ifftn``, ``fft_rfftn``,
``fft_irfftn``) and the complex views around them (``view_as_real``, ``view_as_complex``,
``real``, ``imag``).

Complex tensors (complex64/complex128) exist for these: the transforms make them, ``real``,
``imag``, ``abs`` and ``view_as_real`` read them. Gradients follow libtorch's convention (the
gradient of a complex value is ``dL/dRe + i dL/dIm``), through the nodes libtorch records:
``FftR2CBackward0``, ``FftC2CBackward0``, ``FftC2RBackward0``, ``ViewAsRealBackward0``,
``ViewAsComplexBackward0``. ``view_as_real`` and ``view_as_complex`` return copies here, not
views.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import fft as _rows  # noqa: F401  (the rows, before NODES is read)
from ..numerics import fft as nfft
from ..numerics.dims import normalize_dim
from .. import dtypes as _dt
from ..tensor import Tensor
from .registry import OPS, as_tensor, default_float, op, recording, wrap


def _norm(norm, fname):
    if norm is None:
        return "backward"
    if norm not in nfft.NORMS:
        raise ValueError(f"{fname}: Invalid normalization mode: {norm!r} (expected "
                         "\"backward\", \"forward\" or \"ortho\")")
    return norm


def _n(n, fname):
    if n is None:
        return None
    if isinstance(n, bool) or not (isinstance(n, (numbers.Integral, np.integer)) or
                                   isinstance(n, float) and n.is_integer()):
        raise TypeError(f"{fname}(): argument 'n' must be an integer, got {n!r}")
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({int(n)}) specified")
    return int(n)


def _input(self, fname, scalar_ok=False):
    """The input as an array: integers and bools become the default float dtype. (A 0-d input
    is an error for the 1-d transforms; the n-d ones transform no dims of it.)"""
    self = as_tensor(self)
    x = self._data
    if x.dtype.kind in "biu":
        x = x.astype(default_float())
    elif x.dtype == np.float16:
        raise RuntimeError(f"{fname}: Unsupported dtype Half")
    if x.ndim == 0 and not scalar_ok:
        raise IndexError(f"{fname}: Dimension specified as -1 but tensor has no dimensions")
    return self, x


def _complex_fft(self, n, dim, norm, inverse, fname):
    self, x = _input(self, fname)
    d = normalize_dim(dim, x.ndim)
    m = x.shape[d]
    n = _n(n, fname) or m
    norm = _norm(norm, fname)
    real = x.dtype.kind != "c"
    out = wrap(nfft.c2c(nfft.fit(x, d, n), d, norm, inverse))
    if recording(self):
        node = "FftR2CBackward0" if real else "FftC2CBackward0"
        record(NODES[node], (self,), (out,), ((d,), norm, inverse, (m,), (n,), False))
    return out


@op("fft_fft", method=False, dims=("dim",))
def fft_fft(self, n=None, dim=-1, norm=None):
    """The discrete Fourier transform along ``dim`` (a complex tensor; a real input counts as
    complex). ``n`` trims or zero-pads the input first; ``norm``: ``"backward"`` (no scaling,
    the default), ``"forward"`` (by ``1/n``) or ``"ortho"`` (by ``1/sqrt(n)``)."""
    return _complex_fft(self, n, dim, norm, False, "fft_fft")


@op("fft_ifft", method=False, dims=("dim",))
def fft_ifft(self, n=None, dim=-1, norm=None):
    """The inverse discrete Fourier transform along ``dim``; ``norm="backward"`` (the default)
    scales by ``1/n``."""
    return _complex_fft(self, n, dim, norm, True, "fft_ifft")


@op("fft_rfft", method=False, dims=("dim",))
def fft_rfft(self, n=None, dim=-1, norm=None):
    """The Fourier transform of a real input along ``dim``: its ``n // 2 + 1`` non-negative
    frequencies (the others are their complex conjugates)."""
    self, x = _input(self, "fft_rfft")
    if x.dtype.kind == "c":
        raise RuntimeError(f"rfft expects a real input tensor, but got "
                           f"{_dt.from_numpy_dtype(x.dtype).word}")
    d = normalize_dim(dim, x.ndim)
    m = x.shape[d]
    n = _n(n, "fft_rfft") or m
    norm = _norm(norm, "fft_rfft")
    out = wrap(nfft.r2c(nfft.fit(x, d, n), d, norm))
    if recording(self):
        record(NODES["FftR2CBackward0"], (self,), (out,),
               ((d,), norm, False, (m,), (n,), True))
    return out


@op("fft_irfft", method=False, dims=("dim",))
def fft_irfft(self, n=None, dim=-1, norm=None):
    """The real signal whose one-sided transform (``fft_rfft``) is ``self``, of length ``n``
    (default ``2 * (m - 1)`` for ``m`` input frequencies)."""
    self, x = _input(self, "fft_irfft")
    d = normalize_dim(dim, x.ndim)
    m = x.shape[d]
    n = _n(n, "fft_irfft") or 2 * (m - 1)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    norm = _norm(norm, "fft_irfft")
    z = x if x.dtype.kind == "c" else x.astype(nfft.complex_of(x.dtype))
    out = wrap(nfft.c2r(nfft.fit(z, d, n // 2 + 1), n, d, norm))
    if recording(self):
        record(NODES["FftC2RBackward0"], (self,), (out,), ((d,), norm, (m,), (n,)))
    return out


# ------------------------------------------------------------------------ n-dimensional forms
def _sizes(s, fname):
    """``s`` as a list of ints (one int counts as a list of one), or None."""
    if s is None:
        return None
    if isinstance(s, np.ndarray):
        s = s.tolist()
    if not isinstance(s, (list, tuple)):
        s = [s]
    out = []
    for v in s:
        if isinstance(v, bool) or not (isinstance(v, (numbers.Integral, np.integer)) or
                                       isinstance(v, float) and v.is_integer()):
            raise TypeError(f"{fname}(): argument 's' must be a sequence of integers, got {s!r}")
        out.append(int(v))
    return out


def _shape_and_dims(x, s, dim, fname):
    """The transformed dims (in the caller's order) and their signal sizes, as libtorch
    resolves ``s`` and ``dim``: ``dim`` defaults to the last ``len(s)`` dims, or all; ``s``
    to the input's sizes (an entry -1 too)."""
    s = _sizes(s, fname)
    if dim is not None:
        dims = [normalize_dim(d, x.ndim) for d in
                (dim.tolist() if isinstance(dim, np.ndarray) else
                 dim if isinstance(dim, (list, tuple)) else [dim])]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"{fname}: FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError(f"{fname}: When given, dim and shape arguments must have the same "
                               f"length (got s of length {len(s)} and dim of length "
                               f"{len(dims)})")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"{fname}: Got shape with {len(s)} values but input tensor only "
                               f"has {x.ndim} dimensions.")
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = list(range(x.ndim))
    if s is None:
        s = [x.shape[d] for d in dims]
    s = [x.shape[d] if v == -1 else v for d, v in zip(dims, s)]
    for v in s:
        if v < 1:
            raise RuntimeError(f"Invalid number of data points ({v}) specified")
    return tuple(dims), tuple(s)


def _as_complex(self, x):
    """A real input promoted to complex as libtorch does for fftn/ifftn/irfftn: a recorded
    copy (``ToCopyBackward0``, whose gradient the engine casts back to the real dtype)."""
    if x.dtype.kind == "c":
        return self, x
    z = x.astype(nfft.complex_of(x.dtype))
    out = wrap(z)
    if recording(self):
        record(NODES["ToCopyBackward0"], (self,), (out,))
    return out, z


def _complex_fftn(self, s, dim, norm, inverse, fname):
    self, x = _input(self, fname, True)
    dims, ns = _shape_and_dims(x, s, dim, fname)
    norm = _norm(norm, fname)
    self, x = _as_complex(self, x)
    ms = tuple(x.shape[d] for d in dims)
    out = wrap(nfft.c2c(nfft.fit(x, dims, ns), dims, norm, inverse))
    if recording(self):
        record(NODES["FftC2CBackward0"], (self,), (out,), (dims, norm, inverse, ms, ns, False))
    return out


@op("fft_fftn", method=False, dims=("dim",))
def fft_fftn(self, s=None, dim=None, norm=None):
    """The discrete Fourier transform over several dims: ``dim`` (default: the last
    ``len(s)`` dims, or all), each trimmed or zero-padded first to its size in ``s`` (-1: keep
    it). ``norm`` scales by the product of the signal sizes as in ``fft_fft``."""
    return _complex_fftn(self, s, dim, norm, False, "fft_fftn")


@op("fft_ifftn", method=False, dims=("dim",))
def fft_ifftn(self, s=None, dim=None, norm=None):
    """The inverse discrete Fourier transform over several dims (``s`` and ``dim`` as in
    ``fft_fftn``); ``norm="backward"`` (the default) scales by one over the signal's size."""
    return _complex_fftn(self, s, dim, norm, True, "fft_ifftn")


@op("fft_rfftn", method=False, dims=("dim",))
def fft_rfftn(self, s=None, dim=None, norm=None):
    """The Fourier transform of a real input over several dims (``s`` and ``dim`` as in
    ``fft_fftn``): the last of ``dim`` keeps its ``n // 2 + 1`` non-negative frequencies."""
    self, x = _input(self, "fft_rfftn", True)
    if x.dtype.kind == "c":
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                           f"{_dt.from_numpy_dtype(x.dtype).word}")
    dims, ns = _shape_and_dims(x, s, dim, "fft_rfftn")
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    norm = _norm(norm, "fft_rfftn")
    ms = tuple(x.shape[d] for d in dims)
    out = wrap(nfft.r2c(nfft.fit(x, dims, ns), dims, norm))
    if recording(self):
        record(NODES["FftR2CBackward0"], (self,), (out,), (dims, norm, False, ms, ns, True))
    return out


@op("fft_irfftn", method=False, dims=("dim",))
def fft_irfftn(self, s=None, dim=None, norm=None):
    """The real signal whose ``fft_rfftn`` is ``self``: of size ``s`` over ``dim`` (default
    ``2 * (m - 1)`` along the last of ``dim`` for ``m`` input frequencies, the input's sizes
    along the others)."""
    self, x = _input(self, "fft_irfftn", True)
    dims, ns = _shape_and_dims(x, s, dim, "fft_irfftn")
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    sizes = _sizes(s, "fft_irfftn")
    n = ns[-1] if sizes is not None and sizes[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    ns = ns[:-1] + (n,)
    norm = _norm(norm, "fft_irfftn")
    self, x = _as_complex(self, x)
    ms = tuple(x.shape[d] for d in dims)
    out = wrap(nfft.c2r(nfft.fit(x, dims, ns[:-1] + (n // 2 + 1,)), n, dims, norm))
    if recording(self):
        record(NODES["FftC2RBackward0"], (self,), (out,), (dims, norm, ms, ns))
    return out


# ------------------------------------------------------------------------------ complex views
@op("view_as_real", method=True)
def view_as_real(self):
    """A complex tensor as a real one with a last dim of 2 (real and imaginary parts); a copy
    here, not a view."""
    x = as_tensor(self)._data
    if x.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    out = wrap(np.stack([x.real, x.imag], axis=-1))
    if recording(self):
        record(NODES["ViewAsRealBackward0"], (self,), (out,))
    return out


@op("view_as_complex", method=True)
def view_as_complex(self):
    """A real tensor whose last dim has size 2 as a complex one (a copy here, not a view)."""
    x = as_tensor(self)._data
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {_dt.from_numpy_dtype(x.dtype).word}")
    if x.ndim == 0 or x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    out = wrap((x[..., 0] + 1j * x[..., 1]).astype(nfft.complex_of(x.dtype)))
    if recording(self):
        record(NODES["ViewAsComplexBackward0"], (self,), (out,))
    return out


@op("real", method=False)
def real(self):
    """The real part of a complex tensor (a real tensor: itself)."""
    self = as_tensor(self)
    if self._data.dtype.kind != "c":
        return self
    return OPS["select"].fn(view_as_real(self), -1, 0)


@op("imag", method=False)
def imag(self):
    """The imaginary part of a complex tensor."""
    self = as_tensor(self)
    if self._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return OPS["select"].fn(view_as_real(self), -1, 1)


@op("conj")
def conj(self):
    """The complex conjugate (a copy here, not a lazy view); a real tensor is returned as is."""
    self = as_tensor(self)
    if self._data.dtype.kind != "c":
        return self
    out = wrap(np.conj(self._data))
    if recording(self):
        record(NODES["ConjBackward0"], (self,), (out,))
    return out


# x.real and x.imag are properties, as in PyTorch (and fields from R: x$real)
Tensor.real = property(real, doc="The real part (a real tensor: itself).")  # type: ignore[assignment]  # noqa: E501
Tensor.imag = property(imag, doc="The imaginary part of a complex tensor.")  # type: ignore[assignment]  # noqa: E501


def real_dtype(t):
    """The real dtype of a complex tensor's parts."""
    return nfft.real_of(t._data.dtype) if t._data.dtype.kind == "c" else t._data.dtype
