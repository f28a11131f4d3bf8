"""Recurrent modules: ``nn_rnn`` (tanh or relu), ``nn_lstm`` (with ``proj_size``) and
``nn_gru``, multi-layer, optionally bidirectional, on padded or packed input.

Each layer and direction is one autograd node (``ops/rnn.py``): the input projection of all
steps is one matrix product and the loop over time is one NumPy loop, forward and backward.
Parameters are named and ordered as PyTorch's (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0``, then ``_reverse``) and drawn uniformly in
``+-1/sqrt(hidden_size)`` in that order, so a seed gives PyTorch's weights.
"""
from __future__ import annotations

import math

import numpy as np

from ..numerics.args import size
from ..numerics.warn import warn
from ..ops.creation import torch_empty, torch_zeros
from ..ops.index import index_select
from ..ops.nnf_layers import nnf_dropout
from ..ops.rnn import rnn_layer
from ..ops.shape import cat, stack
from ..tensor import Tensor
from .init import nn_init_uniform_
from .module import nn_module, nn_parameter
from .rnn_utils import PackedSequence, _long, packed_rows, padded_rows

__all__ = ["nn_rnn", "nn_lstm", "nn_gru"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_KERNEL = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def rnn_run(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_sizes=None, proj_size=0):
    """The layers of a recurrent network over a time-major padded ``input`` ``(T, B, I)``.
    ``hx`` is ``h0`` (``(layers * directions, B, H)``) or ``(h0, c0)`` for an LSTM; ``params``
    the flat list of weights in PyTorch's order. Returns ``(output, h_n)`` or
    ``(output, (h_n, c_n))``."""
    kind = _KERNEL[mode]
    D = 2 if bidirectional else 1
    per = 2 + (2 if has_biases else 0) + (1 if proj_size else 0)
    h0, c0 = (hx if mode == "LSTM" else (hx, None))
    x = input
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            w = params[k * per:(k + 1) * per]
            w_ih, w_hh = w[0], w[1]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if proj_size else None
            out, h, c = rnn_layer(kind, x, h0[k], None if c0 is None else c0[k], w_ih, w_hh,
                                  b_ih, b_hh, w_hr, batch_sizes, d == 1)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        x = outs[0] if D == 1 else cat(outs, 2)
        if dropout and train and layer < num_layers - 1:
            x = nnf_dropout(x, dropout, True)
    h_n = stack(hs, 0)
    if mode == "LSTM":
        return x, (h_n, stack(cs, 0))
    return x, h_n


class _rnn_base(nn_module):
    """What the three modules share: parameters, checks, packed input."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, dtype=None):
        name = self._name
        self.mode = mode
        self.input_size = size(input_size, "input_size", name)
        self.hidden_size = size(hidden_size, "hidden_size", name)
        self.num_layers = size(num_layers, "num_layers", name)
        self.proj_size = size(proj_size, "proj_size", name)
        self.bias, self.batch_first = bool(bias), bool(batch_first)
        self.bidirectional = bool(bidirectional)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        self.dropout = float(dropout)
        if self.hidden_size <= 0:
            raise ValueError(f"hidden_size must be greater than 0, but got {hidden_size}")
        if self.num_layers <= 0:
            raise ValueError(f"num_layers must be greater than 0, but got {num_layers}")
        if self.dropout > 0 and self.num_layers == 1:
            warn("dropout option adds dropout after all but last recurrent layer, so "
                 "non-zero dropout expects num_layers greater than 1, but got "
                 f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        if self.proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if self.proj_size >= self.hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gate = _GATES[mode] * self.hidden_size
        D = 2 if self.bidirectional else 1
        out_size = self.proj_size or self.hidden_size
        self._flat_names = []
        for layer in range(self.num_layers):
            for d in range(D):
                isz = self.input_size if layer == 0 else out_size * D
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih", (gate, isz)), ("weight_hh", (gate, out_size))]
                if self.bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                if self.proj_size:
                    shapes.append(("weight_hr", (self.proj_size, self.hidden_size)))
                for pname, shape in shapes:
                    setattr(self, pname + suffix, nn_parameter(torch_empty(*shape, dtype=dtype)))
                    self._flat_names.append(pname + suffix)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters.values():
            nn_init_uniform_(w, -stdv, stdv)

    @property
    def flat_weights(self):
        return [getattr(self, n) for n in self._flat_names]

    def forward(self, input, hx=None):
        return recurrent_forward(self, self.flat_weights, input, hx)


def _check(self, w, x):
    if x.dtype != w.dtype:
        raise RuntimeError(f"input must have the type {w.dtype}, got type {x.dtype}")
    if x.shape[-1] != self.input_size:
        raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                           f"{self.input_size}, got {x.shape[-1]}")


def _check_hidden(self, h, expected, label):
    if not isinstance(h, Tensor):
        raise TypeError(f"{self._name}(): the initial state must be a tensor")
    if tuple(h.shape) != expected:
        raise RuntimeError(f"Expected {label} size {expected}, got {list(h.shape)}")


def recurrent_forward(self, weights, input, hx=None):
    """A recurrent module's forward: ``self`` gives the configuration (``mode``, sizes,
    ``bias``, ``batch_first``, ``dropout``, ``bidirectional``, ``proj_size``, ``training``),
    ``weights`` the flat list of parameters (the R face passes its module's)."""
    lstm = self.mode == "LSTM"
    D = 2 if self.bidirectional else 1
    H = self.proj_size or self.hidden_size
    packed = isinstance(input, PackedSequence)
    unbatched = False
    if packed:
        data, bs = input.data, input.batch_sizes._data.astype(np.int64)
        if not isinstance(data, Tensor) or data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got "
                               f"{data.dim() if isinstance(data, Tensor) else 0}")
        _check(self, weights[0], data)
        T, B = bs.shape[0], int(bs[0]) if bs.shape[0] else 0
        ext = cat([data, torch_zeros(1, data.shape[1], dtype=data.dtype)], 0)
        x = index_select(ext, 0, _long(padded_rows(bs, B))).reshape(T, B, data.shape[1])
    else:
        if not isinstance(input, Tensor):
            raise TypeError(f"{self._name}(): 'input' must be a tensor or a packed sequence")
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._label}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D instead")
        _check(self, weights[0], input)
        x, bs = input, None
        if input.dim() == 2:
            unbatched = True
            x = x.unsqueeze(1)
        elif self.batch_first:
            x = x.transpose(0, 1)
        B = x.shape[1]
    shape_h = (self.num_layers * D, B, H)
    shape_c = (self.num_layers * D, B, self.hidden_size)
    if hx is None:
        h0 = torch_zeros(*shape_h, dtype=x.dtype)
        hx = (h0, torch_zeros(*shape_c, dtype=x.dtype)) if lstm else h0
    else:
        if lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError("nn_lstm(): 'hx' must be a list of two tensors (h_0, c_0)")
            hx = tuple(hx)
        else:
            hx = (hx,)
        if unbatched:
            for h in hx:
                if isinstance(h, Tensor) and h.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but "
                                       f"got {h.dim()}-D tensor")
            hx = tuple(h.unsqueeze(1) for h in hx)
        elif any(isinstance(h, Tensor) and h.dim() != 3 for h in hx):
            h = next(h for h in hx if h.dim() != 3)
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{h.dim()}-D tensor")
        if packed and input.sorted_indices is not None:
            hx = tuple(index_select(h, 1, input.sorted_indices) for h in hx)
        if lstm:
            _check_hidden(self, hx[0], shape_h, "hidden[0]")
            _check_hidden(self, hx[1], shape_c, "hidden[1]")
        else:
            _check_hidden(self, hx[0], shape_h, "hidden")
            hx = hx[0]
    out, hidden = rnn_run(self.mode, x, hx, weights, self.bias, self.num_layers,
                          self.dropout, self.training, self.bidirectional, bs,
                          self.proj_size)
    states = hidden if lstm else (hidden,)
    if packed:
        T, B = out.shape[0], out.shape[1]
        flat = out.reshape(T * B, out.shape[2])
        out = PackedSequence(index_select(flat, 0, _long(packed_rows(bs, B))),
                             input.batch_sizes, input.sorted_indices,
                             input.unsorted_indices)
        if input.unsorted_indices is not None:
            states = tuple(index_select(s, 1, input.unsorted_indices) for s in states)
    elif unbatched:
        out = out.squeeze(1)
        states = tuple(s.squeeze(1) for s in states)
    elif self.batch_first:
        out = out.transpose(0, 1)
    return out, (tuple(states) if lstm else states[0])


class nn_rnn(_rnn_base):
    """An Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)`` (``relu`` with
    ``nonlinearity="relu"``). ``forward(input, hx=None)`` returns ``(output, h_n)``."""

    _name, _label = "nn_rnn", "RNN"

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         0, dtype)


class nn_lstm(_rnn_base):
    """A long short-term memory network (input, forget, cell and output gates; with
    ``proj_size > 0`` the hidden state is projected to that size). ``forward(input,
    hx=None)``, ``hx = (h_0, c_0)``, returns ``(output, (h_n, c_n))``."""

    _name, _label = "nn_lstm", "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, dtype)


class nn_gru(_rnn_base):
    """A gated recurrent unit network (reset, update and new gates). ``forward(input,
    hx=None)`` returns ``(output, h_n)``."""

    _name, _label = "nn_gru", "GRU"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, dtype)
