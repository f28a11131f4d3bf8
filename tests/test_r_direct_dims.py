"""The R bridge converts R's 1-based dims in one place, ``handles.r_dim``: the Python callers use
it, and so do the functions the C layer calls directly (``direct.direct_fn`` wraps an op whose
only conversion is of its dims). The C layer itself converts no dim."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as torch
from rtorchpy._r import direct
from rtorchpy._r.errors import RIndexError
from rtorchpy._r.ops import _PLANS

ROOT = Path(__file__).resolve().parents[1]


def _direct(name):
    """The function C calls directly for op ``name`` (a DirectEntry's ``fn``)."""
    entry = direct.direct_fn(0, name)
    assert isinstance(entry, direct.DirectEntry)
    return entry.fn


def test_dim_ops_called_directly_take_r_dims():
    x = torch.torch_tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(_direct("sum")(x, 1).numpy(), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(_direct("sum")(x, -1).numpy(), [3.0, 12.0])
    assert _direct("transpose")(x, 1, 2).shape == (3, 2)
    assert _direct("sum")(x, None).item() == 15.0


def test_a_zero_dim_gives_the_callers_error():
    x = torch.torch_ones(2, 3)
    with pytest.raises(RIndexError, match="Indexing starts at 1 but found a 0"):
        _direct("sum")(x, 0)


def test_every_dim_op_direct_function_is_wrapped_once():
    names = [n for n, p in _PLANS.items() if not p.simple and direct._dim_positions(p)]
    assert len(names) > 40
    for n in names:
        assert _direct(n) is _direct(n)
        assert _direct(n) is not _PLANS[n].fn


def test_c_converts_no_dim():
    src = (ROOT / "r-shim" / "src" / "direct.c").read_text()
    assert not re.search(r"shift_dim|- 1;\s*/\*.*dim", src)


def test_a_direct_entry_says_whether_the_first_argument_must_be_a_handle():
    # torch_mul(2, x): an R number first takes the Python caller (it makes a tensor of it)
    assert direct.direct_fn(0, "mul").handle_first is True
    # binary operators: C itself calls directly only with a tensor on the left
    entry = direct.direct_fn(1, "+")
    assert entry.handle_first is False and callable(entry.fn)
    assert direct.direct_fn(2, "-") is None and direct.direct_fn(0, "no_such_op") is None
