"""Linear layers: ``nn_linear`` and ``nn_bilinear``."""
from __future__ import annotations

import math

from ..numerics.args import size
from ..ops.creation import torch_empty
from ..ops.nnf import nnf_bilinear, nnf_linear
from .init import nn_init_kaiming_uniform_, nn_init_uniform_
from .module import nn_module, nn_parameter

__all__ = ["nn_linear", "nn_bilinear"]


class nn_linear(nn_module):
    """``y = x W^T + b`` with ``weight`` (out_features, in_features) and ``bias``
    (out_features). Initialized as R torch and PyTorch do: weight kaiming-uniform with
    ``a = sqrt(5)`` (U(-1/sqrt(in), 1/sqrt(in))), bias U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        self.in_features = size(in_features, "in_features", "nn_linear")
        self.out_features = size(out_features, "out_features", "nn_linear")
        self.weight = nn_parameter(torch_empty(self.out_features, self.in_features, dtype=dtype))
        if bias:
            self.bias = nn_parameter(torch_empty(self.out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn_init_kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            nn_init_uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return nnf_linear(input, self.weight, self.bias)


class nn_bilinear(nn_module):
    """``y = x1^T A x2 + b`` with ``weight`` (out_features, in1_features, in2_features) and
    ``bias`` (out_features), all initialized U(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, dtype=None):
        self.in1_features = size(in1_features, "in1_features", "nn_bilinear")
        self.in2_features = size(in2_features, "in2_features", "nn_bilinear")
        self.out_features = size(out_features, "out_features", "nn_bilinear")
        self.weight = nn_parameter(torch_empty(self.out_features, self.in1_features,
                                               self.in2_features, dtype=dtype))
        if bias:
            self.bias = nn_parameter(torch_empty(self.out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in1_features) if self.in1_features > 0 else 0
        nn_init_uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn_init_uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return nnf_bilinear(input1, input2, self.weight, self.bias)
