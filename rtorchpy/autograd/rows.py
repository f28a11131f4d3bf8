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


def row(name, fresh=False, inputs=("self",), saves=None, outputs=("result",)):
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
    plan = None if saves is None else _save_plan(name, inputs, outputs, saves)

    def register(formula):
        if saves is not None:
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
