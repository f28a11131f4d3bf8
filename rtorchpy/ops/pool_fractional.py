"""Fractional max pooling (``nnf_fractional_max_pool2d/3d``): max pooling over windows of a
fixed size whose starts advance by pseudo-random steps, so that an input of any size pools to
``output_size`` (or ``output_ratio`` times the input's). One uniform sample per (batch, channel,
pooled dim) places the windows: ``_random_samples``, or drawn as ``torch_rand(N, C, nd)`` of the
input's dtype from the global generator (as PyTorch draws them, so a seed gives PyTorch's
windows). Nodes ``FractionalMaxPool2DBackward0`` / ``FractionalMaxPool3DBackward0``: the
gradient goes to each window's maximum, as max pooling's does."""
from __future__ import annotations

import numbers

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import pool as _derivatives_pool  # noqa: F401  (registers the rows)
from ..numerics import pool as pool_arrays
from ..numerics.format import type_word_for
from ..tensor import Tensor
from .creation import torch_rand
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_fractional_max_pool2d", "nnf_fractional_max_pool3d"]

_WORDS = {2: ("height", "width"), 3: ("time", "height", "width")}


def _ints(value, nd, what, name):
    """An int or ``nd`` ints (R's whole doubles included) as a tuple."""
    if isinstance(value, Tensor):
        value = value._data.tolist()
    values = [value] * nd if isinstance(value, numbers.Number) else list(value)
    if len(values) == 1:
        values = values * nd
    if len(values) != nd or any(isinstance(v, bool) or not float(v).is_integer()
                                for v in values):
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of Ints")
    return tuple(int(v) for v in values)


def _output_size(input, nd, output_size, output_ratio, name):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is not None:
        return _ints(output_size, nd, "output_size", name)
    ratio = output_ratio._data.tolist() if isinstance(output_ratio, Tensor) else output_ratio
    ratio = [ratio] * nd if isinstance(ratio, numbers.Number) else list(ratio)
    if len(ratio) == 1:
        ratio = ratio * nd
    if len(ratio) != nd:
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of "
                         "Ints.")
    if input.ndim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got {-nd})")
    return tuple(int(s * float(r)) for s, r in zip(input.shape[-nd:], ratio))


def _fractional(input, nd, kernel_size, output_size, output_ratio, return_indices, samples):
    name = f"fractional_max_pool{nd}d"
    where = name if nd == 2 else name + "_out"
    input = as_tensor(input)
    out = _output_size(input, nd, output_size, output_ratio, name)
    kernel = _ints(kernel_size, nd, "kernel_size", name)
    if samples is None:
        if input.ndim < nd + 1:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input.ndim}, {input.ndim - 1}], but got {-(nd + 1)})")
        batch = 1 if input.ndim == nd + 1 else input.shape[0]
        samples = torch_rand(batch, input.shape[-nd - 1], nd, dtype=input.dtype)
    samples = as_tensor(samples)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(input.ndim - nd - 1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(input._data.dtype)}\'')
    if samples._data.dtype != input._data.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batched = input.ndim == nd + 2
    x = input._data if batched else input._data[None]
    n, c = x.shape[:2]
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{name}: kernel_size must be greater than zero, but got "
                           f"{list(kernel)}")
    sizes = x.shape[2:]
    # libtorch's checks: in 2-d the last window may end at the edge, in 3-d it must end
    # before it; 3-d checks time, then width, then height
    order = (0, 1) if nd == 2 else (0, 2, 1)
    for d in order:
        word, s, k, o = _WORDS[nd][d], sizes[d], kernel[d], out[d]
        if o + k - 1 > s or (nd == 3 and o + k - 1 == s):
            raise RuntimeError(f"{where}(): pool {word} {k} too large relative to input {word} "
                               f"{s}")
    u = samples._data[:n]
    # libtorch's order of the samples: (width, height) in 2-d, (time, height, width) in 3-d
    which = (1, 0) if nd == 2 else (0, 1, 2)
    starts = [pool_arrays.fractional_starts(u[:, :, which[d]], sizes[d], out[d], kernel[d])
              for d in range(nd)]
    values, indices = pool_arrays.fractional_max_pool(x, starts, kernel)
    if not batched:
        values, indices = values[0], indices[0]
    res = wrap(values)
    if recording(input):
        record(NODES[f"FractionalMaxPool{nd}DBackward0"], (input,), (res,),
               params=(indices, input.shape, nd))
    return (res, wrap(indices)) if return_indices else res


def nnf_fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                              return_indices=False, _random_samples=None):
    """Fractional max pooling of ``input`` (N, C, H, W) or (C, H, W) with windows of
    ``kernel_size`` to ``output_size`` (oH, oW), or to ``output_ratio`` (in (0, 1)) times the
    input's size. ``_random_samples`` (N, C, 2) in [0, 1) fix the windows (default: drawn).
    ``return_indices``: also the flat index of each maximum in its plane (for
    ``nnf_max_unpool2d``)."""
    return _fractional(input, 2, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def nnf_fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                              return_indices=False, _random_samples=None):
    """Fractional max pooling of ``input`` (N, C, T, H, W) or (C, T, H, W) to ``output_size``
    (oT, oH, oW) or ``output_ratio``; ``_random_samples`` (N, C, 3). See
    ``nnf_fractional_max_pool2d``."""
    return _fractional(input, 3, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)
