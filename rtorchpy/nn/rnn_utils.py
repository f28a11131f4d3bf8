"""Packed sequences: a batch of sequences of different lengths stored step by step without the
padding (``nn_utils_rnn_pack_padded_sequence``, ``pack_sequence``, ``pad_packed_sequence``,
``pad_sequence``), which the recurrent modules accept as input.

A packed sequence's ``data`` holds, for each time step in turn, the rows of the sequences still
running at that step, longest sequence first; ``batch_sizes[t]`` says how many. Moving between
packed and padded is one ``index_select`` (a padded tensor's rows picked, or packed rows with a
padding row appended), so gradients flow through both directions.
"""
from __future__ import annotations

import numpy as np

from ..ops.creation import torch_full, torch_tensor
from ..ops.index import index_select
from ..ops.shape import cat, stack
from ..tensor import Tensor

__all__ = ["PackedSequence", "nn_utils_rnn_pack_padded_sequence", "nn_utils_rnn_pack_sequence",
           "nn_utils_rnn_pad_packed_sequence", "nn_utils_rnn_pad_sequence", "is_packed_sequence"]

_UNSORTED = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
             "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
             "to sidestep this requirement if you do not need ONNX exportability.")


class PackedSequence:
    """``data`` (steps' rows, stacked), ``batch_sizes`` (int64, rows per step),
    ``sorted_indices`` / ``unsorted_indices`` (int64 permutations of the batch, or None when the
    sequences came sorted)."""

    __slots__ = ("data", "batch_sizes", "sorted_indices", "unsorted_indices")

    def __init__(self, data, batch_sizes, sorted_indices=None, unsorted_indices=None):
        self.data, self.batch_sizes = data, batch_sizes
        self.sorted_indices, self.unsorted_indices = sorted_indices, unsorted_indices

    def __iter__(self):  # unpacks as PyTorch's named tuple does
        return iter((self.data, self.batch_sizes, self.sorted_indices, self.unsorted_indices))

    def __repr__(self):
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, "
                f"unsorted_indices={self.unsorted_indices!r})")


def is_packed_sequence(x):
    return isinstance(x, PackedSequence)


def _lengths(lengths):
    if isinstance(lengths, Tensor):
        arr = lengths._data
    else:
        arr = np.atleast_1d(np.asarray(lengths))
    if arr.ndim != 1 or arr.dtype.kind not in "iuf" or \
            (arr.dtype.kind == "f" and not np.all(arr == np.round(arr))):
        raise ValueError("'lengths' must be a 1-D sequence of whole numbers")
    return arr.astype(np.int64)


def _long(a):
    return torch_tensor(np.asarray(a, dtype=np.int64))


def packed_rows(batch_sizes, B):
    """For each packed row, its row in the padded ``(T * B)`` layout (time-major)."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    T = bs.shape[0]
    live = np.arange(B)[None, :] < bs[:, None]
    return (np.arange(T)[:, None] * B + np.arange(B)[None, :])[live]


def padded_rows(batch_sizes, B):
    """For each row of the padded ``(T * B)`` layout, its packed row, or N (the padding row
    appended after the N packed rows) where the sequence has ended."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    n = int(bs.sum())
    out = np.full(bs.shape[0] * B, n, dtype=np.int64)
    out[packed_rows(bs, B)] = np.arange(n)
    return out


def nn_utils_rnn_pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of
    the given ``lengths``; unless ``enforce_sorted``, the batch is sorted by length first."""
    if not isinstance(input, Tensor):
        raise TypeError("nn_utils_rnn_pack_padded_sequence(): 'input' must be a tensor")
    lens = _lengths(lengths)
    if input.dim() < 2:
        raise ValueError("nn_utils_rnn_pack_padded_sequence(): 'input' must have at least 2 "
                         f"dimensions, got {input.dim()}")
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if lens.shape[0] != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.shape[0]} (batch_size={B})")
    sorted_indices = unsorted_indices = None
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError(_UNSORTED)
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = _long(order)
        unsorted_indices = _long(np.argsort(order, kind="stable"))
        input = index_select(input, 1, sorted_indices)
    if B and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if B and lens[0] > T:
        raise RuntimeError(f"Expected sequence length to be at most {T} (the input's length), "
                           f"but got a length of {int(lens[0])}")
    steps = int(lens[0]) if B else 0
    batch_sizes = (lens[None, :] > np.arange(steps)[:, None]).sum(1)
    flat = input.reshape(T * B, *input.shape[2:])
    data = index_select(flat, 0, _long(packed_rows(batch_sizes, B)))
    return PackedSequence(data, _long(batch_sizes), sorted_indices, unsorted_indices)


def nn_utils_rnn_pad_packed_sequence(sequence, batch_first=False, padding_value=0.0,
                                     total_length=None):
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, the batch in its original order,
    padded with ``padding_value`` to the longest length (or ``total_length``)."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError("nn_utils_rnn_pad_packed_sequence(): 'sequence' must be a "
                        "PackedSequence")
    data, bs = sequence.data, sequence.batch_sizes._data.astype(np.int64)
    T = bs.shape[0]
    B = int(bs[0]) if T else 0
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {T}")
    rest = tuple(data.shape[1:])
    pad_row = torch_full((1,) + rest, padding_value, dtype=data.dtype)
    ext = cat([data, pad_row], 0)
    rows = padded_rows(bs, B)
    if total_length is not None and total_length > T:
        rows = np.concatenate([rows, np.full((total_length - T) * B, data.shape[0], np.int64)])
        T = total_length
    padded = index_select(ext, 0, _long(rows)).reshape(T, B, *rest)
    lengths = (bs[None, :] > np.arange(B)[:, None]).sum(1)
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _long(lengths)


def nn_utils_rnn_pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """Stack sequences ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``),
    padding each with ``padding_value`` to the longest."""
    seqs = list(sequences)
    if not seqs or not all(isinstance(s, Tensor) and s.dim() >= 1 for s in seqs):
        raise TypeError("nn_utils_rnn_pad_sequence(): 'sequences' must be a non-empty list of "
                        "tensors of at least one dimension")
    T = max(s.shape[0] for s in seqs)
    out = []
    for s in seqs:
        if s.shape[0] < T:
            s = cat([s, torch_full((T - s.shape[0],) + tuple(s.shape[1:]), padding_value,
                                   dtype=s.dtype)], 0)
        out.append(s)
    return stack(out, 0 if batch_first else 1)


def nn_utils_rnn_pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences ``(L_i, *)`` (longest first unless not ``enforce_sorted``)."""
    seqs = list(sequences)
    lengths = [s.shape[0] if isinstance(s, Tensor) and s.dim() >= 1 else 0 for s in seqs]
    return nn_utils_rnn_pack_padded_sequence(nn_utils_rnn_pad_sequence(seqs), lengths,
                                             enforce_sorted=enforce_sorted)
