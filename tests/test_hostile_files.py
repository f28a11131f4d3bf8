"""torch_load of crafted files (issue 36): only arrays and plain values are read, sizes and
nesting are bounded, and every refusal is a ValueError naming the file and the problem."""
import io
import json
import time
import zipfile

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy import serialization


def _manifest(root):
    return np.frombuffer(json.dumps({"format": "rtorchpy", "version": 1, "root": root})
                         .encode(), np.uint8)


def _npz(path, members, compression=zipfile.ZIP_STORED):
    """Write ``members`` (name -> array, or raw bytes) as an .npz."""
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, value in members.items():
            if isinstance(value, bytes):
                z.writestr(name + ".npy", value)
            else:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, value, allow_pickle=True)
                z.writestr(name + ".npy", buf.getvalue())


def _tensor(key="t0", dtype="float32"):
    return {"type": "tensor", "array": key, "dtype": dtype, "requires_grad": False}


def _refused(path, *words):
    with pytest.raises(ValueError) as e:
        rt.torch_load(path)
    text = str(e.value)
    assert str(path) in text, text
    for w in words:
        assert w in text, text
    return text


def test_int64_beyond_32_bits_round_trips(tmp_path):
    values = [2 ** 33, -2 ** 40 - 1, 2 ** 63 - 1, -2 ** 63]
    rt.torch_save({"t": rt.torch_tensor(values), "v": 2 ** 62}, tmp_path / "f")
    back = rt.torch_load(tmp_path / "f")
    assert back["t"].tolist() == values and back["v"] == 2 ** 62


def test_json_nesting_is_bounded_with_a_clear_error(tmp_path):
    node = '{"type": "value", "value": 1}'
    for _ in range(800):  # (as text: json.dumps itself would hit the recursion limit)
        node = '{"type": "list", "items": [' + node + ']}'
    raw = ('{"format": "rtorchpy", "version": 1, "root": ' + node + '}').encode()
    _npz(tmp_path / "deep", {"__rtorchpy__": np.frombuffer(raw, np.uint8)})
    _refused(tmp_path / "deep", "nested more than")
    # raw brackets, not even valid nodes
    raw = b"[" * 100000 + b"]" * 100000
    _npz(tmp_path / "brackets", {"__rtorchpy__": np.frombuffer(raw, np.uint8)})
    _refused(tmp_path / "brackets", "nested more than")


def test_save_refuses_what_load_would_refuse(tmp_path):
    deep = []
    for _ in range(serialization.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than"):
        rt.torch_save(deep, tmp_path / "f")
    ok = []
    for _ in range(serialization.MAX_DEPTH - 2):
        ok = [ok]
    rt.torch_save(ok, tmp_path / "g")
    assert rt.torch_load(tmp_path / "g") == ok


def test_duplicate_keys_are_refused(tmp_path):
    raw = (b'{"format": "rtorchpy", "version": 1, "version": 1, '
           b'"root": {"type": "value", "value": 1}}')
    _npz(tmp_path / "j", {"__rtorchpy__": np.frombuffer(raw, np.uint8)})
    _refused(tmp_path / "j", "'version' twice")
    root = {"type": "dict", "keys": ["a", "a"], "values": [{"type": "value", "value": 1},
                                                         {"type": "value", "value": 2}]}
    _npz(tmp_path / "d", {"__rtorchpy__": _manifest(root)})
    _refused(tmp_path / "d", "more than once", "'a'")


@pytest.mark.parametrize("dtype,array,words", [
    ("complex128", np.ones(2, np.complex128), ["complex128", "not one of"]),
    ("float32", np.ones(2, np.complex128), ["dtype complex128", "does not read"]),
    (">f4", np.ones(2, np.float32), ["'>f4'", "not one of"]),
    (["x"], np.ones(2, np.float32), ["['x']", "not one of"]),
    ("float64", np.ones(2, np.float32), ["holds float32 values", "says float64"]),
    ("float32", np.array([{"a": 1}], dtype=object), ["dtype object", "does not read"]),
    ("uint64", np.ones(2, np.uint64), ["'uint64'", "not one of"]),
])
def test_dtypes_are_checked_with_clear_messages(tmp_path, dtype, array, words):
    _npz(tmp_path / "f", {"__rtorchpy__": _manifest(_tensor(dtype=dtype)), "t0": array})
    _refused(tmp_path / "f", *words)


def test_big_endian_arrays_load_as_native(tmp_path):
    _npz(tmp_path / "f", {"__rtorchpy__": _manifest(_tensor()),
                          "t0": np.arange(3, dtype=">f4")})
    assert rt.torch_load(tmp_path / "f").tolist() == [0.0, 1.0, 2.0]


def test_malformed_nodes_say_so(tmp_path):
    for root, words in [
        ({"type": "tensor", "array": ["t0"], "dtype": "float32"}, ["missing array"]),
        ({"type": "list", "items": 5}, ["malformed list"]),
        ({"type": "dict", "keys": "ab", "values": []}, ["malformed dict"]),
        ({"type": "value", "value": {"float": "1e5"}}, ["malformed value"]),
        ({"type": 7}, ["without a type"]),
    ]:
        _npz(tmp_path / "f", {"__rtorchpy__": _manifest(root), "t0": np.ones(1, np.float32)})
        _refused(tmp_path / "f", *words)


def test_sizes_are_checked_before_reading(tmp_path, monkeypatch):
    # a member larger than the limit is refused from its declared size
    monkeypatch.setattr(serialization, "MAX_ARRAY_BYTES", 1000)
    _npz(tmp_path / "big", {"__rtorchpy__": _manifest(_tensor()),
                            "t0": np.zeros(100000, np.float32)})
    _refused(tmp_path / "big", "declares", "bytes")
    monkeypatch.undo()
    # a header claiming more elements than the member holds
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False,
                                               "shape": (2 ** 40,)})
    _npz(tmp_path / "liar", {"__rtorchpy__": _manifest(_tensor()),
                             "t0": buf.getvalue() + b"\0" * 16})
    _refused(tmp_path / "liar", "claims shape")


def test_zip_bombs_are_refused(tmp_path):
    _npz(tmp_path / "bomb", {"__rtorchpy__": _manifest(_tensor()),
                             "t0": np.zeros(8 * 2 ** 20, np.float32)}, zipfile.ZIP_DEFLATED)
    _refused(tmp_path / "bomb", "zip bomb")


def test_a_huge_integer_in_the_manifest_is_refused(tmp_path):
    raw = (b'{"format": "rtorchpy", "version": 1, "root": {"type": "value", "value": '
           + b"9" * 100000 + b"}}")
    _npz(tmp_path / "f", {"__rtorchpy__": np.frombuffer(raw, np.uint8)})
    _refused(tmp_path / "f", "not readable JSON")


def test_unclosed_strings_do_not_slow_the_loader(tmp_path):
    raw = b'{"format": "rtorchpy", "root": ' + b'"\\"' * 2_000_000
    _npz(tmp_path / "f", {"__rtorchpy__": np.frombuffer(raw, np.uint8)})
    t0 = time.time()
    _refused(tmp_path / "f", "not JSON")
    assert time.time() - t0 < 5
