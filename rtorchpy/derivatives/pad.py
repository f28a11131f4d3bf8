"""The derivative table, continued: padding's rows (``nnf_pad``, ``ops/pad.py``).

Constant padding's gradient is constant padding by the negated amounts (a crop). Reflection
and replication padding gather; their gradient adds back (``F.gather_pad_backward``), an op
with a row of its own whose gradient is the gather again, so every order has a formula.
"""
from __future__ import annotations

from ..autograd.rows import row


@row("ConstantPadNdBackward0")
def _constant_pad(F, g, needs, pads):
    """self: g with the padding cut off (constant padding by the negated amounts)"""
    return F.constant_pad(g, tuple(-p for p in pads))


def _gather_backward(F, g, needs, indices, sizes, kind):
    """self: each element of g added to the input position it was copied from"""
    return F.gather_pad_backward(g, indices, sizes, kind)


def _gather_again(F, g, needs, indices, sizes, kind):
    """grad_output: the padding of g (the adjoint of adding back)"""
    return F.gather_pad(g, indices, sizes, kind)


for _kind in ("ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D", "ReplicationPad1D",
              "ReplicationPad2D", "ReplicationPad3D", "CircularPad1D", "CircularPad2D",
              "CircularPad3D"):
    row(_kind + "Backward0")(_gather_backward)
    row(_kind + "BackwardBackward0", inputs=("grad_output",))(_gather_again)
