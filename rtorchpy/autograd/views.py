"""In-place ops on views whose base is in the graph: libtorch's CopySlices and AsStridedBackward0.

A view (``y[0]``, ``y.t()``, ``y[1:]``...) shares its base's storage. When an op that records
history writes into a view (``y[0].zero_()``, ``y[1:].mul_(3)``), the base's values change too,
so the base's history is rewritten: its new grad_fn is a ``CopySlices`` node that wraps the
in-place op's own node. Its backward passes the part of the gradient outside the view through
unchanged and sends the view's part through the op's formula.

Every other view of that base (the modified one included) is then stale: its grad_fn points at
the base's old history. It gets a new one the next time it is used or asked for: an
``AsStridedBackward0`` node from the base's current grad_fn, as libtorch names it. Both nodes
locate the view inside its base by the flat (C-order) positions of its elements in the base,
worked out from the NumPy strides, so any chain of view ops is covered by one mechanism.

View creation metadata follows libtorch: a view made in no-grad mode, or an output of an op
that returns several views (unbind, split, chunk), may not be modified in place when that
would record history (``_view_meta``: "no_grad", "multi", "multi_no_grad").
"""
from __future__ import annotations

import numpy as np

try:
    from numpy.lib.array_utils import byte_bounds  # NumPy 2
except ImportError:  # NumPy 1.x
    from numpy import byte_bounds  # type: ignore[attr-defined,no-redef]  # (NumPy 2's stubs)
from numpy.lib.stride_tricks import as_strided

from .. import tensor
from ..numerics.broadcast import sum_to_shape
from .grad_mode import FORWARD_AD, STATE
from .graph import FORMULA_OPS, Node

OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")



def share_view(self, out):
    """Make ``out`` (whose array is a NumPy view of ``self``'s) a view of ``self``'s base:
    shared version counter, the base's grad_fn at this moment, the creation metadata."""
    out._version = self._version
    base = self._base
    if base is None:
        out._base = self
        out._view_fn = self._grad_fn
    else:
        out._base = base
        out._view_fn = base._grad_fn
        meta = self._view_meta
        if meta is not None:
            out._view_meta = meta


def mark_multi_output(outs, recorded):
    """Tag the outputs of unbind/split/chunk (views of one base) as libtorch does."""
    meta = "multi" if recorded else ("multi_no_grad" if STATE.grad_enabled else "no_grad")
    for o in outs:
        o._view_meta = meta


def overlaps(a):
    """Whether two elements of the ndarray ``a`` share memory: a repeated dim of an expanded
    view, the only kind of overlap a view op makes (NumPy makes expanded memory read-only, but
    a select or slice of it that repeats nothing is a view libtorch writes through)."""
    return any(stride == 0 and size > 1 for size, stride in zip(a.shape, a.strides))


def view_positions(base, view):
    """Flat C-order positions in ``base`` (an ndarray) of each element of ``view`` (an ndarray
    sharing its memory), as an int64 array of ``view``'s shape."""
    if base.size == 0 or view.size == 0:
        return np.zeros(view.shape, np.int64)
    item = base.itemsize
    low, high = byte_bounds(base)
    # an int64 buffer laid out like base's memory, holding each element's C-order position
    buf = np.empty((high - low) // item, np.int64)
    here = (base.__array_interface__["data"][0] - low) // item
    lay = as_strided(buf[here:], base.shape, tuple(s // item * 8 for s in base.strides))
    lay[...] = np.arange(base.size).reshape(base.shape)
    start = (view.__array_interface__["data"][0] - low) // item
    return as_strided(buf[start:], view.shape,
                      tuple(s // item * 8 for s in view.strides)).copy()


def _scatter_flat(g, size, positions, unique):
    z = np.zeros(size, dtype=g.dtype)
    if unique:
        z[positions] = g
    else:
        np.add.at(z, positions, g)
    return z


class AsStridedBackward0(Node):
    """The grad_fn a view gets after its base's history was rewritten: the view's gradient
    written at its positions in a zero gradient of the base."""

    __slots__ = ()
    name = "AsStridedBackward0"

    def apply(self, grads, as_tensors):
        shape, positions, unique = self.params
        g = grads[0]
        size = int(np.prod(shape))
        if not as_tensors:
            return (_scatter_flat(g, size, positions, unique).reshape(shape),)
        return (FORMULA_OPS[1].index_backward(g, (size,), (positions,)).reshape(shape),)


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views. Input 0 is the base's
    previous history; inputs 1.. are the wrapped op's other inputs."""

    __slots__ = ("fn",)
    name = "CopySlices"

    def apply(self, grads, as_tensors):
        shape, positions, view_shape = self.params[:3]
        fn = self.fn
        g = grads[0]
        if self.params[3]:  # libtorch cannot route a gradient through overlapping memory either
            raise RuntimeError(OVERLAP_ERROR)
        if not as_tensors:
            flat = np.array(g, copy=True).reshape(-1)
            res = fn.apply((flat[positions],), False)
            r0 = res[0]
            if r0 is None:
                flat[positions] = 0
            else:
                flat[positions] = sum_to_shape(r0, view_shape, False)
            return (flat.reshape(shape),) + tuple(res[1:])
        flat = g.reshape(-1)
        # a 0-d view's one position reads as an int (a select), so the recorded graph keeps
        # the view's 0-d shape (a 0-d index array would be an advanced index)
        part = flat[int(positions) if positions.ndim == 0 else positions]
        res = fn.apply((part,), True)
        r0 = res[0]
        if r0 is None:
            r0 = FORMULA_OPS[1].zeros_like(part)
        else:
            r0 = sum_to_shape(r0, view_shape, True)
        return (flat.index_put((positions,), r0).reshape(*shape),) + tuple(res[1:])

    def release(self):
        self.fn.release()


def make_node(cls, edges, nrs, in_meta, params):
    node = cls.__new__(cls)
    Node.__init__(node)
    node.edges, node.edge_nrs, node.in_meta, node.params = edges, nrs, in_meta, params
    return node


def regenerate(view, positions=None):
    """Give a stale view (its base's grad_fn changed since it was made) a grad_fn from the base's
    current history: AsStridedBackward0, or none if the base has no history. ``positions``: the
    view's positions in its base, when the caller has them already."""
    base = view._base
    fn = base._grad_fn
    view._view_fn = fn
    view._output_nr = 0
    if fn is None:
        view._grad_fn = None
        view._requires_grad = False
        return
    if positions is None:
        positions = view_positions(base._data, view._data)
    unique = not overlaps(view._data)
    view._grad_fn = make_node(AsStridedBackward0, (fn,), (base._output_nr,),
                          ((base._data.shape, base._data.dtype),),
                          (base._data.shape, positions, unique))
    view._requires_grad = True


def gained_history(t):
    """``gained_grad`` for one tensor, without forward AD: whether ``t`` needs a gradient now
    (what backward and custom functions ask; a tangent is no reason to record for them)."""
    if t._base is None:
        return False
    if t._base._grad_fn is not t._view_fn:
        regenerate(t)
    return t._requires_grad


def gained_grad(a, b=None):
    """Whether ``a`` (or ``b``), which did not require grad when last looked at, does now: a
    view whose base was given a history by an in-place op after the view was taken
    (``w = z[1:]; z[1].copy_(v)`` with ``v`` requiring grad). libtorch derives a view's grad_fn
    from its base's current one; here the view gets it now. Ops ask this only after their
    inputs' ``_requires_grad`` said no, so an op that records pays nothing, and one on plain
    tensors two attribute reads and this call."""
    if a._base is None and (b is None or b._base is None):
        if FORWARD_AD[0]:  # a dual tensor makes the op go through record, which sets tangents
            return a._fw is not None or (b is not None and b._fw is not None)
        return False
    found = False
    for t in (a, b):
        if t is not None and t._base is not None and t._base._grad_fn is not t._view_fn:
            regenerate(t)
            found = found or t._requires_grad
    if FORWARD_AD[0] and not found:
        return a._fw is not None or (b is not None and b._fw is not None)
    return found


tensor.regenerate_view = regenerate  # a tensor asks this module when it is a stale view
