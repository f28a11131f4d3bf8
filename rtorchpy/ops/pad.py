"""``nnf_pad``: constant, reflect, replicate and circular padding, with libtorch's nodes.

- ``constant``: ``ConstantPadNdBackward0`` (any number of trailing dims; a negative amount
  crops); its gradient is the same op with the amounts negated.
- ``reflect`` / ``replicate``: one gather per padded dim (``ReflectionPad2DBackward0``, ...);
  the gradient adds each element back where it was copied from, an op of its own
  (``ReflectionPad2DBackwardBackward0``, ...) whose gradient is the padding again.
- ``circular``: a gather too (``CircularPad2DBackward0``, ...). libtorch builds it from in-place
  copies into a fresh tensor, so its graph shows ``CopySlices`` instead; values and gradients
  are the same.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import pad as _derivatives_pad  # noqa: F401  (registers the rows)
from ..numerics import conv as conv_arrays
from ..tensor import Tensor
from .registry import as_tensor, recording, wrap

__all__ = ["nnf_pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def constant_pad(input, pads, value=0.0):
    """The constant padding op (``ConstantPadNdBackward0``), arguments already checked."""
    out = wrap(conv_arrays.constant_pad(input._data, pads, value))
    if recording(input):
        record(NODES["ConstantPadNdBackward0"], (input,), (out,), params=(tuple(pads),))
    return out


def gather_pad(input, indices, sizes, kind):
    """Reflection or replication padding (``kind``: ``"ReflectionPad2D"``, ...)."""
    out = wrap(np.ascontiguousarray(conv_arrays.gather_pad(input._data, indices)))
    if recording(input):
        record(NODES[kind + "Backward0"], (input,), (out,), params=(indices, sizes, kind))
    return out


def gather_pad_backward(grad, indices, sizes, kind):
    """The gradient of ``gather_pad`` as a recorded op (for ``create_graph``)."""
    out = wrap(conv_arrays.gather_pad_adjoint(grad._data, indices, sizes))
    if recording(grad):
        record(NODES[kind + "BackwardBackward0"], (grad,), (out,), params=(indices, sizes, kind))
    return out


def _wraps_twice(before, after, n):
    """Whether circular padding would wrap around the kept part of a dim more than once
    (libtorch refuses a pad longer than the dim; one longer than what a negative pad on the
    other side leaves it copies overlapping memory, which rtorchpy refuses too)."""
    kept = n - max(-before, 0) - max(-after, 0)
    return before > n or after > n or before > kept or after > kept


_UNSUPPORTED = ("Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def nnf_pad(input, pad, mode="constant", value=None):
    """Pad the trailing dims of ``input``. ``pad`` lists (before, after) amounts starting from
    the last dim: ``(left, right)`` pads the last dim, ``(left, right, top, bottom)`` the last
    two, and so on. ``mode``: ``"constant"`` (with ``value``, default 0; a negative amount
    crops), ``"reflect"`` (mirrored without repeating the edge), ``"replicate"`` (the edge
    repeated) or ``"circular"`` (wrapped around); those three pad the last 1, 2 or 3 dims of a
    batched or unbatched input."""
    input = as_tensor(input)
    if isinstance(pad, Tensor):
        pad = pad._data.tolist()
    if isinstance(pad, (numbers.Number, np.number)):
        pad = [pad]
    pads = [int(p) for p in pad]
    if any(float(p) != q for p, q in zip(pad, pads)):
        raise TypeError(f"pad must hold whole numbers, got {list(pad)}")
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pads)} and input of "
                           f"dimension {input.ndim}")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        for j in range(len(pads) // 2):
            dim = input.ndim - 1 - j
            if input.shape[dim] + pads[2 * j] + pads[2 * j + 1] < 0:
                raise RuntimeError(f"The input size {input.shape[dim]}, plus negative padding "
                                   f"{pads[2 * j]} and {pads[2 * j + 1]} resulted in a negative "
                                   f"output size, which is invalid. Check dimension {dim} of "
                                   "your input.")
        return constant_pad(input, pads, 0.0 if value is None else float(value))
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pads) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pads)} is not supported for "
                                  f"{input.ndim}D input tensor.\n{_UNSUPPORTED}")
    if mode == "circular" and any(_wraps_twice(pads[2 * j], pads[2 * j + 1], n) for j, n in
                                  enumerate(input.shape[::-1][:k])):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    if any(s == 0 for s in input.shape[-k:]) or (input.ndim == k + 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    sizes = tuple(input.shape[input.ndim - 1 - j] for j in range(k))
    if mode == "reflect":
        for j, n in enumerate(sizes):
            if pads[2 * j] >= n or pads[2 * j + 1] >= n:
                raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less "
                                   f"than the corresponding input dimension, but got: padding "
                                   f"({pads[2 * j]}, {pads[2 * j + 1]}) at dimension "
                                   f"{input.ndim - 1 - j} of input {list(input.shape)}")
    indices = tuple(conv_arrays.pad_indices(n, pads[2 * j], pads[2 * j + 1], mode)
                    for j, n in enumerate(sizes))
    kind = {"reflect": "ReflectionPad", "replicate": "ReplicationPad",
            "circular": "CircularPad"}[mode] + f"{k}D"
    return gather_pad(input, indices, sizes, kind)
