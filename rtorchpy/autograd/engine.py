"""The backward pass: iterative, no recursion (a 10^6-deep graph works).

Nodes run in decreasing creation order (``Node.seq``, a max-heap): a node is always created after
the nodes its edges point to, so by the time it is popped every consumer that could send it a
gradient has run and its gradient is complete. This needs no separate pass to count
dependencies; only nodes that actually receive a gradient are ever visited. For each node: run
its tensor hooks, apply its formula, and hand each input gradient to the next node — summed and
cast back to that input's shape and dtype (the one place broadcasting is undone).
Gradients are ndarrays on the fast path and Tensors under ``create_graph`` (then the formulas'
own ops are recorded, which gives higher-order derivatives).

What keeps the per-node overhead small (it matters for graphs of many tiny ops):
* a node newer than every waiting node runs next without going through the heap or the buffer
  dict, so a chain never touches either (nor does a single root); a chain of formula nodes with
  one input that needs a gradient (``x + b`` with ``b`` constant counts) runs in an inner loop
  that hands each gradient straight to the next formula;
* formula nodes without hooks run inline, and skip the per-tensor version checks while no
  in-place op has happened since they were recorded (``graph.INPLACE_EPOCH``);
* gradients the engine owns — sums it made, and the new arrays of rows declared ``fresh`` —
  take later gradients in place and become a leaf's ``.grad`` without a copy (only for large
  arrays, where allocation costs page faults and a pass over memory).

The file reads top to bottom: ``execute`` (the algorithm), then the helpers it calls, in order.
"""
from __future__ import annotations

import heapq

import numpy as np

from ..numerics.bfloat16 import on_grid, to_grid
from ..numerics.broadcast import sum_to_shape
from ..numerics.formula_arrays import ARRAY_OPS
from ..numerics.fpquiet import quiet_fp
from ..tensor import Tensor
from . import graph
from .grad_mode import STATE
from .gradients import accumulate_into_leaf, apply_hooks, as_bfloat16, copy_backwards
from .graph import AccumulateGrad

# gradients of at least this many elements that the engine owns are added into in place; below
# it a new array is as cheap as the bookkeeping
_OWN_ABOVE = 4096
_ANOMALY_NAN = "Function '{name}' returned nan values in its {i}th output."


@quiet_fp  # (NumPy's inf/nan warnings off while formulas run: numerics/fpquiet.py)
def execute(roots, retain_graph, create_graph, capture=None):
    """Run backward from ``roots`` = [(node, output_nr, grad)].

    Without ``capture``, gradients flow into the leaves' ``.grad``. With ``capture`` — a map
    (node, output_nr) -> slot index — the gradient arriving at each point (after its tensor hooks)
    is returned in its slot, no ``.grad`` is touched, and only nodes leading to a capture point
    run (``autograd_grad``, ``backward(inputs=...)``).
    """
    needed = None
    targets = ()
    if capture is not None:
        targets = {key[0] for key in capture}
        needed = _needed_nodes(_reachable([r[0] for r in roots]), targets)
    captured = [None] * (max(capture.values()) + 1 if capture else 0)
    buffers = {}
    owned = {}  # id -> array: buffer sums the engine allocated, nobody else holds
    heap = []
    # ``node`` is the node to run next when it is known without the heap, its gradients in
    # ``grads`` (not in ``buffers``): a chain never touches the heap or the dict; nor does the
    # usual single root (``loss.backward()``)
    node = grads = None
    if len(roots) == 1:
        node, nr, g = roots[0]
        grads = [None] * node.n_outputs
        grads[nr] = g
    else:
        for root, nr, g in roots:
            if root not in buffers:
                heapq.heappush(heap, (-root.seq, root))
            _add_to_buffer(buffers, root, nr, g)
    as_tensors = bool(create_graph)
    # the fast path: formulas on arrays, straight into .grad (no capture, no graph building)
    plain = capture is None and not as_tensors
    epoch = graph.INPLACE_EPOCH
    previous_mode = STATE.grad_enabled, STATE.fw_only
    STATE.grad_enabled, STATE.fw_only = as_tensors, False
    pop, push = heapq.heappop, heapq.heappush
    try:
        while True:
            if node is None:
                if not heap:
                    break
                node = pop(heap)[1]
                grads = buffers.pop(node)
            steal = _disown(owned, grads) if owned else False
            formula = node.formula
            if plain and formula is not None and node.extras is None and node.out_meta is None:
                # FormulaNode.apply written out: this runs once per node of every backward.
                # While a one-input node's input comes from a node that can run at once (newest
                # of all waiting, no other gradient pending, no hooks), the gradient goes
                # straight into it: a chain of such nodes runs in this inner loop.
                g = grads[0]
                grads = None  # a large gradient is freed as soon as its node has used it
                while True:
                    # the common argument lists are passed without * (a call with * is not
                    # specialized by the interpreter: ~0.2 µs more per node)
                    saved, params = node.saved, node.params
                    if saved:
                        if node.epoch != epoch[0]:
                            node.check_versions()
                        if params:
                            outs = formula(ARRAY_OPS, g, node.edges, *saved, *params)
                        elif len(saved) == 1:
                            outs = formula(ARRAY_OPS, g, node.edges, saved[0])
                        else:
                            outs = formula(ARRAY_OPS, g, node.edges, *saved)
                        if not retain_graph:
                            node.saved = node.sources = None
                    elif saved is None:
                        raise RuntimeError(graph.FREED_MESSAGE)
                    elif not params:
                        outs = formula(ARRAY_OPS, g, node.edges)
                    elif len(params) == 1:
                        outs = formula(ARRAY_OPS, g, node.edges, params[0])
                    else:
                        outs = formula(ARRAY_OPS, g, node.edges, *params)
                    if type(outs) is tuple:
                        # a two-input node with one input that needs no gradient (x + b, b a
                        # constant) passes on one gradient too: the chain goes on through it
                        edges = node.edges
                        if len(edges) != 2 or (edges[0] is None) is (edges[1] is None):
                            break
                        k = 0 if edges[1] is None else 1
                        g, child = outs[k], edges[k]
                    else:
                        k, g, child = 0, outs, node.edges[0]
                    if child is None or g is None:
                        break
                    # a child with one output (checked below) is fed by output 0: no edge_nrs
                    formula = child.formula
                    if formula is None or child.extras is not None or \
                            child.out_meta is not None or (heap and -heap[0][0] > child.seq) or \
                            (buffers and child in buffers):
                        break
                    shape, dtype = node.in_meta[k]
                    if g.shape != shape:
                        g = sum_to_shape(g, shape, False)
                    if g.dtype is not dtype and g.dtype != dtype:
                        g = g.astype(dtype)
                    node = child
                if type(outs) is not tuple:
                    outs = (outs,)
            elif plain and type(node) is AccumulateGrad:
                accumulate_into_leaf(node.variable, grads[0], False, steal=steal)
                node = grads = None
                continue
            elif needed is not None and node not in needed:
                if node in targets:
                    _capture(node, grads, as_tensors, capture, captured)
                node = grads = None
                continue
            else:
                outs = _run_node(node, grads, as_tensors, retain_graph, capture, captured,
                                 targets)
            edges = zip(outs, node.edges, node.edge_nrs, node.in_meta)
            # a fresh row's gradients (and what summing or casting makes of them) are held by
            # nobody else: the engine may add into them in place or give them to a leaf
            fresh = plain and node.fresh
            # bfloat16 inputs (see _bf16_grads): a sum of their gradients is rounded too
            bf16 = node.extras.bf16 if node.extras is not None else None
            k = -1
            node = grads = None
            for g, child, nr, (shape, dtype) in edges:
                k += 1
                if g is None or child is None:
                    continue
                if g.shape != shape:
                    g = sum_to_shape(g, shape, as_tensors)
                if as_tensors:
                    if g._data.dtype != dtype:
                        g = g.to(dtype)
                elif g.dtype is not dtype and g.dtype != dtype:  # identity: the cheap check
                    g = g.astype(dtype)
                if fresh and g.size > _OWN_ABOVE and g.flags.writeable:
                    owned[id(g)] = g
                buf = grads if child is node else buffers.get(child)
                if buf is not None:
                    old = buf[nr]
                    buf[nr] = g if old is None else _accumulate(old, g, as_tensors, owned)
                    if bf16 is not None and old is not None and bf16[k]:
                        buf[nr] = _bf16_grads(buf[nr], (True,), as_tensors)[0]
                    continue
                if child.out_meta is None:
                    buf = [g]
                else:
                    buf = [None] * len(child.out_meta)
                    buf[nr] = g
                # a child newer than everything waiting runs next, without the heap
                if node is None:
                    if not heap or child.seq > -heap[0][0]:
                        node, grads = child, buf
                        continue
                elif child.seq > node.seq:
                    buffers[node] = grads
                    push(heap, (-node.seq, node))
                    node, grads = child, buf
                    continue
                buffers[child] = buf
                push(heap, (-child.seq, child))
            # let consumed gradients be freed before the next node runs: every local that may
            # still point at one (the zip too: it keeps the last tuple it made)
            outs = g = edges = buf = old = None
    finally:
        STATE.grad_enabled, STATE.fw_only = previous_mode
    return captured



# -- what execute calls, in the order it calls it ----------------------------------------------

def _disown(owned, grads):
    """Forget the engine's ownership of ``grads``; True if the first one was owned."""
    first = grads[0]
    steal = first is not None and owned.pop(id(first), None) is first
    for g in grads[1:]:
        if g is not None:
            owned.pop(id(g), None)
    return steal


def _reachable(roots):
    """Every node reachable from ``roots`` (iterative DFS)."""
    seen = set(roots)
    stack = list(seen)
    while stack:
        for child in stack.pop().edges:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _needed_nodes(seen, targets):
    """Nodes from which some target can be reached through at least one edge: only those run
    for autograd_grad. A target itself is not run unless it also leads to another target (its
    gradient is captured, its graph left intact)."""
    parents = {}
    for node in seen:
        for child in node.edges:
            if child is not None:
                parents.setdefault(child, []).append(node)
    needed = set()
    stack = list(targets)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in needed:
                needed.add(p)
                stack.append(p)
    return needed


def _accumulate(old, g, as_tensors, owned):
    """``old + g``. A sum the engine allocated, or a gradient a row returned fresh (both in
    ``owned``: id -> array, nobody else holds them), takes the other addend in place: no new
    allocation (and page faults) per addition for a large gradient with many consumers."""
    if as_tensors:
        return old + g
    if owned.get(id(old)) is old:
        np.add(old, g, out=old)
        owned.pop(id(g), None)  # g is consumed: don't keep it alive
        return old
    if owned.get(id(g)) is g:
        np.add(g, old, out=g)
        return g
    new = old + g
    if type(new) is not np.ndarray:  # 0-d: NumPy returns a scalar
        new = np.asarray(new)
    owned[id(new)] = new
    return new


def _capture(node, grads, as_tensors, capture, captured):
    """Store the gradients arriving at capture points, after the tensor hooks they would meet
    on their way into ``.grad`` (a leaf's hooks, a non-leaf's hooks)."""
    extras = node.extras
    if extras is not None and (extras.pre_hooks or extras.retained):
        grads = _node_pre_hooks(node, extras, grads, as_tensors)
    if type(node) is AccumulateGrad and node.variable._hooks and grads[0] is not None:
        grads = [apply_hooks(node.variable._hooks, grads[0], as_tensors)]
    for nr in range(node.n_outputs):
        slot = capture.get((node, nr))
        if slot is not None:
            captured[slot] = grads[nr]
    return grads


def _run_node(node, grads, as_tensors, retain_graph, capture, captured, targets):
    extras = node.extras
    if node in targets:
        grads = _capture(node, grads, as_tensors, capture, captured)
    elif extras is not None and (extras.pre_hooks or extras.retained):
        grads = _node_pre_hooks(node, extras, grads, as_tensors)
    if node.out_meta is not None:
        grads = _fill_missing(node, grads, as_tensors)
    if type(node) is AccumulateGrad:  # a sink: the gradient lands in the leaf's .grad
        accumulate_into_leaf(node.variable, grads[0], as_tensors)
        return ()
    trace = extras.trace if extras is not None else None
    try:
        if extras is not None and extras.bf16 is not None and not as_tensors and \
                node.name in BF16_STEPWISE:
            outs = _apply_bf16(node, grads)
        else:
            outs = node.apply(grads, as_tensors)
    except Exception as exc:
        if trace is not None:
            _add_anomaly_note(exc, node)
        raise
    if trace is not None:
        _check_nan(node, outs)
    if not retain_graph:
        node.release()
    if extras is not None and extras.bf16 is not None:
        outs = _bf16_grads(outs, extras.bf16, as_tensors)
    return outs


# Backward nodes whose libtorch formula for bfloat16 is several ops, each rounded to bfloat16
# (sin's is grad * cos(self)): on bfloat16 inputs they run on tensors, op by op (_apply_bf16).
# The others are one fused kernel in libtorch (tanh_backward, ...) or one op: their array
# formula, rounded once, gives libtorch's values. (Checked against PyTorch 2.13.)
BF16_STEPWISE = frozenset({
    "SinBackward0", "CosBackward0", "TanBackward0", "RsqrtBackward0", "ReciprocalBackward0",
    "AtanBackward0", "Log2Backward0", "Log10Backward0", "Log1PBackward0", "Expm1Backward0",
    "ErfBackward0", "AtanhBackward0", "DivBackward0"})


def _apply_bf16(node, grads):
    """Run a node with bfloat16 inputs on tensors (grad mode is off here), so that its formula's
    ops round to bfloat16 one by one as libtorch's bfloat16 backward ops do; gradients on the
    bfloat16 grid are taken as bfloat16."""
    tensors = []
    for g in grads:
        if g is not None:
            g = Tensor._make(g if type(g) is np.ndarray else np.asarray(g))
            if g._data.dtype == np.float32 and on_grid(g._data):
                g._bf16 = True
        tensors.append(g)
    outs = node.apply(tensors, True)
    return tuple([o._data if isinstance(o, Tensor) else o for o in outs])


def _bf16_grads(outs, flags, as_tensors):
    """The node's gradients with those for bfloat16 inputs rounded to bfloat16 (libtorch casts
    each gradient to its input's dtype)."""
    if type(outs) is not tuple:
        outs = (outs,)
    out = []
    for g, bf16 in zip(outs, flags):
        if bf16 and g is not None:
            if as_tensors:
                g = as_bfloat16(g)
            elif g.dtype.kind == "f":
                g = to_grid(g)
        out.append(g)
    return tuple(out) + outs[len(out):]


def _node_pre_hooks(node, extras, grads, as_tensors):
    grads = list(grads)
    for nr in range(node.n_outputs):
        g = grads[nr]
        if g is None:
            continue
        hooks = extras.pre_hooks.get(nr) if extras.pre_hooks else None
        if hooks:
            g = grads[nr] = apply_hooks(hooks, g, as_tensors)
        ref = extras.retained.get(nr) if extras.retained else None
        t = ref() if ref is not None else None
        if t is not None:
            if as_tensors:  # a copy: the caller's gradient tensor must not become .grad
                t._grad = copy_backwards(g) if t._grad is None else t._grad + g
            else:
                t._grad = Tensor._make(np.array(g, copy=True)) if t._grad is None else \
                    Tensor._make(np.asarray(t._grad._data + g))
    return grads


def _fill_missing(node, grads, as_tensors):
    """Outputs nobody used get a zero gradient, so formulas always see one per output. A node
    whose ``out_meta`` entry is None fills (or not) by itself: custom functions must tell "no
    gradient" from a zero one (``set_materialize_grads``)."""
    if all(g is not None for g in grads):
        return grads
    out = []
    for g, meta in zip(grads, node.out_meta):
        if g is None and meta is not None:
            z = np.zeros(meta[0], dtype=meta[1])
            g = Tensor._make(z) if as_tensors else z
        out.append(g)
    return out


def _add_to_buffer(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node.n_outputs
    old = buf[nr]
    buf[nr] = g if old is None else old + g


def _check_nan(node, outs):
    for i, g in enumerate(outs):
        if g is None:
            continue
        data = getattr(g, "_data", g)
        if data.dtype.kind == "f" and np.isnan(data).any():
            err = RuntimeError(_ANOMALY_NAN.format(name=node.name, i=i))
            _add_anomaly_note(err, node)
            raise err


def _add_anomaly_note(exc, node):
    note = (f"Error detected in {node.name}. Traceback of forward call that caused the error:\n"
            + "".join(node.extras.trace))
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:  # Python < 3.11
        exc.args = (f"{exc.args[0] if exc.args else ''}\n{note}",) + tuple(exc.args[1:])


