"""Pooling on arrays: the windows of the padded input as a strided view (no loop over
positions), the maximum's flat index in each input plane, and average pooling's divisors."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .conv import constant_pad, correlate_input_adjoint


def out_sizes(sizes, kernel, stride, padding, dilation, ceil_mode):
    """libtorch's pooling output sizes (``ceil_mode``: a last window may start past the input
    only if it starts within the left padding's reach, i.e. inside the input or its left pad)."""
    out = []
    for s, k, st, p, d in zip(sizes, kernel, stride, padding, dilation):
        span = s + 2 * p - d * (k - 1) - 1
        o = (-(-span // st) if ceil_mode else span // st) + 1
        if ceil_mode and (o - 1) * st >= s + p:
            o -= 1
        out.append(o)
    return tuple(out)


def _padded(x, kernel, stride, padding, dilation, out, fill):
    """``x`` (N, C, *S) padded with ``fill`` before by ``padding`` and after as far as the last
    window reaches."""
    pads = []
    for i in reversed(range(len(kernel))):
        need = (out[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        pads += [padding[i], max(need - x.shape[2 + i] - padding[i], 0)]
    return constant_pad(x, pads, fill) if any(pads) else x


def _windows(xp, kernel, stride, dilation, out):
    """The view (N, C, *out, *kernel) of the windows of ``xp``."""
    st = xp.strides
    space = st[2:]
    return as_strided(xp, xp.shape[:2] + tuple(out) + tuple(kernel),
                      st[:2] + tuple(s * t for s, t in zip(space, stride))
                      + tuple(s * d for s, d in zip(space, dilation)), writeable=False)


def max_pool(x, kernel, stride, padding, dilation, out):
    """(maxima, int64 flat indices of the maxima in each (unpadded) input plane).

    Passes per kernel offset over the strided view of that offset's elements (a loop over the
    kernel's few offsets, vectorised over positions): the maximum, then where it was first
    met; libtorch's rules kept: NaN wins (the last NaN of a window), and a window of -inf
    points at its first element inside the input."""
    nd = len(kernel)
    xp = _padded(x, kernel, stride, padding, dilation, out, -np.inf)
    win = _windows(xp, kernel, stride, dilation, out)
    best = np.full(win.shape[:2 + nd], -np.inf, x.dtype)
    # the flat input index each offset meets, per output position (broadcast over N and C)
    starts = [(np.arange(o) * st - p).reshape([1] * (2 + i) + [o] + [1] * (nd - 1 - i))
              for i, (o, st, p) in enumerate(zip(out, stride, padding))]
    plane = [math.prod(x.shape[3 + i:]) for i in range(nd)]
    first = sum(np.where(s < 0, s + (-(s // d)) * d, s) * m
                for s, d, m in zip(starts, dilation, plane))
    offsets = list(np.ndindex(*kernel))
    for k in offsets:  # np.maximum propagates NaN, as libtorch's max pooling does
        np.maximum(best, win[(Ellipsis,) + k], out=best)
    index = np.array(np.broadcast_to(first, best.shape))
    hit = np.empty(best.shape, bool)
    sizes = x.shape[2:]
    for k in reversed(offsets):  # the first element equal to the maximum wins
        np.equal(win[(Ellipsis,) + k], best, out=hit)
        pos = [st + ki * d for st, ki, d in zip(starts, k, dilation)]
        if any(p.min() < 0 or p.max() >= n for p, n in zip(pos, sizes)):
            for p, n in zip(pos, sizes):  # padding: never the index of a maximum
                hit &= (p >= 0) & (p < n)
        np.copyto(index, _flat(starts, k, dilation, plane), where=hit)
    if np.isnan(best).any():  # the last NaN of a window wins
        for k in offsets:
            np.isnan(win[(Ellipsis,) + k], out=hit)
            np.copyto(index, _flat(starts, k, dilation, plane), where=hit)
    return best, index


def _flat(starts, k, dilation, plane):
    return sum((s + ki * d) * m for s, ki, d, m in zip(starts, k, dilation, plane))


def max_pool_backward(g, indices, shape, nd):
    """Each element of ``g`` added at its maximum's position in the input of ``shape`` (whose
    last ``nd`` dims are pooled)."""
    nc = math.prod(shape[:-nd])
    plane = math.prod(shape[-nd:])
    where = (np.arange(nc).reshape(nc, 1) * plane + indices.reshape(nc, -1)).ravel()
    sums = np.bincount(where, weights=g.ravel(), minlength=nc * plane)
    return sums.astype(g.dtype, copy=False).reshape(shape)


def avg_divisors(sizes, kernel, stride, padding, out, count_include_pad, divisor_override):
    """What each window's sum is divided by (one value per output position): the override,
    or the window's size clipped to the padded input (``count_include_pad``), or the number of
    input elements it covers."""
    if divisor_override is not None:
        return np.full(out, float(divisor_override))
    div = np.ones(out)
    for i, (s, k, st, p, o) in enumerate(zip(sizes, kernel, stride, padding, out)):
        start = np.arange(o) * st - p
        end = np.minimum(start + k, s + p)
        if not count_include_pad:
            end = np.minimum(end, s)
            start = np.maximum(start, 0)
        shape = [1] * len(out)
        shape[i] = o
        div = div * (end - start).reshape(shape)
    return div


def avg_pool(x, kernel, stride, padding, out, divisor):
    xp = _padded(x, kernel, stride, padding, (1,) * len(kernel), out, 0)
    win = _windows(xp, kernel, stride, (1,) * len(kernel), out)
    nd = len(kernel)
    sums = win.sum(axis=tuple(range(2 + nd, 2 + 2 * nd)), dtype=np.float64 if x.dtype ==
                   np.float16 else x.dtype)
    return np.ascontiguousarray(sums / divisor).astype(x.dtype, copy=False)


def full_pads(sizes, kernel, stride, padding, out):
    """nnf_pad amounts (last dim first) that take a transposed window sum of spatial sizes
    ``(out - 1) stride + kernel`` (starting at -padding) back to the input's ``sizes``."""
    pads = []
    for i in reversed(range(len(kernel))):
        full = (out[i] - 1) * stride[i] + kernel[i]
        pads += [-padding[i], sizes[i] + padding[i] - full]
    return tuple(pads)


def avg_pool_backward(g, kernel, stride, padding, divisor, shape):
    """Each ``g / divisor`` spread over its window (a transposed convolution with ones)."""
    nd = len(kernel)
    out = g.shape[-nd:]
    gd = (g / divisor).astype(g.dtype, copy=False).reshape((-1, 1) + out)
    ones = np.ones((1, 1) + tuple(kernel), g.dtype)
    full = tuple((o - 1) * s + k for o, s, k in zip(out, stride, kernel))
    spread = correlate_input_adjoint(gd, ones, 1, stride, (1,) * len(kernel), full)
    back = constant_pad(spread, full_pads(shape[-nd:], kernel, stride, padding, out))
    return back.reshape(shape)


# ------------------------------------------------------------------------------ adaptive

def adaptive_bounds(size, out):
    """libtorch's adaptive windows along one dim: [floor(i S / O), ceil((i + 1) S / O))."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def adaptive_avg_matrix(size, out, dtype):
    """The (out, size) matrix that averages each adaptive window."""
    start, end = adaptive_bounds(size, out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def apply_matrices(x, mats):
    """``x`` with ``mats[i]`` (out_i, size_i) applied along dim ``-len(mats) + i``."""
    nd = len(mats)
    dt = x.dtype
    for i, m in enumerate(mats):
        axis = x.ndim - nd + i
        x = np.moveaxis(np.tensordot(x, m, axes=([axis], [1])), -1, axis)
    return np.ascontiguousarray(x, dtype=dt)


def adaptive_max_pool(x, out):
    """(maxima, flat indices in each input plane) over the adaptive windows of the last
    ``len(out)`` dims: each window gathered at its widest, short windows repeating their last
    element (which cannot change the maximum or its first position)."""
    nd = len(out)
    lead = x.shape[:-nd]
    sizes = x.shape[-nd:]
    grids = []
    for _i, (s, o) in enumerate(zip(sizes, out)):
        start, end = adaptive_bounds(s, o)
        width = int((end - start).max())
        idx = np.minimum(start[:, None] + np.arange(width), (end - 1)[:, None])  # (o, width)
        grids.append(idx)
    # index arrays broadcasting to (*out, *widths)
    keys = []
    for i, idx in enumerate(grids):
        shape = [1] * (2 * nd)
        shape[i], shape[nd + i] = idx.shape
        keys.append(idx.reshape(shape))
    win = x[(Ellipsis,) + tuple(keys)]
    flat = win.reshape(lead + tuple(out) + (-1,))
    pick = np.argmax(flat, axis=-1)
    nan = np.isnan(flat)
    if nan.any():
        pick = np.where(nan.any(axis=-1), np.argmax(nan, axis=-1), pick)
    values = np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0]
    index = np.zeros(pick.shape, np.int64)
    widths = tuple(g.shape[1] for g in grids)
    offsets = np.unravel_index(pick, widths)
    for i, idx in enumerate(grids):
        shape = [1] * pick.ndim
        shape[len(lead) + i] = out[i]
        pos_grid = np.broadcast_to(np.arange(out[i]).reshape(shape), pick.shape)
        index = index * sizes[i] + idx[pos_grid, offsets[i]]
    return np.ascontiguousarray(values), index


def max_unpool(x, indices, nd, sizes):
    """Zeros of spatial ``sizes`` with each element of ``x`` put at its flat index."""
    lead = x.shape[:-nd]
    nc = math.prod(lead)
    plane = math.prod(sizes)
    out = np.zeros((nc, plane), x.dtype)
    np.put_along_axis(out, indices.reshape(nc, -1), x.reshape(nc, -1), axis=1)
    return out.reshape(lead + tuple(sizes))


def fractional_starts(samples, size, out, kernel):
    """libtorch's pseudo-random window starts of fractional max pooling along one dim, for
    each sample u in [0, 1) (an array): int((i + u) alpha) - int(u alpha) for i < out - 1, with
    alpha = (size - kernel) / (out - 1) in the samples' precision (float32 for float32, as
    libtorch computes it), and the last window flush with the end. Shape samples.shape + (out,)."""
    starts = np.empty(samples.shape + (out,), np.int64)
    if out > 1:
        dt = samples.dtype.type
        alpha = dt(size - kernel) / dt(out - 1)
        i = np.arange(out - 1, dtype=samples.dtype)
        starts[..., :-1] = ((i + samples[..., None]) * alpha).astype(np.int64) \
            - (samples * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - kernel
    return starts


def fractional_max_pool(x, starts, kernel):
    """(maxima, flat indices in each input plane) of ``x`` (N, C, *S) over the windows of
    ``kernel`` beginning at ``starts`` (one (N, C, out_d) array per pooled dim). A window's
    first maximum wins; a NaN wins over numbers (the last NaN, as libtorch scans)."""
    nd = len(kernel)
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    out = tuple(s.shape[-1] for s in starts)
    planes = x.reshape(n * c, -1)
    # the flat position of every element of every window: (N*C, *out, *kernel)
    flat = np.zeros((n * c,) + out + tuple(kernel), np.int64)
    for d in range(nd):
        shape_s = [n * c] + [1] * (2 * nd)
        shape_s[1 + d] = out[d]
        shape_k = [1] * (1 + 2 * nd)
        shape_k[1 + nd + d] = kernel[d]
        pos = starts[d].reshape(shape_s) + np.arange(kernel[d]).reshape(shape_k)
        flat = flat * sizes[d] + pos
    flat = flat.reshape((n * c,) + out + (-1,))
    rows = np.arange(n * c).reshape((n * c,) + (1,) * (nd + 1))
    win = planes[rows, flat]
    pick = np.argmax(win, axis=-1) if win.shape[-1] else np.zeros(win.shape[:-1], np.int64)
    nan = np.isnan(win)
    if nan.any():
        last = win.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
        pick = np.where(nan.any(axis=-1), last, pick)
    index = np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0]
    values = np.take_along_axis(win, pick[..., None], axis=-1)[..., 0]
    shape = (n, c) + out
    return np.ascontiguousarray(values.reshape(shape)), index.reshape(shape)
