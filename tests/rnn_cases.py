"""Cases for the recurrent modules, run the same way on rtorchpy and on PyTorch (through a
tiny adapter), so that ``tests/record_rnn.py`` can record PyTorch's results into
``tests/fixtures/rnn_torch.json`` and ``tests/test_rnn.py`` compare against them without
PyTorch. The weights, inputs and cotangents all come from the seeded generator, which gives
the same numbers in both libraries."""
from __future__ import annotations

import numpy as np

# name: (module, constructor kwargs, dtype, T, B, given initial state, packing)
# packing: None, or (lengths, enforce_sorted); "unbatched" feeds a 2-D input
CASES = {
    "lstm_basic": ("lstm", dict(input_size=3, hidden_size=4), "float32", 5, 2, True, None),
    "lstm_bi2_bf": ("lstm", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True,
                                 batch_first=True), "float64", 4, 3, False, None),
    "lstm_proj": ("lstm", dict(input_size=3, hidden_size=5, num_layers=2, proj_size=2),
                  "float32", 4, 2, True, None),
    "lstm_packed": ("lstm", dict(input_size=2, hidden_size=3, bidirectional=True), "float64",
                    5, 3, True, ([5, 3, 2], True)),
    "lstm_unbatched": ("lstm", dict(input_size=2, hidden_size=3), "float32", 4, 1, True,
                       "unbatched"),
    "gru_bi2": ("gru", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                "float32", 4, 2, True, None),
    "gru_nobias": ("gru", dict(input_size=2, hidden_size=3, bias=False), "float64", 5, 2,
                   False, None),
    "gru_packed_unsorted": ("gru", dict(input_size=2, hidden_size=3, num_layers=2), "float64",
                            5, 3, True, ([2, 5, 3], False)),
    "rnn_tanh2": ("rnn", dict(input_size=3, hidden_size=4, num_layers=2), "float32", 5, 2,
                  True, None),
    "rnn_relu_bi": ("rnn", dict(input_size=3, hidden_size=4, nonlinearity="relu",
                                bidirectional=True), "float64", 4, 2, True, None),
    "lstm_dropout": ("lstm", dict(input_size=3, hidden_size=4, num_layers=3, dropout=0.5),
                     "float32", 4, 2, False, None),
}

SECOND_ORDER = ("lstm_basic", "gru_bi2", "rnn_tanh2", "lstm_packed")


def run(lib, name, second=False):
    """Run case ``name`` with ``lib`` (an adapter: ``torch_adapter()`` or ``rt_adapter()``):
    a dict of arrays (outputs, gradients of every input and parameter; with ``second``, the
    gradient of the squared input gradient w.r.t. the parameters)."""
    kind, kw, dtype, T, B, given, packing = CASES[name]
    L = lib
    L.seed(17)
    m = L.module(kind, **kw)
    m = L.to(m, dtype)
    D = 2 if kw.get("bidirectional") else 1
    nl = kw.get("num_layers", 1)
    H = kw["hidden_size"]
    P = kw.get("proj_size", 0) or H
    bf = kw.get("batch_first", False)
    if packing == "unbatched":
        x = L.randn((T, kw["input_size"]), dtype)
        hshape, cshape = (nl * D, P), (nl * D, H)
    else:
        x = L.randn((B, T, kw["input_size"]) if bf else (T, B, kw["input_size"]), dtype)
        hshape, cshape = (nl * D, B, P), (nl * D, B, H)
    leaves = [x]
    hx = None
    if given:
        h0 = L.randn(hshape, dtype)
        leaves.append(h0)
        hx = h0
        if kind == "lstm":
            c0 = L.randn(cshape, dtype)
            leaves.append(c0)
            hx = (h0, c0)
    for t in leaves:
        L.requires_grad(t)
    inp = x
    if isinstance(packing, tuple):
        inp = L.pack(x, packing[0], packing[1])
    out, st = m(inp, hx)
    if isinstance(packing, tuple):
        out = L.unpack(out)
    states = list(st) if kind == "lstm" else [st]
    result = {"output": L.numpy(out)}
    for i, s in enumerate(states):
        result[f"state{i}"] = L.numpy(s)
    loss = (out * L.randn(tuple(out.shape), dtype)).sum()
    for s in states:
        loss = loss + (s * L.randn(tuple(s.shape), dtype)).sum()
    names = L.param_names(m)
    params = [L.param(m, n) for n in names]
    grads = L.grad(loss, leaves + params, create_graph=second)
    for i, g in enumerate(grads[:len(leaves)]):
        result[f"grad_leaf{i}"] = L.numpy(g)
    for n, g in zip(names, grads[len(leaves):]):
        result["grad_" + n] = L.numpy(g)
    if second:
        s2 = (grads[0] * grads[0]).sum()
        g2 = L.grad(s2, params, allow_unused=True)
        for n, g in zip(names, g2):
            result["grad2_" + n] = None if g is None else L.numpy(g)
    return result


class rt_adapter:
    """rtorchpy's side (names 0-based as PyTorch's)."""

    def __init__(self):
        import rtorchpy as rt  # noqa: PLC0415
        self.rt = rt

    def seed(self, s):
        self.rt.torch_manual_seed(s)

    def module(self, kind, **kw):
        return {"lstm": self.rt.nn_lstm, "gru": self.rt.nn_gru, "rnn": self.rt.nn_rnn}[kind](**kw)

    def to(self, m, dtype):
        return m if dtype == "float32" else m.to(dtype=self.rt.torch_float64())

    def randn(self, shape, dtype):
        return self.rt.torch_randn(*shape, dtype=getattr(self.rt, "torch_" + dtype)())

    def requires_grad(self, t):
        t.requires_grad_(True)

    def pack(self, x, lengths, enforce):
        return self.rt.nn_utils_rnn_pack_padded_sequence(x, lengths, enforce_sorted=enforce)

    def unpack(self, p):
        return self.rt.nn_utils_rnn_pad_packed_sequence(p)[0]

    def numpy(self, t):
        return np.array(t.detach()._data)

    def param_names(self, m):
        return [n for n, _ in m.named_parameters()]

    def param(self, m, n):
        return getattr(m, n)

    def grad(self, y, xs, create_graph=False, allow_unused=False):
        return self.rt.autograd_grad(y, xs, create_graph=create_graph, allow_unused=allow_unused)


class torch_adapter(rt_adapter):
    """PyTorch's side."""

    def __init__(self):
        import torch  # noqa: PLC0415
        self.torch = torch

    def seed(self, s):
        self.torch.manual_seed(s)

    def module(self, kind, **kw):
        t = self.torch.nn
        return {"lstm": t.LSTM, "gru": t.GRU, "rnn": t.RNN}[kind](**kw)

    def to(self, m, dtype):
        return m if dtype == "float32" else m.double()

    def randn(self, shape, dtype):
        return self.torch.randn(*shape, dtype=getattr(self.torch, dtype))

    def pack(self, x, lengths, enforce):
        return self.torch.nn.utils.rnn.pack_padded_sequence(x, self.torch.tensor(lengths),
                                                            enforce_sorted=enforce)

    def unpack(self, p):
        return self.torch.nn.utils.rnn.pad_packed_sequence(p)[0]

    def numpy(self, t):
        return t.detach().numpy().copy()

    def param(self, m, n):
        return getattr(m, n)

    def grad(self, y, xs, create_graph=False, allow_unused=False):
        return self.torch.autograd.grad(y, xs, create_graph=create_graph,
                                        allow_unused=allow_unused)
