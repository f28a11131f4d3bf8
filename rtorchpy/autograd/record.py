"""Recording: attach a node of a derivative-table row to an op's outputs.

``record`` is the general path; ``record1`` (one input) and ``record2`` (two inputs) build the
same nodes for the common calls with less work, and ``record`` hands those calls to them. A test
(``tests/test_record_paths.py``) builds nodes both ways and compares every field.
"""
from __future__ import annotations

import traceback
import weakref
from typing import Any

from .grad_mode import ANOMALY_USED, FORWARD_AD, STATE
from .graph import INPLACE_EPOCH, AccumulateGrad, SavedOutput, next_seq
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
_ONE_INPUT_META: dict = {}
_TWO_INPUT_META: dict = {}


# Forward AD's recording (``forward_ad.record_dual``), handed down when that module is imported:
# while a dual level is open every recording path goes there first, to set the outputs' tangents.
RECORD_DUAL: list[Any] = [None]


def record(node_cls, inputs, outputs, params=()):
    """Attach a new ``node_cls`` node (a row of the derivative table) as grad_fn of ``outputs``
    (Tensors, already computed).

    ``inputs`` are the tensors whose gradients the formula returns, in order; ``params`` are
    plain values the formula receives after its saved tensors. What is saved is the row's
    declaration (``row(..., saves=...)``), not the caller's. Callers check beforehand that grad
    mode is on and some input requires grad. One- and two-input calls with one output go to
    ``record1``/``record2``, which build the same node with less work.
    """
    if FORWARD_AD[0]:
        return RECORD_DUAL[0](node_cls, inputs, outputs, params, _record)
    return _record(node_cls, inputs, outputs, params)


def _record(node_cls, inputs, outputs, params=()):
    if len(outputs) == 1:
        n_in = len(inputs)
        if n_in == 1 and node_cls.save1 >= 0:
            return record1(node_cls, inputs[0], outputs[0], params)
        if n_in == 2 and node_cls.save2 is not None:
            return record2(node_cls, inputs[0], inputs[1], outputs[0], params)
    return record_any(node_cls, inputs, outputs, params)


def record_any(node_cls, inputs, outputs, params=()):
    """``record``'s general path: any number of inputs and outputs, any saved values."""
    if FORWARD_AD[0]:
        return RECORD_DUAL[0](node_cls, inputs, outputs, params, _record_any)
    return _record_any(node_cls, inputs, outputs, params)


def _record_any(node_cls, inputs, outputs, params=()):
    node = _new(node_cls)
    node.seq = next_seq()
    set_edges(node, inputs)
    node.in_meta = tuple([(t._data.shape, t._data.dtype) for t in inputs])
    if any(t._bf16 for t in inputs):
        node.extras_().bf16 = tuple([t._bf16 for t in inputs])
    plan = node_cls.save_plan
    if plan:
        sources = []
        for kind, i in plan:
            if kind == 0:
                sources.append(inputs[i])
            elif kind == 1:  # an output: keep its array and version counter, not the tensor
                src = SavedOutput(outputs[i])
                src._output_nr = i  # the output is not attached to the node yet
                sources.append(src)
            else:
                sources.extend(inputs)
        node.sources = sources = tuple(sources)
        node.versions = tuple([s._version[0] for s in sources])
        node.saved = tuple([s._data for s in sources])
        node.epoch = INPLACE_EPOCH[0]
    else:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    node.params = params
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    if len(outputs) != 1:
        node.out_meta = tuple([(o._data.shape, o._data.dtype) for o in outputs])
    for i, o in enumerate(outputs):
        o._grad_fn = node
        o._output_nr = i
        o._requires_grad = True
    return node


def record2(node_cls, a, b, out, params=_NOTHING):
    """``record(node_cls, (a, b), (out,), params)`` for a two-input op with one fresh output
    (``out._output_nr`` is already 0) whose row saves only inputs (``node_cls.save2``: their
    positions): binary arithmetic's path, so the same node is built with less work."""
    if FORWARD_AD[0]:
        return RECORD_DUAL[0](node_cls, (a, b), (out,), params, _record_any)
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
    if a._bf16 or b._bf16:
        node.extras_().bf16 = (a._bf16, b._bf16)
    save = node_cls.save2
    if save:
        if save == _BOTH:
            node.sources = (a, b)
            node.versions = (a._version[0], b._version[0])
            node.saved = (da, db)
        else:
            sources = node.sources = tuple([b if i else a for i in save])
            node.versions = tuple([s._version[0] for s in sources])
            node.saved = tuple([s._data for s in sources])
        node.epoch = INPLACE_EPOCH[0]
    else:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    node.params = params
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    out._grad_fn = node
    out._requires_grad = True
    return node


_BOTH = (0, 1)


def _one_input_meta(key):
    if len(_ONE_INPUT_META) >= 1024:
        _ONE_INPUT_META.clear()
    meta = _ONE_INPUT_META[key] = (key,)
    return meta


def record1(node_cls, t, out, params=_NOTHING):
    """``record(node_cls, (t,), (out,), params)`` for the most common op: one input, one fresh
    output (``out._output_nr`` is already 0), a row that saves at most one of them
    (``node_cls.save1``: 0 nothing, 1 the input, 2 the output). The same node, built with less
    work: this is on every unary op's path."""
    if FORWARD_AD[0]:
        return RECORD_DUAL[0](node_cls, (t,), (out,), params, _record_any)
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
    if t._bf16:
        node.extras_().bf16 = (True,)
    save = node_cls.save1
    if save == 0:
        node.saved = node.sources = node.versions = _NOTHING
        node.epoch = 0
    else:
        if save == 2:
            src = _new(SavedOutput)
            src._data = out._data
            src._version = out._version
            src._output_nr = 0
        else:
            src = t
        node.sources = (src,)
        node.versions = (src._version[0],)
        node.saved = (src._data,)
        node.epoch = INPLACE_EPOCH[0]
    node.params = params
    if ANOMALY_USED[0] and STATE.anomaly_enabled:
        node.extras_().trace = traceback.format_stack()[:-2]
    out._grad_fn = node
    out._requires_grad = True
    return node
