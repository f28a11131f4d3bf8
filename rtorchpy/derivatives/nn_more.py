"""Rows of the activations and losses of ``ops/nnf_more.py`` and ``ops/ctc.py``: mish, rrelu's
training mode, the CTC loss, the multilabel margin loss and weight normalisation's fused node."""
from __future__ import annotations

import numpy as np

from ..autograd.forward_ad import diagonal, tangent
from ..autograd.record import record
from ..autograd.rows import NODES, row
from ..numerics import ctc
from ..tensor import Tensor


@row("MishBackward0", saves=("self",))
def _mish(F, g, needs, self):
    """self: g * (tanh(softplus(self)) + self * sigmoid(self) * (1 - tanh(softplus(self))^2))"""
    t = F.tanh(-F.log_sigmoid(-self))  # softplus(x) = -log_sigmoid(-x), without overflow
    return g * (t + self * F.sigmoid(self) * (1 - t * t))


@row("RreluWithNoiseBackward0", inputs=("self", "noise"), saves=("noise",))
def _rrelu_with_noise(F, g, needs, noise, lower, upper):
    """self: g * noise (the slopes drawn in the forward; 1 where self > 0);  noise: none"""
    return g * noise, None


diagonal("MishBackward0")


@row("CtcLossBackward0", inputs=("log_probs",), saves=("log_probs",))
def _ctc_loss(F, g, needs, log_probs, work):
    """log_probs: exp(log_probs) - occupancy, times g per sample, where the occupancy of a class
    at a step is the posterior probability of the alignments passing through it (from the
    alpha and beta recursions, libtorch's ctc_loss_backward); 0 past each input length and,
    with zero_infinity, for infinite losses. Not differentiable again (libtorch has no
    derivative for _ctc_loss_backward either)."""
    lp, lpe, la, nll, ext, skip, used, il, tl, zero_infinity, unbatched = work
    gd = g._data if F.records else g
    gd = np.asarray(gd, np.float64).reshape(-1)
    grad = ctc.backward(lp, lpe, la, nll, ext, skip, used, il, tl, gd, zero_infinity)
    if unbatched:
        grad = grad[:, 0]
    grad = grad.astype(g.dtype if not F.records else g._data.dtype)
    if not F.records:
        return grad
    out = Tensor._make(grad)
    # like libtorch's, this gradient has no derivative: a second backward through it refuses
    sources = tuple(t for t in (g, log_probs) if t.requires_grad)
    if sources:
        record(NODES["torch::autograd::NotImplemented"], sources, (out,),
               params=("_ctc_loss_backward",))
    return out


@tangent("CtcLossBackward0")
def _ctc_loss_tangent(F, tans, inputs, outputs, params):
    """Each sample's loss moves by its gradient (libtorch's form, as in reverse mode) dotted
    with the tangent of log_probs."""
    lp, lpe, la, nll, ext, skip, used, il, tl, zero_infinity, unbatched = params[0]
    t = tans[0]
    if t is None:
        return (None,)
    grad = ctc.backward(lp, lpe, la, nll, ext, skip, used, il, tl, np.ones(nll.shape),
                        zero_infinity)
    if unbatched:
        return (F.sum(Tensor._make(grad[:, 0].astype(t._data.dtype)) * t, (0, 1), False),)
    return (F.sum(Tensor._make(grad.astype(t._data.dtype)) * t, (0, 2), False),)


@row("MultilabelMarginLossBackward0", saves=("self",))
def _multilabel_margin_loss(F, g, needs, self, work, reduction):
    """self: per sample, g / C for each active pair (target slot j, other class i) with
    1 - x[j] + x[i] > 0, added at i and subtracted at j (divided by N for mean). Not
    differentiable again (libtorch has no derivative for multilabel_margin_loss_backward)."""
    safe, active, n, c = work
    gd = np.asarray(g._data if F.records else g)
    dtype = gd.dtype
    counts = active.sum(axis=1)  # (N, C): active pairs that raise class i
    np.add.at(counts, (np.arange(n)[:, None], safe), -active.sum(axis=2))
    # libtorch adds a step of 1/C (1/(N C) for mean) once per active pair, in the input's
    # dtype, so an element's gradient is that step added |count| times, then times g
    step = 1.0 / max(n * c if reduction == "mean" else c, 1)
    most = int(np.abs(counts).max()) if counts.size else 0
    sums = np.concatenate(([0], np.cumsum(np.full(most, step, dtype), dtype=dtype))).astype(dtype)
    grad = np.sign(counts).astype(dtype) * sums[np.abs(counts)]
    scale = gd.reshape(-1, 1) if gd.ndim else gd
    grad = (grad * scale).astype(dtype, copy=False).reshape(self.shape)
    if not F.records:
        return grad
    out = Tensor._make(grad)
    # as libtorch's, this gradient has no derivative: a second backward through it refuses
    sources = tuple(t for t in (g, self) if t.requires_grad)
    if sources:
        record(NODES["torch::autograd::NotImplemented"], sources, (out,),
               params=("multilabel_margin_loss_backward",))
    return out


@tangent("MultilabelMarginLossBackward0")
def _multilabel_margin_loss_tangent(F, tans, inputs, outputs, params):
    """Each sample's loss moves by (t[i] - t[j]) / C summed over its active pairs, then the
    reduction (libtorch has no forward derivative for this loss; this is the exact one of a
    loss that is linear between its kinks)."""
    (safe, active, n, c), reduction = params
    t = tans[0]
    if t is None:
        return (None,)
    dtype = t._data.dtype
    counts = active.sum(axis=1)
    np.add.at(counts, (np.arange(n)[:, None], safe), -active.sum(axis=2))
    coef = Tensor._make((counts / c).astype(dtype).reshape(t.shape))
    per = coef * t
    if t.dim() < 2:  # one sample: the loss is 0-dim whatever the reduction
        return (F.sum(per, (0,), False),)
    per = F.sum(per, (1,), False)
    if reduction == "mean":
        return (F.mean(per, (0,), False),)
    if reduction == "sum":
        return (F.sum(per, (0,), False),)
    return (per,)


@row("WeightNormInterfaceBackward0", inputs=("v", "g"), saves=("v", "g"))
def _weight_norm_interface(F, g_w, needs, v, g, dim):
    """v: (g / n) * (grad - v * sum_others(grad * v) / n^2);  g: sum_others(grad * v) / n,
    with n = ||v|| over every dim but dim (recomputed from v, so second derivatives include
    the norm's dependence on v, which libtorch's saved norms leave out)"""
    others = tuple(d for d in range(v.ndim) if d != dim)

    def total(x):  # (a 1-d v: nothing to sum over)
        return F.sum(x, others, True) if others else x
    n = F.sqrt(total(v * v))
    s = total(g_w * v)
    gv = (g / n) * (g_w - v * (s / (n * n))) if needs[0] else None
    return gv, (s / n if needs[1] else None)
