"""What the R package's C layer (``r-shim/src/pycall.c``) needs to run the common calls without
Python-level bridge code (part of the R bridge, see ``rtorchpy/_r/__init__.py``).

The C layer calls the op's own function (``torch_sin``, ``arith.mul``, ...) with the tensors
themselves when the op converts nothing between R and Python (no dims, no indices) and the
arguments are handles and plain scalars; it registers a tensor result in the same registry
(:data:`handles._OBJECTS`, keys from the same counter) and releases the handles it registered
itself. Everything else takes the Python callers of ``ops.py``, which behave the same: a test
compares the two paths. What C holds here are references to the objects below, taken once.
"""
from __future__ import annotations

from ..autograd import grad_mode as _gm
from ..ops import arith, elementwise
from ..tensor import Tensor
from . import handles
from .errors import _err
from .ops import _NNF, _PLANS

# The binary operators whose Python caller (ops._binary) does nothing but decode its two
# arguments when both are tensors, or a tensor and a number: C calls these directly then.
BINARY_FNS = {
    "+": arith.add, "-": arith.sub, "*": arith.mul, "/": arith.div, "^": arith.pow,
    "==": elementwise.eq, "!=": elementwise.ne, "<": elementwise.lt, "<=": elementwise.le,
    ">": elementwise.gt, ">=": elementwise.ge,
}


def direct_fn(table, name):
    """The function C may call directly for callable ``name`` of its table ``table`` (0: ops,
    1: binary operators, 4: nnf functions; see ``lookup`` in pycall.c), or None: take the
    Python caller."""
    plan = _PLANS.get(name) if table == 0 else _NNF.get(name) if table == 4 else None
    if plan is not None:
        return plan.fn if plan.simple else None
    if table == 1:
        return BINARY_FNS.get(name)
    return None


def error_reply(exc):
    """The reply for an exception raised by a direct call: what the Python caller would have
    returned (``["E", message]`` in R's terms)."""
    return _err(exc)


def direct_setup():
    """The objects C keeps (in this order; pycall.c reads them by position)."""
    return [handles._OBJECTS, handles._counter, Tensor, handles._WARNINGS, error_reply,
            handles._enc, direct_fn, handles.release, _gm.STATE]
