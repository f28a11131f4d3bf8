"""Special functions and the remaining elementwise ops: erf, erfc, erfinv, lgamma, digamma,
polygamma, logit, atan2, hypot and xlogy. Registered in the op registry (``ops/registry.py``)
(each is ``torch_<name>(...)`` and ``x.<name>(...)``); their derivative rows are in
``derivatives/special.py``, their values in ``numerics/special.py`` (float64, and float32 or
float16 computed in float64 and rounded once, so the bits are the same on every CPU).

Integer and bool inputs give the default float dtype, as libtorch (``hypot`` refuses them, as
libtorch's CPU kernel does).
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
from ..numerics import special
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from .registry import as_tensor, default_float, float_data, op, operands, recording, scalar_dtype


def _wrap(data, dt=None):
    a = np.asarray(data)
    if dt is not None and a.dtype != dt:
        a = a.astype(dt)
    return Tensor._make(a)


def _tensor(x, fn, arg="self"):
    if isinstance(x, Tensor):
        return x
    raise TypeError(f"torch_{fn}(): argument '{arg}' must be a Tensor, not {type(x).__name__}")


def _unary(name, compute, node_name, doc):
    node = NODES[node_name]

    def fn(self):
        self = _tensor(self, name)
        out = _wrap(compute(float_data(self)))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record(node, (self,), (out,))
        return out

    fn.__name__ = name
    fn.__doc__ = doc
    return op(name)(fn)


erf = _unary("erf", special.erf, "ErfBackward0",
             "The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.")
erfc = _unary("erfc", special.erfc, "ErfcBackward0",
              "The complementary error function 1 - erf(x), accurate where erf(x) is near 1.")
erfinv = _unary("erfinv", special.erfinv, "ErfinvBackward0",
                "The inverse error function: erfinv(erf(x)) = x; +-inf at +-1, NaN outside "
                "[-1, 1].")
lgamma = _unary("lgamma", special.lgamma, "LgammaBackward0",
                "log|Gamma(x)|: inf at 0, at the negative integers and at +-inf.")
digamma = _unary("digamma", special.digamma, "DigammaBackward0",
                 "The digamma function psi(x) = d/dx lgamma(x): -inf at +0, inf at -0, NaN at "
                 "the negative integers.")


def _polygamma_method(self, n):
    """``x.polygamma(n)``: ``torch_polygamma(n, x)``."""
    return polygamma(n, self)


POLYGAMMA_MAX_ORDER = 10000


@op("polygamma", method_fn=_polygamma_method)
def polygamma(n, self):
    """The n-th derivative of digamma (``n`` a non-negative integer; n = 0 is digamma,
    n = 1 trigamma). Note the argument order: ``torch_polygamma(n, x)``, ``x.polygamma(n)``."""
    self = _tensor(self, "polygamma")
    if isinstance(n, Tensor):
        n = n.item()
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        if not (isinstance(n, float) and n.is_integer()):
            raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n > POLYGAMMA_MAX_ORDER:  # the series' cost grows with n, and n! overflows from 171
        raise RuntimeError(f"polygamma(n, x): n = {n} is too large (at most "
                           f"{POLYGAMMA_MAX_ORDER}; every result is inf or NaN beyond n = 170)")
    out = _wrap(special.polygamma(n, float_data(self)))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["PolygammaBackward0"], (self,), (out,), params=(n,))
    return out


@op("logit")
def logit(self, eps=None):
    """log(p / (1 - p)). With ``eps`` (>= 0), p is first clamped to [eps, 1 - eps] (the
    gradient is then 0 outside it); without, values outside [0, 1] give NaN."""
    self = _tensor(self, "logit")
    x = float_data(self)
    if eps is not None:
        eps = float(eps)
    # a negative eps is no eps (libtorch's kernel and backward)
    bounds = special.logit_bounds(x.dtype, eps) if eps is not None and eps >= 0 else (None, None)
    out = _wrap(special.logit(x, eps))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["LogitBackward0"], (self,), (out,), params=bounds)
    return out


def _float_operands(a, b):
    """Both tensors' arrays in their common dtype, which is the default float when that is
    not a float dtype."""
    x, y, dt = operands(a, b)
    if dt.kind != "f":
        dt = np.dtype(default_float())
        x, y = x.astype(dt), y.astype(dt)
    return x, y, dt


@op("atan2", aliases=("arctan2",))
def atan2(self, other):
    """The angle of the point (other, self): arctan(self / other) in the right quadrant,
    in [-pi, pi]."""
    self = _tensor(self, "atan2")
    other = as_tensor(other)
    try:
        x, y, dt = _float_operands(self, other)
        out = _wrap(special.atan2(x, y), dt)
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, other.shape) from None
    if recording(self, other):
        record(NODES["Atan2Backward0"], (self, other), (out,))
    return out


@op("hypot")
def hypot(self, other):
    """sqrt(self^2 + other^2), without overflow or underflow in between (float tensors only,
    as libtorch)."""
    self = _tensor(self, "hypot")
    other = as_tensor(other)
    try:
        x, y, dt = operands(self, other)
    except ValueError as e:
        raise shape_error(e, self.shape, other.shape) from None
    if dt.kind != "f":
        raise NotImplementedError(f'"hypot_cpu" not implemented for '
                                  f"'{_dt.from_numpy_dtype(np.dtype(dt)).word}'")
    try:
        out = _wrap(special.hypot(x, y), dt)
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, other.shape) from None
    if recording(self, other):
        record(NODES["HypotBackward0"], (self, other), (out,))
    return out


def _is_number(v):
    return isinstance(v, (numbers.Real, np.number, np.bool_)) and not isinstance(v, Tensor)


@op("xlogy")
def xlogy(self, other):
    """self * log(other), 0 where self == 0 (even where other is 0 or inf), NaN where other is
    NaN. Either argument may be a number (not both)."""
    if _is_number(self) and _is_number(other):
        raise TypeError("xlogy() needs at least one tensor argument")
    if _is_number(self):  # xlogy.Scalar_Self
        other = _tensor(other, "xlogy", "other")
        dt = scalar_dtype(other._data.dtype, self)
        dt = dt if dt.kind == "f" else np.dtype(default_float())
        out = _wrap(special.xlogy64(np.float64(self), other._data.astype(np.float64)), dt)
        if STATE.grad_enabled and (other._requires_grad or gained_grad(other)):
            record(NODES["XlogyBackward1"], (other,), (out,), params=(float(self),))
        return out
    self = _tensor(self, "xlogy")
    if _is_number(other):  # xlogy.Scalar_Other
        dt = scalar_dtype(self._data.dtype, other)
        dt = dt if dt.kind == "f" else np.dtype(default_float())
        out = _wrap(special.xlogy64(self._data.astype(np.float64), np.float64(other)), dt)
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record(NODES["XlogyBackward2"], (self,), (out,), params=(float(other),))
        return out
    other = as_tensor(other)
    try:
        x, y, dt = _float_operands(self, other)
        out = _wrap(special.xlogy64(x.astype(np.float64), y.astype(np.float64)), dt)
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, other.shape) from None
    if recording(self, other):
        record(NODES["XlogyBackward0"], (self, other), (out,))
    return out
