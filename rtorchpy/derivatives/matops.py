"""The derivative table, continued: batched products, einsum, triangles and diagonals, distances,
cumulative products, sorting, rank selections (median, kthvalue), and the (var|std, mean)
pairs.

Rows here register into the same table as the other modules of ``rtorchpy/derivatives/``
(``NODES``, ``ROWS``); the forwards are in ``ops/matrix.py``, ``ops/sorting.py`` and
``ops/selection.py``.
"""
from __future__ import annotations

from ..autograd.rows import row
from .elementwise import _evenly_distribute, _inverse, _value_selecting


# ---------------------------------------------------------------- products
@row("BmmBackward0", fresh=True, inputs=("self", "mat2"), saves=("self", "mat2"))
def _bmm(F, g, needs, self, mat2):
    """self: g @ mat2^T;  mat2: self^T @ g   (per batch)"""
    return ((F.matmul(g, F.mT(mat2)) if needs[0] else None),
            (F.matmul(F.mT(self), g) if needs[1] else None))


@row("EinsumBackward0", saves=("*inputs",))
def _einsum(F, g, needs, *operands_and_plan):
    """each operand: one einsum of g with the other operands back to the operand's subscripts
    (repeated subscripts through identity matrices, subscripts only that operand has through
    vectors of ones). No libtorch node has this name: libtorch's einsum is a composite whose
    grad_fn is the last op it decomposes into."""
    *operands, plan = operands_and_plan
    out = []
    for i, n in enumerate(needs):
        if not n:
            out.append(None)
            continue
        equation, others, consts = plan.gradient(i)
        args = [g] + [operands[j] for j in others] + [F.constant(c, g) for c in consts]
        out.append(F.einsum(equation, args))
    return tuple(out)


# ---------------------------------------------------------------- triangles and diagonals
@row("TrilBackward0", saves=())
def _tril(F, g, needs, diagonal):
    """self: tril(g, diagonal)"""
    return F.tril(g, diagonal)


@row("TriuBackward0", saves=())
def _triu(F, g, needs, diagonal):
    """self: triu(g, diagonal)"""
    return F.triu(g, diagonal)


@row("DiagEmbedBackward0", saves=())
def _diag_embed(F, g, needs, offset, dim1, dim2):
    """self: the (offset, dim1, dim2) diagonal of g"""
    return F.diagonal(g, offset, dim1, dim2)


@row("DiagonalBackward0_copy", fresh=True, saves=())
def _diagonal_copy(F, g, needs, shape, offset, dim1, dim2):
    """self: zeros with g written on the diagonal   (diag of a matrix: libtorch's
    diagonal_copy)"""
    return F.diagonal_backward(g, shape, offset, dim1, dim2)


@row("TraceBackward0", fresh=True, saves=())
def _trace(F, g, needs, shape):
    """self: g on the main diagonal, 0 elsewhere"""
    return F.diagonal_backward(F.expand(g, (min(shape),)), shape, 0, 0, 1)


@row("SqueezeBackward4", saves=())
def _squeeze_inplace(F, g, needs, shape):
    """self: g reshaped to self's shape   (libtorch's in-place ``squeeze_(dim)``, the last step
    of quantile)"""
    return F.reshape(g, shape)


# ---------------------------------------------------------------- distances
_CDIST_BLOCK = 1 << 22  # elements of the (..., rows, R, M) differences made at a time


@row("CdistBackward0", inputs=("x1", "x2"), saves=("x1", "x2", "result"))
def _cdist(F, g, needs, x1, x2, result, p):
    """x1: sum over j of g[i, j] * d dist(x1_i, x2_j) / d x1_i, with diff = x1_i - x2_j:
    p = 0: 0;  p = 1: sgn(diff);  p = 2: diff / dist (0 where dist == 0);  p = inf:
    sgn(diff) where |diff| == dist (libtorch does not share ties);  otherwise
    sgn(diff) |diff|^(p-1) / dist^(p-1) (0 where dist == 0, and where diff == 0 for p < 1);
    x2: minus the same, summed over i   (as libtorch's _cdist_backward; the differences are
    formed a block of x1's rows at a time)"""
    rows, n_r, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    batch = 1
    for k in g.shape[:-2]:
        batch *= k
    block = max(1, _CDIST_BLOCK // max(1, batch * n_r * m))
    if rows <= block:
        term = _cdist_term(F, g, x1, x2, result, p)
        return ((F.sum(term, (term.ndim - 2,), False) if needs[0] else None),
                (-F.sum(term, (term.ndim - 3,), False) if needs[1] else None))
    g1_parts, g2 = [], None
    for start in range(0, rows, block):
        n = min(block, rows - start)
        term = _cdist_term(F, F.narrow(g, g.ndim - 2, start, n),
                           F.narrow(x1, x1.ndim - 2, start, n), x2,
                           F.narrow(result, result.ndim - 2, start, n), p)
        if needs[0]:
            g1_parts.append(F.sum(term, (term.ndim - 2,), False))
        if needs[1]:
            part = F.sum(term, (term.ndim - 3,), False)
            g2 = part if g2 is None else g2 + part
    return ((F.cat(g1_parts, g1_parts[0].ndim - 2) if needs[0] else None),
            (-g2 if needs[1] else None))


def _cdist_term(F, g, x1, x2, result, p):
    """d dist / d x1 times g for every pair: (..., P, R, M)."""
    diff = F.unsqueeze(x1, -2) - F.unsqueeze(x2, -3)       # (..., P, R, M)
    dist = F.unsqueeze(result, -1)                          # (..., P, R, 1)
    gg = F.unsqueeze(g, -1)
    if p == 0:
        return F.zeros_like(diff)
    if p == 1:
        return F.sgn(diff) * gg
    if p == 2:
        zero = dist == 0
        return F.where(zero, 0.0, diff * (gg / F.where(zero, 1.0, dist)))
    if p == float("inf"):
        return F.keep_where(F.abs(diff) == dist, F.sgn(diff) * gg)
    zero = dist == 0
    if p < 1:
        zero = zero | (diff == 0)
    safe_diff = F.abs(F.where(diff == 0, 1.0, diff)) if p < 1 else F.abs(diff)
    return F.where(zero, 0.0, F.sgn(diff) * F.pow(safe_diff, p - 1) * gg
                   / F.pow(F.where(dist == 0, 1.0, dist), p - 1))


@row("EuclideanDistBackward0", inputs=("x1", "x2"), saves=("x1", "x2", "result"))
def _euclidean_dist(F, g, needs, x1, x2, result):
    """x1: x1 * sum_j ratio - ratio @ x2;  x2: x2 * sum_i ratio - ratio^T @ x1, with
    ratio = g / dist (0 where dist == 0)   (cdist's matrix-product path, p = 2 with more than 25
    rows, as libtorch's _euclidean_dist_backward)"""
    zero = result == 0
    ratio = F.where(zero, 0.0, g / F.where(zero, 1.0, result))
    g1 = g2 = None
    if needs[0]:
        g1 = x1 * F.sum(ratio, (ratio.ndim - 1,), True) - F.matmul(ratio, x2)
    if needs[1]:
        g2 = (x2 * F.unsqueeze(F.sum(ratio, (ratio.ndim - 2,), False), -1)
              - F.matmul(F.mT(ratio), x1))
    return g1, g2

# ---------------------------------------------------------------- scans and sorting
@row("CumprodBackward0", saves=("self", "result"))
def _cumprod(F, g, needs, self, result, dim):
    """self: sum over j >= k of g_j * prod_{i <= j, i != k} self_i: reverse_cumsum(g * result) /
    self when self has no zero; with zeros, exact (0 after the first zero of a slice; at the
    first zero the products that skip it), O(n) on the fast path and an O(n^2) differentiable
    form under create_graph, as libtorch's cumprod_backward"""
    if not g.ndim or g.shape[dim] <= 1:
        return g
    return F.cumprod_backward(g, self, result, dim)


@row("SortBackward0", saves=())
def _sort(F, g, needs, shape, dim, indices):
    """self: the values' gradient put back at the indices they came from (indices: none)"""
    if not shape:
        return g
    return F.scatter_zeros(shape, dim, indices, g)


row("SortBackward1", saves=())(_sort)  # sort(stable=): the same formula


@row("TopkBackward0", saves=())
def _topk(F, g, needs, shape, dim, indices):
    """self: the values' gradient put at the indices of the k values, 0 elsewhere"""
    if not shape:
        return g
    return F.scatter_zeros(shape, dim, indices, g)


# ---------------------------------------------------------------- rank selections
@row("MedianBackward0", saves=("self", "result"))
def _median_all(F, g, needs, self, result):
    """self: g shared evenly among the elements equal to the median (the NaNs when it is NaN),
    0 elsewhere (libtorch's evenly_distribute_backward)"""
    return _evenly_distribute(F, g, self, result)


# median(dim) and kthvalue(k, dim): max(dim)'s formula
row("MedianBackward1", saves=())(_value_selecting)
row("KthvalueBackward0", saves=())(_value_selecting)


# ---------------------------------------------------------------- (var | std, mean)
@row("VarMeanBackward0", saves=("self",))
def _var_mean(F, g, needs, self, dims, correction, keepdim, count):
    """self: g_var * 2 (self - mean) / (N - correction) + g_mean / N"""
    gv, gm = g
    centered = self - F.mean(self, dims, True)
    return (F.restore_dims(gv, dims, keepdim) * centered * (2.0 * _inverse(count - correction))
            + F.restore_dims(gm, dims, keepdim) / count)


@row("StdMeanBackward0", inputs=("self",), outputs=("std", "mean"), saves=("self", "std"))
def _std_mean(F, g, needs, self, std, dims, correction, keepdim, count):
    """self: g_std * (self - mean) / (std * (N - correction)) (0 where std == 0) + g_mean / N"""
    gs, gm = g
    centered = self - F.mean(self, dims, True)
    s = F.restore_dims(std, dims, keepdim)
    zero = s == 0
    scaled = F.where(zero, 0.0, F.restore_dims(gs, dims, keepdim) / F.where(zero, 1.0, s))
    return (scaled * centered * _inverse(count - correction)
            + F.restore_dims(gm, dims, keepdim) / count)


@row("LerpBackward1", inputs=("self", "end", "weight"), saves=("self", "end", "weight"))
def _lerp(F, g, needs, self, end, weight):
    """self: g * (1 - weight);  end: g * weight;  weight: g * (end - self)   (the interpolation
    step of quantile)"""
    return ((g * (1 - weight) if needs[0] else None), (g * weight if needs[1] else None),
            (g * (end - self) if needs[2] else None))
