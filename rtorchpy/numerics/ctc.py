"""The connectionist temporal classification loss on arrays: the forward (alpha) and backward
(beta) recursions in log space, vectorised over the batch and the label positions, looping
over time steps only.

Labels are extended with blanks (``blank, l1, blank, l2, ..., blank``: ``2 S + 1`` positions
for ``S`` targets). Samples of different lengths share the arrays: positions past ``2 L + 1``
and steps past a sample's input length stay at ``-inf``. Everything is computed in float64
(the caller rounds once), with libtorch's guarded log-sum-exp (a maximum of ``-inf`` counts as
0), so an impossible alignment gives an infinite loss, not NaN.
"""
from __future__ import annotations

import numpy as np

_NEG = -np.inf


def _lse(*terms):
    m = terms[0]
    for t in terms[1:]:
        m = np.maximum(m, t)
    m = np.where(m == _NEG, 0.0, m)
    with np.errstate(invalid="ignore", over="ignore"):
        total = sum(np.exp(t - m) for t in terms)
        return np.log(total) + m


def extend(targets, target_lengths, blank):
    """The extended labels ``(N, 2 S + 1)``, whether a position may be skipped over from two
    positions back (a label differing from the one before it), and the positions in use."""
    N, S = targets.shape
    ext = np.full((N, 2 * S + 1), blank, np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros(ext.shape, bool)
    skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    used = np.arange(2 * S + 1)[None, :] <= 2 * target_lengths[:, None]
    return ext, skip, used


def forward(lp, ext, skip, used, input_lengths, target_lengths):
    """``log_alpha`` (T, N, 2S+1) and the negative log-likelihood per sample (N)."""
    T, N, _ = lp.shape
    K = ext.shape[1]
    lpe = np.take_along_axis(lp, np.broadcast_to(ext[None], (T, N, K)), axis=2)
    la = np.full((T, N, K), _NEG)
    la[0, :, 0] = lpe[0, :, 0]
    if K > 1:
        la[0, :, 1] = np.where(target_lengths > 0, lpe[0, :, 1], _NEG)
    one = np.full((N, K), _NEG)
    two = np.full((N, K), _NEG)
    for t in range(1, T):
        prev = la[t - 1]
        one[:, 1:] = prev[:, :-1]
        two[:, 2:] = np.where(skip[:, 2:], prev[:, :-2], _NEG)
        la[t] = np.where(used, _lse(prev, one, two) + lpe[t], _NEG)
    rows = np.arange(N)
    last = la[np.maximum(input_lengths - 1, 0), rows]
    end = last[rows, 2 * target_lengths]
    before = np.where(target_lengths > 0, last[rows, np.maximum(2 * target_lengths - 1, 0)],
                      _NEG)
    nll = -_lse(end, before)
    # an empty input explains only an empty target (libtorch: loss 0, else infinite)
    nll = np.where(input_lengths == 0, np.where(target_lengths == 0, 0.0, np.inf), nll)
    return la, lpe, nll


def backward(lp, lpe, la, nll, ext, skip, used, input_lengths, target_lengths, grad_out,
             zero_infinity):
    """The gradient with respect to ``lp`` of ``sum(grad_out * nll)`` in libtorch's form, which
    assumes ``lp`` comes from a log-softmax: ``exp(lp) - occupancy`` per step and class, where
    the occupancy of a class is the posterior probability of being at one of its positions
    (from ``log_beta``); zero past each input length."""
    T, N, C = lp.shape
    K = ext.shape[1]
    lb = np.full((T, N, K), _NEG)
    rows = np.arange(N)
    start = np.full((N, K), _NEG)
    start[rows, 2 * target_lengths] = lpe[np.maximum(input_lengths - 1, 0), rows,
                                          2 * target_lengths]
    has = target_lengths > 0
    pos = np.maximum(2 * target_lengths - 1, 0)
    start[rows[has], pos[has]] = lpe[np.maximum(input_lengths - 1, 0), rows, pos][has]
    # skipping from s to s + 2 is allowed when position s + 2 may be reached from s
    skip_next = np.zeros((N, K), bool)
    skip_next[:, :-2] = skip[:, 2:]
    one = np.full((N, K), _NEG)
    two = np.full((N, K), _NEG)
    for t in range(T - 1, -1, -1):
        at_end = (input_lengths - 1 == t)[:, None]
        if t + 1 < T:
            nxt = lb[t + 1]
            one[:, :-1] = nxt[:, 1:]
            two[:, :-2] = np.where(skip_next[:, :-2], nxt[:, 2:], _NEG)
            step = _lse(nxt, one, two) + lpe[t]
        else:
            step = np.full((N, K), _NEG)
        alive = (t < input_lengths)[:, None] & used
        lb[t] = np.where(at_end, start, np.where(alive, step, _NEG))
    with np.errstate(invalid="ignore", over="ignore"):
        occ = np.exp(la + lb - lpe + nll[None, :, None])  # posterior of each position
        occ = np.where(used[None], occ, 0.0)
        onehot = np.zeros((N, K, C))
        onehot[np.arange(N)[:, None], np.arange(K)[None, :], ext] = 1.0
        grad = np.exp(lp) - np.einsum("tnk,nkc->tnc", occ, onehot)
        grad = grad * grad_out[None, :, None]
    grad[np.arange(T)[:, None] >= input_lengths[None, :]] = 0.0
    if zero_infinity:
        grad[:, np.isinf(nll)] = 0.0
    return grad
