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
from typing import Any

import numpy as np

from ..numerics.bfloat16 import on_grid
from ..numerics.format import type_word_for
from ..numerics.formula_arrays import ARRAY_OPS
from ..tensor import Tensor
from .grad_mode import STATE

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

def version_error(data, saved_version, current_version):
    shape = ", ".join(str(s) for s in data.shape)
    if STATE.anomaly_enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True).")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [CPU{type_word_for(data.dtype)}Type [{shape}]] is at version "
        f"{current_version}; "
        f"expected version {saved_version} instead. {hint}")


# creation order of nodes (``Node.seq``): the engine runs nodes newest first
_sequence = itertools.count(1)
next_seq = _sequence.__next__

# Bumped by every in-place change of any tensor (see ``bump_version``). A node records its value
# when created; while it is unchanged, none of the node's saved tensors can have been modified,
# so backward skips the per-tensor version checks (the common case: no in-place ops at all).
INPLACE_EPOCH = [0]


def bump_version(t):
    """Record an in-place change of ``t``'s storage (every in-place write goes through here)."""
    t._version[0] += 1
    INPLACE_EPOCH[0] += 1


class SavedOutput:
    """An output saved for backward, without a reference to the output tensor (that would be a
    cycle through its grad_fn). Its fields have the Tensor's names, so version checks read a
    saved input and a saved output alike."""

    __slots__ = ("_data", "_version", "_output_nr", "_fw")

    def __init__(self, tensor):
        self._data = tensor._data
        self._version = tensor._version
        self._output_nr = tensor._output_nr
        self._fw = None  # the output's tangent under forward AD, set after recording


def _saved_output(src, node):
    """A saved output rebuilt as a tensor with ``node`` as grad_fn, with its tangent when
    forward AD gave it one (forward-over-reverse differentiates backward's formulas)."""
    t = Tensor._make(src._data, node, src._output_nr, src._version)
    extras = node.extras
    if extras is not None and extras.bf16 is not None and src._data.dtype == np.float32 and \
            on_grid(src._data):
        t._bf16 = True  # (the output of an op on bfloat16 tensors, rounded after recording)
    fw = getattr(src, "_fw", None)  # record1 builds SavedOutput without __init__
    if fw is not None:
        t._fw = fw
    return t


class NodeExtras:
    """What few nodes need, kept out of the common path: tensor hooks on outputs
    ({output_nr: [hook, ...]}), retain_grad targets ({output_nr: weakref(tensor)}) and, in
    anomaly mode, the stack that created the node."""

    __slots__ = ("pre_hooks", "retained", "trace", "bf16")

    def __init__(self):
        self.pre_hooks = None
        self.retained = None
        self.trace = None
        # which inputs are bfloat16 (a tuple of bools; None: none is): the engine rounds the
        # gradients it passes to them, as libtorch casts each to its input's dtype
        self.bf16 = None


class Node:
    """A backward function in the graph. ``name`` is libtorch's class name for it.

    ``edges[i]`` is the node that produced input i, or None where the input needs no gradient,
    and ``edge_nrs[i]`` which of that node's outputs input i is (``next_functions`` pairs them).
    Two tuples rather than one of ``(node, output_nr)`` pairs: a recorded op then leaves one
    tuple for the garbage collector to track instead of two (the output numbers, nearly always
    0, are shared tuples of ints, which the collector does not track).
    ``in_meta[i]`` is ``(shape, numpy dtype)`` of input i: the engine sums and casts each incoming
    gradient back to it, so formulas never deal with broadcasting. ``out_meta`` is None for a
    single-output node, else the outputs' ``(shape, dtype)`` (to zero-fill unused outputs).
    Saved values: ``sources`` are the saved tensors (a saved input is the Tensor itself, a saved
    output a :class:`SavedOutput`), ``versions`` their version counters when saved, ``saved``
    their arrays (what formulas get on the fast path) and ``epoch`` the in-place epoch when the
    node was made. ``saved`` becomes None once released: the node then refuses to run again.
    ``seq`` orders backward: a node is created after every node its edges point to, so running
    nodes in decreasing ``seq`` runs each one after all its consumers (see ``engine.py``).
    """

    # What every recorded node has is a slot; what few nodes have (several outputs, hooks or an
    # anomaly trace) defaults on the class and lands in the instance dict only when set, so the
    # recording paths need not write it.
    __slots__ = ("edges", "edge_nrs", "in_meta", "saved", "sources", "versions", "epoch",
                 "params", "seq", "__dict__", "__weakref__")
    out_meta = None  # several outputs: their ((shape, dtype), ...)
    extras = None    # NodeExtras: hooks, retained gradients, anomaly trace
    name = "Node"
    formula = None  # FormulaNode: the derivative-table row (the engine calls it directly)
    fresh = False   # FormulaNode: the row returns new arrays only (see ``row`` in _derivatives)

    def __init__(self):
        self.seq = next_seq()
        self.edges = self.edge_nrs = ()
        self.in_meta = ()
        self.saved = ()
        self.sources = ()
        self.versions = ()
        self.epoch = 0
        self.params = ()

    # -- what users see -------------------------------------------------------------------
    @property
    def next_functions(self):
        """One entry per input edge: ``(node, output_nr)``, or ``(None, 0)`` for an input that
        needs no gradient (libtorch's null function)."""
        return tuple((e, nr) if e is not None else (None, 0)
                     for e, nr in zip(self.edges, self.edge_nrs))

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
    def check_versions(self):
        """Raise if a saved tensor was modified in place after it was saved."""
        for src, version in zip(self.sources, self.versions):
            if src._version[0] != version:
                raise version_error(src._data, version, src._version[0])

    def unpack(self, as_tensors):
        """The saved values, checked against in-place changes. ``as_tensors`` gives graph-connected
        tensors (for create_graph), otherwise raw ndarrays (the fast path)."""
        if self.saved is None:
            raise RuntimeError(FREED_MESSAGE)
        if self.epoch != INPLACE_EPOCH[0]:
            self.check_versions()
        if not as_tensors:
            return [src._data for src in self.sources]
        return [_saved_output(src, self) if type(src) is SavedOutput else src
                for src in self.sources]

    def release(self):
        """Drop saved values after a backward without retain_graph (a node that saved nothing
        can run again, as in libtorch)."""
        if self.saved:
            self.saved = self.sources = None

    # -- the backward computation -----------------------------------------------------------
    def apply(self, grads, as_tensors):
        """Gradients w.r.t. each input edge, given the gradients w.r.t. each output."""
        raise NotImplementedError


# The namespaces formulas compute with, indexed by ``as_tensors``: NumPy on arrays, and recorded
# ops under create_graph. The second is made of ops, which sit above this layer: rtorchpy.ops
# puts it here when it is imported (rtorchpy/__init__ imports it before any graph exists).
FORMULA_OPS: list[Any] = [ARRAY_OPS, None]  # (two namespaces with the same methods)


class FormulaNode(Node):
    """A node whose backward is a row of the derivative table (see ``rtorchpy/derivatives/``).
    The engine runs the common case (no hooks, one output, arrays) itself; this is the rest.
    A formula's ``needs`` is the node's ``edges``: entry i is truthy when input i wants a
    gradient."""

    __slots__ = ()
    formula = None  # staticmethod(F, grad, needs, *saved, *params) -> tuple of input grads
    # what the row saves, from its declared names (rows.row): ((kind, index), ...), kind 0 an
    # input, 1 an output, 2 every input; and the same for the fast recording paths: save1 (one
    # input, one output: 0 nothing, 1 the input, 2 the output, -1 neither fits) and save2 (two
    # inputs: the saved inputs' positions, None when an output is saved)
    save_plan = ()
    save1 = 0
    save2 = ()

    def apply(self, grads, as_tensors):
        ops = FORMULA_OPS[as_tensors]
        g = grads[0] if self.out_meta is None else grads
        if self.saved:
            out = self.formula(ops, g, self.edges, *self.unpack(as_tensors), *self.params)
        elif self.saved is None:
            raise RuntimeError(FREED_MESSAGE)
        else:
            out = self.formula(ops, g, self.edges, *self.params)
        return out if type(out) is tuple else (out,)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: runs the leaf's hooks, then adds into ``leaf.grad``.

    It is created lazily, by the first op that uses the leaf, so it can be younger than nodes
    that feed it later; it has no edges, so it simply runs last (negative ``seq``)."""

    __slots__ = ("variable",)
    name = "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        super().__init__()
        self.seq = -next_seq()
        self.variable = variable

    def apply(self, grads, as_tensors):
        raise RuntimeError("AccumulateGrad is a sink: the engine adds into the leaf itself "
                           "(autograd/gradients.py accumulate_into_leaf)")

    def release(self):
        pass
