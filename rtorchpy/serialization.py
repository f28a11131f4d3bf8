"""``torch_save`` / ``torch_load``: tensors, and lists, tuples and dicts of them (a model's
``state_dict()`` included), in an open file format that loading never executes.

The file layout
---------------
A file is a NumPy ``.npz`` archive (a zip of ``.npy`` files, written uncompressed by
``numpy.savez``) holding

* one array per distinct tensor, named ``t0``, ``t1``, ... (the tensor's values, shape and dtype
  as a plain ``.npy`` array: float16/32/64, int8/16/32/64, uint8 or bool; a bfloat16 tensor
  is its float32 array, with the dtype ``"bfloat16"`` in the manifest);
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
array; loading gives them back as one tensor. Gradients and graph history are not saved;
``requires_grad`` is.

Loading a file from someone else
--------------------------------
Loading reads nothing but ``.npy`` arrays of the dtypes above and the JSON manifest, and runs
nothing: each ``.npy`` header is parsed and checked (dtype on the list, shape consistent with
the member's size) before any data is read, so a pickled object array is refused, never
unpickled. A crafted file cannot make the loader allocate without bound either: every member's
declared size is checked against :data:`MAX_ARRAY_BYTES` (and the manifest's against
:data:`MAX_MANIFEST_BYTES`) before reading, a compressed member (``torch_save`` never writes
one) may not expand more than :data:`MAX_EXPANSION` times, the nesting of the objects read is
bounded by :data:`MAX_DEPTH` (and the JSON parser's by Python's recursion limit, which it
checks), and a JSON object or saved dict with a key twice is refused rather than
silently keeping one. Every refusal is a ``ValueError`` naming the file and what is wrong.
Saving refuses objects nested deeper than :data:`MAX_DEPTH`, so what is saved can be loaded.
"""
from __future__ import annotations

import json
import math
import os
import zipfile
from typing import Any

import numpy as np

from .numerics import bfloat16
from .tensor import Tensor

__all__ = ["torch_save", "torch_load"]

MANIFEST = "__rtorchpy__"
FORMAT, VERSION = "rtorchpy", 1
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}
_DTYPE_LIST = "float16/32/64, bfloat16, int8/16/32/64, uint8 or bool"

MAX_DEPTH = 100                # nesting of lists/tuples/dicts in a saved object
MAX_ARRAY_BYTES = 2 ** 36      # one array's data (64 GiB)
MAX_MANIFEST_BYTES = 2 ** 28   # the JSON manifest (256 MiB)
MAX_MEMBERS = 1_000_000        # arrays in one file
MAX_EXPANSION = 100            # a compressed member's size over its compressed size


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.by_id = {}

    def node(self, obj, path, active):
        if len(active) > MAX_DEPTH:
            raise ValueError(f"torch_save(): the object is nested more than {MAX_DEPTH} levels "
                             f"deep (at {path[:200]}...)")
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
            return {"type": "tensor", "array": key,
                    "dtype": "bfloat16" if obj._bf16 else obj._data.dtype.name,
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


def _check_path(path, where, mode):
    """A path (str, bytes or os.PathLike) or an open binary file; TypeError otherwise."""
    if isinstance(path, (str, bytes, os.PathLike)):
        if not path:
            raise ValueError(f"{where}(): the path is empty")
        return
    needs = ("read", "seek") if mode == "r" else ("write",)
    if all(callable(getattr(path, m, None)) for m in needs):
        return
    raise TypeError(f"{where}(): argument 'path' must be a file path or an open binary file, "
                    f"not {type(path).__name__}")


def torch_save(obj: object, path: str | os.PathLike[str]) -> None:
    """Save ``obj`` (a tensor, or nested lists, tuples and dicts of tensors such as a
    ``state_dict()``) to ``path`` in rtorchpy's ``.npz`` layout (see the module docstring).
    The file is written at ``path`` exactly (no extension added)."""
    _check_path(path, "torch_save", "w")
    writer = _Writer()
    root = writer.node(obj, "the top level", frozenset())
    manifest = json.dumps({"format": FORMAT, "version": VERSION, "root": root},
                          allow_nan=False)
    arrays = dict(writer.arrays)
    arrays[MANIFEST] = np.frombuffer(manifest.encode("utf-8"), dtype=np.uint8)
    if not isinstance(path, (str, bytes, os.PathLike)):
        np.savez(path, **arrays)  # an open binary file
        return None
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return None


def _bad(path, why):
    return ValueError(f"torch_load(): {path} is not a file written by torch_save() ({why})")


def _no_duplicates(path):
    def pairs(items):
        out = {}
        for k, v in items:
            if k in out:
                raise _bad(path, f"the manifest has the key {k!r} twice in one JSON object")
            out[k] = v
        return out
    return pairs


class _Archive:
    """The members of an ``.npz`` file, read with their sizes checked first (see the module
    docstring): ``read(name)`` gives one ``.npy`` member as an array."""

    def __init__(self, file, path):
        self.path = path
        self.zip = zipfile.ZipFile(file)
        infos = self.zip.infolist()
        if len(infos) > MAX_MEMBERS:
            raise _bad(path, f"{len(infos)} members (at most {MAX_MEMBERS})")
        self.members = {}
        for info in infos:
            name = info.filename
            if not name.endswith(".npy"):
                continue
            key = name[:-4]
            if key in self.members:
                raise _bad(path, f"the archive holds {name!r} twice")
            limit = MAX_MANIFEST_BYTES if key == MANIFEST else MAX_ARRAY_BYTES
            if info.file_size > limit + 65536:
                raise _bad(path, f"member {name!r} declares {info.file_size} bytes (at most "
                                 f"{limit})")
            if info.compress_type != zipfile.ZIP_STORED and \
                    info.file_size > MAX_EXPANSION * max(info.compress_size, 1024):
                raise _bad(path, f"member {name!r} expands from {info.compress_size} to "
                                 f"{info.file_size} bytes (a zip bomb?)")
            self.members[key] = info

    def read(self, key):
        info = self.members[key]
        name = info.filename
        try:
            with self.zip.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dt = np.lib.format.read_array_header_1_0(f)
                elif version in ((2, 0), (3, 0)):
                    shape, fortran, dt = np.lib.format.read_array_header_2_0(f)
                else:
                    raise ValueError(f"unknown .npy version {version}")
                native = dt.newbyteorder("=") if dt.byteorder not in "=|" else dt
                if native.name not in _DTYPES or dt.hasobject or dt.fields is not None:
                    raise _bad(self.path, f"array {key!r} has dtype {_dtype_text(dt)}, which "
                                          f"torch_load() does not read ({_DTYPE_LIST})")
                count = math.prod(shape)
                nbytes = count * dt.itemsize
                if nbytes > info.file_size - f.tell() + 0 or nbytes > MAX_ARRAY_BYTES:
                    raise _bad(self.path, f"array {key!r} claims shape {list(shape)}: "
                                          f"{nbytes} bytes, more than its member holds")
                out = np.empty(count, dtype=dt)
                view = memoryview(out.view(np.uint8))
                got = 0
                while got < nbytes:  # (bounded: every pass reads at least a byte)
                    n = f.readinto(view[got:got + (1 << 24)])
                    if not n:
                        raise _bad(self.path, f"array {key!r} is truncated")
                    got += n
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, RuntimeError) as e:
            if isinstance(e, ValueError) and str(e).startswith("torch_load():"):
                raise
            raise _bad(self.path, f"member {name!r} is not a readable .npy array ({e})") \
                from None
        out = out.reshape(shape, order="F" if fortran else "C")
        return out.astype(native) if native is not dt else out


def _dtype_text(dt):
    try:
        return dt.newbyteorder("=").name if dt.byteorder not in "=|" else dt.name
    except (TypeError, ValueError):
        return str(dt)


class _Reader:
    def __init__(self, archive, path):
        self.archive, self.path = archive, path
        self.tensors = {}

    def node(self, n, depth=0):
        if depth > MAX_DEPTH:
            raise _bad(self.path, f"the object is nested more than {MAX_DEPTH} levels deep")
        if not isinstance(n, dict) or not isinstance(n.get("type"), str):
            raise _bad(self.path, "malformed manifest (a node without a type)")
        kind = n["type"]
        if kind == "tensor":
            return self.tensor(n)
        if kind in ("list", "tuple"):
            items = n.get("items", [])
            if not isinstance(items, list):
                raise _bad(self.path, f"malformed {kind} in the manifest")
            items = [self.node(v, depth + 1) for v in items]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            keys, values = n.get("keys", []), n.get("values", [])
            if not isinstance(keys, list) or not isinstance(values, list) or \
                    len(keys) != len(values) or not all(isinstance(k, str) for k in keys):
                raise _bad(self.path, "malformed dict in the manifest")
            if len(set(keys)) != len(keys):
                twice = sorted({k for k in keys if keys.count(k) > 1})[:3]
                raise _bad(self.path, f"a saved dict has the key(s) {twice} more than once")
            return {k: self.node(v, depth + 1) for k, v in zip(keys, values)}
        if kind == "value":
            v = n.get("value")
            if isinstance(v, dict) and set(v) == {"float"} and v["float"] in ("nan", "inf",
                                                                              "-inf"):
                return float(v["float"])
            if v is None or isinstance(v, (bool, int, float, str)):
                return v
            raise _bad(self.path, "malformed value in the manifest")
        raise _bad(self.path, f"unknown node type {kind[:100]!r}")

    def tensor(self, n):
        key, dtype = n.get("array"), n.get("dtype")
        if not isinstance(key, str) or key == MANIFEST or key not in self.archive.members:
            raise _bad(self.path, f"the manifest names a missing array {str(key)[:100]!r}")
        bf16 = dtype == "bfloat16"  # (float32 values on the bfloat16 grid)
        if bf16:
            dtype = "float32"
        if not isinstance(dtype, str) or dtype not in _DTYPES:
            raise _bad(self.path, f"the manifest gives array {key!r} the dtype "
                                  f"{str(dtype)[:100]!r}, not one of {_DTYPE_LIST}")
        if not isinstance(n.get("requires_grad", False), bool):
            raise _bad(self.path, f"malformed requires_grad for array {key!r}")
        if key in self.tensors:
            return self.tensors[key]
        data = self.archive.read(key)
        if data.dtype.name != dtype:
            raise _bad(self.path, f"array {key!r} holds {data.dtype.name} values but the "
                                  f"manifest says {dtype}")
        t = Tensor._make(data)
        if bf16:  # (rounded again: a file from elsewhere may hold other float32 values)
            bfloat16.round_in_place(data)
            t._bf16 = True
        if n.get("requires_grad") and data.dtype.kind == "f":
            t.requires_grad_(True)
        self.tensors[key] = t
        return t


def _is_npy(path):
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"\x93NUMPY"
    except (OSError, TypeError):
        return False


def torch_load(path: str | os.PathLike[str]) -> Any:  # (what was saved)
    """Load what :func:`torch_save` wrote to ``path``: tensors come back as new leaf tensors
    (``requires_grad`` as saved), lists, tuples and dicts as themselves (dict order kept).
    Reads only arrays and plain values, with bounded sizes; never executes code from the file
    (see the module docstring)."""
    _check_path(path, "torch_load", "r")
    try:
        archive = _Archive(path, path)
    except zipfile.BadZipFile as e:
        raise _bad(path, "a single .npy array, not an archive" if _is_npy(path) else
                   f"not an .npz archive: {e}") from None
    except (zipfile.LargeZipFile, EOFError) as e:
        raise _bad(path, f"not an .npz archive ({e})") from None
    except OSError as e:
        if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError)):
            raise
        raise _bad(path, f"not an .npz archive ({e})") from None
    with archive.zip:
        if MANIFEST not in archive.members:
            raise _bad(path, "no manifest (__rtorchpy__.npy)")
        raw = archive.read(MANIFEST)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise _bad(path, "malformed manifest (not a 1-d uint8 array)")
        raw = raw.tobytes()
        try:
            manifest = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates(path))
        except RecursionError:
            # (json's parser counts its nesting against Python's recursion limit and stops
            # cleanly; the reader then refuses anything deeper than MAX_DEPTH itself)
            raise _bad(path, f"the manifest is nested more than {MAX_DEPTH} levels deep") \
                from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise _bad(path, f"the manifest is not JSON ({e})") from None
        except ValueError as e:  # (an integer of more than 4300 digits, a duplicate key)
            if str(e).startswith("torch_load("):
                raise
            raise _bad(path, f"the manifest is not readable JSON ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise _bad(path, "unknown format")
        if manifest.get("version") != VERSION:
            raise ValueError(f"torch_load(): {path} has format version "
                             f"{str(manifest.get('version'))[:50]}; this rtorchpy reads version "
                             f"{VERSION}")
        return _Reader(archive, path).node(manifest.get("root"))
