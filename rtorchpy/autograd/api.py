"""``autograd_backward`` and ``autograd_grad``: the functional entry points to the engine."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import tensor
from ..numerics.args import flag
from ..numerics.broadcast import check_grad_shape, sum_to_shape
from ..tensor import Tensor
from .engine import execute
from .gradients import accumulate_into_leaf, as_bfloat16
from .record import edge_of
from .views import gained_history

IMPLICIT_GRAD_ERROR = "grad can be implicitly created only for scalar outputs"


def _as_list(x: Any, what: str) -> Any:  # (a list, or None for None)
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return list(x)
    raise TypeError(f"{what} must be a Tensor or a list of Tensors, got {type(x).__name__}")


def _roots(tensors: Any, grads: Any, create_graph: bool,  # (lists: see _as_list)
           engine_shapes: bool = False) -> list:
    """Pair each output with its incoming gradient, checking both. A gradient whose shape is not
    its output's is refused, as PyTorch's ``_make_grads`` does; with ``engine_shapes=True`` (the
    R face: R torch calls libtorch's C++ ``backward()``/``grad()``, which leave the check to the
    engine) it is summed down to the output's shape when it broadcasts from it, and refused
    otherwise, as libtorch's engine does. Either way it is cast to the output's dtype."""
    if grads is None:
        grads = [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors is a {type(t).__name__}, not a Tensor")
        if not (t._requires_grad or gained_history(t)):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(IMPLICIT_GRAD_ERROR)
            g = np.empty(t._data.shape, dtype=t._data.dtype)
            g.fill(1)  # np.ones costs twice as much
            g = Tensor._make(g) if create_graph else g
        else:
            if not isinstance(g, Tensor):
                g = Tensor(g, dtype=t.dtype)
            if g.shape != t.shape and not engine_shapes:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"torch.Size({list(g.shape)}) and output[{i}] has a shape of "
                                   f"torch.Size({list(t.shape)}).")
            check_grad_shape(g.shape, t.shape, i)
            if g.shape != t.shape:
                g = sum_to_shape(g if create_graph else g._data, t.shape, create_graph)
                if not create_graph:
                    g = g.astype(t._data.dtype, copy=False)
            elif not create_graph:
                g = g._data.astype(t._data.dtype, copy=False)
            if create_graph and g._data.dtype != t._data.dtype:
                g = g.to(t.dtype)
        roots.append(edge_of(t) + (g,))
    return roots


def _flags(where: str, **flags: Any) -> None:
    """Refuse a flag that is not a real boolean (retain_graph may also be None) before any
    work: ``create_graph='no'`` must not mean True."""
    for name, value in flags.items():
        if not (value is None and name == "retain_graph"):
            flag(value, name, where)


def autograd_backward(tensors: Tensor | Sequence[Tensor],
                      grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
                      retain_graph: bool | None = None, create_graph: bool = False,
                      inputs: Tensor | Sequence[Tensor] | None = None, *,
                      engine_shapes: bool = False) -> None:
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (each weighted by its
    entry of ``grad_tensors``, of its tensor's shape; None means ones for a one-element tensor).
    ``engine_shapes=True``: a gradient that broadcasts from its tensor's shape is summed down
    to it, as libtorch's C++ ``backward()`` does (the R face)."""
    _flags("backward", retain_graph=retain_graph, create_graph=create_graph)
    tensors = _as_list(tensors, "tensors")
    grad_tensors = _as_list(grad_tensors, "grad_tensors")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(tensors, grad_tensors, create_graph, engine_shapes)
    if inputs is not None:
        inputs = _as_list(inputs, "inputs")
        capture = _capture_points(inputs)
        captured = execute(roots, retain_graph, create_graph, capture)
        for t, g in zip(inputs, captured):  # a tensor named twice has one slot filled
            if g is not None:
                if t._grad_fn is None:  # hooks already ran at the capture point
                    accumulate_into_leaf(t, g, create_graph, run_hooks=False)
                else:  # a non-leaf named in inputs gets its gradient stored, as libtorch does
                    t._grad = _tensor_of(g) if t._grad is None else t._grad + _tensor_of(g)
        return None
    execute(roots, retain_graph, create_graph)
    return None


def _tensor_of(g: Any) -> Tensor:
    """A gradient as a tensor of its own (never the caller's tensor: .grad may be changed)."""
    return g.clone() if isinstance(g, Tensor) else Tensor._make(np.array(g, copy=True))


def _capture_points(inputs: Any) -> dict:  # (a list: see _as_list)
    capture = {}
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs[{i}] is a {type(t).__name__}, not a Tensor")
        if not (t._requires_grad or gained_history(t)):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        capture[edge_of(t)] = i
    return capture


def autograd_grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
                  grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
                  retain_graph: bool | None = None, create_graph: bool = False,
                  allow_unused: bool = False, *,
                  check_grad_shapes: bool = True) -> list[Tensor | None]:
    """The gradients of ``outputs`` w.r.t. each of ``inputs``, returned as a list in input order,
    without touching any ``.grad``. With ``allow_unused=True`` an input the outputs do not depend
    on gets None (R: an undefined tensor).

    ``check_grad_shapes=False`` behaves as libtorch's C++ ``grad()``, which R torch calls: a
    ``grad_outputs`` entry that broadcasts from its output's shape is summed down to it (the
    engine's rule; PyTorch's Python ``grad()`` refuses any other shape), and an unused input is
    reported in that function's words. The R face uses it.
    """
    _flags("autograd_grad", retain_graph=retain_graph, create_graph=create_graph,
           allow_unused=allow_unused)
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    grad_outputs = _as_list(grad_outputs, "grad_outputs")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs, grad_outputs, create_graph, engine_shapes=not check_grad_shapes)
    capture = _capture_points(inputs)
    captured = execute(roots, retain_graph, create_graph, capture)
    result: list[Tensor | None] = []
    for i, t in enumerate(inputs):
        # the same tensor named twice shares one capture slot (the last index it was given)
        g = captured[capture[edge_of(t)]]
        if g is None:
            if not allow_unused:
                # PyTorch's text; the C++ grad() (R torch) words it differently, "1of" included
                what = (f"The differentiated Tensor at index {i}" if check_grad_shapes
                        else f"element {i}of the differentiated Tensors")
                raise RuntimeError(f"{what} appears to not have been used in the graph. Set "
                                   "allow_unused=True if this is the desired behavior.")
            result.append(None)
        else:
            g = g if isinstance(g, Tensor) else Tensor._make(np.array(g, copy=True))
            result.append(as_bfloat16(g) if t._bf16 else g)
    return result


tensor.run_backward = autograd_backward  # Tensor.backward runs here (tensor.py sits below)
