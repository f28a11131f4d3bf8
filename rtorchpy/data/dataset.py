"""Datasets: map-style (``Dataset``: items by 0-based index) and iterable (``IterableDataset``:
items in the order the dataset gives them), with R torch's generators ``dataset()`` and
``iterable_dataset()``, and the built-in ``tensor_dataset``, ``dataset_subset`` and
``random_split``.

A map-style dataset defines ``__getitem__(self, i)`` and ``__len__(self)``, and optionally
``getbatch(self, indices)``: when present, the data loader asks for a whole batch in one call
(``tensor_dataset`` indexes each of its tensors once per batch instead of once per item).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ops.creation import torch_randperm
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "dataset", "iterable_dataset", "tensor_dataset",
           "dataset_subset", "random_split", "is_dataset"]


class Dataset:
    """Base class of map-style datasets: subclass it and define ``__getitem__`` and
    ``__len__`` (and ``getbatch`` to serve whole batches)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} does not define __getitem__()")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__()")

    def __repr__(self):
        try:
            n = f"{len(self)} items"
        except Exception:  # noqa: BLE001 - the length may itself be what fails
            n = "length unknown"
        return f"<dataset {type(self).__name__} ({n})>"


class IterableDataset:
    """Base class of iterable datasets: subclass it and define ``__iter__`` (a generator is
    simplest); ``__len__`` is optional."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __iter__()")

    def __repr__(self):
        return f"<iterable_dataset {type(self).__name__}>"


def is_dataset(x: object) -> bool:
    """Whether ``x`` is a dataset (map-style or iterable)."""
    return isinstance(x, (Dataset, IterableDataset))


def _generator(base, kind, name, inherit, initialize, renamed, methods):
    parent = base if inherit is None else inherit
    if not (isinstance(parent, type) and issubclass(parent, base)):
        raise TypeError(f"inherit must be {kind} class, got {parent!r}")
    namespace = dict(methods)
    for key, fn in renamed.items():
        if fn is not None:
            if not callable(fn):
                raise TypeError(f"{key} must be a function, got {type(fn).__name__}")
            namespace[key] = fn
    if initialize is not None:
        if not callable(initialize):
            raise TypeError(f"initialize must be a function, got {type(initialize).__name__}")
        namespace["__init__"] = initialize
    namespace.setdefault("__doc__", f"Dataset {name} (defined with {kind.split()[-1]}()).")
    return type(name, (parent,), namespace)


def dataset(name: str | None = None, inherit: type | None = None,
            initialize: Callable[..., None] | None = None,
            getitem: Callable[..., Any] | None = None, length: Callable[..., int] | None = None,
            getbatch: Callable[..., Any] | None = None, **methods: Any) -> type[Dataset]:
    """Define a map-style dataset class, as R torch's ``dataset()`` does: ``initialize(self,
    ...)`` is the constructor, ``getitem(self, i)`` returns item ``i`` (0-based),
    ``length(self)`` the number of items, ``getbatch(self, indices)`` (optional) a whole batch;
    other keywords become methods or class attributes. ``inherit`` is a parent dataset class.
    Returns the class: call it to make a dataset. (A ``class MyData(Dataset)`` does the same.)"""
    renamed = {"__getitem__": getitem, "__len__": length, "getbatch": getbatch}
    return _generator(Dataset, "a dataset", name or "dataset", inherit, initialize, renamed,
                      methods)


def iterable_dataset(name: str | None = None, inherit: type | None = None,
                     initialize: Callable[..., None] | None = None,
                     iter: Callable[..., Any] | None = None,
                     length: Callable[..., int] | None = None,
                     **methods: Any) -> type[IterableDataset]:
    """Define an iterable dataset class, as R torch's ``iterable_dataset()`` does: ``iter(self)``
    returns an iterator (a generator function is simplest) over the items; ``length(self)`` is
    optional. Returns the class."""
    renamed = {"__iter__": iter, "__len__": length}
    return _generator(IterableDataset, "an iterable_dataset", name or "iterable_dataset",
                      inherit, initialize, renamed, methods)


class tensor_dataset(Dataset):
    """A dataset over tensors that share their first dim: item ``i`` is the list of each
    tensor's row ``i``; a batch is one indexing call per tensor."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("tensor_dataset() needs at least one tensor")
        for k, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"tensor_dataset(): argument {k} must be a tensor, got "
                                f"{type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"tensor_dataset(): argument {k} is a 0-dim tensor; each tensor "
                                 f"needs a first dim to index")
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) != 1:
            raise ValueError(f"tensor_dataset(): all tensors must have the same size in the first "
                             f"dimension, got sizes {sizes}")
        self.tensors = list(tensors)

    def __getitem__(self, index: Any) -> list[Tensor]:
        return [t[index] for t in self.tensors]

    def getbatch(self, indices: Any) -> list[Tensor]:
        idx = np.asarray(indices, dtype=np.int64)
        return [t[idx] for t in self.tensors]

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class dataset_subset(Dataset):
    """The items of ``dataset`` at ``indices`` (0-based), in that order."""

    def __init__(self, dataset, indices):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"dataset_subset(): dataset must be a map-style dataset, got "
                            f"{type(dataset).__name__}")
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        n = len(dataset)
        bad = idx[(idx < 0) | (idx >= n)]
        if bad.size:
            raise IndexError(f"dataset_subset(): index {int(bad[0])} is out of range for a "
                             f"dataset of {n} items")
        self.dataset = dataset
        self.indices = idx

    def __getitem__(self, index):
        return self.dataset[int(self.indices[index])]

    def __len__(self):
        return len(self.indices)

    def __getattr__(self, name):
        # getbatch exists exactly when the wrapped dataset has one
        if name == "getbatch" and hasattr(self.__dict__.get("dataset"), "getbatch"):
            return lambda indices: self.dataset.getbatch(self.indices[np.asarray(indices)])
        raise AttributeError(name)


def random_split(dataset, lengths):
    """Split ``dataset`` at random into non-overlapping ``dataset_subset``s of the given
    lengths (whole numbers summing to its length, or fractions summing to 1). The permutation
    comes from ``torch_randperm``, so ``torch_manual_seed()`` makes it reproducible."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(v, float) and 0 <= v <= 1 for v in lengths) and \
            abs(sum(lengths) - 1) < 1e-9:
        sizes = [int(np.floor(n * f)) for f in lengths]
        for k in range(n - sum(sizes)):
            sizes[k % len(sizes)] += 1
        lengths = sizes
    if any(int(v) != v or v < 0 for v in lengths):
        raise ValueError(f"random_split(): lengths must be non-negative whole numbers or "
                         f"fractions summing to 1, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(f"random_split(): the lengths sum to {int(sum(lengths))}, but the "
                         f"dataset has {n} items")
    perm = torch_randperm(n).numpy()
    out, start = [], 0
    for v in lengths:
        out.append(dataset_subset(dataset, perm[start:start + int(v)]))
        start += int(v)
    return out
