"""Parameter initialization: ``nn_init_*_`` (R torch's names, PyTorch's definitions).

Each function fills its tensor in place, outside autograd (as under ``with_no_grad()``, so a
parameter that requires grad can be filled), bumps its version counter, and returns the tensor.
Random values are drawn as the tensor's own ``uniform_``/``normal_`` draw them (its dtype,
libtorch's generator), so after ``torch_manual_seed()`` they are PyTorch's and R torch's.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..autograd.graph import bump_version
from ..numerics import rounded
from ..ops.random_state import normal_array, uniform_array
from ..tensor import Tensor

__all__ = ["nn_init_uniform_", "nn_init_normal_", "nn_init_constant_", "nn_init_zeros_",
           "nn_init_ones_", "nn_init_eye_", "nn_init_xavier_uniform_", "nn_init_xavier_normal_",
           "nn_init_kaiming_uniform_", "nn_init_kaiming_normal_", "nn_init_orthogonal_",
           "nn_init_calculate_gain", "nn_init_trunc_normal_"]


def _fill(tensor, values):
    """Write ``values`` into ``tensor``'s storage (no history) and bump its version."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"expected a tensor, got {type(tensor).__name__}")
    data = tensor._data
    if not data.flags.writeable:
        raise RuntimeError("unsupported operation: the tensor's memory is read-only (an "
                           "expanded view); initialize a tensor that owns its memory")
    data[...] = np.asarray(values).astype(data.dtype, copy=False)
    bump_version(tensor)
    return tensor


def _float_tensor(tensor, name):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(tensor).__name__}")
    if tensor._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: expected a floating point tensor, got {tensor.dtype!r}")
    return tensor


def nn_init_calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + negative_slope^2)) for leaky_relu (``param``, default
    0.01), 3/4 for selu."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def nn_init_uniform_(tensor, a=0.0, b=1.0):
    """Fill with values drawn uniformly from [a, b)."""
    _float_tensor(tensor, "nn_init_uniform_")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} "
                           f"> to={b}")
    return _fill(tensor, uniform_array(tensor._data, a, b))


def nn_init_normal_(tensor, mean=0.0, std=1.0):
    """Fill with draws from N(mean, std^2)."""
    _float_tensor(tensor, "nn_init_normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(tensor, normal_array(tensor._data, mean, std))


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def nn_init_trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Fill with draws from N(mean, std^2) truncated to [a, b], as PyTorch 2.13 draws them:
    when the interval holds more than 30% of the mass, normal draws of the whole tensor,
    repeated (again for the whole tensor, kept where still needed) until every value is
    inside; otherwise rejection from uniform proposals on [a, b], each accepted when
    ``log(u) <= -((x - mean) / std)^2 / 2 - log_peak`` for a further uniform ``u``, in the
    tensor's dtype."""
    _float_tensor(tensor, "nn_init_trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    like = tensor._data
    dt = like.dtype
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        lo, hi = dt.type(a), dt.type(b)
        x = normal_array(like, mean, std)
        out = (x < lo) | (x > hi)
        while out.any():
            x = np.where(out, normal_array(like, mean, std), x)
            out = (x < lo) | (x > hi)
        return _fill(tensor, x)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def score(v):
        z = (v - dt.type(mean)) / dt.type(std)
        return (z * z) * dt.type(-0.5) - dt.type(log_peak)

    x = uniform_array(like, a, b)
    pending = rounded.log(uniform_array(like)) > score(x)
    while pending.any():
        cand = uniform_array(like, a, b)
        x = np.where(pending, cand, x)
        pending = np.where(pending, rounded.log(uniform_array(like)) > score(cand), pending)
    return _fill(tensor, x)


def nn_init_constant_(tensor, val):
    """Fill with ``val``."""
    if isinstance(val, Tensor):
        val = val.item()
    return _fill(tensor, np.full(tensor.shape, val))


def nn_init_zeros_(tensor):
    """Fill with 0."""
    return _fill(tensor, np.zeros(tensor.shape))


def nn_init_ones_(tensor):
    """Fill with 1."""
    return _fill(tensor, np.ones(tensor.shape))


def nn_init_eye_(tensor):
    """Fill a 2-d tensor with the identity matrix (ones on the diagonal, zeros elsewhere)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def nn_init_xavier_uniform_(tensor, gain=1.0):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    _float_tensor(tensor, "nn_init_xavier_uniform_")
    fan_in, fan_out = _fans(tensor)
    bound = gain * math.sqrt(2.0 / float(fan_in + fan_out)) * math.sqrt(3.0)
    return _fill(tensor, uniform_array(tensor._data, -bound, bound))


def nn_init_xavier_normal_(tensor, gain=1.0):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    _float_tensor(tensor, "nn_init_xavier_normal_")
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _fill(tensor, normal_array(tensor._data, 0.0, std))


def _kaiming_std(tensor, a, mode, nonlinearity):
    return nn_init_calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def _empty_is_a_no_op(tensor):
    """A tensor without elements is left as it is, with PyTorch's warning."""
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def nn_init_kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan), ``fan`` the fan-in or
    fan-out (``mode``) and ``gain`` that of ``nonlinearity`` with negative slope ``a``."""
    _float_tensor(tensor, "nn_init_kaiming_uniform_")
    if _empty_is_a_no_op(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _fill(tensor, uniform_array(tensor._data, -bound, bound))


def nn_init_kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """He normal: N(0, std^2) with std = gain / sqrt(fan)."""
    _float_tensor(tensor, "nn_init_kaiming_normal_")
    if _empty_is_a_no_op(tensor):
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return _fill(tensor, normal_array(tensor._data, 0.0, std))


def nn_init_orthogonal_(tensor, gain=1.0):
    """A (semi-)orthogonal matrix times ``gain`` (dims after the first are flattened): the Q of
    the QR decomposition of a standard normal matrix, its columns' signs fixed by R's
    diagonal."""
    _float_tensor(tensor, "nn_init_orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = normal_array(np.empty((rows, cols), tensor._data.dtype)).astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    d = np.sign(np.diag(r))
    d[d == 0] = 1
    q = q * d
    if rows < cols:
        q = q.T
    return _fill(tensor, (q * gain).reshape(tensor.shape))
