"""Convolution on arrays: the three products every convolution op and its gradients are made of.

A convolution (a cross-correlation, as in libtorch) of an input already padded ``xp`` of shape
``(N, C, *S)`` with a weight ``(O, C / groups, *K)`` is, per group, a matrix product of the
weight ``(O / groups, C / groups * prod(K))`` with the input's windows laid out as columns
``(C / groups * prod(K), prod(out))`` (im2col). The windows are a strided view of ``xp``; the
only copy is the one that lays them out for the BLAS product, made a batch chunk at a time so
that it stays in cache. The two adjoints:

- ``correlate_input_adjoint``: the input's gradient (and a transposed convolution's forward):
  the weight's transpose times the gradient, its columns added back into place (col2im), one
  strided slice per kernel offset (a loop over the kernel's few offsets, never over positions).
- ``correlate_weight_adjoint``: the weight's gradient: the gradient times the windows'
  transpose, summed over the batch.

A 1-d convolution skips im2col: one product per kernel offset on a strided view of the input
(BLAS takes rows with a stride as they are), which moves a kernel's width less memory.

float16 is computed in float32 (NumPy's float16 matrix product is neither fast nor accumulated
wide) and rounded back once.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

_CHUNK_BYTES = 1 << 22  # im2col columns per chunk: about 4 MB, so they stay in cache


def out_sizes(sizes, kernel, stride, dilation):
    """The number of windows along each spatial dim of a padded input of ``sizes``."""
    return tuple((s - d * (k - 1) - 1) // st + 1
                 for s, k, st, d in zip(sizes, kernel, stride, dilation))


def _work_dtype(dt):
    return np.dtype(np.float32) if dt == np.float16 else dt


def _windows(x5, kernel, stride, dilation, out):
    """The view ``(N, G, Cg, *out, *kernel)`` of the windows of ``x5`` ``(N, G, Cg, *S)``."""
    st = x5.strides
    space = st[3:]
    shape = x5.shape[:3] + tuple(out) + tuple(kernel)
    strides = (st[:3] + tuple(s * t for s, t in zip(space, stride))
               + tuple(s * d for s, d in zip(space, dilation)))
    return as_strided(x5, shape, strides, writeable=False)


def _columns(x5, kernel, stride, dilation, out):
    """im2col: ``(n, G, Cg * prod(kernel), prod(out))``, a fresh contiguous array."""
    nd = len(kernel)
    n, g, cg = x5.shape[:3]
    win = _windows(x5, kernel, stride, dilation, out)
    perm = (0, 1, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(3, 3 + nd))
    return win.transpose(perm).reshape(n, g, cg * math.prod(kernel), math.prod(out))


def _chunk(n, per_sample_bytes):
    return max(1, min(n, _CHUNK_BYTES // max(per_sample_bytes, 1)))


def _offset(k, dilation, stride, out):
    """The input positions kernel offset ``k`` meets, along a 1-d input."""
    return slice(k * dilation, k * dilation + stride * (out - 1) + 1, stride)


def _correlate_1d(x5, w, groups, stride, dilation, out):
    """1-d: one matrix product per kernel offset, on strided views of the input (no im2col
    copy: each view's rows are contiguous when ``stride`` is 1, which BLAS takes as it is)."""
    n = x5.shape[0]
    o, cg, k_size = w.shape
    w4 = w.reshape(groups, o // groups, cg, k_size)
    y = np.matmul(w4[..., 0], x5[..., _offset(0, dilation, stride, out)])
    for k in range(1, k_size):
        y += np.matmul(w4[..., k], x5[..., _offset(k, dilation, stride, out)])
    return y.reshape(n, o, out)


def correlate(xp, w, groups, stride, dilation):
    """The convolution of the padded input ``xp`` ``(N, C, *S)`` with ``w`` ``(O, C / groups,
    *K)``: ``(N, O, *out)``."""
    dt = xp.dtype
    wd = _work_dtype(dt)
    xp, w = xp.astype(wd, copy=False), w.astype(wd, copy=False)
    n, c = xp.shape[:2]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    out = out_sizes(xp.shape[2:], kernel, stride, dilation)
    x5 = xp.reshape((n, groups, c // groups) + xp.shape[2:])
    if len(kernel) == 1:
        return _correlate_1d(x5, w, groups, stride[0], dilation[0], out[0]).astype(dt,
                                                                                  copy=False)
    wm = w.reshape(groups, o // groups, cg * math.prod(kernel))
    positions = math.prod(out)
    y = np.empty((n, groups, o // groups, positions), wd)
    step = _chunk(n, wm.shape[0] * wm.shape[2] * positions * wd.itemsize)
    for i in range(0, n, step):
        cols = _columns(x5[i:i + step], kernel, stride, dilation, out)
        np.matmul(wm, cols, out=y[i:i + step])
    return y.reshape((n, o) + out).astype(dt, copy=False)


def correlate_input_adjoint(gy, w, groups, stride, dilation, padded_sizes):
    """The gradient with respect to the padded input (of spatial sizes ``padded_sizes``) of
    ``correlate(xp, w)`` given its gradient ``gy`` ``(N, O, *out)``; also the forward of a
    transposed convolution."""
    dt = gy.dtype
    wd = _work_dtype(dt)
    gy, w = gy.astype(wd, copy=False), w.astype(wd, copy=False)
    n, o = gy.shape[:2]
    out = gy.shape[2:]
    cg = w.shape[1]
    kernel = w.shape[2:]
    g4 = gy.reshape(n, groups, o // groups, math.prod(out))
    gx = np.zeros((n, groups, cg) + tuple(padded_sizes), wd)
    if len(kernel) == 1:
        w4 = w.reshape(groups, o // groups, cg, kernel[0])
        for k in range(kernel[0]):
            gx[..., _offset(k, dilation[0], stride[0], out[0])] += np.matmul(
                w4[..., k].transpose(0, 2, 1), g4)
        return gx.reshape((n, groups * cg) + tuple(padded_sizes)).astype(dt, copy=False)
    wt = w.reshape(groups, o // groups, cg * math.prod(kernel)).transpose(0, 2, 1)
    step = _chunk(n, wt.shape[0] * wt.shape[1] * math.prod(out) * wd.itemsize)
    for i in range(0, n, step):
        cols = np.matmul(wt, g4[i:i + step])  # (n, G, Cg * prod(K), prod(out))
        _add_columns(gx[i:i + step], cols, cg, kernel, stride, dilation, out)
    return gx.reshape((n, groups * cg) + tuple(padded_sizes)).astype(dt, copy=False)


def _add_columns(target, cols, cg, kernel, stride, dilation, out):
    """col2im: add the columns ``cols`` (n, G, Cg * prod(kernel), prod(out)) back into
    ``target`` (n, G, Cg, *padded sizes), one strided slice per kernel offset."""
    cols = cols.reshape(cols.shape[:2] + (cg,) + tuple(kernel) + tuple(out))
    for k in np.ndindex(*kernel):
        place = tuple(slice(ki * d, ki * d + s * (m - 1) + 1, s)
                      for ki, d, s, m in zip(k, dilation, stride, out))
        target[(slice(None),) * 3 + place] += cols[(slice(None),) * 3 + k]


def unfold(x, kernel, dilation, padding, stride):
    """libtorch's im2col: (N, C, *S) -> (N, C * prod(kernel), L) columns of the windows of the
    zero-padded input; an unbatched (C, *S) gives (C * prod(kernel), L)."""
    if x.ndim == len(kernel) + 1:
        return unfold(x[None], kernel, dilation, padding, stride)[0]
    xp = pad_zeros(x, padding)
    out = out_sizes(xp.shape[2:], kernel, stride, dilation)
    n, c = xp.shape[:2]
    cols = _columns(xp.reshape((n, 1, c) + xp.shape[2:]), kernel, stride, dilation, out)
    return cols.reshape(n, c * math.prod(kernel), math.prod(out))


def fold(cols, sizes, kernel, dilation, padding, stride):
    """libtorch's col2im, the adjoint of ``unfold``: (N, C * prod(kernel), L) columns summed
    into (N, C, *sizes); unbatched columns (C * prod(kernel), L) give (C, *sizes)."""
    if cols.ndim == 2:
        return fold(cols[None], sizes, kernel, dilation, padding, stride)[0]
    n = cols.shape[0]
    c = cols.shape[1] // math.prod(kernel)
    padded = tuple(s + 2 * p for s, p in zip(sizes, padding))
    out = out_sizes(padded, kernel, stride, dilation)
    wd = _work_dtype(cols.dtype)
    target = np.zeros((n, 1, c) + padded, wd)
    _add_columns(target, cols.astype(wd, copy=False).reshape(n, 1, -1, math.prod(out)), c,
                 kernel, stride, dilation, out)
    return np.ascontiguousarray(crop(target.reshape((n, c) + padded), padding, sizes)).astype(
        cols.dtype, copy=False)


def correlate_weight_adjoint(xp, gy, groups, stride, dilation, kernel):
    """The gradient with respect to the weight (of spatial sizes ``kernel``) of
    ``correlate(xp, w)`` given its gradient ``gy`` ``(N, O, *out)``; windows beyond ``out``
    (a transposed convolution's output padding) take no part."""
    dt = np.result_type(xp.dtype, gy.dtype)
    wd = _work_dtype(dt)
    xp, gy = xp.astype(wd, copy=False), gy.astype(wd, copy=False)
    n, c = xp.shape[:2]
    o = gy.shape[1]
    out = gy.shape[2:]
    cg = c // groups
    x5 = xp.reshape((n, groups, cg) + xp.shape[2:])
    g4 = gy.reshape(n, groups, o // groups, math.prod(out))
    if len(kernel) == 1:
        gw = np.empty((groups, o // groups, cg, kernel[0]), wd)
        for k in range(kernel[0]):
            xk = x5[..., _offset(k, dilation[0], stride[0], out[0])]
            gw[..., k] = np.matmul(g4, xk.transpose(0, 1, 3, 2)).sum(axis=0)
        return gw.reshape((o, cg) + tuple(kernel)).astype(dt, copy=False)
    gw = np.zeros((groups, o // groups, cg * math.prod(kernel)), wd)
    step = _chunk(n, groups * cg * math.prod(kernel) * math.prod(out) * wd.itemsize)
    for i in range(0, n, step):
        cols = _columns(x5[i:i + step], kernel, stride, dilation, out)
        gw += np.matmul(g4[i:i + step], cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return gw.reshape((o, cg) + tuple(kernel)).astype(dt, copy=False)


def pad_zeros(x, padding):
    """``x`` with ``padding[i]`` zeros before and after spatial dim ``i`` (dims 2, 3, ...);
    ``x`` itself when there is none. ``padding`` may hold (before, after) pairs."""
    pairs = [p if isinstance(p, tuple) else (p, p) for p in padding]
    if not any(a or b for a, b in pairs):
        return x
    out = np.zeros(x.shape[:2] + tuple(s + a + b for s, (a, b) in zip(x.shape[2:], pairs)),
                   x.dtype)  # (np.pad's general machinery costs more than the copy)
    out[(slice(None), slice(None)) + tuple(slice(a, a + s) for s, (a, _) in
                                           zip(x.shape[2:], pairs))] = x
    return out


def crop(x, padding, sizes):
    """The spatial block of ``x`` starting at ``padding`` of ``sizes`` (pad_zeros undone)."""
    return x[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, sizes))]


def transposed_sizes(sizes, kernel, stride, padding, dilation, output_padding):
    """The spatial sizes of a transposed convolution's output."""
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, k, s, p, d, op in
                 zip(sizes, kernel, stride, padding, dilation, output_padding))


def convolution(x, w, stride, padding, dilation, transposed, output_padding, groups):
    """libtorch's ``convolution`` without bias: ``x`` (N, C, *S), symmetric ``padding``; a
    transposed convolution's ``w`` is (C, O / groups, *K)."""
    if not transposed:
        return correlate(pad_zeros(x, padding), w, groups, stride, dilation)
    sizes = transposed_sizes(x.shape[2:], w.shape[2:], stride, padding, dilation,
                             output_padding)
    padded = tuple(s + 2 * p for s, p in zip(sizes, padding))
    full = correlate_input_adjoint(x, w, groups, stride, dilation, padded)
    return crop(full, padding, sizes)


def convolution_weight(x, gy, kernel, stride, padding, dilation, transposed, groups):
    """The gradient of ``convolution(x, w, ...)`` with respect to ``w`` given the output's
    gradient ``gy``. Transposed, the roles swap: the (padded) output's gradient is the one
    windowed, the input plays the gradient."""
    if not transposed:
        return correlate_weight_adjoint(pad_zeros(x, padding), gy, groups, stride, dilation,
                                        kernel)
    return correlate_weight_adjoint(pad_zeros(gy, padding), x, groups, stride, dilation, kernel)


# ------------------------------------------------------------------------------ padding

def constant_pad(x, pads, value=0):
    """``x`` padded with ``value``: ``pads`` holds (before, after) per trailing dim, the last
    dim first (``nnf_pad``'s order); a negative amount crops."""
    k = len(pads) // 2
    sizes = list(x.shape)
    src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    for j in range(k):
        dim = x.ndim - 1 - j
        before, after = pads[2 * j], pads[2 * j + 1]
        n = x.shape[dim]
        sizes[dim] = n + before + after
        kept = n - max(-before, 0) - max(-after, 0)
        src[dim] = slice(max(-before, 0), max(-before, 0) + max(kept, 0))
        dst[dim] = slice(max(before, 0), max(before, 0) + max(kept, 0))
    out = np.full(sizes, value, x.dtype)
    out[tuple(dst)] = x[tuple(src)]
    return out


def pad_indices(n, before, after, mode):
    """For each position of a padded dim, the input position it copies (reflect, replicate,
    circular)."""
    i = np.arange(-before, n + after)
    if mode == "circular":  # wrapped around the part of the input kept (a negative pad crops)
        start, kept = max(-before, 0), n - max(-before, 0) - max(-after, 0)
        return start + (np.arange(n + before + after) - max(before, 0)) % kept
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    i = np.abs(i)  # reflect about 0 ...
    return np.where(i > n - 1, 2 * (n - 1) - i, i)  # ... and about n - 1


def gather_pad(x, indices):
    """``x`` with its trailing dims re-indexed: ``indices[j]`` for dim ``-1 - j``."""
    for j, idx in enumerate(indices):
        x = np.take(x, idx, axis=x.ndim - 1 - j)
    return x


def gather_pad_adjoint(g, indices, sizes):
    """The adjoint of ``gather_pad``: each element of ``g`` added back to the position it was
    copied from (a product with a 0/1 matrix per dim; each output sums a few terms)."""
    for j, (idx, n) in enumerate(zip(indices, sizes)):
        axis = g.ndim - 1 - j
        onehot = np.zeros((len(idx), n), g.dtype)
        onehot[np.arange(len(idx)), idx] = 1
        g = np.moveaxis(np.tensordot(g, onehot, axes=([axis], [0])), -1, axis)
    return np.ascontiguousarray(g)


def pixel_shuffle(x, r, up):
    """Pixel shuffle (``up``: (*, C r^2, H, W) -> (*, C, H r, W r)) or its inverse."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    nl = len(lead)
    if up:
        y = x.reshape(lead + (c // (r * r), r, r, h, w))
        perm = tuple(range(nl)) + tuple(nl + i for i in (0, 3, 1, 4, 2))
        return np.ascontiguousarray(y.transpose(perm).reshape(lead + (c // (r * r), h * r,
                                                                      w * r)))
    y = x.reshape(lead + (c, h // r, r, w // r, r))
    perm = tuple(range(nl)) + tuple(nl + i for i in (0, 2, 4, 1, 3))
    return np.ascontiguousarray(y.transpose(perm).reshape(lead + (c * r * r, h // r, w // r)))
