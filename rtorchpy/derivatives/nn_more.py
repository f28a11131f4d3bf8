"""Rows of the activations and losses of ``ops/nnf_more.py`` and ``ops/ctc.py``: mish, rrelu's
training mode and the CTC loss."""
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
