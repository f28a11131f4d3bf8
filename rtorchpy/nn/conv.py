"""Convolution layers: ``nn_conv1d/2d/3d`` and ``nn_conv_transpose1d/2d/3d``.

Initialized as R torch and PyTorch do: weight kaiming-uniform with ``a = sqrt(5)``, bias
U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = weight.size(1) * prod(kernel_size). A
``padding_mode`` other than ``"zeros"`` pads the input with ``nnf_pad`` first (reflect,
replicate or circular), then convolves without padding, as PyTorch does.
"""
from __future__ import annotations

import math

from ..ops.conv import (
    nnf_conv1d,
    nnf_conv2d,
    nnf_conv3d,
    nnf_conv_transpose1d,
    nnf_conv_transpose2d,
    nnf_conv_transpose3d,
)
from ..ops.creation import torch_empty
from ..ops.pad import nnf_pad
from .init import nn_init_kaiming_uniform_, nn_init_uniform_
from .module import nn_module, nn_parameter

__all__ = ["nn_conv1d", "nn_conv2d", "nn_conv3d", "nn_conv_transpose1d", "nn_conv_transpose2d",
           "nn_conv_transpose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(v, nd):
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return (int(v),) * nd
    v = tuple(int(x) for x in v)
    return v * nd if len(v) == 1 else v


class _ConvNd(nn_module):
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", output_padding=0,
                 dtype=None):
        nd = self._nd
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.groups = int(groups)
        if self.groups <= 0:
            raise ValueError("groups must be a positive integer")
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        if self.out_channels % self.groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string '{padding}', should be one of "
                                 "['valid', 'same']")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, nd)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride, self.dilation = _ntuple(stride, nd), _ntuple(dilation, nd)
        self.padding, self.padding_mode = _ntuple(padding, nd), padding_mode
        self.output_padding = _ntuple(output_padding, nd)
        if self._transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight = nn_parameter(torch_empty(*shape, dtype=dtype))
        if bias:
            self.bias = nn_parameter(torch_empty(self.out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn_init_kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            nn_init_uniform_(self.bias, -bound, bound)

    def _pads(self):
        """The (before, after) amounts of nnf_pad, last dim first, for padding_mode."""
        pads = []
        for i in reversed(range(self._nd)):
            if self.padding == "same":
                total = self.dilation[i] * (self.kernel_size[i] - 1)
                pads += [total // 2, total - total // 2]
            elif self.padding == "valid":
                pads += [0, 0]
            else:
                pads += [self.padding[i]] * 2
        return pads


class _Conv(_ConvNd):
    _fn = staticmethod(nnf_conv2d)

    def forward(self, input):
        if self.padding_mode != "zeros":
            return self._fn(nnf_pad(input, self._pads(), self.padding_mode), self.weight,
                            self.bias, self.stride, 0, self.dilation, self.groups)
        return self._fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _fn = staticmethod(nnf_conv_transpose2d)

    def forward(self, input, output_size=None):
        """``output_size``: the wanted spatial size of the output (or the whole size), which
        picks the ``output_padding`` among the sizes a strided convolution maps back."""
        output_padding = self.output_padding if output_size is None else \
            self._output_padding(input, output_size)
        return self._fn(input, self.weight, self.bias, self.stride, self.padding,
                        output_padding, self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        nd = self._nd
        lead = 2 if input.ndim == nd + 2 else 1
        size = [int(v) for v in (output_size.tolist() if hasattr(output_size, "tolist")
                                 else output_size)]
        if len(size) == lead + nd:
            size = size[lead:]
        if len(size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must "
                             f"have {nd} or {lead + nd} elements (got {len(size)})")
        spatial = list(input.shape[lead:])
        smallest = [(spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(nd)]
        largest = [smallest[d] + self.stride[d] - 1 for d in range(nd)]
        if any(not lo <= s <= hi for s, lo, hi in zip(size, smallest, largest)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {spatial})")
        return tuple(s - lo for s, lo in zip(size, smallest))


class nn_conv1d(_Conv):
    """1-d convolution layer: input (N, in_channels, L) -> (N, out_channels, L_out).
    ``padding``: a number, a tuple, ``"same"`` or ``"valid"``; ``padding_mode``: ``"zeros"``,
    ``"reflect"``, ``"replicate"`` or ``"circular"``; ``groups = in_channels``: depthwise."""
    _nd = 1
    _fn = staticmethod(nnf_conv1d)


class nn_conv2d(_Conv):
    """2-d convolution layer: input (N, in_channels, H, W); arguments as ``nn_conv1d``'s, one
    value or one per spatial dim."""
    _nd = 2
    _fn = staticmethod(nnf_conv2d)


class nn_conv3d(_Conv):
    """3-d convolution layer: input (N, in_channels, D, H, W); arguments as ``nn_conv1d``'s."""
    _nd = 3
    _fn = staticmethod(nnf_conv3d)


class _TransposeInit(_ConvTranspose):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, dtype)


class nn_conv_transpose1d(_TransposeInit):
    """Transposed 1-d convolution layer (weight (in_channels, out_channels / groups, K));
    ``output_padding`` adds to one side of the output to pick among the sizes a strided
    convolution maps to the same size."""
    _nd = 1
    _fn = staticmethod(nnf_conv_transpose1d)


class nn_conv_transpose2d(_TransposeInit):
    """Transposed 2-d convolution layer; see ``nn_conv_transpose1d``."""
    _nd = 2
    _fn = staticmethod(nnf_conv_transpose2d)


class nn_conv_transpose3d(_TransposeInit):
    """Transposed 3-d convolution layer; see ``nn_conv_transpose1d``."""
    _nd = 3
    _fn = staticmethod(nnf_conv_transpose3d)
