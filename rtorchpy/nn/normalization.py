"""Normalization layers: ``nn_layer_norm`` and ``nn_batch_norm1d``."""
from __future__ import annotations

import numpy as np

from ..autograd.graph import bump_version
from ..numerics.args import size
from ..ops.creation import torch_ones, torch_zeros
from ..ops.nnf import nnf_batch_norm, nnf_group_norm, nnf_instance_norm, nnf_layer_norm
from ..tensor import Tensor
from .module import nn_module, nn_parameter

__all__ = ["nn_layer_norm", "nn_batch_norm1d", "nn_batch_norm2d", "nn_batch_norm3d",
           "nn_group_norm", "nn_instance_norm1d", "nn_instance_norm2d", "nn_instance_norm3d"]


class nn_layer_norm(nn_module):
    """Normalizes over the last ``len(normalized_shape)`` dims, then (``elementwise_affine``)
    multiplies by ``weight`` (ones) and adds ``bias`` (zeros), both of ``normalized_shape``."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(size(s, "normalized_shape", "nn_layer_norm") for s in normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn_parameter(torch_ones(shape, dtype=dtype))
            if bias:
                self.bias = nn_parameter(torch_zeros(shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return nnf_layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class nn_batch_norm1d(nn_module):
    """Batch normalization of (N, C) or (N, C, L) inputs over the channels C.

    In training mode it normalizes by the batch's statistics and updates the buffers
    ``running_mean`` / ``running_var`` by ``momentum`` (``momentum = None``: a cumulative
    average, using ``num_batches_tracked``); in evaluation mode it normalizes by the running
    statistics. With ``track_running_stats = False`` it always uses the batch's statistics."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        self.num_features = size(num_features, "num_features", type(self).__name__)
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = nn_parameter(torch_ones(self.num_features, dtype=dtype))
            self.bias = nn_parameter(torch_zeros(self.num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch_zeros(self.num_features, dtype=dtype))
            self.register_buffer("running_var", torch_ones(self.num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            for t, v in ((self.running_mean, 0), (self.running_var, 1),
                         (self.num_batches_tracked, 0)):
                t._data[...] = v
                bump_version(t)

    _dims: tuple[int, ...] = (2, 3)

    def forward(self, input):
        if input.ndim not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got "
                             f"{input.ndim}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            n = self.num_batches_tracked
            n._data[...] += 1
            bump_version(n)
            factor = 1.0 / float(n._data) if self.momentum is None else self.momentum
        # batch statistics in training, or always when no running statistics are tracked
        # (then the buffers are None and nothing is updated)
        use_batch = self.training or not self.track_running_stats
        return nnf_batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              use_batch, factor, self.eps)


class nn_batch_norm2d(nn_batch_norm1d):
    """Batch normalization of (N, C, H, W) inputs over the channels; see ``nn_batch_norm1d``."""
    _dims = (4,)


class nn_batch_norm3d(nn_batch_norm1d):
    """Batch normalization of (N, C, D, H, W) inputs; see ``nn_batch_norm1d``."""
    _dims = (5,)


class nn_group_norm(nn_module):
    """Normalizes each group of ``num_channels / num_groups`` channels of each sample; with
    ``affine``, then ``* weight`` (ones) ``+ bias`` (zeros) per channel."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        self.num_groups, self.num_channels = int(num_groups), int(num_channels)
        if self.num_channels % self.num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.eps, self.affine = eps, affine
        if affine:
            self.weight = nn_parameter(torch_ones(self.num_channels, dtype=dtype))
            self.bias = nn_parameter(torch_zeros(self.num_channels, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return nnf_group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class _InstanceNorm(nn_batch_norm1d):
    """Instance normalization: each channel of each sample over its spatial dims (defaults:
    no affine parameters, no running statistics, as R torch)."""
    _nd = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)

    def forward(self, input):
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise ValueError(f"expected {nd + 1}D or {nd + 2}D input (got {input.ndim}D input)")
        unbatched = input.ndim == nd + 1
        if unbatched:
            input = input.unsqueeze(0)
        use_stats = self.training or not self.track_running_stats
        out = nnf_instance_norm(input, self.running_mean, self.running_var, self.weight,
                                self.bias, use_stats, 0.1 if self.momentum is None else
                                self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class nn_instance_norm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) inputs."""
    _nd = 1


class nn_instance_norm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) inputs."""
    _nd = 2


class nn_instance_norm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _nd = 3
