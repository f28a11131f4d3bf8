"""``nnf_affine_grid`` and ``nnf_grid_sample`` (2-d and 3-d), composed of recorded ops: the
sampling positions' integer parts are constants, the values are gathered from the flattened
input and weighted by polynomials of the fractional parts, so gradients reach both the input
and the grid, to any order. libtorch records one node for each (``AffineGridGeneratorBackward0``,
``GridSampler2DBackward0`` / ``GridSampler3DBackward0``); here the graph shows the ops they are
made of.

The rules are libtorch's: a grid coordinate in [-1, 1] is unnormalized to a pixel position
(``align_corners``: -1 and 1 are the corner pixels' centres; else their outer edges), then, for
bilinear (trilinear) and nearest sampling, ``padding_mode`` moves it inside ("border": clamped;
"reflection": mirrored at the edges, then clamped), with its gradient (0 where clamped, the sign
flipped where mirrored). Bicubic sampling (2-d only) weights the 4 x 4 pixels around the
position with the cubic convolution kernel (a = -0.75) and applies ``padding_mode`` to each of
those pixels' integer positions instead.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..numerics.format import type_word_for
from ..tensor import Tensor
from .registry import as_tensor

__all__ = ["nnf_affine_grid", "nnf_grid_sample"]

_A = -0.75  # the cubic convolution constant libtorch uses


def _base(n, align_corners, dt):
    """The normalized coordinates of ``n`` pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return ((np.arange(n) * 2 + 1) / n - 1).astype(np.float64)


def nnf_affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps ``theta`` for an output of ``size``: for a 4-d
    ``size`` (N, C, H, W), ``theta`` (N, 2, 3) gives a grid (N, H, W, 2); for a 5-d ``size``
    (N, C, D, H, W), ``theta`` (N, 3, 4) gives (N, D, H, W, 3). Each output pixel's normalized
    (x, y[, z]) mapped by its ``theta``."""
    theta = as_tensor(theta)
    size = [int(s) for s in (size._data.tolist() if isinstance(size, Tensor) else size)]
    if theta._data.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        nd, want = 2, (2, 3)
    elif len(size) == 5:
        nd, want = 3, (3, 4)
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if theta.ndim != 3 or tuple(theta.shape[1:]) != want or theta.shape[0] != size[0]:
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape "
                         f"Nx{want[0]}x{want[1]} for size {size}. Got {list(theta.shape)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dt = theta._data.dtype
    spatial = size[2:]
    # x runs along the last dim, y along the one before, z along the first spatial dim
    axes = [_base(s, align_corners, dt) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    cols = [mesh[nd - 1 - k] for k in range(nd)] + [np.ones(tuple(spatial))]
    count = int(np.prod(spatial))
    base = np.stack(cols, axis=-1).reshape(1, count, nd + 1).astype(dt)
    grid = Tensor._make(base).matmul(theta.transpose(1, 2))
    return grid.view(size[0], *spatial, nd)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """``coord`` (a tensor) mirrored into [twice_low / 2, twice_high / 2] as often as needed:
    the distance from the low end, less whole spans, taken forwards or backwards by the parity
    of the number of spans (its gradient +1 or -1)."""
    if twice_low == twice_high:
        return coord * 0.0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    dt = dist._data.dtype
    flips = np.floor(dist._data / span)
    extra = dist - Tensor._make((flips * span).astype(dt))
    even = np.fmod(flips, 2) == 0
    return (extra * Tensor._make(np.where(even, 1.0, -1.0).astype(dt))
            + Tensor._make(np.where(even, low, span + low).astype(dt)))


def _pad_coord(coord, size, padding_mode, align_corners):
    """A pixel position (tensor) moved inside by ``padding_mode`` ("zeros": as it is)."""
    if padding_mode == "border":
        return coord.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return coord.clamp(0, size - 1)
    return coord


def _pad_index(pos, size, padding_mode, align_corners):
    """An integer pixel position (array) moved inside by ``padding_mode``, as bicubic
    sampling does for each of its 16 pixels."""
    pos = pos.astype(np.float64)
    if padding_mode == "reflection":
        lo, hi = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if lo == hi:
            pos = np.zeros_like(pos)
        else:
            low, span = lo / 2, (hi - lo) / 2
            dist = np.abs(pos - low)
            flips = np.floor(dist / span)
            extra = np.fmod(dist, span)
            pos = np.where(np.fmod(flips, 2) == 0, extra + low, span - extra + low)
    if padding_mode in ("border", "reflection"):
        pos = np.clip(pos, 0, size - 1)
    return np.trunc(pos)


class _Taps:
    """Gathers of the input (N, C, *spatial) at integer positions, one array per spatial dim
    of shape (N, *out): the values (N, C, *out), 0 outside the input."""

    def __init__(self, input, out_shape):
        self.n, self.c = input.shape[:2]
        self.sizes = list(input.shape[2:])
        self.out = tuple(out_shape)
        self.count = int(np.prod(self.out))
        self.flat = input.reshape(self.n, self.c, int(np.prod(self.sizes)))
        self.dt = input._data.dtype

    def __call__(self, positions):
        inside = np.ones((self.n,) + self.out, dtype=bool)
        index = np.zeros((self.n,) + self.out, dtype=np.int64)
        for pos, size in zip(positions, self.sizes):
            inside &= (pos >= 0) & (pos <= size - 1)
            index = index * size + np.clip(pos, 0, size - 1).astype(np.int64)
        index = np.broadcast_to(index.reshape(self.n, 1, self.count),
                                (self.n, self.c, self.count))
        values = self.flat.gather(2, Tensor._make(np.ascontiguousarray(index)))
        values = values.view(self.n, self.c, *self.out)
        if inside.all():
            return values
        return values * Tensor._make(inside[:, None].astype(self.dt))


def _cubic_weights(t):
    """The cubic convolution weights (tensors) of the pixels at floor - 1 .. floor + 2 for the
    fractional part ``t``."""
    a = _A

    def near(x):  # |x| <= 1
        return ((x * (a + 2) - (a + 3)) * x) * x + 1

    def far(x):  # 1 < |x| < 2
        return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _check(input, grid, mode, padding_mode):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    xs, gs = list(input.shape), list(grid.shape)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"grid_sampler" not implemented for '
                           f"'{type_word_for(input._data.dtype)}'")
    if grid._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {type_word_for(input._data.dtype)} but found "
                           f"{type_word_for(grid._data.dtype)}")
    if xs[0] != gs[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {xs} and grid with sizes {gs}")
    if gs[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in "
                           f"last dimension, but got grid with sizes {gs}")
    for i in range(2, input.ndim):
        if xs[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {xs} with dimension {i} being "
                               "empty")
    nd = 2 if input.ndim == 4 else 3
    if input.ndim != nd + 2 or grid.ndim != nd + 2:
        raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number "
                           f"of dimensions, but got input with sizes {xs} and grid with sizes "
                           f"{gs}")
    if mode == "bicubic" and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return nd


def nnf_grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Sample ``input`` (N, C, H, W) at the normalized positions ``grid`` (N, H_out, W_out, 2)
    (x then y; -1 and 1 the edges, or the corner pixels' centres with ``align_corners``), or a
    volume (N, C, D, H, W) at ``grid`` (N, D_out, H_out, W_out, 3) (x, y, z). ``mode``:
    ``"bilinear"`` (trilinear for volumes), ``"nearest"`` or ``"bicubic"`` (2-d only).
    Outside the input, ``padding_mode``: ``"zeros"``, ``"border"`` (the edge value) or
    ``"reflection"`` (mirrored at the edges)."""
    input, grid = as_tensor(input), as_tensor(grid)
    nd = _check(input, grid, mode, padding_mode)
    sizes = list(input.shape[2:])
    taps = _Taps(input, grid.shape[1:-1])
    # the pixel position along each spatial dim (D, H, W order): grid component nd - 1 - d
    coords = [_unnormalize(grid[..., nd - 1 - d], sizes[d], align_corners) for d in range(nd)]
    if mode == "bicubic":
        return _bicubic(taps, coords, sizes, padding_mode, align_corners)
    coords = [_pad_coord(c, s, padding_mode, align_corners) for c, s in zip(coords, sizes)]
    if mode == "nearest":
        # half to even, as libtorch's nearbyint; the grid gets no gradient (a constant)
        return taps([np.rint(c._data) for c in coords])
    floors = [np.floor(c._data) for c in coords]
    fracs = [c - Tensor._make(f.astype(c._data.dtype)) for c, f in zip(coords, floors)]
    out = None
    for corner in itertools.product((0, 1), repeat=nd):
        weight = None
        for bit, frac in zip(corner, fracs):
            w = frac if bit else 1 - frac
            weight = w if weight is None else weight * w
        term = taps([f + b for f, b in zip(floors, corner)]) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(taps, coords, sizes, padding_mode, align_corners):
    (y, x), (h, w) = coords, sizes
    x0, y0 = np.floor(x._data), np.floor(y._data)
    wx = _cubic_weights(x - Tensor._make(x0.astype(x._data.dtype)))
    wy = _cubic_weights(y - Tensor._make(y0.astype(y._data.dtype)))
    out = None
    for j in range(4):
        yi = _pad_index(y0 - 1 + j, h, padding_mode, align_corners)
        row = None
        for i in range(4):
            xi = _pad_index(x0 - 1 + i, w, padding_mode, align_corners)
            term = taps([yi, xi]) * wx[i].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[j].unsqueeze(1)
        out = term if out is None else out + term
    return out
