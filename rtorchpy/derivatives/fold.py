"""The derivative table, continued: unfold/fold and pixel (un)shuffle (``ops/fold.py``). Each
op's gradient is its partner op, so every order has a formula."""
from __future__ import annotations

from ..autograd.rows import row


@row("Im2ColBackward0")
def _im2col(F, g, needs, sizes, kernel, dilation, padding, stride):
    """self: col2im(g): each column's values added back to the block they came from"""
    return F.col2im(g, sizes, kernel, dilation, padding, stride)


@row("Col2ImBackward0")
def _col2im(F, g, needs, sizes, kernel, dilation, padding, stride):
    """self: im2col(g): each block of g read out as a column"""
    return F.im2col(g, kernel, dilation, padding, stride)


@row("PixelShuffleBackward0")
def _pixel_shuffle(F, g, needs, factor):
    """self: pixel_unshuffle(g, upscale_factor)"""
    return F.pixel_shuffle(g, factor, False)


@row("PixelUnshuffleBackward0")
def _pixel_unshuffle(F, g, needs, factor):
    """self: pixel_shuffle(g, downscale_factor)"""
    return F.pixel_shuffle(g, factor, True)
