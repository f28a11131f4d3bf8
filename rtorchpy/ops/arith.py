"""The arithmetic ops: ``+ - * /``, powers, remainders, maximum/minimum, ``where``.

``add``/``sub``/``mul``/``div`` begin with the cases that dominate small-tensor work (same-dtype
tensors, a float tensor with a Python number), handled without helper calls; everything else falls
through to the general code below them.
"""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.record import record, record1, record2
from ..autograd.views import gained_grad
from ..derivatives import NODES
from ..numerics.arrays import scalar_array
from ..numerics.rounded import power as _power
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from .bf16 import bf16_aware
from .registry import (
    _is_scalar,
    _number,
    _shape,
    as_tensor,
    default_float,
    fix_dtype,
    op,
    operands,
    recording,
    scalar_dtype,
    scalar_operand,
)

# ------------------------------------------------------------------------------ arithmetic
_ADD0, _ADD1 = NODES["AddBackward0"], NODES["AddBackward1"]
_SUB0, _SUB1, _RSUB1 = NODES["SubBackward0"], NODES["SubBackward1"], NODES["RsubBackward1"]
_MUL0, _MUL1 = NODES["MulBackward0"], NODES["MulBackward1"]
_DIV0, _DIV1 = NODES["DivBackward0"], NODES["DivBackward1"]


def _binary_tensor(a, b, np_fn, node, params=()):
    try:
        x, y, dt = operands(a, b)
        out = Tensor._make(fix_dtype(np_fn(x, y), dt))
        if recording(a, b):
            record(node, (a, b), (out,), params)
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
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                record2(_ADD0, self, other, out, _ALPHA_ONE)
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x + other * alpha if alpha != 1 else x + scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
                record1(_ADD1, self, out)
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x + y * alpha if alpha != 1 else x + y, dt))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                record2(_ADD0, self, other, out, (alpha,))
            return out
        if not _is_scalar(other):
            return add(self, as_tensor(other), alpha)
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x + other * alpha, dt))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
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
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                record2(_SUB0, self, other, out, _ALPHA_ONE)
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x - other * alpha if alpha != 1 else x - scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
                record1(_SUB1, self, out)
            return out
        if x.dtype.kind == "b" or (isinstance(other, Tensor) and other._data.dtype.kind == "b"):
            raise RuntimeError(_BOOL_SUB_ERROR)
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x - y * alpha if alpha != 1 else x - y, dt))
            if recording(self, other):
                record2(_SUB0, self, other, out, (alpha,))
            return out
        if not _is_scalar(other):
            return sub(self, as_tensor(other), alpha)
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x - other * alpha, dt))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
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
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record1(_RSUB1, self, out, (alpha,))
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
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                # (x * x: one product 2 g x on one edge; for bfloat16 two, as libtorch adds
                # them one at a time, each sum rounded)
                record2(_MUL0, self, other, out, (self is other and not self._bf16,))
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
            if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
                record1(_MUL1, self, out, (other,))
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            out = _make(fix_dtype(x * y, dt))
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                record2(_MUL0, self, other, out, (self is other and not self._bf16,))
            return out
        if not _is_scalar(other):
            return mul(self, as_tensor(other))
        x, dt = scalar_operand(self, other)
        out = _make(fix_dtype(x * other, dt))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record1(_MUL1, self, out, (other,))
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
            if STATE.grad_enabled and (self._requires_grad or other._requires_grad
                                       or gained_grad(self, other)):
                record2(_DIV0, self, other, out)
            return out
        if (t is float or t is int) and x.dtype.kind == "f":
            r = x / scalar_array(other, x.dtype)
            if type(r) is not _ndarray or r.dtype is not x.dtype:
                r = fix_dtype(r, x.dtype)
            out = _make(r)
            if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
                record1(_DIV1, self, out, (other,))
            return out
        if isinstance(other, Tensor):
            x, y, dt = operands(self, other)
            if dt.kind not in "fc":  # (complex stays complex)
                dt = default_float()
            out = _make(fix_dtype(np.true_divide(x, y), dt))
            if recording(self, other):
                record2(_DIV0, self, other, out)
            return out
        if not _is_scalar(other):
            return div(self, as_tensor(other))
        x, dt = scalar_operand(self, other)
        if dt.kind != "f":
            dt = default_float()
        out = _make(fix_dtype(np.true_divide(x, other), dt))
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record1(_DIV1, self, out, (other,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, self.shape, _shape(other)) from None


def _div_rounded(self, other, mode):
    try:
        if mode not in ("trunc", "floor"):
            raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                             f"but found '{mode}'")
        b = other if isinstance(other, Tensor) else None
        if b is not None:
            x, y, dt = operands(self, b)
        else:
            x, dt = scalar_operand(self, _number(other))
            y = other
        if dt.kind in "iub":
            _no_integer_zero(y, dt)
            q = np.floor_divide(x, y) if mode == "floor" else \
                (np.trunc(np.true_divide(x, y))).astype(dt)
        else:
            q = np.true_divide(x, y)
            q = np.floor(q) if mode == "floor" else np.trunc(q)
        out = Tensor._make(fix_dtype(q, dt))
        if b is not None and recording(self, b):
            record(NODES["DivBackward2"], (self, b), (out,))
        elif b is None and STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
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
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
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
        if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
            record(NODES["PowBackward0"], (self,), (out,), (exponent,))
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
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record(NODES["PowBackward2"], (self,), (out,), (base,))
    return out


@op("square")
def square(self):
    """``self ** 2`` (recorded as PowBackward0, as libtorch does)."""
    return pow(self, 2)


def _no_integer_zero(divisor, dt):
    """libtorch's error for an integer division by zero (NumPy would give 0 and a warning)."""
    if dt.kind in "iub" and np.any(np.asarray(divisor) == 0):
        raise RuntimeError("ZeroDivisionError")


def _fmod_like(name, np_fn, node0, node1):
    def fn(self, other):
        try:
            if isinstance(other, Tensor):
                x, y, dt = operands(self, other)
                _no_integer_zero(y, dt)
                out = Tensor._make(fix_dtype(np_fn(x, y), dt))
                if recording(self, other):
                    record(NODES[node0], (self, other), (out,))
                return out
            other = _number(other)
            x, dt = scalar_operand(self, other)
            _no_integer_zero(other, dt)
            try:  # (in the result dtype: NumPy 1 makes an object array of a huge Python int)
                scalar = np.asarray(other, dtype=dt)
            except OverflowError:
                raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                                   f"overflow") from None
            out = Tensor._make(fix_dtype(np_fn(x, scalar), dt))
            if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
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
    return _binary_tensor(self, other, np.maximum, NODES["MaximumBackward0"])


@op("minimum")
def minimum(self, other):
    """Elementwise minimum of two tensors (ties share the gradient)."""
    other = as_tensor(other)
    return _binary_tensor(self, other, np.minimum, NODES["MinimumBackward0"])


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
            # two numbers: the higher category's own dtype (an int and a float give the default
            # float dtype, not NumPy's float64 for int64 with float32)
            dt = scalar_dtype(scalar_dtype(np.dtype(np.bool_), self), other)
            return Tensor._make(np.where(condition._data, self, other).astype(dt))
        if a is None:
            x, dt = scalar_operand(b, _number(self, "self"))
            a = Tensor._make(np.asarray(self, dtype=dt))
        if b is None:
            x, dt = scalar_operand(a, _number(other, "other"))
            b = Tensor._make(np.asarray(other, dtype=dt))
        if condition._data.dtype.kind != "b":
            raise TypeError("where expected condition to be a boolean tensor, but got a tensor "
                            f"with dtype {condition.dtype!r}")
        x, y, dt = operands(a, b)
        out = Tensor._make(fix_dtype(np.where(condition._data, x, y), dt))
        if recording(a, b):
            record(NODES["WhereBackward0"], (a, b), (out,), (condition._data,))
        return out
    except ValueError as e:  # NumPy's broadcasting error
        raise shape_error(e, _shape(condition), _shape(self), _shape(other)) from None


# (not registered ops, but the operators' reflected forms: bfloat16 as every op)
rsub = bf16_aware(rsub, "rsub")
rpow = bf16_aware(rpow, "rpow")
