"""The derivative table, continued: group normalization's row (``ops/nnf_norm.py``), written
with the helpers of batch and layer normalization (``derivatives/nn.py``)."""
from __future__ import annotations

from ..autograd.rows import row
from .nn import _normalization_grad, _normalized


@row("NativeGroupNormBackward0", inputs=("input", "weight", "bias"), saves=("*inputs",))
def _group_norm(F, g, needs, *inputs_and_params):
    """input: per group, rstd * (gw - mean(gw) - xhat * mean(gw xhat)) over the group's
    channels and spatial dims, gw = g * weight;  weight: sum(g * xhat);  bias: sum(g) per
    channel (over the batch and spatial dims). The statistics are recomputed from input."""
    x, weight, bias, groups, eps, has_weight, has_bias = inputs_and_params
    n, c = x.shape[:2]
    bshape = (1, c) + (1,) * (x.ndim - 2)
    grouped = F.reshape(x, (n, groups, -1))
    xhat, rstd = _normalized(F, grouped, (2,), eps)
    red = (0,) + tuple(range(2, x.ndim))
    gx = gw = gb = None
    if needs[0]:
        scaled = g * F.reshape(weight, bshape) if has_weight else g
        gx = F.reshape(_normalization_grad(F, F.reshape(scaled, (n, groups, -1)), xhat, rstd,
                                           (2,)), x.shape)
    if has_weight and needs[1]:
        gw = F.sum(g * F.reshape(xhat, x.shape), red, False)
    if has_bias and needs[2]:
        gb = F.sum(g, red, False)
    return gx, gw, gb
