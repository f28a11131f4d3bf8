"""One recurrent layer in one direction as one autograd node (``rnn_layer``), and the same
layer made of recorded ops (``rnn_layer_composite``), which the node's formula replays under
``create_graph`` so that second-order gradients work.

Why one node: a layer over 50 steps made of small ops is some 20 nodes per step, and the
engine's per-node cost would dominate a small model's training step. The node keeps the gate
activations of the forward (``numerics/rnn.py``) and runs the whole backward through time in
one NumPy loop. An LSTM layer's node has libtorch's CPU name (``MkldnnRnnLayerBackward0``,
inputs in its order: input, weights, biases, initial states); GRU, Elman and projected-LSTM
layers, which libtorch decomposes into small ops, get the name ``RnnLayerBackward0``.
"""
from __future__ import annotations

from ..autograd.api import autograd_grad
from ..autograd.record import record
from ..derivatives import NODES
from ..numerics import rnn as kernels
from ..numerics.rnn import node_inputs, unpack_node_inputs
from .arith import add, mul, sub
from .creation import torch_zeros
from .elementwise import relu, sigmoid, tanh
from .linalg import matmul
from .registry import recording, wrap
from .shape import cat, stack

__all__ = ["rnn_layer", "rnn_layer_composite"]


def rnn_layer(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """``(output, h_n, c_n)`` of one layer (``c_n`` None unless LSTM); ``x`` time-major
    ``(T, B, I)``, ``batch_sizes`` a sequence of live rows per step or None."""
    arr = lambda t: None if t is None else t._data  # noqa: E731
    out, h, c, work = kernels.layer_forward(
        mode, x._data, h0._data, arr(c0), w_ih._data, w_hh._data, arr(b_ih), arr(b_hh),
        arr(w_hr), batch_sizes, reverse)
    outs = [wrap(out), wrap(h)] + ([wrap(c)] if c is not None else [])
    inputs = node_inputs(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
    if recording(*inputs):
        name = "MkldnnRnnLayerBackward0" if mode == "lstm" and w_hr is None else \
            "RnnLayerBackward0"
        spec = (mode, b_ih is not None, w_hr is not None, batch_sizes, reverse)
        record(NODES[name], tuple(inputs), tuple(outs), (spec, work))
    return outs[0], outs[1], (outs[2] if c is not None else None)


def layer_backward_tensors(g, needs, inputs, spec, work=None):
    """The node's formula under ``create_graph``: the layer again in recorded ops, and its
    gradients taken with ``create_graph`` (so they can be differentiated again)."""
    mode, has_bias, has_proj, batch_sizes, reverse = spec
    args = unpack_node_inputs(inputs, spec)
    outs = rnn_layer_composite(mode, *args, batch_sizes, reverse)
    pairs = [(o, gi) for o, gi in zip(outs, g) if o is not None and gi is not None]
    wanted = [i for i, (t, n) in enumerate(zip(inputs, needs)) if n and t.requires_grad]
    grads = autograd_grad([o for o, _ in pairs], [inputs[i] for i in wanted],
                          [gi for _, gi in pairs], create_graph=True, allow_unused=True)
    result = [None] * len(inputs)
    for i, gr in zip(wanted, grads):
        result[i] = gr
    return tuple(result)


def layer_tangent_tensors(tans, inputs, spec):
    """The node's tangent rule (forward mode): Jt by differentiating the layer replayed in
    recorded ops twice (J^T u as a function of u, then its gradient along the tangents), since
    the fused node has no separate forward-mode kernel."""
    mode, has_bias, has_proj, batch_sizes, reverse = spec
    xs = [t.detach().requires_grad_(True) for t in inputs]
    outs = [o for o in rnn_layer_composite(mode, *unpack_node_inputs(xs, spec), batch_sizes,
                                           reverse) if o is not None]
    us = [torch_zeros(*o.shape, dtype=o.dtype).requires_grad_(True) for o in outs]
    moving = [i for i, t in enumerate(tans) if t is not None]
    if not moving:
        return tuple(None for _ in outs)
    grads = autograd_grad(outs, [xs[i] for i in moving], us, create_graph=True,
                          allow_unused=True)
    pairs = [(g, tans[i]) for g, i in zip(grads, moving) if g is not None]
    if not pairs:
        return tuple(None for _ in outs)
    jt = autograd_grad([g for g, _ in pairs], us, [t for _, t in pairs], allow_unused=True)
    return tuple(jt)


def rnn_layer_composite(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """The same layer made of recorded ops (one step at a time)."""
    T, B = x.shape[0], x.shape[1]
    G = w_ih.shape[0]
    hid = G // kernels.GATES[mode]
    xp = matmul(x, w_ih.t())
    if b_ih is not None:
        xp = add(xp, b_ih)
    h, c = h0, c0
    outs = [None] * T
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        n = B if batch_sizes is None else int(batch_sizes[t])
        hp = h[:n]
        a = matmul(hp, w_hh.t())
        if b_hh is not None:
            a = add(a, b_hh)
        xt = xp[t, :n]
        if mode == "lstm":
            a = add(a, xt)
            i, f = sigmoid(a[:, :hid]), sigmoid(a[:, hid:2 * hid])
            gg, o = tanh(a[:, 2 * hid:3 * hid]), sigmoid(a[:, 3 * hid:])
            cn = add(mul(f, c[:n]), mul(i, gg))
            hn = mul(o, tanh(cn))
            if w_hr is not None:
                hn = matmul(hn, w_hr.t())
            c = cn if n == B else cat([cn, c[n:]], 0)
        elif mode == "gru":
            rz = sigmoid(add(xt[:, :2 * hid], a[:, :2 * hid]))
            r, z = rz[:, :hid], rz[:, hid:]
            nn = tanh(add(xt[:, 2 * hid:], mul(r, a[:, 2 * hid:])))
            hn = add(nn, mul(z, sub(hp, nn)))
        else:
            a = add(a, xt)
            hn = tanh(a) if mode == "rnn_tanh" else relu(a)
        h = hn if n == B else cat([hn, h[n:]], 0)
        outs[t] = hn if n == B else cat(
            [hn, torch_zeros(B - n, hn.shape[1], dtype=hn.dtype)], 0)
    if T == 0:
        out = torch_zeros(0, B, h0.shape[-1], dtype=x.dtype)
    else:
        out = stack(outs, 0)
    return out, h, c
