"""Default collation (items -> a batch) and conversion (an item alone), as PyTorch's
``default_collate``/``default_convert``: tensors and arrays are stacked along a new first dim,
Python numbers become tensors (bool, int64, float64), strings stay a list, and lists, tuples
and dicts are collated element by element, recursively."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import torch_bool, torch_float64, torch_int64
from ..ops.creation import torch_tensor
from ..ops.shape import stack
from ..tensor import Tensor

__all__ = ["utils_data_default_collate", "utils_data_default_convert"]


def _stack(batch):
    shape = batch[0].shape
    for k, t in enumerate(batch):
        if t.shape != shape:
            raise ValueError(f"collate: items of a batch must have the same shape, but item 0 of "
                             f"the batch has shape {list(shape)} and item {k} has shape "
                             f"{list(t.shape)}")
    return stack(batch, 0)


def utils_data_default_collate(batch):
    """Merge a list of items into a batch (see the module's description)."""
    batch = list(batch)
    if not batch:
        raise ValueError("collate: the batch is empty")
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if isinstance(elem, np.ndarray):
        return _stack([torch_tensor(b) for b in batch])
    if isinstance(elem, (bool, np.bool_)):
        return torch_tensor(list(batch), dtype=torch_bool())
    if isinstance(elem, numbers.Integral):
        return torch_tensor(list(batch), dtype=torch_int64())
    if isinstance(elem, numbers.Real):
        return torch_tensor(list(batch), dtype=torch_float64())
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, dict):
        return {k: utils_data_default_collate([b[k] for b in batch]) for k in elem}
    if isinstance(elem, (list, tuple)):
        n = len(elem)
        for k, b in enumerate(batch):
            if len(b) != n:
                raise ValueError(f"collate: items of a batch must have the same length, but item 0 "
                                 f"has {n} elements and item {k} has {len(b)}")
        return [utils_data_default_collate([b[i] for b in batch]) for i in range(n)]
    raise TypeError(f"collate: cannot collate items of type {type(elem).__name__}")


def utils_data_default_convert(item):
    """Convert one item when batching is off (``batch_size=None``): arrays and numbers become
    tensors, containers are converted element by element."""
    if isinstance(item, Tensor):
        return item
    if isinstance(item, np.ndarray):
        return torch_tensor(item)
    if isinstance(item, dict):
        return {k: utils_data_default_convert(v) for k, v in item.items()}
    if isinstance(item, (list, tuple)):
        return [utils_data_default_convert(v) for v in item]
    return item
