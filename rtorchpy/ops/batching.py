"""Batched tensors: what ``autograd_vmap`` hands the mapped function.

A :class:`BatchedTensor` shows its *logical* shape (one example's) and holds a *value* whose dim 0
is the batch: a plain Tensor, or, under nested vmaps, the BatchedTensor of the enclosing vmap
(its logical shape then starts with this level's batch). Each vmap call is a *frame* with a level
(1 for the outermost) and a batch size.

Every public function passes through ``ops/boundary.py``'s wrapper. While a frame is open, that
wrapper hands a call with a batched argument to :func:`dispatch`, which takes the highest level
among the arguments and runs the op's batching rule (``ops/batch_rules.py``): the same op once on
the values, with dimensions shifted past the batch dim. An op without a rule runs once per
example (:func:`loop`: select, call, stack), which is correct but slow. Rules call the public
functions again on the values, so a value that is itself batched (nested vmap) is dispatched at
its own level, down to plain tensors. Autograd only ever sees the plain tensors.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..tensor import Tensor
from .boundary import VMAP, VMAP_LOCAL, boundary, inplace_error
from .random_state import torch_get_rng_state, torch_set_rng_state
from .creation import torch_tensor
from .registry import OPS

RULES: dict[str, Any] = {}  # op name -> rule(call, level, args, kwargs) (filled by batch_rules.py)
RANDOM: set[str] = set()  # ops that draw random numbers (randomness="same" loops over them)
FALLBACK_SEEN: set[str] = set()  # ops that ran by the per-example loop since import (diagnostics)


class Frame:
    __slots__ = ("level", "size", "randomness")

    def __init__(self, level, size, randomness):
        self.level, self.size, self.randomness = level, size, randomness


class BatchedTensor(Tensor):
    """One example's view of a batch (see the module docstring). Its array is not reachable:
    code that reads ``_data`` directly would see the whole batch, so it raises instead."""
    __slots__ = ("_value", "_level")

    @property
    def _data(self):
        raise RuntimeError("vmap: this function reads a batched tensor's data directly, which "
                           "vmap does not support (use tensor operations, or call it outside "
                           "vmap)")

    @property
    def _requires_grad(self):
        return self._value._requires_grad

    @property
    def _grad_fn(self):
        return self._value._grad_fn

    @property
    def _fw(self):
        return self._value._fw

    @property
    def _version(self):
        return self._value._version

    @property
    def shape(self):
        return tuple(self._value.shape[1:])

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def is_floating_point(self):
        return self._value.is_floating_point

    @property  # type: ignore[misc]  # (read-only here: it is the value's)
    def requires_grad(self):
        return self._value.requires_grad

    @property
    def grad_fn(self):
        return self._value.grad_fn

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        if not -len(shape) <= dim < max(len(shape), 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-len(shape)}, {len(shape) - 1}], but got {dim})")
        return shape[dim]

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some "
                           "data-dependent control flow. We don't support that yet, please "
                           "shout over at https://github.com/pytorch/functorch/issues/257 .")

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't "
                           "support vmap over calling .item() on a Tensor, please try to rewrite "
                           "what you're doing with other operations.")

    def tolist(self):
        raise RuntimeError("vmap: tolist() is not supported on a batched tensor (it would need "
                           "the values of every example)")

    def numpy(self):
        raise RuntimeError("vmap: numpy() is not supported on a batched tensor inside vmap")

    def detach(self):
        return wrap(self._value.detach(), self._level)

    def __repr__(self):
        return (f"BatchedTensor(level={self._level}, logical shape {list(self.shape)}, "
                f"value={self._value!r})")


def wrap(value, level):
    t = object.__new__(BatchedTensor)
    t._value = value
    t._level = level
    return t


def is_batched(x, level):
    return isinstance(x, BatchedTensor) and x._level == level


def frames():
    """This thread's open vmap frames, outermost first."""
    return VMAP_LOCAL.frames


def frame(level):
    return VMAP_LOCAL.frames[level - 1]


def _level_of(args, kwargs):
    level = 0
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, BatchedTensor):
            level = max(level, a._level)
        elif type(a) in (list, tuple):
            for v in a:
                if isinstance(v, BatchedTensor):
                    level = max(level, v._level)
    return level


def op_name(where):
    return where[6:] if where.startswith("torch_") else where


def dispatch(where, call, args, kwargs):
    """Run a public function called with a batched argument (see the module docstring)."""
    level = _level_of(args, kwargs)
    name = op_name(where)
    if not level:   # a random creation function (torch_randn(3)) inside vmap
        return _random_creation(name, call, args, kwargs)
    if name in RANDOM and frame(level).randomness == "same":
        return loop(name, call, level, args, kwargs, same_randomness=True)
    rule = RULES.get(name)
    if rule is not None:
        out = rule(call, level, args, kwargs)
        if out is not NotImplemented:
            return out
    return loop(name, call, level, args, kwargs)


RANDOM_CREATION = frozenset({"torch_randn", "torch_rand", "torch_randint", "torch_randperm",
                             "torch_normal"})


def _random_creation(name, call, args, kwargs):
    f = VMAP_LOCAL.frames[-1]
    if f.randomness == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. "
                           "Please either use the 'same' or 'different' randomness flags on "
                           "vmap or perform the randomness operation out of vmap")
    raw = getattr(call, "__wrapped__", call)   # (past the wrapper, which would come back here)
    if f.randomness == "same":
        return raw(*args, **kwargs)
    return wrap(_stack([raw(*args, **kwargs) for _ in range(f.size)], 0), f.level)


def _select(x, level, b):
    if is_batched(x, level):
        return x._value.select(0, b)
    if type(x) in (list, tuple):
        return type(x)(_select(v, level, b) for v in x)
    return x


def is_inplace(name):
    return (name.endswith("_") and not name.endswith("__")) or name == "__setitem__"


# How PyTorch 2.13 refuses an in-place op whose `self` is captured (not batched) and whose
# operand is batched, by op: a broadcast error (the output's shape against the batched
# broadcast shape), its "inplace arithmetic" check, or (ops it runs by its per-example
# fallback) that check worded with the op's name and the vmap level.
_INPLACE_BROADCAST = {"add_", "atan2_", "bitwise_and_", "bitwise_or_", "bitwise_xor_"}
_INPLACE_ARITH = {"div_", "divide_", "logical_and_", "logical_or_", "logical_xor_",
                  "masked_fill_", "mul_", "multiply_", "sub_", "true_divide_", "copy_"}


def captured_inplace_error(name, level, self, operands):
    """PyTorch's error for in-place op ``name`` on a captured ``self`` with batched operands."""
    if name in _INPLACE_BROADCAST:
        shapes = [tuple(self.shape)] + [tuple(t.shape) for t in operands
                                        if isinstance(t, Tensor)]
        full = [frame(level).size] + list(np.broadcast_shapes(*shapes))
        return RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                            f"broadcast shape {full}")
    if name in _INPLACE_ARITH or name is None:
        return inplace_error()
    what = f"aten::{name}"
    return RuntimeError(
        f"vmap: {what}(self, *extra_args) is not possible because there exists a Tensor "
        "`other` in extra_args that has more elements than `self`. This happened due to "
        f"`other` being vmapped over but `self` not being vmapped over at level {level}. "
        f"Please try to use out-of-place operators instead of {what}. If said operator is "
        "being called inside the PyTorch framework, please file a bug report instead.")


def loop(name, call, level, args, kwargs, same_randomness=False):
    """The per-example fallback: call ``call`` on each example's slices and stack the results
    (an in-place op writes each example's slice of ``self`` and returns ``self``)."""
    FALLBACK_SEEN.add(name)
    size = frame(level).size
    inplace = is_inplace(name)
    if inplace and args and not is_batched(args[0], level):
        raise captured_inplace_error(name, level, args[0],
                                     list(args[1:]) + list(kwargs.values()))
    state = torch_get_rng_state() if same_randomness else None
    results = []
    for b in range(size):
        if state is not None:
            torch_set_rng_state(state)
        a = [_select(x, level, b) for x in args]
        kw = {k: _select(v, level, b) for k, v in kwargs.items()}
        results.append(call(*a, **kw))
    if inplace:
        return args[0]
    return stack_results(results, level, name)


def stack_results(results, level, name):
    first = results[0]
    if isinstance(first, Tensor):
        return wrap(_stack(list(results), 0), level)
    if isinstance(first, (tuple, list)):
        parts = [stack_results([r[k] for r in results], level, name) for k in range(len(first))]
        return tuple(parts) if isinstance(first, tuple) else parts
    if first is None:
        return None
    if all(r == first for r in results):
        return first
    raise RuntimeError(f"vmap: `{name}` returned a {type(first).__name__} that differs between "
                       "examples; vmap can only batch tensors (compute it with tensor "
                       "operations, or call it outside vmap)")


_PUBLIC: dict[Any, Any] = {}


def public(key):
    """The public (dispatching) form of registered op ``key``."""
    fn = _PUBLIC.get(key)
    if fn is None:
        fn = _PUBLIC[key] = boundary(OPS[key].fn, key)
    return fn


def _stack(tensors, dim):
    return public("stack")(tensors, dim)


def value_of(x, level, size):
    """``x``'s value at ``level``: its own when batched there, else ``x`` expanded to the batch
    (a broadcast view, no copy)."""
    if is_batched(x, level):
        return x._value
    return x.unsqueeze(0).expand(size, *x.shape)


# ------------------------------------------------------------------------------ modules

# class name -> rule(module, level, args, kwargs) (batch_rules.py)
MODULE_RULES: dict[Any, Any] = {}
CONTAINERS = frozenset({"nn_sequential", "nn_module_list", "nn_module_dict"})


def module_call(module, args, kwargs):
    """A module called with a batched argument. rtorchpy's own layers call the op functions
    directly (past the dispatching wrapper), so each runs by its rule here or once per example;
    containers and the user's modules run their forward on the batched tensors (their ops
    dispatch one by one)."""
    cls = type(module)
    if not cls.__module__.startswith("rtorchpy.") or cls.__name__ in CONTAINERS:
        return module.forward(*args, **kwargs)
    level = _level_of(args, kwargs)
    rule = MODULE_RULES.get(cls.__name__)
    if rule is not None:
        out = rule(module, level, args, kwargs)
        if out is not NotImplemented:
            return out
    return loop(cls.__name__, module, level, args, kwargs)


# ------------------------------------------------------------------------------ transforms

def full_levels():
    return [(f.level, f.size) for f in VMAP_LOCAL.frames]


def peel(x):
    """The plain tensor under every level of ``x``, and those levels (outermost first): its
    leading dims are their batches, in that order."""
    levels = []
    while isinstance(x, BatchedTensor):
        levels.append(x._level)
        x = x._value
    return x, levels[::-1]


def expand_full(x):
    """``x`` (batched at some open levels, or plain) as a plain tensor batched at every open
    level, leading dims outermost first: a broadcast view where a level is missing."""
    p, have = peel(x)
    for i, (lvl, size) in enumerate(full_levels()):
        if lvl not in have:
            p = p.unsqueeze(i)
            shape = list(p.shape)
            shape[i] = size
            p = p.expand(*shape)
    return p


def rewrap_full(p):
    """Inverse of :func:`expand_full`: a plain tensor with every open level's batch in front,
    as the batched tensor of the innermost level."""
    for lvl, _ in full_levels():
        p = wrap(p, lvl)
    return p


_OPEN_LOCK = threading.Lock()   # (VMAP[0] counts the frames open in every thread)


def open_frame(size, randomness):
    fs = VMAP_LOCAL.frames
    f = Frame(len(fs) + 1, size, randomness)
    fs.append(f)
    VMAP_LOCAL.depth = len(fs)
    with _OPEN_LOCK:
        VMAP[0] += 1
    return f


def close_frame(f):
    fs = VMAP_LOCAL.frames
    assert fs and fs[-1] is f
    fs.pop()
    VMAP_LOCAL.depth = len(fs)
    with _OPEN_LOCK:
        VMAP[0] -= 1


# ------------------------------------------------------------------------------ operators
# (Tensor's operators call the op functions directly, past the dispatching wrapper; a
# BatchedTensor's go through the public forms. Being a subclass of Tensor, its reflected
# operators run first in ``plain - batched``.)

def _as_operand(x):
    return x if isinstance(x, Tensor) else torch_tensor(x)


def _install_operators():
    B = BatchedTensor
    for dunder, key in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                        ("matmul", "matmul"), ("pow", "pow"), ("eq", "eq"), ("ne", "ne"),
                        ("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"),
                        ("mod", "remainder"), ("and", "logical_and"), ("or", "logical_or")):
        setattr(B, f"__{dunder}__", lambda a, b, key=key: public(key)(a, b))
    B.__radd__ = B.__add__
    B.__rmul__ = B.__mul__
    B.__rsub__ = lambda a, b: public("sub")(_as_operand(b), a)
    B.__rtruediv__ = lambda a, b: public("div")(_as_operand(b), a)
    B.__rmatmul__ = lambda a, b: public("matmul")(_as_operand(b), a)
    B.__rpow__ = lambda a, b: public("pow")(_as_operand(b), a)
    B.__floordiv__ = lambda a, b: public("div")(a, b, rounding_mode="floor")
    B.__neg__ = lambda a: public("neg")(a)
    B.__abs__ = lambda a: public("abs")(a)
    B.__getitem__ = lambda a, i: public("__getitem__")(a, i)
    B.__setitem__ = lambda a, i, v: _setitem(a, i, v)


def _setitem(a, i, v):
    from_rules = RULES.get("__setitem__")
    out = from_rules(_raw_setitem, a._level, (a, i, v), {}) if from_rules else NotImplemented
    if out is NotImplemented:
        loop("__setitem__", _raw_setitem, a._level, (a, i, v), {})


def _raw_setitem(a, i, v):
    if isinstance(a, BatchedTensor):
        _setitem(a, i, v)
    else:
        a[i] = v
    return a


_install_operators()
VMAP[1] = dispatch
VMAP[3] = RANDOM_CREATION
VMAP[2] = BatchedTensor
