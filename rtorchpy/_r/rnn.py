"""Recurrent modules and packed sequences for R (``r-shim/R/nn-rnn.R``). R's modules hold their
parameters; their forward hands the configuration and the flat weight list to
``rnn_forward``, one crossing per call. A packed sequence crosses as its four parts (R's
permutation indices 1-based); ``None`` parts come back as undefined tensors, which R turns
into ``NULL``."""
from __future__ import annotations

from types import SimpleNamespace

from ..nn.rnn import recurrent_forward
from ..nn.rnn_utils import (PackedSequence, nn_utils_rnn_pack_padded_sequence,
                            nn_utils_rnn_pad_packed_sequence, nn_utils_rnn_pad_sequence)
from ..tensor import Tensor
from .handles import _dec, guarded

_INTS = ("input_size", "hidden_size", "num_layers", "proj_size")
_FLAGS = ("bias", "batch_first", "bidirectional", "training")


def _config(cfg):
    cfg = dict(_dec(cfg))
    for k in _INTS:
        cfg[k] = int(cfg[k])
    for k in _FLAGS:
        cfg[k] = bool(cfg[k])
    cfg["dropout"] = float(cfg["dropout"])
    return SimpleNamespace(**cfg)


def _shift(t, by):
    return None if t is None or not isinstance(t, Tensor) else t + by


def _packed(parts):
    data, bs, si, ui = (_dec(p) for p in parts)
    return PackedSequence(data, bs, _shift(si, -1), _shift(ui, -1))


def _parts(p):
    return [p.data, p.batch_sizes, _shift(p.sorted_indices, 1), _shift(p.unsorted_indices, 1)]


@guarded
def rnn_forward(cfg, weights, input, hx, packed):
    """``[output (or the packed output's data), h_n]``, plus ``c_n`` for an LSTM."""
    m = _config(cfg)
    x = _packed(input) if packed else _dec(input)
    hx = _dec(hx)
    if isinstance(hx, list):
        hx = tuple(hx)
    out, states = recurrent_forward(m, list(_dec(weights)), x, hx)
    if isinstance(out, PackedSequence):
        out = out.data
    return [out] + (list(states) if isinstance(states, tuple) else [states])


@guarded
def rnn_pack_padded(input, lengths, batch_first, enforce_sorted):
    return _parts(nn_utils_rnn_pack_padded_sequence(_dec(input), _dec(lengths),
                                                    bool(batch_first), bool(enforce_sorted)))


@guarded
def rnn_pad_packed(parts, batch_first, padding_value, total_length):
    total = None if total_length is None else int(total_length)
    padded, lengths = nn_utils_rnn_pad_packed_sequence(_packed(parts), bool(batch_first),
                                                       padding_value, total)
    return [padded, lengths]


@guarded
def rnn_pad_sequence(sequences, batch_first, padding_value):
    return nn_utils_rnn_pad_sequence(_dec(sequences), bool(batch_first), padding_value)
