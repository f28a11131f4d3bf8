"""``nnf_ctc_loss``: the connectionist temporal classification loss, one libtorch node
(``CtcLossBackward0``) whose
recursions are ``numerics/ctc.py``'s; the reduction is made of recorded ops on top, as in
libtorch."""
from __future__ import annotations

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import ctc
from ..tensor import Tensor
from .arith import div, where
from .registry import recording, wrap

__all__ = ["nnf_ctc_loss"]


def _lengths(v, name, n):
    """Lengths as an int64 array of ``n`` values (a tensor, a list or a number)."""
    if isinstance(v, Tensor):
        if v._data.dtype.kind not in "iu":
            raise RuntimeError(f"ctc_loss: {name} must be integers (int64 or int32), got "
                               f"{v._data.dtype}")
        arr = v._data.reshape(-1).astype(np.int64)
    else:
        vals = [v] if np.isscalar(v) else list(v)
        if any(isinstance(x, (bool, np.bool_)) or float(x) != int(x) for x in vals):
            raise TypeError(f"ctc_loss(): argument '{name}' must be whole numbers")
        arr = np.asarray([int(x) for x in vals], np.int64)
    if arr.shape[0] != n:
        raise RuntimeError(f"{name} must be of size batch_size (batch size {n}, got "
                           f"{arr.shape[0]} lengths)")
    return arr


def nnf_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
                 reduction="mean", zero_infinity=False):
    """The negative log-likelihood of ``targets`` under all alignments of ``log_probs``
    ``(T, N, C)`` (log-probabilities, e.g. from ``nnf_log_softmax``; ``(T, C)`` for one
    sequence). ``targets`` is ``(N, S)`` padded or the targets of all samples concatenated;
    ``input_lengths`` and ``target_lengths`` give each sample's lengths. ``blank`` is the
    blank class (a class number as stored in ``log_probs``: 0 is the first class, in R too).
    ``reduction = "mean"`` divides each loss by its target length, then averages;
    ``zero_infinity`` turns infinite losses (targets too long for their inputs) and their
    gradients into zeros. The gradient is libtorch's, which assumes ``log_probs`` are
    normalised; it has no derivative itself (second order is refused, as in libtorch)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not isinstance(log_probs, Tensor) or log_probs._data.dtype.kind != "f":
        raise RuntimeError("ctc_loss: log_probs must be a floating-point tensor")
    if not isinstance(targets, Tensor) or targets._data.dtype.kind not in "iu":
        raise RuntimeError("ctc_loss: targets must be a tensor of integers (class indices)")
    unbatched = log_probs.dim() == 2
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss: log_probs must be 3-D (T, N, C) or 2-D (T, C), got "
                           f"{log_probs.dim()}-D of size {list(log_probs.shape)}")
    lp = log_probs._data[:, None] if unbatched else log_probs._data
    T, N, C = lp.shape
    blank = int(blank)
    if not 0 <= blank < C:
        raise RuntimeError(f"blank must be in label range (0 to {C - 1}, got {blank})")
    il = _lengths(input_lengths, "input_lengths", N)
    tl = _lengths(target_lengths, "target_lengths", N)
    if (il < 0).any() or (il > T).any():
        bad = il[(il < 0) | (il > T)][0]
        raise RuntimeError(f"Expected input_lengths to have value at most {T} (and at least "
                           f"0), but got value {bad} (while checking arguments for ctc_loss)")
    if (tl < 0).any():
        raise RuntimeError(f"ctc_loss: target_lengths must be non-negative, got "
                           f"{int(tl.min())}")
    tg = targets._data.astype(np.int64)
    S = int(tl.max()) if N else 0
    if tg.ndim == 2 and not unbatched:
        if tg.shape[0] != N:
            raise RuntimeError(f"ctc_loss: targets of size {list(tg.shape)} for batch size {N}:"
                               f" expected one row of targets per sample")
        if tg.shape[1] < S:
            raise RuntimeError(f"Expected tensor to have size at least {S} at dimension 1, but "
                               f"got size {tg.shape[1]} for argument #2 'targets' (while "
                               f"checking arguments for ctc_loss)")
        padded = tg[:, :S]
    elif tg.ndim == 1:
        if tg.shape[0] < tl.sum():
            raise RuntimeError(f"ctc_loss: concatenated targets have {tg.shape[0]} values, "
                               f"fewer than sum(target_lengths) = {int(tl.sum())}")
        padded = np.full((N, S), blank, np.int64)
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        cols = np.arange(S)
        inside = cols[None, :] < tl[:, None]
        padded[inside] = tg[(starts[:, None] + cols[None, :])[inside]]
    else:
        raise RuntimeError(f"ctc_loss: targets must be 1-D (concatenated) or 2-D (batch, "
                           f"max target length), got size {list(tg.shape)}")
    inside = np.arange(S)[None, :] < tl[:, None]
    if inside.any() and ((padded[inside] < 0).any() or (padded[inside] >= C).any()):
        raise RuntimeError(f"ctc_loss: targets must be class indices in [0, {C - 1}]")
    padded = np.where(inside, padded, blank)
    ext, skip, used = ctc.extend(padded, tl, blank)
    lp64 = lp.astype(np.float64)
    la, lpe, nll = ctc.forward(lp64, ext, skip, used, il, tl)
    out = wrap(nll.astype(lp.dtype))
    if recording(log_probs):
        work = (lp64, lpe, la, nll, ext, skip, used, il, tl, bool(zero_infinity), unbatched)
        record(NODES["CtcLossBackward0"], (log_probs,), (out,), params=(work,))
    if zero_infinity:  # as libtorch: a where on top (the node zeroes those gradients too)
        out = where(Tensor._make(np.isinf(out._data)), Tensor._make(np.zeros((), lp.dtype)), out)
    if unbatched:
        out = out.reshape(())
    if reduction == "none":
        return out
    if reduction == "sum":
        return out.sum()
    denom = Tensor._make(np.maximum(tl, 1).astype(lp.dtype).reshape(out.shape))
    return div(out, denom).mean()

