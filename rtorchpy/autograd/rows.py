"""The registry of derivative-table rows: ``row()`` turns a formula into a node class.

The table itself (the formulas) is ``rtorchpy/derivatives/``; its docstring says what a row is.
This module is the mechanism: node classes made from formulas, the names a row saves turned into
a plan that ``record`` follows, and the check that a formula's parameters agree with the names.
"""
from __future__ import annotations

import inspect

from .graph import FormulaNode

NODES = {}   # libtorch node name -> Node class
ROWS = []    # (name, formula) in table order, for tests and docs


def formula_node_class(name, formula, fresh=False, save_plan=()):
    return type(name.replace("::", "_"), (FormulaNode,), {
        "__slots__": (), "name": name, "formula": staticmethod(formula), "fresh": fresh,
        "save_plan": save_plan, "save1": _save1(save_plan), "save2": _save2(save_plan)})


def _save1(plan):
    """How ``record1`` saves for this plan: 0 nothing, 1 the input, 2 the output, -1 it can't."""
    if not plan:
        return 0
    if len(plan) > 1:
        return -1
    kind, i = plan[0]
    return 2 if kind == 1 else 1


def _save2(plan):
    """Which inputs ``record2`` saves for this plan (positions), or None when it saves an
    output (``record`` then takes the general path)."""
    out = []
    for kind, i in plan:
        if kind == 1:
            return None
        out.extend((0, 1) if kind == 2 else (i,))
    return tuple(out)


def row(name, fresh=False, inputs=("self",), saves=(), outputs=("result",)):
    """Register ``formula`` as the row for node ``name``. ``fresh=True`` promises that on arrays
    every gradient it returns is a new array nobody else holds (a product, not ``g`` itself or a
    view): the engine may then add later gradients into it in place, or hand it to ``.grad``
    without a copy.

    ``saves`` names the values the formula needs from the forward: names from ``inputs`` (the
    node's inputs, in the order the forward records them), from ``outputs`` (``"result"`` for a
    one-output op), or ``"*inputs"`` for all inputs. The formula's parameters after ``needs``
    must begin with those names, in that order; the rest are the forward's plain ``params``.
    The forward then records only inputs, outputs and params: what is saved is the row's
    business."""
    plan = _save_plan(name, inputs, outputs, saves)

    def register(formula):
        if name in NODES:  # two ops must not share a node class by accident
            raise ValueError(f"row {name} is registered twice")
        _check_signature(name, formula, saves)
        NODES[name] = formula_node_class(name, formula, fresh, plan)
        ROWS.append((name, formula))
        return formula
    return register


def _save_plan(name, inputs, outputs, saves):
    plan = []
    for s in saves:
        if s == "*inputs":
            plan.append((2, None))
        elif s in inputs:
            plan.append((0, inputs.index(s)))
        elif s in outputs:
            plan.append((1, outputs.index(s)))
        else:
            raise ValueError(f"row {name}: saves {s!r}, which is neither an input {inputs} nor "
                             f"an output {outputs}")
    return tuple(plan)


def _check_signature(name, formula, saves):
    """The formula receives saved values by position: make sure its parameter names say the
    same thing as the row's declaration (a formula that swapped two would be silently wrong)."""
    params = list(inspect.signature(formula).parameters.values())[3:]
    for s, p in zip(saves, params):
        if s == "*inputs":
            if p.kind is not inspect.Parameter.VAR_POSITIONAL:
                raise ValueError(f"row {name}: '*inputs' needs a *args parameter, got {p.name}")
            return
        if p.name != s:
            raise ValueError(f"row {name}: saves {list(saves)} but the formula's parameters "
                             f"are {[q.name for q in params]}")
    if len(params) < len(saves):
        raise ValueError(f"row {name}: saves {list(saves)} but the formula's parameters are "
                         f"{[q.name for q in params]}")
