"""Worker processes for ``dataloader(num_workers > 0)`` in Python: a pool of forked processes
per pass. The fetcher (dataset and collate function) reaches the workers through the fork, not
through pickling, so any dataset works; only index arrays go out and batches come back, with
tensors sent as NumPy arrays. Each batch gets its own seed (the pass's base seed plus its
number), so random transforms in ``__getitem__`` give the same batches whichever worker runs
them."""
from __future__ import annotations

import collections
import importlib
import multiprocessing
import sys
import time
import traceback

import numpy as np

from ..ops.creation import torch_randint, torch_tensor
from ..ops.random_state import torch_manual_seed
from ..tensor import Tensor

__all__ = []

# what a forked worker inherits: the pass's fetcher and settings, by the pass's key
_PASSES: dict = {}

# seconds closing a pass waits for its batches in flight when the loader sets no timeout
_DRAIN_LIMIT = 10.0


class _Array:
    """A tensor on its way from a worker: its array and whether it required grad."""

    __slots__ = ("array", "requires_grad")

    def __init__(self, array, requires_grad):
        self.array, self.requires_grad = array, requires_grad


def _export(x):
    if isinstance(x, Tensor):
        return _Array(x.detach().numpy(), x.requires_grad)
    if isinstance(x, dict):
        return {k: _export(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_export(v) for v in x) if isinstance(x, list) else tuple(
            _export(v) for v in x)
    return x


def _import(x):
    if isinstance(x, _Array):
        return torch_tensor(x.array, requires_grad=x.requires_grad)
    if isinstance(x, dict):
        return {k: _import(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_import(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_import(v) for v in x)
    return x


def _worker_start(key, counter):
    with counter.get_lock():
        counter.value += 1
        wid = counter.value
    p = _PASSES[key]
    p["id"] = wid
    for name in p["packages"]:
        importlib.import_module(name)
    main = sys.modules["__main__"]
    for name, value in p["globals"].items():
        setattr(main, name, value)
    if p["init"] is not None:
        p["init"](wid)


def _worker_fetch(key, index, seed):
    p = _PASSES[key]
    torch_manual_seed(seed)
    try:
        return True, _export(p["fetch"](index))
    except BaseException as e:  # noqa: BLE001 - every failure goes back to the main process
        return False, (type(e).__name__, str(e), p["id"], traceback.format_exc())


class WorkerPool:
    """Runs the fetches of one pass in ``loader.num_workers`` forked processes, keeping two
    batches per worker in flight and handing batches back in the sampler's order."""

    def __init__(self, fetch, indices, loader):
        if "fork" not in multiprocessing.get_all_start_methods():
            raise RuntimeError("dataloader(): num_workers > 0 needs fork()-ed worker processes, "
                               "which this platform does not have; use num_workers = 0")
        self._key = id(self)
        self._timeout = loader.timeout if loader.timeout > 0 else None
        self._indices = indices
        self._base = int(torch_randint(0, 2 ** 31 - 1, (1,)).numpy()[0])
        self._count = 0
        _PASSES[self._key] = {"fetch": fetch, "packages": loader.worker_packages,
                              "globals": loader.worker_globals, "init": loader.worker_init_fn}
        ctx = multiprocessing.get_context("fork")
        self._pool = ctx.Pool(loader.num_workers, _worker_start, (self._key, ctx.Value("i", 0)))
        self._pending = collections.deque()
        for _ in range(2 * loader.num_workers):
            self._submit()

    def _submit(self):
        index = next(self._indices, None)
        if index is None:
            return
        self._pending.append(self._pool.apply_async(
            _worker_fetch, (self._key, np.asarray(index), self._base + self._count)))
        self._count += 1

    def next(self):
        if not self._pending:
            self.close()
            raise StopIteration
        job = self._pending.popleft()
        try:
            ok, value = job.get(self._timeout)
        except multiprocessing.TimeoutError:
            raise RuntimeError(f"dataloader: no batch from the workers within the timeout of "
                               f"{self._timeout} s") from None
        if not ok:
            kind, message, wid, _ = value
            raise RuntimeError(f"dataloader worker {wid} failed: {kind}: {message}")
        self._submit()
        return _import(value)

    def close(self):
        pool, self._pool = getattr(self, "_pool", None), None
        if pool is not None:
            # the batches in flight finish first (a bounded wait): terminate() kills the
            # workers, and one killed while it writes its result leaves the result queue's lock
            # taken, on which terminate() itself then waits forever (multiprocessing.Pool)
            limit = time.monotonic() + (self._timeout or _DRAIN_LIMIT)
            for job in getattr(self, "_pending", ()):
                job.wait(max(0.0, limit - time.monotonic()))
            pool.terminate()
            pool.join()
        _PASSES.pop(self._key, None)
