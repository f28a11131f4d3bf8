"""The crossing between R and Python: handles, encoded replies, R's conventions for dims and
indices. The protocol is described in ``rtorchpy/_r/__init__.py``, the module R imports."""
from __future__ import annotations

import inspect
import itertools
import secrets
import weakref

import numpy as np

from .. import dtypes as _dt
from ..autograd.graph import Node
from ..numerics import bfloat16
from ..tensor import Tensor
from ..ops.batching import BatchedTensor
from ..ops.batching import wrap as _batched
from .errors import ZERO_DIM, ZERO_INDEX, RIndexError, RNAError, _err, na_message
from .protocol import FLAG_GC, FLAG_WARN, MAGIC

MAGIC_GC = MAGIC - FLAG_GC

# R's NA_integer_ as reticulate sends it (R's integers never take this value). The R side sends
# a logical NA and NA_character_ as NA_integer_ too (r-shim/R/bridge.R, .a), since reticulate
# would make them True and "NA"; so every R NA argument is refused here, by its name where known.
R_NA_INT = -2147483648

# Python warnings raised during a call from R (collected by session.py), shown by R as R
# warnings when the reply arrives.
_WARNINGS: list = []

# Keys are sparse and start at a random place each session: an R complex number a user types
# (say 3-7.25i) then never names a live object (it is refused as a complex value), and a key
# the bridge gave out is not given out again. Keys stay below 2^53, exact in R's doubles.
# (0 is the undefined tensor.) Every handle is made here, by _put, the C bridge's included.
_KEY_START = 2 ** 40 + secrets.randbelow(2 ** 40)
_KEY_STEP = 2 ** 20 + 2 * secrets.randbelow(2 ** 19) + 1
_OBJECTS: dict = {0: None}
_counter = itertools.count(_KEY_START, _KEY_STEP)
# Handles that do not keep their tensor alive (weak_alias); looked up only when _OBJECTS misses.
_WEAK: weakref.WeakValueDictionary[int, object] = weakref.WeakValueDictionary()


def is_key(k) -> bool:
    """Whether ``k`` is of the form of the keys this session gives out."""
    return type(k) is int and k >= _KEY_START and (k - _KEY_START) % _KEY_STEP == 0

# Tensors held only by dead-but-not-yet-collected R objects keep NumPy memory alive; R's
# garbage collector knows nothing of it. Count the bytes R holds and ask R to collect when they
# grow (the flag rides on the imaginary part of the next handle).
_held_bytes = 0
_GC_FLOOR = 16 << 20
_gc_threshold = _GC_FLOOR


_PLAIN = complex(0.0, MAGIC)  # a handle's imaginary part, added to its key
_FLAGGED_WARN = complex(0.0, MAGIC - FLAG_WARN)


def _put(obj) -> complex:
    """Register ``obj`` for R: its handle (the one registration path; C calls this too, for
    every tensor a direct call returns, so it is kept to a few operations)."""
    global _held_bytes
    key = next(_counter)
    _OBJECTS[key] = obj
    if obj.__class__ is Tensor:
        _held_bytes += obj._data.nbytes
        if _held_bytes > _gc_threshold:
            return complex(key, MAGIC - FLAG_GC - (FLAG_WARN if _WARNINGS else 0.0))
    return key + (_FLAGGED_WARN if _WARNINGS else _PLAIN)


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
        elif obj is None and _WEAK:
            _WEAK.pop(int(k), None)
    return None


def revive(h, owner):
    """A new handle for the tensor of handle ``h``, for an R closure Python holds (a hook on the
    tensor of handle ``owner``) that captured ``h``'s R object, once that R object's collection
    is under way (r-shim/R/autograd.R, .revive_captured). A strong handle to the owner, or to a
    tensor that may reach it (a result of autograd, a view), would close the cycle tensor ->
    hook -> closure -> handle -> tensor: those get a handle that does not keep the tensor alive
    (valid as long as Python needs the tensor anyway, which is whenever the hook can fire).
    Others (leaves, constants) get an ordinary handle, released with the closure."""
    obj = _get(h)
    if obj is not _get(owner) and obj._grad_fn is None and obj._base is None:
        return _put(obj)
    key = next(_counter)
    _WEAK[key] = obj
    return complex(key, MAGIC)


def collected():
    """R ran its garbage collector (and released what it freed): reset the threshold."""
    global _gc_threshold
    _gc_threshold = max(_GC_FLOOR, 2 * _held_bytes)
    return _held_bytes


def stats():
    return {"handles": len(_OBJECTS) - 1, "held_bytes": _held_bytes,
            "gc_threshold": _gc_threshold}


COMPLEX_VALUE = ("complex numbers are not supported by rtorchpy (an R complex value was given "
                 "where a tensor or a real number is expected)")


_MISSING = object()


def _get(h):
    if h.imag != MAGIC:
        raise TypeError(COMPLEX_VALUE)
    r = h.real
    v = _OBJECTS.get(r, _MISSING)  # (5.0 finds key 5; 5.5 finds nothing)
    if v is not _MISSING:
        return v
    v = _WEAK.get(r, _MISSING) if _WEAK else _MISSING
    if v is not _MISSING:
        return v
    if r.is_integer() and is_key(int(r)):
        raise RuntimeError("this object was freed (its R handle is no longer valid)") from None
    raise TypeError(COMPLEX_VALUE)


def _dec(a):
    """An R argument as Python: handles become their objects, lists are decoded element-wise;
    R's NA is refused (RNAError)."""
    t = type(a)
    if t is complex:
        return _get(a)
    if t is int and a == R_NA_INT:
        raise RNAError(na_message())
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
    if t is Tensor or t is BatchedTensor:   # (vmap hands R closures batched tensors)
        return _put(r)
    if t is Raw:
        return list(r)
    if _WARNINGS:
        w = list(_WARNINGS)
        _WARNINGS.clear()
        return ["W", w, _enc_value(r, t)]
    return _enc_value(r, t)


def _enc_value(r, t):
    if t is int and not -2147483647 <= r <= 2147483647:
        return ["v", float(r)]  # beyond R's 32-bit integers: a double (exact up to 2^53)
    if r is None or t in (bool, int, float, str):
        return ["v", r]
    if t in (tuple, list):
        return ["L", [_enc_item(v) for v in r]]
    if isinstance(r, Node):
        return ["N", _put(r), r.name]
    if isinstance(r, _dt.dtype):
        return ["D", r.name, r.word]
    if isinstance(r, np.generic):
        return _enc_value(r.item(), type(r.item()))
    return ["O", _put(r)]


def _enc_item(v):
    if v is None:
        return complex(0, MAGIC)  # in a list of results, None is the undefined tensor
    if type(v) is Tensor or type(v) is BatchedTensor:
        return _put(v)
    return _enc(v)


# ----------------------------------------------------------------------------- entry points

def has_na(a) -> bool:
    """Whether an R argument (before decoding) is or holds R's NA."""
    t = type(a)
    if t is int:
        return a == R_NA_INT
    if t is list:
        return not (a and a[0] == "__rarray__") and any(has_na(v) for v in a)
    if t is dict:
        return any(has_na(v) for v in a.values())
    return False


def na_argument_name(fn, args, kwargs, names=None):
    """The name of the first argument of a call of ``fn`` that holds R's NA (None if none)."""
    if names is None:
        try:
            names = [p.name for p in inspect.signature(fn).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            names = []
    for i, a in enumerate(args):
        if has_na(a):
            return names[i] if i < len(names) else f"argument {i + 1}"
    for k, v in kwargs.items():
        if has_na(v):
            return k
    return None


def guarded(fn):
    """Wrap a bridge entry point: results encoded, exceptions returned as error replies
    (:func:`errors.error_reply`). An R NA among the arguments is refused before the call, by the
    argument's name."""
    def entry(*args, **kwargs):
        try:
            for a in args:
                if has_na(a):
                    raise RNAError(na_message(na_argument_name(fn, args, kwargs)))
            for a in kwargs.values():
                if has_na(a):
                    raise RNAError(na_message(na_argument_name(fn, args, kwargs)))
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
    if isinstance(v, BatchedTensor):   # (inside vmap: every example's indices at once)
        return _batched(r_index_arg(v._value), v._level)
    if isinstance(v, list) and v and all(isinstance(t, Tensor) or t is None for t in v):
        return [r_index_arg(t) for t in v]
    if isinstance(v, Tensor) and v._data.dtype.kind not in "iu":
        return v
    return Tensor._make(_index_values(v))


def _plus_one(t):
    if isinstance(t, BatchedTensor):
        return _batched(_plus_one(t._value), t._level)
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


_R_KINDS = {"double": "<f8", "integer": "<i4", "logical": "<i4", "raw": "u1",
            "integer64": "<i8"}  # (bit64's integer64: the int64's own bytes)
_R_DEFAULT = {"double": None, "integer": np.int64, "logical": np.bool_, "raw": np.uint8,
              "integer64": np.int64}


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
    t = Tensor._make(np.ascontiguousarray(out))
    if dtype is not None and _dt.as_dtype(dtype) is _dt._BFLOAT16:
        bfloat16.round_in_place(t._data)  # (a fresh float32 array: rounded where it lies)
        t._bf16 = True
    return t
