"""What the R package's C layer (``r-shim/src/direct.c``) needs to run the common calls without
Python-level bridge code (part of the R bridge, see ``rtorchpy/_r/__init__.py``).

The C layer calls the op's own function (``torch_sin``, ``arith.mul``, ...) with the tensors
themselves when the op converts nothing between R and Python but, at most, its dims (then
through a wrapper that converts them with :func:`handles.r_dim`, as the callers do), and the
arguments are handles and plain scalars; a tensor result is
registered by :func:`handles._put`, as every tensor crossing to R is, and collected handles are
released by :func:`handles.release`. Everything else takes the Python callers of ``ops.py``, which
behave the same: ``r-shim/tests/testthat/test-bridge-direct.R`` compares the two paths. What C
holds here are references to the objects below, taken once.
"""
from __future__ import annotations

from ..autograd import grad_mode as _gm
from ..tensor import Tensor
from . import handles
from .errors import _err
from .handles import r_dim
from .ops import _NNF, _PLANS, BINARY_FNS
from .protocol import DIRECT_FN, DIRECT_HANDLE_FIRST, MAX_DIRECT_ARGS


def _dim_positions(plan):
    """The positions of ``plan``'s dim parameters when converting those (R's 1-based dims, by
    :func:`handles.r_dim`) is all its caller converts, else None."""
    if plan.returns_index or plan.varpos or not plan.conv:
        return None
    if any(conv is not r_dim or name not in plan.names for name, conv in plan.conv.items()):
        return None
    positions = [plan.names.index(name) for name in plan.conv]
    return positions if max(positions) < MAX_DIRECT_ARGS else None


def _with_r_dims(fn, positions):
    """``fn`` taking R's dims at ``positions``: each converted by :func:`handles.r_dim`, the one
    conversion of R dims (the Python callers use it too), so a direct call and the caller give
    the same result or the same error."""
    def call(*args):
        args = list(args)
        for p in positions:
            if p < len(args):
                args[p] = r_dim(args[p])
        return fn(*args)
    call.__name__ = getattr(fn, "__name__", "op")
    return call


class DirectEntry:
    """What C may call directly for one callable, read by C by the names of its attributes
    (``protocol.DIRECT_FN``, ``protocol.DIRECT_HANDLE_FIRST``): ``fn``, the function, and
    ``handle_first``, whether C may call it only when the first argument is a handle."""

    __slots__ = (DIRECT_FN, DIRECT_HANDLE_FIRST)

    def __init__(self, fn, handle_first):
        self.fn = fn
        self.handle_first = handle_first

    def __repr__(self):
        return f"DirectEntry({self.fn!r}, handle_first={self.handle_first})"


# the wrappers made so far, one per op (C asks once per name and keeps the answer)
_WRAPPED: dict = {}


# The bridge functions C may call directly (table 3), with the optimizer object in place of its
# handle: the two methods of an optimizer a training loop calls every step. Their bridge
# functions (optim.py) do the same from a handle.
def _optim_zero_grad(opt, set_to_none=False):
    opt.zero_grad(set_to_none=set_to_none)


def _optim_step(opt):
    return opt.step()


_BRIDGE_DIRECT = {"optim_zero_grad": _optim_zero_grad, "optim_step": _optim_step}


def direct_fn(table, name):
    """What C may call directly for callable ``name`` of its table ``table`` (0: ops,
    1: binary operators, 3: bridge functions, 4: nnf functions; see ``lookup`` in names.c):
    a :class:`DirectEntry`, or None: take the Python caller. An op whose only conversion is of
    its dims is given wrapped (:func:`_with_r_dims`)."""
    plan = _PLANS.get(name) if table == 0 else _NNF.get(name) if table == 4 else None
    if plan is not None:
        if plan.simple:
            fn = plan.fn
        else:
            dims = _dim_positions(plan)
            if dims is None:
                return None
            key = (table, name)
            if key not in _WRAPPED:
                _WRAPPED[key] = _with_r_dims(plan.fn, dims)
            fn = _WRAPPED[key]
        # handle_first: C calls directly only when the first argument is a handle (an R number
        # there, torch_mul(2, x), takes the Python caller, which converts it to a tensor)
        return DirectEntry(fn, 0 in plan.tensor_args)
    if table == 1:  # (ops._binary's caller only decodes its two arguments)
        fn = BINARY_FNS.get(name)
        return None if fn is None else DirectEntry(fn, False)
    if table == 3 and name in _BRIDGE_DIRECT:  # (the first argument: the optimizer's handle)
        return DirectEntry(_BRIDGE_DIRECT[name], True)
    return None


def error_reply(exc):
    """The reply for an exception raised by a direct call: what the Python caller would have
    returned (:func:`errors.error_reply`: the message in R's terms, the condition class)."""
    return _err(exc)



class _GradModeForC:
    """Grad mode as the C bridge reads and sets it (``grad_state.grad_enabled``): the user's
    mode, set through ``set_mode`` so that turning it off under an open dual level still lets
    tangents flow (``autograd/grad_mode.py``)."""

    @property
    def grad_enabled(self):
        return _gm.is_grad_enabled()

    @grad_enabled.setter
    def grad_enabled(self, value):
        _gm.set_mode(value)


_GRAD_MODE = _GradModeForC()

def direct_setup():
    """The objects C keeps, by the names direct.c's setup_direct reads them by."""
    return {"objects": handles._OBJECTS, "put": handles._put, "tensor_type": Tensor,
            "warnings": handles._WARNINGS, "error_reply": error_reply, "encode": handles._enc,
            "direct_fn": direct_fn, "release": handles.release, "grad_state": _GRAD_MODE}
