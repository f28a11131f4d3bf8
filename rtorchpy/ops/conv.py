"""Convolutions: ``nnf_conv1d/2d/3d`` and ``nnf_conv_transpose1d/2d/3d``, one N-d op.

Every one of them is ``convolution`` (libtorch's op of the same name, node
``ConvolutionBackward0``), computed as matrix products on NumPy's BLAS (``numerics/conv.py``).
Its gradients are convolutions again (the input's: the transposed convolution; the weight's:
a convolution of the input with the gradient, batch and channels swapped), written as recorded
ops under ``create_graph`` (``convolution_weight``) so that gradients of gradients work.

``padding = "same"`` with an even total padding, and ``"valid"``, are plain symmetric padding;
an odd total puts the extra zero after, through ``nnf_pad`` first (``ConstantPadNdBackward0``),
as libtorch does. Other ``padding_mode``\\ s are the modules' business (``nn/conv.py``).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import conv as _derivatives_conv  # noqa: F401  (registers the row)
from ..numerics import conv as conv_arrays
from ..numerics.format import type_word_for
from ..numerics.warn import warn
from ..tensor import Tensor
from .pad import nnf_pad
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_conv1d", "nnf_conv2d", "nnf_conv3d", "nnf_conv_transpose1d",
           "nnf_conv_transpose2d", "nnf_conv_transpose3d"]

_NODE = NODES["ConvolutionBackward0"]
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half"}


def _absent(dtype):
    """The stand-in of an absent bias: the node keeps libtorch's three edges, None there."""
    return Tensor._make(np.empty(0, dtype))


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """The convolution op itself, arguments already checked: tuples of one int per spatial
    dim, symmetric ``padding``."""
    x, w = input._data, weight._data
    data = conv_arrays.convolution(x, w, stride, padding, dilation, transposed, output_padding,
                                   groups)
    if bias is not None:
        data = data + bias._data.reshape((1, -1) + (1,) * (data.ndim - 2))
    out = wrap(np.ascontiguousarray(data))
    inputs = (input, weight) if bias is None else (input, weight, bias)
    if recording(*inputs):
        record(_NODE, (input, weight, _absent(x.dtype) if bias is None else bias), (out,),
               params=(stride, padding, dilation, transposed, output_padding, groups,
                       bias is not None))
    return out


def convolution_weight(input, grad, kernel, stride, padding, dilation, transposed, groups):
    """The weight's gradient of a convolution, as recorded ops (for ``create_graph``): a
    convolution whose batch is the input's channels, whose channels are the batch, and whose
    kernel is the gradient; stride and dilation trade places. Groups stay groups."""
    if transposed:  # the roles of the output's gradient and the input swap
        input, grad = grad, input
    n, c = input.shape[:2]
    o = grad.shape[1]
    nd = len(kernel)
    cg, og = c // groups, o // groups
    space = tuple(range(3, 3 + nd))
    xs = input.reshape(n, groups, cg, *input.shape[2:]).permute(2, 1, 0, *space)
    xs = xs.reshape(cg, groups * n, *input.shape[2:])
    ws = grad.reshape(n, groups, og, *grad.shape[2:]).permute(1, 2, 0, *space)
    ws = ws.reshape(o, n, *grad.shape[2:])
    y = convolution(xs, ws, None, dilation, padding, stride, False, (0,) * nd, groups)
    for i, k in enumerate(kernel):
        if y.shape[2 + i] != k:
            y = y.narrow(2 + i, 0, k)
    return y.permute(1, 0, *range(2, 2 + nd))


# ------------------------------------------------------------------------------ arguments

def _tuple(value, nd, what):
    """An int or a sequence of ``nd`` ints (R's whole doubles included) as a tuple."""
    if isinstance(value, Tensor):
        value = value._data.tolist()
    if isinstance(value, (numbers.Number, np.number)):
        values = [value] * nd
    else:
        values = list(value)
        if len(values) == 1:
            values = values * nd
    if any(isinstance(v, (bool, np.bool_)) or not float(v).is_integer() for v in values):
        raise TypeError(f"{what} must be a whole number or a list of whole numbers, got "
                        f"{value!r}")
    values = tuple(int(v) for v in values)
    if len(values) != nd:
        raise RuntimeError(f"expected {what} to be a single integer value or a list of {nd} "
                           f"values to match the convolution dimensions, but got "
                           f"{what}={list(values)}")
    return values


def _operands(input, weight, bias, name, nd):
    input, weight = as_tensor(input), as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    dt = input._data.dtype
    if dt.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(dt)}\'')
    if weight._data.dtype != dt:
        raise RuntimeError(f"expected scalar type {type_word_for(weight._data.dtype)} but found "
                           f"{type_word_for(dt)}")
    if bias is not None and bias._data.dtype != dt:
        raise RuntimeError(f"Input type ({_C_NAMES.get(dt.name, dt.name)}) and bias type "
                           f"({_C_NAMES.get(bias._data.dtype.name, bias._data.dtype.name)}) "
                           "should be the same")
    return input, weight, bias


def _check(input, weight, bias, stride, padding, dilation, groups, transposed,
           output_padding=None):
    """libtorch's checks of a convolution's arguments and shapes, and their messages."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws, xs = list(weight.shape), list(input.shape)
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size [{ws}] instead")
    if transposed:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to "
                               f"have {ws[0]} channels, but got {xs[1]} channels instead")
        out_channels = ws[1] * groups
        for _i, op in enumerate(output_padding):
            if op < 0:
                raise RuntimeError("negative output_padding is not supported")
        if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
            hw = ["height", "width"] if len(stride) == 2 else \
                ["depth", "height", "width"] if len(stride) == 3 else ["width"]

            def part(word, values):
                return " ".join(f"{word}_{n}: {v}" for n, v in zip(hw, values))
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got {part('output_padding', output_padding)} "
                               f"{part('stride', stride)} {part('dilation', dilation)}")
    else:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs} "
                               f"to have {ws[1] * groups} channels, but got {xs[1]} channels "
                               "instead")
        out_channels = ws[0]
        padded = [s + 2 * p for s, p in zip(xs[2:], padding)]
        extent = [d * (k - 1) + 1 for k, d in zip(ws[2:], dilation)]
        if any(e > s for e, s in zip(extent, padded)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, padded))}). Kernel size: "
                               f"({' x '.join(map(str, extent))}). Kernel size can't be greater "
                               "than actual input size")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                           f"{out_channels} elements, but got bias of size {list(bias.shape)} "
                           "instead")


def _same_padding(input, weight, stride, dilation, nd):
    """``padding = "same"``: symmetric padding, and the input padded after by one more where
    the total is odd (libtorch's warning included)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation)]
    padding = tuple(t // 2 for t in total)
    if any(t % 2 for t in total):
        warn("Using padding='same' with even kernel lengths and odd dilation may "
             "require a zero-padded copy of the input be created", stacklevel=4)
        extra = []
        for t in reversed(total):  # nnf_pad's order: last dim first
            extra += [0, t % 2]
        input = nnf_pad(input, extra)
    return input, padding


def _conv(name, nd, input, weight, bias, stride, padding, dilation, groups):
    input, weight, bias = _operands(input, weight, bias, name, nd)
    if weight.ndim != nd + 2:  # libtorch counts the dims by the weight's, then compares
        _tuple(stride, weight.ndim - 2, "stride")
    stride = _tuple(stride, nd, "stride")
    dilation = _tuple(dilation, nd, "dilation")
    groups = int(groups)
    unbatched = input.ndim == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            input, padding = _same_padding(input, weight, stride, dilation, nd)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _tuple(padding, nd, "padding")
    _check(input, weight, bias, stride, padding, dilation, groups, False)
    out = convolution(input, weight, bias, stride, padding, dilation, False, (0,) * nd, groups)
    return out.squeeze(0) if unbatched else out


def _conv_transpose(name, nd, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    input, weight, bias = _operands(input, weight, bias, name, nd)
    if weight.ndim != nd + 2:
        _tuple(stride, weight.ndim - 2, "stride")
    stride = _tuple(stride, nd, "stride")
    padding = _tuple(padding, nd, "padding")
    output_padding = _tuple(output_padding, nd, "output_padding")
    dilation = _tuple(dilation, nd, "dilation")
    groups = int(groups)
    unbatched = input.ndim == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check(input, weight, bias, stride, padding, dilation, groups, True, output_padding)
    sizes = conv_arrays.transposed_sizes(input.shape[2:], weight.shape[2:], stride, padding,
                                         dilation, output_padding)
    if any(s <= 0 for s in sizes):
        unit = (1,) if nd == 1 else ()  # libtorch computes 1-d as 2-d with a unit height
        raise RuntimeError(f"Given input size per channel: "
                           f"({' x '.join(map(str, unit + tuple(input.shape[2:])))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, unit + sizes))}). "
                           "Output size is too small")
    out = convolution(input, weight, bias, stride, padding, dilation, True, output_padding,
                      groups)
    return out.squeeze(0) if unbatched else out


# ------------------------------------------------------------------------------ nnf_*

def nnf_conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation) of ``input`` (N, C_in, L) or (C_in, L) with
    ``weight`` (C_out, C_in / groups, K), plus ``bias`` (C_out). ``padding``: a number, a tuple
    or ``"same"`` / ``"valid"``. ``groups``: channels split into that many independent groups
    (``groups = C_in``: depthwise)."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def nnf_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution of ``input`` (N, C_in, H, W) or (C_in, H, W) with ``weight``
    (C_out, C_in / groups, kH, kW); arguments as ``nnf_conv1d``'s, one value or one per dim."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def nnf_conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution of ``input`` (N, C_in, D, H, W) or (C_in, D, H, W) with ``weight``
    (C_out, C_in / groups, kD, kH, kW); arguments as ``nnf_conv1d``'s."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def nnf_conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                         groups=1, dilation=1):
    """Transposed 1-d convolution (the gradient of ``nnf_conv1d`` with respect to its input) of
    ``input`` (N, C_in, L) with ``weight`` (C_in, C_out / groups, K). Output length
    ``(L - 1) stride - 2 padding + dilation (K - 1) + output_padding + 1``."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def nnf_conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                         groups=1, dilation=1):
    """Transposed 2-d convolution of ``input`` (N, C_in, H, W) with ``weight``
    (C_in, C_out / groups, kH, kW); see ``nnf_conv_transpose1d``."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def nnf_conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                         groups=1, dilation=1):
    """Transposed 3-d convolution of ``input`` (N, C_in, D, H, W) with ``weight``
    (C_in, C_out / groups, kD, kH, kW); see ``nnf_conv_transpose1d``."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)
