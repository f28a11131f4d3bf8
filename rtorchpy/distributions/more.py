"""More of PyTorch's distributions: half-normal, Student's t, Dirichlet, binomial and
negative binomial. As elsewhere, ``log_prob`` is PyTorch's formula in recorded ops."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..ops.creation import torch_randn
from ..ops.nnf_layers import nnf_logsigmoid
from ..ops.random_state import engine
from ..tensor import Tensor
from . import constraints
from .base import Distribution, broadcast_all
from .continuous import Normal, dirichlet_rsample, standard_gamma_array
from .discrete import probs_to_logits

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class HalfNormal(Distribution):
    """|X| for X ~ Normal(0, ``scale``)."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        super().__init__(self.scale.shape, (), validate_args)

    def _base(self):
        return Normal(self.scale.new_zeros(self.scale.shape), self.scale, validate_args=False)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return self.scale.new_zeros(self.scale.shape)

    @property
    def variance(self):
        return self.scale ** 2 * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return self._base().rsample(sample_shape).abs()

    def log_prob(self, value):
        value = self._value(value, self.scale)
        lp = self._base().log_prob(value) + math.log(2)
        return lp.where(value >= 0, float("-inf"))

    def cdf(self, value):
        value = self._value(value, self.scale)
        return 2 * self._base().cdf(value) - 1

    def icdf(self, prob):
        return self._base().icdf((prob + 1) / 2)

    def entropy(self):
        return self._base().entropy() - math.log(2)


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, (), validate_args)

    @property
    def mean(self):
        m = self.loc.clone() if hasattr(self.loc, "clone") else self.loc * 1
        return m.masked_fill(self.df <= 1, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        v = self.scale ** 2 * df / (df - 2)
        v = v.masked_fill((df <= 2) & (df > 1), float("inf"))
        return v.masked_fill(df <= 1, float("nan"))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = torch_randn(shape, dtype=self.df.dtype)
        dt = self.df._data.dtype
        z = Tensor._make((2.0 * standard_gamma_array(
            np.broadcast_to(0.5 * self.df._data.astype(np.float64), shape))).astype(dt))
        y = x * (z / self.df).rsqrt()
        return self.loc + self.scale * y

    def log_prob(self, value):
        value = self._value(value, self.loc)
        y = (value - self.loc) / self.scale
        df = self.df
        Z = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) +
             (0.5 * df).lgamma() - (0.5 * (df + 1.0)).lgamma())
        return -0.5 * (df + 1.0) * (y ** 2 / df).log1p() - Z

    def entropy(self):
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() -
                                                     (0.5 * df).digamma())
                + 0.5 * df.log() + lbeta)


class Dirichlet(Distribution):
    """Dirichlet over the last dim of ``concentration``."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.simplex

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    def expand(self, batch_shape):
        new = super().expand(batch_shape)
        new.concentration = self.concentration.expand(*(tuple(new.batch_shape) +
                                                        self.event_shape))
        return new

    def _expand_params(self):
        return []

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0 ** 2 * (con0 + 1))

    has_rsample = True

    def rsample(self, sample_shape=()):
        """Normalised gamma draws, differentiable in ``concentration`` by PyTorch's implicit
        gradient (``dirichlet_rsample``)."""
        return dirichlet_rsample(self.concentration, self._extended_shape(sample_shape))

    def log_prob(self, value):
        value = self._value(value, self.concentration)
        c = self.concentration
        return ((c - 1).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))


class _CountWithProbs(Distribution):
    """Shared by the binomial and negative binomial: ``total_count`` and ``probs`` or
    ``logits``."""

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            shape = self.probs.shape
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            shape = self.logits.shape
        super().__init__(shape, (), validate_args)

    def __getattr__(self, name):
        d = self.__dict__
        if name == "logits" and "probs" in d:
            d["logits"] = probs_to_logits(d["probs"], is_binary=True)
            return d["logits"]
        if name == "probs" and "logits" in d:
            d["probs"] = d["logits"].sigmoid()
            return d["probs"]
        raise AttributeError(name)

    def _expand_params(self):
        return ["total_count"] + [p for p in ("probs", "logits") if p in self.__dict__]


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_CountWithProbs):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``logits``)."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rng = np.random.default_rng(engine().word64())
        with with_no_grad():
            n = np.broadcast_to(self.total_count._data, shape).astype(np.int64)
            p = np.broadcast_to(self.probs._data.astype(np.float64), shape)
            return Tensor._make(rng.binomial(n, p).astype(self.probs._data.dtype))

    def log_prob(self, value):
        return self._log_prob(self._value(value, self.total_count))

    def _log_prob(self, value):
        n, k = self.total_count, value
        logits = self.logits
        normalize = n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p() - \
            (n + 1).lgamma()
        return k * logits - (k + 1).lgamma() - (n - k + 1).lgamma() - normalize

    def entropy(self):
        """-sum p log p over 0..total_count (PyTorch: only when every total_count is the
        same)."""
        counts = self.total_count._data
        n = int(counts.max()) if counts.size else 0
        if counts.size and counts.min() != n:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        ks = Tensor._make(np.arange(n + 1, dtype=self.probs._data.dtype).reshape(
            (-1,) + (1,) * len(self.batch_shape)))
        # (the support values are valid by construction: no need to validate them)
        lp = self._log_prob(ks)
        return -(lp.exp() * lp).sum(0)


class NegativeBinomial(_CountWithProbs):
    """Failures before ``total_count`` successes, each trial failing with probability
    ``probs`` (PyTorch's parameterisation; or ``logits``)."""
    arg_constraints = {"total_count": constraints.nonnegative,
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with with_no_grad():
            conc = np.broadcast_to(self.total_count._data.astype(np.float64), shape)
            scale = np.broadcast_to(np.exp(self.logits._data.astype(np.float64)), shape)
            rate = standard_gamma_array(conc) * scale
            rng = np.random.default_rng(engine().word64())
            return Tensor._make(rng.poisson(rate).astype(self.total_count._data.dtype))

    def log_prob(self, value):
        value = self._value(value, self.total_count)
        n, logits = self.total_count, self.logits
        unnorm = n * nnf_logsigmoid(-logits) + value * nnf_logsigmoid(logits)
        norm = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        norm = norm.masked_fill(n + value == 0.0, 0.0)
        return unnorm - norm
