"""Bridge helpers for R's data loading (``r-shim/R/data-*.R``): the rows of several tensors at
one R index vector in one crossing (``tensor_dataset``'s ``.getbatch``), and tensors as bytes for
the data loader's worker processes.

Batches made for R live until R's garbage collector finds them dead, so a pass over a dataset
would take fresh memory for every batch (in a loop over 400 KB batches, the page faults cost
several times the copy). The rows are therefore written into buffers that come back to a pool
when their array is freed: once R has collected the first batches, later ones reuse their
memory. The pool keeps at most ``POOL_CAP`` bytes."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .handles import Raw, _get, guarded

POOL_CAP = 256 << 20
_pool: dict = {}        # size in bytes -> free buffers (uint8 arrays) of that size
_pooled = [0]           # bytes in the pool


class _Lease:
    """The base of an array written into a pooled buffer: hands the buffer back when the array
    and every view of it are gone. NumPy takes it as an array through
    ``__array_interface__`` and keeps it as the array's base."""

    __slots__ = ("buf", "__array_interface__")

    def __init__(self, buf, shape, dtype):
        self.buf = buf
        self.__array_interface__ = {"version": 3, "shape": tuple(shape), "typestr": dtype.str,
                                    "data": (buf.ctypes.data, False)}

    def __del__(self):
        n = self.buf.nbytes
        if _pooled[0] + n <= POOL_CAP:
            _pool.setdefault(n, []).append(self.buf)
            _pooled[0] += n


def _take(t, idx):
    """``t[idx]`` (idx in range), in a pooled buffer unless it records a gradient."""
    if t.requires_grad or t.ndim == 0:
        return t[idx]
    src = t._data
    shape = (len(idx),) + src.shape[1:]
    n = int(np.prod(shape)) * src.dtype.itemsize
    free = _pool.get(n)
    if free:
        buf = free.pop()
        _pooled[0] -= n
    else:
        buf = np.empty(max(n, 1), dtype=np.uint8)
    out = np.asarray(_Lease(buf, shape, src.dtype))
    np.take(src, idx, axis=0, out=out, mode="clip")  # (in range: checked by the caller)
    return Tensor._make(out)


def _r_indices(index):
    """1-based R indices (a list of whole numbers: the C bridge passes an R vector turned into a
    list) as 0-based int64 positions."""
    idx = np.asarray(index if isinstance(index, list) else [index])
    if idx.dtype.kind == "f":
        if not np.all(np.isfinite(idx)) or np.any(idx != np.floor(idx)):
            raise ValueError("indices must be whole numbers")
    elif idx.dtype.kind not in "iu" and idx.size:
        raise TypeError("indices must be whole numbers")
    return idx.astype(np.int64) - 1


@guarded
def take_rows(tensors, index, drop=False):
    """``lapply(tensors, function(x) x[index, ..])`` in one call: each tensor indexed once
    along its first dim at the 1-based ``index`` (one index and ``drop``: that dim dropped)."""
    tensors = [_get(h) for h in tensors]
    idx = _r_indices(index)
    n = tensors[0].shape[0]
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise IndexError(f"index {int(bad[0]) + 1} is out of bounds for a tensor_dataset of {n} "
                         f"items")
    out = [_take(t, idx) for t in tensors]
    return [t.squeeze(0) for t in out] if drop and len(idx) == 1 else out


class TensorEpoch:
    """One pass of R's dataloader over a ``tensor_dataset`` with the built-in samplers: the
    pass's order (R's 1-based indices, drawn by the R side's sampler) is sent once, and each
    batch is then one crossing with nothing to convert, the rows taken here."""

    __slots__ = ("tensors", "order", "size", "stop", "pos")

    def __init__(self, tensors, order, size, stop):
        self.tensors, self.order, self.size, self.stop, self.pos = tensors, order, size, stop, 0

    def next_batch(self):
        """The next batch's tensors, or None at the end of the pass."""
        if self.pos >= self.stop:
            return None
        idx = self.order[self.pos:min(self.pos + self.size, self.stop)]
        self.pos += self.size
        return [_take(t, idx) for t in self.tensors]


@guarded
def tensor_epoch(tensors, order, batch_size, drop_last):
    """A :class:`TensorEpoch` over the tensors (handles) in ``order`` (a tensor of 0-based
    positions)."""
    tensors = [_get(h) for h in tensors]
    order = _get(order)
    if not isinstance(order, Tensor) or order.ndim != 1 or order._data.dtype.kind not in "iu":
        raise TypeError("dataloader: a pass's order must be a 1-d integer tensor")
    idx = order._data.astype(np.int64, copy=False)
    n = tensors[0].shape[0]
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise IndexError(f"dataloader: the sampler gave index {int(bad[0]) + 1}, out of range "
                         f"for a dataset of {n} items")
    size = int(batch_size)
    if size < 1:
        raise ValueError(f"batch_size must be a whole number >= 1, got {batch_size}")
    stop = len(idx) - len(idx) % size if drop_last else len(idx)
    return TensorEpoch(tensors, idx, size, stop)


@guarded
def tensor_epoch_next(h):
    """The next batch of a :func:`tensor_epoch` pass (None at its end)."""
    return _get(h).next_batch()


@guarded
def export_tensor(h):
    """A tensor as (raw bytes in C order, NumPy dtype name, shape, requires_grad): what a data
    loader worker process sends back to R's main process (R serializes it; a handle would not
    survive the trip). Exact for every dtype."""
    t = _get(h)
    a = np.ascontiguousarray(t._data)
    return Raw(["v", [bytearray(a.tobytes()), a.dtype.name, list(a.shape),
                      bool(t.requires_grad)]])


@guarded
def import_tensor(data, dtype_name, shape, requires_grad=False):
    """The tensor :func:`export_tensor` described."""
    shape = [int(s) for s in (shape if isinstance(shape, list) else [shape])]
    a = np.frombuffer(bytes(data), dtype=np.dtype(dtype_name)).reshape(shape).copy()
    t = Tensor._make(a)
    return t.requires_grad_(True) if requires_grad else t
