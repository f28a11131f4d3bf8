"""Undoing broadcasting, in one place: a gradient summed back to the shape of its input.

The functions take arrays, or tensors when ``as_tensors`` (they use only methods both kinds
share, so this module needs neither tensors nor the graph).
"""
from __future__ import annotations

import numpy as np

_LEADING = [tuple(range(n)) for n in range(65)]  # the first n axes, for up to NumPy's 64 dims


def sum_to_shape(g, shape, as_tensors):
    """Sum a broadcast gradient back to ``shape`` (leading dims dropped, size-1 dims kept)."""
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:
        # only leading dims to drop (a bias added to a batch): no keepdims, no reshape
        out = g.sum(dim=_LEADING[lead]) if as_tensors else g.sum(axis=_LEADING[lead])
        return out if as_tensors or type(out) is np.ndarray else np.asarray(out)
    if lead < 0:
        inner = shape[-lead:] if len(gshape) else ()
        if not any(s != 1 for s in shape[:-lead]) and len(inner) == len(gshape):
            # an input with extra leading size-1 dims that the op dropped (``x[0] = v`` with
            # v of shape (1, n)): the gradient for the rest, given those dims back
            g = sum_to_shape(g, inner, as_tensors)
            return g.reshape(shape) if as_tensors else np.reshape(g, shape)
        # a gradient with fewer dims than its input (a custom backward may return one):
        # libtorch broadcasts it up only if the input's shape is broadcastable from it
        return _expand(g, shape, as_tensors)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if as_tensors:
        out = g.sum(dim=axes, keepdim=True) if axes else g
        return out.reshape(shape) if out.shape != shape else out
    out = g.sum(axis=axes, keepdims=True) if axes else g
    return out.reshape(shape)


def _expand(g, shape, as_tensors):
    return g.expand(*shape) if as_tensors else np.broadcast_to(g, shape)


def check_grad_shape(g_shape, shape, index, fn_name=None):
    """libtorch's check: a gradient must be broadcastable down to (or equal) its input's shape."""
    ok = len(g_shape) >= len(shape) and all(
        s == gs or s == 1 for s, gs in zip(shape, g_shape[len(g_shape) - len(shape):]))
    if not ok:
        got = "[" + ", ".join(map(str, g_shape)) + "]"
        want = "[" + ", ".join(map(str, shape)) + "]"
        prefix = f"Function {fn_name} returned an " if fn_name else ""
        raise RuntimeError(f"{prefix}invalid gradient at index {index} - got {got} but expected "
                           f"shape compatible with {want}")
