"""Op registry, libtorch type promotion, and the elementwise and arithmetic ops.

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
from ._derivatives import NODES
from ._tensor import Tensor
from .autograd.grad_mode import STATE
from .autograd.graph import record

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
    x, y, dt = operands(a, b)
    out = Tensor._make(fix_dtype(np_fn(x, y), dt))
    if recording(a, b):
        saved = ((a,) if saved_self else ()) + ((b,) if saved_other else ())
        record(node, (a, b), (out,), saved, params)
    return out


@op("add")
def add(self, other, alpha=1):
    """``self + alpha * other``."""
    if isinstance(other, Tensor):
        x, y, dt = operands(self, other)
        out = Tensor._make(fix_dtype(x + y * alpha if alpha != 1 else x + y, dt))
        if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
            record(_ADD0, (self, other), (out,), (), (alpha,))
        return out
    if not _is_scalar(other):
        return add(self, as_tensor(other), alpha)
    x, dt = scalar_operand(self, other)
    out = Tensor._make(fix_dtype(x + other * alpha, dt))
    if STATE.grad_enabled and self._requires_grad:
        record(_ADD1, (self,), (out,))
    return out


@op("sub", aliases=("subtract",))
def sub(self, other, alpha=1):
    """``self - alpha * other``."""
    if self._data.dtype.kind == "b" or (isinstance(other, Tensor) and other._data.dtype.kind == "b"):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    if isinstance(other, Tensor):
        x, y, dt = operands(self, other)
        out = Tensor._make(fix_dtype(x - y * alpha if alpha != 1 else x - y, dt))
        if recording(self, other):
            record(_SUB0, (self, other), (out,), (), (alpha,))
        return out
    if not _is_scalar(other):
        return sub(self, as_tensor(other), alpha)
    x, dt = scalar_operand(self, other)
    out = Tensor._make(fix_dtype(x - other * alpha, dt))
    if STATE.grad_enabled and self._requires_grad:
        record(_SUB1, (self,), (out,))
    return out


def rsub(self, other, alpha=1):
    """``other - alpha * self`` (Python's ``2 - x``)."""
    if isinstance(other, Tensor):
        return sub(other, self, alpha)
    other = _number(other)
    x, dt = scalar_operand(self, other)
    out = Tensor._make(fix_dtype(other - x * alpha, dt))
    if STATE.grad_enabled and self._requires_grad:
        record(_RSUB1, (self,), (out,), (), (alpha,))
    return out


@op("mul", aliases=("multiply",))
def mul(self, other):
    """Elementwise product."""
    if isinstance(other, Tensor):
        x, y, dt = operands(self, other)
        out = Tensor._make(fix_dtype(x * y, dt))
        if STATE.grad_enabled and (self._requires_grad or other._requires_grad):
            record(_MUL0, (self, other), (out,), (self, other))
        return out
    if not _is_scalar(other):
        return mul(self, as_tensor(other))
    x, dt = scalar_operand(self, other)
    out = Tensor._make(fix_dtype(x * other, dt))
    if STATE.grad_enabled and self._requires_grad:
        record(_MUL1, (self,), (out,), (), (other,))
    return out


@op("div", aliases=("divide", "true_divide"))
def div(self, other, rounding_mode=None):
    """Elementwise division; ``rounding_mode`` None (true division), "trunc" or "floor"."""
    if rounding_mode is not None:
        return _div_rounded(self, other, rounding_mode)
    if isinstance(other, Tensor):
        x, y, dt = operands(self, other)
        if dt.kind != "f":
            dt = default_float()
        out = Tensor._make(fix_dtype(np.true_divide(x, y), dt))
        if recording(self, other):
            record(_DIV0, (self, other), (out,), (self, other))
        return out
    if not _is_scalar(other):
        return div(self, as_tensor(other))
    x, dt = scalar_operand(self, other)
    if dt.kind != "f":
        dt = default_float()
    out = Tensor._make(fix_dtype(np.true_divide(x, other), dt))
    if STATE.grad_enabled and self._requires_grad:
        record(_DIV1, (self,), (out,), (), (other,))
    return out


def _div_rounded(self, other, mode):
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
    if isinstance(exponent, Tensor):
        x, e, dt = operands(self, exponent)
        _check_int_pow(x, e)
        out = Tensor._make(fix_dtype(np.power(x, e), dt))
        if recording(self, exponent):
            record(NODES["PowBackward1"], (self, exponent), (out,), (self, exponent, out))
        return out
    if not _is_scalar(exponent):
        return pow(self, as_tensor(exponent))
    x, dt = scalar_operand(self, exponent)
    _check_int_pow(x, exponent)
    data = np.square(x) if exponent == 2 else np.power(x, exponent)
    out = Tensor._make(fix_dtype(data, dt))
    if STATE.grad_enabled and self._requires_grad:
        record(NODES["PowBackward0"], (self,), (out,), (self,), (exponent,))
    return out


def _check_int_pow(x, e):
    if x.dtype.kind in "iu" and np.any(np.asarray(e) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def rpow(self, base):
    """``base ** self`` for a number ``base`` (Python's ``2 ** x``)."""
    if isinstance(base, Tensor):
        return pow(base, self)
    base = _number(base, "base")
    x, dt = scalar_operand(self, base)
    out = Tensor._make(fix_dtype(np.power(base, x), dt))
    if STATE.grad_enabled and self._requires_grad:
        record(NODES["PowBackward2"], (self,), (out,), (out,), (base,))
    return out


@op("square")
def square(self):
    """``self ** 2`` (recorded as PowBackward0, as libtorch does)."""
    return pow(self, 2)


def _fmod_like(name, np_fn, node0, node1):
    def fn(self, other):
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


# ------------------------------------------------------------------------------ unary math

def _unary(name, np_fn, node_name, saves, float_only=True, doc=""):
    """Define and register an elementwise op; ``saves`` is "self", "result" or ""."""
    node = NODES[node_name]

    def fn(self):
        x = float_data(self) if float_only else self._data
        if x.dtype.kind == "b":  # only reached by the ops that keep integer dtypes
            if name != "sign":
                raise RuntimeError(f'"{name}" not implemented for \'Bool\'')
            x = x.copy()  # sign of a bool is itself
        out = Tensor._make(np.asarray(x if x.dtype.kind == "b" else np_fn(x)))
        if STATE.grad_enabled and self._requires_grad:
            record(node, (self,), (out,), (self,) if saves == "self" else
                   (out,) if saves == "result" else ())
        return out

    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name}."
    return op(name)(fn)


def _sigmoid(x):
    # split by sign so exp never overflows
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1 + e)
    return out


def _rsqrt(x):
    return 1 / np.sqrt(x)


exp = _unary("exp", np.exp, "ExpBackward0", "result")
expm1 = _unary("expm1", np.expm1, "Expm1Backward0", "result")
log = _unary("log", np.log, "LogBackward0", "self", doc="Natural logarithm.")
log1p = _unary("log1p", np.log1p, "Log1PBackward0", "self")
log2 = _unary("log2", np.log2, "Log2Backward0", "self")
log10 = _unary("log10", np.log10, "Log10Backward0", "self")
sqrt = _unary("sqrt", np.sqrt, "SqrtBackward0", "result")
rsqrt = _unary("rsqrt", _rsqrt, "RsqrtBackward0", "result")
reciprocal = _unary("reciprocal", np.reciprocal, "ReciprocalBackward0", "result")
sin = _unary("sin", np.sin, "SinBackward0", "self")
cos = _unary("cos", np.cos, "CosBackward0", "self")
tan = _unary("tan", np.tan, "TanBackward0", "result")
tanh = _unary("tanh", np.tanh, "TanhBackward0", "result")
sigmoid = _unary("sigmoid", _sigmoid, "SigmoidBackward0", "result")
abs = _unary("abs", np.abs, "AbsBackward0", "self", float_only=False)
sign = _unary("sign", np.sign, "SignBackward0", "", float_only=False)
floor = _unary("floor", np.floor, "FloorBackward0", "", float_only=False)
ceil = _unary("ceil", np.ceil, "CeilBackward0", "", float_only=False)
trunc = _unary("trunc", np.trunc, "TruncBackward0", "", float_only=False)
round = _unary("round", np.round, "RoundBackward0", "", float_only=False)


@op("relu")
def relu(self):
    """max(self, 0)."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    out = Tensor._make(np.maximum(self._data, self._data.dtype.type(0)))
    if STATE.grad_enabled and self._requires_grad:
        record(NODES["ReluBackward0"], (self,), (out,), (out,))
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
    if lo is not None:
        data = np.maximum(data, lo)
    if hi is not None:
        data = np.minimum(data, hi)
    out = Tensor._make(fix_dtype(np.asarray(data), dt))
    if recording(self, *present):
        record(NODES["ClampBackward0"], (self, *present), (out,), (self, *present),
               (lo is not None, hi is not None))
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
    if STATE.grad_enabled and self._requires_grad:
        record(NODES[node], (self,), (out,), (self,), (lo, hi))
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
        return Tensor._make(np.asarray(np_fn(self._data, y)))
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
    if unary:
        def fn(self):
            return Tensor._make(np.asarray(np_fn(self._data)))
    else:
        def fn(self, other):
            return Tensor._make(np.asarray(np_fn(self._data, as_tensor(other)._data)))
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

def _linalg():
    from . import _ops_linalg
    return _ops_linalg


def _install_operators():
    T = Tensor
    T.__add__ = lambda a, b: add(a, b)
    T.__radd__ = lambda a, b: add(a, b)
    T.__sub__ = lambda a, b: sub(a, b)
    T.__rsub__ = lambda a, b: rsub(a, b)
    T.__mul__ = lambda a, b: mul(a, b)
    T.__rmul__ = lambda a, b: mul(a, b)
    T.__truediv__ = lambda a, b: div(a, b)
    T.__rtruediv__ = lambda a, b: div(as_tensor(b) if not _is_scalar(b) else
                                      Tensor._make(np.asarray(b, dtype=scalar_dtype(
                                          a._data.dtype, b))), a)
    T.__floordiv__ = lambda a, b: div(a, b, rounding_mode="floor")
    T.__rfloordiv__ = lambda a, b: div(as_tensor(b), a, rounding_mode="floor")
    T.__mod__ = lambda a, b: remainder(a, b)
    T.__pow__ = lambda a, b: pow(a, b)
    T.__matmul__ = lambda a, b: _linalg().matmul(a, b)
    T.__rmatmul__ = lambda a, b: _linalg().matmul(as_tensor(b), a)
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


def copy_backwards(g):
    """A graph-connected copy of ``g`` (the first ``.grad`` of a leaf under create_graph)."""
    out = Tensor._make(np.array(g._data, copy=True))
    if recording(g):
        record(NODES["torch::autograd::CopyBackwards"], (g,), (out,))
    return out
