"""The kernels of one recurrent layer in one direction (LSTM, GRU, Elman RNN), forward and
backward through time, on NumPy arrays.

Layout: ``x`` is time-major ``(T, B, I)``; ``batch_sizes`` (or None: all ``B`` at every step)
says how many rows are live at each step, non-increasing, as in a packed sequence. A row past
its length keeps its state unchanged, so in the forward direction the final state of each row is
its state after its own last step, and in the reverse direction a row starts from its initial
state at its own last step. Rows past their length get zeros in the output.

The input projection of all steps is one matrix product before the loop, and the weight
gradients are one product each after it: the loop over time does only the recurrent product and
the gate arithmetic of the live rows. Transcendental functions go through ``rounded`` (float32
results the same on every CPU). The LSTM's kernels are in ``lstm.py``, laid out for it.
"""
from __future__ import annotations

import numpy as np

from . import rounded
from .lstm import lstm_backward, lstm_forward

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _steps(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _live(batch_sizes, t, B):
    return B if batch_sizes is None else int(batch_sizes[t])


def layer_forward(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """Run one layer over time. Returns ``(out (T, B, Hout), h_n, c_n or None, work)``, where
    ``work`` holds what the backward needs (gate activations, previous states)."""
    if mode == "lstm":
        return lstm_forward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse)
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // GATES[mode]
    Hout = w_hh.shape[1]
    dt = x.dtype
    xp = np.matmul(x.reshape(T * B, -1), w_ih.T).reshape(T, B, G)
    if b_ih is not None:
        xp += b_ih
        if mode != "gru":  # (GRU adds b_hh on the recurrent side: r multiplies its n part)
            xp += b_hh
    out = np.zeros((T, B, Hout), dt)
    acts = np.zeros((T, B, G), dt)          # gate activations per step
    hprev = np.zeros((T, B, Hout), dt)      # state before each step
    h = np.array(h0, dtype=dt, copy=True)
    extra = None
    if mode == "gru":
        extra = np.zeros((T, B, hid), dt)   # W_hn h + b_hn
    # (a C-ordered transpose: NumPy's small products run ~3x faster on it than on a view)
    whhT = np.ascontiguousarray(w_hh.T)
    # Without packing every row is live at every step: the states are then views of the
    # output instead of copies, and the states before each step are the same array shifted by
    # one step, made after the loop.
    dense = batch_sizes is None
    wide_a = np.empty((B, G), dt)  # the recurrent product (the input's dtype)
    with np.errstate(over="ignore"):  # the sigmoid's exp(-x) overflows to inf: sigmoid 0
        h = _loop_forward(mode, T, B, hid, reverse, batch_sizes, dense, xp, out, acts, hprev,
                          extra, whhT, b_hh, wide_a, h)
    if dense and T:
        first, last = (T - 1, 0) if reverse else (0, T - 1)
        h = out[last].copy()
        if reverse:
            hprev[:-1] = out[1:]
        else:
            hprev[1:] = out[:-1]
        hprev[first] = h0
    return out, h, None, (acts, hprev, extra)


def _loop_forward(mode, T, B, hid, reverse, batch_sizes, dense, xp, out, acts, hprev, extra,
                  whhT, b_hh, wide_a, h):
    """The loop over time steps of ``layer_forward`` (GRU, Elman): returns the last state."""
    for t in _steps(T, reverse):
        n = _live(batch_sizes, t, B)
        if n == 0:
            continue
        if not dense:
            hprev[t] = h
        hp_ = h[:n]
        a = np.matmul(hp_, whhT, out=wide_a[:n])
        s = acts[t, :n]
        if mode == "gru":
            if b_hh is not None:
                a += b_hh
            xt = xp[t, :n]
            a[:, :2 * hid] += xt[:, :2 * hid]
            rounded.gates(a[:, :2 * hid], 0, 0, s[:, :2 * hid])
            r, z = s[:, :hid], s[:, hid:2 * hid]
            extra[t, :n] = a[:, 2 * hid:]
            nn = s[:, 2 * hid:]
            nn[...] = rounded.tanh(xt[:, 2 * hid:] + r * a[:, 2 * hid:])
            hn = out[t, :n]
            np.subtract(hp_, nn, out=hn)
            hn *= z
            hn += nn
        else:
            a += xp[t, :n]
            s[...] = rounded.tanh(a) if mode == "rnn_tanh" else np.maximum(a, 0)
            hn = out[t, :n]
            hn[...] = s
        if dense:
            h = hn
        else:
            h[:n] = hn
    return h


def _factors(mode, work, hid):
    """The per-step local derivatives, for all steps at once (big vectorized products instead
    of small ones inside the loop): what multiplies the incoming gradients at each step."""
    acts, hprev, extra = work
    T, B, G = acts.shape
    s = acts.reshape(T, B, G // hid, hid)
    if mode == "gru":
        r, z, nn = s[:, :, 0], s[:, :, 1], s[:, :, 2]
        A = np.empty((T, B, 2, hid), acts.dtype)
        A[:, :, 0] = extra * r * (1 - r)
        A[:, :, 1] = (hprev - nn) * z * (1 - z)
        return A, (1 - z) * (1 - nn * nn)
    if mode == "rnn_tanh":
        return 1 - acts * acts, None
    return (acts > 0).astype(acts.dtype), None


def layer_backward(mode, x, w_ih, w_hh, w_hr, has_bias, batch_sizes, reverse, work,
                   gout, gh, gc):
    """Gradients of one layer: ``(gx, gh0, gc0, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr)``; the
    gradients in (``gout``, ``gh``, ``gc``) may be None (that output unused)."""
    if mode == "lstm":
        return lstm_backward(x, w_ih, w_hh, w_hr, has_bias, batch_sizes, reverse, work, gout,
                             gh, gc)
    acts, hprev, extra = work
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // GATES[mode]
    Hout = w_hh.shape[1]
    dt = x.dtype
    A, P = _factors(mode, work, hid)
    dh = np.zeros((B, Hout), dt) if gh is None else np.array(gh, dtype=dt, copy=True)
    dX = np.zeros((T, B, G), dt)             # gradient of the input-side pre-activations
    dH = dX if mode != "gru" else np.zeros((T, B, G), dt)  # ... of the recurrent side
    for t in _steps(T, not reverse):
        n = _live(batch_sizes, t, B)
        if n == 0:
            continue
        d = dh[:n]
        if gout is not None:
            d += gout[t, :n]
        if mode == "gru":
            r = acts[t, :n, :hid]
            z = acts[t, :n, hid:2 * hid]
            e = dX[t, :n]
            dan = np.multiply(d, P[t, :n], out=e[:, 2 * hid:])
            np.multiply(dan, A[t, :n, 0], out=e[:, :hid])
            np.multiply(d, A[t, :n, 1], out=e[:, hid:2 * hid])
            eh = dH[t, :n]
            eh[:, :2 * hid] = e[:, :2 * hid]
            np.multiply(dan, r, out=eh[:, 2 * hid:])
            back = np.matmul(eh, w_hh)
            np.multiply(d, z, out=dh[:n])
            dh[:n] += back
        else:
            e = dX[t, :n]
            np.multiply(d, A[t, :n], out=e)
            np.matmul(e, w_hh, out=dh[:n])
    flatX = dX.reshape(T * B, G)
    flatH = dH.reshape(T * B, G)
    gx = np.matmul(flatX, w_ih).reshape(x.shape)
    gw_ih = np.matmul(flatX.T, x.reshape(T * B, -1))
    gw_hh = np.matmul(flatH.T, hprev.reshape(T * B, Hout))
    gb_ih = flatX.sum(0) if has_bias else None
    gb_hh = flatH.sum(0) if has_bias else None
    return gx, dh, None, gw_ih, gw_hh, gb_ih, gb_hh, None


def node_inputs(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr):
    """A layer node's inputs (or their gradients) in libtorch's order, absent ones left out:
    input, weights, biases, projection, initial states."""
    out = [x, w_ih, w_hh]
    if b_ih is not None:
        out += [b_ih, b_hh]
    if w_hr is not None:
        out.append(w_hr)
    out.append(h0)
    if c0 is not None:
        out.append(c0)
    return out


def unpack_node_inputs(inputs, spec):
    """``node_inputs`` undone: ``(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)``."""
    mode, has_bias, has_proj = spec[0], spec[1], spec[2]
    x, w_ih, w_hh = inputs[:3]
    k = 3
    b_ih = b_hh = w_hr = c0 = None
    if has_bias:
        b_ih, b_hh = inputs[3:5]
        k = 5
    if has_proj:
        w_hr = inputs[k]
        k += 1
    h0 = inputs[k]
    if mode == "lstm":
        c0 = inputs[k + 1]
    return x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr


def node_backward(g, needs, inputs, spec, work):
    """A layer node's formula on arrays: the gradients of its inputs, in their order."""
    mode, has_bias, has_proj, batch_sizes, reverse = spec
    x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr = unpack_node_inputs(inputs, spec)
    gc = g[2] if mode == "lstm" else None
    gx, gh0, gc0, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr = layer_backward(
        mode, x, w_ih, w_hh, w_hr, has_bias, batch_sizes, reverse, work, g[0], g[1], gc)
    return tuple(node_inputs(gx, gh0, gc0, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr))
