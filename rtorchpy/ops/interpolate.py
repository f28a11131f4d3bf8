"""``nnf_interpolate``: resize the spatial dims of (N, C, *S) inputs by ``size`` or
``scale_factor``, in mode nearest, nearest-exact, (bi/tri)linear, bicubic or area.

Every mode but area is a separable linear map, one matrix per spatial dim
(``numerics/interp.py``), recorded as libtorch's node (``UpsampleBilinear2DBackward0``, ...);
its gradient is the transposed map, recorded as libtorch's double-backward node
(``UpsampleBilinear2DBackwardBackward0``), and the other way round. ``area`` is adaptive
average pooling, as in libtorch.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..derivatives import pool as _rows
from ..numerics import interp
from ..tensor import Tensor
from .pool_adaptive import apply_matrices, nnf_adaptive_avg_pool1d, nnf_adaptive_avg_pool2d, \
    nnf_adaptive_avg_pool3d
from .registry import as_tensor

__all__ = ["nnf_interpolate", "nnf_upsample"]

_KINDS = {("nearest", 1): "UpsampleNearest1D", ("nearest", 2): "UpsampleNearest2D",
          ("nearest", 3): "UpsampleNearest3D", ("nearest-exact", 1): "UpsampleNearestExact1D",
          ("nearest-exact", 2): "UpsampleNearestExact2D",
          ("nearest-exact", 3): "UpsampleNearestExact3D", ("linear", 1): "UpsampleLinear1D",
          ("bilinear", 2): "UpsampleBilinear2D", ("bicubic", 2): "UpsampleBicubic2D",
          ("trilinear", 3): "UpsampleTrilinear3D"}
for _kind in _KINDS.values():
    _rows.linear_map_rows(_kind)
_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_NEEDS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _list(v, nd, what):
    if isinstance(v, Tensor):
        v = v._data.tolist()
    if isinstance(v, (numbers.Number, np.number)):
        return [v] * nd
    v = list(v)
    return v * nd if len(v) == 1 else v


def nnf_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                    recompute_scale_factor=None):
    """Resize ``input`` (N, C, L), (N, C, H, W) or (N, C, D, H, W) to ``size`` or by
    ``scale_factor`` (a number or one per spatial dim). ``mode``: ``"nearest"``,
    ``"nearest-exact"``, ``"linear"`` (3-d inputs), ``"bilinear"`` / ``"bicubic"`` (4-d),
    ``"trilinear"`` (5-d) or ``"area"``. ``align_corners = TRUE`` maps the corner pixels'
    centres onto each other (interpolating modes only)."""
    input = as_tensor(input)
    nd = input.ndim - 2
    if mode not in _MODES or nd not in (1, 2, 3):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: nearest | linear | bilinear | "
                                  f"bicubic | trilinear | lanczos | area | nearest-exact (got "
                                  f"{mode})")
    if align_corners is not None and mode not in _NEEDS:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode in _NEEDS and _NEEDS[mode] != nd:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_NEEDS[mode] + 2}D input")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    sizes = input.shape[2:]
    if size is not None:
        out = [int(s) for s in _list(size, nd, "size")]
        if len(out) != nd:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sizes)} and output size of {tuple(out)}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                             f"(o1, o2, ...,oK) format.")
        scales = [None] * nd
    else:
        scales = [float(f) for f in _list(scale_factor, nd, "scale_factor")]
        if len(scales) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(sizes)} and scale_factor of shape {tuple(scales)}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             "scale_factor in (s1, s2, ...,sK) format.")
        out = [math.floor(float(s) * f) for s, f in zip(sizes, scales)]
        if recompute_scale_factor:
            scales = [None] * nd
    if any(o <= 0 for o in out) or any(s <= 0 for s in sizes):
        names = ("D", "H", "W")[3 - nd:]

        def show(values):
            return ", ".join(f"{n}: {v}" for n, v in zip(names, values))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({show(sizes)}) output ({show(out)})")
    if mode == "area":
        pool = (nnf_adaptive_avg_pool1d, nnf_adaptive_avg_pool2d, nnf_adaptive_avg_pool3d)
        return pool[nd - 1](input, out)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"\"upsample_{mode}{nd}d_out_frame\" not implemented for the input's "
                           "dtype")
    base = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    mats = tuple(interp.matrix(s, o, base, bool(align_corners), f, input._data.dtype, nd == 2)
                 for s, o, f in zip(sizes, out, scales))
    kind = _KINDS[(mode if mode in ("nearest", "nearest-exact") else mode, nd)]
    return apply_matrices(input, mats, kind + "Backward0", kind + "BackwardBackward0")


def nnf_upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``nnf_interpolate`` under its older name."""
    return nnf_interpolate(input, size, scale_factor, mode, align_corners)
