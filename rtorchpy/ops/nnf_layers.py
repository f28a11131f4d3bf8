"""More neural-network functions named as R torch's ``nnf_*``: the activations, losses,
normalization, dropout, embedding and bilinear layers that ``nn_*`` modules are made of (and
the GELU formula's ``erf`` is ``torch_erf`` of ``ops/special.py``).

Each computes eagerly with NumPy and records the node libtorch records (``GeluBackward0``,
``NativeLayerNormBackward0``, ...); the formulas are in ``derivatives/nn.py``. float32 and
float16 inputs are computed in float64 and rounded once (see ``numerics/rounded.py``), so results
are the same on every CPU. Where libtorch composes a function from other ops, so does rtorchpy,
and the graph shows the same nodes: ``nnf_l1_loss`` is ``abs(input - target)`` reduced
(``MeanBackward0``), ``nnf_dropout`` multiplies by a scaled Bernoulli mask (``MulBackward0``).

These functions are re-exported by ``rtorchpy.nnf`` (and so reach the R package's generator).
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..autograd.graph import bump_version
from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import nn as _derivatives_nn  # noqa: F401  (registers the rows used below)
from ..numerics import draws, rounded, special
from ..numerics.arrays import mean_of
from ..numerics.format import type_word_for
from ..numerics.shape_errors import shape_error
from ..numerics.warn import warn
from ..tensor import Tensor
from . import inplace as inplace_ops
from .arith import mul, sub
from .creation import _size
from .random_state import engine
from .registry import as_tensor, operands, recording, wrap

__all__ = [
    "nnf_gelu", "nnf_silu", "nnf_elu", "nnf_leaky_relu", "nnf_relu6", "nnf_hardtanh",
    "nnf_softplus", "nnf_logsigmoid", "nnf_l1_loss", "nnf_smooth_l1_loss", "nnf_huber_loss",
    "nnf_binary_cross_entropy_with_logits", "nnf_dropout", "nnf_layer_norm", "nnf_batch_norm",
    "nnf_embedding", "nnf_bilinear",
]

_F64 = np.dtype(np.float64)
_REDUCTIONS = ("mean", "sum", "none")


# ------------------------------------------------------------------------------ helpers

def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction; use 'mean', 'sum' or "
                         "'none'")


def _float_input(x, name, what="input"):
    """``x`` as a floating-point Tensor, with libtorch's refusal for other dtypes."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{what}' must be a Tensor, not {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(x._data.dtype)}\'')
    return x


def _in_f64(x):
    """The array in float64 (for float32/float16: computed wide, rounded once at the end)."""
    return x.astype(_F64, copy=False)


def _unary(input, name, compute, node_name, params):
    """An elementwise activation: ``compute(float64 array) -> float64 array``, rounded back to
    the input's dtype, recording ``node_name`` (whose row says what it saves)."""
    input = _float_input(input, name)
    x = input._data
    out = wrap(np.asarray(compute(_in_f64(x)), dtype=x.dtype))
    if recording(input):
        record(NODES[node_name], (input,), (out,), params=params)
    return out


def _maybe_inplace(input, inplace, fn):
    """``fn(input)``, or its values written into ``input`` (``inplace=True``: libtorch's checks
    on in-place ops apply; the input's history is rebased onto the op's node)."""
    if inplace:
        return inplace_ops.inplace(input, fn)
    return fn(input)


def _reduce(terms, reduction):
    """A loss's elementwise terms (float64) reduced as asked."""
    if reduction == "none":
        return terms
    return mean_of(terms) if reduction == "mean" else terms.sum()


def _pair(input, target, name):
    """Loss operands as tensors; warn (as PyTorch) when their shapes differ."""
    input, target = as_tensor(input), as_tensor(target)
    if input.shape != target.shape:
        warn(f"Using a target size ({list(target.shape)}) that is different to the input "
             f"size ({list(input.shape)}). This will likely lead to incorrect results due "
             "to broadcasting. Please ensure they have the same size.", stacklevel=3)
    return input, target


def _difference(input, target):
    """input - target in float64 and the result dtype (libtorch's promotion); shape errors
    named as libtorch names them."""
    x, y, dt = operands(input, target)
    try:
        return _in_f64(x) - _in_f64(y), dt
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, x.shape, y.shape) from None


# ------------------------------------------------------------------------------ activations

def _gelu_none(x):
    return 0.5 * x * (1.0 + special.erf(x * (1.0 / math.sqrt(2.0))))


def _gelu_tanh(x):
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + np.tanh(inner))


def nnf_gelu(input, approximate="none"):
    """Gaussian error linear unit: ``input * Phi(input)`` with Phi the standard normal cdf
    (``approximate = "none"``), or its tanh approximation ``0.5 x (1 + tanh(sqrt(2/pi)
    (x + 0.044715 x^3)))`` (``approximate = "tanh"``)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    return _unary(input, "nnf_gelu", _gelu_none if approximate == "none" else _gelu_tanh,
                  "GeluBackward0", (approximate,))


def nnf_silu(input, inplace=False):
    """Sigmoid linear unit (swish): ``input * sigmoid(input)``."""
    return _maybe_inplace(input, inplace, lambda t: _unary(
        t, "nnf_silu", lambda x: x * rounded.sigmoid(x), "SiluBackward0", ()))


def nnf_elu(input, alpha=1.0, inplace=False):
    """Exponential linear unit: ``input`` where positive, else ``alpha * (exp(input) - 1)``.
    In place, the gradient comes from the result (``EluBackward1``, as libtorch's ``elu_``)."""
    alpha = float(alpha)
    return _maybe_inplace(input, inplace, lambda t: _unary(
        t, "nnf_elu", lambda x: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))),
        "EluBackward1" if inplace else "EluBackward0", (alpha,)))


def nnf_leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``. In place, the gradient comes
    from the result (``LeakyReluBackward1``; a negative slope is then refused in backward, as
    libtorch refuses it)."""
    slope = float(negative_slope)
    return _maybe_inplace(input, inplace, lambda t: _unary(
        t, "nnf_leaky_relu", lambda x: np.where(x > 0, x, x * slope),
        "LeakyReluBackward1" if inplace else "LeakyReluBackward0", (slope,)))


def nnf_hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clamped to [min_val, max_val] (gradient 0 outside and at the bounds)."""
    lo, hi = float(min_val), float(max_val)
    if lo > hi:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, lambda t: _unary(
        t, "nnf_hardtanh", lambda x: np.clip(x, lo, hi), "HardtanhBackward0", (lo, hi)))


def nnf_relu6(input, inplace=False):
    """``min(max(input, 0), 6)``: hardtanh(input, 0, 6), as libtorch records it."""
    return nnf_hardtanh(input, 0.0, 6.0, inplace)


def _softplus(x, beta, threshold):
    z = x * beta
    # log1p(exp(z)) = max(z, 0) + log1p(exp(-|z|)): no overflow for large z
    soft = (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta
    return np.where(z > threshold, x, soft)


def nnf_softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta * input)) / beta``, and ``input`` itself where ``beta * input >
    threshold`` (for numerical stability, as libtorch)."""
    beta, threshold = float(beta), float(threshold)
    return _unary(input, "nnf_softplus", lambda x: _softplus(x, beta, threshold),
                  "SoftplusBackward0", (beta, threshold))


def nnf_logsigmoid(input):
    """``log(sigmoid(input))``, computed without overflow: ``min(x, 0) - log1p(exp(-|x|))``."""
    return _unary(input, "nnf_logsigmoid",
                  lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
                  "LogSigmoidBackward0", ())


# ------------------------------------------------------------------------------ losses

def nnf_l1_loss(input, target, reduction="mean"):
    """Mean (or summed) absolute error. As libtorch, a composition: ``abs(input - target)``
    then the reduction (``MeanBackward0`` / ``SumBackward0`` / ``AbsBackward0``)."""
    _check_reduction(reduction)
    input, target = _pair(input, target, "l1_loss")
    terms = sub(input, target).abs()
    if reduction == "none":
        return terms
    return terms.mean() if reduction == "mean" else terms.sum()


def _pointwise_loss(input, target, reduction, compute, node_name, params, name):
    _check_reduction(reduction)
    input, target = _pair(input, target, name)
    d, dt = _difference(input, target)
    if dt.kind != "f":
        raise RuntimeError(f'"{name}" not implemented for \'{type_word_for(dt)}\'')
    terms = compute(d)
    out = wrap(np.asarray(_reduce(terms, reduction), dtype=dt))
    if recording(input, target):
        record(NODES[node_name], (input, target), (out,),
               params=(reduction,) + params + (terms.size,))
    return out


def nnf_smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Smooth L1 loss: ``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` with
    ``d = input - target``. ``beta = 0`` is the L1 loss (as in PyTorch)."""
    beta = float(beta)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return nnf_l1_loss(input, target, reduction)

    def compute(d):
        a = np.abs(d)
        return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)
    return _pointwise_loss(input, target, reduction, compute, "SmoothL1LossBackward0", (beta,),
                           "smooth_l1_loss")


def nnf_huber_loss(input, target, reduction="mean", delta=1.0):
    """Huber loss: ``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)`` with
    ``d = input - target``."""
    delta = float(delta)
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def compute(d):
        a = np.abs(d)
        return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return _pointwise_loss(input, target, reduction, compute, "HuberLossBackward0", (delta,),
                           "huber_loss")


def _constant(x, what, dtype):
    """An optional weight tensor as an array of ``dtype``; refused when it requires grad in
    grad mode (libtorch has no derivative for it either)."""
    if x is None:
        return None
    x = as_tensor(x)
    if recording(x):
        raise RuntimeError(f"the derivative for '{what}' is not implemented.")
    return x._data.astype(dtype, copy=False)


def nnf_binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                         pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed from the logits
    without overflow: ``(1 - t) x + lw * softplus(-x)`` with ``lw = 1 + (pos_weight - 1) t``
    (``pos_weight`` weighs the positive class, broadcast over the last dim), times ``weight``."""
    _check_reduction(reduction)
    input, target = as_tensor(input), as_tensor(target)
    _float_input(input, "binary_cross_entropy_with_logits")
    if target.shape != input.shape:
        raise ValueError(f"Target size (torch.Size({list(target.shape)})) must be the same as "
                         f"input size (torch.Size({list(input.shape)}))")
    dt = input._data.dtype
    w = _constant(weight, "weight", dt)
    pw = _constant(pos_weight, "pos_weight", dt)
    x, t = _in_f64(input._data), _in_f64(target._data)
    softplus_neg = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    try:
        if pw is None:
            terms = (1 - t) * x + softplus_neg
        else:
            terms = (1 - t) * x + ((_in_f64(pw) - 1) * t + 1) * softplus_neg
        if w is not None:
            terms = terms * _in_f64(w)
    except ValueError as e:  # NumPy's broadcasting error
        shapes = [s.shape for s in (x, w, pw) if s is not None]
        raise shape_error(e, *shapes) from None
    if terms.shape != x.shape:
        raise RuntimeError(f"the weights of shape {list(terms.shape)} do not broadcast to the "
                           f"input's shape {list(x.shape)}")
    out = wrap(np.asarray(_reduce(terms, reduction), dtype=dt))
    if recording(input, target):
        record(NODES["BinaryCrossEntropyWithLogitsBackward0"], (input, target), (out,),
               params=(w, pw, reduction, terms.size))
    return out


# ------------------------------------------------------------------------------ dropout

def nnf_dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)`` during
    training; the input itself otherwise (or when ``p = 0``). As libtorch on the CPU, the input
    is multiplied by the scaled Bernoulli mask (``MulBackward0``). The mask draws from
    the generator as libtorch's does (a float64 uniform per element, kept when below
    ``1 - p``), so a seed gives R torch's and PyTorch's mask."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    input = _float_input(input, "nnf_dropout")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1.0:
        mask = Tensor._make(np.zeros((), dt))
    else:
        keep = draws.unit_float64(engine(), input._data.size) < 1.0 - p
        mask = Tensor._make(keep.reshape(input.shape).astype(dt) / dt.type(1.0 - p))
    return input.mul_(mask) if inplace else mul(input, mask)


# ------------------------------------------------------------------------------ normalization

def _same_dtype(input, others, name):
    for o in others:
        if o is not None and o._data.dtype != input._data.dtype:
            raise RuntimeError(f"{name}: mixed dtype (CPU): expected every parameter to have "
                               f"the input's dtype {type_word_for(input._data.dtype)}, got "
                               f"{type_word_for(o._data.dtype)}")


def nnf_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last ``len(normalized_shape)`` dims: ``(x - mean) / sqrt(var + eps)``
    (biased variance), then ``* weight + bias`` (each of shape ``normalized_shape``)."""
    input = _float_input(input, "nnf_layer_norm")
    shape = _size((normalized_shape,))  # (an int, a whole float from R, or a sequence)
    k = len(shape)
    if k == 0 or input.shape[input.ndim - k:] != shape or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in shape)}], but got input of size"
                           f"{list(input.shape)}")
    weight = None if weight is None else as_tensor(weight)
    bias = None if bias is None else as_tensor(bias)
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got "
                               f"{what} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    _same_dtype(input, (weight, bias), "layer_norm")
    x = _in_f64(input._data)
    dims = tuple(range(x.ndim - k, x.ndim))
    centered = x - x.mean(axis=dims, keepdims=True)
    rstd = 1.0 / np.sqrt((centered * centered).mean(axis=dims, keepdims=True) + eps)
    y = centered * rstd
    if weight is not None:
        y = y * _in_f64(weight._data)
    if bias is not None:
        y = y + _in_f64(bias._data)
    out = wrap(np.asarray(y, dtype=input._data.dtype))
    if recording(input, *(t for t in (weight, bias) if t is not None)):
        record(NODES["NativeLayerNormBackward0"], _three_inputs(input, weight, bias), (out,),
               params=(k, float(eps), weight is not None, bias is not None))
    return out


def _three_inputs(input, weight, bias):
    """(input, weight, bias) for a normalization node, an absent weight or bias stood in for by
    an empty constant: the node then has libtorch's three edges, None where absent."""
    def absent():
        return Tensor._make(np.empty(0, input._data.dtype))
    return (input, absent() if weight is None else weight, absent() if bias is None else bias)


def _channel_vector(t, what, c):
    if t is None:
        return None
    t = as_tensor(t)
    if t.numel() != c:
        raise RuntimeError(f"{what} should contain {c} elements not {t.numel()}")
    return t


def nnf_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
                   momentum=0.1, eps=1e-5):
    """Batch normalization over dim 1 (the channels) of an input ``(N, C, ...)``.

    Training: normalize by the batch's mean and biased variance per channel, and update
    ``running_mean`` / ``running_var`` in place (when given) as ``(1 - momentum) * running +
    momentum * batch`` (the unbiased variance for ``running_var``). Evaluation: normalize by
    the running statistics. Then ``* weight + bias`` per channel."""
    input = _float_input(input, "nnf_batch_norm")
    if input.ndim < 2:
        raise ValueError(f"expected 2D or more input (got {input.ndim}D input)")
    c = input.shape[1]
    running_mean = _channel_vector(running_mean, "running_mean", c)
    running_var = _channel_vector(running_var, "running_var", c)
    weight = _channel_vector(weight, "weight", c)
    bias = _channel_vector(bias, "bias", c)
    _same_dtype(input, (weight, bias), "batch_norm")
    x = _in_f64(input._data)
    red = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    count = x.size // c if c else 0
    if training:
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(input.shape)}")
        mean = x.mean(axis=red, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=red, keepdims=True)
        stats = None
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean = _in_f64(running_mean._data).reshape(bshape)
        var = _in_f64(running_var._data).reshape(bshape)
        centered = x - mean
    rstd = 1.0 / np.sqrt(var + eps)
    y = centered * rstd
    if weight is not None:
        y = y * _in_f64(weight._data).reshape(bshape)
    if bias is not None:
        y = y + _in_f64(bias._data).reshape(bshape)
    out = wrap(np.asarray(y, dtype=input._data.dtype))
    if not training:
        stats = (mean.astype(input._data.dtype), rstd.astype(input._data.dtype))
    if training:
        m = float(momentum)
        with with_no_grad():
            for running, batch in ((running_mean, mean.reshape(c)),
                                   (running_var, var.reshape(c) * count / (count - 1))):
                if running is not None:
                    r = running._data
                    r[...] = ((1 - m) * _in_f64(r) + m * batch).astype(r.dtype)
                    bump_version(running)
    if recording(input, *(t for t in (weight, bias) if t is not None)):
        record(NODES["NativeBatchNormBackward0"], _three_inputs(input, weight, bias), (out,),
               params=(stats, float(eps), weight is not None, bias is not None))
    return out


# ------------------------------------------------------------------------------ embedding

def nnf_embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (num_embeddings, embedding_dim) picked by the integer ``input``
    (0-based in Python): the result has shape ``input.shape + (embedding_dim,)``.

    ``padding_idx``: that row gets no gradient. ``max_norm``: rows about to be used whose
    ``norm_type``-norm exceeds it are rescaled in place to norm ``max_norm`` first.
    ``scale_grad_by_freq``: each gradient is divided by how often its index occurs in ``input``."""
    input, weight = as_tensor(input), as_tensor(weight)
    if sparse:
        raise NotImplementedError("rtorchpy has no sparse tensors: use sparse = False")
    idx = input._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"torch.{type_word_for(idx.dtype)}Tensor instead (while checking "
                           f"arguments for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    n = weight.shape[0]
    if padding_idx is not None:
        padding_idx = int(padding_idx)
        if not -n <= padding_idx < n:
            raise ValueError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    idx = idx.astype(np.int64)
    if max_norm is not None:
        _renorm_rows(weight, idx, float(max_norm), float(norm_type))
    out = wrap(weight._data[idx])
    if recording(weight):
        g_scale = None
        if scale_grad_by_freq:
            counts = np.bincount(idx.reshape(-1), minlength=n)
            g_scale = counts[idx]
        record(NODES["EmbeddingBackward0"], (weight,), (out,),
               params=(idx if g_scale is None else (idx, g_scale), n, padding_idx))
    return out


def _renorm_rows(weight, idx, max_norm, norm_type):
    """libtorch's embedding_renorm_: in place, outside autograd."""
    rows = np.unique(idx)
    data = weight._data
    w = _in_f64(data[rows])
    norms = np.linalg.norm(w, ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = max_norm / (norms[big] + 1e-7)
        data[rows[big]] = (w[big] * scale[:, None]).astype(data.dtype)
        bump_version(weight)


# ------------------------------------------------------------------------------ bilinear

_TRILINEAR = NODES["TrilinearBackward0"]


def _trilinear(x1, x2, weight):
    """out[b, o] = sum_ij x1[b, i] weight[o, i, j] x2[b, j] for 2-d x1, x2 (TrilinearBackward0)."""
    a, b, w = x1._data, x2._data, weight._data
    dt = np.result_type(a.dtype, b.dtype, w.dtype)
    data = np.einsum("bi,oij,bj->bo", a.astype(dt, copy=False), w.astype(dt, copy=False),
                     b.astype(dt, copy=False))
    out = wrap(np.ascontiguousarray(data, dtype=dt))
    if recording(x1, x2, weight):
        record(_TRILINEAR, (x1, x2, weight), (out,))
    return out


def nnf_bilinear(input1, input2, weight, bias=None):
    """``out[..., o] = input1[..., i] weight[o, i, j] input2[..., j] + bias[o]`` (summed over i
    and j); the leading dims of ``input1`` and ``input2`` must agree."""
    input1, input2, weight = as_tensor(input1), as_tensor(input2), as_tensor(weight)
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got "
                           f"{weight.ndim}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    if input1.ndim == 0:
        raise RuntimeError("bilinear(): inputs must have at least one dimension")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    for k, t in ((1, input1), (2, input2)):
        if t.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{t.shape[-1]} but expected {weight.shape[k]}")
    if bias is not None:
        bias = as_tensor(bias)
        if bias.ndim != 1 or bias.shape[0] != weight.shape[0]:
            raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                               f"{bias.shape[-1] if bias.ndim else 0} but expected "
                               f"{weight.shape[0]}")
    lead = input1.shape[:-1]
    out = _trilinear(input1.reshape(-1, input1.shape[-1]), input2.reshape(-1, input2.shape[-1]),
                     weight)
    out = out.reshape(*lead, weight.shape[0])
    return out if bias is None else out + bias
