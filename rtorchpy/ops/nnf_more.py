"""Activations and a loss finishing R torch's ``nnf_*`` surface: ``nnf_mish`` (a libtorch node
of its own), ``nnf_rrelu`` with random slopes in training mode and its in-place form
``nnf_rrelu_``, ``nnf_contrib_sparsemax`` (a composition of recorded ops, so its second
derivative comes for free) and ``nnf_multilabel_margin_loss`` (libtorch's one node).
"""
from __future__ import annotations

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import draws
from ..tensor import Tensor
from .arith import div, sub
from .nnf_layers import _float_input, _unary
from .random_state import engine as _engine
from .registry import as_tensor, recording, wrap
from . import inplace as inplace_ops

__all__ = ["nnf_mish", "nnf_rrelu", "nnf_rrelu_", "nnf_contrib_sparsemax",
           "nnf_multilabel_margin_loss"]


def _mish(x):
    # softplus without overflow: max(x, 0) + log1p(exp(-|x|))
    return x * np.tanh(np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))


def nnf_mish(input, inplace=False):
    """``x * tanh(softplus(x))``, computed in float64 and rounded once."""
    if inplace:
        return inplace_ops.inplace(_float_input(input, "mish"), lambda t: nnf_mish(t))
    return _unary(input, "mish", _mish, "MishBackward0", ())


# ------------------------------------------------------------------------------- rrelu

def _rrelu_noise(x, lower, upper, generator):
    """libtorch's slopes for ``rrelu_with_noise`` in training mode: walking the elements in
    memory order, each non-positive one draws one float64 uniform (53 bits of a 64-bit word)
    scaled to ``[lower, upper)`` without a fused multiply-add, the bounds first rounded to the
    kernel's arithmetic type (float for float32 and float16); positive ones draw nothing and
    get slope 1. The slopes are returned in that arithmetic type."""
    op = np.float64 if x.dtype == np.float64 else np.float32
    lo, hi = float(op(lower)), float(op(upper))
    flat = np.ascontiguousarray(x).reshape(-1)
    neg = flat <= 0
    noise = np.ones(flat.shape, op)
    n = int(neg.sum())
    if n:
        u = draws.unit_float64(_engine(generator), n)
        noise[neg] = u * (hi - lo) + lo
    return noise.reshape(x.shape)


def _rrelu_train(input, lower, upper, generator):
    x = input._data
    noise = _rrelu_noise(x, lower, upper, generator)
    out = wrap(np.where(x <= 0, x.astype(noise.dtype) * noise, x).astype(x.dtype, copy=False))
    if recording(input):
        record(NODES["RreluWithNoiseBackward0"], (input, Tensor._make(noise.astype(x.dtype))),
               (out,), params=(float(lower), float(upper)))
    return out


def _rrelu_eval(input, slope):
    """Evaluation mode: leaky ReLU with the fixed slope, multiplied in the kernel's arithmetic
    type (float for float32 and float16, as libtorch's), recorded as libtorch records it
    (``RreluWithNoiseBackward0``, whose gradient is the slope where ``input <= 0``)."""
    x = input._data
    op = np.float64 if x.dtype == np.float64 else np.float32
    out = wrap(np.where(x > 0, x, x.astype(op) * op(slope)).astype(x.dtype, copy=False))
    if recording(input):
        noise = np.where(x > 0, 1.0, slope).astype(x.dtype)
        record(NODES["RreluWithNoiseBackward0"], (input, Tensor._make(noise)), (out,),
               params=(slope, slope))
    return out


def _rrelu_args(lower, upper):
    lower, upper = float(lower), float(upper)
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound, got "
                           f"lower = {lower} and upper = {upper}")
    return lower, upper


def nnf_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False,
              generator=None):
    """Randomized leaky ReLU. In training mode each non-positive element gets its own slope
    drawn uniformly from ``[lower, upper)`` by the generator, as libtorch draws them (same
    values as PyTorch for the same seed); in evaluation mode the slope is
    ``(lower + upper) / 2``."""
    input = _float_input(input, "rrelu")
    lower, upper = _rrelu_args(lower, upper)
    if not training:
        slope = (lower + upper) / 2
        if inplace:
            return inplace_ops.inplace(input, lambda t: _rrelu_eval(t, slope))
        return _rrelu_eval(input, slope)
    if inplace:
        return inplace_ops.inplace(input, lambda t: _rrelu_train(t, lower, upper, generator))
    return _rrelu_train(input, lower, upper, generator)


def nnf_rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``nnf_rrelu`` writing its result into ``input``."""
    return nnf_rrelu(input, lower, upper, training, True, generator)


# ----------------------------------------------------------------------------- sparsemax

def nnf_contrib_sparsemax(input, dim=-1):
    """Sparsemax along ``dim``: the Euclidean projection of ``input`` onto the probability
    simplex, ``max(x - tau, 0)`` with the threshold ``tau`` that makes the result sum to one.
    Many results are exactly 0. Its gradient is ``s * (g - sum(g * s) / sum(s))`` with ``s``
    the support (where the result is positive)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"nnf_contrib_sparsemax(): argument 'input' must be a Tensor, not "
                        f"{type(input).__name__}")
    input = _float_input(input, "sparsemax")
    nd = max(input.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    x = input if input.dim() else input.reshape(1)
    d = dim % nd
    # shifting by the (constant) maximum changes nothing but keeps the sums small
    shift = np.max(x._data, axis=d, keepdims=True) if x.numel() else 0
    z = sub(x, Tensor._make(np.asarray(shift, x._data.dtype)))
    zs = z.sort(dim=d, descending=True)[0]
    cs = zs.cumsum(d)
    n = x.shape[d]
    ranks = np.arange(1, n + 1, dtype=x._data.dtype).reshape((n,) + (1,) * (x.dim() - d - 1))
    support = (1 + ranks * zs._data) > cs._data
    k = support.sum(axis=d, keepdims=True)  # at least 1: the largest element is in support
    kk = Tensor._make(np.maximum(k, 1) - 1)
    tau = div(sub(cs.gather(d, kk), 1.0), Tensor._make(np.maximum(k, 1).astype(x._data.dtype)))
    out = sub(z, tau).clamp_min(0)
    return out if input.dim() else out.reshape(())


# ------------------------------------------------------------------ multilabel margin loss

def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def nnf_multilabel_margin_loss(input, target, reduction="mean"):
    """Multi-class multi-label hinge loss: per sample, the sum over its target classes ``j``
    and the other classes ``i`` of ``max(0, 1 - (x[j] - x[i]))``, divided by the number of
    classes. ``target`` has the input's shape and lists the target classes (0-based in Python,
    1-based in R) up to the first negative value (-1; from R a 0 is an error, as
    in R torch)."""
    _check_reduction(reduction)
    input, target = as_tensor(input), as_tensor(target)
    _float_input(input, "multilabel_margin_loss")
    if target._data.dtype != np.int64:
        raise RuntimeError(f"multilabel_margin_loss: expected target of dtype int64 (Long), "
                           f"got {target._data.dtype}")
    if input.dim() > 2 or input.shape != target.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    y = target._data.reshape(x.shape)
    N, C = x.shape
    # the targets of a row are its values up to the first negative one
    valid = np.cumprod(y >= 0, axis=1).astype(bool)
    if np.any(y[valid] >= C):
        raise RuntimeError(f"multilabel_margin_loss: target out of range: values must be in "
                           f"[-1, {C - 1}], got {int(y[valid].max())}")
    safe = np.where(valid, y, 0)
    is_target = np.zeros((N, C), bool)
    rows = np.broadcast_to(np.arange(N)[:, None], (N, C))
    is_target[rows[valid], safe[valid]] = True
    # (N, S, C) terms for the S target slots in use, not (N, C, C): rows list few labels
    S = int(valid.sum(axis=1).max()) if N else 0
    safe, valid = safe[:, :S], valid[:, :S]
    xd = x._data
    one = xd.dtype.type(1)
    terms = one - np.take_along_axis(xd, safe, 1)[:, :, None] + xd[:, None, :]
    # the pairs (target slot, non-target class) whose hinge is active
    active = valid[:, :, None] & ~is_target[:, None, :] & (terms > 0)
    # libtorch's sums: each sample's terms one after another in float64, rounded to the
    # input's type; the reductions sum those in float64 too (cumsum adds sequentially)
    zs = np.where(active, terms, xd.dtype.type(0)).astype(np.float64).reshape(N, S * C)
    inner = (np.cumsum(zs, axis=1)[:, -1] if S * C else np.zeros(N)).astype(xd.dtype)
    if reduction == "none" and input.dim() == 2:
        loss = inner / xd.dtype.type(C)
    else:
        total = np.cumsum(inner.astype(np.float64))[-1] if N else 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = np.float64(total) / C / (N if reduction == "mean" else 1)
    out = wrap(np.asarray(loss, xd.dtype))
    if recording(input):
        record(NODES["MultilabelMarginLossBackward0"], (input,), (out,),
               params=((safe, active, N, C), reduction))
    return out


# ------------------------------------------------------------------------- weight norm

def weight_norm_interface(v, g, dim):
    """``v * (g / ||v||)`` with the norm over every dim of ``v`` but ``dim`` (0 or the last, as
    libtorch's fused kernel takes them), recorded as one ``WeightNormInterfaceBackward0`` node.
    ``g`` has ``v``'s rank, size 1 everywhere but ``dim``."""
    vd, gd = v._data, g._data
    others = tuple(d for d in range(vd.ndim) if d != dim)
    norms = np.sqrt(np.sum(vd.astype(np.float64) ** 2, axis=others, keepdims=True))
    out = wrap((vd * (gd / norms.astype(vd.dtype))).astype(vd.dtype, copy=False))
    if recording(v, g):
        record(NODES["WeightNormInterfaceBackward0"], (v, g), (out,), params=(dim,))
    return out
