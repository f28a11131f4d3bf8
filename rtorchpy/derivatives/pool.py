"""The derivative table, continued: pooling's rows (``ops/pool.py``).

Max pooling's gradient adds ``g`` at the recorded indices of the maxima (an index-put, recorded
under ``create_graph``); average pooling's spreads ``g / divisor`` over each window (a
transposed convolution with a kernel of ones, recorded as ``ConvolutionBackward0`` under
``create_graph``). libtorch has hand-written double-backward nodes for both; rtorchpy
differentiates the formulas.
"""
from __future__ import annotations

from ..autograd.rows import row


def _max_pool(F, g, needs, indices, shape, nd):
    """self: g added at the position of each window's maximum (the recorded indices)"""
    return F.max_pool_backward(g, indices, shape, nd)


def _avg_pool(F, g, needs, kernel, stride, padding, divisor, shape):
    """self: g / divisor spread evenly over each window (the windows' padding dropped)"""
    return F.avg_pool_backward(g, kernel, stride, padding, divisor, shape)


for _nd in (2, 3):
    row(f"MaxPool{_nd}DWithIndicesBackward0")(_max_pool)
    row(f"AvgPool{_nd}DBackward0")(_avg_pool)
