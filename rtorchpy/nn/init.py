"""Parameter initialization: ``nn_init_*_`` (R torch's names, PyTorch's definitions).

Each function fills its tensor in place, outside autograd (as under ``with_no_grad()``, so a
parameter that requires grad can be filled), bumps its version counter, and returns the tensor.
Random values are drawn as the tensor's own ``uniform_``/``normal_`` draw them (its dtype,
libtorch's generator), so after ``torch_manual_seed()`` they are PyTorch's and R torch's.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd.graph import bump_version
from ..numerics import rounded
from ..numerics.warn import warn
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
    if not isinstance(mode, str):
        raise TypeError(f"mode must be 'fan_in' or 'fan_out', not {type(mode).__name__}")
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


def _real(value, name, where):
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    raise TypeError(f"{where}(): argument '{name}' must be a number, not "
                    f"{type(value).__name__}")


# erfc(x) = t exp(-x^2 + P(t)), t = 1 / (1 + x/2), x >= 0: a Chebyshev fit with relative error
# below 1.2e-7 everywhere (Numerical Recipes' erfcc), in log form so far tails never underflow
_ERFC_P = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806,
           0.09678418, 0.37409196, 1.00002368, -1.26551223)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_erfc(x):
    """log erfc(x) for x >= 0 (arrays), without underflow."""
    t = 1.0 / (1.0 + 0.5 * x)
    poly = np.zeros_like(t)
    for c in _ERFC_P:
        poly = poly * t + c
    return np.log(t) - x * x + poly


def _log_ndtr(z):
    """log Phi(z), the standard normal's log CDF, for arrays of finite z."""
    neg = z <= 0
    lower = math.log(0.5) + _log_erfc(np.where(neg, -z, 0.0) / math.sqrt(2.0))
    upper = np.log1p(-0.5 * np.exp(_log_erfc(np.where(neg, 0.0, z) / math.sqrt(2.0))))
    return np.where(neg, lower, upper)


def _ndtri_guess(log_u):
    """Phi^-1(u) to about 3 digits from log u (Winitzki's closed form for erfinv, written with
    ln(1 - x^2) = ln(4u(1 - u)) so that tiny u keep their precision)."""
    k = 0.147
    u = np.exp(log_u)
    ln = math.log(4.0) + log_u + np.log1p(-np.minimum(u, 1.0 - 1e-16))
    b = 2.0 / (math.pi * k) + ln / 2
    x = np.sqrt(np.maximum(np.sqrt(b * b - ln / k) - b, 0.0))
    return math.sqrt(2.0) * np.where(u < 0.5, -x, x)


def _trunc_standard_normal(za, zb, u):
    """Standard normal draws truncated to [za, zb] (za < zb, za + zb <= 0, |zb| <= 1e8) from
    the uniforms ``u``, by the inverse CDF in log space: log Phi(z) = log(Phi(za) + u (Phi(zb) -
    Phi(za))) solved by Newton's method from a close guess, a bounded number of steps."""
    log_b = float(_log_ndtr(np.array(zb)))
    ratio = 0.0 if za == -math.inf else math.exp(float(_log_ndtr(np.array(za))) - log_b)
    target = log_b + np.log(ratio + u * (1.0 - ratio))
    low = za if za > -math.inf else -(abs(zb) + 40.0)  # Phi(low) is below any target then
    z = np.clip(_ndtri_guess(target), low, zb)
    tol = 1e-13 * min(1.0, zb - low)
    for _ in range(60):
        log_cdf = _log_ndtr(z)
        slope = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - log_cdf)  # d/dz log Phi(z)
        step = (target - log_cdf) / slope
        z = np.clip(z + step, low, zb)
        if not np.any(np.abs(step) > tol * np.maximum(1.0, np.abs(z))):
            break
    return z


def nn_init_trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Fill with draws from N(mean, std^2) truncated to [a, b], as PyTorch 2.13 draws them:
    when the interval holds more than 30% of the mass, normal draws of the whole tensor,
    repeated (again for the whole tensor, kept where still needed) until every value is
    inside; otherwise rejection from uniform proposals on [a, b], each accepted when
    ``log(u) <= -((x - mean) / std)^2 / 2 - log_peak`` for a further uniform ``u``, in the
    tensor's dtype. The rounds are bounded (_trunc_rounds): values still missing after them
    (arguments for which PyTorch would redraw for ages, such as a tiny std far from [a, b]) are
    drawn by the inverse CDF in log space instead (the same distribution, no redraws). ``a > b``,
    ``std <= 0`` and a non-finite mean are errors."""
    where = "nn_init_trunc_normal_"
    _float_tensor(tensor, where)
    mean, std = _real(mean, "mean", where), _real(std, "std", where)
    a, b = _real(a, "a", where), _real(b, "b", where)
    if not math.isfinite(mean):
        raise RuntimeError(f"{where}(): mean must be finite, got {mean}")
    if not std > 0:
        raise RuntimeError(f"{where}(): std must be positive, got {std}")
    if not a <= b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} "
                           f"> to={b}")
    if math.isinf(std) and not (math.isfinite(a) and math.isfinite(b)):
        raise RuntimeError(f"{where}(): an infinite std needs finite bounds a and b")
    if mean < a - 2 * std or mean > b + 2 * std:
        warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
             "distribution of values may be incorrect.", stacklevel=3)
    like = tensor._data
    dt = like.dtype
    if a == b:
        return _fill(tensor, np.full(like.shape, a))
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        lo, hi = dt.type(a), dt.type(b)
        x = normal_array(like, mean, std)
        out = (x < lo) | (x > hi)
        for _ in range(_trunc_rounds(like.size)):
            if not out.any():
                break
            x = np.where(out, normal_array(like, mean, std), x)
            out = (x < lo) | (x > hi)
        return _fill(tensor, _trunc_rest(x, out, mean, std, a, b))
    za, zb = (a - mean) / std, (b - mean) / std
    far = za * zb > 0 and min(abs(za), abs(zb)) > 30
    if far or not (math.isfinite(a) and math.isfinite(b)):
        # no uniform proposals on an infinite interval (PyTorch 2.13 fails here: "from is out
        # of bounds"), and none that the tensor's dtype can score when [a, b] lies more than 30
        # std from the mean (PyTorch's result is float rounding there): the inverse CDF for all
        return _fill(tensor, _trunc_rest(np.zeros(like.shape), np.ones(like.shape, bool), mean,
                                         std, a, b))
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2 if math.isfinite(std) else 0.0

    def score(v):
        z = (v - dt.type(mean)) / dt.type(std)
        return (z * z) * dt.type(-0.5) - dt.type(log_peak)

    x = uniform_array(like, a, b)
    pending = rounded.log(uniform_array(like)) > score(x)
    for _ in range(_trunc_rounds(like.size)):
        if not pending.any():
            break
        cand = uniform_array(like, a, b)
        x = np.where(pending, cand, x)
        pending = np.where(pending, rounded.log(uniform_array(like)) > score(cand), pending)
    return _fill(tensor, _trunc_rest(x, pending, mean, std, a, b))


def _trunc_rounds(n):
    """How many of PyTorch's rounds to run (each redraws the whole tensor): up to 1,000, fewer
    for large tensors (about 10^8 draws in all), never fewer than 50 (PyTorch needs about 40 for
    10^6 values when [a, b] holds only 30% of the mass)."""
    return int(min(1000, max(50, 10 ** 8 // max(n, 1))))


def _trunc_rest(x, missing, mean, std, a, b):
    """``x`` with its ``missing`` entries drawn by the inverse CDF (bounded work)."""
    if not missing.any():
        return x
    u = np.asarray(uniform_array(np.empty(int(missing.sum())), 0.0, 1.0), dtype=np.float64)
    x = np.array(x, copy=True)
    x[missing] = _inverse_cdf_draws(u, mean, std, a, b)
    return x


def _inverse_cdf_draws(u, mean, std, a, b):
    """Draws from N(mean, std^2) truncated to [a, b] from the uniforms ``u`` (float64), by the
    inverse CDF computed in log space: exact far in the tails, no redraws."""
    if math.isinf(std):
        return a + u * (b - a)
    za, zb = (a - mean) / std, (b - mean) / std
    if (b - a) / std * max(1.0, abs(za), abs(zb)) < 1e-7:  # a density flat across [a, b]
        return a + u * (b - a)
    flip = za + zb > 0  # work on the lower side, where log Phi keeps its precision
    if flip:
        za, zb = -zb, -za
    if zb < -1e8:  # all the mass within 1e-8 std of the bound: the bound itself
        return np.full(u.shape, a if flip else b)
    z = _trunc_standard_normal(max(za, -(abs(zb) + 40.0)), zb, u)
    return np.clip(mean + std * (-z if flip else z), a, b)


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
        warn("Initializing zero-element tensors is a no-op", stacklevel=3)
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
