"""Elementwise math (exp, log, sin, sigmoid, relu, clamp, ...), comparisons and logic, and the
Python operators of Tensor (``x + y``, ``x @ y``, ``x == y``, ...). Registered in the op registry
registered in the op registry (``ops/registry.py``)."""
from __future__ import annotations

import builtins

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.record import record, record1
from ..autograd.rows import NODES
from ..autograd.views import gained_grad
from ..numerics import rounded
from ..numerics.arrays import sgn
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from .arith import add, div, mul, neg, pow, remainder, rpow, rsub, sub
from .linalg import matmul
from .registry import (
    _is_scalar,
    _number,
    as_tensor,
    fix_dtype,
    float_data,
    op,
    promote,
    recording,
    scalar_dtype,
)

# ------------------------------------------------------------------------------ unary math

def _unary(name, np_fn, node_name, float_only=True, doc="", register=True):
    """Define and register an elementwise op recording ``node_name`` (whose row says what it
    saves); ``register=False``: only define it (for an op that calls it in its common case)."""
    node = NODES[node_name]

    def fn(self):
        try:
            x = self._data
        except AttributeError:  # torch_exp([1.0]): say what is wrong, not which attribute
            raise TypeError(f"torch_{name}(): argument 'self' must be a Tensor, not "
                            f"{type(self).__name__}") from None
        if x.dtype.kind != "f":
            if x.dtype.kind == "c" and name != "abs":  # (never cast to real silently)
                raise RuntimeError(f"{name}: complex tensors are not supported here yet (only "
                                   "by the Fourier transforms, real, imag, abs, view_as_real "
                                   "and arithmetic)")
            if float_only:
                x = float_data(self)
            elif x.dtype.kind == "b":  # only reached by the ops that keep integer dtypes
                if name != "sign":
                    raise RuntimeError(f'"{name}" not implemented for \'Bool\'')
                return Tensor._make(x.copy())  # sign of a bool is itself; bools need no grad
        r = np_fn(x)
        out = _make(r if type(r) is _ndarray else np.asarray(r))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record1(node, self, out)
        return out

    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name}."
    return op(name)(fn) if register else fn


_ndarray = np.ndarray
_make = Tensor._make


def _rsqrt(x):
    # two IEEE-exact steps: the same bits on every CPU, within 1 ULP (libtorch computes it so)
    return 1 / np.sqrt(x)


exp = _unary("exp", rounded.exp, "ExpBackward0")
expm1 = _unary("expm1", rounded.expm1, "Expm1Backward0")
log = _unary("log", rounded.log, "LogBackward0", doc="Natural logarithm.")
log1p = _unary("log1p", rounded.log1p, "Log1PBackward0")
log2 = _unary("log2", rounded.log2, "Log2Backward0")
log10 = _unary("log10", rounded.log10, "Log10Backward0")
sqrt = _unary("sqrt", np.sqrt, "SqrtBackward0")
rsqrt = _unary("rsqrt", _rsqrt, "RsqrtBackward0")
reciprocal = _unary("reciprocal", np.reciprocal, "ReciprocalBackward0")
sin = _unary("sin", rounded.sin, "SinBackward0")
cos = _unary("cos", rounded.cos, "CosBackward0")
tan = _unary("tan", rounded.tan, "TanBackward0")
tanh = _unary("tanh", rounded.tanh, "TanhBackward0")
asin = _unary("asin", rounded.asin, "AsinBackward0", doc="Elementwise arcsine.")
acos = _unary("acos", rounded.acos, "AcosBackward0", doc="Elementwise arccosine.")
atan = _unary("atan", rounded.atan, "AtanBackward0", doc="Elementwise arctangent.")
sinh = _unary("sinh", rounded.sinh, "SinhBackward0")
cosh = _unary("cosh", rounded.cosh, "CoshBackward0")
asinh = _unary("asinh", rounded.asinh, "AsinhBackward0", doc="Elementwise inverse sinh.")
acosh = _unary("acosh", rounded.acosh, "AcoshBackward0", doc="Elementwise inverse cosh.")
atanh = _unary("atanh", rounded.atanh, "AtanhBackward0", doc="Elementwise inverse tanh.")
sigmoid = _unary("sigmoid", rounded.sigmoid, "SigmoidBackward0")
abs = _unary("abs", np.abs, "AbsBackward0", float_only=False)
sign = _unary("sign", sgn, "SignBackward0", float_only=False)


def _keeps_integers(fn):
    """``fn`` (np.floor/ceil/trunc) that gives an integer array back unchanged in its dtype, as
    libtorch does (NumPy 2 does too; NumPy 1.x returns float64)."""
    def apply(x):
        return x.copy() if x.dtype.kind in "iub" else fn(x)
    apply.__name__ = fn.__name__
    return apply


floor = _unary("floor", _keeps_integers(np.floor), "FloorBackward0", float_only=False)
ceil = _unary("ceil", _keeps_integers(np.ceil), "CeilBackward0", float_only=False)
trunc = _unary("trunc", _keeps_integers(np.trunc), "TruncBackward0", float_only=False)
_round_half_even = _unary("round", np.round, "RoundBackward0", float_only=False, register=False)


@op("round")
def round(self, decimals=0):
    """Round half to even; with ``decimals``, to that many decimal places (negative: to tens,
    hundreds, ...), computed as libtorch does in the tensor's dtype: ``rint(x * 10^d) / 10^d``
    (``rint(x / 10^-d) * 10^-d`` for negative ``d``)."""
    if decimals == 0:
        return _round_half_even(self)
    x = self._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"round_cpu" not implemented for \'{self.dtype.word}\'')
    ten_pow = x.dtype.type(10.0 ** builtins.abs(int(decimals)))
    r = np.rint(x * ten_pow) / ten_pow if decimals > 0 else np.rint(x / ten_pow) * ten_pow
    out = _make(np.asarray(r, dtype=x.dtype))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record1(NODES["RoundBackward1"], self, out, (int(decimals),))
    return out


@op("relu")
def relu(self):
    """max(self, 0)."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    out = Tensor._make(np.maximum(self._data, self._data.dtype.type(0)))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["ReluBackward0"], (self,), (out,))
    return out


@op("clamp", aliases=("clip",))
def clamp(self, min=None, max=None):
    """Limit values to [min, max]; either bound may be None."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(self, min, max)
    return _clamp(self, min, max, "ClampBackward1")


def _clamp_tensor(self, min, max):
    """clamp with tensor bounds (broadcasting; ClampBackward0, gradients for the bounds too)."""
    bounds = [as_tensor(b) if b is not None else None for b in (min, max)]
    present = [b for b in bounds if b is not None]
    dt = self._data.dtype
    probe = self
    for b in present:
        dt = promote(probe, b)
        probe = Tensor._make(np.empty((1,) * (self._data.ndim or 1), dt))
    lo, hi = [None if b is None else b._data.astype(dt, copy=False) for b in bounds]
    x = self._data.astype(dt, copy=False)
    data = x
    try:
        if lo is not None:
            data = np.maximum(data, lo)
        if hi is not None:
            data = np.minimum(data, hi)
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, *(b.shape for b in (self, *present))) from None
    out = Tensor._make(fix_dtype(np.asarray(data), dt))
    if recording(self, *present):
        record(NODES["ClampBackward0"], (self, *present), (out,), (lo is not None, hi is not None))
    return out


def _clamp(self, min, max, node):
    lo = _number(min, "min") if min is not None else None
    hi = _number(max, "max") if max is not None else None
    dt = self._data.dtype
    for bound in (lo, hi):  # both bounds take part in type promotion
        if bound is not None:
            dt = scalar_dtype(dt, bound)
    data = np.clip(self._data.astype(dt, copy=False), lo, hi)
    out = Tensor._make(fix_dtype(data, dt))
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES[node], (self,), (out,), (lo, hi))
    return out


@op("clamp_min")
def clamp_min(self, min):
    """``clamp(min=min)``, recorded as libtorch's ClampMinBackward0."""
    return _clamp(self, min, None, "ClampMinBackward0")


@op("clamp_max")
def clamp_max(self, max):
    """``clamp(max=max)``, recorded as libtorch's ClampMaxBackward0."""
    return _clamp(self, None, max, "ClampMaxBackward0")


# ------------------------------------------------------------------------------ comparisons, logic

def _compare(name, np_fn):
    def fn(self, other):
        y = other._data if isinstance(other, Tensor) else (
            other if _is_scalar(other) else as_tensor(other)._data)
        try:
            return Tensor._make(np.asarray(np_fn(self._data, y)))
        except ValueError as e:  # NumPy's broadcasting error
            raise shape_error(e, self._data.shape, np.shape(y)) from None
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison: a bool tensor (not differentiable)."
    return op(name)(fn)


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)


def _logical(name, np_fn, unary=False):
    def unary_fn(self):
        return Tensor._make(np.asarray(np_fn(self._data)))

    def binary_fn(self, other):
        return Tensor._make(np.asarray(np_fn(self._data, as_tensor(other)._data)))
    fn = unary_fn if unary else binary_fn
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}: a bool tensor."
    return op(name)(fn)


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
logical_not = _logical("logical_not", np.logical_not, unary=True)
isnan = _logical("isnan", np.isnan, unary=True)
isinf = _logical("isinf", np.isinf, unary=True)
isfinite = _logical("isfinite", np.isfinite, unary=True)


@op("equal")
def equal(self, other):
    """True if both tensors have the same shape and values (a Python bool)."""
    other = as_tensor(other)
    return self.shape == other.shape and bool(np.array_equal(self._data, other._data))


@op("allclose")
def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if all values are close (a Python bool)."""
    return bool(np.allclose(self._data, as_tensor(other)._data, rtol, atol, equal_nan))


@op("isclose")
def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Tensor._make(np.isclose(self._data, as_tensor(other)._data, rtol, atol, equal_nan))


def _bitwise(np_fn, logical):
    def fn(self, other):
        b = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(np_fn(self._data, b)))
    return fn


# ------------------------------------------------------------------------------ operators

def _left_operand(a, b):
    """``b`` of ``b / a`` or ``b % a`` as a tensor: a number in the dtype libtorch gives it next
    to ``a`` (an int over a float tensor is a float)."""
    if not _is_scalar(b):
        return as_tensor(b)
    return Tensor._make(np.asarray(b, dtype=scalar_dtype(a._data.dtype, b)))


def _install_operators():
    T = Tensor
    # the hot ones bound directly (a lambda would add a call to every ``x * y``)
    T.__add__ = T.__radd__ = add
    T.__sub__ = sub
    T.__rsub__ = rsub
    T.__mul__ = T.__rmul__ = mul
    T.__truediv__ = div
    T.__rtruediv__ = lambda a, b: div(_left_operand(a, b), a)
    T.__floordiv__ = lambda a, b: div(a, b, rounding_mode="floor")
    T.__rfloordiv__ = lambda a, b: div(as_tensor(b), a, rounding_mode="floor")
    T.__mod__ = lambda a, b: remainder(a, b)
    T.__rmod__ = lambda a, b: remainder(_left_operand(a, b), a)
    T.__pow__ = lambda a, b: pow(a, b)
    T.__matmul__ = matmul  # bound directly: ``x @ w`` costs what ``x.matmul(w)`` costs
    T.__rmatmul__ = lambda a, b: matmul(as_tensor(b), a)
    T.__rpow__ = lambda a, b: rpow(a, b)
    T.__neg__ = lambda a: neg(a)
    T.__pos__ = lambda a: a
    T.__abs__ = lambda a: abs(a)
    T.__eq__ = lambda a, b: eq(a, b)
    T.__ne__ = lambda a, b: ne(a, b)
    T.__lt__ = lambda a, b: lt(a, b)
    T.__le__ = lambda a, b: le(a, b)
    T.__gt__ = lambda a, b: gt(a, b)
    T.__ge__ = lambda a, b: ge(a, b)
    T.__and__ = T.__rand__ = _bitwise(np.bitwise_and, True)
    T.__or__ = T.__ror__ = _bitwise(np.bitwise_or, True)
    T.__xor__ = T.__rxor__ = _bitwise(np.bitwise_xor, True)
    T.__invert__ = lambda a: Tensor._make(np.asarray(np.invert(a._data)))
    T.__hash__ = object.__hash__


_install_operators()
