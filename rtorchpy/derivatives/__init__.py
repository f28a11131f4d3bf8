"""The derivative table: one row per backward node, named as libtorch names it.

A row is a formula ``(F, g, needs, *saved, *params) -> gradient per input``, registered with
``@row(name, inputs=..., saves=...)`` (``rtorchpy/autograd/rows.py``), where
* ``F`` is the op namespace the formula computes with: NumPy on the fast path
  (``numerics/formula_arrays.py``), recorded rtorchpy ops under ``create_graph``
  (``ops/formula_tensors.py``), so every formula is itself differentiable: higher-order
  gradients come for free;
* ``g`` is the gradient of the output (a list of them for multi-output nodes; missing ones are
  zero-filled by the engine);
* ``needs[i]`` says whether input i wants a gradient: rows skip work nobody asked for;
* ``saved`` are the values the row names in ``saves``: inputs by the names in ``inputs``
  (``("self",)`` unless given), ``"result"`` for the output, ``"*inputs"`` for all inputs. The
  formula's parameters after ``needs`` begin with exactly those names (checked when the row is
  registered), and the forward records only inputs, outputs and ``params`` (its plain values,
  the formula's remaining parameters): which values are saved is declared once, here.
A row returns one entry per input (``None`` = no gradient). Rows never undo broadcasting or cast
dtypes: the engine sums and casts every gradient back to its input (see ``autograd/engine.py``).

A piecewise row selects (``F.keep_where`` / ``F.zero_where``, libtorch's ``where`` and
``masked_fill``) and never multiplies by a 0/1 mask: inf * 0 is NaN, so a mask would let an inf
or NaN from the branch not taken leak through (``relu(x).sqrt()`` at x < 0). Under create_graph
the selection is a recorded ``where``, whose own backward selects again, so the same holds at
second order.

The forwards that record these nodes live in ``rtorchpy/ops/``; tests and the docs' table of
formulas are generated from ``ROWS``. The table spans ``elementwise.py`` (arithmetic,
elementwise, reductions) and ``shape.py`` (linear algebra, shapes, indexing, losses); autograd
keeps one row of its own (``torch::autograd::CopyBackwards``, ``autograd/gradients.py``).
"""
from ..autograd.rows import NODES, ROWS, row  # noqa: F401
from . import elementwise, linalg, matops, nn, rnn, shape, special  # noqa: F401  (register their rows)
from . import nn_more  # noqa: F401
