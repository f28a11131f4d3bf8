"""``nnf_embedding_bag``: sums, means or maxima of bags of embedding rows, without a loop over
bags. Sums and means are one product of a (bags x rows) weight matrix with the looked-up rows;
maxima gather each bag's rows into a padded block (the padding at -inf) and take its maximum.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .arith import div, mul
from .creation import torch_full
from .index import index_select
from .linalg import matmul
from .nnf_layers import nnf_embedding
from .registry import as_tensor
from .shape import cat

__all__ = ["nnf_embedding_bag"]


def _bags(input, offsets, include_last_offset):
    """Each looked-up row's bag (or -1 when it belongs to none), and the number of bags."""
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences.")
        B, n = idx.shape
        return np.repeat(np.arange(B), n), B
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    offs = as_tensor(offsets)._data
    if offs.ndim != 1 or offs.dtype.kind not in "iu":
        raise ValueError("offsets has to be a 1D Tensor of integers")
    offs = offs.astype(np.int64)
    n = idx.shape[0]
    if offs.size and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(offs[0])}")
    if offs.size and (np.any(np.diff(offs) < 0) or offs[-1] > n):
        raise RuntimeError("offsets must be non-decreasing and at most the input's length")
    starts = offs[:-1] if include_last_offset else offs
    bag = np.searchsorted(starts, np.arange(n), side="right") - 1
    if include_last_offset and offs.size:
        bag[np.arange(n) >= offs[-1]] = -1
    return bag, starts.shape[0]


def nnf_embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                      scale_grad_by_freq=False, mode="mean", sparse=False,
                      per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Bags of rows of ``weight`` reduced by ``mode`` (``"sum"``, ``"mean"``, ``"max"``): a
    2-d ``input`` is one bag per row; a 1-d ``input`` is cut into bags at ``offsets`` (their
    starts, 0-based in both languages, as R torch passes them to libtorch). Entries equal to
    ``padding_idx`` are left out; an empty bag gives zeros. ``per_sample_weights`` (sum
    only) scale each row first."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    input, weight = as_tensor(input), as_tensor(weight)
    bag, B = _bags(input, offsets, include_last_offset)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}').")
    flat = input.reshape(-1)
    rows = nnf_embedding(flat, weight, max_norm=max_norm, norm_type=norm_type,
                         scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    use = bag >= 0
    if padding_idx is not None:
        p = int(padding_idx) % weight.shape[0]
        use &= flat._data != p
    n, D = rows.shape
    dt = rows._data.dtype
    if per_sample_weights is not None:
        rows = mul(rows, as_tensor(per_sample_weights).reshape(-1, 1))
    if mode in ("sum", "mean"):
        M = np.zeros((B, n), dt)
        M[bag[use], np.nonzero(use)[0]] = 1
        out = matmul(Tensor._make(M), rows)
        if mode == "mean":
            counts = np.maximum(M.sum(1, keepdims=True), 1).astype(dt)
            out = div(out, Tensor._make(counts))
        return out
    counts = np.bincount(bag[use], minlength=B)
    width = max(int(counts.max()) if B else 0, 1)
    gather = np.full((B, width), n, np.int64)   # row n: the -inf padding
    pos = np.arange(n)[use]
    slot = np.arange(pos.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    gather[bag[use], slot] = pos
    ext = cat([rows, torch_full((1, D), float("-inf"), dtype=rows.dtype)], 0)
    block = index_select(ext, 0, Tensor._make(gather.reshape(-1))).reshape(B, width, D)
    out = block.max(1)[0]  # (libtorch's gradient goes to the first maximum, as max's does)
    if np.any(counts == 0):
        out = out.masked_fill(Tensor._make((counts == 0)[:, None]), 0.0)
    return out
