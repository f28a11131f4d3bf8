"""Rows of the ops around sequences and vectors (``ops/seq_extras.py``): the cross product and
the running extremes."""
from __future__ import annotations

from ..autograd.rows import row


def _cross(F, a, b, dim):
    # (a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}, with the components as rolled copies
    return (F.roll(a, (-1,), (dim,)) * F.roll(b, (-2,), (dim,))
            - F.roll(a, (-2,), (dim,)) * F.roll(b, (-1,), (dim,)))


@row("LinalgCrossBackward0", inputs=("self", "other"), saves=("self", "other"))
def _linalg_cross(F, g, needs, self, other, dim):
    """self: other x g;  other: g x self (cross products along dim)"""
    return (_cross(F, other, g, dim) if needs[0] else None,
            _cross(F, g, self, dim) if needs[1] else None)


def _running_extreme(F, g, needs, shape, dim, indices):
    """self: g added at the position each running extreme came from along dim"""
    if not g.ndim:  # a 0-dim input: the value is the input itself
        return g
    return F.scatter_zeros(shape, dim, indices, g, accumulate=True)


row("CummaxBackward0")(_running_extreme)
row("CumminBackward0")(_running_extreme)


@row("PutBackward0", inputs=("self", "source"), saves=())
def _put(F, g, needs, shape, source_shape, index, accumulate):
    """self: accumulate ? g : g.put(index, 0);  source: g.take(index).reshape_as(source)
    (index: flat row-major positions, made non-negative by the forward)"""
    flat = F.reshape(g, (-1,))
    gs = None
    if needs[0]:
        gs = g if accumulate else F.reshape(F.index_fill_zero(flat, (index,)), shape)
    gsrc = F.reshape(F.index(flat, (index,)), source_shape) if needs[1] else None
    return gs, gsrc
