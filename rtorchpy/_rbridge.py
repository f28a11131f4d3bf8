"""Python-side glue for the R package ``rtorchpy`` (``r-shim/``). Not a public API.

The R package calls into this module through reticulate, once per operation, and never relies
on reticulate's array conversion (reticulate 1.28 cannot convert NumPy 2 arrays, and passing a
classed R object costs an R-level dispatch). So the protocol between the two sides uses only
values reticulate converts cheaply in C++:

* **Handles.** Every Python object the R side holds (tensors, nodes, hooks, contexts, custom
  functions) lives in :data:`_OBJECTS` under an integer key. R sees the key as a *complex* number
  ``key + MAGIC*1i``: R keeps every handle with exactly that imaginary part, and a complex
  argument with another one is an R complex number, refused (rtorchpy has no complex dtype), so
  any argument can carry a tensor. Key 0 is the undefined tensor (Python ``None``). R frees a
  key with :func:`release` when the R object holding it is garbage collected. A handle Python
  returns may carry flags in its imaginary part (:data:`FLAG_GC`, :data:`FLAG_WARN`).
* **Results.** A tensor comes back as its handle; anything else as a tagged Python list (lists
  cross to R much faster than tuples with reticulate 1.28), which R receives as a list: ``("v", value)`` a plain R value, ``("L", [...])`` a list (tensors, or ``None`` as
  the undefined tensor), ``("N", handle, name)`` a graph node, ``("D", name, word)`` a dtype,
  ``("E", message)`` an error (dims already 1-based), ``("R", message)`` an R error raised in an R
  callback (R re-raises the original condition).
* **R conventions** are applied here: 1-based dims (from the op registry's ``dim_args``) and
  index arguments, 1-based indices in results (``returns_index``), R's ``[`` rules, R torch's
  inclusive ``torch_arange``, values created from R vectors (column-major bytes, R dtypes).

``r-shim/tools/generate.py`` regenerates the R side's op wrappers from the
op registry; a test checks the committed file is current.
"""
from __future__ import annotations

import inspect
import itertools

import numpy as np

import rtorchpy
from . import dtypes as _dt
from ._ops import OPS
from ._rbridge_errors import (ZERO_DIM, ZERO_INDEX, RCallbackError, RIndexError,  # noqa: F401
                              _err, translate_error)
from ._tensor import Tensor
from .autograd.graph import Node

MAGIC = -7.25      # imaginary part of every handle R holds
FLAG_GC = 0.25     # subtracted from MAGIC in a returned handle: R should collect garbage
FLAG_WARN = 0.5    # subtracted from MAGIC: Python warnings are waiting (_WARNINGS)
MAGIC_GC = MAGIC - FLAG_GC

# Python warnings raised during a call from R (collected by _rbridge_session), shown by R as R
# warnings when the reply arrives.
_WARNINGS: list = []

_OBJECTS: dict = {0: None}
_counter = itertools.count(1)

# Tensors held only by dead-but-not-yet-collected R objects keep NumPy memory alive; R's
# garbage collector knows nothing of it. Count the bytes R holds and ask R to collect when they
# grow (the flag rides on the imaginary part of the next handle).
_held_bytes = 0
_gc_threshold = 256 << 20


def _put(obj) -> complex:
    global _held_bytes
    key = next(_counter)
    _OBJECTS[key] = obj
    if type(obj) is Tensor:
        _held_bytes += obj._data.nbytes
        if _held_bytes > _gc_threshold:
            return complex(key, MAGIC - FLAG_GC - (FLAG_WARN if _WARNINGS else 0.0))
    if _WARNINGS:
        return complex(key, MAGIC - FLAG_WARN)
    return complex(key, MAGIC)


def release(keys):
    """Forget the handles R no longer holds (a list of their real parts)."""
    global _held_bytes
    if type(keys) is not list:
        keys = [keys]
    objs = _OBJECTS
    for k in keys:
        obj = objs.pop(int(k), None)
        if type(obj) is Tensor:
            _held_bytes -= obj._data.nbytes
    return None


def collected():
    """R ran its garbage collector (and released what it freed): reset the threshold."""
    global _gc_threshold
    _gc_threshold = max(256 << 20, 2 * _held_bytes)
    return _held_bytes


_stash = None  # a reply r-shim/src/pycall.c does not convert, for R to fetch via reticulate


def take_stash():
    global _stash
    r, _stash = _stash, None
    return r


def stats():
    return {"handles": len(_OBJECTS) - 1, "held_bytes": _held_bytes,
            "gc_threshold": _gc_threshold}


COMPLEX_VALUE = ("complex numbers are not supported by rtorchpy (an R complex value was given "
                 "where a tensor or a real number is expected)")


def _get(h):
    if h.imag != MAGIC:
        raise TypeError(COMPLEX_VALUE)
    try:
        return _OBJECTS[int(h.real)]
    except KeyError:
        raise RuntimeError("this object was freed (its R handle is no longer valid)") from None


def _dec(a):
    """An R argument as Python: handles become their objects, lists are decoded element-wise."""
    t = type(a)
    if t is complex:
        return _get(a)
    if t is list:
        if a and a[0] == "__rarray__":
            return _array_from_r(a[1], a[2], a[3])
        return [_dec(v) for v in a]
    if t is dict:
        return {k: _dec(v) for k, v in a.items()}
    return a


class Raw(list):
    """A result already in the protocol's form (returned as is)."""


def _enc(r):
    """A Python result as the R side expects it (see the module docstring)."""
    t = type(r)
    if t is Tensor:
        return _put(r)
    if t is Raw:
        return list(r)
    if _WARNINGS:
        w = list(_WARNINGS)
        _WARNINGS.clear()
        return ["W", w, _enc_value(r, t)]
    return _enc_value(r, t)


def _enc_value(r, t):
    if r is None or t in (bool, int, float, str):
        return ["v", r]
    if t in (tuple, list):
        return ["L", [_enc_item(v) for v in r]]
    if isinstance(r, Node):
        return ["N", _put(r), r.name]
    if isinstance(r, _dt.dtype):
        return ["D", r.numpy.name, r.word]
    if isinstance(r, np.generic):
        return ["v", r.item()]
    return ["O", _put(r)]


def _enc_item(v):
    if v is None:
        return complex(0, MAGIC)  # in a list of results, None is the undefined tensor
    if type(v) is Tensor:
        return _put(v)
    return _enc(v)


# ----------------------------------------------------------------------------- entry points

def guarded(fn):
    """Wrap a bridge entry point: results encoded, exceptions returned as ["E", msg]."""
    def entry(*args, **kwargs):
        try:
            return _enc(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - every error goes back to R as an R error
            return _err(exc)
    entry.__name__ = fn.__name__
    entry.__doc__ = fn.__doc__
    return entry


# ----------------------------------------------------------------------------- R conventions

def _r_int(v):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def r_dim(d):
    """A 1-based R dim (or list of dims) as 0-based; negative dims count from the end as in
    Python; 0 is R torch's error."""
    if d is None or isinstance(d, Tensor):
        return d  # a tensor here is an operand (torch_max(x, y)), not a dim
    if isinstance(d, (list, tuple)):
        return [r_dim(x) for x in d]
    d = _r_int(d)
    if isinstance(d, int) and not isinstance(d, bool):
        if d > 0:
            return d - 1
        if d == 0:
            raise RIndexError(ZERO_DIM)
    return d


_R_TYPE_OF_KIND = {"U": "character", "S": "character", "O": "list", "c": "complex"}


def _index_values(v):
    """1-based R indices (a tensor, vector or number) as a 0-based int64 array."""
    if isinstance(v, Tensor):
        a = v._data
        if a.dtype.kind == "b":
            return a
    else:
        a = np.asarray(v)
    if a.dtype.kind not in "biuf":
        raise RIndexError("Index must be a tensor or a vector of integers, got an R value of "
                          f"type '{_R_TYPE_OF_KIND.get(a.dtype.kind, 'list')}'.")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise RIndexError("Index must be an integer, got a non-integer value.")
    a = a.astype(np.int64)
    if np.any(a == 0):
        raise RIndexError(ZERO_INDEX)
    return np.where(a > 0, a - 1, a)


def r_index_arg(v):
    """An index-tensor argument (gather, index_select, ...) from 1-based to 0-based; a list of
    tensors (index_put's indices) converts each."""
    if v is None:
        return None
    if isinstance(v, list) and v and all(isinstance(t, Tensor) or t is None for t in v):
        return [r_index_arg(t) for t in v]
    if isinstance(v, Tensor) and v._data.dtype.kind not in "iu":
        return v
    return Tensor._make(_index_values(v))


def _plus_one(t):
    return Tensor._make(t._data + 1) if isinstance(t, Tensor) else t


def r_value_tensor(v):
    """An R value on the left of an operator, or in a list: R torch's ``torch_tensor(v)``
    (double -> float32, integer -> int64, logical -> bool; a number has shape {1})."""
    if isinstance(v, Tensor):
        return v
    if isinstance(v, bool):
        return Tensor._make(np.array([v], dtype=np.bool_))
    if isinstance(v, int):
        return Tensor._make(np.array([v], dtype=np.int64))
    if isinstance(v, float):
        return Tensor._make(np.array([v], dtype=_dt.torch_get_default_dtype().numpy))
    if isinstance(v, list):
        if all(isinstance(x, bool) for x in v) and v:
            return Tensor._make(np.array(v, dtype=np.bool_))
        if all(isinstance(x, int) for x in v) and v:
            return Tensor._make(np.array(v, dtype=np.int64))
        return Tensor._make(np.array(v, dtype=_dt.torch_get_default_dtype().numpy))
    raise TypeError(f"can't convert an R value of Python type {type(v).__name__} to a tensor")


# ----------------------------------------------------------------------------- op callers

# ops flagged returns_index whose single result is always an index tensor (max/min return
# values without dim, and (values, indices) with it)
_INDEX_RESULTS = {"argmax", "argmin", "argsort", "nonzero", "multinomial"}


class _Plan:
    """How to call one function with R's arguments: which parameters are dims or indices."""

    def __init__(self, fn, dims=(), index_args=(), returns_index=False, name="", conv=None):
        self.fn, self.name = fn, name
        params = list(inspect.signature(fn).parameters.values())
        self.names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                             p.POSITIONAL_OR_KEYWORD)]
        var = [p for p in params if p.kind is p.VAR_POSITIONAL]
        self.varpos = var[0].name if var else None
        self.varpos_at = len(self.names)
        self.conv = {d: r_dim for d in dims}
        self.conv.update({a: r_index_arg for a in index_args})
        self.conv.update(conv or {})
        self.returns_index = returns_index
        self.always_index = name in _INDEX_RESULTS

    def convert(self, args, kwargs):
        for name, conv in self.conv.items():
            if name == self.varpos:
                args[self.varpos_at:] = [conv(a) for a in args[self.varpos_at:]]
            elif name in kwargs:
                kwargs[name] = conv(kwargs[name])
            elif name in self.names:
                i = self.names.index(name)
                if i < len(args):
                    args[i] = conv(args[i])
        return args, kwargs

    def fix_result(self, r):
        if isinstance(r, tuple) and len(r) == 2:
            return (r[0], _plus_one(r[1]))
        if self.always_index:
            return _plus_one(r)
        return r

    def __call__(self, *args, **kwargs):
        try:
            args = [_dec(a) for a in args]
            if kwargs:
                kwargs = {k: _dec(v) for k, v in kwargs.items()}
                if self.varpos and self.varpos not in kwargs:
                    # R torch names the size arguments (x$reshape(shape = ), x$view(size = )):
                    # one keyword that is not a parameter is the variadic argument
                    extra = [k for k in kwargs if k not in self.names]
                    if len(extra) == 1 and len(args) == self.varpos_at:
                        args.append(kwargs.pop(extra[0]))
            if self.conv:
                args, kwargs = self.convert(args, kwargs)
            r = self.fn(*args, **kwargs)
            return _enc(self.fix_result(r) if self.returns_index else r)
        except Exception as exc:  # noqa: BLE001
            return _err(exc)


def _where(condition, self=None, other=None):
    if self is None and other is None:
        return tuple(_plus_one(i) for i in rtorchpy.torch_where(condition))
    return rtorchpy.torch_where(condition, self, other)


def _r_pos(i):
    """A 1-based position argument (not a tensor of indices)."""
    i = _r_int(i)
    if isinstance(i, int) and not isinstance(i, bool):
        if i == 0:
            raise RIndexError(ZERO_INDEX)
        return i - 1 if i > 0 else i
    return i


# Position arguments (plain numbers) the registry does not flag: 1-based in R, like `[`.
_POSITIONS = {"select": {"index": _r_pos}, "narrow": {"start": _r_pos}}


def _op_plans():
    plans = {}
    for key, info in OPS.items():
        if key.startswith("_"):
            continue
        fn = _where if key == "where" else info.fn
        plans[key] = _Plan(fn, info.dim_args, info.index_args, info.returns_index, key,
                           conv=_POSITIONS.get(key))
        if info.method_fn is not None:  # x$op(...) with its own argument order
            plans[key + ".method"] = _Plan(info.method_fn, info.dim_args, info.index_args,
                                           info.returns_index, key, conv=_POSITIONS.get(key))
    return plans


_PLANS = _op_plans()


def op_caller(name):
    """The callable R uses for op ``name`` (one call = one op)."""
    return _PLANS[name]


def op_callers():
    return dict(_PLANS)


def method_names():
    """Names usable as ``x$name()``: every registered method."""
    return sorted(k for k, v in OPS.items() if v.method and not k.startswith("_"))


# nnf_* functions are not in the op registry; their R conventions are listed here.
_NNF_DIMS = {"nnf_softmax": ("dim",), "nnf_log_softmax": ("dim",)}
_NNF_TARGETS = {"nnf_nll_loss", "nnf_cross_entropy"}


def _nnf_target(t):
    if t is None or (isinstance(t, Tensor) and t._data.dtype.kind not in "iu"):
        return t  # class probabilities, not class indices
    return r_index_arg(t)


_NNF = {name: _Plan(getattr(rtorchpy.nnf, name), _NNF_DIMS.get(name, ()), name=name,
                    conv={"target": _nnf_target} if name in _NNF_TARGETS else None)
        for name in rtorchpy.nnf.__all__}


def fn_caller(name):
    """A guarded caller for a non-op function of the package (creation, nnf, dtypes, ...)."""
    if name in _NNF:
        return _NNF[name]
    return _Plan(getattr(rtorchpy, name), name=name)


# ----------------------------------------------------------------------------- operators

def _unary_minus(x):
    return rtorchpy.torch_zeros_like(x) - x   # R torch: SubBackward0, not NegBackward0


def _unary_plus(x):
    return x + rtorchpy.torch_zeros_like(x)


def _binary(fn):
    objects = _OBJECTS

    def call(a, b):
        try:
            a = objects[int(a.real)] if type(a) is complex and a.imag == MAGIC else \
                r_value_tensor(_dec(a))
            if type(b) is complex:
                b = objects[int(b.real)] if b.imag == MAGIC else _get(b)
            elif type(b) is list:
                b = r_value_tensor(_dec(b))
            r = fn(a, b)
            return _put(r) if type(r) is Tensor else _enc(r)
        except Exception as exc:  # noqa: BLE001
            return _err(exc)
    return call


def _unary(fn):
    def call(a):
        try:
            return _enc(fn(_get(a)))
        except Exception as exc:  # noqa: BLE001
            return _err(exc)
    return call


_ops = rtorchpy._ops
BINARY = {
    "+": _binary(_ops.add), "-": _binary(_ops.sub), "*": _binary(_ops.mul),
    "/": _binary(_ops.div), "^": _binary(_ops.pow), "%%": _binary(_ops.fmod),
    "%/%": _binary(lambda a, b: _ops.div(a, b, rounding_mode="trunc")),
    "==": _binary(_ops.eq), "!=": _binary(_ops.ne), "<": _binary(_ops.lt),
    "<=": _binary(_ops.le), ">": _binary(_ops.gt), ">=": _binary(_ops.ge),
    "&": _binary(_ops.logical_and), "|": _binary(_ops.logical_or),
    "%*%": _binary(rtorchpy._ops_linalg.matmul),
}
UNARY = {"-": _unary(_unary_minus), "+": _unary(_unary_plus), "!": _unary(_ops.logical_not)}


def binary_callers():
    return dict(BINARY)


def unary_callers():
    return dict(UNARY)


# ----------------------------------------------------------------------------- values <-> R

_R_KINDS = {"double": "<f8", "integer": "<i4", "logical": "<i4", "raw": "u1"}
_R_DEFAULT = {"double": None, "integer": np.int64, "logical": np.bool_, "raw": np.uint8}


def _array_from_r(data, kind, shape, dtype=None):
    """A tensor from an R vector sent as raw bytes (R's column-major order, R's own types):
    double -> float32, integer -> int64, logical -> bool, unless ``dtype`` is given."""
    arr = np.frombuffer(bytes(data), dtype=_R_KINDS[kind])
    shape = [int(s) for s in (shape if isinstance(shape, list) else [shape])]
    arr = arr.reshape(shape, order="F") if len(shape) > 1 else arr.reshape(shape)
    if dtype is not None:
        target = _dt.as_dtype(dtype).numpy
    else:
        target = _R_DEFAULT[kind] or _dt.torch_get_default_dtype().numpy
    out = (arr != 0) if (kind == "logical" and target == np.bool_) else arr.astype(target)
    return Tensor._make(np.ascontiguousarray(out))


@guarded
def from_r(rarray, dtype=None, requires_grad=False):
    """``torch_tensor()`` of an R vector, matrix or array (see :func:`_array_from_r`)."""
    t = _array_from_r(rarray[1], rarray[2], rarray[3], dtype)
    return t.requires_grad_(True) if requires_grad else t


@guarded
def to_r(h):
    """A tensor's values for R: (bytes in column-major order, R type, shape). Floats become
    doubles, integers R integers (int32; values beyond R's range flagged), bools logicals."""
    a = _get(h)._data
    shape = list(a.shape)
    if a.dtype.kind == "f":
        kind, out = "double", a.astype(np.float64, copy=False)
    elif a.dtype.kind == "b":
        kind, out = "logical", a.astype(np.int32)
    elif a.dtype.kind in "iu":
        kind = "integer"
        big = bool(a.size) and (a.max() > 2147483647 or a.min() < -2147483647)
        out = np.clip(a, -2147483647, 2147483647).astype(np.int32)
        if big:
            kind = "integer_overflow"
    else:
        raise TypeError(f"can't convert a tensor of dtype {a.dtype} to R")
    return Raw(["v", [bytearray(out.tobytes(order="F")), kind, shape]])


@guarded
def format_tensor(h, n=30):
    t = _get(h)
    if t is None:
        return "torch_tensor\n[ Tensor (undefined) ]"
    return t.format(int(n))


@guarded
def item(h):
    return _get(h).item()



# The other parts of the bridge, re-exported: R looks every entry point up on this module.
from ._rbridge_tensor import (arange, autograd_backward, autograd_grad, get_attr,  # noqa: E402,F401
                              node_next_functions, set_anomaly_mode, set_grad, set_grad_mode,
                              set_requires_grad, tensor_method)
from ._rbridge_callbacks import (call_function, ctx_mark, ctx_needs_input_grad,  # noqa: E402,F401
                                 ctx_save, ctx_saved, dead_rvalues, gradcheck, make_function,
                                 register_hook, remove_hook)
from ._rbridge_index import index, set_index  # noqa: E402,F401
from ._rbridge_session import collect_warnings, live_counts, take_warnings  # noqa: E402,F401
