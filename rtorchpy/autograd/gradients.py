"""Where gradients land: a leaf's ``.grad`` (after its hooks) and the hooks themselves.

Under ``create_graph`` a leaf's first ``.grad`` is a recorded copy (``CopyBackwards``), a row of
the derivative table that belongs to autograd itself.
"""
from __future__ import annotations

import numpy as np

from ..numerics.bfloat16 import on_grid, round_in_place, to_grid
from ..tensor import Tensor
from .grad_mode import STATE
from .graph import bump_version
from .record import record1
from .rows import NODES, row


def accumulate_into_leaf(leaf, g, as_tensors, run_hooks=True, steal=False):
    """Run the leaf's hooks (unless already run), then add ``g`` into ``leaf.grad`` (in place
    when no graph is being built, as libtorch does). ``steal``: ``g`` is an array the engine
    allocated and nobody else holds, so ``.grad`` may keep it instead of a copy. A bfloat16
    leaf's ``.grad`` is bfloat16: rounded after each accumulation."""
    _accumulate_into_leaf(leaf, g, as_tensors, run_hooks, steal)
    if leaf._bf16:
        as_bfloat16(leaf._grad, own=True)


def as_bfloat16(t, own=False):
    """Round the float32 gradient tensor ``t`` to the bfloat16 grid and tag it (see
    ops/bf16.py). ``own``: its array is nobody else's (a leaf's .grad), so round in place."""
    if t is None:
        return t
    if not on_grid(t._data):
        if own and t._data.flags.writeable and t._data.dtype == np.float32:
            round_in_place(t._data)
        else:
            t._data = to_grid(t._data)
    t._bf16 = True
    return t


def _accumulate_into_leaf(leaf, g, as_tensors, run_hooks, steal):
    if run_hooks and leaf._hooks:
        g = apply_hooks(leaf._hooks, g, as_tensors)
    if as_tensors:
        if leaf._grad is None:
            leaf._grad = copy_backwards(g)
        else:
            leaf._grad = leaf._grad + g
        return
    old = leaf._grad
    if type(g) is not np.ndarray:  # 0-d: NumPy hands out read-only scalars, .grad must be writable
        g = np.array(g)
    if old is None:
        # without ownership the array may be shared (x + y hands one array to both leaves), or
        # be a view of something else, or be kept by a hook: copy it
        if steal and not leaf._hooks and g.dtype == leaf._data.dtype:
            leaf._grad = Tensor._make(g)
        elif g.dtype == leaf._data.dtype:
            leaf._grad = Tensor._make(g.copy(order="K"))  # keeps the layout (see _mm in the table)
        else:
            leaf._grad = Tensor._make(g.astype(leaf._data.dtype, order="K"))
    elif old._grad_fn is None and not old._requires_grad and old._data.shape == g.shape \
            and old._data.flags.writeable:
        np.add(old._data, g, out=old._data, casting="unsafe")
        bump_version(old)
    else:
        leaf._grad = Tensor._make(np.asarray(old._data + g).astype(leaf._data.dtype, copy=False))


@row("torch::autograd::CopyBackwards")
def _copy(F, g, needs):
    """self: g"""
    return g


_COPY = NODES["torch::autograd::CopyBackwards"]


def copy_backwards(g):
    """Under create_graph a leaf's first .grad is a graph-connected copy of ``g`` (libtorch names
    the node CopyBackwards), so later in-place changes to .grad cannot alter the recorded graph."""
    out = Tensor._make(np.array(g._data, copy=True))
    if STATE.grad_enabled and g._requires_grad:
        record1(_COPY, g, out)
    return out


def apply_hooks(hooks, g, as_tensors):
    for hook in list(hooks):
        arg = g if as_tensors else Tensor._make(g)
        res = hook(arg)
        if res is not None:
            if not isinstance(res, Tensor):
                continue  # R torch keeps the gradient when a hook returns a non-tensor
            if res.shape != tuple(g.shape):
                raise RuntimeError(f"hook returned a gradient of shape {list(res.shape)}, "
                                   f"expected {list(g.shape)}")
            g = res if as_tensors else res._data
    return g
