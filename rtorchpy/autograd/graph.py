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

from .grad_mode import ANOMALY_USED, STATE

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

    __slots__ = ("_data", "_version", "_output_nr")

    def __init__(self, tensor):
        self._data = tensor._data
        self._version = tensor._version
        self._output_nr = tensor._output_nr


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

    __slots__ = ("edges", "edge_nrs", "in_meta", "saved", "sources", "versions", "epoch",
                 "params", "out_meta", "extras", "seq", "__weakref__")
    name = "Node"
    formula = None  # FormulaNode: the derivative-table row (the engine calls it directly)
    fresh = False   # FormulaNode: the row returns new arrays only (see ``row`` in _derivatives)

    def __init__(self):
        self.seq = next(_sequence)
        self.edges = self.edge_nrs = ()
        self.in_meta = ()
        self.saved = ()
        self.sources = ()
        self.versions = ()
        self.epoch = 0
        self.params = ()
        self.out_meta = None
        self.extras = None

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
        from .._tensor import Tensor
        return [Tensor._make(src._data, self, src._output_nr, src._version)
                if type(src) is SavedOutput else src for src in self.sources]

    def release(self):
        """Drop saved values after a backward without retain_graph (a node that saved nothing
        can run again, as in libtorch)."""
        if self.saved:
            self.saved = self.sources = None

    # -- the backward computation -----------------------------------------------------------
    def apply(self, grads, as_tensors):
        """Gradients w.r.t. each input edge, given the gradients w.r.t. each output."""
        raise NotImplementedError


_FORMULA_OPS = []  # [ARRAY_OPS, TENSOR_OPS], filled on first use (import cycle)


def formula_ops():
    if not _FORMULA_OPS:
        from .._formula_ops import ARRAY_OPS, TENSOR_OPS
        _FORMULA_OPS.extend((ARRAY_OPS, TENSOR_OPS))
    return _FORMULA_OPS


class FormulaNode(Node):
    """A node whose backward is a row of the derivative table (see ``_derivatives.py``).
    The engine runs the common case (no hooks, one output, arrays) itself; this is the rest.
    A formula's ``needs`` is the node's ``edges``: entry i is truthy when input i wants a
    gradient."""

    __slots__ = ()
    formula = None  # staticmethod(F, grad, needs, *saved, *params) -> tuple of input grads
    save_plan = None  # which inputs/outputs the row saves, from its declared names (row())

    def apply(self, grads, as_tensors):
        ops = formula_ops()[as_tensors]
        g = grads[0] if self.out_meta is None else grads
        if self.saved:
            out = self.formula(ops, g, self.edges, *self.unpack(as_tensors), *self.params)
        elif self.saved is None:
            raise RuntimeError(FREED_MESSAGE)
        else:
            out = self.formula(ops, g, self.edges, *self.params)
        return out if type(out) is tuple else (out,)


def formula_node_class(name, formula, fresh=False, save_plan=None):
    return type(name.replace("::", "_"), (FormulaNode,), {
        "__slots__": (), "name": name, "formula": staticmethod(formula), "fresh": fresh,
        "save_plan": save_plan})


def saved_by_plan(plan, inputs, outputs):
    """The tensors a row's ``save_plan`` names, in the row's order: ``(0, i)`` is input i,
    ``(1, i)`` output i, ``(2, None)`` every input."""
    out = []
    for kind, i in plan:
        if kind == 0:
            out.append(inputs[i])
        elif kind == 1:
            out.append(outputs[i])
        else:
            out.extend(inputs)
    return tuple(out)


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


regenerate_view = None  # _views.regenerate, installed by that module (import cycle)


def edge_of(t):
    """The edge a new node needs towards tensor ``t``, or None if ``t`` needs no gradient."""
    base = t._base
    if base is not None and base._grad_fn is not t._view_fn:
        # the base's history was rewritten (an in-place op) since the view was taken: the view
        # gets a grad_fn from the base's current history (libtorch's AsStridedBackward0)
        regenerate_view(t)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


# the output-number tuples nearly every node has, shared
_NRS = {(0,): (0,), (0, 0): (0, 0), (0, 0, 0): (0, 0, 0)}


def set_edges(node, tensors):
    """Give ``node`` its edges towards ``tensors`` (the general case of what ``record`` does)."""
    pairs = [edge_of(t) for t in tensors]
    node.edges = tuple([p[0] if p is not None else None for p in pairs])
    nrs = tuple([p[1] if p is not None else 0 for p in pairs])
    node.edge_nrs = _NRS.get(nrs, nrs)


_NR0 = _NRS[(0,)]
_NR00 = _NRS[(0, 0)]
_new = object.__new__
_NOTHING = ()

# ``in_meta`` of one- and two-input nodes, shared by all nodes whose inputs have the same shapes
# and dtypes: fewer tuples per recorded op for the garbage collector to allocate and walk (a deep
# graph spends more time in the collector than in the ops). Bounded: a workload with ever-new
# shapes just starts over.
_ONE_INPUT_META = {}
_TWO_INPUT_META = {}


def record(node_cls, inputs, outputs, saved=(), params=()):
    """Attach a new ``node_cls`` node as grad_fn of ``outputs`` (Tensors, already computed).

    ``inputs`` are the tensors whose gradients the formula returns, in order; ``saved`` are
    tensors (inputs or outputs) the formula receives unpacked; ``params`` are plain values.
    Callers check beforehand that grad mode is on and some input requires grad. This runs once
    per recorded op (it is most of the cost of recording), so it is written out for the common
    shapes of call and avoids every allocation it can.
    """
    plan = node_cls.save_plan
    if plan is not None:  # the row names what it saves
        saved = saved_by_plan(plan, inputs, outputs) if plan else ()
    n_in = len(inputs)
    if len(outputs) == 1:  # the usual calls are record1's and record2's: hand them over
        out = outputs[0]
        if n_in == 1 and len(saved) <= 1:
            return record1(node_cls, inputs[0], out, saved[0] if saved else None, params)
        if n_in == 2:
            for s in saved:
                if s is out:
                    break
            else:  # nothing of the output saved (identity: == on tensors is elementwise)
                return record2(node_cls, inputs[0], inputs[1], out,
                               saved if type(saved) is tuple else tuple(saved), params)
    node = _new(node_cls)
    node.seq = next(_sequence)
    set_edges(node, inputs)
    node.in_meta = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    if saved:
        sources = saved if type(saved) is tuple else tuple(saved)
        for i, s in enumerate(sources):
            for nr, o in enumerate(outputs):
                if s is o:  # an output: keep its array and version counter, not the tensor
                    src = SavedOutput(o)
                    src._output_nr = nr  # the output is not attached to the node yet
                    sources = sources[:i] + (src,) + sources[i + 1:]
                    break
        node.sources = sources
        if len(sources) == 1:
            s = sources[0]
            node.versions = (s._version[0],)
            node.saved = (s._data,)
        else:
            node.versions = tuple([s._version[0] for s in sources])
            node.saved = tuple([s._data for s in sources])
        node.epoch = INPLACE_EPOCH[0]
    else:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    node.params = params
    node.extras = None
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
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




def record2(node_cls, a, b, out, saved=_NOTHING, params=_NOTHING):
    """``record(node_cls, (a, b), (out,), saved, params)`` for a two-input op with one fresh
    output (``out._output_nr`` is already 0) whose saved tensors (a tuple) are among its inputs:
    binary arithmetic's path, so the same node is built with less work (no containers to build
    at the call, no output search). ``record`` hands such calls here too."""
    node = _new(node_cls)
    node.seq = next(_sequence)
    fa, fb = a._grad_fn, b._grad_fn
    # edge_of inline for the usual pair: each input has history (output 0, not a view) or is a
    # plain constant
    if (fa is not None and a._base is None and a._output_nr == 0 or
            fa is None and not a._requires_grad and a._base is None) and \
            (fb is not None and b._base is None and b._output_nr == 0 or
             fb is None and not b._requires_grad and b._base is None):
        node.edges = (fa, fb)
        node.edge_nrs = _NR00
    else:
        set_edges(node, (a, b))
    da, db = a._data, b._data
    key = (da.shape, da.dtype, db.shape, db.dtype)
    meta = _TWO_INPUT_META.get(key)
    if meta is None:
        if len(_TWO_INPUT_META) >= 1024:
            _TWO_INPUT_META.clear()
        meta = _TWO_INPUT_META[key] = ((key[0], key[1]), (key[2], key[3]))
    node.in_meta = meta
    if saved:
        node.sources = saved
        node.versions = tuple([s._version[0] for s in saved])
        node.saved = tuple([s._data for s in saved])
        node.epoch = INPLACE_EPOCH[0]
    else:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    node.params = params
    node.out_meta = None
    node.extras = None
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    out._grad_fn = node
    out._requires_grad = True
    return node


def _one_input_meta(key):
    if len(_ONE_INPUT_META) >= 1024:
        _ONE_INPUT_META.clear()
    meta = _ONE_INPUT_META[key] = (key,)
    return meta


def record1(node_cls, t, out, save=None, params=_NOTHING):
    """``record(node_cls, (t,), (out,), (save,) or (), params)`` for the most common op: one
    input, one fresh output (``out._output_nr`` is already 0), at most one saved tensor (the
    output, or any other tensor). The same node, built with less work: this is on every unary
    op's path, and ``record`` hands such calls here too."""
    node = _new(node_cls)
    node.seq = next(_sequence)
    fn = t._grad_fn
    if fn is not None and t._base is None and t._output_nr == 0:  # edge_of, inline
        node.edges = (fn,)
        node.edge_nrs = _NR0
    else:
        set_edges(node, (t,))
    d = t._data
    key = (d.shape, d.dtype)
    meta = _ONE_INPUT_META.get(key)
    if meta is None:
        meta = _one_input_meta(key)
    node.in_meta = meta
    if save is None:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    else:
        if save is out:
            save = _new(SavedOutput)
            save._data = out._data
            save._version = out._version
            save._output_nr = 0
        node.sources = (save,)
        node.versions = (save._version[0],)
        node.saved = (save._data,)
        node.epoch = INPLACE_EPOCH[0]
    node.params = params
    node.out_meta = None
    node.extras = None
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    out._grad_fn = node
    out._requires_grad = True
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
