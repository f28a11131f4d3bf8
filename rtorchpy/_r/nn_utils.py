"""R torch's ``nn_utils_weight_norm`` helper (``r-shim/R/nn-weight-norm.R``) computes its weight
here, so that R gets libtorch's graph (one ``WeightNormInterfaceBackward0`` node where
libtorch's CPU kernel takes the case) rather than the R-side composition of ops."""
from __future__ import annotations

from ..nn.weight_norm import weight_norm_weight
from .handles import _dec, guarded


@guarded
def weight_norm(v, g, dim):
    """``v * (g / ||v||)`` with the norm over every dim of ``v`` but the 1-based ``dim``
    (-1: over the whole tensor, as in R torch; other negative dims count from the end)."""
    v, g, dim = _dec(v), _dec(g), int(dim)
    if dim == -1:
        return weight_norm_weight(v, g, -1)
    nd = v.dim()
    d = nd + dim + 1 if dim < 0 else dim
    if not 1 <= d <= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd}], "
                         f"but got {dim})")
    return weight_norm_weight(v, g, d - 1)
