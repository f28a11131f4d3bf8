"""Normalization and dropout for images: ``nnf_group_norm``, ``nnf_instance_norm``,
``nnf_dropout2d``, ``nnf_dropout3d`` and the alpha dropouts.

Group normalization records libtorch's ``NativeGroupNormBackward0`` (formula in
``derivatives/norm.py``). Instance normalization is, as in libtorch, batch normalization of the
input viewed as one sample of ``N * C`` channels (``ViewBackward0`` over
``NativeBatchNormBackward0``, the affine parameters repeated per sample), its running
statistics the batch's average. Channel dropout multiplies by a scaled Bernoulli mask of shape
``(N, C, 1, ...)`` (``MulBackward0``).
"""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..autograd.graph import bump_version
from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import norm as _derivatives_norm  # noqa: F401  (registers the row)
from ..numerics import draws
from ..numerics.warn import warn
from ..tensor import Tensor
from .arith import mul
from .nnf_layers import _float_input, _in_f64, _same_dtype, _three_inputs, nnf_batch_norm
from .random_state import engine
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_group_norm", "nnf_instance_norm", "nnf_dropout2d", "nnf_dropout3d",
           "nnf_alpha_dropout", "nnf_feature_alpha_dropout"]

_SELU_ALPHA = 1.7580993408473766  # SELU's scale * alpha: where its negative side saturates


def nnf_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize ``input`` (N, C, ...) over each group of ``C / num_groups`` channels and the
    spatial dims (biased variance), then ``* weight + bias`` per channel."""
    input = _float_input(input, "nnf_group_norm")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, c = input.shape[:2]
    g = int(num_groups)
    if g <= 0 or c % g:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={g}")
    weight = None if weight is None else as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {what} to be a vector of size equal to the number of "
                               f"channels in input, but got {what} of shape "
                               f"{list(t.shape)} and input of shape {list(input.shape)}")
    _same_dtype(input, (weight, bias), "group_norm")
    x = _in_f64(input._data).reshape(n, g, -1)
    centered = x - x.mean(axis=2, keepdims=True)
    y = centered / np.sqrt((centered * centered).mean(axis=2, keepdims=True) + eps)
    y = y.reshape(input.shape)
    bshape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = y * _in_f64(weight._data).reshape(bshape)
    if bias is not None:
        y = y + _in_f64(bias._data).reshape(bshape)
    out = wrap(np.asarray(y, dtype=input._data.dtype))
    if recording(input, *(t for t in (weight, bias) if t is not None)):
        record(NODES["NativeGroupNormBackward0"], _three_inputs(input, weight, bias), (out,),
               params=(g, float(eps), weight is not None, bias is not None))
    return out


def nnf_instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                      use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalize each channel of each sample of ``input`` (N, C, ...) over its spatial dims.
    With ``use_input_stats = FALSE``, by ``running_mean`` / ``running_var`` instead; with them
    given and ``use_input_stats``, they are updated by ``momentum`` with the batch's average
    statistics."""
    input = _float_input(input, "nnf_instance_norm")
    if input.ndim < 3:
        raise ValueError(f"expected at least 3D input (got {input.ndim}D input)")
    n, c = input.shape[:2]
    rm = None if running_mean is None else as_tensor(running_mean)
    rv = None if running_var is None else as_tensor(running_var)

    def per_sample(t):
        return None if t is None else as_tensor(t).repeat(n)
    stats = [None if t is None else Tensor._make(np.tile(t._data, n)) for t in (rm, rv)]
    shaped = input.reshape(1, n * c, *input.shape[2:])
    out = nnf_batch_norm(shaped, stats[0], stats[1], per_sample(weight), per_sample(bias),
                         use_input_stats, momentum, eps)
    if use_input_stats:
        with with_no_grad():
            for running, batch in ((rm, stats[0]), (rv, stats[1])):
                if running is not None:
                    running._data[...] = batch._data.reshape(n, c).mean(axis=0).astype(
                        running._data.dtype)
                    bump_version(running)
    return out.view(*input.shape)


def _channel_dropout(input, p, training, inplace, nd, name):
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    input = _float_input(input, name)
    dim = input.ndim
    if dim not in (nd + 1, nd + 2):
        # libtorch still accepts these (plain element dropout on a 2-d input), with a warning
        warn(f"{name}: Received a {dim}-D input to {name}, which is deprecated and "
             f"will be an error in a future release; {name} is channel-wise dropout "
             f"for {nd + 1}D or {nd + 2}D inputs (use dropout for others).",
             stacklevel=3)
    if nd == 2 and dim == 3:
        warn("dropout2d: Received a 3D input to dropout2d and assuming that "
             "channel-wise 1D dropout behavior is desired: the input is taken as "
             "(N, C, L). Use dropout1d for that; a future release will take it as "
             "(C, H, W).", stacklevel=3)
    if dim < (1 if nd == 3 else 2):  # (dropout3d adds a dim first)
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    # libtorch's feature dropout: one draw per (dim 0, dim 1) pair. dropout3d adds a batch dim
    # to any input that is not 5-d first; dropout2d takes the input as it is (a 3-d input is
    # (N, C, L), as the warning says)
    if nd == 3 and dim != 5:
        shape = (1, input.shape[0]) + (1,) * (dim - 1)
    else:
        shape = input.shape[:2] + (1,) * (dim - 2)
    if p == 1.0:
        mask = Tensor._make(np.zeros(shape, dt))
    else:
        # (libtorch: a noise tensor of this shape, bernoulli_(1 - p): a float64 uniform per
        # element, kept when below 1 - p, as nnf_dropout draws its mask)
        keep = draws.unit_float64(engine(), int(np.prod(shape))).reshape(shape) < 1.0 - p
        mask = Tensor._make((keep / (1.0 - p)).astype(dt))
    if nd == 3 and dim != 5:
        mask = Tensor._make(mask._data.reshape(mask._data.shape[1:]))
    return input.mul_(mask) if inplace else mul(input, mask)


def nnf_dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``input`` (N, C, H, W) or (N, C, L) with probability ``p`` and
    scale the others by ``1 / (1 - p)`` during training (one draw per sample and channel, the
    first two dims, as libtorch)."""
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")


def nnf_dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``input`` (N, C, D, H, W) or (C, D, H, W) (any input that is not
    5-d is taken as unbatched); see ``nnf_dropout2d``."""
    return _channel_dropout(input, p, training, inplace, 3, "dropout3d")




def nnf_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation value
    and the result is scaled and shifted so that inputs of mean 0 and variance 1 keep them
    (``input * a * mask + b``, libtorch's ``a`` and ``b``). The identity unless ``training``."""
    return _alpha_dropout(input, p, training, inplace, False, "nnf_alpha_dropout")


def nnf_feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``nnf_alpha_dropout`` of whole channels: one mask value per (N, C) entry of an input
    of 2 or more dims (PyTorch's ``feature_alpha_dropout``)."""
    return _alpha_dropout(input, p, training, inplace, True, "nnf_feature_alpha_dropout")


def _alpha_dropout(input, p, training, inplace, feature, name):
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    input = _float_input(input, name)
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else mul(input, 0.0)
    dt = input._data.dtype
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    keep = (draws.unit_float64(engine(), int(np.prod(shape))).reshape(shape) <
            1.0 - p).astype(np.float64)
    a = 1.0 / np.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    noise = Tensor._make((keep * a).astype(dt))
    shift = Tensor._make(((keep - 1) * _SELU_ALPHA * a + _SELU_ALPHA * a * p).astype(dt))
    if inplace:
        return input.mul_(noise).add_(shift)
    return mul(input, noise) + shift
