"""The recorded graph: Nodes (what ``grad_fn`` shows), their edges, saved values and hooks.

Ownership follows Chainer/DeZero: an output tensor holds its ``grad_fn`` strongly, a Node holds
its inputs (edges and saved inputs) strongly, and nothing points back from a Node to its outputs
except weak references kept for ``retain_grad``. So a forward pass makes no reference cycles and
the whole graph is freed as soon as the user drops the result.

A saved *output* (e.g. ``exp`` saves its result) is stored as its ndarray plus version counter and
rebuilt on demand with this node as ``grad_fn`` — holding the output tensor itself would be a cycle.
"""
from __future__ import annotations

import itertools
import traceback
import weakref

from .grad_mode import STATE

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

_sequence = itertools.count()


def version_error(data, saved_version, current_version):
    from .._format import type_word_for
    shape = ", ".join(str(s) for s in data.shape)
    if STATE.anomaly_enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True).")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [CPU{type_word_for(data.dtype)}Type [{shape}]] is at version {current_version}; "
        f"expected version {saved_version} instead. {hint}")


class SavedOutput:
    """An output saved for backward, without a reference to the output tensor."""

    __slots__ = ("data", "version", "output_nr")

    def __init__(self, tensor):
        self.data = tensor._data
        self.version = tensor._version
        self.output_nr = tensor._output_nr


class Node:
    """A backward function in the graph. ``name`` is libtorch's class name for it.

    ``edges[i]`` is ``(node, output_nr)`` for input i, or None where the input needs no gradient.
    ``in_meta[i]`` is ``(shape, numpy dtype)`` of input i: the engine sums and casts each incoming
    gradient back to it, so formulas never deal with broadcasting.
    """

    __slots__ = ("edges", "in_meta", "saved", "versions", "params", "seq", "pre_hooks",
                 "retained", "freed", "trace", "n_outputs", "out_meta", "__weakref__")
    name = "Node"

    def __init__(self):
        self.seq = next(_sequence)
        self.pre_hooks = None   # {output_nr: [hook, ...]} for tensor hooks on non-leaves
        self.retained = None    # {output_nr: weakref(tensor)} for retain_grad()
        self.freed = False
        self.saved = ()
        self.versions = ()
        self.params = ()
        self.n_outputs = 1
        self.out_meta = None
        self.trace = None

    # -- what users see -------------------------------------------------------------------
    @property
    def next_functions(self):
        """One entry per input edge: ``(node, output_nr)``, or ``(None, 0)`` for an input that
        needs no gradient (libtorch's null function)."""
        return tuple(e if e is not None else (None, 0) for e in self.edges)

    def register_hook(self, fn):
        """A post-hook is not supported; hook tensors instead."""
        raise NotImplementedError("hooks on nodes are not supported; use tensor.register_hook()")

    def __repr__(self):
        return self.name

    # -- saved values ---------------------------------------------------------------------
    def unpack(self, as_tensors):
        """The saved values, checked against in-place changes. ``as_tensors`` gives graph-connected
        tensors (for create_graph), otherwise raw ndarrays (the fast path)."""
        if self.freed:
            raise RuntimeError(FREED_MESSAGE)
        out = []
        for item, version in zip(self.saved, self.versions):
            if type(item) is SavedOutput:
                if item.version[0] != version:
                    raise version_error(item.data, version, item.version[0])
                if as_tensors:
                    from .._tensor import Tensor
                    item = Tensor._make(item.data, self, item.output_nr, item.version)
                else:
                    item = item.data
            elif version is not None:  # a saved input tensor
                if item._version[0] != version:
                    raise version_error(item._data, version, item._version[0])
                if not as_tensors:
                    item = item._data
            out.append(item)
        return out

    def release(self):
        """Drop saved values after a backward without retain_graph."""
        if self.saved:
            self.saved = ()
            self.versions = ()
            self.freed = True

    # -- the backward computation -----------------------------------------------------------
    def apply(self, grads, as_tensors):
        """Gradients w.r.t. each input edge, given the gradients w.r.t. each output."""
        raise NotImplementedError


class FormulaNode(Node):
    """A node whose backward is a row of the derivative table (see ``_derivatives.py``)."""

    __slots__ = ()
    formula = None  # staticmethod(F, grad, needs, *saved, *params) -> tuple of input grads

    def apply(self, grads, as_tensors):
        from .._formula_ops import TENSOR_OPS, ARRAY_OPS
        F = TENSOR_OPS if as_tensors else ARRAY_OPS
        needs = tuple(e is not None for e in self.edges)
        g = grads[0] if self.n_outputs == 1 else grads
        out = self.formula(F, g, needs, *self.unpack(as_tensors), *self.params)
        return out if type(out) is tuple else (out,)


def formula_node_class(name, formula):
    return type(name.replace("::", "_"), (FormulaNode,), {
        "__slots__": (), "name": name, "formula": staticmethod(formula)})


class AccumulateGrad(Node):
    """The sink for a leaf tensor: runs the leaf's hooks, then adds into ``leaf.grad``."""

    __slots__ = ("variable",)
    name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self.edges = ()
        self.in_meta = ()

    def apply(self, grads, as_tensors):
        from .engine import accumulate_into_leaf
        accumulate_into_leaf(self.variable, grads[0], as_tensors)
        return ()

    def release(self):
        pass


def grad_accumulator(leaf):
    """The leaf's AccumulateGrad, shared by every op that uses the leaf (held weakly by the leaf,
    strongly by the nodes that point to it)."""
    ref = leaf._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(acc)
    return acc


def edge_of(t):
    """The edge a new node needs towards tensor ``t``, or None if ``t`` needs no gradient."""
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


def record(node_cls, inputs, outputs, saved=(), params=()):
    """Attach a new ``node_cls`` node as grad_fn of ``outputs`` (Tensors, already computed).

    ``inputs`` are the tensors whose gradients the formula returns, in order; ``saved`` are
    tensors (inputs or outputs) and the formula receives them unpacked; ``params`` are plain values.
    Callers check beforehand that grad mode is on and some input requires grad.
    """
    node = node_cls()
    node.edges = tuple([edge_of(t) for t in inputs])
    node.in_meta = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    if saved:
        node.saved = saved = _pack(saved, outputs)
        node.versions = tuple([s.version[0] if type(s) is SavedOutput else s._version[0] for s in saved])
    node.params = params
    if STATE.anomaly_enabled:
        node.trace = traceback.format_stack()[:-2]
    n = len(outputs)
    node.n_outputs = n
    if n > 1:
        node.out_meta = tuple([(o._data.shape, o._data.dtype) for o in outputs])
    for i, o in enumerate(outputs):
        o._grad_fn = node
        o._output_nr = i
        o._requires_grad = True
    return node


def _pack(saved, outputs):
    packed = []
    for s in saved:
        if any(s is o for o in outputs):
            packed.append(SavedOutput(s))
        else:
            packed.append(s)
    return tuple(packed)


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook (idempotent)."""

    __slots__ = ("_list_ref", "_hook")

    def __init__(self, hook_list, hook):
        self._list_ref = hook_list
        self._hook = hook

    def remove(self):
        lst = self._list_ref
        if lst is not None:
            try:
                lst.remove(self._hook)
            except ValueError:
                pass
            self._list_ref = None

    def __repr__(self):
        return "<torch_hook>"
