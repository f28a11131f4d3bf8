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


_sequence = itertools.count(1)


class SavedOutput:
    """An output saved for backward, without a reference to the output tensor."""

    __slots__ = ("data", "version", "output_nr")

    def __init__(self, tensor):
        self.data = tensor._data
        self.version = tensor._version
        self.output_nr = tensor._output_nr


class NodeExtras:
    """What few nodes need, kept out of the common path: tensor hooks on outputs
    ({output_nr: [hook, ...]}), retain_grad targets ({output_nr: weakref(tensor)}) and, in
    anomaly mode, the stack that created the node."""

    __slots__ = ("pre_hooks", "retained", "trace")

    def __init__(self):
        self.pre_hooks = None
        self.retained = None
        self.trace = None


class Node:
    """A backward function in the graph. ``name`` is libtorch's class name for it.

    ``edges[i]`` is ``(node, output_nr)`` for input i, or None where the input needs no gradient.
    ``in_meta[i]`` is ``(shape, numpy dtype)`` of input i: the engine sums and casts each incoming
    gradient back to it, so formulas never deal with broadcasting. ``out_meta`` is None for a
    single-output node, else the outputs' ``(shape, dtype)`` (to zero-fill unused outputs).
    ``saved`` becomes None once released: the node then refuses to run again.
    ``seq`` orders backward: a node is created after every node its edges point to, so running
    nodes in decreasing ``seq`` runs each one after all its consumers (see ``engine.py``).
    """

    __slots__ = ("edges", "in_meta", "saved", "versions", "params", "out_meta", "extras", "seq",
                 "__weakref__")
    name = "Node"

    def __init__(self):
        self.seq = next(_sequence)
        self.edges = ()
        self.in_meta = ()
        self.saved = ()
        self.versions = ()
        self.params = ()
        self.out_meta = None
        self.extras = None

    # -- what users see -------------------------------------------------------------------
    @property
    def next_functions(self):
        """One entry per input edge: ``(node, output_nr)``, or ``(None, 0)`` for an input that
        needs no gradient (libtorch's null function)."""
        return tuple(e if e is not None else (None, 0) for e in self.edges)

    @property
    def n_outputs(self):
        return 1 if self.out_meta is None else len(self.out_meta)

    def extras_(self):
        """The node's extras, created on first use."""
        if self.extras is None:
            self.extras = NodeExtras()
        return self.extras

    def __repr__(self):
        return self.name

    # -- saved values ---------------------------------------------------------------------
    def unpack(self, as_tensors):
        """The saved values, checked against in-place changes. ``as_tensors`` gives graph-connected
        tensors (for create_graph), otherwise raw ndarrays (the fast path)."""
        saved = self.saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        out = []
        for item, version in zip(saved, self.versions):
            if type(item) is SavedOutput:
                if item.version[0] != version:
                    raise version_error(item.data, version, item.version[0])
                if as_tensors:
                    from .._tensor import Tensor
                    item = Tensor._make(item.data, self, item.output_nr, item.version)
                else:
                    item = item.data
            else:  # a saved input tensor
                if item._version[0] != version:
                    raise version_error(item._data, version, item._version[0])
                if not as_tensors:
                    item = item._data
            out.append(item)
        return out

    def release(self):
        """Drop saved values after a backward without retain_graph."""
        if self.saved:
            self.saved = None
            self.versions = ()

    # -- the backward computation -----------------------------------------------------------
    def apply(self, grads, as_tensors):
        """Gradients w.r.t. each input edge, given the gradients w.r.t. each output."""
        raise NotImplementedError


_ONE_NEED = (True,)
_FORMULA_OPS = []  # [ARRAY_OPS, TENSOR_OPS], filled on first use (import cycle)


class FormulaNode(Node):
    """A node whose backward is a row of the derivative table (see ``_derivatives.py``)."""

    __slots__ = ()
    formula = None  # staticmethod(F, grad, needs, *saved, *params) -> tuple of input grads

    def apply(self, grads, as_tensors):
        if not _FORMULA_OPS:
            from .._formula_ops import ARRAY_OPS, TENSOR_OPS
            _FORMULA_OPS.extend((ARRAY_OPS, TENSOR_OPS))
        edges = self.edges
        needs = _ONE_NEED if len(edges) == 1 else tuple([e is not None for e in edges])
        g = grads[0] if self.out_meta is None else grads
        saved = self.saved
        if saved:
            out = self.formula(_FORMULA_OPS[as_tensors], g, needs, *self.unpack(as_tensors),
                               *self.params)
        elif saved is None:
            raise RuntimeError(FREED_MESSAGE)
        else:
            out = self.formula(_FORMULA_OPS[as_tensors], g, needs, *self.params)
        return out if type(out) is tuple else (out,)


def formula_node_class(name, formula):
    return type(name.replace("::", "_"), (FormulaNode,), {
        "__slots__": (), "name": name, "formula": staticmethod(formula)})


accumulate = None  # engine.accumulate_into_leaf, installed by the engine module (import cycle)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: runs the leaf's hooks, then adds into ``leaf.grad``.

    It is created lazily, by the first op that uses the leaf, so it can be younger than nodes
    that feed it later; it has no edges, so it simply runs last (negative ``seq``)."""

    __slots__ = ("variable",)
    name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        super().__init__()
        self.seq = -next(_sequence)
        self.variable = variable

    def apply(self, grads, as_tensors):
        accumulate(self.variable, grads[0], as_tensors)
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


STALE_VIEW_ERROR = (
    "a view was used after its base tensor was modified by an in-place operation that recorded "
    "history; rtorchpy does not rebase views (libtorch's CopySlices), so this gradient would be "
    "wrong. Take the view again after the in-place operation, or clone() it before.")


def edge_of(t):
    """The edge a new node needs towards tensor ``t``, or None if ``t`` needs no gradient."""
    base = t._base
    if base is not None and base._grad_fn is not t._view_fn:
        raise RuntimeError(STALE_VIEW_ERROR)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


_new = object.__new__


def record(node_cls, inputs, outputs, saved=(), params=()):
    """Attach a new ``node_cls`` node as grad_fn of ``outputs`` (Tensors, already computed).

    ``inputs`` are the tensors whose gradients the formula returns, in order; ``saved`` are
    tensors (inputs or outputs) the formula receives unpacked; ``params`` are plain values.
    Callers check beforehand that grad mode is on and some input requires grad. This runs once
    per recorded op, so it avoids every allocation it can.
    """
    node = _new(node_cls)
    node.seq = next(_sequence)
    if len(inputs) == 1:
        t = inputs[0]
        node.edges = (edge_of(t),)
        node.in_meta = ((t._data.shape, t._data.dtype),)
    else:
        node.edges = tuple([edge_of(t) for t in inputs])
        node.in_meta = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    if saved:
        packed = []
        versions = []
        for s in saved:
            for o in outputs:
                if s is o:
                    s = SavedOutput(s)
                    versions.append(s.version[0])
                    break
            else:
                versions.append(s._version[0])
            packed.append(s)
        node.saved = tuple(packed)
        node.versions = tuple(versions)
    else:
        node.saved = ()
        node.versions = ()
    node.params = params
    node.extras = None
    if STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    if len(outputs) == 1:
        node.out_meta = None
        o = outputs[0]
        o._grad_fn = node
        o._output_nr = 0
        o._requires_grad = True
    else:
        node.out_meta = tuple([(o._data.shape, o._data.dtype) for o in outputs])
        for i, o in enumerate(outputs):
            o._grad_fn = node
            o._output_nr = i
            o._requires_grad = True
    return node


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
