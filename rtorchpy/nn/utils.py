"""Gradient clipping: ``nn_utils_clip_grad_norm_`` and ``nn_utils_clip_grad_value_``."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.graph import bump_version
from ..tensor import Tensor

__all__ = ["nn_utils_clip_grad_norm_", "nn_utils_clip_grad_value_"]


def _grads(parameters):
    """The gradients of ``parameters`` (a tensor, or a list or dict of them, e.g.
    ``model.parameters``), skipping parameters without one."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    elif hasattr(parameters, "values") and callable(parameters.values):
        parameters = list(parameters.values())
    out = []
    for p in parameters:
        if not isinstance(p, Tensor):
            raise TypeError(f"expected tensors, got {type(p).__name__}")
        if p.grad is not None:
            out.append(p.grad)
    return out


def _scale_in_place(g, factor):
    data = g._data
    data *= data.dtype.type(factor)
    bump_version(g)


def nn_utils_clip_grad_norm_(parameters, max_norm, norm_type=2, error_if_nonfinite=False):
    """Scale the gradients of ``parameters`` in place so that their total norm (the
    ``norm_type``-norm of all of them together; ``inf`` for the largest absolute value) is at
    most ``max_norm``. Returns the total norm before clipping, as a tensor."""
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._make(np.array(0.0, np.float32))
    dt = np.result_type(*[g._data.dtype for g in grads])
    if norm_type == math.inf:
        norms = [np.abs(g._data).max(initial=0.0) for g in grads]
        total = max(norms)
    else:
        norms = [np.linalg.norm(g._data.reshape(-1).astype(np.float64), norm_type)
                 for g in grads]
        total = np.linalg.norm(np.array(norms), norm_type)
    total = dt.type(total)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    coef = max_norm / (float(total) + 1e-6)
    if coef < 1:
        for g in grads:
            _scale_in_place(g, coef)
    return Tensor._make(np.array(total, dt))


def nn_utils_clip_grad_value_(parameters, clip_value):
    """Clamp the gradients of ``parameters`` in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        bump_version(g)
    return None
