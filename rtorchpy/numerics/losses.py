"""Loss functions' bookkeeping on arrays: the per-row weights and targets of the negative
log-likelihood, and its gradient laid out like the input (used by the forward, by the
backward on arrays, and by the recorded backward)."""
from __future__ import annotations

import numpy as np


def nll_terms(rows, t, weight, ignore_index):
    c = rows.shape[1]
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    if np.any((safe < 0) | (safe >= c)):
        bad = int(safe[(safe < 0) | (safe >= c)][0])
        raise IndexError(f"Target {bad} is out of bounds.")
    w = weight[safe] if weight is not None else np.ones(len(t), rows.dtype)
    w = w * valid
    return safe, w


def nll_coefficients(g_flat, shape, target, weight, reduction, ignore_index, total_weight):
    rows_shape = (int(np.prod(shape)) // shape[1], shape[1]) if len(shape) > 1 else (1, shape[0])
    t = target.reshape(-1) if len(shape) != 1 else target.reshape(1)
    safe, w = nll_terms(np.zeros(rows_shape, dtype=np.float64), t, weight, ignore_index)
    coef = -w
    if reduction == "mean":
        # ignored targets get no gradient, even when every target is ignored (total weight 0:
        # the loss is NaN, as in libtorch, but the gradient stays 0 rather than 0/0)
        with np.errstate(divide="ignore", invalid="ignore"):
            coef = np.where(t != ignore_index, coef / total_weight, 0.0)
    return rows_shape, safe, coef


def to_layout(grid, shape):
    """Undo ``_nll_layout``: (M, C) rows back to the input's shape."""
    if len(shape) <= 2:
        return grid.reshape(shape)
    moved_shape = (shape[0],) + tuple(shape[2:]) + (shape[1],)
    return grid.reshape(moved_shape)


def nll_grad_array(g, shape, target, weight, reduction, ignore_index, total_weight):
    rows_shape, safe, coef = nll_coefficients(None, shape, target, weight, reduction,
                                               ignore_index, total_weight)
    per_row = coef * (np.asarray(g).reshape(-1) if reduction == "none" else np.asarray(g))
    grid = np.zeros(rows_shape, dtype=np.asarray(g).dtype)
    grid[np.arange(rows_shape[0]), safe] = per_row
    if len(shape) > 2:
        return np.moveaxis(to_layout(grid, shape), -1, 1)
    return grid.reshape(shape)
