"""The kernels of one recurrent layer in one direction (LSTM, GRU, Elman RNN), forward and
backward through time, on NumPy arrays.

Layout: ``x`` is time-major ``(T, B, I)``; ``batch_sizes`` (or None: all ``B`` at every step)
says how many rows are live at each step, non-increasing, as in a packed sequence. A row past
its length keeps its state unchanged, so in the forward direction the final state of each row is
its state after its own last step, and in the reverse direction a row starts from its initial
state at its own last step. Rows past their length get zeros in the output.

The input projection of all steps is one matrix product before the loop, and the weight
gradients are one product each after it: the loop over time does only the recurrent product and
the gate arithmetic of the live rows. Transcendental functions are computed in float64 and
rounded once to the layer's dtype, as ``rounded`` does (float32 results the same on every CPU).

Inside the LSTM kernels the gates are kept in the order (o, i, f, g) instead of libtorch's
(i, f, g, o), and the sigmoid gates' weight rows and biases are negated: a step's
pre-activation then holds ``-x`` for the three sigmoid gates side by side, so their
``1 / (1 + exp(-x))`` is three in-place calls over one contiguous block, and the tanh gate is
one more. Negating the weights negates every product and sum exactly (round-to-nearest is
symmetric), so the values are those of the natural order. The backward puts the gradients of
the weights back in libtorch's order.
"""
from __future__ import annotations

import numpy as np

from . import rounded

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _steps(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _live(batch_sizes, t, B):
    return B if batch_sizes is None else int(batch_sizes[t])


def layer_forward(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """Run one layer over time. Returns ``(out (T, B, Hout), h_n, c_n or None, work)``, where
    ``work`` holds what the backward needs (gate activations, previous states)."""
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // GATES[mode]
    Hout = w_hh.shape[1]
    dt = x.dtype
    if mode == "lstm":
        w_ih, w_hh, b_ih, b_hh = _lstm_order(hid, w_ih, w_hh, b_ih, b_hh, negate=True)
    xp = np.matmul(x.reshape(T * B, -1), w_ih.T).reshape(T, B, G)
    if b_ih is not None:
        xp += b_ih
        if mode != "gru":  # (GRU adds b_hh on the recurrent side: r multiplies its n part)
            xp += b_hh
    out = np.zeros((T, B, Hout), dt)
    acts = np.zeros((T, B, G), dt)          # gate activations per step
    hprev = np.zeros((T, B, Hout), dt)      # state before each step
    h = np.array(h0, dtype=dt, copy=True)
    c = None if c0 is None else np.array(c0, dtype=dt, copy=True)
    extra = extra2 = hraw = None
    if mode == "lstm":
        extra = np.zeros((T, B, hid), dt)   # c before the step
        extra2 = np.zeros((T, B, hid), dt)  # tanh(c) after the step
        hraw = np.zeros((T, B, hid), dt) if w_hr is not None else None
    elif mode == "gru":
        extra = np.zeros((T, B, hid), dt)   # W_hn h + b_hn
    # (a C-ordered transpose: NumPy's small products run ~3x faster on it than on a view)
    whhT = np.ascontiguousarray(w_hh.T)
    whrT = None if w_hr is None else np.ascontiguousarray(w_hr.T)
    # Without packing every row is live at every step: the states are then views of the
    # output (and of ``cs``, the cell states after each step) instead of copies, and the
    # states before each step are the same arrays shifted by one step, made after the loop.
    dense = batch_sizes is None
    cs = np.empty((T, B, hid), dt) if (dense and mode == "lstm") else None
    # float64 workspaces of the gate pass (for an LSTM: of its sigmoid gates; of g and tanh(c)
    # in ``wide_t``), and i * g, reused at every step
    wide = np.empty((B, 3 * hid if mode == "lstm" else G), np.float64)
    wide_t = np.empty((B, hid), np.float64)
    ig = np.empty((B, hid), dt)
    wide_a = np.empty((B, G), dt)  # the recurrent product (the input's dtype)
    with np.errstate(over="ignore"):  # the sigmoid's exp(-x) overflows to inf: sigmoid 0
        h, c = _loop_forward(mode, T, B, hid, reverse, batch_sizes, dense, xp, out, acts,
                             hprev, extra, extra2, hraw, cs, whhT, whrT, w_hr, b_hh, wide,
                             wide_t, ig, wide_a, h, c)
    if dense and T:
        first, last = (T - 1, 0) if reverse else (0, T - 1)
        h = out[last].copy()
        if reverse:
            hprev[:-1] = out[1:]
        else:
            hprev[1:] = out[:-1]
        hprev[first] = h0
        if mode == "lstm":
            c = cs[last].copy()
            if reverse:
                extra[:-1] = cs[1:]
            else:
                extra[1:] = cs[:-1]
            extra[first] = c0
    work = (acts, hprev, extra, extra2, hraw)
    return out, h, c, work


def _loop_forward(mode, T, B, hid, reverse, batch_sizes, dense, xp, out, acts, hprev, extra,
                  extra2, hraw, cs, whhT, whrT, w_hr, b_hh, wide, wide_t, ig, wide_a, h, c):
    """The loop over time steps of ``layer_forward``: returns the last states ``(h, c)``."""
    for t in _steps(T, reverse):
        n = _live(batch_sizes, t, B)
        if n == 0:
            continue
        if not dense:
            hprev[t] = h
        hp_ = h[:n]
        a = np.matmul(hp_, whhT, out=wide_a[:n])
        s = acts[t, :n]
        if mode == "lstm":
            # gates (o, i, f, g); ``a`` holds -x for o, i, f (see the module's docstring)
            a += xp[t, :n]  # (added in the layer's dtype, as libtorch's kernels do)
            # widened into contiguous buffers: NumPy's SIMD exp and tanh skip strided views
            sg = wide[:n]
            sg[...] = a[:, :3 * hid]
            np.exp(sg, out=sg)  # (inf below x = -709: the sigmoid is 0 there)
            sg += 1.0
            np.reciprocal(sg, out=sg)
            s[:, :3 * hid] = sg  # rounded once to the layer's dtype
            wt = wide_t[:n]
            wt[...] = a[:, 3 * hid:]
            np.tanh(wt, out=wt)
            s[:, 3 * hid:] = wt
            if dense:
                cn = np.multiply(s[:, 2 * hid:3 * hid], c, out=cs[t])
            else:
                extra[t] = c
                cn = s[:, 2 * hid:3 * hid] * c[:n]
            cn += np.multiply(s[:, hid:2 * hid], s[:, 3 * hid:], out=ig[:n])
            wt[...] = cn  # (three calls: a ufunc's own buffered casting costs twice as much)
            np.tanh(wt, out=wt)
            tc = extra2[t, :n]
            tc[...] = wt
            hn = np.multiply(s[:, :hid], tc, out=out[t, :n] if w_hr is None else None)
            if dense:
                c = cn
            else:
                c[:n] = cn
            if w_hr is not None:
                hraw[t, :n] = hn
                hn = np.matmul(hn, whrT, out=out[t, :n])
        elif mode == "gru":
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
    return h, c


def _lstm_order(hid, *arrays, negate=False):
    """LSTM weights or biases (gates along the first axis, None passes) from libtorch's gate
    order (i, f, g, o) to the kernels' (o, i, f, g), with the sigmoid gates negated if
    ``negate``; ``_lstm_unorder`` undoes the order."""
    out = []
    for a in arrays:
        if a is not None:
            a = np.concatenate([a[3 * hid:], a[:3 * hid]])
            if negate:
                np.negative(a[:3 * hid], out=a[:3 * hid])
        out.append(a)
    return out


def _lstm_unorder(hid, *arrays):
    return [None if a is None else np.concatenate([a[hid:], a[:hid]]) for a in arrays]


def _factors(mode, work, hid):
    """The per-step local derivatives, for all steps at once (big vectorized products instead
    of small ones inside the loop): what multiplies the incoming gradients at each step."""
    acts, hprev, extra, extra2, hraw = work
    T, B, G = acts.shape
    s = acts.reshape(T, B, G // hid, hid)
    if mode == "lstm":
        o, i, f, g = s[:, :, 0], s[:, :, 1], s[:, :, 2], s[:, :, 3]  # (the kernels' order)
        tc = extra2
        A = np.empty((T, B, 4, hid), acts.dtype)
        A[:, :, 0] = tc * o * (1 - o)
        A[:, :, 1] = g * i * (1 - i)
        A[:, :, 2] = extra * f * (1 - f)
        A[:, :, 3] = i * (1 - g * g)
        return A, o * (1 - tc * tc)
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
    acts, hprev, extra, extra2, hraw = work
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // GATES[mode]
    Hout = w_hh.shape[1]
    dt = x.dtype
    A, P = _factors(mode, work, hid)
    dh = np.zeros((B, Hout), dt) if gh is None else np.array(gh, dtype=dt, copy=True)
    dc = None
    if mode == "lstm":
        dc = np.zeros((B, hid), dt) if gc is None else np.array(gc, dtype=dt, copy=True)
    if mode == "lstm":
        w_ih, w_hh = _lstm_order(hid, w_ih, w_hh)
    dX = np.zeros((T, B, G), dt)             # gradient of the input-side pre-activations
    dH = dX if mode != "gru" else np.zeros((T, B, G), dt)  # ... of the recurrent side
    dR = np.zeros((T, B, Hout), dt) if w_hr is not None else None
    dct_buf = np.empty((B, hid), dt)  # the cell's gradient at a step, reused
    for t in _steps(T, not reverse):
        n = _live(batch_sizes, t, B)
        if n == 0:
            continue
        d = dh[:n]
        if gout is not None:
            d += gout[t, :n]
        if mode == "lstm":
            if w_hr is not None:
                dR[t, :n] = d
                d = np.matmul(d, w_hr)
            dct = np.multiply(d, P[t, :n], out=dct_buf[:n])
            dct += dc[:n]
            e = dX[t, :n].reshape(n, 4, hid)  # gates (o, i, f, g)
            np.multiply(d, A[t, :n, 0], out=e[:, 0])
            np.multiply(dct[:, None, :], A[t, :n, 1:], out=e[:, 1:])
            np.multiply(dct, acts[t, :n, 2 * hid:3 * hid], out=dc[:n])
            np.matmul(dX[t, :n], w_hh, out=dh[:n])
        elif mode == "gru":
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
    if mode == "lstm":
        gw_ih, gw_hh, gb_ih, gb_hh = _lstm_unorder(hid, gw_ih, gw_hh, gb_ih, gb_hh)
    gw_hr = None
    if w_hr is not None:
        gw_hr = np.matmul(dR.reshape(T * B, Hout).T, hraw.reshape(T * B, hid))
    return gx, dh, dc, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr


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
