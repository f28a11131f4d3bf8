"""The op registry, and what every op's forward shares: libtorch's type promotion, argument
conversion, and whether to record.

Each op is one Python function registered once with :func:`op`: the registry makes the namespace
form (``torch_exp(x)``) and the method form (``x.exp()``), and records which arguments are
dimensions or indices so the R shim can convert them from 1-based without a hand-written list.
An op computes eagerly with NumPy and, when grad mode is on and an input requires grad, records
the node of its row in the derivative table (``rtorchpy/derivatives/``).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE
from ..autograd.views import gained_grad
from ..numerics.args import INT64_MAX, INT64_MIN
from ..numerics.dims import normalize_dim, normalize_dims  # noqa: F401  (ops import them here)
from ..tensor import Tensor
from .bf16 import bf16_aware
from .boundary import boundary
from .creation import torch_tensor

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
        nonlocal method_fn
        key = name or fn.__name__
        writes = key.endswith("_") and not key.endswith("__")  # (x.add_(y), not x[i])
        fn = bf16_aware(fn, key, inplace=writes)
        if method_fn is not None:
            method_fn = bf16_aware(method_fn, key, inplace=writes)
        info = OpInfo(key, fn, method, namespace, tuple(dims), tuple(index_args), returns_index,
                      key.endswith("_"), tuple(aliases), method_fn)
        OPS[key] = info
        for alias in aliases:
            OPS[alias] = info
        if method:  # (Python's method form: flags checked, internal errors translated)
            for n in (key,) + tuple(aliases):
                setattr(Tensor, n, boundary(method_fn or fn, n))
        return fn
    return register


# ------------------------------------------------------------------------------ helpers

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def default_float():
    return _dt.torch_get_default_dtype().numpy


def as_tensor(x, like=None):
    """Convert an op argument to a Tensor (Tensors pass through untouched)."""
    if isinstance(x, Tensor):
        return x
    return torch_tensor(x)


def recording(*tensors):
    """Whether an op on these tensors must record a node."""
    if not STATE.grad_enabled:
        return False
    for t in tensors:
        if t._requires_grad:
            return True
    for t in tensors:
        if gained_grad(t):
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
    if dt.kind in "iu" and type(value) is int and not INT64_MIN <= value <= INT64_MAX:
        # (NumPy 2 raises OverflowError, NumPy 1 computes in float or object: neither is ours)
        raise RuntimeError(f"value cannot be converted to type int64 without overflow: "
                           f"{value}")
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


