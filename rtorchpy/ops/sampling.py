"""Sampling ops named as R torch names them: ``torch_normal``, ``torch_poisson``,
``torch_bernoulli`` and ``torch_multinomial`` (the last three also as methods).

The draws are libtorch's for the same seed (``random_state.py``): normal, bernoulli and
multinomial consume the generator as libtorch's CPU kernels do. Poisson draws come from a
NumPy generator seeded by one word of the generator (reproducible by seed, not libtorch's
values: its sampler is a rejection loop per element). libtorch's samplers are
not reparameterised, and neither are these: a draw from a tensor of parameters that requires
grad records libtorch's node (``NormalBackward1/2/3``, ``PoissonBackward0``,
``BernoulliBackward0``), whose gradient is 0; ``bernoulli(x, p)`` with a number ``p``
records ``torch::autograd::NotImplemented``, whose backward refuses, as libtorch's.
``multinomial`` returns int64 indices (0-based here; the R package makes them 1-based).
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE
from ..autograd.record import record
from ..autograd.rows import NODES
from ..autograd.views import gained_grad
# registers the rows before NODES is read
from ..derivatives import special as _derivatives_special  # noqa: F401
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from .creation import _size as parse
from .random_state import engine, normal_array
from .registry import default_float, op, recording
from ..numerics import draws as _draws


def _word(dt):
    return _dt.from_numpy_dtype(np.dtype(dt)).word


def _not_float(kernel, dt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_word(dt)}\'')


def _is_number(v):
    return isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (Tensor, bool,
                                                                             np.bool_))


def _size(size):
    if isinstance(size, Tensor):
        size = size.tolist()
    return parse(size if isinstance(size, (tuple, list, np.ndarray)) else (size,))


@op("normal", method=False)
def normal(mean=0.0, std=1.0, size=None, dtype=None, requires_grad=False, generator=None):
    """Normal draws with the given ``mean`` and ``std`` (numbers or tensors, broadcast
    together). With two numbers, ``size`` gives the shape (and ``dtype``, ``requires_grad``
    apply); with a tensor, the result has the broadcast shape and the dtype of ``mean`` (of
    ``std`` when ``mean`` is a number). The draws are not differentiable: a tensor ``mean`` or
    ``std`` that requires grad gets a zero gradient (libtorch's NormalBackward1/2/3)."""
    mean_t = isinstance(mean, Tensor)
    std_t = isinstance(std, Tensor)
    if not mean_t and not _is_number(mean):
        raise TypeError(f"normal(): argument 'mean' must be a Tensor or a number, not "
                        f"{type(mean).__name__}")
    if not std_t and not _is_number(std):
        raise TypeError(f"normal(): argument 'std' must be a Tensor or a number, not "
                        f"{type(std).__name__}")
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal(): with a number mean and std, give the shape as size=")
        std = float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        target = _dt.as_dtype(dtype).numpy if dtype is not None else np.dtype(default_float())
        if target.kind != "f":
            raise _not_float("normal_kernel_cpu", target)
        out = Tensor._make(normal_array(np.empty(_size(size), target), float(mean), std,
                                        generator))
        if requires_grad:
            out.requires_grad_(True)
        return out
    if size is not None:
        raise TypeError("normal(): size= is only for a number mean and std (with a tensor, "
                        "the result has its shape)")
    dt = (mean if mean_t else std)._data.dtype
    if dt.kind != "f":
        raise _not_float("normal_kernel_cpu", dt)
    m = mean._data.astype(dt, copy=False) if mean_t else np.float64(mean)
    s = std._data.astype(dt, copy=False) if std_t else np.float64(std)
    if std_t:
        if not np.all(s >= 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not s >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(s):g}")
    try:
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    except ValueError as e:
        raise shape_error(e, np.shape(m), np.shape(s)) from None
    # as libtorch: standard draws (or with the number std) made, then scaled and shifted in
    # the tensor's dtype, one operation at a time
    if std_t:
        z = normal_array(np.empty(shape, dt), 0.0, 1.0, generator)
        z = z * s
    else:
        z = normal_array(np.empty(shape, dt), 0.0, float(s), generator)
    out = Tensor._make(np.asarray(z + (m if mean_t else dt.type(m)), dtype=dt))
    if mean_t and std_t:
        if recording(mean, std):
            record(NODES["NormalBackward3"], (mean, std), (out,))
    elif mean_t:
        if recording(mean):
            record(NODES["NormalBackward1"], (mean,), (out,))
    elif recording(std):
        record(NODES["NormalBackward2"], (std,), (out,))
    return out


@op("poisson")
def poisson(self, generator=None):
    """Poisson draws with the rates in ``self`` (a float tensor of non-negative rates); the
    result has its dtype. Rates above ~9.2e18 (and inf) are refused (NumPy's sampler cannot
    draw them; libtorch returns garbage there)."""
    x = self._data
    if x.dtype.kind != "f":
        raise _not_float("poisson_cpu", x.dtype)
    if not np.all(x >= 0):  # also NaN
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    try:
        draws = np.random.default_rng(engine(generator).word64()).poisson(
            x.astype(np.float64))
    except ValueError:
        raise RuntimeError("invalid Poisson rate, expected rate to be at most 9.2e18") from None
    out = Tensor._make(np.asarray(draws).astype(x.dtype))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["PoissonBackward0"], (self,), (out,))
    return out


_P_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)")


@op("bernoulli")
def bernoulli(self, p=None, generator=None):
    """0/1 draws of ``self``'s shape and dtype: 1 with probability ``self`` (elementwise,
    values in [0, 1]) or, when given, with probability ``p`` (a number) everywhere. As
    libtorch: a uniform per element (float32 probabilities: a float32 uniform; float64 ones
    and a number ``p``: a float64 uniform), 1 when below the probability."""
    x = self._data
    if p is None:
        if x.dtype.kind != "f":
            raise _not_float("bernoulli_tensor_cpu_p_", x.dtype)
        if not np.all((x >= 0) & (x <= 1)):
            raise RuntimeError(_P_RANGE)
        draws = _uniform_for(x, generator) < x
        out = Tensor._make(np.asarray(draws).astype(x.dtype))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record(NODES["BernoulliBackward0"], (self,), (out,))
        return out
    if isinstance(p, Tensor):
        p = p.item()
    if not _is_number(p):
        raise TypeError(f"bernoulli(): argument 'p' must be a number, not {type(p).__name__}")
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    draws = _draws.unit_float64(engine(generator), x.size).reshape(x.shape) < p
    out = Tensor._make(np.asarray(draws).astype(x.dtype))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["torch::autograd::NotImplemented"], (self,), (out,), params=("bernoulli",))
    return out


def _uniform_for(p, generator):
    u = (_draws.unit_float64 if p.dtype == np.float64 else _draws.unit_float32)(
        engine(generator), p.size)
    return u.reshape(p.shape)


@op("multinomial", returns_index=True)
def multinomial(self, num_samples, replacement=False, generator=None):
    """``num_samples`` category indices per row of ``self`` (1-d: one distribution; 2-d: one
    per row), drawn with probability proportional to the row's non-negative weights; int64,
    0-based here (1-based in R). Without replacement each category is drawn at most once
    (categories of weight 0 only after all the others, as libtorch)."""
    x = self._data
    if x.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_word(x.dtype)}")
    if x.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if isinstance(num_samples, Tensor):
        num_samples = num_samples.item()
    if isinstance(num_samples, bool) or not isinstance(num_samples, (numbers.Integral,
                                                                     np.integer)):
        if not (isinstance(num_samples, float) and num_samples.is_integer()):
            raise TypeError(f"multinomial(): argument 'num_samples' must be int, not "
                            f"{type(num_samples).__name__}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = x.shape[-1]
    if not replacement and n > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = x.reshape(-1, categories).astype(np.float64)
    if not np.all(np.isfinite(rows) & (rows >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = engine(generator)
    if not replacement or n == 1:
        # libtorch's way: the n largest p / q with q ~ Exp(1) (one exponential per category
        # per row, in float64 rounded to the dtype), by argmax or a descending stable sort
        q = _draws.exponential(gen, x.size, 1.0).astype(x.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = x.reshape(rows.shape) / q
        order = np.argsort(-keys, axis=1, kind="stable")[:, :n]
        return Tensor._make(order.astype(np.int64).reshape(x.shape[:-1] + (n,)))
    # with replacement: the cumulative distribution in the dtype (summed in order, divided
    # by the total, the last set to 1) and, per draw, a float64 uniform located by bisection
    # (the first category whose cumulative value is not below it)
    out = np.empty((rows.shape[0], n), np.int64)
    for i, w in enumerate(x.reshape(rows.shape)):
        cdf = np.cumsum(w, dtype=x.dtype)
        cdf = cdf / cdf[-1]
        cdf[-1] = 1
        out[i] = np.searchsorted(cdf.astype(np.float64), _draws.unit_float64(gen, n),
                                 side="left")
    return Tensor._make(out.reshape(x.shape[:-1] + (n,)))
