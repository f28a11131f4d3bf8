"""Univariate continuous distributions: normal, uniform, exponential, laplace, log-normal,
gamma, chi-squared, beta. Formulas are PyTorch's, written with recorded ops so that
``log_prob``, ``cdf``, ``entropy`` and ``rsample`` are differentiable (to any order) in the
parameters and the value."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..ops.creation import torch_empty, torch_rand, torch_randn
from ..numerics.beta_grad import dirichlet_grad
from ..numerics.gamma_grad import standard_gamma_grad
from ..numerics.gammainc import gammainc
from ..numerics.special import lgamma64, xlogy64
from ..ops.random_state import engine
from ..ops.shape import stack as torch_stack
from ..tensor import Tensor
from . import constraints
from .base import Distribution, broadcast_all

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _dtype(t):
    return t.dtype


class Normal(Distribution):
    """Normal with mean ``loc`` and standard deviation ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale ** 2

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch_randn(shape, dtype=_dtype(self.loc))
        return self.loc + eps * self.scale

    def log_prob(self, value):
        value = self._value(value, self.loc)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _HALF_LOG_2PI

    def cdf(self, value):
        value = self._value(value, self.loc)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() /
                           math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log()


class LogNormal(Distribution):
    """exp(X) for X ~ Normal(``loc``, ``scale``)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self):
        return (self.loc + self.scale ** 2 / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale ** 2).exp()

    @property
    def variance(self):
        s2 = self.scale ** 2
        return s2.expm1() * (2 * self.loc + s2).exp()

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return (self.loc + torch_randn(shape, dtype=_dtype(self.loc)) * self.scale).exp()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        y = value.log()
        var = self.scale ** 2
        return (-((y - self.loc) ** 2) / (2 * var) - self.scale.log() - _HALF_LOG_2PI) - y

    def cdf(self, value):
        value = self._value(value, self.loc)
        return 0.5 * (1 + ((value.log() - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value):
        return (self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)).exp()

    def entropy(self):
        return 0.5 + _HALF_LOG_2PI + self.scale.log() + self.loc


class Uniform(Distribution):
    """Uniform on [``low``, ``high``)."""
    arg_constraints = {"low": constraints.real, "high": constraints.real}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, (), validate_args)
        if self._validate_args and not np.all(self.low._data < self.high._data):
            raise ValueError("The parameter low has invalid values")

    @property
    def support(self):
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.low.new_full(self.low.shape, float("nan"))

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rand = torch_rand(shape, dtype=_dtype(self.low))
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        value = self._value(value, self.low)
        lb = self.low.le(value).to(dtype=_dtype(self.low))
        ub = self.high.gt(value).to(dtype=_dtype(self.low))
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        value = self._value(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(Distribution):
    """Exponential with ``rate``."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return self.rate.new_zeros(self.rate.shape)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate ** -2

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        draws = torch_empty(shape, dtype=_dtype(self.rate)).exponential_()
        return draws / self.rate

    def log_prob(self, value):
        value = self._value(value, self.rate)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        value = self._value(value, self.rate)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Laplace(Distribution):
    """Laplace with location ``loc`` and scale ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale ** 2

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc._data.dtype).eps)
        u = torch_empty(shape, dtype=_dtype(self.loc)).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        value = self._value(value, self.loc)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        value = self._value(value, self.loc)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() /
                                                         self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


def standard_gamma_array(alpha, generator=None):
    """Standard gamma draws for the shapes in ``alpha`` (a float64 array): NumPy's sampler,
    seeded by one word of the (libtorch) generator, so reproducible by seed; not libtorch's
    values (its sampler is a rejection loop per element)."""
    rng = np.random.default_rng(engine(generator).word64())
    return rng.standard_gamma(alpha)


def dirichlet_rsample(conc, shape):
    """Dirichlet draws of ``shape`` (normalised gamma draws) for the concentration tensor
    ``conc`` (last dim: the categories), differentiable in ``conc`` by PyTorch's implicit
    gradient: ``D_k = d x_k / d c_k`` of the Beta(c_k, total - c_k) marginal
    (``numerics/beta_grad.py``), then ``grad_c = D * (g - sum(x * g))``."""
    dt = conc._data.dtype
    c64 = np.broadcast_to(conc._data.astype(np.float64), shape)
    g = standard_gamma_array(c64)
    x = np.clip(g / g.sum(-1, keepdims=True), np.finfo(dt).tiny,
                1 - np.finfo(dt).eps).astype(dt)
    draws = Tensor._make(x)
    if not (is_grad_enabled() and conc.requires_grad):
        return draws
    slope = dirichlet_grad(x.astype(np.float64), c64, c64.sum(-1, keepdims=True))
    c = conc.expand(*shape)
    # zero in value; its gradient is D * (g - sum(x * g)), PyTorch's backward
    s = (c - c.detach()) * Tensor._make(slope.astype(dt))
    return draws + s - draws * s.sum(-1, keepdim=True)


class Gamma(Distribution):
    """Gamma with shape ``concentration`` and ``rate``."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, (), validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate ** 2

    def rsample(self, sample_shape=()):
        """Draws that are differentiable in ``rate`` and in ``concentration`` (the implicit
        reparameterisation gradient, by PyTorch's approximations: ``gamma_grad.py``)."""
        shape = self._extended_shape(sample_shape)
        conc = self.concentration
        dt = conc._data.dtype
        alpha = np.broadcast_to(conc._data.astype(np.float64), shape)
        x = np.maximum(standard_gamma_array(alpha), np.finfo(dt).tiny)
        draws = Tensor._make(x.astype(dt))
        if is_grad_enabled() and conc.requires_grad:
            # exactly the draws, with d draws / d concentration as the gradient
            slope = Tensor._make(standard_gamma_grad(alpha, x).astype(dt))
            c = conc.expand(*shape)
            draws = draws + (c - c.detach()) * slope
        return draws / self.rate.expand(*shape)

    def log_prob(self, value):
        value = self._value(value, self.rate)
        c, r = self.concentration, self.rate
        return c.xlogy(r) + (c - 1).xlogy(value) - r * value - c.lgamma()

    def cdf(self, value):
        """P(concentration, rate * value), the regularised incomplete gamma function; its
        gradient flows to ``value`` and ``rate`` (first order; as in PyTorch, not to
        ``concentration``)."""
        value = self._value(value, self.rate)
        y = self.rate * value
        c, yv = np.broadcast_arrays(self.concentration._data.astype(np.float64),
                                    y._data.astype(np.float64))
        dt = y._data.dtype
        out = Tensor._make(gammainc(c, yv).astype(dt))
        if is_grad_enabled() and y.requires_grad:
            with np.errstate(all="ignore"):
                dens = np.exp(xlogy64(c - 1, yv) - yv - lgamma64(c))
            out = out + (y - y.detach()) * Tensor._make(dens.astype(dt))
        return out

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()


class Chi2(Gamma):
    """Chi-squared with ``df`` degrees of freedom (Gamma(df / 2, 1 / 2))."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        self.df = df
        super().__init__(0.5 * df, 0.5 * df.new_ones(df.shape), validate_args)

    def _expand_params(self):
        return ["df", "concentration", "rate"]


class Beta(Distribution):
    """Beta with ``concentration1`` (alpha) and ``concentration0`` (beta)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        super().__init__(self.concentration1.shape, (), validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return (self.concentration1 - 1) / (self.concentration1 + self.concentration0 - 2)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        """As PyTorch: the first coordinate of a Dirichlet(concentration1, concentration0)
        draw, with its implicit gradient (``Dirichlet.rsample``)."""
        pair = torch_stack([self.concentration1, self.concentration0], -1)
        return dirichlet_rsample(pair, self._extended_shape(sample_shape) + (2,)).select(-1, 0)

    def log_prob(self, value):
        value = self._value(value, self.concentration1)
        a, b = self.concentration1, self.concentration0
        return ((a - 1).xlogy(value) + (b - 1).xlogy(1 - value) + (a + b).lgamma()
                - a.lgamma() - b.lgamma())

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        lbeta = a.lgamma() + b.lgamma() - total.lgamma()
        return (lbeta - (a - 1) * a.digamma() - (b - 1) * b.digamma()
                + (total - 2) * total.digamma())
