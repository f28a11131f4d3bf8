"""Interpolation matrices: each mode of ``nnf_interpolate`` along one dim is a small (out, in)
matrix, and an N-d interpolation applies one per dim (all of libtorch's modes are separable).
The source coordinates follow libtorch's rules (``align_corners``, a given ``scale_factor``
used as it is), computed in the input's precision as libtorch does (float32 for float32)."""
from __future__ import annotations

import numpy as np

_A = -0.75  # the cubic convolution constant libtorch uses


def _scale(n_in, n_out, align_corners, scale_factor, dt):
    """The ratio from output to input coordinates."""
    if align_corners:
        return dt.type((n_in - 1) / (n_out - 1)) if n_out > 1 else dt.type(0)
    if scale_factor is not None and scale_factor > 0:
        return dt.type(1.0 / scale_factor)
    return dt.type(n_in / n_out)


def _cubic_weights(t):
    """The four weights of the taps at floor(src) - 1 .. floor(src) + 2."""
    a = _A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def matrix(n_in, n_out, mode, align_corners, scale_factor, dtype, shortcuts=False):
    """The (n_out, n_in) matrix of ``mode`` ("nearest", "nearest-exact", "linear", "cubic").
    ``shortcuts``: libtorch's 2-d nearest kernel copies a dim whose size is kept and
    halves the indices of a dim doubled, whatever the scale factor (its 1-d and 3-d kernels
    do not)."""
    dt = np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)
    if n_in == n_out and mode == "linear":  # libtorch copies then, whatever the scale
        return np.eye(n_in, dtype=dt)
    m = np.zeros((n_out, n_in), dt)
    dst = np.arange(n_out)
    rows = np.arange(n_out)
    s = _scale(n_in, n_out, align_corners, scale_factor, dt)
    if mode in ("nearest", "nearest-exact"):
        pos = dst.astype(dt) + (dt.type(0.5) if mode == "nearest-exact" else 0)
        src = np.minimum(np.floor(pos * s).astype(np.int64), n_in - 1)
        if mode == "nearest" and shortcuts and n_out in (n_in, 2 * n_in):
            src = dst if n_out == n_in else dst >> 1
        m[rows, src] = 1
        return m
    if align_corners:
        src = dst.astype(dt) * s
    else:
        src = (dst.astype(dt) + dt.type(0.5)) * s - dt.type(0.5)
    if mode == "linear":
        if not align_corners:
            src = np.maximum(src, 0)
        i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        lam = (src - i0).astype(dt)
        np.add.at(m, (rows, i0), 1 - lam)
        np.add.at(m, (rows, i1), lam)
        return m
    i = np.floor(src).astype(np.int64)
    t = (src - i).astype(dt)
    for k, w in enumerate(_cubic_weights(t)):
        np.add.at(m, (rows, np.clip(i - 1 + k, 0, n_in - 1)), w.astype(dt))
    return m
