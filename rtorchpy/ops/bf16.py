"""bfloat16 for every op, in one place.

A bfloat16 tensor keeps float32 values on the bfloat16 grid (``numerics/bfloat16.py``) and is
tagged (``Tensor._bf16``). An op computes on those float32 values as it would for float32 (what
libtorch's CPU kernels do for bfloat16: compute in float32, reductions accumulate in float32);
:func:`bf16_aware`, which wraps every registered op and every public function, then decides the
result's dtype by libtorch's promotion rules and, for a bfloat16 result, rounds it once and tags
it. The wrapper costs one flag test per call until the first bfloat16 tensor or dtype is seen.

Promotion, as libtorch: among the floating point tensor arguments, those with dimensions decide
(0-d ones only when no floating point tensor has dimensions); Python numbers and integer or bool
tensors never change a bfloat16 result. The result is bfloat16 when every deciding floating point
argument is bfloat16 (bfloat16 with float16 is float32, which is what computing on the float32
storage already gives). An explicit ``dtype=`` argument wins.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import dtypes as _dt
from ..numerics.bfloat16 import on_grid, round_in_place, to_grid
from ..numerics.fpquiet import fp_off, fp_restore, quiet_fp
from ..tensor import Tensor

LIVE = _dt.BF16_SEEN  # (no bfloat16 tensor exists before bfloat16 has been asked for)
_F32 = np.dtype(np.float32)


def _dtype_position(fn):
    """Where ``fn`` takes ``dtype`` (position or None, and whether it does at all)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None, False
    for i, p in enumerate(params):
        if p.name == "dtype":
            positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            return (i if positional else None), True
    return None, False


def _tensors(args, kwargs):
    """The tensor arguments (one level into lists and tuples: torch_cat's list)."""
    out = []
    for v in (*args, *kwargs.values()):
        if isinstance(v, Tensor):
            out.append(v)
        elif type(v) in (list, tuple):
            out.extend(t for t in v if isinstance(t, Tensor))
    return out


def bfloat16_result(tensors) -> bool:
    """Whether libtorch's promotion of these tensors gives bfloat16 (see the module notes)."""
    floats = [t for t in tensors if t._data.dtype.kind == "f"]
    deciding = [t for t in floats if t._data.ndim] or floats
    return bool(deciding) and all(t._bf16 for t in deciding)


def tag(t: Tensor, inputs=()) -> Tensor:
    """Make the float result ``t`` a bfloat16 tensor: rounded and tagged. Rounded in place when
    its memory is no input's (so a value the op saved for backward, often the result itself, is
    the rounded one, as in libtorch), else into a new array."""
    a = t._data
    if a.dtype != _F32:
        t._data = to_grid(a)
    elif not on_grid(a):
        if a.flags.writeable and not any(np.may_share_memory(a, i._data) for i in inputs):
            round_in_place(a)
        else:
            t._data = to_grid(a)
    t._bf16 = True
    return t


def _unsupported(where, what):
    return RuntimeError(f"{where}(): not implemented for bfloat16 tensors ({what}); convert "
                        f"with $to(dtype = torch_float32()) first")


def _retag(out, inputs, where, want_bf16):
    """Tag the float outputs in ``out`` (a tensor, or a tuple/list holding tensors)."""
    if isinstance(out, Tensor):
        kind = out._data.dtype.kind
        if kind == "f":
            if out._bf16 or any(out is t for t in inputs):
                return out  # (an input handed back: its dtype stands)
            return tag(out, inputs)
        if kind == "c" and not want_bf16:
            raise _unsupported(where, "a complex result")
        return out
    if type(out) in (list, tuple):
        for o in out:
            if isinstance(o, Tensor) or type(o) in (list, tuple):
                _retag(o, inputs, where, want_bf16)
    elif isinstance(out, tuple):  # a named tuple (values, indices)
        for o in out:
            if isinstance(o, Tensor):
                _retag(o, inputs, where, want_bf16)
    return out


# ops whose Python-number (or 0-d float tensor) operands libtorch first converts to the
# result's dtype, bfloat16, before computing in float32: x + 1.7 adds 1.703125. (mul and div keep
# the number in float32: their kernels take it apart; so do parameters such as eps.)
SCALARS_AS_BF16 = frozenset(
    n + s for n in ("add", "sub", "subtract", "rsub", "pow", "rpow", "fmod", "remainder",
                    "atan2", "arctan2", "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum",
                    "where", "clamp", "clip") for s in ("", "_"))


def _as_bf16_operand(v):
    if type(v) is float or isinstance(v, np.floating):
        return float(to_grid(v))
    if isinstance(v, Tensor) and not v._bf16 and v._data.ndim == 0 and \
            v._data.dtype.kind == "f" and not v._requires_grad:
        t = Tensor._make(to_grid(v._data))
        t._bf16 = True
        return t
    return v


def bf16_aware(fn, where=None, inplace=False):
    """``fn`` with bfloat16 results rounded and tagged (see the module notes). ``inplace``: the
    function writes into its first argument, which keeps its dtype (and is rounded again when
    it is bfloat16)."""
    if getattr(fn, "__bf16_aware__", False):
        return fn
    where = where or getattr(fn, "__name__", "op")
    position, takes_dtype = _dtype_position(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not LIVE[0]:
            return fn(*args, **kwargs)
        want = None
        if takes_dtype:
            want = kwargs.get("dtype")
            if want is None and position is not None and position < len(args):
                want = args[position]
        if want is not None:
            try:
                want = _dt.as_dtype(want)
            except TypeError:
                want = None  # (the function reports it)
        if want is not None:
            out = fn(*args, **kwargs)
            if want is _dt._BFLOAT16:
                return _retag(out, _tensors(args, kwargs), where, True)
            return out
        inputs = _tensors(args, kwargs)
        if not any(t._bf16 for t in inputs):
            return fn(*args, **kwargs)
        bf16 = bfloat16_result(inputs)
        if bf16 and where in SCALARS_AS_BF16:
            args = tuple([_as_bf16_operand(v) for v in args])
            kwargs = {k: _as_bf16_operand(v) for k, v in kwargs.items()}
        out = fn(*args, **kwargs)
        if inplace:
            self = args[0] if args else None
            if isinstance(self, Tensor) and self._bf16 and not on_grid(self._data):
                round_in_place(self._data)
            return out
        if bf16:
            return _retag(out, inputs, where, False)
        return out

    front = _same_signature_front(fn, call)
    front.__bf16_aware__ = True  # (a marker attribute)
    return front


# the names the front's template uses itself (an op parameter of one of these names would clash)
_TEMPLATE_NAMES = frozenset({"fn", "slow", "LIVE", "OFF", "RESTORE", "token"})


def _same_signature_front(fn, slow):
    """A function with ``fn``'s own parameters that calls ``fn`` itself while no bfloat16
    tensor exists, else ``slow`` (the bfloat16 path). Every op call passes through it, so it is
    made with the exact parameter list: a generic ``(*args, **kwargs)`` front costs ~4× as much
    (packing and unpacking the arguments), ~0.25 µs on a ~2 µs op."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = None
    name = getattr(fn, "__name__", "op")
    if params is None or not name.isidentifier() or any(
            not p.name.isidentifier() or p.name in _TEMPLATE_NAMES for p in params):
        return quiet_fp(functools.wraps(fn)(slow))
    head, passed = [], []
    star = False
    for p in params:
        if p.kind is p.POSITIONAL_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD:
            head.append(p.name if p.default is p.empty else f"{p.name}=None")
            passed.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            head.append(f"*{p.name}")
            passed.append(f"*{p.name}")
            star = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                head.append("*")
                star = True
            head.append(p.name if p.default is p.empty else f"{p.name}=None")
            passed.append(f"{p.name}={p.name}")
        else:  # VAR_KEYWORD
            head.append(f"**{p.name}")
            passed.append(f"**{p.name}")
    if any(p.kind is p.POSITIONAL_ONLY for p in params):
        last = max(i for i, p in enumerate(params) if p.kind is p.POSITIONAL_ONLY)
        head.insert(last + 1, "/")
    args = ", ".join(passed)
    # (NumPy's inf/nan warnings off for the call, inline: numerics/fpquiet.py)
    src = (f"def {name}({', '.join(head)}):\n"
           f"    token = OFF()\n    try:\n"
           f"        if LIVE[0]:\n            return slow({args})\n"
           f"        return fn({args})\n"
           f"    finally:\n        RESTORE(token)\n")
    space = {"fn": fn, "slow": slow, "LIVE": LIVE, "OFF": fp_off, "RESTORE": fp_restore}
    exec(src, space)  # (a fixed template over identifiers checked above)
    front = space[name]
    front.__defaults__ = fn.__defaults__
    front.__kwdefaults__ = fn.__kwdefaults__
    return functools.wraps(fn)(front)
