"""The LSTM kernels of ``rnn.py`` (one layer, one direction, forward and backward through time),
laid out for cheap time steps.

Transposed: a step works on ``(features, batch)`` arrays (the recurrent product is
``W_hh h^T``), so each gate is a contiguous block of rows and every elementwise call of a step
runs over contiguous memory, where NumPy's SIMD loops apply (on a strided column slice of a
``(batch, 4 hidden)`` array, exp and tanh ran ~30% slower, and the vectorized local derivatives
before the backward loop twice as slow). The input is turned once before the loop, the output
once after it.

Gate order (o, i, f, g) instead of libtorch's (i, f, g, o), with the sigmoid gates' weight rows
and biases negated: the pre-activation then holds ``-x`` for the three sigmoid gates, one block,
so their ``1 / (1 + exp(-x))`` is three in-place calls, and ``tanh(g)`` one more. Negating the
weights negates every product and sum exactly (round-to-nearest is symmetric). The backward
puts the weights' gradients back in libtorch's order.

The gates' sigmoid and tanh, and ``tanh(c)``, are computed in float64 and rounded once to the
layer's dtype, as ``rounded`` does (float32 bits the same on every CPU), here on float64
buffers reused at every step.

Temporaries that do not outlive a call (the transposed input projection, the output before it
is turned back, the local derivatives and gradients of the backward) live in per-thread buffers
kept between calls: a fresh array of this size is fresh memory from the system, and its page
faults cost as much as the arithmetic (a third of a layer's backward here). Results that leave
the call (the output, the activations the backward reads, the input's gradient) reuse arrays
of an earlier call that nothing references any more (``_recycled``).
"""
from __future__ import annotations

import sys
import threading

import numpy as np

_POOL = threading.local()
_KEEP = 1 << 23    # bytes: the largest buffer kept between calls
_BUDGET = 1 << 25  # bytes: all the buffers a thread keeps (the W14 LSTM keeps ~8 MB)
_SLOTS = 3         # results of one name kept per thread (the last call's are often still alive)


def _keep(a):
    """Whether to keep ``a`` between calls (counted against the thread's budget): a big one
    is not kept, its memory would stay taken after the call."""
    held = getattr(_POOL, "held", 0)
    if a.nbytes > _KEEP or held + a.nbytes > _BUDGET:
        return False
    _POOL.held = held + a.nbytes
    return True


def _drop(a):
    _POOL.held -= a.nbytes


def _scratch(name, shape, dtype):
    """The calling thread's buffer ``name`` with this shape and dtype (uninitialized): the same
    memory as the last call's when they match, else a new one that replaces it. The kernels
    here do not call each other or anything that could call back into them, so one buffer per
    name and thread is never in use twice."""
    bufs = getattr(_POOL, "bufs", None)
    if bufs is None:
        bufs = _POOL.bufs = {}
    a = bufs.get(name)
    if a is None or a.shape != shape or a.dtype != dtype:
        if a is not None:
            _drop(bufs.pop(name))
        a = np.empty(shape, dtype)
        if _keep(a):
            bufs[name] = a
    return a


def _refs(slots, k):
    return sys.getrefcount(slots[k])


def _free_count():
    """What ``_refs`` reports for an array that only a pool's list holds: measured, not
    assumed (interpreters count their own temporary references differently)."""
    return _refs([np.empty(1)], 0)


_FREE = _free_count()


def _recycled(name, shape, dtype):
    """An array (uninitialized) for a result that leaves the call: the output, the activations
    the backward reads. One that this thread made before for ``name`` and that nothing
    references any more (no tensor, no view, no autograd node: its reference count is the
    pool's alone) is reused, else a new one is made and kept for later while there is room:
    fresh memory of this size costs page faults comparable to the layer's arithmetic."""
    pool = getattr(_POOL, "kept", None)
    if pool is None:
        pool = _POOL.kept = {}
    slots = pool.setdefault(name, [])
    k = 0
    while k < len(slots):
        if _refs(slots, k) == _FREE:  # (tested before any local name holds it)
            a = slots[k]
            if a.shape == shape and a.dtype == dtype:
                return a
            _drop(a)
            del a, slots[k]
            continue
        k += 1
    a = np.empty(shape, dtype)
    if len(slots) < _SLOTS and _keep(a):
        slots.append(a)
    return a


def _order(hid, *arrays, negate=False):
    """Weights or biases (gates along the first axis; None passes) from libtorch's gate order
    (i, f, g, o) to (o, i, f, g), the sigmoid gates negated if ``negate``."""
    out = []
    for a in arrays:
        if a is not None:
            a = np.concatenate([a[3 * hid:], a[:3 * hid]])
            if negate:
                np.negative(a[:3 * hid], out=a[:3 * hid])
        out.append(a)
    return out


def _unorder(hid, *arrays):
    """``_order`` undone (without negation)."""
    return [None if a is None else np.concatenate([a[hid:], a[:hid]]) for a in arrays]


def _steps(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _flat(a, name):
    """``(T, F, B)`` to ``(F, T * B)`` (a copy into scratch buffer ``name``): the steps side by
    side, for one product."""
    T, F, B = a.shape
    out = _scratch(name, (F, T, B), a.dtype)
    np.copyto(out, a.transpose(1, 0, 2))
    return out.reshape(F, T * B)


def lstm_forward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """``(out (T, B, Hout), h_n, c_n, work)`` of one LSTM layer; ``batch_sizes`` as in
    ``rnn.layer_forward``."""
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // 4
    Hout = w_hh.shape[1]
    dt = x.dtype
    w_ih, w_hh, b_ih, b_hh = _order(hid, w_ih, w_hh, b_ih, b_hh, negate=True)
    xp = np.matmul(x.reshape(T * B, -1), w_ih.T, out=_scratch("xp", (T * B, G), dt))
    if b_ih is not None:
        xp += b_ih
        xp += b_hh
    xpT = _scratch("xpT", (T, G, B), dt)
    np.copyto(xpT, xp.reshape(T, B, G).transpose(0, 2, 1))
    xp = xpT
    dense = batch_sizes is None
    acts = _recycled("acts", (T, G, B), dt)    # gate activations (o, i, f, g) of each step
    outT = _scratch("outT", (T, Hout, B), dt)  # h after each step
    csT = _scratch("csT", (T, hid, B), dt)     # c after each step
    tcT = _recycled("tc", (T, hid, B), dt)     # tanh(c) after each step
    hrawT = None if w_hr is None else _recycled("hraw", (T, hid, B), dt)  # before projection
    if not dense:  # (rows past their length stay zero in the output and the activations)
        for a in (acts, outT, csT, tcT, hrawT):
            if a is not None:
                a.fill(0)
    # The states before each step: packed, recorded in the loop (rows past their length keep
    # theirs); dense, the outputs shifted by one step, made afterwards. h's in (T, B, Hout):
    # the backward's weight gradient takes it in that layout.
    hprev = _recycled("hprev", (T, B, Hout), dt)
    cprevT = _recycled("cprev", (T, hid, B), dt)
    if not dense:
        hprev.fill(0)
        cprevT.fill(0)
    hT = np.array(h0.T, dtype=dt, order="C")
    cT = np.array(c0.T, dtype=dt, order="C")
    wide = np.empty((3 * hid, B), np.float64)  # the sigmoid gates, widened
    wide_t = np.empty((hid, B), np.float64)    # g, then c, widened
    ig = np.empty((hid, B), dt)
    a_buf = np.empty((G, B), dt)
    with np.errstate(over="ignore"):  # exp(-x) is inf below x = -709: the sigmoid is 0 there
        if dense and w_hr is None:
            hT, cT = _forward_dense(T, hid, reverse, xp, acts, outT, csT, tcT, w_hh, wide, wide_t,
                                    ig, a_buf, hT, cT)
        else:
            hT, cT = _forward_sliced(T, B, hid, reverse, batch_sizes, xp, acts, outT, csT, tcT,
                                     hrawT, hprev, cprevT, w_hh, w_hr, wide, wide_t, ig, a_buf,
                                     hT, cT)
    out = _recycled("out", (T, B, Hout), dt)  # (a copy even where a transpose is a view)
    np.copyto(out, outT.transpose(0, 2, 1))
    if dense and T:
        first, last = (T - 1, 0) if reverse else (0, T - 1)
        for prev, after, init in ((hprev, out, h0), (cprevT, csT, c0.T)):
            if reverse:
                prev[:-1] = after[1:]
            else:
                prev[1:] = after[:-1]
            prev[first] = init
        h_n, c_n = out[last].copy(), csT[last].T.copy()
    else:
        h_n, c_n = hT.T.copy(), cT.T.copy()
    return out, h_n, c_n, (acts, hprev, cprevT, tcT, hrawT)


def _forward_dense(T, hid, reverse, xp, acts, outT, csT, tcT, w_hh, wide, wide_t, ig, a_buf,
                   hT, cT):
    """``lstm_forward``'s loop without packing or projection: the same calls on whole buffers
    and per-step views taken with one index (slicing every array at every step cost ~5% of
    the step). Returns the last ``(h^T, c^T)``."""
    sig, gate_g = acts[:, :3 * hid], acts[:, 3 * hid:]
    gate_o, gate_i, gate_f = acts[:, :hid], acts[:, hid:2 * hid], acts[:, 2 * hid:3 * hid]
    a_sig, a_g = a_buf[:3 * hid], a_buf[3 * hid:]
    matmul, multiply, exp, tanh, reciprocal = np.matmul, np.multiply, np.exp, np.tanh, \
        np.reciprocal
    for t in _steps(T, reverse):
        a = matmul(w_hh, hT, out=a_buf)
        a += xp[t]
        wide[...] = a_sig
        exp(wide, out=wide)
        wide += 1.0
        reciprocal(wide, out=wide)
        sig[t] = wide
        wide_t[...] = a_g
        tanh(wide_t, out=wide_t)
        g = gate_g[t]
        g[...] = wide_t
        cT = multiply(gate_f[t], cT, out=csT[t])
        cT += multiply(gate_i[t], g, out=ig)
        wide_t[...] = cT
        tanh(wide_t, out=wide_t)
        tc = tcT[t]
        tc[...] = wide_t
        hT = multiply(gate_o[t], tc, out=outT[t])
    return hT, cT


def _forward_sliced(T, B, hid, reverse, batch_sizes, xp, acts, outT, csT, tcT, hrawT, hprev,
                    cprevT, w_hh, w_hr, wide, wide_t, ig, a_buf, hT, cT):
    """``lstm_forward``'s loop with packing (the first ``n`` columns live) or projection."""
    dense = batch_sizes is None
    for t in _steps(T, reverse):
        n = B if dense else int(batch_sizes[t])
        if n == 0:
            continue
        if not dense:
            hprev[t] = hT.T
            cprevT[t] = cT
        a = np.matmul(w_hh, hT[:, :n], out=a_buf[:, :n])
        a += xp[t, :, :n]  # (added in the layer's dtype, as libtorch's kernels do)
        s = acts[t, :, :n]
        sg = wide[:, :n]
        sg[...] = a[:3 * hid]
        np.exp(sg, out=sg)
        sg += 1.0
        np.reciprocal(sg, out=sg)
        s[:3 * hid] = sg  # rounded once to the layer's dtype
        wt = wide_t[:, :n]
        wt[...] = a[3 * hid:]
        np.tanh(wt, out=wt)
        s[3 * hid:] = wt
        cn = np.multiply(s[2 * hid:3 * hid], cT[:, :n], out=csT[t, :, :n])
        cn += np.multiply(s[hid:2 * hid], s[3 * hid:], out=ig[:, :n])
        wt[...] = cn
        np.tanh(wt, out=wt)
        tc = tcT[t, :, :n]
        tc[...] = wt
        if w_hr is None:
            hn = np.multiply(s[:hid], tc, out=outT[t, :, :n])
        else:
            hr = np.multiply(s[:hid], tc, out=hrawT[t, :, :n])
            hn = np.matmul(w_hr, hr, out=outT[t, :, :n])
        if dense:
            hT, cT = hn, cn
        else:
            hT[:, :n] = hn
            cT[:, :n] = cn
    return hT, cT


def _factors(work, hid):
    """The per-step local derivatives of all steps at once, in place (each contiguous per
    step): ``A`` (T, 4, hid, B) multiplies the gates' gradients (o by h's, the others by c's),
    ``P`` (T, hid, B) turns h's gradient into c's."""
    acts, hprev, cprevT, tcT, hrawT = work
    T, G, B = acts.shape
    s = acts.reshape(T, 4, hid, B)
    o, i, g = s[:, 0], s[:, 1], s[:, 3]
    A = _scratch("A", (T, 4, hid, B), acts.dtype)
    sd = A[:, :3]
    np.subtract(1, s[:, :3], out=sd)  # s (1 - s) of o, i, f in one pass
    sd *= s[:, :3]
    for k, by in enumerate((tcT, g, cprevT)):
        np.multiply(A[:, k], by, out=A[:, k])
    a3 = np.multiply(g, g, out=A[:, 3])
    np.subtract(1, a3, out=a3)
    a3 *= i
    P = np.multiply(tcT, tcT, out=_scratch("P", tcT.shape, tcT.dtype))
    np.subtract(1, P, out=P)
    P *= o
    return A, P


def _backward_dense(T, hid, reverse, goT, A, P, acts, dX, whhT, dhT, dcT, dct_buf):
    """``lstm_backward``'s loop without packing or projection, on whole buffers and views
    taken with one index. ``dhT``, ``dcT`` are updated in place."""
    A_o, A_ifg, gate_f = A[:, 0], A[:, 1:], acts[:, 2 * hid:3 * hid]
    gates = dX.reshape(T, 4, hid, dX.shape[2])
    multiply, matmul = np.multiply, np.matmul
    for t in _steps(T, not reverse):
        if goT is not None:
            dhT += goT[t]
        dct = multiply(dhT, P[t], out=dct_buf)
        dct += dcT
        e = gates[t]
        multiply(dhT, A_o[t], out=e[0])
        multiply(dct, A_ifg[t], out=e[1:])
        multiply(dct, gate_f[t], out=dcT)
        matmul(whhT, dX[t], out=dhT)


def _backward_sliced(T, B, hid, reverse, batch_sizes, goT, A, P, acts, dX, dR, whhT, whrT, dhT,
                     dcT, dct_buf):
    """``lstm_backward``'s loop with packing (the first ``n`` columns live) or projection."""
    for t in _steps(T, not reverse):
        n = B if batch_sizes is None else int(batch_sizes[t])
        if n == 0:
            continue
        d = dhT[:, :n]
        if goT is not None:
            d += goT[t, :, :n]
        if whrT is not None:
            dR[t, :, :n] = d
            d = np.matmul(whrT, d)
        dct = np.multiply(d, P[t, :, :n], out=dct_buf[:, :n])
        dct += dcT[:, :n]
        e = dX[t].reshape(4, hid, B)[:, :, :n]
        np.multiply(d, A[t, 0, :, :n], out=e[0])
        np.multiply(dct, A[t, 1:, :, :n], out=e[1:])
        np.multiply(dct, acts[t, 2 * hid:3 * hid, :n], out=dcT[:, :n])
        np.matmul(whhT, dX[t, :, :n], out=dhT[:, :n])


def lstm_backward(x, w_ih, w_hh, w_hr, has_bias, batch_sizes, reverse, work, gout, gh, gc):
    """Gradients of one LSTM layer: ``(gx, gh0, gc0, gw_ih, gw_hh, gb_ih, gb_hh, gw_hr)``;
    ``gout``, ``gh``, ``gc`` may be None."""
    acts, hprev, cprevT, tcT, hrawT = work
    T, B, _ = x.shape
    G = w_ih.shape[0]
    hid = G // 4
    Hout = w_hh.shape[1]
    dt = x.dtype
    w_ih, w_hh = _order(hid, w_ih, w_hh)
    whhT = np.ascontiguousarray(w_hh.T)   # (Hout, G)
    whrT = None if w_hr is None else np.ascontiguousarray(w_hr.T)
    A, P = _factors(work, hid)
    dhT = np.zeros((Hout, B), dt) if gh is None else np.array(gh.T, dtype=dt, order="C")
    dcT = np.zeros((hid, B), dt) if gc is None else np.array(gc.T, dtype=dt, order="C")
    goT = None
    if gout is not None:
        goT = _scratch("goT", (T, Hout, B), dt)
        np.copyto(goT, np.asarray(gout).transpose(0, 2, 1))
    # the gradients of the pre-activations (and of the projection's output); a packed
    # sequence leaves rows past their length untouched: zeros there
    dX = _scratch("dX", (T, G, B), dt)
    dR = None if w_hr is None else _scratch("dR", (T, Hout, B), dt)
    if batch_sizes is not None:
        dX.fill(0)
        if dR is not None:
            dR.fill(0)
    dct_buf = np.empty((hid, B), dt)
    if batch_sizes is None and w_hr is None:
        _backward_dense(T, hid, reverse, goT, A, P, acts, dX, whhT, dhT, dcT, dct_buf)
    else:
        _backward_sliced(T, B, hid, reverse, batch_sizes, goT, A, P, acts, dX, dR, whhT, whrT,
                         dhT, dcT, dct_buf)
    D = _flat(dX, "D")                         # (G, T * B)
    gx = np.matmul(D.T, w_ih, out=_recycled("gx", (T * B, w_ih.shape[1]), dt)).reshape(T, B, -1)
    gw_ih = np.matmul(D, x.reshape(T * B, -1))
    gw_hh = np.matmul(D, hprev.reshape(T * B, Hout))
    gb_ih = gb_hh = D.sum(1) if has_bias else None
    gw_hr = None if w_hr is None else np.matmul(_flat(dR, "R"), _flat(hrawT, "Hr").T)
    gw_ih, gw_hh, gb_ih = _unorder(hid, gw_ih, gw_hh, gb_ih)
    if has_bias:
        gb_hh = gb_ih.copy()
    return gx, dhT.T.copy(), dcT.T.copy(), gw_ih, gw_hh, gb_ih, gb_hh, gw_hr
