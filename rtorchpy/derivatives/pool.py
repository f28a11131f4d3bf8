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


def _transposed_map(F, g, needs, mats, node, partner):
    """self: g through the transposed matrices (a separable linear map's adjoint: each output
    element's weights sent back to the inputs they came from), recorded as the partner node"""
    return F.apply_matrices(g, tuple(m.T for m in mats), partner, node)


def linear_map_rows(kind):
    """Register ``kind``Backward0 and ``kind``BackwardBackward0, a separable linear map
    (adaptive average pooling, interpolation) and its adjoint, each the other's gradient."""
    row(kind + "Backward0")(_transposed_map)
    row(kind + "BackwardBackward0", inputs=("grad_output",))(_transposed_map)


def _unpool(F, g, needs, indices, nd):
    """self: g gathered at the indices the values were put at"""
    lead = indices.shape[:-nd]
    nc = 1
    for s in lead:
        nc *= s
    flat = F.reshape(g, (nc, -1))
    return F.reshape(F.gather(flat, 1, indices.reshape(nc, -1)), indices.shape)


for _nd in (2, 3):
    linear_map_rows(f"AdaptiveAvgPool{_nd}D")
    row(f"AdaptiveMaxPool{_nd}DBackward0")(_max_pool)
    row(f"FractionalMaxPool{_nd}DBackward0")(_max_pool)
    row(f"MaxUnpool{_nd}DBackward0")(_unpool)
