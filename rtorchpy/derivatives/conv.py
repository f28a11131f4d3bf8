"""The derivative table, continued: the convolution's row (``ConvolutionBackward0``, the node of
every ``nnf_conv*`` and ``nnf_conv_transpose*``; the forward in ``ops/conv.py``).

Both gradients are convolutions, so the row is written with ``F.convolution`` and
``F.convolution_weight``: NumPy's matrix products on the fast path, recorded convolutions under
``create_graph`` (where libtorch records ``ConvolutionBackwardBackward0``, rtorchpy's second
order graph shows the convolutions themselves).
"""
from __future__ import annotations

from ..autograd.rows import row


@row("ConvolutionBackward0", inputs=("input", "weight", "bias"), saves=("input", "weight"))
def _convolution(F, g, needs, input, weight, stride, padding, dilation, transposed,
                 output_padding, groups, has_bias):
    """input: the transposed convolution of g with weight (for a transposed convolution: the
    convolution), its output padding chosen to give back the input's size;  weight: the
    convolution of input with g over the batch (stride and dilation swapped);  bias: g summed
    over the batch and spatial dims"""
    nd = len(stride)
    gi = gw = gb = None
    if needs[0]:
        if transposed:
            gi = F.convolution(g, weight, stride, padding, dilation, False, (0,) * nd, groups)
            for i, size in enumerate(input.shape[2:]):  # output padding past the last window
                if gi.shape[2 + i] != size:
                    gi = F.narrow(gi, 2 + i, 0, size)
        else:
            rest = tuple(s + 2 * p - d * (k - 1) - 1 - (m - 1) * st for s, p, d, k, m, st in
                         zip(input.shape[2:], padding, dilation, weight.shape[2:], g.shape[2:],
                             stride))
            gi = F.convolution(g, weight, stride, padding, dilation, True, rest, groups)
    if needs[1]:
        gw = F.convolution_weight(input, g, tuple(weight.shape[2:]), stride, padding, dilation,
                                  transposed, groups)
    if has_bias and needs[2]:
        gb = F.sum(g, (0,) + tuple(range(2, 2 + nd)), False)
    return gi, gw, gb
