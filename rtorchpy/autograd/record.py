"""Recording: attach a node of a derivative-table row to an op's outputs.

``record`` is the general path; ``record1`` (one input) and ``record2`` (two inputs) build the
same nodes for the common calls with less work, and ``record`` hands those calls to them. A test
(``tests/test_record_paths.py``) builds nodes both ways and compares every field.
"""
from __future__ import annotations

import traceback
import weakref

from .grad_mode import ANOMALY_USED, STATE
from .graph import INPLACE_EPOCH, AccumulateGrad, SavedOutput, next_seq
from .rows import saved_by_plan
from .views import regenerate


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
    base = t._base
    if base is not None and base._grad_fn is not t._view_fn:
        # the base's history was rewritten (an in-place op) since the view was taken: the view
        # gets a grad_fn from the base's current history (libtorch's AsStridedBackward0)
        regenerate(t)
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
    node.seq = next_seq()
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
    node.seq = next_seq()
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
    node.seq = next_seq()
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
