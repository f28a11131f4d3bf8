"""The row registry refuses declarations that would make a formula receive the wrong values."""
from __future__ import annotations

import pytest

from rtorchpy.autograd.rows import NODES, ROWS, row


@pytest.fixture
def scratch_rows():
    before_nodes, before_rows = dict(NODES), list(ROWS)
    yield
    NODES.clear()
    NODES.update(before_nodes)
    ROWS[:] = before_rows


def test_a_saved_name_must_be_an_input_or_an_output(scratch_rows):
    with pytest.raises(ValueError, match="neither an input"):
        row("TestOnlyBackward0", saves=("other",))


def test_the_formula_receives_saved_values_under_their_names(scratch_rows):
    with pytest.raises(ValueError, match="formula's parameters"):
        @row("TestOnlyBackward1", inputs=("self", "other"), saves=("self", "other"))
        def swapped(F, g, needs, other, self):  # noqa: ARG001
            return g, g


def test_star_inputs_needs_a_star_parameter(scratch_rows):
    with pytest.raises(ValueError, match=r"\*args"):
        @row("TestOnlyBackward2", saves=("*inputs",))
        def plain(F, g, needs, self):  # noqa: ARG001
            return g


def test_a_node_name_is_registered_once(scratch_rows):
    with pytest.raises(ValueError, match="registered twice"):
        @row("MulBackward0")
        def again(F, g, needs):  # noqa: ARG001
            return g


def test_a_declared_row_records_its_plan(scratch_rows):
    @row("TestOnlyBackward3", inputs=("self", "other"), saves=("other", "result"))
    def fine(F, g, needs, other, result, alpha):  # noqa: ARG001
        return g, g
    cls = NODES["TestOnlyBackward3"]
    assert cls.save_plan == ((0, 1), (1, 0))
    assert cls.save2 is None and cls.save1 == -1
