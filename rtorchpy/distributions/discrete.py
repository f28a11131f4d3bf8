"""Discrete distributions: Bernoulli and Categorical (each from ``probs`` or ``logits``) and
Poisson. Categorical values are 0-based here (1-based from R, as R torch)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..ops.nnf_layers import nnf_binary_cross_entropy_with_logits as _bce_logits
from ..ops.registry import OPS
from ..tensor import Tensor
from . import constraints
from .base import Distribution, as_shape, broadcast_all

_bernoulli = OPS["bernoulli"].fn
_multinomial = OPS["multinomial"].fn
_poisson = OPS["poisson"].fn


def _eps(t):
    return float(np.finfo(t._data.dtype).eps)


def probs_to_logits(probs, is_binary=False):
    p = probs.clamp(min=_eps(probs), max=1 - _eps(probs))
    return p.log() - (-p).log1p() if is_binary else p.log()


class Bernoulli(Distribution):
    """0/1 with probability ``probs`` of 1 (or ``logits``, its log-odds: give one)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, (), validate_args)

    def __getattr__(self, name):
        # the form not given is computed when first asked for (and kept)
        d = self.__dict__
        if name == "logits" and "probs" in d:
            d["logits"] = probs_to_logits(d["probs"], is_binary=True)
            return d["logits"]
        if name == "probs" and "logits" in d:
            d["probs"] = d["logits"].sigmoid()
            return d["probs"]
        raise AttributeError(name)

    def _expand_params(self):
        return [p for p in ("probs", "logits") if p in self.__dict__]

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        m = (self.probs >= 0.5).to(dtype=self.probs.dtype)
        return m.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with with_no_grad():
            return _bernoulli(self.probs.expand(*shape))

    def log_prob(self, value):
        value = self._value(value, self.logits)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_logits(logits, value, reduction="none")

    def entropy(self):
        return _bce_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """One of ``K`` categories (0-based here) with probabilities proportional to ``probs``
    over the last dim, or ``logits`` (unnormalised log-probabilities)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            param = self.logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], (), validate_args)

    def __getattr__(self, name):
        d = self.__dict__
        if name == "logits" and "probs" in d:
            d["logits"] = probs_to_logits(d["probs"])
            return d["logits"]
        if name == "probs" and "logits" in d:
            d["probs"] = d["logits"].softmax(-1)
            return d["probs"]
        raise AttributeError(name)

    def _expand_params(self):
        return [p for p in ("probs", "logits") if p in self.__dict__]

    def expand(self, batch_shape):
        batch_shape = as_shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for p in self._expand_params():
            new.__dict__[p] = self.__dict__[p].expand(*(batch_shape + (self._num_events,)))
        new._batch_shape = batch_shape
        return new

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return self._batch_shape + (self._num_events,)

    @property
    def mean(self):
        return self.probs.new_full(self._batch_shape, float("nan"))

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self.probs.new_full(self._batch_shape, float("nan"))

    def sample(self, sample_shape=()):
        sample_shape = as_shape(sample_shape)
        n = int(np.prod(sample_shape, dtype=np.int64)) if sample_shape else 1
        with with_no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = _multinomial(probs_2d, n, True).t()
            return samples_2d.reshape(*self._extended_shape(sample_shape))

    def log_prob(self, value):
        value = self._value(value, self.logits)
        value = value.long().unsqueeze(-1)
        logits = self.logits
        shape = np.broadcast_shapes(value.shape, logits.shape)
        value = value.expand(*shape)[..., :1]
        return logits.expand(*shape).gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = float(np.finfo(self.logits._data.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)


class Poisson(Distribution):
    """Poisson with ``rate``."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with with_no_grad():
            return _poisson(self.rate.expand(*shape))

    def log_prob(self, value):
        value = self._value(value, self.rate)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()


def _is_tensor(v):
    return isinstance(v, Tensor)
