"""Forward-mode AD: dual tensors carry a tangent, and every recorded op computes its output's.

A *dual level* (``with autograd_dual_level():``) is open while tangents exist. ``make_dual(x,
t)`` returns a view of ``x`` carrying the tangent ``t``; ops on dual tensors compute their
results as usual and, through the recording path (``record.RECORD_DUAL``), the results'
tangents: the Jacobian of the op times the inputs' tangents. ``unpack_dual(y)`` reads them.
Closing the level forgets every tangent made in it (a tangent is stored with its level, and a
stale level reads as none). As in PyTorch, one level can be open at a time.

Where the rule for a row comes from (``tangent_rule_kind``), fastest first:

* an explicit rule registered next to the row with ``@tangent(name)`` (linear algebra, shape
  ops, reductions: ``rule(F, tangents, inputs, outputs, params)``);
* ``diagonal(name, ...)``: an elementwise op, whose Jacobian is diagonal (after broadcasting),
  so the reverse formula applied to the tangent instead of the output gradient *is* the tangent
  rule (``J^T t = J t`` for a diagonal ``J``);
* every other row: the transpose trick. The reverse formula ``u -> J^T u`` is linear in ``u``;
  the gradient of ``<J^T u, t>`` with respect to ``u`` is ``J t``. It costs a small reverse pass
  of the formula per op, but needs nothing beyond the row, so every row of the derivative table
  has a forward rule.

Rules compute with the recorded formula namespace (``FORMULA_OPS[1]``) and with forward AD off,
so a tangent is itself differentiable (reverse-over-forward), and backward's formulas, run with
``create_graph=True`` on tensors that carry tangents, propagate them (forward-over-reverse: a
Hessian-vector product in one pass).
"""
from __future__ import annotations

import itertools
from collections import namedtuple

import numpy as np

from ..tensor import Tensor
from .api import autograd_grad
from .grad_mode import DUAL_OPEN, FORWARD_AD, STATE
from .graph import FORMULA_OPS, SavedOutput
from .record import RECORD_DUAL, edge_of

__all__ = ["autograd_dual_level", "autograd_make_dual", "autograd_unpack_dual",
           "autograd_enter_dual_level", "autograd_exit_dual_level"]

TANGENT_RULES = {}   # row name -> rule(F, tangents, inputs, outputs, params)
BATCHED_RULES = set()  # explicit rules that accept tangents with a leading batch dimension
DIAGONAL = set()     # row names whose formula, applied to a tangent, is the tangent rule
# Batched tangents (``batched_dual_level(n)``, what jacfwd uses): every tangent has a leading
# dimension of n, one tangent per basis direction, pushed through the function in one pass.
# BATCH[0] is n, or 0 for plain tangents.
BATCH = [0]

_levels = itertools.count(1)
_OPEN = [0]          # the open level (FORWARD_AD[0] is 0 also while a rule runs)

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def tangent(*names, batched=False):
    """Register the decorated function as the explicit tangent rule of rows ``names``.
    ``batched=True``: the rule also accepts batched tangents (a leading dimension of
    ``BATCH[0]`` before the input's shape); other rules run once per direction then."""
    def register(rule):
        for n in names:
            TANGENT_RULES[n] = rule
            if batched:
                BATCHED_RULES.add(n)
        return rule
    return register


def diagonal(*names):
    """Declare rows whose Jacobian is diagonal (elementwise ops, broadcasting allowed)."""
    DIAGONAL.update(names)


def tangent_rule_kind(name):
    """'explicit', 'diagonal' or 'transpose': where row ``name``'s tangent rule comes from."""
    if name in TANGENT_RULES:
        return "explicit"
    return "diagonal" if name in DIAGONAL else "transpose"


# ------------------------------------------------------------------------------ levels

def autograd_enter_dual_level():
    """Open a dual level and return its number (prefer ``with autograd_dual_level():``)."""
    if _OPEN[0]:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = next(_levels)
    _OPEN[0] = FORWARD_AD[0] = DUAL_OPEN[0] = level
    if not STATE.grad_enabled:  # opened inside no_grad: tangents still flow
        STATE.grad_enabled, STATE.fw_only = True, True
    return level


def autograd_exit_dual_level(level=None):
    """Close the open dual level: every tangent made in it is forgotten."""
    if not _OPEN[0] or (level is not None and level != _OPEN[0]):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _OPEN[0] = FORWARD_AD[0] = DUAL_OPEN[0] = 0
    if STATE.fw_only:  # grad mode is off again, plainly
        STATE.grad_enabled, STATE.fw_only = False, False


class autograd_dual_level:  # noqa: N801  (a context manager named as R torch-style functions)
    """``with autograd_dual_level():`` opens a dual level for the block (forward_ad.dual_level)."""

    def __enter__(self):
        self.level = autograd_enter_dual_level()
        return self.level

    def __exit__(self, *exc):
        autograd_exit_dual_level(self.level)
        return False


class batched_dual_level:  # noqa: N801
    """A dual level whose tangents carry a leading batch dimension of ``n`` (internal: what
    ``autograd_jacfwd`` and forward-mode Jacobians use to push n directions at once)."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.level = autograd_enter_dual_level()
        BATCH[0] = self.n
        return self.level

    def __exit__(self, *exc):
        BATCH[0] = 0
        autograd_exit_dual_level(self.level)
        return False


def _tangent_of(t):
    fw = t._fw
    if fw is None or fw[0] != _OPEN[0] or not _OPEN[0]:
        return None
    return fw[1]


def autograd_make_dual(tensor, tangent, level=None):
    """A view of ``tensor`` (its history kept) carrying ``tangent`` as forward gradient."""
    if not _OPEN[0]:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        what = "tensor" if not isinstance(tensor, Tensor) else "tangent"
        got = tensor if what == "tensor" else tangent
        raise TypeError(f"make_dual(): argument '{what}' must be a Tensor, not "
                        f"{type(got).__name__}")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    want = ((BATCH[0],) if BATCH[0] else ()) + tuple(tensor.shape)
    if tuple(tangent.shape) != want:
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if tangent.dtype != tensor.dtype:
        raise RuntimeError(f"Expected tangent to have the same dtype as the primal "
                           f"({tensor.dtype}), got {tangent.dtype}")
    level = _OPEN[0]
    FORWARD_AD[0] = 0
    try:
        dual = tensor.expand(*tensor.shape)  # a view: the primal's history (if any) flows through
    finally:
        FORWARD_AD[0] = level
    dual._fw = (level, tangent)
    return dual


def autograd_unpack_dual(tensor, level=None):
    """``(primal, tangent)`` of a dual tensor: a view of it without tangent, and its tangent
    (None when it has none at the open level)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual(): argument 'tensor' must be a Tensor, not "
                        f"{type(tensor).__name__}")
    t = _tangent_of(tensor)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    level = FORWARD_AD[0]
    FORWARD_AD[0] = 0
    try:
        primal = tensor.expand(*tensor.shape)
    finally:
        FORWARD_AD[0] = level
    return UnpackedDualTensor(primal, t)


# ------------------------------------------------------------------------------ recording

def record_dual(node_cls, inputs, outputs, params, build):
    """Record as usual (a node only when some input needs a gradient), then give the outputs
    their tangents. Runs with forward AD off, so nothing below comes back here."""
    level = FORWARD_AD[0]
    FORWARD_AD[0] = 0
    mode = STATE.grad_enabled, STATE.fw_only
    if mode[1]:  # grad mode is off (no_grad under a dual level): tangents only, no graph
        STATE.grad_enabled, STATE.fw_only = False, False
    try:
        node = None
        if STATE.grad_enabled and any(edge_of(t) is not None for t in inputs):
            node = build(node_cls, inputs, outputs, params)
        tans = [_tangent_of(t) for t in inputs]
        if any(t is not None for t in tans):
            outs = _output_tangents(node_cls, inputs, outputs, params, tans)
            for o, ot in zip(outputs, outs):
                if ot is not None and o._data.dtype.kind in "fc":
                    ot = _fit(ot, o)
                    if ot._data.dtype != o._data.dtype:
                        ot = ot.to(o.dtype)
                    o._fw = (level, ot)
            if node is not None and node.sources:
                for src in node.sources:  # backward's formulas see saved outputs' tangents
                    if type(src) is SavedOutput:
                        src._fw = outputs[src._output_nr]._fw
    finally:
        FORWARD_AD[0] = level
        STATE.grad_enabled, STATE.fw_only = mode
    return node


def _fit(t, o):
    """Tangent ``t`` broadcast to output ``o``'s shape (after the batch dimension, if any)."""
    n = BATCH[0]
    want = ((n,) if n else ()) + tuple(o.shape)
    if tuple(t.shape) == want:
        return t
    if n:  # line the directions up first: (n, *s) -> (n, 1, ..., 1, *s)
        inner = tuple(t.shape[1:]) if t.ndim and t.shape[0] == n and t.ndim > 0 else None
        if inner is None or len(inner) > len(o.shape):
            raise RuntimeError(f"forward AD: a batched tangent of shape {list(t.shape)} does "
                               f"not fit an output of shape {list(o.shape)}")
        t = t.reshape(n, *((1,) * (len(o.shape) - len(inner)) + inner))
    return t.expand(*want)


def _pad(t, rank):
    """A batched tangent (n, *s) as (n, 1, ..., 1, *s) of rank ``rank`` + 1: broadcasting then
    lines its directions up against unbatched operands of rank ``rank``."""
    extra = rank - (t.ndim - 1)
    return t.reshape(t.shape[0], *((1,) * extra + tuple(t.shape[1:]))) if extra > 0 else t


def _saved(node_cls, inputs, outputs):
    """The values ``node_cls``'s formula receives, as tensors (per the row's save plan)."""
    vals = []
    for kind, i in node_cls.save_plan:
        if kind == 0:
            vals.append(inputs[i])
        elif kind == 1:
            vals.append(outputs[i])
        else:
            vals.extend(inputs)
    return vals


def _output_tangents(node_cls, inputs, outputs, params, tans):
    name = node_cls.name
    if BATCH[0] and name not in BATCHED_RULES and name not in DIAGONAL:
        return _per_direction(node_cls, inputs, outputs, params, tans)
    F = FORMULA_OPS[1]
    rule = TANGENT_RULES.get(name)
    if rule is not None:
        out = rule(F, tans, inputs, outputs, params)
        return out if isinstance(out, (tuple, list)) else (out,)
    saved = _saved(node_cls, inputs, outputs)
    if name in DIAGONAL:
        # a row's formula conjugates complex saved values (the gradient convention); the
        # tangent needs the plain derivative, so complex values go in conjugated (a real
        # result's tangent then keeps its real part when cast)
        saved = [F.conj(v) if isinstance(v, Tensor) and v._data.dtype.kind == "c" else v
                 for v in saved]
        total = None
        rank = max(o.ndim for o in outputs)
        for i, t in enumerate(tans):
            if t is None:
                continue
            if BATCH[0]:
                t = _pad(t, rank)
            needs = tuple(True if j == i else None for j in range(len(tans)))
            res = node_cls.formula(F, t, needs, *saved, *params)
            part = res[i] if type(res) is tuple else res
            if part is not None:
                part = part if isinstance(part, Tensor) else Tensor._make(np.asarray(part))
                total = part if total is None else total + part
        return (total,)
    return _transpose_rule(node_cls, inputs, outputs, params, tans, saved)


def _per_direction(node_cls, inputs, outputs, params, tans):
    """A rule that knows no batch dimension, run once per direction and stacked."""
    n = BATCH[0]
    BATCH[0] = 0
    try:
        per = [_output_tangents(node_cls, inputs, outputs, params,
                                [None if t is None else t[k] for t in tans]) for k in range(n)]
    finally:
        BATCH[0] = n
    F = FORMULA_OPS[1]
    out = []
    for j, o in enumerate(outputs):
        col = [p[j] for p in per]
        if all(c is None for c in col):
            out.append(None)
            continue
        col = [c if c is not None else F.zeros_like(o) for c in col]
        out.append(F.stack([c.expand(*o.shape) if tuple(c.shape) != tuple(o.shape) else c
                            for c in col], 0))
    return out


def _transpose_rule(node_cls, inputs, outputs, params, tans, saved):
    """``J t`` as the gradient of ``<J^T u, t>`` with respect to ``u`` (the formula is linear
    in ``u``)."""
    F = FORMULA_OPS[1]
    differentiable = [o._data.dtype.kind in "fc" for o in outputs]
    us = []
    for o, d in zip(outputs, differentiable):
        u = Tensor._make(np.zeros(o._data.shape, dtype=o._data.dtype))
        if d:
            u._requires_grad = True
        us.append(u)
    g = us[0] if node_cls.out_meta is None and len(outputs) == 1 else list(us)
    needs = tuple(True if t is not None else None for t in tans)
    keep = any(t is not None and t._requires_grad for t in tans) or \
        any(t._requires_grad for t in inputs)
    prev = STATE.grad_enabled
    STATE.grad_enabled = True
    try:
        res = node_cls.formula(F, g, needs, *saved, *params)
        res = res if type(res) is tuple else (res,)
        h = None
        for r, t in zip(res, tans):
            if r is None or t is None or not isinstance(r, Tensor) or not r._requires_grad:
                continue
            term = (r * t).sum()
            h = term if h is None else h + term
        wanted = [u for u, d in zip(us, differentiable) if d]
        if h is None:  # the outputs do not depend on the dual inputs: a zero tangent
            grads = iter([None] * len(wanted))
        else:
            grads = iter(autograd_grad([h], wanted, allow_unused=True, create_graph=keep))
    finally:
        STATE.grad_enabled = prev
    out = []
    for o, d in zip(outputs, differentiable):
        gk = next(grads) if d else None
        if d and gk is None:
            gk = Tensor._make(np.zeros(o._data.shape, dtype=o._data.dtype))
        out.append(gk)
    return out


def custom_tangents(name, jvp, ctx, values, outs, level):
    """Set the tangents of a custom function's outputs ``outs`` from ``jvp(ctx, *tangents)``
    (one tangent per forward argument, None where it has none), with forward AD off; batched
    tangents go through ``jvp`` one direction at a time."""
    tans = [v._fw[1] if isinstance(v, Tensor) and v._fw is not None and v._fw[0] == level
            else None for v in values]
    if all(t is None for t in tans):
        return
    if jvp is None:
        raise RuntimeError(f"{name}: you must implement the jvp function for a custom autograd "
                           "function to use it with forward mode AD (give autograd_function a "
                           "jvp).")
    n = BATCH[0]
    FORWARD_AD[0] = 0
    BATCH[0] = 0
    try:
        runs = [_jvp_once(name, jvp, ctx, [None if t is None else t[k] for t in tans], outs)
                for k in range(n)] if n else [_jvp_once(name, jvp, ctx, tans, outs)]
    finally:
        FORWARD_AD[0] = level
        BATCH[0] = n
    for j, o in enumerate(outs):
        col = [r[j] for r in runs]
        if not isinstance(o, Tensor) or all(c is None for c in col):
            continue
        col = [c if c is not None else Tensor._make(np.zeros(o._data.shape, o._data.dtype))
               for c in col]
        o._fw = (level, FORMULA_OPS[1].stack(col, 0) if n else col[0])


def _jvp_once(name, jvp, ctx, tans, outs):
    res = jvp(ctx, *tans)
    res = list(res.values()) if isinstance(res, dict) else \
        list(res) if isinstance(res, (tuple, list)) else [res]
    if len(res) != len(outs):
        raise RuntimeError(f"{name}: jvp returned {len(res)} tangents for {len(outs)} outputs")
    out = []
    for o, t in zip(outs, res):
        if t is not None and isinstance(o, Tensor):
            if not isinstance(t, Tensor):
                t = Tensor(t, dtype=o.dtype)
            if tuple(t.shape) != tuple(o.shape):
                raise RuntimeError(f"{name}: jvp returned a tangent of shape {list(t.shape)} "
                                   f"for an output of shape {list(o.shape)}")
        out.append(t if isinstance(o, Tensor) else None)
    return out


RECORD_DUAL[0] = record_dual
