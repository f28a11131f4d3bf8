"""Op registry, libtorch type promotion, and the arithmetic ops (elementwise math, comparisons
and the Python operators are in ``_ops_math.py``).

Each op is one Python function registered once with :func:`op`: the registry makes the namespace
form (``torch_exp(x)``) and the method form (``x.exp()``), and records which arguments are
dimensions or indices so the R shim can convert them from 1-based without a hand-written list.
An op computes eagerly with NumPy and, when grad mode is on and an input requires grad, records
the node of its row in the derivative table (``_derivatives.py``).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from . import dtypes as _dt
from ._arrays import scalar_array
from ._rounded_math import power as _power
from ._derivatives import NODES
from ._shape_errors import shape_error
from ._tensor import Tensor
from .autograd.grad_mode import STATE
from .autograd.graph import record, record1, record2

# ------------------------------------------------------------------------------ registry


@dataclass
class OpInfo:
    """What the registry knows of an op (the R shim generates its wrappers from this)."""
    name: str
    fn: object
    method: bool = True          # available as x.name(...)
    namespace: bool = True       # available as torch_name(...)
    dim_args: tuple = ()         # arguments holding dimensions (R: 1-based)
    index_args: tuple = ()       # arguments holding index tensors (R: 1-based)
    returns_index: bool = False  # result (or its 2nd element) holds indices (R: +1)
    inplace: bool = False
    aliases: tuple = field(default_factory=tuple)
    method_fn: object = None     # the method form when it orders arguments differently from fn


OPS: dict = {}


def namespace_name(key):
    """The function name of an op's namespace form: ``torch_<key>``, except the linear-algebra
    ops, which R torch names ``linalg_<name>`` (their keys carry that prefix)."""
    return key if key.startswith("linalg_") else "torch_" + key


def op(name=None, *, method=True, namespace=True, dims=(), index_args=(), returns_index=False,
       aliases=(), method_fn=None):
    """Register an op function under ``name`` (default: the function's name)."""
    def register(fn):
        key = name or fn.__name__
        info = OpInfo(key, fn, method, namespace, tuple(dims), tuple(index_args), returns_index,
                      key.endswith("_"), tuple(aliases), method_fn)
        OPS[key] = info
        for alias in aliases:
            OPS[alias] = info
        if method:
            for n in (key,) + tuple(aliases):
                setattr(Tensor, n, method_fn or fn)
        return fn
    return register


# ------------------------------------------------------------------------------ helpers

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def default_float():
    return _dt.torch_get_default_dtype().numpy


def normalize_dim(dim, ndim):
    """A dim in [-ndim, ndim) as a non-negative int, with libtorch's error text otherwise."""
    if type(dim) is int:  # the common case, without the conversions and checks below
        n = ndim or 1
        if -n <= dim < n:
            return dim + n if dim < 0 else dim
    try:
        d = int(dim)
    except (TypeError, ValueError):
        raise TypeError(f"dim must be an integer, got {dim!r}") from None
    if d != dim or isinstance(dim, bool):
        raise TypeError(f"dim must be an integer, got {dim!r}")
    n = max(ndim, 1)  # a 0-dim tensor accepts dims 0 and -1, as libtorch does
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d + n if d < 0 else d


def normalize_dims(dim, ndim):
    """``None`` -> None (all dims); an int or sequence of ints -> sorted tuple of unique dims."""
    if dim is None:
        return None
    if type(dim) is int:
        return (normalize_dim(dim, ndim),)
    if isinstance(dim, (list, tuple)):
        dims = [normalize_dim(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (normalize_dim(dim, ndim),)


def as_tensor(x, like=None):
    """Convert an op argument to a Tensor (Tensors pass through untouched)."""
    if isinstance(x, Tensor):
        return x
    from .creation import torch_tensor
    return torch_tensor(x)


def recording(*tensors):
    """Whether an op on these tensors must record a node."""
    if not STATE.grad_enabled:
        return False
    for t in tensors:
        if t._requires_grad:
            return True
    return False


def promote(a, b):
    """libtorch's result dtype for two tensors: dimensioned tensors decide within a category;
    a 0-dim tensor only matters when its category (bool < int < float) is higher."""
    da, db = a._data.dtype, b._data.dtype
    if da == db:
        return da
    za, zb = a._data.ndim == 0, b._data.ndim == 0
    if za == zb:
        ca, cb = _CATEGORY[da.kind], _CATEGORY[db.kind]
        if ca != cb:  # the higher category wins as it is: int64 with float32 is float32
            return da if ca > cb else db
        return np.promote_types(da, db)
    dim_dt, zero_dt = (db, da) if za else (da, db)
    if _CATEGORY[zero_dt.kind] > _CATEGORY[dim_dt.kind]:
        return zero_dt
    return dim_dt


def scalar_dtype(arr_dtype, value):
    """libtorch's result dtype for a tensor with a Python scalar: the scalar only decides when its
    category is higher (a float scalar turns an int tensor into the default float dtype)."""
    if isinstance(value, (bool, np.bool_)):
        cat = 0
    elif isinstance(value, numbers.Integral):
        cat = 1
    elif isinstance(value, numbers.Real):
        cat = 2
    else:
        raise TypeError(f"expected a Tensor or a number, got {type(value).__name__}")
    if cat <= _CATEGORY[arr_dtype.kind]:
        return arr_dtype
    return default_float() if cat == 2 else np.dtype(np.int64)


def operands(a, b):
    """Both tensors' arrays in their common dtype, and that dtype."""
    da, db = a._data.dtype, b._data.dtype
    if da == db:
        return a._data, b._data, da
    dt = promote(a, b)
    return a._data.astype(dt, copy=False), b._data.astype(dt, copy=False), dt


def scalar_operand(a, value):
    """The tensor's array in the result dtype of (tensor, scalar), and that dtype."""
    dt = a._data.dtype
    if dt.kind == "f" and type(value) in (float, int):
        return a._data, dt  # the common case: no cast (NumPy keeps float32 with Python scalars)
    dt = scalar_dtype(dt, value)
    return a._data.astype(dt, copy=False), dt


def fix_dtype(data, dt):
    """NumPy's own promotion may differ from libtorch's (e.g. value-based casting in NumPy 1.x):
    make the result the dtype libtorch would give."""
    if data.dtype != dt:
        return np.asarray(data, dtype=dt) if data.ndim else np.asarray(data.astype(dt))
    return np.asarray(data) if type(data) is not np.ndarray else data


def float_data(t):
    """The array to feed a float-only function (int and bool become the default float)."""
    d = t._data
    return d if d.dtype.kind == "f" else d.astype(default_float())


def wrap(data):
    return Tensor._make(data if type(data) is np.ndarray else np.asarray(data))


def _number(x, what="other"):
    if isinstance(x, (numbers.Number, np.number, np.bool_)) and not isinstance(x, complex):
        return x.item() if isinstance(x, (np.number, np.bool_)) else x
    raise TypeError(f"{what} must be a Tensor or a number, got {type(x).__name__}")


def _shape(x):
    """The shape of an operand (a Tensor, an array-like or a number), for error messages."""
    return x._data.shape if isinstance(x, Tensor) else np.shape(x)


def _is_scalar(x):
    t = type(x)
    if t is float or t is int:  # the common case, before the (slow) ABC check
        return True
    return isinstance(x, (numbers.Number, np.number, np.bool_)) and not isinstance(x, Tensor)


# ------------------------------------------------------------------------------ arithmetic
_ADD0, _ADD1 = NODES["AddBackward0"], NODES["AddBackward1"]
_SUB0, _SUB1, _RSUB1 = NODES["SubBackward0"], NODES["SubBackward1"], NODES["RsubBackward1"]
_MUL0, _MUL1 = NODES["MulBackward0"], NODES["MulBackward1"]
_DIV0, _DIV1 = NODES["DivBackward0"], NODES["DivBackward1"]


def _binary_tensor(a, b, np_fn, node, saved_self, saved_other, params=()):
    try:
        x, y, dt = operands(a, b)
        out = Tensor._make(fix_dtype(np_fn(x, y), dt))
        if recording(a, b):
            saved = ((a,) if saved_self else ()) + ((b,) if saved_other else ())
            record(node, (a, b), (out,), saved, params)
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, a.shape, b.shape) from None


# add/sub/mul/div begin with the cases that dominate small-tensor work (same-dtype tensors, a
# float tensor with a Python number), handled without helper calls; everything else falls
# through to the general code below them. Same-dtype add/sub/mul keep their dtype in NumPy and
# libtorch alike; a number keeps a float tensor's dtype (NumPy 1.x may widen it: checked).
_ndarray = np.ndarray
_make = Tensor._make
_ALPHA_ONE = (1,)  # the params of a plain a + b, shared


@op("add")
def add(self, other, alpha=1):
    """``self + alpha * other``."""
    try:
        x = self._data
        t = type(other)
        if t is Tensor and alpha == 1 and x.dtype is other._data.dtype:
            r = x + other._data
            out = _make(r if type(r) is _ndarray else np.asarray(r))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_ADD0, self, other, out, (), _ALPHA_ONE)
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x + other * alpha if alpha != 1 else x + scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and self._requires_grad:
                record1(_ADD1, self, out)
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x + y * alpha if alpha != 1 else x + y, dt))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_ADD0, self, other, out, (), (alpha,))
            return out
        if not _is_scalar(other):
            return add(self, as_tensor(other), alpha)
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x + other * alpha, dt))
        if STATE.grad_enabled and self._requires_grad:
            record1(_ADD1, self, out)
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


_BOOL_SUB_ERROR = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                   "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@op("sub", aliases=("subtract",))
def sub(self, other, alpha=1):
    """``self - alpha * other``."""
    try:
        x = self._data
        t = type(other)
        if t is Tensor and alpha == 1 and x.dtype is other._data.dtype and x.dtype.kind != "b":
            r = x - other._data
            out = _make(r if type(r) is _ndarray else np.asarray(r))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_SUB0, self, other, out, (), _ALPHA_ONE)
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x - other * alpha if alpha != 1 else x - scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and self._requires_grad:
                record1(_SUB1, self, out)
            return out
        if x.dtype.kind == "b" or (isinstance(other, Tensor) and other._data.dtype.kind == "b"):
            raise RuntimeError(_BOOL_SUB_ERROR)
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x - y * alpha if alpha != 1 else x - y, dt))
            if recording(self, other):
                record2(_SUB0, self, other, out, (), (alpha,))
            return out
        if not _is_scalar(other):
            return sub(self, as_tensor(other), alpha)
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x - other * alpha, dt))
        if STATE.grad_enabled and self._requires_grad:
            record1(_SUB1, self, out)
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


def rsub(self, other, alpha=1):
    """``other - alpha * self`` (Python's ``2 - x``)."""
    if isinstance(other, Tensor):
        return sub(other, self, alpha)
    other = _number(other)
    x, dt = scalar_operand(self, other)
    out = _make(fix_dtype(other - x * alpha, dt))
    if STATE.grad_enabled and self._requires_grad:
        record1(_RSUB1, self, out, None, (alpha,))
    return out


@op("mul", aliases=("multiply",))
def mul(self, other):
    """Elementwise product."""
    try:
        x = self._data
        t = type(other)
        if t is Tensor and x.dtype is other._data.dtype:
            r = x * other._data
            out = _make(r if type(r) is _ndarray else np.asarray(r))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_MUL0, self, other, out, (self, other), (self is other,))
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            if t is float:
                # a 0-d array of the tensor's dtype (see scalar_array), which backward reuses for
                # g * other
                other = scalar_array(other, x.dtype)
            r = x * other
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and self._requires_grad:
                record1(_MUL1, self, out, None, (other,))
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x * y, dt))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_MUL0, self, other, out, (self, other), (self is other,))
            return out
        if not _is_scalar(other):
            return mul(self, as_tensor(other))
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x * other, dt))
        if STATE.grad_enabled and self._requires_grad:
            record1(_MUL1, self, out, None, (other,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


@op("div", aliases=("divide", "true_divide"))
def div(self, other, rounding_mode=None):
    """Elementwise division; ``rounding_mode`` None (true division), "trunc" or "floor"."""
    try:
        if rounding_mode is not None:
            return _div_rounded(self, other, rounding_mode)
        x = self._data
        t = type(other)
        if t is Tensor and x.dtype is other._data.dtype and x.dtype.kind == "f":
            r = np.true_divide(x, other._data)
            out = _make(r if type(r) is _ndarray else np.asarray(r))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
                record2(_DIV0, self, other, out, (self, other))
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x / scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and self._requires_grad:
                record1(_DIV1, self, out, None, (other,))
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            if dt.kind != "f":
                dt = default_float()
            out = _make(fix_dtype(np.true_divide(x, y), dt))
            if recording(self, other):
                record2(_DIV0, self, other, out, (self, other))
            return out
        if not _is_scalar(other):
            return div(self, as_tensor(other))
        x, dt = scalar_operand(self, other)
        if dt.kind != "f":
            dt = default_float()
        out = _make(fix_dtype(np.true_divide(x, other), dt))
        if STATE.grad_enabled and self._requires_grad:
            record1(_DIV1, self, out, None, (other,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


def _div_rounded(self, other, mode):
    try:
        if mode not in ("trunc", "floor"):
            raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                             f"found '{mode}'")
        b = other if isinstance(other, Tensor) else None
        if b is not None:
            x, y, dt = operands(self, b)
        else:
            x, dt = scalar_operand(self, _number(other))
            y = other
        if dt.kind in "iub":
            if np.any(np.asarray(y) == 0):
                raise RuntimeError("ZeroDivisionError")
            q = np.floor_divide(x, y) if mode == "floor" else \
                (np.trunc(np.true_divide(x, y))).astype(dt)
        else:
            q = np.true_divide(x, y)
            q = np.floor(q) if mode == "floor" else np.trunc(q)
        out = Tensor._make(fix_dtype(q, dt))
        if b is not None and recording(self, b):
            record(NODES["DivBackward2"], (self, b), (out,))
        elif b is None and STATE.grad_enabled and self._requires_grad:
            record(NODES["DivBackward3"], (self,), (out,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


@op("neg", aliases=("negative",))
def neg(self):
    """``-self``."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    out = Tensor._make(np.negative(self._data))
    if STATE.grad_enabled and self._requires_grad:
        record(NODES["NegBackward0"], (self,), (out,))
    return out


@op("pow")
def pow(self, exponent):
    """``self ** exponent`` with a number or tensor exponent."""
    try:
        if isinstance(exponent, Tensor):
            x, e, dt = operands(self, exponent)
            _check_int_pow(x, e)
            out = Tensor._make(fix_dtype(_power(x, e), dt))
            if recording(self, exponent):
                record(NODES["PowBackward1"], (self, exponent), (out,))
            return out
        if not _is_scalar(exponent):
            return pow(self, as_tensor(exponent))
        x, dt = scalar_operand(self, exponent)
        _check_int_pow(x, exponent)
        data = np.square(x) if exponent == 2 else _power(x, exponent)
        out = Tensor._make(fix_dtype(data, dt))
        if STATE.grad_enabled and self._requires_grad:
            record(NODES["PowBackward0"], (self,), (out,), (self,), (exponent,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(exponent)) from None


def _check_int_pow(x, e):
    if x.dtype.kind in "iu" and np.any(np.asarray(e) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def rpow(self, base):
    """``base ** self`` for a number ``base`` (Python's ``2 ** x``)."""
    if isinstance(base, Tensor):
        return pow(base, self)
    base = _number(base, "base")
    x, dt = scalar_operand(self, base)
    out = Tensor._make(fix_dtype(_power(base, x), dt))
    if STATE.grad_enabled and self._requires_grad:
        record(NODES["PowBackward2"], (self,), (out,), (out,), (base,))
    return out


@op("square")
def square(self):
    """``self ** 2`` (recorded as PowBackward0, as libtorch does)."""
    return pow(self, 2)


def _fmod_like(name, np_fn, node0, node1):
    def fn(self, other):
        try:
            if isinstance(other, Tensor):
                x, y, dt = operands(self, other)
                out = Tensor._make(fix_dtype(np_fn(x, y), dt))
                if recording(self, other):
                    record(NODES[node0], (self, other), (out,), (self, other))
                return out
            other = _number(other)
            x, dt = scalar_operand(self, other)
            out = Tensor._make(fix_dtype(np_fn(x, other), dt))
            if STATE.grad_enabled and self._requires_grad:
                record(NODES[node1], (self,), (out,))
            return out
        except ValueError as e:  # NumPy's broadcasting error
            raise shape_error(e, self.shape, _shape(other)) from None
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} (the remainder's sign follows " + \
        ("the dividend)." if name == "fmod" else "the divisor).")
    return fn


fmod = op("fmod")(_fmod_like("fmod", np.fmod, "FmodBackward1", "FmodBackward0"))
remainder = op("remainder")(_fmod_like("remainder", np.remainder, "RemainderBackward1",
                                       "RemainderBackward0"))


@op("maximum")
def maximum(self, other):
    """Elementwise maximum of two tensors (ties share the gradient)."""
    other = as_tensor(other)
    return _binary_tensor(self, other, np.maximum, NODES["MaximumBackward0"], True, True)


@op("minimum")
def minimum(self, other):
    """Elementwise minimum of two tensors (ties share the gradient)."""
    other = as_tensor(other)
    return _binary_tensor(self, other, np.minimum, NODES["MinimumBackward0"], True, True)


def _where_method(self, condition, other):
    """``x.where(condition, other)``: x where condition, else other (the method form of
    ``torch_where(condition, x, other)``, as in PyTorch and R torch)."""
    return where(condition, self, other)


@op("where", method_fn=_where_method)
def where(condition, self=None, other=None):
    """``torch_where(condition, self, other)``: self where condition else other. With only
    ``condition``, the indices of its non-zero elements (one index tensor per dim)."""
    try:
        condition = as_tensor(condition)
        if self is None and other is None:
            return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(condition._data))
        if self is None or other is None:
            raise TypeError("where() needs both self and other, or neither")
        a = self if isinstance(self, Tensor) else None
        b = other if isinstance(other, Tensor) else None
        if a is None and b is None:
            dt = scalar_dtype(np.dtype(np.bool_), self)
            dt = np.promote_types(dt, scalar_dtype(np.dtype(np.bool_), other))
            return Tensor._make(np.where(condition._data, self, other).astype(dt))
        if a is None:
            x, dt = scalar_operand(b, _number(self, "self"))
            a = Tensor._make(np.asarray(self, dtype=dt))
        if b is None:
            x, dt = scalar_operand(a, _number(other, "other"))
            b = Tensor._make(np.asarray(other, dtype=dt))
        if condition._data.dtype.kind != "b":
            raise TypeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                            f"dtype {condition.dtype!r}")
        x, y, dt = operands(a, b)
        out = Tensor._make(fix_dtype(np.where(condition._data, x, y), dt))
        if recording(a, b):
            record(NODES["WhereBackward0"], (a, b), (out,), (), (condition._data,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, _shape(condition), _shape(self), _shape(other)) from None


def copy_backwards(g):
    """A graph-connected copy of ``g`` (the first ``.grad`` of a leaf under create_graph)."""
    out = Tensor._make(np.array(g._data, copy=True))
    if recording(g):
        record(NODES["torch::autograd::CopyBackwards"], (g,), (out,))
    return out


# elementwise math, comparisons and the operators: registered there, re-exported here
from ._ops_math import (  # noqa: E402,F401
    abs, acos, acosh, allclose, asin, asinh, atan, atanh, ceil, clamp, clamp_max, clamp_min, cos,
    cosh, eq, equal, exp, expm1, floor, ge, gt, sinh,
    isclose, isfinite, isinf, isnan, le, log, log10, log1p, log2, logical_and, logical_not,
    logical_or, logical_xor, lt, ne, reciprocal, relu, round, rsqrt, sigmoid, sign, sin, sqrt, tan,
    tanh, trunc)
