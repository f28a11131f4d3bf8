"""``nnf_unfold`` / ``nnf_fold`` (libtorch's im2col and col2im: ``Im2ColBackward0``,
``Col2ImBackward0``) and ``nnf_pixel_shuffle`` / ``nnf_pixel_unshuffle``
(``PixelShuffleBackward0``, ``PixelUnshuffleBackward0``). Each pair are each other's adjoint,
so each one's gradient is the other op, recorded again under ``create_graph``."""
from __future__ import annotations

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import fold as _derivatives_fold  # noqa: F401  (registers the rows)
from ..numerics import conv as conv_arrays
from ..numerics.format import type_word_for
from .conv import _tuple
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_unfold", "nnf_fold", "nnf_pixel_shuffle", "nnf_pixel_unshuffle"]


def _pairs(kernel_size, dilation, padding, stride):
    return (_tuple(kernel_size, 2, "kernel_size"), _tuple(dilation, 2, "dilation"),
            _tuple(padding, 2, "padding"), _tuple(stride, 2, "stride"))


def _t(values):
    return "(" + ", ".join(map(str, values)) + ")"


def im2col(input, kernel, dilation, padding, stride):
    """The unfold op, arguments checked."""
    out = wrap(conv_arrays.unfold(input._data, kernel, dilation, padding, stride))
    if recording(input):
        record(NODES["Im2ColBackward0"], (input,), (out,),
               params=(tuple(input.shape[-2:]), kernel, dilation, padding, stride))
    return out


def col2im(input, sizes, kernel, dilation, padding, stride):
    """The fold op, arguments checked."""
    out = wrap(conv_arrays.fold(input._data, sizes, kernel, dilation, padding, stride))
    if recording(input):
        record(NODES["Col2ImBackward0"], (input,), (out,),
               params=(tuple(sizes), kernel, dilation, padding, stride))
    return out


def _float(input, name):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(input._data.dtype)}\'')


def nnf_unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of ``input`` (N, C, H, W) or (C, H, W) as columns: (N, C * kH * kW,
    L), L the number of blocks, each column one block (channel by channel, row by row)."""
    input = as_tensor(input)
    if input.ndim not in (3, 4) or any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    _float(input, "im2col")
    kernel, dilation, padding, stride = _pairs(kernel_size, dilation, padding, stride)
    sizes = input.shape[-2:]
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, p, d, k, st in
              zip(sizes, padding, dilation, kernel, stride)]
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {_t(sizes)}, kernel_size="
                           f"{_t(kernel)}, dilation={_t(dilation)}, padding={_t(padding)}, "
                           f"calculated shape of the array of sliding blocks as {_t(blocks)}, "
                           "but its components must be at least one.")
    return im2col(input, kernel, dilation, padding, stride)


def nnf_fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse layout of ``nnf_unfold``: columns (N, C * kH * kW, L) summed into an image
    (N, C, *output_size); where blocks overlap their values add up."""
    input = as_tensor(input)
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor with possibly 0 batch size "
                           f"and non-zero dimensions for input, but got: {list(input.shape)}")
    _float(input, "col2im")
    sizes = _tuple(output_size, 2, "output_size")
    kernel, dilation, padding, stride = _pairs(kernel_size, dilation, padding, stride)
    rows, cols = input.shape[-2:]
    per = kernel[0] * kernel[1]
    if rows % per:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={rows} and kernel_size="
                           f"{_t(kernel)}.")
    blocks = [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, p, d, k, st in
              zip(sizes, padding, dilation, kernel, stride)]
    if blocks[0] * blocks[1] != cols:
        raise RuntimeError(f"Given output_size={_t(sizes)}, kernel_size={_t(kernel)}, "
                           f"dilation={_t(dilation)}, padding={_t(padding)}, stride="
                           f"{_t(stride)}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={cols}.")
    return col2im(input, sizes, kernel, dilation, padding, stride)


def shuffle(input, factor, up):
    """Pixel shuffle (``up``) or unshuffle as a recorded op on ``input`` (*, C, H, W)."""
    data = conv_arrays.pixel_shuffle(input._data, factor, up)
    out = wrap(data)
    if recording(input):
        record(NODES["PixelShuffleBackward0" if up else "PixelUnshuffleBackward0"], (input,),
               (out,), params=(factor,))
    return out


def nnf_pixel_shuffle(input, upscale_factor):
    """Rearrange (*, C r^2, H, W) into (*, C, H r, W r): each group of r^2 channels becomes an
    r x r block of pixels (``r = upscale_factor``)."""
    input = as_tensor(input)
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    return shuffle(input, r, True)


def nnf_pixel_unshuffle(input, downscale_factor):
    """The inverse of ``nnf_pixel_shuffle``: (*, C, H r, W r) into (*, C r^2, H, W)."""
    input = as_tensor(input)
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for what, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by "
                               f"downscale_factor, but input.size({d})={input.shape[d]} is not "
                               f"divisible by {r}")
    return shuffle(input, r, False)
