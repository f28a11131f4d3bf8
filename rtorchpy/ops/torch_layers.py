"""The layer-level ``torch_*`` functions of R torch (and PyTorch's ``torch.conv2d``, ...): the
same computations as the ``nnf_*`` functions, with libtorch's argument names and orders
(``torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)``). ``cudnn_enabled`` is accepted and ignored (there is no cuDNN here).

``torch_conv_tbc`` and ``torch_channel_shuffle`` are composed of other ops: their results and
gradients are libtorch's, the nodes of their graph are those ops' (not ``ConvTbcBackward0`` /
``ChannelShuffleBackward0``).
"""
from __future__ import annotations

from .conv import (_tuple, nnf_conv1d, nnf_conv2d, nnf_conv3d, nnf_conv_transpose1d,
                   nnf_conv_transpose2d, nnf_conv_transpose3d)
from .fold import nnf_pixel_shuffle, nnf_pixel_unshuffle
from .nnf_layers import nnf_batch_norm, nnf_embedding, nnf_layer_norm
from .nnf_norm import nnf_group_norm, nnf_instance_norm
from .pad import nnf_pad
from .pool import nnf_avg_pool1d, nnf_max_pool1d, nnf_max_pool2d, nnf_max_pool3d
from .pool_adaptive import nnf_adaptive_avg_pool1d, nnf_adaptive_max_pool1d
from .registry import as_tensor

__all__ = ["torch_conv1d", "torch_conv2d", "torch_conv3d", "torch_conv_transpose1d",
           "torch_conv_transpose2d", "torch_conv_transpose3d", "torch_conv_tbc",
           "torch_max_pool1d", "torch_max_pool2d", "torch_max_pool3d", "torch_avg_pool1d",
           "torch_adaptive_avg_pool1d", "torch_adaptive_max_pool1d", "torch_batch_norm",
           "torch_instance_norm", "torch_layer_norm", "torch_group_norm", "torch_pixel_shuffle",
           "torch_pixel_unshuffle", "torch_channel_shuffle", "torch_constant_pad_nd",
           "torch_embedding", "nnf_conv_tbc"]


def torch_conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nnf_conv1d``: 1-d convolution of ``input`` (N, C_in, L) with ``weight``."""
    return nnf_conv1d(input, weight, bias, stride, padding, dilation, groups)


def torch_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nnf_conv2d``: 2-d convolution of ``input`` (N, C_in, H, W) with ``weight``."""
    return nnf_conv2d(input, weight, bias, stride, padding, dilation, groups)


def torch_conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``nnf_conv3d``: 3-d convolution of ``input`` (N, C_in, D, H, W) with ``weight``."""
    return nnf_conv3d(input, weight, bias, stride, padding, dilation, groups)


def torch_conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                           groups=1, dilation=1):
    """``nnf_conv_transpose1d``: transposed 1-d convolution."""
    return nnf_conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                                dilation)


def torch_conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                           groups=1, dilation=1):
    """``nnf_conv_transpose2d``: transposed 2-d convolution."""
    return nnf_conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                                dilation)


def torch_conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                           groups=1, dilation=1):
    """``nnf_conv_transpose3d``: transposed 3-d convolution."""
    return nnf_conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                                dilation)


def torch_conv_tbc(self, weight, bias, pad=0):
    """1-d convolution in time-batch-channel layout: ``self`` (T, N, C_in), ``weight``
    (K, C_in, C_out), ``bias`` (C_out), ``pad`` zeros on both ends of time; the result is
    (T + 2 pad - K + 1, N, C_out)."""
    self, weight, bias = as_tensor(self), as_tensor(weight), as_tensor(bias)
    if self.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if self.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = nnf_conv1d(self.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, int(pad))
    return out.permute(2, 0, 1)


def torch_max_pool1d(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """``nnf_max_pool1d`` without indices."""
    return nnf_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)


def torch_max_pool2d(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """``nnf_max_pool2d`` without indices."""
    return nnf_max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)


def torch_max_pool3d(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """``nnf_max_pool3d`` without indices."""
    return nnf_max_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode)


def torch_avg_pool1d(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                     count_include_pad=True):
    """``nnf_avg_pool1d``."""
    return nnf_avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad)


def torch_adaptive_avg_pool1d(self, output_size):
    """``nnf_adaptive_avg_pool1d``."""
    return nnf_adaptive_avg_pool1d(self, output_size)


def torch_adaptive_max_pool1d(self, output_size):
    """``nnf_adaptive_max_pool1d`` with its indices: a list (values, indices)."""
    return nnf_adaptive_max_pool1d(self, output_size, True)


def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     cudnn_enabled=True):
    """``nnf_batch_norm`` with libtorch's argument order."""
    return nnf_batch_norm(input, running_mean, running_var, weight, bias, bool(training),
                          momentum, eps)


def torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                        momentum, eps, cudnn_enabled=True):
    """``nnf_instance_norm`` with libtorch's argument order."""
    return nnf_instance_norm(input, running_mean, running_var, weight, bias,
                             bool(use_input_stats), momentum, eps)


def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
                     cudnn_enable=True):
    """``nnf_layer_norm`` (libtorch spells this one's last argument ``cudnn_enable``)."""
    return nnf_layer_norm(input, normalized_shape, weight, bias, eps)


def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``nnf_group_norm``."""
    return nnf_group_norm(input, num_groups, weight, bias, eps)


def torch_pixel_shuffle(self, upscale_factor):
    """``nnf_pixel_shuffle``."""
    return nnf_pixel_shuffle(self, upscale_factor)


def torch_pixel_unshuffle(self, downscale_factor):
    """``nnf_pixel_unshuffle``."""
    return nnf_pixel_unshuffle(self, downscale_factor)


def torch_channel_shuffle(self, groups):
    """(N, C, *) with its channels regrouped: split into ``groups`` groups of C / groups, the
    i-th channel of every group placed together (a transpose of (groups, C / groups))."""
    self = as_tensor(self)
    g = _tuple(groups, 1, "groups")[0]
    if self.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(self.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    n, c = self.shape[:2]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    rest = tuple(self.shape[2:])
    return self.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(n, c, *rest)


def torch_constant_pad_nd(self, pad, value=0):
    """``nnf_pad`` with ``mode = "constant"``: ``pad`` holds (before, after) amounts, last dim
    first; negative amounts crop."""
    return nnf_pad(self, pad, "constant", value)


def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``nnf_embedding`` with libtorch's argument order: rows of ``weight`` picked by
    ``indices``; ``padding_idx`` (a row, or negative for none) gets no gradient."""
    padding_idx = None if padding_idx is None or int(padding_idx) < 0 else int(padding_idx)
    return nnf_embedding(indices, weight, padding_idx, None, 2.0, scale_grad_by_freq, sparse)


def nnf_conv_tbc(input, weight, bias, pad=0):
    """``torch_conv_tbc`` under R torch's ``nnf_`` name: a 1-d convolution of ``input``
    (time, batch, channels) with ``weight`` (kernel, in, out) and ``bias`` (out)."""
    return torch_conv_tbc(input, weight, bias, pad)
