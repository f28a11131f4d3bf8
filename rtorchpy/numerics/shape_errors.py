"""libtorch's error text for shapes that do not fit, where NumPy would raise its own ValueError.

Ops run NumPy first and only on its ValueError (the failure path; a ``try`` costs nothing in
Python 3.11 while nothing is raised) ask here for the RuntimeError libtorch raises instead.
"""
from __future__ import annotations


def broadcast_error(*shapes):
    """The RuntimeError libtorch raises for operands of ``shapes`` that do not broadcast
    (combined left to right, each pair checked from the last dim), or None when they do."""
    acc = tuple(shapes[0])
    for shape in shapes[1:]:
        shape = tuple(shape)
        nd = max(len(acc), len(shape))
        out = [1] * nd
        for i in range(nd - 1, -1, -1):
            back = nd - i
            a = acc[-back] if back <= len(acc) else 1
            b = shape[-back] if back <= len(shape) else 1
            if a != b and a != 1 and b != 1:
                return RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                                    f"({b}) at non-singleton dimension {i}")
            out[i] = b if a == 1 else a
        acc = tuple(out)
    return None


def expand_error(target, shape):
    """The RuntimeError libtorch raises when ``shape`` cannot be expanded to ``target`` (the
    first non-singleton dim that differs, from the last), or None when it can."""
    target, shape = tuple(target), tuple(shape)
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, lead - 1, -1):
        size = shape[i - lead]
        if size != target[i] and size != 1:
            return RuntimeError(
                f"The expanded size of the tensor ({target[i]}) must match the existing size "
                f"({size}) at non-singleton dimension {i}.  Target sizes: {list(target)}.  "
                f"Tensor sizes: {list(shape)}")
    return None


def shape_error(error, *shapes):
    """``error`` (NumPy's ValueError) as libtorch's RuntimeError when ``shapes`` do not
    broadcast; ``error`` itself when they do (it was about something else)."""
    return broadcast_error(*shapes) or error
