"""The R bridge's side of the R nn functions: nnf_embedding's 1-based input and padding_idx,
and torch_save/torch_load's tagged trees (rtorchpy/_r/serial.py). The R side is tested in
r-shim/tests/testthat/test-nn*.R."""
from __future__ import annotations

import numpy as np

from rtorchpy import nn_linear, torch_load, torch_save, torch_tensor
from rtorchpy._r import load, save
from rtorchpy._r.handles import MAGIC, _get, _put, release
from rtorchpy._r.ops import fn_caller
from rtorchpy._r.protocol import ERROR_MESSAGE


def test_nnf_embedding_indices_are_1_based_from_r():
    weight = _put(torch_tensor(np.eye(3, dtype=np.float32)))
    idx = _put(torch_tensor(np.array([3, 1], dtype=np.int64)))
    h = fn_caller("nnf_embedding")(idx, weight, 2.0)  # padding_idx 2 (1-based): row 1
    out = _get(h)
    assert np.array_equal(out._data, np.eye(3, dtype=np.float32)[[2, 0]])
    zero = _put(torch_tensor(np.array([0], dtype=np.int64)))
    r = fn_caller("nnf_embedding")(zero, weight)
    assert "1-based" in r[ERROR_MESSAGE]
    release([int(x.real) for x in (weight, idx, h, zero)])


def test_save_and_load_keep_names_and_nesting(tmp_path):
    path = str(tmp_path / "f.pt")
    a = torch_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    ha = _put(a)
    tree = ["__named__", ["w", "rest"], [ha, ["__list__", [ha, 2.5, "s", None]]]]
    assert save(tree, path) == ["v", None]
    back = torch_load(path)
    assert list(back) == ["w", "rest"]
    assert back["rest"][0] is back["w"]  # one tensor saved once
    assert back["rest"][1:] == [2.5, "s", None]
    reply = load(path)
    assert reply[0] == "v"
    kind, keys, nodes = reply[1]
    assert kind == "D" and keys == ["w", "rest"]
    assert nodes[0][0] == "T" and nodes[0][1].imag == MAGIC
    assert np.array_equal(_get(nodes[0][1])._data, a._data)
    assert nodes[1][0] == "L" and nodes[1][1][1] == ["V", 2.5]
    release([int(ha.real), int(nodes[0][1].real), int(nodes[1][1][0][1].real)])


def test_a_python_state_dict_file_loads_through_the_bridge(tmp_path):
    path = str(tmp_path / "m.pt")
    m = nn_linear(3, 2)
    torch_save(m.state_dict(), path)
    kind, keys, nodes = load(path)[1]
    assert kind == "D" and keys == ["weight", "bias"]
    assert np.array_equal(_get(nodes[0][1])._data, m.weight._data)
    release([int(n[1].real) for n in nodes])


def test_bad_input_is_an_error_reply(tmp_path):
    r = save(["__named__", ["a", "b"], [1.0]], str(tmp_path / "x"))
    assert "malformed" in r[ERROR_MESSAGE]
    r = load(str(tmp_path / "missing"))
    assert ERROR_MESSAGE in r


def test_ignore_index_is_1_based_like_the_targets():
    from rtorchpy._r.ops import _nnf_ignore_index
    assert _nnf_ignore_index(3.0) == 2 and _nnf_ignore_index(1) == 0
    assert _nnf_ignore_index(-100) == -100 and _nnf_ignore_index(-100.0) == -100
