"""The derivative table, continued: the rows of the neural-network functions of
``ops/nnf_layers.py`` (activations, losses, normalization, embedding, bilinear).

Rows here register into the same table as the rest of ``rtorchpy/derivatives/`` (``NODES``,
``ROWS``); see its
docstring for what a row is. Every row names what it saves (``saves=``). The formulas follow
libtorch's (``derivatives.yaml`` / ``FunctionsManual.cpp``), written with the ``F`` namespace so
that they are differentiable again under ``create_graph``: where libtorch has a hand-written
double-backward node (``GeluBackwardBackward0``, ...), rtorchpy differentiates the formula, so
second-order graphs show the nodes of the formula's own ops instead.
"""
from __future__ import annotations

import math

from ..autograd.forward_ad import diagonal
from ..autograd.rows import row

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715


# ---------------------------------------------------------------- activations
@row("GeluBackward0", saves=("self",))
def _gelu(F, g, needs, self, approximate):
    """self: g * (Phi(self) + self * phi(self)) (approximate = "none", Phi and phi the normal
    cdf and density);  approximate = "tanh": with u = sqrt(2/pi) (self + 0.044715 self^3),
    g * (0.5 (1 + tanh u) + 0.5 self (1 - tanh(u)^2) sqrt(2/pi) (1 + 3 * 0.044715 self^2))"""
    if approximate == "tanh":
        sq = self * self
        t = F.tanh((self + self * sq * _KAPPA) * _SQRT_2_OVER_PI)
        left = (t + 1) * 0.5
        right = self * 0.5 * (1 - t * t) * ((sq * (3 * _KAPPA) + 1) * _SQRT_2_OVER_PI)
        return g * (left + right)
    cdf = (F.erf(self * _INV_SQRT_2) + 1) * 0.5
    pdf = F.exp(self * self * -0.5) * _INV_SQRT_2PI
    return g * (cdf + self * pdf)


@row("SiluBackward0", saves=("self",))
def _silu(F, g, needs, self):
    """self: g * sigmoid(self) * (1 + self * (1 - sigmoid(self)))"""
    s = F.sigmoid(self)
    return g * (s * (self * (1 - s) + 1))


@row("EluBackward0", saves=("self",))
def _elu(F, g, needs, self, alpha):
    """self: g where self > 0, else g * alpha * exp(self)   (selected)"""
    return F.where(self > 0, g, g * (F.exp(self) * alpha))


@row("EluBackward1", saves=("result",))
def _elu_inplace(F, g, needs, result, alpha):
    """self: g where result > 0, else g * (result + alpha)   (elu_: the input is overwritten,
    so the result is saved; alpha > 0)"""
    return F.where(result > 0, g, g * (result + alpha))


@row("LeakyReluBackward0", saves=("self",))
def _leaky_relu(F, g, needs, self, negative_slope):
    """self: g where self > 0, else g * negative_slope   (selected)"""
    return F.where(self > 0, g, g * negative_slope)


@row("LeakyReluBackward1", saves=("result",))
def _leaky_relu_inplace(F, g, needs, result, negative_slope):
    """self: g where result > 0, else g * negative_slope   (leaky_relu_: the result is saved;
    a negative slope is refused here, as libtorch refuses it)"""
    if negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which is "
            "not supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope")
    return F.where(result > 0, g, g * negative_slope)


@row("HardtanhBackward0", saves=("self",))
def _hardtanh(F, g, needs, self, min_val, max_val):
    """self: g where min_val < self < max_val, else 0   (relu6 is hardtanh(0, 6); the kinks
    get 0, as libtorch's hardtanh_backward)"""
    return F.keep_where((self > min_val) & (self < max_val), g)


@row("SoftplusBackward0", saves=("self",))
def _softplus(F, g, needs, self, beta, threshold):
    """self: g where self * beta > threshold, else g * sigmoid(self * beta)"""
    z = self * beta
    return F.where(z > threshold, g, g * F.sigmoid(z))


@row("LogSigmoidBackward0", saves=("self",))
def _log_sigmoid(F, g, needs, self):
    """self: g * sigmoid(-self)"""
    return g * F.sigmoid(-self)


# ---------------------------------------------------------------- losses
def _loss_scale(g, reduction, count):
    return g / count if reduction == "mean" else g


@row("SmoothL1LossBackward0", inputs=("self", "target"), saves=("self", "target"))
def _smooth_l1(F, g, needs, self, target, reduction, beta, count):
    """self: g * (self - target) / beta where |self - target| < beta, else g * sign(self -
    target)   (/ N for mean);  target: the negative"""
    d = self - target
    g = _loss_scale(g, reduction, count)
    gs = F.where(d < -beta, -g, F.where(d > beta, g, d * g / beta))
    return (gs if needs[0] else None), (-gs if needs[1] else None)


@row("HuberLossBackward0", inputs=("self", "target"), saves=("self", "target"))
def _huber(F, g, needs, self, target, reduction, delta, count):
    """self: g * (self - target) where |self - target| <= delta, else g * delta * sign(self -
    target)   (/ N for mean);  target: the negative"""
    d = self - target
    g = _loss_scale(g, reduction, count)
    gs = F.where(d < -delta, g * -delta, F.where(d > delta, g * delta, d * g))
    return (gs if needs[0] else None), (-gs if needs[1] else None)


@row("BinaryCrossEntropyWithLogitsBackward0", inputs=("self", "target"),
     saves=("self", "target"))
def _bce_with_logits(F, g, needs, self, target, weight, pos_weight, reduction, count):
    """self: g * (sigmoid(self) - target), with pos_weight: g * ((pos_weight * target + 1 -
    target) * sigmoid(self) - pos_weight * target);  target: -g * self, with pos_weight:
    g * (log_sigmoid(-self) - pos_weight * log_sigmoid(self)); both times weight (/ N for
    mean). weight and pos_weight get no gradient (as libtorch)."""
    scale = g if weight is None else g * weight
    scale = _loss_scale(scale, reduction, count)
    gs = gt = None
    if needs[0]:
        s = F.sigmoid(self)
        if pos_weight is None:
            gs = scale * (s - target)
        else:
            pt = target * pos_weight
            gs = scale * ((pt + 1 - target) * s - pt)
    if needs[1]:
        if pos_weight is None:
            gt = scale * -self
        else:
            gt = scale * (F.log_sigmoid(-self) - F.log_sigmoid(self) * pos_weight)
    return gs, gt


# ---------------------------------------------------------------- normalization
def _normalized(F, x, dims, eps):
    """(x - mean) / sqrt(var + eps) over ``dims`` (biased variance) and 1 / sqrt(var + eps),
    recomputed from x so that the formula stays differentiable in x."""
    centered = x - F.mean(x, dims, True)
    rstd = 1.0 / F.sqrt(F.mean(centered * centered, dims, True) + eps)
    return centered * rstd, rstd


def _normalization_grad(F, gw, xhat, rstd, dims):
    """The input's gradient through normalization by batch statistics over ``dims``:
    rstd * (gw - mean(gw) - xhat * mean(gw * xhat))."""
    return rstd * (gw - F.mean(gw, dims, True) - xhat * F.mean(gw * xhat, dims, True))


@row("NativeLayerNormBackward0", inputs=("input", "weight", "bias"), saves=("*inputs",))
def _layer_norm(F, g, needs, *inputs_and_params):
    # (an absent weight or bias is an empty constant input: libtorch's three edges)
    """input: rstd * (g w - mean(g w) - xhat * mean(g w xhat)) over the normalized dims, with
    xhat = (input - mean) * rstd, rstd = 1 / sqrt(var + eps);  weight: g * xhat;  bias: g
    (summed over the leading dims by the engine). The statistics are recomputed from input."""
    x, weight, bias, ndim, eps, has_weight, has_bias = inputs_and_params
    dims = tuple(range(x.ndim - ndim, x.ndim))
    xhat, rstd = _normalized(F, x, dims, eps)
    gx = gw = gb = None
    if needs[0]:
        gx = _normalization_grad(F, g * weight if has_weight else g, xhat, rstd, dims)
    if has_weight and needs[1]:
        gw = g * xhat
    if has_bias and needs[2]:
        gb = g
    return gx, gw, gb


@row("NativeBatchNormBackward0", inputs=("input", "weight", "bias"), saves=("*inputs",))
def _batch_norm(F, g, needs, *inputs_and_params):
    """training: input: w * rstd * (g - mean(g) - xhat * mean(g xhat)) per channel (dim 1)
    over the other dims, the batch statistics recomputed from input;  eval: input:
    g * w / sqrt(running_var + eps);  both: weight: sum(g * xhat), bias: sum(g) per channel."""
    x, weight, bias, stats, eps, has_weight, has_bias = inputs_and_params
    red = (0,) + tuple(range(2, x.ndim))
    bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    weight = F.reshape(weight, bshape) if has_weight else None
    if stats is None:  # training: normalized by the batch's own statistics
        xhat, rstd = _normalized(F, x, red, eps)
    else:  # evaluation: by the running statistics of the forward (constants)
        mean, rstd = stats
        xhat = (x - mean) * rstd
    gx = gw = gb = None
    if needs[0]:
        scaled = g if weight is None else g * weight
        gx = scaled * rstd if stats is not None else _normalization_grad(F, scaled, xhat, rstd,
                                                                          red)
    if has_weight and needs[1]:
        gw = F.sum(g * xhat, red, False)
    if has_bias and needs[2]:
        gb = F.sum(g, red, False)
    return gx, gw, gb


# ---------------------------------------------------------------- embedding, bilinear
@row("EmbeddingBackward0", inputs=("weight",), saves=())
def _embedding(F, g, needs, indices, num_weights, padding_idx):
    """weight: g summed into the rows named by the indices (a row used twice gets both);
    the padding_idx row gets none;  with scale_grad_by_freq, each g divided by how often its
    index occurs"""
    if type(indices) is tuple:  # scale_grad_by_freq: (indices, count of each one's index)
        indices, counts = indices
        g = g / counts[..., None]
    if padding_idx is not None:
        g = F.zero_where((indices == padding_idx)[..., None], g)
    return F.index_backward(g, (num_weights, g.shape[-1]), (indices,))


@row("TrilinearBackward0", inputs=("input1", "input2", "weight"),
     saves=("input1", "input2", "weight"))
def _bilinear(F, g, needs, input1, input2, weight):
    """out[b, o] = sum_ij input1[b, i] weight[o, i, j] input2[b, j] (the bilinear form of
    libtorch's _trilinear):  input1: sum_j (g @ weight)[b, i, j] input2[b, j];  input2:
    sum_i (g @ weight)[b, i, j] input1[b, i];  weight: g^T @ (input1 outer input2)"""
    b, (o, i, j) = g.shape[0], weight.shape
    g1 = g2 = gw = None
    if needs[0] or needs[1]:
        gwt = F.reshape(F.matmul(g, F.reshape(weight, (o, i * j))), (b, i, j))
        if needs[0]:
            g1 = F.sum(gwt * F.unsqueeze(input2, 1), (2,), False)
        if needs[1]:
            g2 = F.sum(gwt * F.unsqueeze(input1, 2), (1,), False)
    if needs[2]:
        outer = F.reshape(F.unsqueeze(input1, 2) * F.unsqueeze(input2, 1), (b, i * j))
        gw = F.reshape(F.matmul(F.mT(g), outer), (o, i, j))
    return g1, g2, gw


# Forward mode: elementwise activations have diagonal Jacobians (see forward_ad.diagonal).
diagonal("NanToNumBackward0", "GeluBackward0", "SiluBackward0", "EluBackward0", "EluBackward1",
         "LeakyReluBackward0", "LeakyReluBackward1", "HardtanhBackward0", "SoftplusBackward0",
         "LogSigmoidBackward0")
