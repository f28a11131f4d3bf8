"""Data loading, as R torch's: datasets (``dataset()``, ``tensor_dataset``, ``dataset_subset``,
``iterable_dataset()``, ``random_split``), samplers and ``dataloader()``, with Python's
conventions (0-based items, ``for batch in dl``).

    >>> from rtorchpy import torch_randn, tensor_dataset, dataloader
    >>> ds = tensor_dataset(torch_randn(10, 3), torch_randn(10))
    >>> [len(b[0]) for b in dataloader(ds, batch_size=4)]
    [4, 4, 2]
"""
from .collate import *  # noqa: F401,F403
from .collate import __all__ as _collate
from .dataloader import *  # noqa: F401,F403
from .dataloader import __all__ as _dataloader
from .dataset import *  # noqa: F401,F403
from .dataset import __all__ as _dataset
from .sampler import *  # noqa: F401,F403
from .sampler import __all__ as _sampler

__all__ = sorted(set(_collate + _dataloader + _dataset + _sampler))
