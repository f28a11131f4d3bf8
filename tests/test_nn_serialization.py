"""torch_save / torch_load: round trips of tensors, nested containers and state_dicts; the
open .npz layout; refusals on save and on load (never executing code from a file)."""
from __future__ import annotations

import io
import json
import math
import zipfile

import numpy as np
import pytest

import rtorchpy as rt


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, rt.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool"])
def test_tensor_round_trip_every_dtype(tmp_path, dtype):
    x = rt.torch_tensor(np.arange(6).reshape(2, 3).astype(dtype))
    path = tmp_path / "x.pt"
    rt.torch_save(x, path)
    assert path.exists() and not (tmp_path / "x.pt.npz").exists()  # written where asked
    y = rt.torch_load(path)
    _same(x, y)
    assert y._data is not x._data


def test_nested_containers_and_values(tmp_path):
    w = rt.torch_randn(3, requires_grad=True)
    obj = {"a": [rt.torch_ones(2), (rt.torch_zeros(1, dtype=rt.torch_long()), w)],
           "b": {"c": rt.torch_tensor(3.5), "n": None, "i": 7, "f": 2.5, "s": "text",
                 "t": True, "inf": math.inf, "nan": math.nan, "ninf": -math.inf},
           "empty": [], "zero-d": rt.torch_tensor(1)}
    rt.torch_save(obj, tmp_path / "o")
    back = rt.torch_load(tmp_path / "o")
    _same(obj, back)
    assert back["a"][1][1].requires_grad and back["a"][1][1].is_leaf
    assert back["a"][1][1].grad_fn is None


def test_a_tensor_saved_twice_is_loaded_as_one(tmp_path):
    x = rt.torch_ones(2)
    rt.torch_save([x, {"again": x}], tmp_path / "s")
    a, d = rt.torch_load(tmp_path / "s")
    assert a is d["again"]
    with np.load(tmp_path / "s", allow_pickle=False) as z:
        assert sorted(z.files) == ["__rtorchpy__", "t0"]


def test_non_contiguous_and_views_are_saved_by_value(tmp_path):
    x = rt.torch_arange(12).reshape(3, 4).t()[1:]
    rt.torch_save(x, tmp_path / "v")
    _same(x.contiguous(), rt.torch_load(tmp_path / "v"))


def test_state_dict_round_trip(tmp_path):
    rt.torch_manual_seed(0)
    m = rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_batch_norm1d(4), rt.nn_linear(4, 1))
    m(rt.torch_randn(5, 3))  # running statistics move
    rt.torch_save(m.state_dict(), tmp_path / "model.pt")
    sd = rt.torch_load(tmp_path / "model.pt")
    assert list(sd) == list(m.state_dict())
    assert sd["1.num_batches_tracked"].dtype == rt.torch_long()
    m2 = rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_batch_norm1d(4), rt.nn_linear(4, 1))
    m2.load_state_dict(sd)
    m.eval()
    m2.eval()
    x = rt.torch_randn(2, 3)
    np.testing.assert_array_equal(m(x).detach().numpy(), m2(x).detach().numpy())


def test_the_layout_is_the_documented_one(tmp_path):
    rt.torch_save({"w": rt.torch_ones(2, requires_grad=True), "k": [1, "x"]}, tmp_path / "f")
    with np.load(tmp_path / "f", allow_pickle=False) as z:
        manifest = json.loads(z["__rtorchpy__"].tobytes().decode("utf-8"))
        np.testing.assert_array_equal(z["t0"], np.ones(2, np.float32))
    assert manifest == {"format": "rtorchpy", "version": 1, "root": {
        "type": "dict", "keys": ["w", "k"], "values": [
            {"type": "tensor", "array": "t0", "dtype": "float32", "requires_grad": True},
            {"type": "list", "items": [{"type": "value", "value": 1},
                                       {"type": "value", "value": "x"}]}]}}


def test_save_refuses_what_it_cannot_store(tmp_path):
    with pytest.raises(TypeError, match="save its state_dict\\(\\) instead"):
        rt.torch_save(rt.nn_linear(2, 2), tmp_path / "m")
    with pytest.raises(TypeError, match="got ndarray"):
        rt.torch_save({"a": np.ones(2)}, tmp_path / "m")
    with pytest.raises(TypeError, match="dict keys must be strings"):
        rt.torch_save({1: rt.torch_ones(1)}, tmp_path / "m")
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        rt.torch_save(loop, tmp_path / "m")
    assert not (tmp_path / "m").exists()


def _write_npz(path, manifest=None, **arrays):
    if manifest is not None:
        arrays["__rtorchpy__"] = np.frombuffer(json.dumps(manifest).encode(), np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def test_load_never_unpickles(tmp_path):
    # an object array (which only pickle can hold) in an otherwise valid file
    path = tmp_path / "evil"
    manifest = {"format": "rtorchpy", "version": 1,
                "root": {"type": "tensor", "array": "t0", "dtype": "float32",
                         "requires_grad": False}}
    _write_npz(path, manifest, t0=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ValueError, match="dtype object, which torch_load\\(\\) does not read"):
        rt.torch_load(path)
    # a raw pickle file
    import pickle
    (tmp_path / "p").write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(ValueError, match="not a file written by torch_save"):
        rt.torch_load(tmp_path / "p")


@pytest.mark.parametrize("what,manifest,arrays,message", [
    ("no manifest", None, {"t0": np.ones(1)}, "no manifest"),
    ("other format", {"format": "other", "version": 1, "root": None}, {}, "unknown format"),
    ("missing array", {"format": "rtorchpy", "version": 1, "root": {
        "type": "tensor", "array": "t9", "dtype": "float32"}}, {}, "missing array 't9'"),
    ("wrong dtype", {"format": "rtorchpy", "version": 1, "root": {
        "type": "tensor", "array": "t0", "dtype": "float64"}},
     {"t0": np.ones(1, np.float32)}, "holds float32 values but the manifest says float64"),
    ("unknown node", {"format": "rtorchpy", "version": 1, "root": {"type": "module"}}, {},
     "unknown node type 'module'"),
    ("bad value", {"format": "rtorchpy", "version": 1, "root": {
        "type": "value", "value": [1, 2]}}, {}, "malformed value"),
])
def test_load_refuses_malformed_files(tmp_path, what, manifest, arrays, message):
    path = tmp_path / "bad"
    _write_npz(path, manifest, **arrays)
    with pytest.raises(ValueError, match=message):
        rt.torch_load(path)


def test_load_errors_for_other_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        rt.torch_load(tmp_path / "nope")
    np.save(tmp_path / "single.npy", np.ones(2))
    with pytest.raises(ValueError, match="single .npy array"):
        rt.torch_load(tmp_path / "single.npy")
    (tmp_path / "text").write_text("hello")
    with pytest.raises(ValueError, match="not a file written by torch_save"):
        rt.torch_load(tmp_path / "text")
    path = tmp_path / "v2"
    _write_npz(path, {"format": "rtorchpy", "version": 2, "root": None})
    with pytest.raises(ValueError, match="format version 2"):
        rt.torch_load(path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("__rtorchpy__.npy", b"garbage")
    (tmp_path / "garbage").write_bytes(buf.getvalue())
    with pytest.raises(ValueError):
        rt.torch_load(tmp_path / "garbage")


def test_cuda_is_not_available():
    assert rt.cuda_is_available() is False
    assert rt.cuda_device_count() == 0
    assert rt.backends_mps_is_available() is False
