"""Samplers: which items a data loader takes, and in what order. A sampler is iterable (over
0-based item indices; a batch sampler over arrays of them) and has a length."""
from __future__ import annotations

import numpy as np

from ..ops.creation import torch_randint, torch_randperm

__all__ = ["Sampler", "sampler", "sampler_sequential", "sampler_random", "sampler_batch",
           "SequentialSampler", "RandomSampler", "BatchSampler"]


class Sampler:
    """Base class of samplers: define ``__iter__`` (0-based indices) and ``__len__``.
    ``indices()`` gives a whole epoch's indices at once; the built-in samplers make it an
    array operation."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __iter__()")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__()")

    def indices(self):
        return np.fromiter((int(i) for i in self), dtype=np.int64)


def sampler(name=None, inherit=None, initialize=None, iter=None, length=None, **methods):
    """Define a sampler class, as R torch's ``sampler()`` does: ``iter(self)`` returns an
    iterator over indices (0-based), ``length(self)`` their number. Returns the class."""
    parent = Sampler if inherit is None else inherit
    if not (isinstance(parent, type) and issubclass(parent, Sampler)):
        raise TypeError(f"inherit must be a sampler class, got {parent!r}")
    ns = dict(methods)
    for key, fn in (("__init__", initialize), ("__iter__", iter), ("__len__", length)):
        if fn is not None:
            if not callable(fn):
                raise TypeError(f"{key.strip('_')} must be a function, got {type(fn).__name__}")
            ns[key] = fn
    return type(name or "sampler", (parent,), ns)


class SequentialSampler(Sampler):
    """0, 1, ..., n-1."""

    def __iter__(self):
        return iter(range(len(self)))

    def __len__(self):
        return len(self.data_source)

    def indices(self):
        return np.arange(len(self), dtype=np.int64)


class RandomSampler(Sampler):
    """A random permutation of the items (``torch_randperm``), or ``num_samples`` draws with
    replacement (``torch_randint``): ``torch_manual_seed()`` makes either reproducible."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        _check_generator(generator)
        if num_samples is not None and (int(num_samples) != num_samples or num_samples < 1):
            raise ValueError(f"num_samples must be a positive whole number, got {num_samples}")
        if num_samples is not None and not replacement:
            raise ValueError("num_samples can only be given with replacement=True")
        self.replacement = bool(replacement)
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else int(self._num_samples)

    def __len__(self):
        return self.num_samples

    def indices(self):
        n = len(self.data_source)
        if self.replacement:
            return torch_randint(0, n, (self.num_samples,)).numpy().astype(np.int64)
        return torch_randperm(n).numpy().astype(np.int64)

    def __iter__(self):
        return iter(self.indices().tolist())


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into batches of ``batch_size`` (arrays); the last,
    smaller batch is dropped when ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last=False):
        super().__init__(None)
        check_batch_size(batch_size)
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.drop_last = bool(drop_last)

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        idx = epoch_indices(self.sampler)
        b = self.batch_size
        stop = len(idx) - len(idx) % b if self.drop_last else len(idx)
        return (idx[s:s + b] for s in range(0, stop, b))


def epoch_indices(sampler):
    """All the indices ``sampler`` gives in one epoch, as an int64 array; refused when their
    number is not the sampler's length (the loader's length and batches would disagree)."""
    get = getattr(sampler, "indices", None)
    idx = get() if get is not None else np.fromiter((int(i) for i in sampler), dtype=np.int64)
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    if len(idx) != len(sampler):
        raise ValueError(f"sampler {type(sampler).__name__} gave {len(idx)} indices, but its "
                         f"length is {len(sampler)}")
    return idx


def check_batch_size(batch_size):
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer, float)) \
            or int(batch_size) != batch_size or batch_size < 1:
        raise ValueError(f"batch_size must be a whole number >= 1, got {batch_size!r}")


def _check_generator(generator):
    if generator is not None:
        raise ValueError("generator: only None is supported (the random samplers draw from the "
                         "global generator; use torch_manual_seed() for reproducible shuffling)")


def sampler_sequential(data_source):
    """A sampler giving the items of ``data_source`` in order."""
    return SequentialSampler(data_source)


def sampler_random(data_source, replacement=False, num_samples=None, generator=None):
    """A sampler giving the items of ``data_source`` in random order (see RandomSampler)."""
    return RandomSampler(data_source, replacement, num_samples, generator)


def sampler_batch(sampler, batch_size, drop_last=False):
    """A batch sampler grouping the indices of ``sampler``."""
    return BatchSampler(sampler, batch_size, drop_last)
