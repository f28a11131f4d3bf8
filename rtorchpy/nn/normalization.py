"""Normalization layers: ``nn_layer_norm`` and ``nn_batch_norm1d``."""
from __future__ import annotations

import numpy as np

from ..autograd.graph import bump_version
from ..numerics.args import size
from ..ops.creation import torch_ones, torch_zeros
from ..ops.nnf import nnf_batch_norm, nnf_layer_norm
from ..tensor import Tensor
from .module import nn_module, nn_parameter

__all__ = ["nn_layer_norm", "nn_batch_norm1d"]


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

    def forward(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
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
