"""The rows of recurrent layers: one node per layer and direction (``ops/rnn.py``)."""
from __future__ import annotations

from ..autograd.forward_ad import tangent
from ..autograd.rows import row


@row("MkldnnRnnLayerBackward0", outputs=("output", "hy", "cy"), saves=("*inputs",))
@row("RnnLayerBackward0", outputs=("output", "hy", "cy"), saves=("*inputs",))
def _rnn_layer(F, g, needs, *inputs_and_params):
    """input, weights, biases, initial states: backpropagation through time over the layer's
    steps (LSTM, GRU or Elman; libtorch names an LSTM layer's node MkldnnRnnLayerBackward0 and
    has no single node for the others). On arrays it reuses the forward's gate activations;
    under create_graph the layer is replayed in recorded ops, so the gradient is
    differentiable again."""
    *inputs, spec, work = inputs_and_params
    return F.rnn_layer_backward(g, needs, inputs, spec, work)


@tangent("MkldnnRnnLayerBackward0", "RnnLayerBackward0")
def _rnn_layer_tangent(F, tans, inputs, outputs, params):
    """Forward mode through a fused layer: the layer replayed in recorded ops and differentiated
    along the tangents (the transpose trick needs the node's backward as a function of its
    inputs, which the fused kernel's is not)."""
    return F.rnn_layer_tangent(tans, inputs, params[0])
