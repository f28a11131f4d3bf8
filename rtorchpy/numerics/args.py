"""Checks for plain (non-tensor) arguments at the API boundary: flags, integers, and the
conversion of bad numbers into errors that name the argument.

A careless or hostile caller can hand any Python object to any argument; NumPy and the C
libraries below it trust their integer arguments (a diagonal offset of -2**31 crashes NumPy),
and Python's truthiness turns ``requires_grad='no'`` into True. These helpers are the one place
those values are refused, with the argument's name in the message.
"""
from __future__ import annotations

import numbers

import numpy as np

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1


def is_flag(value):
    """Whether ``value`` is a real boolean (``bool`` or NumPy's ``bool_``)."""
    return type(value) is bool or isinstance(value, np.bool_)


def flag(value, name, where=None):
    """``value`` as a Python bool; a TypeError naming ``name`` for anything but a real boolean
    (PyTorch refuses ``keepdim=1`` and ``requires_grad='no'`` alike)."""
    if type(value) is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    prefix = f"{where}(): " if where else ""
    raise TypeError(f"{prefix}argument '{name}' must be bool, not {type(value).__name__}")


def int64(value, name, where=None):
    """``value`` as a Python int in int64's range: an integer (Python or NumPy, not bool), or a
    float holding a whole number; TypeError for anything else, RuntimeError beyond int64."""
    prefix = f"{where}(): " if where else ""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{prefix}argument '{name}' must be int, not bool")
    if isinstance(value, numbers.Integral):
        v = int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        f = float(value)
        if not f.is_integer():
            raise TypeError(f"{prefix}argument '{name}' must be int, not {value!r}")
        v = int(f)
    else:
        raise TypeError(f"{prefix}argument '{name}' must be int, not {type(value).__name__}")
    if not INT64_MIN <= v <= INT64_MAX:
        raise RuntimeError(f"{prefix}argument '{name}' is out of the range of int64: {v}")
    return v


def size(value, name, where=None):
    """A size (a feature count, a dimension's length): an int64 (a whole float is accepted,
    as R passes doubles) that is not negative."""
    prefix = f"{where}(): " if where else ""
    if isinstance(value, float) and not value == value or value in (float("inf"), -float("inf")):
        raise TypeError(f"{prefix}argument '{name}' must be int, not {value!r}")
    v = int64(value, name, where)
    if v < 0:
        raise RuntimeError(f"{prefix}Trying to create tensor with negative dimension {v}: "
                           f"argument '{name}'")
    return v
