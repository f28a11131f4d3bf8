"""``torch_save`` / ``torch_load``: tensors, and lists, tuples and dicts of them (a model's
``state_dict()`` included), in an open file format that loading never executes.

The file layout
---------------
A file is a NumPy ``.npz`` archive (a zip of ``.npy`` files, written uncompressed by
``numpy.savez``) holding

* one array per distinct tensor, named ``t0``, ``t1``, ... (the tensor's values, shape and dtype
  as a plain ``.npy`` array: float16/32/64, int8/16/32/64, uint8 or bool);
* ``__rtorchpy__``: a uint8 array holding UTF-8 JSON, the *manifest*::

      {"format": "rtorchpy", "version": 1, "root": NODE}

  where a NODE is one of
    - ``{"type": "tensor", "array": "t0", "dtype": "float32", "requires_grad": false}``
    - ``{"type": "list", "items": [NODE, ...]}`` (also ``"tuple"``)
    - ``{"type": "dict", "keys": ["fc1.weight", ...], "values": [NODE, ...]}`` (string keys,
      in order; a ``state_dict()`` is a dict)
    - ``{"type": "value", "value": V}`` for ``None``, a bool, an int, a float (``NaN`` and
      infinities written as the strings "nan", "inf", "-inf" under ``{"float": ...}``) or a
      string.

A tensor that appears twice in the object is stored once and both places name the same
array; loading gives them back as one tensor. Loading reads the archive with
``allow_pickle=False``: a file that holds anything else (a pickled object array, a manifest
that names a missing array or an unknown node type) is refused with an error, never run.
Gradients and graph history are not saved; ``requires_grad`` is.
"""
from __future__ import annotations

import json
import math
import zipfile

import numpy as np

from .tensor import Tensor

__all__ = ["torch_save", "torch_load"]

MANIFEST = "__rtorchpy__"
FORMAT, VERSION = "rtorchpy", 1
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.by_id = {}

    def node(self, obj, path, active):
        if isinstance(obj, Tensor):
            key = self.by_id.get(id(obj))
            if key is None:
                key = self.by_id[id(obj)] = f"t{len(self.arrays)}"
                data = obj._data  # (by value: a view's elements, in C order, 0-d kept)
                data = data if data.flags.c_contiguous else data.copy(order="C")
                if data.dtype.name not in _DTYPES:
                    raise TypeError(f"torch_save(): can't save a tensor of dtype "
                                    f"{obj.dtype!r} (at {path})")
                self.arrays[key] = data
            return {"type": "tensor", "array": key, "dtype": obj._data.dtype.name,
                    "requires_grad": bool(obj._requires_grad)}
        if isinstance(obj, (list, tuple, dict)):
            if id(obj) in active:
                raise ValueError(f"torch_save(): the object contains itself (at {path})")
            active = active | {id(obj)}
            if isinstance(obj, dict):
                keys = list(obj.keys())
                for k in keys:
                    if not isinstance(k, str):
                        raise TypeError(f"torch_save(): dict keys must be strings, got "
                                        f"{type(k).__name__} {k!r} (at {path})")
                return {"type": "dict", "keys": keys,
                        "values": [self.node(obj[k], f"{path}[{k!r}]", active) for k in keys]}
            return {"type": "tuple" if isinstance(obj, tuple) else "list",
                    "items": [self.node(v, f"{path}[{i}]", active) for i, v in enumerate(obj)]}
        if obj is None or isinstance(obj, (bool, int, str)):
            return {"type": "value", "value": obj}
        if isinstance(obj, float):
            if math.isfinite(obj):
                return {"type": "value", "value": obj}
            return {"type": "value", "value": {"float": repr(obj)}}
        what = type(obj).__name__
        hint = ": save its state_dict() instead" if hasattr(obj, "state_dict") else ""
        raise TypeError(f"torch_save() saves tensors and lists, tuples and dicts of them (and "
                        f"numbers, strings, None); got {what} at {path}{hint}")


def torch_save(obj, path):
    """Save ``obj`` (a tensor, or nested lists, tuples and dicts of tensors such as a
    ``state_dict()``) to ``path`` in rtorchpy's ``.npz`` layout (see the module docstring).
    The file is written at ``path`` exactly (no extension added)."""
    writer = _Writer()
    root = writer.node(obj, "the top level", frozenset())
    manifest = json.dumps({"format": FORMAT, "version": VERSION, "root": root},
                          allow_nan=False)
    arrays = dict(writer.arrays)
    arrays[MANIFEST] = np.frombuffer(manifest.encode("utf-8"), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return None


def _bad(path, why):
    return ValueError(f"torch_load(): {path} is not a file written by torch_save() ({why})")


class _Reader:
    def __init__(self, archive, path):
        self.archive, self.path = archive, path
        self.tensors = {}

    def node(self, n):
        if not isinstance(n, dict) or "type" not in n:
            raise _bad(self.path, "malformed manifest")
        kind = n["type"]
        if kind == "tensor":
            key = n.get("array")
            if key in self.tensors:
                return self.tensors[key]
            if not isinstance(key, str) or key == MANIFEST or key not in self.archive.files:
                raise _bad(self.path, f"the manifest names a missing array {key!r}")
            try:
                data = self.archive[key]  # allow_pickle=False: an object array raises here
            except (ValueError, OSError, zipfile.BadZipFile) as e:
                raise _bad(self.path, f"array {key}: {e}") from None
            if not isinstance(data, np.ndarray):
                raise _bad(self.path, f"{key} is not an .npy array")
            if data.dtype.name not in _DTYPES or data.dtype.name != n.get("dtype"):
                raise _bad(self.path, f"array {key} has dtype {data.dtype.name}, expected "
                                      f"{n.get('dtype')}")
            t = Tensor._make(np.array(data, copy=True))
            if n.get("requires_grad"):
                t.requires_grad_(True)
            self.tensors[key] = t
            return t
        if kind in ("list", "tuple"):
            items = [self.node(v) for v in n.get("items", [])]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            keys, values = n.get("keys", []), n.get("values", [])
            if len(keys) != len(values) or not all(isinstance(k, str) for k in keys):
                raise _bad(self.path, "malformed dict in the manifest")
            return {k: self.node(v) for k, v in zip(keys, values)}
        if kind == "value":
            v = n.get("value")
            if isinstance(v, dict) and set(v) == {"float"}:
                return float(v["float"])
            if v is None or isinstance(v, (bool, int, float, str)):
                return v
            raise _bad(self.path, "malformed value in the manifest")
        raise _bad(self.path, f"unknown node type {kind!r}")


def torch_load(path):
    """Load what :func:`torch_save` wrote to ``path``: tensors come back as new leaf tensors
    (``requires_grad`` as saved), lists, tuples and dicts as themselves (dict order kept).
    Never executes code from the file (``allow_pickle=False``)."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise _bad(path, f"not an .npz archive: {e}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise _bad(path, "a single .npy array, not an archive")
    with archive:
        if MANIFEST not in archive.files:
            raise _bad(path, "no manifest")
        try:
            raw = archive[MANIFEST]
        except (ValueError, OSError, zipfile.BadZipFile) as e:
            raise _bad(path, f"unreadable manifest: {e}") from None
        if not isinstance(raw, np.ndarray) or raw.dtype != np.uint8 or raw.ndim != 1:
            raise _bad(path, "malformed manifest")
        try:
            manifest = json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise _bad(path, "the manifest is not JSON") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise _bad(path, "unknown format")
        if manifest.get("version") != VERSION:
            raise ValueError(f"torch_load(): {path} has format version "
                             f"{manifest.get('version')}; this rtorchpy reads version {VERSION}")
        return _Reader(archive, path).node(manifest.get("root"))

