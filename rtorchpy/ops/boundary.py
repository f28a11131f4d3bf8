"""The public face of every function: flags checked on the way in, internal errors translated
on the way out.

``boundary(fn, name)`` wraps a public function (an op's namespace and method forms, the creation
functions, ``nnf_*``, ...). On the way in it checks the arguments that are flags (a parameter
whose default is ``True`` or ``False``, or one named in :data:`FLAGS`): only a real boolean
passes, so ``requires_grad='no'`` is a TypeError instead of True. Everything else costs nothing
until the call fails: then an error that only makes sense inside rtorchpy (``'int' object has
no attribute '_data'``, ``unsupported operand type(s)``, NumPy's ``array is too big``) is raised
again as the error a user can act on, naming the argument and the type it should have.

The R bridge calls the registry's unwrapped functions (``OpInfo.fn``) and checks its own
arguments; the wrapper is for Python callers.
"""
from __future__ import annotations

import functools
import inspect
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..numerics.fpquiet import fp_off, fp_restore
from ..tensor import Tensor
from .bf16 import LIVE as BF16_LIVE
from .bf16 import bf16_aware

if TYPE_CHECKING:  # (ParamSpec is Python 3.10's; annotations are not evaluated at run time)
    from typing import ParamSpec
    P = ParamSpec("P")  # the wrapped function's parameters: type checkers see its signature
R = TypeVar("R")

# flags whose default is None in some signature (so the default does not tell)
FLAGS = frozenset({"requires_grad", "keepdim", "pin_memory", "non_blocking"})

_TYPE_IN_MESSAGE = re.compile(r"'(\w+)'")
_ARITY = re.compile(r"^([\w.<>]+)\(\) (?:takes|missing|got an unexpected|got multiple)")
# texts of Python's and NumPy's own errors: they name no argument of ours
_INTERNAL = ("unsupported operand type", "object cannot be interpreted", "invalid literal for",
             "must be real number", "argument must be", "not supported between instances",
             "object is not iterable", "object is not subscriptable", "bad operand type",
             "could not convert", "unhashable type", "did not contain a loop",
             "can't convert an element", "cannot convert float", "object is not callable",
             "setting an array element with a sequence", "not supported for the input types",
             "could not be broadcast together", "objects cannot be broadcast")
# values that are what most arguments expect (the culprit is among the others)
_PLAIN = (Tensor, np.ndarray, bool, int, float, np.number, np.bool_, type(None))
# vmap (ops/batching.py): [frames open in all threads, dispatcher, BatchedTensor, the random
# creation functions (which vmap batches)]; while a frame is open in this thread
# (VMAP_LOCAL.depth), a call with a batched argument goes to the dispatcher (its batching rule
# or per-example loop). VMAP[0] is a cheap first test (a list read, where the thread-local
# read costs ~100 ns per op call): nonzero only while some thread is inside a vmap.
VMAP: list[Any] = [0, None, None, frozenset()]


class _VmapLocal(threading.local):
    """vmap's state is per thread: a vmap running in one thread is invisible in another (each
    thread starts with no frame open). ``frames``: the open frames, outermost first."""
    depth = 0

    def __init__(self):
        self.frames = []


VMAP_LOCAL = _VmapLocal()


def inplace_error(what="inplace arithmetic"):
    """PyTorch's error for an in-place op on a tensor that is not batched with a batched
    operand (``x[i] = batched`` names ``fill_`` when the value is one number per example)."""
    return RuntimeError(
        f"vmap: {what}(self, *extra_args) is not possible because there exists a "
        "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
        "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
        f"use out-of-place operators instead of {what}. If said operator is being "
        "called inside the PyTorch framework, please file a bug report instead.")


def _any_batched(args, kwargs):
    cls = VMAP[2]
    for a in args:
        if isinstance(a, cls) or (type(a) in (list, tuple) and
                                  any(isinstance(v, cls) for v in a)):
            return True
    for a in kwargs.values():
        if isinstance(a, cls) or (type(a) in (list, tuple) and
                                  any(isinstance(v, cls) for v in a)):
            return True
    return False


def _flag_params(fn):
    """(position, name, None allowed) of every flag parameter of ``fn``; () when it has
    none."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ()
    out = []
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if type(p.default) is bool or p.name in FLAGS:
            pos = i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else None
            out.append((pos, p.name, p.default is None))
    return tuple(out)


def _bad_flag(name, where, value):
    return TypeError(f"{where}(): argument '{name}' must be bool, not {type(value).__name__}")


def _bound(fn, args, kwargs):
    """The call's arguments by parameter name (best effort: {} when they do not bind)."""
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, value in bound.arguments.items():
        kind = inspect.signature(fn).parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            before = list(bound.arguments).index(name)
            for i, v in enumerate(value):
                out[f"#{before + i + 1}"] = v  # (named by position: see _label)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        else:
            out[name] = value
    return out


def _holder(obj, arguments):
    """The name of the argument that is ``obj`` or holds it (in a list or tuple), or None."""
    for name, value in arguments.items():
        if value is obj:
            return name
    for name, value in arguments.items():
        if isinstance(value, (list, tuple)) and any(v is obj for v in value):
            return name
    return None


def _label(name):
    return f"argument {name[1:]}" if name.startswith("#") else f"argument '{name}'"


def _what(value):
    return "None" if value is None else type(value).__name__


def translate(error, fn, where, args, kwargs):
    """The error to raise instead of ``error`` (an exception out of ``fn``), or None to keep
    it. Only errors whose text is an internal detail are translated."""
    if isinstance(error, AttributeError):
        obj = getattr(error, "obj", None)
        arguments = _bound(fn, args, kwargs)
        name = _holder(obj, arguments) if not isinstance(obj, Tensor) else None
        if name is None:
            return None
        return TypeError(f"{where}(): {_label(name)} must be a Tensor, not {_what(obj)}")
    if isinstance(error, MemoryError) or (isinstance(error, ValueError) and
                                          "array is too big" in str(error)):
        return RuntimeError(f"{where}(): not enough memory for the result (the sizes or "
                            f"offsets given ask for too many elements)")
    if isinstance(error, OverflowError):
        return RuntimeError(f"{where}(): a value is out of range: {error}")
    if isinstance(error, np.linalg.LinAlgError):
        return RuntimeError(f"{where}(): {error}")
    if isinstance(error, (TypeError, ValueError)):
        text = str(error)
        arity = _ARITY.match(text)
        if arity and arity.group(1) != where:  # a call of the wrong arity, by an inner name
            return type(error)(where + "()" + text[arity.end(1) + 2:])
        if where in text or "argument '" in text:
            return None  # already names its function or argument
        if not any(w in text for w in _INTERNAL):
            return None
        arguments = _bound(fn, args, kwargs)
        names = set(_TYPE_IN_MESSAGE.findall(text)) | {w for w in ("NoneType",) if w in text}
        odd = {n: v for n, v in arguments.items() if not isinstance(v, _PLAIN)}
        matched = [n for n, v in arguments.items() if type(v).__name__ in names and
                   not isinstance(v, (Tensor, np.ndarray))]
        culprits = ([n for n in matched if n in odd] or
                    [n for n in matched if arguments[n] is None] or matched or list(odd))
        if not culprits:  # None given where the default is not None
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                params = {}
            culprits = [n for n, v in arguments.items() if v is None and n in params and
                        params[n].default is not None]
        if not culprits and ("NaN" in text or "infinity" in text):
            culprits = [n for n, v in arguments.items()
                        if isinstance(v, float) and not np.isfinite(v)]
        if len(culprits) == 1:
            value = arguments[culprits[0]]
            if isinstance(value, float):
                return ValueError(f"{where}(): {_label(culprits[0])} must be a finite number, "
                                  f"not {value}")
            return TypeError(f"{where}(): {_label(culprits[0])} has a value of type "
                             f"{_what(value)} it cannot use")
        if odd:
            listed = ", ".join(f"{n}={_what(v)}" for n, v in odd.items())
            return TypeError(f"{where}(): an argument has a type it cannot use (arguments "
                             f"that are not tensors or numbers: {listed})")
        listed = ", ".join(f"{n}={_what(v)}" for n, v in arguments.items())
        return TypeError(f"{where}(): an argument has a type or shape it cannot use (the "
                         f"arguments: {listed})")
    return None


def boundary(fn: Callable[P, R], where: str) -> Callable[P, R]:
    """``fn`` with its flags checked and its internal errors translated (see the module
    docstring); ``where`` is the public name the messages use."""
    if getattr(fn, "__wrapped_boundary__", False):
        return fn
    fn = bf16_aware(fn, where)  # (bfloat16 results rounded and tagged: ops/bf16.py)
    # until bfloat16 is first asked for, call the function under bf16_aware's wrapper: one
    # Python call less on every public call
    plain = getattr(fn, "__wrapped__", fn)
    flags = _flag_params(fn)
    positions = tuple((i, n) for i, n, _ in flags if i is not None)
    names = frozenset(n for _, n, _ in flags)
    nullable = frozenset(n for _, n, none_ok in flags if none_ok)

    def flag(value, n):
        """``value`` of flag ``n`` as the function wants it (a NumPy bool becomes a bool)."""
        if type(value) is bool or (value is None and n in nullable):
            return value
        if isinstance(value, np.bool_):
            return bool(value)
        raise _bad_flag(n, where, value)

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if VMAP[0] and VMAP_LOCAL.depth and (_any_batched(args, kwargs) or where in VMAP[3]):
            return VMAP[1](where, checked, args, kwargs)
        if positions:
            for i, n in positions:
                if i < len(args) and type(args[i]) is not bool:
                    args = args[:i] + (flag(args[i], n),) + args[i + 1:]
        if kwargs and names:
            for n in names.intersection(kwargs):
                if type(kwargs[n]) is not bool:
                    kwargs[n] = flag(kwargs[n], n)
        token = fp_off()  # (NumPy's inf/nan warnings off for the call: numerics/fpquiet.py)
        try:
            return fn(*args, **kwargs) if BF16_LIVE[0] else plain(*args, **kwargs)
        except (AttributeError, MemoryError, OverflowError, TypeError, ValueError) as e:
            new = translate(e, fn, where, args, kwargs)
            if new is None:
                raise
            raise new from e  # (the original stays in the traceback, for a bug of ours)
        finally:
            fp_restore(token)

    checked.__wrapped_boundary__ = True  # type: ignore[attr-defined]  # (a marker attribute)
    return checked
