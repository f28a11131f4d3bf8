"""Making one batch: the items of a batch of indices, collated. Shared by the loader in the
main process and its worker processes."""
from __future__ import annotations

import numpy as np

from .collate import utils_data_default_collate, utils_data_default_convert

__all__ = []


class MapFetcher:
    """Fetches batches from a map-style dataset: ``getbatch`` once when the dataset has it,
    else ``dataset[i]`` for each index, then ``collate_fn``."""

    def __init__(self, dataset, batched, collate_fn):
        self.dataset = dataset
        self.n = len(dataset)
        self.getbatch = getattr(dataset, "getbatch", None)
        self.batched = batched
        if collate_fn is None:
            collate_fn = (utils_data_default_collate if batched and self.getbatch is None
                          else utils_data_default_convert)
        self.collate_fn = collate_fn

    def _check(self, idx):
        bad = idx[(idx < 0) | (idx >= self.n)]
        if bad.size:
            raise IndexError(f"dataloader: the sampler gave index {int(bad[0])}, out of range for "
                             f"a dataset of {self.n} items")

    def __call__(self, index):
        if not self.batched:
            i = int(index)
            self._check(np.asarray([i]))
            return self.collate_fn(item(self.dataset, i))
        idx = np.asarray(index, dtype=np.int64).reshape(-1)
        self._check(idx)
        if self.getbatch is not None:
            try:
                data = self.getbatch(idx)
            except Exception as e:
                raise _renamed(e, f"dataset getbatch() failed for the batch of items "
                                  f"{_show(idx)}: {e}") from e
            return self.collate_fn(data)
        return self.collate_fn([item(self.dataset, int(i)) for i in idx])


def item(dataset, i):
    """``dataset[i]``, with an error that names the item."""
    try:
        return dataset[i]
    except Exception as e:
        raise _renamed(e, f"dataset item {i} failed: {e}") from e


def _renamed(e, message):
    """The same kind of error with ``message`` (a built-in exception type is kept, so
    ``except IndexError`` still catches it; others become RuntimeError)."""
    if type(e).__module__ == "builtins":
        try:
            return type(e)(message)
        except Exception:  # noqa: BLE001 - a built-in type that takes other arguments
            pass
    return RuntimeError(message)


def _show(idx):
    return str(idx[:8].tolist())[:-1] + (", ...]" if len(idx) > 8 else "]")
