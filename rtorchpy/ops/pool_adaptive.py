"""Adaptive pooling and max-unpooling: ``nnf_adaptive_avg_pool1d/2d/3d``,
``nnf_adaptive_max_pool1d/2d/3d`` and ``nnf_max_unpool1d/2d/3d``.

Adaptive average pooling is separable: one small averaging matrix per pooled dim
(``AdaptiveAvgPool2DBackward0``; its gradient applies the transposes, an op with a row of its
own, ``AdaptiveAvgPool2DBackwardBackward0``). Adaptive max pooling gathers each window at its
widest and records the maxima's flat indices, as ``nnf_max_pool2d`` does. Unpooling puts each
value at its index (``MaxUnpool2DBackward0``; the gradient gathers). The 1-d forms work on a
unit dim added before the last, as libtorch's (``SqueezeBackward1``).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import pool as _derivatives_pool  # noqa: F401  (registers the rows)
from ..numerics import pool as pool_arrays
from ..numerics.format import type_word_for
from ..tensor import Tensor
from .conv import _tuple
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_adaptive_avg_pool1d", "nnf_adaptive_avg_pool2d", "nnf_adaptive_avg_pool3d",
           "nnf_adaptive_max_pool1d", "nnf_adaptive_max_pool2d", "nnf_adaptive_max_pool3d",
           "nnf_max_unpool1d", "nnf_max_unpool2d", "nnf_max_unpool3d"]


def apply_matrices(x, mats, node, partner):
    """The separable linear map ``mats`` on ``x``'s trailing dims, recording ``node``, whose
    gradient is the transposed map recorded as ``partner`` (and the other way round)."""
    out = wrap(pool_arrays.apply_matrices(x._data, mats))
    if recording(x):
        record(NODES[node], (x,), (out,), params=(mats, node, partner))
    return out


def _adaptive_input(input, nd, output_size, name):
    input = as_tensor(input)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                           f"{list(input.shape)}")
    for d in range(1 if input.ndim == nd + 2 else 0, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(input._data.dtype)}\'')
    if isinstance(output_size, Tensor):
        output_size = output_size._data.tolist()
    if output_size is None or isinstance(output_size, (numbers.Number, np.number)):
        output_size = [output_size] * nd
    output_size = list(output_size)
    if len(output_size) == 1:
        output_size = output_size * nd
    if len(output_size) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    sizes = input.shape[-nd:]
    out = tuple(s if o is None else int(o) for s, o in zip(sizes, output_size))
    if any(o < 0 for o in out):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 "
                           f"but received {list(out)}")
    return input, out


def _adaptive_avg(input, nd, output_size, name):
    input, out = _adaptive_input(input, nd, output_size, name)
    if all(o == 1 for o in out):  # libtorch takes the mean then (MeanBackward1)
        return input.mean(tuple(range(input.ndim - nd, input.ndim)), True)
    dt = input._data.dtype
    mats = tuple(pool_arrays.adaptive_avg_matrix(s, o, dt)
                 for s, o in zip(input.shape[-nd:], out))
    return apply_matrices(input, mats, f"AdaptiveAvgPool{nd}DBackward0",
                          f"AdaptiveAvgPool{nd}DBackwardBackward0")


def _adaptive_max(input, nd, output_size, return_indices, name):
    input, out = _adaptive_input(input, nd, output_size, name)
    values, indices = pool_arrays.adaptive_max_pool(input._data, out)
    res = wrap(values)
    if recording(input):
        record(NODES[f"AdaptiveMaxPool{nd}DBackward0"], (input,), (res,),
               params=(indices, input.shape, nd))
    return (res, wrap(indices)) if return_indices else res


def _one_d(fn, input, output_size, *rest):
    input = as_tensor(input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive pooling: Expected 2D or 3D input, but got "
                           f"{list(input.shape)}")
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    res = fn(input.unsqueeze(-2), (1, size), *rest)
    if isinstance(res, tuple):
        return tuple(r.squeeze(-2) for r in res)
    return res.squeeze(-2)


def nnf_adaptive_avg_pool1d(input, output_size):
    """Average pooling of ``input`` (N, C, L) or (C, L) to length ``output_size``, windows
    chosen to cover the input evenly."""
    return _one_d(lambda x, o: _adaptive_avg(x, 2, o, "adaptive_avg_pool1d"), input,
                  output_size)


def nnf_adaptive_avg_pool2d(input, output_size):
    """Average pooling of ``input`` (N, C, H, W) or (C, H, W) to ``output_size`` (a number, or
    one per dim; ``None``/``NULL`` keeps that dim's size): window ``i`` of a dim of size S
    pooled to O spans ``[floor(i S / O), ceil((i + 1) S / O))``."""
    return _adaptive_avg(input, 2, output_size, "adaptive_avg_pool2d")


def nnf_adaptive_avg_pool3d(input, output_size):
    """3-d adaptive average pooling of ``input`` (N, C, D, H, W); see
    ``nnf_adaptive_avg_pool2d``."""
    return _adaptive_avg(input, 3, output_size, "adaptive_avg_pool3d")


def nnf_adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of ``input`` (N, C, L) to length ``output_size``; see
    ``nnf_adaptive_max_pool2d``."""
    return _one_d(lambda x, o, r: _adaptive_max(x, 2, o, r, "adaptive_max_pool1d"), input,
                  output_size, return_indices)


def nnf_adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of ``input`` (N, C, H, W) to ``output_size``, windows as
    ``nnf_adaptive_avg_pool2d``'s; ``return_indices``: also the flat indices of the maxima."""
    return _adaptive_max(input, 2, output_size, return_indices, "adaptive_max_pool2d")


def nnf_adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-d adaptive max pooling; see ``nnf_adaptive_max_pool2d``."""
    return _adaptive_max(input, 3, output_size, return_indices, "adaptive_max_pool3d")


# ------------------------------------------------------------------------------ unpooling

def _unpool(input, indices, nd, kernel_size, stride, padding, output_size):
    input, indices = as_tensor(input), as_tensor(indices)
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{type_word_for(indices._data.dtype)}")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    kernel = _tuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None else _tuple(stride, nd, "stride")
    padding = _tuple(padding, nd, "padding")
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in
                    zip(input.shape[-nd:], stride, padding, kernel))
    if output_size is None:
        sizes = default
    else:
        if isinstance(output_size, Tensor):
            output_size = output_size._data.tolist()
        sizes = tuple(int(v) for v in output_size)[-nd:]
        for d, (want, base, s) in enumerate(zip(sizes, default, stride)):
            if not base - s < want < base + s:
                raise RuntimeError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be '
                                   f"between {base - s + 1} and {base + s - 1})")
    idx = indices._data
    plane = math.prod(sizes)
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        bad = idx.max() if idx.max() >= plane else idx.min()
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, sizes))})")
    out = wrap(pool_arrays.max_unpool(input._data, idx, nd, sizes))
    if recording(input):
        record(NODES[f"MaxUnpool{nd}DBackward0"], (input,), (out,), params=(idx, nd))
    return out


def nnf_max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``nnf_max_pool1d``: zeros, with each value of ``input`` at its index
    (from ``nnf_max_pool1d(return_indices = TRUE)``); see ``nnf_max_unpool2d``."""
    input, indices = as_tensor(input), as_tensor(indices)
    k, s, p = (_tuple(v, 1, w)[0] if v is not None else None for v, w in
               ((kernel_size, "kernel_size"), (stride, "stride"), (padding, "padding")))
    size = None if output_size is None else (1, list(output_size)[-1])
    out = _unpool(input.unsqueeze(-2), indices.unsqueeze(-2), 2, (1, k),
                  None if s is None else (1, s), (0, p), size)
    return out.squeeze(-2)


def nnf_max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``nnf_max_pool2d``: zeros of spatial size ``output_size`` (default
    ``(in - 1) stride - 2 padding + kernel_size``), each value of ``input`` put at its flat
    index in its plane (``indices``, from ``nnf_max_pool2d(return_indices = TRUE)``)."""
    return _unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def nnf_max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """3-d max-unpooling; see ``nnf_max_unpool2d``."""
    return _unpool(input, indices, 3, kernel_size, stride, padding, output_size)
