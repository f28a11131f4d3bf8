"""The data loader: batches of a dataset, in the order of a sampler, made in this process or in
worker processes (``num_workers > 0``; see ``workers.py``)."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .dataset import Dataset, IterableDataset
from .fetch import MapFetcher
from .collate import utils_data_default_collate, utils_data_default_convert
from .sampler import (BatchSampler, RandomSampler, SequentialSampler, _check_generator,
                      check_batch_size)
from .workers import WorkerPool

__all__ = ["DataLoader", "dataloader", "dataloader_make_iter", "dataloader_next",
           "is_dataloader"]


class DataLoader:
    """See :func:`dataloader`."""

    def __init__(self, dataset: Dataset | IterableDataset, batch_size: int | None = 1,
                 shuffle: bool = False, sampler: Any = None, batch_sampler: Any = None,
                 num_workers: int = 0, collate_fn: Callable[[list], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = -1,
                 worker_init_fn: Callable[[int], Any] | None = None,
                 worker_globals: dict[str, Any] | None = None,
                 worker_packages: Sequence[str] | None = None, generator: None = None) -> None:
        if not isinstance(dataset, (Dataset, IterableDataset)):
            raise TypeError(f"dataloader(): dataset must be a dataset, got "
                            f"{type(dataset).__name__}")
        _check_generator(generator)
        if isinstance(num_workers, bool) or int(num_workers) != num_workers or num_workers < 0:
            raise ValueError(f"num_workers must be a whole number >= 0, got {num_workers!r}")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn must be a function, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(f"worker_init_fn must be a function, got "
                            f"{type(worker_init_fn).__name__}")
        self.dataset = dataset
        self.iterable = isinstance(dataset, IterableDataset)
        if batch_size is not None:
            check_batch_size(batch_size)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler is mutually exclusive with batch_size, shuffle, "
                                 "sampler and drop_last")
            batch_size = None
        if self.iterable:
            if shuffle or sampler is not None or batch_sampler is not None:
                raise ValueError("dataloader(): an iterable_dataset gives its items in its own "
                                 "order: shuffle, sampler and batch_sampler cannot be used")
            if num_workers > 0:
                raise ValueError("dataloader(): num_workers > 0 is not supported for an "
                                 "iterable_dataset (its iterator cannot be shared between "
                                 "processes); use num_workers = 0")
        elif sampler is not None:
            if shuffle:
                raise ValueError("sampler is mutually exclusive with shuffle")
        elif batch_sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None and not self.iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.drop_last = bool(drop_last)
        self.num_workers = int(num_workers)
        self.collate_fn = collate_fn
        self.pin_memory = bool(pin_memory)
        self.timeout = float(timeout)
        self.worker_init_fn = worker_init_fn
        self.worker_globals = dict(worker_globals or {})
        self.worker_packages = list(worker_packages or [])

    def __len__(self) -> int:
        if self.iterable:
            # (a TypeError when the dataset has no length, as in PyTorch)
            n = len(self.dataset)  # type: ignore[arg-type]  # (__len__ is optional here)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> DataLoaderIter:
        return DataLoaderIter(self)

    def __repr__(self) -> str:
        return (f"<dataloader over {self.dataset!r}: batch_size={self.batch_size}, "
                f"shuffle={self.shuffle}, num_workers={self.num_workers}>")


class DataLoaderIter:
    """One pass over a data loader. Every pass makes its own; one that fails leaves the loader
    as it was, so the next ``for`` starts afresh. The workers of a pass are stopped when it ends,
    fails or is dropped."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._pool = None
        self._done = False
        if loader.iterable:
            self._items = iter(loader.dataset)
            self._collate = loader.collate_fn or (utils_data_default_collate
                                                  if loader.batch_size is not None
                                                  else utils_data_default_convert)
            return
        index_sampler = loader.batch_sampler if loader.batch_sampler is not None else loader.sampler
        self._fetch = MapFetcher(loader.dataset, loader.batch_sampler is not None,
                                 loader.collate_fn)
        self._indices = iter(index_sampler)
        if loader.num_workers > 0:
            self._pool = WorkerPool(self._fetch, self._indices, loader)

    def __iter__(self) -> DataLoaderIter:
        return self

    def __next__(self) -> Any:  # (a batch: what collate_fn makes of the items)
        if self._done:
            raise StopIteration
        try:
            if self._pool is not None:
                out = self._pool.next()
            elif self._loader.iterable:
                out = self._next_iterable()
            else:
                out = self._fetch(next(self._indices))
        except BaseException:
            # a failed batch in this process is skipped (the pass goes on, as in R); a failure
            # with workers, or an interrupt, stops the workers and ends the pass
            if self._pool is not None:
                self.close()
            raise
        return out

    def _next_iterable(self) -> Any:
        size = self._loader.batch_size
        if size is None:
            return self._collate(next(self._items))
        batch = []
        for x in self._items:
            batch.append(x)
            if len(batch) == size:
                return self._collate(batch)
        if batch and not self._loader.drop_last:
            return self._collate(batch)
        raise StopIteration

    def close(self) -> None:
        """Stop the pass (and its workers)."""
        self._done = True
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __del__(self) -> None:
        if self._pool is not None:
            self._pool.close()


def dataloader(dataset: Dataset | IterableDataset, batch_size: int | None = 1,
               shuffle: bool = False, sampler: Any = None, batch_sampler: Any = None,
               num_workers: int = 0, collate_fn: Callable[[list], Any] | None = None,
               pin_memory: bool = False, drop_last: bool = False, timeout: float = -1,
               worker_init_fn: Callable[[int], Any] | None = None,
               worker_globals: dict[str, Any] | None = None,
               worker_packages: Sequence[str] | None = None, generator: None = None) -> DataLoader:
    """A data loader over ``dataset``, as R torch's ``dataloader()``: ``for batch in dl``.

    ``batch_size`` items a batch (``None``: items one at a time, uncollated); ``shuffle``
    reshuffles every pass (``torch_randperm``, so ``torch_manual_seed()`` makes it
    reproducible); ``sampler`` / ``batch_sampler`` choose the items instead; ``collate_fn``
    merges a list of items (default: :func:`utils_data_default_collate`); ``drop_last`` drops
    a last, smaller batch; ``num_workers > 0`` makes batches in that many forked worker
    processes, each running ``worker_init_fn(id)`` (1-based, as in R) after importing
    ``worker_packages`` and setting ``worker_globals`` (a dict) in its ``__main__``;
    ``timeout`` (seconds, <= 0: none) bounds the wait for a worker's batch. ``pin_memory`` is
    accepted and ignored (there is no GPU), ``generator`` must be None."""
    return DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
                      collate_fn, pin_memory, drop_last, timeout, worker_init_fn,
                      worker_globals, worker_packages, generator)


def dataloader_make_iter(dataloader: DataLoader) -> DataLoaderIter:
    """A new pass over ``dataloader`` (what ``iter(dl)`` gives)."""
    return iter(dataloader)


def dataloader_next(iter: Iterator[Any], completed: Any = None) -> Any:
    """The next batch of ``iter``, or ``completed`` once it is exhausted."""
    return next(iter, completed)


def is_dataloader(x: object) -> bool:
    """Whether ``x`` is a data loader."""
    return isinstance(x, DataLoader)


