"""Neural-network functions named as R torch's ``nnf_*``: activations, losses and ``nnf_one_hot``.

Losses take ``reduction`` = "mean" (default), "sum" or "none". Class targets are 0-based int64
in Python (the R package converts R torch's 1-based targets).
"""
from __future__ import annotations

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import rounded
from ..numerics.arrays import mean_of
from ..numerics.losses import nll_coefficients, nll_terms, to_layout
from ..numerics.shape_errors import shape_error
from ..numerics.warn import warn
from . import elementwise, linalg, reduce
from .index import index_backward
from .matrix import _int
# activations, losses, normalization, dropout, embedding, bilinear
from .conv import *  # noqa: F401,F403  (convolutions)
from .conv import __all__ as _conv_names
from .pad import nnf_pad  # noqa: F401
from .pool import *  # noqa: F401,F403  (pooling)
from .pool import __all__ as _pool_names
from .pool_adaptive import *  # noqa: F401,F403  (adaptive pooling, unpooling)
from .pool_adaptive import __all__ as _adaptive_names
from .nnf_norm import *  # noqa: F401,F403  (group and instance norm, channel dropout)
from .nnf_norm import __all__ as _norm_names
from .fold import *  # noqa: F401,F403  (unfold/fold, pixel shuffle)
from .fold import __all__ as _fold_names
from .interpolate import *  # noqa: F401,F403  (interpolation)
from .interpolate import __all__ as _interp_names
from .nnf_composite import *  # noqa: F401,F403  (normalize, lp pooling, local response norm)
from .nnf_composite import __all__ as _composite_names
from .grid_sample import *  # noqa: F401,F403  (affine grids, grid sampling)
from .grid_sample import __all__ as _grid_names
from .attention import *  # noqa: F401,F403  (attention)
from .attention import __all__ as _attention_names
from .nnf_bag import *  # noqa: F401,F403  (embedding bags)
from .nnf_bag import __all__ as _bag_names
from .nnf_activations import *  # noqa: F401,F403  (more activations)
from .nnf_activations import __all__ as _activation_names
from .nnf_margin_losses import *  # noqa: F401,F403  (margin and embedding losses)
from .nnf_margin_losses import __all__ as _margin_loss_names
from .nnf_layers import *  # noqa: F401,F403
from .nnf_layers import __all__ as _layer_names
from .nnf_losses import *  # noqa: F401,F403  (kl_div, poisson_nll_loss, gaussian_nll_loss)
from .nnf_losses import __all__ as _loss_names
from .pool_fractional import *  # noqa: F401,F403  (fractional max pooling)
from .pool_fractional import __all__ as _fractional_names
from .torch_layers import *  # noqa: F401,F403  (torch_conv2d, torch_batch_norm, ...)
from .torch_layers import __all__ as _torch_layer_names
from .nnf_more import *  # noqa: F401,F403  (mish, rrelu's training mode, sparsemax, ...)
from .nnf_more import __all__ as _more_names
from .ctc import nnf_ctc_loss  # noqa: F401
from .registry import as_tensor, operands, recording, wrap

__all__ = ["nnf_relu", "nnf_sigmoid", "nnf_tanh", "nnf_softmax", "nnf_log_softmax",
           "nnf_mse_loss", "nnf_nll_loss", "nnf_cross_entropy", "nnf_linear",
           "nnf_binary_cross_entropy"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction; use 'mean', 'sum' or "
                         "'none'")


def nnf_relu(input, inplace=False):
    """max(input, 0); ``inplace=True`` overwrites ``input``."""
    return input.relu_() if inplace else elementwise.relu(input)


def nnf_sigmoid(input):
    return elementwise.sigmoid(input)


def nnf_tanh(input):
    return elementwise.tanh(input)


def nnf_softmax(input, dim, dtype=None):
    return reduce.softmax(input, dim, dtype)


def nnf_log_softmax(input, dim, dtype=None):
    return reduce.log_softmax(input, dim, dtype)


def nnf_linear(input, weight, bias=None):
    """``input @ weight^T + bias`` (AddmmBackward0 for a 2-d input with bias, as libtorch)."""
    input, weight = as_tensor(input), as_tensor(weight)
    if input.ndim == 2 and bias is not None:
        return linalg.addmm(as_tensor(bias), input, weight.t())
    out = linalg.matmul(input, weight.t())
    return out if bias is None else out + bias


def nnf_mse_loss(input, target, reduction="mean"):
    """Mean (or summed) squared error."""
    _check_reduction(reduction)
    input, target = as_tensor(input), as_tensor(target)
    if input.shape != target.shape:
        warn(f"Using a target size ({list(target.shape)}) that is different to the input "
             f"size ({list(input.shape)}). This will likely lead to incorrect results due "
             "to broadcasting. Please ensure they have the same size.", stacklevel=2)
    x, y, dt = operands(input, target)
    try:
        sq = (x - y) ** 2
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, x.shape, y.shape) from None
    count = sq.size
    data = sq if reduction == "none" else (mean_of(sq) if reduction == "mean" else sq.sum())
    out = wrap(np.asarray(data, dtype=dt))
    if recording(input, target):
        record(NODES["MseLossBackward0"], (input, target), (out,), (reduction, count))
    return out


def _nll_layout(input, target):
    """Reshape (N, C, d1, ...) inputs to (M, C) rows and targets to (M,)."""
    x = input._data
    t = target._data
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.word}")
    if x.ndim == 1:
        return x.reshape(1, -1), t.reshape(1)
    if x.ndim == 2:
        if t.shape != (x.shape[0],):
            raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                             f"batch_size ({t.shape[0] if t.ndim else 0}).")
        return x, t
    moved = np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])
    return moved, t.reshape(-1)


def nnf_nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of ``target`` classes given log-probabilities ``input``."""
    _check_reduction(reduction)
    input, target = as_tensor(input), as_tensor(target)
    wdata = as_tensor(weight)._data.astype(input._data.dtype) if weight is not None else None
    rows, t = _nll_layout(input, target)
    safe, w = nll_terms(rows, t, wdata, ignore_index)
    picked = -rows[np.arange(len(t)), safe] * w
    total = w.sum()
    if reduction == "none":
        data = picked.reshape(target.shape) if input.ndim > 1 else picked.reshape(())
    elif reduction == "sum":
        data = picked.sum()
    else:
        with np.errstate(invalid="ignore"):  # every target ignored: NaN, silently as libtorch
            data = picked.sum() / total
    out = wrap(np.asarray(data, dtype=input._data.dtype))
    if recording(input):
        # libtorch's nll_loss_nd goes through nll_loss2d for inputs of 3 or more dims
        node = NODES["NllLoss2DBackward0" if input.ndim >= 3 else "NllLossBackward0"]
        record(node, (input,), (out,),
               (input.shape, target._data, wdata, reduction, ignore_index, total))
    return out


def nll_grad_tensor(g, shape, target, weight, reduction, ignore_index, total_weight):
    rows_shape, safe, coef = nll_coefficients(None, shape, target, weight, reduction,
                                               ignore_index, total_weight)
    values = (g.reshape(-1) if reduction == "none" else g) * wrap(coef.astype(g._data.dtype))
    values = values.expand(rows_shape[0]) if values.ndim == 0 else values
    grid = index_backward(values, rows_shape, (np.arange(rows_shape[0]), safe))
    if len(shape) > 2:
        return to_layout(grid, shape).permute(0, len(shape) - 1, *range(1, len(shape) - 1))
    return grid.reshape(shape)


def nnf_cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Cross-entropy of raw scores ``input`` (N, C) against class indices or class
    probabilities ``target`` (log_softmax followed by nll_loss, as libtorch records it)."""
    input, target = as_tensor(input), as_tensor(target)
    dim = 1 if input.ndim >= 2 else 0
    logp = reduce.log_softmax(input, dim)
    if target._data.dtype.kind == "f":
        if target.shape != input.shape:
            raise ValueError("class-probability targets must have the input's shape "
                             f"{list(input.shape)}, got {list(target.shape)}")
        terms = -(logp * target) if weight is None else -(logp * target * as_tensor(weight))
        per = terms.sum(dim)
        _check_reduction(reduction)
        return per if reduction == "none" else (per.sum() if reduction == "sum" else
                                                per.sum() / (per.numel() if per.ndim else 1))
    return nnf_nll_loss(logp, target, weight, ignore_index, reduction)


def nnf_binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """-(target log(input) + (1 - target) log(1 - input)), logs clamped at -100 as libtorch."""
    _check_reduction(reduction)
    input, target = as_tensor(input), as_tensor(target)
    x = input._data
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if input.shape != target.shape:
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to the "
                         f"input size ({list(input.shape)}) is deprecated. Please ensure they "
                         "have the same size.")
    y = target._data.astype(x.dtype)
    with np.errstate(divide="ignore"):
        terms = -(y * np.maximum(rounded.log(x), -100) +
                   (1 - y) * np.maximum(rounded.log1p(-x), -100))
    w = as_tensor(weight)._data.astype(x.dtype) if weight is not None else None
    if w is not None:
        terms = terms * w
    data = terms if reduction == "none" else (mean_of(terms) if reduction == "mean" else
                                                terms.sum())
    out = wrap(np.asarray(data, dtype=x.dtype))
    if recording(input):
        record(NODES["BinaryCrossEntropyBackward0"], (input, target), (out,),
               (w, reduction, x.size))
    return out


def nnf_one_hot(tensor, num_classes=-1):
    """Class values (an int64 tensor of any shape, 0-based) as one-hot rows: int64 of shape
    ``(*tensor.shape, num_classes)``, 1 at each value's class. ``num_classes = -1`` takes one
    more than the largest value (an empty tensor needs it given). No gradient."""
    x = as_tensor(tensor)._data
    if x.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = _int(num_classes, "num_classes")
    if x.size == 0:
        if n <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return wrap(np.zeros(x.shape + (n,), np.int64))
    if x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if n == -1:
        n = int(x.max()) + 1
    elif n <= x.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(x.shape + (n,), np.int64)
    np.put_along_axis(out, x[..., None], 1, axis=-1)
    return wrap(out)


__all__ = (__all__ + ["nnf_one_hot"] + list(_layer_names) + list(_loss_names)
           + list(_conv_names) + ["nnf_pad"]
           + list(_pool_names) + list(_adaptive_names)
           + list(_norm_names) + list(_fold_names) + list(_interp_names)
           + list(_composite_names) + list(_grid_names) + list(_torch_layer_names)
           + list(_fractional_names) + list(_attention_names) + list(_bag_names)
           + list(_activation_names) + list(_margin_loss_names) + list(_more_names)
           + ["nnf_ctc_loss"])
