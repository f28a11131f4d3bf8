"""Layers libtorch composes from other ops, composed here the same way (so the graph shows the
same nodes): ``nnf_normalize``, ``nnf_lp_pool1d`` / ``nnf_lp_pool2d`` and
``nnf_local_response_norm``."""
from __future__ import annotations

import math

from ..autograd.grad_mode import is_grad_enabled
from .conv import _tuple
from .elementwise import relu
from .pad import nnf_pad
from .pool import nnf_avg_pool2d, nnf_avg_pool3d
from .registry import as_tensor

__all__ = ["nnf_normalize", "nnf_lp_pool1d", "nnf_lp_pool2d", "nnf_local_response_norm"]


def nnf_normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``): unit vectors.
    ``out``: a tensor of the same shape to write the result into (and return), outside
    autograd."""
    input = as_tensor(input)
    if out is not None and is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError("div(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    norm = input.norm(p, dim, True).clamp_min(eps)
    result = input / norm.expand_as(input)
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"nnf_normalize: out has size {list(out.shape)}, but the result has "
                           f"size {list(result.shape)}")
    return out.copy_(result)


def _lp_pool(input, norm_type, kernel, stride, ceil_mode, nd):
    """``(sum over each window of x^p)^(1/p)``: the mean of x^p times the window's size (the
    sign and relu keep a negative mean from a rounding error out of the root)."""
    p = float(norm_type)
    if nd == 1:
        means = nnf_avg_pool2d(input.pow(p).unsqueeze(-2), (1,) + kernel,
                               (1,) + stride, 0, ceil_mode).squeeze(-2)
    else:
        means = nnf_avg_pool2d(input.pow(p), kernel, stride, 0, ceil_mode)
    return (means.sign() * relu(means.abs())).mul(math.prod(kernel)).pow(1.0 / p)


def nnf_lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of ``input`` (N, C, L): the ``norm_type``-norm of each window."""
    kernel = _tuple(kernel_size, 1, "kernel_size")
    stride = kernel if stride is None else _tuple(stride, 1, "stride")
    return _lp_pool(as_tensor(input), norm_type, kernel, stride, ceil_mode, 1)


def nnf_lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling of ``input`` (N, C, H, W): the ``norm_type``-norm of each
    window (``norm_type = 1``: sum pooling; large ``norm_type``: nearly max pooling)."""
    kernel = _tuple(kernel_size, 2, "kernel_size")
    stride = kernel if stride is None else _tuple(stride, 2, "stride")
    return _lp_pool(as_tensor(input), norm_type, kernel, stride, ceil_mode, 2)


def nnf_local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each element by ``(k + alpha * mean of the squares over size neighbouring
    channels) ^ beta`` (the channels dim 1 of an input of 3 or more dims; the mean's window is
    zero-padded at the ends)."""
    input = as_tensor(input)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    size = int(size)
    squares = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if input.ndim == 3:
        padded = nnf_pad(squares.unsqueeze(1), [0, 0, before, after])
        mean = nnf_avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:
        shape = input.shape
        grouped = squares.view(shape[0], 1, shape[1], shape[2], -1)
        padded = nnf_pad(grouped, [0, 0, 0, 0, before, after])
        mean = nnf_avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1).view(*shape)
    return input / mean.mul(alpha).add(k).pow(beta)
