"""The ``Distribution`` base: shapes, parameter checks, sampling shapes, ``expand``.

Names and semantics are PyTorch's ``torch.distributions`` (R torch's ``distr_*`` wrap the
same): ``batch_shape``/``event_shape``, ``sample(sample_shape)`` without gradients,
``rsample`` reparameterised where the distribution has one, ``log_prob``, ``cdf``, ``icdf``,
``entropy``, ``mean``, ``variance``, ``stddev``. Errors for invalid parameters or values use
R torch's words (``ValueError``; the R package turns them into R conditions)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import with_no_grad
from ..ops.creation import torch_tensor
from ..tensor import Tensor
from .constraints import Constraint
from . import constraints


def as_shape(shape):
    if shape is None:
        return ()
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        sizes = list(shape)
    except TypeError:
        sizes = None
    if sizes is None or not all(isinstance(s, numbers.Real) and not isinstance(s, bool) and
                                math.isfinite(s) and s == int(s) and s >= 0 for s in sizes):
        raise TypeError(f"a shape must be a sequence of non-negative whole numbers, got "
                        f"{shape!r}")
    return tuple(int(s) for s in sizes)


def broadcast_all(*values):
    """Numbers and tensors as tensors of one shape: numbers take the tensors' dtype (the
    default float dtype when all are numbers); tensors are expanded (views, so gradients flow
    back to the originals)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    for v in values:
        if not isinstance(v, Tensor) and not isinstance(v, (numbers.Number, np.number)):
            raise ValueError(f"Input arguments must all be instances of numbers or tensors, "
                             f"got {type(v).__name__}")
    if tensors:
        dt = tensors[0]._data.dtype
        if dt.kind != "f":
            dt = _dt.torch_get_default_dtype().numpy
    else:
        dt = _dt.torch_get_default_dtype().numpy
    out = [v if isinstance(v, Tensor) and v._data.dtype == dt else
           (v.to(dtype=_dt.from_numpy_dtype(dt)) if isinstance(v, Tensor) else
            torch_tensor(np.asarray(v, dtype=dt)))
           for v in values]
    try:
        shape = np.broadcast_shapes(*(v.shape for v in out))
    except ValueError:
        raise ValueError("The parameters' shapes cannot be broadcast together: " +
                         ", ".join(str(list(v.shape)) for v in out)) from None
    return [v if v.shape == shape else v.expand(*shape) for v in out]


class Distribution:
    """Base class. Subclasses set ``arg_constraints``, ``support`` and
    ``has_rsample`` and implement what they support."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}
    support: Constraint | None = None
    _validate_default = True

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = as_shape(batch_shape)
        self._event_shape = as_shape(event_shape)
        self._validate_args = self._validate_default if validate_args is None else \
            bool(validate_args)
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if param not in self.__dict__:
                    continue  # (a lazily computed form, as probs when logits were given)
                value = getattr(self, param)
                if not np.all(constraint.check(value)):
                    raise ValueError(f"The parameter {param} has invalid values")

    # shapes -------------------------------------------------------------------------------
    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return as_shape(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape):
        """The same distribution with its parameters expanded to ``batch_shape``."""
        batch_shape = as_shape(batch_shape)
        new = object.__new__(type(self))
        for k, v in self.__dict__.items():
            new.__dict__[k] = v
        for name in self._expand_params():
            v = self.__dict__.get(name)
            if isinstance(v, Tensor):
                new.__dict__[name] = v.expand(*(batch_shape + v.shape[len(self._batch_shape):]))
        new._batch_shape = batch_shape
        return new

    def _expand_params(self):
        return list(self.arg_constraints)

    # values -------------------------------------------------------------------------------
    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        n = len(self._event_shape)
        if n and tuple(value.shape[-n:]) != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{list(value.shape)} vs {list(self._event_shape)}.")
        try:
            np.broadcast_shapes(value.shape, self._batch_shape + self._event_shape)
        except ValueError:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                             f"{list(value.shape)} vs "
                             f"{list(self._batch_shape + self._event_shape)}.") from None
        if self.support is not None and not np.all(self.support.check(value)):
            raise ValueError("The value argument must be within the support")

    def _value(self, value, like):
        if not isinstance(value, Tensor):
            value = torch_tensor(np.asarray(value, dtype=like._data.dtype))
        if self._validate_args:
            self._validate_sample(value)
        return value

    # the interface ------------------------------------------------------------------------
    def sample(self, sample_shape=()):
        """Draws of shape ``sample_shape + batch_shape + event_shape``, without gradients."""
        with with_no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sampler "
                                  f"(rsample); use sample()")

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError(f"cdf is not implemented for {type(self).__name__}")

    def icdf(self, value):
        raise NotImplementedError(f"icdf is not implemented for {type(self).__name__}")

    def entropy(self):
        raise NotImplementedError(f"entropy is not implemented for {type(self).__name__}")

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def __repr__(self):
        parts = []
        for p in self.arg_constraints:
            v = self.__dict__.get(p)
            if isinstance(v, Tensor):
                parts.append(f"{p}: {v.shape if v.numel() > 1 else v.item()}")
        return f"{type(self).__name__}({', '.join(parts)})"


def check_constraint_default(v):
    return constraints.real.check(v)
