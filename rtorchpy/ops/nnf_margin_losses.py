"""Margin and embedding losses named as R torch's ``nnf_*``: ``nnf_hinge_embedding_loss``,
``nnf_soft_margin_loss``, ``nnf_multilabel_soft_margin_loss``, ``nnf_cosine_embedding_loss``,
``nnf_margin_ranking_loss``, ``nnf_triplet_margin_loss`` and ``nnf_multi_margin_loss``.

Each is a composition of recorded ops written as libtorch writes it (the same epsilons and
clamps), so values and gradients are libtorch's; the graphs show those ops.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .arith import add, minimum, mul, neg, sub, where
from .elementwise import exp, log1p, sqrt
from .nnf_layers import nnf_logsigmoid
from .registry import as_tensor

__all__ = ["nnf_hinge_embedding_loss", "nnf_soft_margin_loss",
           "nnf_multilabel_soft_margin_loss", "nnf_cosine_embedding_loss",
           "nnf_margin_ranking_loss", "nnf_triplet_margin_loss", "nnf_multi_margin_loss"]


def _check(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _zero(like):
    return Tensor._make(np.zeros((), like._data.dtype))


def nnf_hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    _check(reduction)
    input, target = as_tensor(input), as_tensor(target)
    z = _zero(input)
    clamp = (float(margin) - input).clamp_min(0)
    out = add(where(target != 1, clamp, z), where(target != -1, input, z))
    return _reduce(out, reduction)


def nnf_soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-target * input))``."""
    _check(reduction)
    input, target = as_tensor(input), as_tensor(target)
    return _reduce(log1p(exp(neg(mul(target, input)))), reduction)


def nnf_multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` averaged over the classes (last dim),
    each class's term multiplied by ``weight`` when given."""
    _check(reduction)
    input, target = as_tensor(input), as_tensor(target)
    loss = neg(add(mul(target, nnf_logsigmoid(input)),
                   mul(1.0 - target, nnf_logsigmoid(neg(input)))))
    if weight is not None:
        loss = mul(loss, as_tensor(weight))
    loss = loss.sum(dim=input.dim() - 1) / input.shape[-1]
    return _reduce(loss, reduction)


def nnf_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is
    -1; the cosine over the last dim (1-d inputs are one pair)."""
    _check(reduction)
    x1, x2, target = as_tensor(input1), as_tensor(input2), as_tensor(target)
    if x1.shape != x2.shape:
        raise RuntimeError(f"cosine_embedding_loss: input1 and input2 must have the same "
                           f"shape, got {list(x1.shape)} and {list(x2.shape)}")
    d = x1.dim() - 1
    eps = 1e-12  # libtorch's EPSILON
    prod = mul(x1, x2).sum(dim=d)
    m1 = add(mul(x1, x1).sum(dim=d), eps)
    m2 = add(mul(x2, x2).sum(dim=d), eps)
    cos = prod / sqrt(mul(m1, m2))
    z = _zero(cos)
    pos = 1.0 - cos
    negp = sub(cos, float(margin)).clamp_min(0)
    out = add(where(target == 1, pos, z), where(target == -1, negp, z))
    return _reduce(out, reduction)


def nnf_margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    _check(reduction)
    x1, x2, target = as_tensor(input1), as_tensor(input2), as_tensor(target)
    return _reduce(add(neg(mul(target, sub(x1, x2))), float(margin)).clamp_min(0), reduction)


def _distance(a, b, p, eps):
    """libtorch's pairwise distance: the ``p``-norm of ``a - b + eps`` over the last dim."""
    return add(sub(a, b), eps).norm(p=p, dim=a.dim() - 1)


def nnf_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                            reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the
    ``p``-norm distance; ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance."""
    _check(reduction)
    a, pos, ng = as_tensor(anchor), as_tensor(positive), as_tensor(negative)
    if not (a.dim() == pos.dim() == ng.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a.dim()}D, positive "
                           f"{pos.dim()}D, and negative {ng.dim()}D inputs")
    d_pos = _distance(a, pos, p, eps)
    d_neg = _distance(a, ng, p, eps)
    if swap:
        d_neg = minimum(d_neg, _distance(pos, ng, p, eps))
    return _reduce(add(sub(d_pos, d_neg), float(margin)).clamp_min(0), reduction)


def nnf_multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    """Per sample: the mean over classes ``i != y`` of ``max(0, margin - x[y] + x[i])^p``
    (times ``weight[y]`` when given); ``target`` holds class indices (0-based in Python,
    1-based in R)."""
    _check(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    input, target = as_tensor(input), as_tensor(target)
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target._data.reshape(-1).astype(np.int64)
    N, C = x.shape
    if y.shape[0] != N:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if y.size and (y.min() < 0 or y.max() >= C):
        raise IndexError("target out of range")
    rows = np.arange(N)
    xy = x[Tensor._make(rows), Tensor._make(y)].reshape(N, 1)
    terms = add(sub(x, xy), float(margin)).clamp_min(0)
    if p == 2:
        terms = mul(terms, terms)
    if weight is not None:
        w = as_tensor(weight)
        terms = mul(terms, w[Tensor._make(y)].reshape(N, 1))
    other = np.ones((N, C), bool)
    other[rows, y] = False
    terms = where(Tensor._make(other), terms, _zero(terms))
    loss = terms.sum(dim=1) / C
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)
