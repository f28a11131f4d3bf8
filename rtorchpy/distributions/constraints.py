"""Constraints on distribution parameters and supports: each knows how to check a tensor
(elementwise, over the event dims where it has them) and how to name itself."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor


class Constraint:
    event_dim = 0
    is_discrete = False
    name = "Constraint"

    def check(self, value):
        """A boolean NumPy array: which elements (or events) satisfy the constraint."""
        raise NotImplementedError

    def __repr__(self):
        return self.name


def _arr(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


class _Real(Constraint):
    name = "Real()"

    def check(self, value):
        v = _arr(value)
        if v.dtype.kind == "f" and not np.isnan(v.sum()):
            return np.ones(v.shape, bool)
        return v == v  # not NaN


class _Interval(Constraint):
    def __init__(self, low, high, lo_open=False, hi_open=False, name=None):
        self.low, self.high, self.lo_open, self.hi_open = low, high, lo_open, hi_open
        self.name = name or f"Interval(lower_bound={low}, upper_bound={high})"

    def check(self, value):
        v = _arr(value)
        lo, hi = _arr(self.low), _arr(self.high)
        ok_lo = v > lo if self.lo_open else v >= lo
        ok_hi = v < hi if self.hi_open else v <= hi
        return ok_lo & ok_hi


class _GreaterThan(Constraint):
    def __init__(self, low, strict=True, name=None):
        self.low, self.strict = low, strict
        self.name = name or f"GreaterThan(lower_bound={low})"

    def check(self, value):
        v = _arr(value)
        return v > _arr(self.low) if self.strict else v >= _arr(self.low)


class _Boolean(Constraint):
    name = "Boolean()"
    is_discrete = True

    def check(self, value):
        v = _arr(value)
        return (v == 0) | (v == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, low, high):
        self.low, self.high = low, high
        self.name = f"IntegerInterval(lower_bound={low}, upper_bound={high})"

    def check(self, value):
        v = _arr(value)
        return (v % 1 == 0) & (v >= self.low) & (v <= _arr(self.high))


class _NonNegativeInteger(Constraint):
    name = "IntegerGreaterThan(lower_bound=0)"
    low = 0
    is_discrete = True

    def check(self, value):
        v = _arr(value)
        return (v % 1 == 0) & (v >= 0)


class _Simplex(Constraint):
    name = "Simplex()"
    event_dim = 1

    def check(self, value):
        v = _arr(value)
        return np.all(v >= 0, axis=-1) & (np.abs(v.sum(-1) - 1) < 1e-6)


class _RealVector(Constraint):
    name = "IndependentConstraint(Real(), 1)"
    event_dim = 1

    def check(self, value):
        v = _arr(value)
        if not np.isnan(v.sum()):  # (one pass for the usual case: no NaN anywhere)
            return np.ones(v.shape[:-1], bool)
        return np.all(v == v, axis=-1)


class _PositiveDefinite(Constraint):
    name = "PositiveDefinite()"
    event_dim = 2

    def check(self, value):
        v = _arr(value).astype(np.float64)
        sym = np.all(np.abs(v - np.swapaxes(v, -1, -2)) <= 1e-6 * (1 + np.abs(v)),
                     axis=(-1, -2))
        try:
            ev = np.linalg.eigvalsh(v)
        except np.linalg.LinAlgError:
            return np.zeros(v.shape[:-2], bool)
        return sym & np.all(ev > 0, axis=-1)


class _LowerCholesky(Constraint):
    name = "LowerCholesky()"
    event_dim = 2

    def check(self, value):
        v = _arr(value)
        lower = np.all(np.triu(v, 1) == 0, axis=(-1, -2))
        return lower & np.all(np.diagonal(v, axis1=-2, axis2=-1) > 0, axis=-1)


real = _Real()
positive = _GreaterThan(0.0, name="GreaterThan(lower_bound=0.0)")
nonnegative = _GreaterThan(0.0, strict=False, name="GreaterThanEq(lower_bound=0.0)")
unit_interval = _Interval(0.0, 1.0, name="Interval(lower_bound=0.0, upper_bound=1.0)")
boolean = _Boolean()
nonnegative_integer = _NonNegativeInteger()
simplex = _Simplex()
real_vector = _RealVector()
positive_definite = _PositiveDefinite()
lower_cholesky = _LowerCholesky()


def interval(low, high):
    return _Interval(low, high)


def half_open_interval(low, high):
    return _Interval(low, high, hi_open=True,
                     name=f"HalfOpenInterval(lower_bound={low}, upper_bound={high})")


def integer_interval(low, high):
    return _IntegerInterval(low, high)


def greater_than(low):
    return _GreaterThan(low)
