"""``nnf_affine_grid`` and ``nnf_grid_sample`` (2-d), composed of recorded ops: the sampling
positions' integer parts are constants, the values are gathered from the flattened input and
weighted by the fractional parts, so gradients reach both the input and the grid, to any order.
libtorch records one node for each (``AffineGridGeneratorBackward0``,
``GridSampler2DBackward0``); here the graph shows the ops they are made of."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .registry import as_tensor

__all__ = ["nnf_affine_grid", "nnf_grid_sample"]


def _base(n, align_corners, dt):
    """The normalized coordinates of ``n`` pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return ((np.arange(n) * 2 + 1) / n - 1).astype(np.float64)


def nnf_affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) of the affine maps ``theta`` (N, 2, 3) for an output of
    ``size`` (N, C, H, W): each output pixel's normalized (x, y) mapped by its ``theta``."""
    theta = as_tensor(theta)
    size = [int(s) for s in (size._data.tolist() if isinstance(size, Tensor) else size)]
    if len(size) != 4:
        raise NotImplementedError("affine_grid only supports 4D sizes here, for 2D affine "
                                  f"transformations; got size {size}")
    n, _, h, w = size
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3):
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                         f"{size}. Got {list(theta.shape)}.")
    if theta.shape[0] != n:
        raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                         f"{size}. Got {list(theta.shape)}.")
    dt = theta._data.dtype
    xs, ys = _base(w, align_corners, dt), _base(h, align_corners, dt)
    base = np.stack([np.broadcast_to(xs, (h, w)), np.broadcast_to(ys[:, None], (h, w)),
                     np.ones((h, w))], axis=-1).reshape(1, h * w, 3).astype(dt)
    grid = Tensor._make(base).matmul(theta.transpose(1, 2))
    return grid.view(n, h, w, 2)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def nnf_grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Sample ``input`` (N, C, H, W) at the normalized positions ``grid`` (N, H_out, W_out, 2)
    (x then y, -1 and 1 the edges, or the corner pixels' centres with ``align_corners``):
    ``mode`` ``"bilinear"`` or ``"nearest"``; outside the input, ``padding_mode`` ``"zeros"``
    or ``"border"`` (the edge value)."""
    input, grid = as_tensor(input), as_tensor(grid)
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border"):
        raise NotImplementedError(f"grid_sample: padding_mode '{padding_mode}' is not "
                                  "supported yet (zeros, border)")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    n, c, h, w = input.shape
    ho, wo = grid.shape[1:3]
    ix = _unnormalize(grid[..., 0], w, align_corners)
    iy = _unnormalize(grid[..., 1], h, align_corners)
    if padding_mode == "border":
        ix, iy = ix.clamp(0, w - 1), iy.clamp(0, h - 1)
    flat = input.reshape(n, c, h * w)

    def tap(xi, yi):
        """The input values at integer positions (arrays), 0 outside; and where inside."""
        inside = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1)
        index = (np.clip(yi, 0, h - 1) * w + np.clip(xi, 0, w - 1)).astype(np.int64)
        index = np.broadcast_to(index.reshape(n, 1, ho * wo), (n, c, ho * wo))
        values = flat.gather(2, Tensor._make(np.ascontiguousarray(index)))
        return values.view(n, c, ho, wo), inside

    dt = input._data.dtype
    if mode == "nearest":
        xi, yi = np.rint(ix._data), np.rint(iy._data)  # half to even, as libtorch's nearbyint
        values, inside = tap(xi, yi)
        return values * Tensor._make(inside[:, None].astype(dt))
    x0, y0 = np.floor(ix._data), np.floor(iy._data)
    fx = ix - Tensor._make(x0.astype(ix._data.dtype))  # the fractional parts carry the grid's
    fy = iy - Tensor._make(y0.astype(iy._data.dtype))  # gradient
    out = None
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
        values, inside = tap(x0 + dx, y0 + dy)
        weight = (fx if dx else 1 - fx) * (fy if dy else 1 - fy)
        weight = weight * Tensor._make(inside.astype(dt))
        term = values * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out
