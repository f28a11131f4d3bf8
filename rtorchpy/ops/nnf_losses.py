"""More losses named as R torch's ``nnf_*``: ``nnf_kl_div``, ``nnf_poisson_nll_loss`` and
``nnf_gaussian_nll_loss``.

Each is a composition of recorded ops, written as libtorch (``kl_div``, ``poisson_nll_loss``)
or PyTorch's Python (``gaussian_nll_loss``) writes it, so values and first and higher
gradients are theirs, for ``input`` and ``target`` (and ``var``) alike. A number multiplying
a tensor records ``MulBackward1`` and a division by the batch size ``DivBackward1`` (R torch's
Scalar overloads; PyTorch's Python records ``...Backward0`` there, with the same gradients).
"""
from __future__ import annotations

import math

from ..autograd.grad_mode import with_no_grad
from ..numerics.warn import warn
from .creation import torch_ones_like
from .elementwise import exp, log
from .registry import as_tensor
from .special import xlogy

__all__ = ["nnf_kl_div", "nnf_poisson_nll_loss", "nnf_gaussian_nll_loss"]


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check(reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def nnf_kl_div(input, target, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of ``target`` from ``input`` (log-probabilities):
    ``target * (log(target) - input)`` elementwise (0 where target is 0), or with
    ``log_target = TRUE`` (target given as log-probabilities) ``exp(target) * (target - input)``.
    ``reduction``: "mean" (over all elements; warns, as PyTorch, that "batchmean" is the KL
    divergence), "batchmean" (the sum divided by the size of the first dim), "sum" or "none"."""
    _check(reduction, ("none", "mean", "sum", "batchmean"))
    if reduction == "mean":
        warn("reduction: 'mean' divides the total loss by both the batch size and the "
             "support size.'batchmean' divides only by the batch size, and aligns with "
             "the KL div math definition.'mean' will be changed to behave the same as "
             "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    input, target = as_tensor(input), as_tensor(target)
    if log_target:
        out = exp(target) * (target - input)
    else:
        out = xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = out.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(out, reduction)


def nnf_poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8,
                         reduction="mean"):
    """Negative log-likelihood of ``target`` under Poisson(rate): with ``log_input`` (input is
    the log of the rate) ``exp(input) - target * input``, else
    ``input - target * log(input + eps)``. ``full`` adds Stirling's approximation of
    log(target!), ``target log(target) - target + log(2 pi target) / 2``, where target > 1."""
    _check(reduction)
    input, target = as_tensor(input), as_tensor(target)
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(target * (2 * math.pi))
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def nnf_gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under Normal(input, var):
    ``(log(var) + (input - target)^2 / var) / 2``, plus ``log(2 pi) / 2`` when ``full``.
    ``var`` has input's shape, or lacks its last dim, or has size 1 in one dim (one variance
    shared along it), or is a number; it must be non-negative and is clamped to at least
    ``eps`` without that clamp taking part in the gradient (as PyTorch)."""
    input, target = as_tensor(input), as_tensor(target)
    if not hasattr(var, "_data"):
        var = float(var)
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _full_like(input, var)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(
                v for i, v in zip(input.shape, var.shape) if i != v) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    _check(reduction)
    var = var.clone()
    with with_no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _full_like(input, value):
    return torch_ones_like(input) * value
