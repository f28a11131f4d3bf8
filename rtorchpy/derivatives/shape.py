"""Rows of the derivative table: linear algebra, shape and view ops, indexing, and losses.

What a row is: see ``rtorchpy/derivatives/__init__.py``.
"""
from __future__ import annotations

from ..autograd.forward_ad import BATCH, _pad, tangent
from ..autograd.rows import row
from ..tensor import Tensor


# ---------------------------------------------------------------- linear algebra
@row("MmBackward0", fresh=True, inputs=("self", "mat2"), saves=("self", "mat2"))
def _mm(F, g, needs, self, mat2):
    """self: g @ mat2^T;  mat2: self^T @ g"""
    return ((F.matmul(g, F.mT(mat2)) if needs[0] else None),
            (_mat2_grad(F, self, g, mat2) if needs[1] else None))


def _mat2_grad(F, mat1, g, mat2):
    """``mat1^T @ g`` in ``mat2``'s memory layout (libtorch's ``mm_mat2_backward``): when
    ``mat2`` is a transposed view (``weight.t()`` in ``nnf_linear``), ``(g^T @ mat1)^T``, so
    that after ``TBackward0`` the weight's gradient is C-contiguous (an F-ordered ``.grad``
    makes every later ``p.sub_(p.grad)`` walk memory across the grain)."""
    if type(g) is not Tensor and mat2.ndim == 2 and mat2.flags.f_contiguous \
            and not mat2.flags.c_contiguous:
        return F.mT(F.matmul(F.mT(g), mat1))
    return F.matmul(F.mT(mat1), g)


@row("MatmulBackward0", fresh=True, inputs=("self", "other"), saves=("self", "other"))
def _matmul(F, g, needs, self, other):
    """self: g @ other^T;  other: self^T @ g   (batch dims summed back by the engine)"""
    if other.ndim == 2 and self.ndim > 2:
        # batches times one matrix (a linear layer on a sequence): other's gradient is one
        # product over the folded batch, not a product per batch element summed afterwards
        k, n = self.shape[-1], g.shape[-1]
        return ((F.reshape(F.matmul(F.reshape(g, (-1, n)), F.mT(other)),
                           tuple(g.shape[:-1]) + (k,)) if needs[0] else None),
                (F.matmul(F.mT(F.reshape(self, (-1, k))), F.reshape(g, (-1, n)))
                 if needs[1] else None))
    return ((F.matmul(g, F.mT(other)) if needs[0] else None),
            (F.matmul(F.mT(self), g) if needs[1] else None))


@row("MvBackward0", inputs=("self", "vec"), saves=("self", "vec"))
def _mv(F, g, needs, self, vec):
    """self: outer(g, vec);  vec: self^T @ g"""
    return ((F.unsqueeze(g, -1) * vec if needs[0] else None),
            (F.matmul(F.mT(self), g) if needs[1] else None))


@row("DotBackward0", inputs=("self", "other"), saves=("self", "other"))
def _dot(F, g, needs, self, other):
    """self: g * other;  other: g * self"""
    return (g * other if needs[0] else None), (g * self if needs[1] else None)


@row("AddmmBackward0", inputs=("self", "mat1", "mat2"), saves=("mat1", "mat2"))
def _addmm(F, g, needs, mat1, mat2, beta, alpha):
    """self: beta * g;  mat1: alpha * g @ mat2^T;  mat2: alpha * mat1^T @ g"""
    gs = (g if beta == 1 else g * beta) if needs[0] else None
    ga = F.matmul(g, F.mT(mat2)) if needs[1] else None
    gb = _mat2_grad(F, mat1, g, mat2) if needs[2] else None
    if alpha != 1:
        ga = None if ga is None else ga * alpha
        gb = None if gb is None else gb * alpha
    return gs, ga, gb


# ---------------------------------------------------------------- shape and views
# Forward mode: the products are bilinear, so their tangent is the product rule, one matmul per
# input that carries a tangent (faster than the generic transpose trick of forward_ad.py).
# Batched tangents (a leading dimension of BATCH[0] directions) are lined up with the other
# operand so that matmul's broadcasting keeps the directions in front.
def _left(F, ta, a, b):
    """tangent of a (ta) @ b"""
    if not BATCH[0]:
        return F.matmul(ta, b)
    if a.ndim == 1 and b.ndim >= 2:  # a row vector per direction
        return F.matmul(_pad(ta.unsqueeze(-2), b.ndim), b).squeeze(-2)
    return F.matmul(_pad(ta, max(a.ndim, b.ndim)), b)


def _right(F, a, tb, b):
    """a @ tangent of b (tb)"""
    if not BATCH[0]:
        return F.matmul(a, tb)
    if b.ndim == 1:  # a column vector per direction
        return F.matmul(a, _pad(tb.unsqueeze(-1), max(a.ndim, 2))).squeeze(-1)
    return F.matmul(a, _pad(tb, max(a.ndim, b.ndim)))


def _product_rule(F, tans, a, b):
    out = None
    if tans[0] is not None:
        out = _left(F, tans[0], a, b)
    if tans[1] is not None:
        part = _right(F, a, tans[1], b)
        out = part if out is None else out + part
    return out


@tangent("MmBackward0", "MatmulBackward0", "MvBackward0", "DotBackward0", batched=True)
def _matmul_tangent(F, tans, inputs, outputs, params):
    """result: t_self @ other + self @ t_other"""
    return _product_rule(F, tans, inputs[0], inputs[1])


@tangent("AddmmBackward0", batched=True)
def _addmm_tangent(F, tans, inputs, outputs, params):
    """result: beta * t_self + alpha * (t_mat1 @ mat2 + mat1 @ t_mat2)"""
    beta, alpha = params
    out = _product_rule(F, tans[1:], inputs[1], inputs[2])
    if out is not None and alpha != 1:
        out = out * alpha
    if tans[0] is not None:
        part = tans[0] if beta == 1 else tans[0] * beta
        part = _pad(part, 2) if BATCH[0] else part
        out = part if out is None else out + part
    return out


def _lead():
    return (BATCH[0],) if BATCH[0] else ()


@tangent("ViewBackward0", "UnsafeViewBackward0", "SqueezeBackward0", "SqueezeBackward1",
         "UnsqueezeBackward0", "SqueezeBackward4", "ReshapeAliasBackward0", batched=True)
def _reshape_tangent(F, tans, inputs, outputs, params):
    """linear: the tangent reshaped like the result"""
    return F.reshape(tans[0], _lead() + tuple(outputs[0].shape))


@tangent("ExpandBackward0", "CloneBackward0", "ToCopyBackward0", batched=True)
def _copy_tangent(F, tans, inputs, outputs, params):
    """the tangent itself (expanded and cast like the result by the recording)"""
    return tans[0]


@tangent("TransposeBackward0", batched=True)
def _transpose_tangent(F, tans, inputs, outputs, params):
    """linear: the tangent transposed the same way"""
    nd, k = max(inputs[0].ndim, 1), len(_lead())
    if inputs[0].ndim == 0:
        return tans[0]
    return F.transpose(tans[0], params[0] % nd + k, params[1] % nd + k)


@tangent("TBackward0", batched=True)
def _t_tangent(F, tans, inputs, outputs, params):
    """linear: the tangent transposed"""
    return F.mT(tans[0]) if inputs[0].ndim == 2 else tans[0]


@tangent("StackBackward0", batched=True)
def _stack_tangent(F, tans, inputs, outputs, params):
    """linear: the tangents stacked (zeros for inputs without one)"""
    n = BATCH[0]
    ts = [t if t is not None else
          (F.zeros_like(x).expand(n, *x.shape) if n else F.zeros_like(x))
          for t, x in zip(tans, inputs)]
    return F.stack(ts, params[0] % outputs[0].ndim + len(_lead()))


@row("TBackward0")
def _t(F, g, needs):
    """self: g^T"""
    return F.mT(g) if g.ndim == 2 else g


@row("TransposeBackward0")
def _transpose(F, g, needs, dim0, dim1):
    """self: g with dim0 and dim1 swapped back"""
    return g if dim0 == dim1 else F.transpose(g, dim0, dim1)


@row("PermuteBackward0")
def _permute(F, g, needs, dims):
    """self: g permuted by the inverse permutation"""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return F.permute(g, tuple(inverse))


def _reshape_back(F, g, needs, shape):
    """self: g reshaped to self's shape"""
    return F.reshape(g, shape)


# views and squeezes only rearrange the same values: one formula for all four nodes
for _name in ("ViewBackward0", "UnsafeViewBackward0", "SqueezeBackward0", "SqueezeBackward1"):
    row(_name)(_reshape_back)


@row("UnsqueezeBackward0")
def _unsqueeze(F, g, needs, dim):
    """self: g with dim removed"""
    return F.squeeze(g, dim)


@row("ExpandBackward0")
def _expand(F, g, needs):
    """self: g (the engine sums the broadcast dims back)"""
    return g


@row("RepeatBackward0")
def _repeat(F, g, needs, shape, repeats):
    """self: g folded into (repeat, size) pairs and summed over the repeats"""
    lead = len(repeats) - len(shape)
    full = (1,) * lead + tuple(shape)
    split = []
    for r, s in zip(repeats, full):
        split += [r, s]
    summed = F.sum(F.reshape(g, tuple(split)), tuple(range(0, 2 * len(full), 2)), False)
    return F.reshape(summed, tuple(shape))


@row("CatBackward0")
def _cat(F, g, needs, dim, sizes):
    """each input: its slice of g along dim"""
    out, start = [], 0
    for i, size in enumerate(sizes):
        out.append(F.narrow(g, dim, start, size) if needs[i] else None)
        start += size
    return tuple(out)


@row("StackBackward0")
def _stack(F, g, needs, dim):
    """each input: g selected at its position along dim"""
    return tuple(F.select(g, dim, i) if n else None for i, n in enumerate(needs))


@row("SplitBackward0")
def _split(F, g, needs, dim):
    """self: the pieces' gradients concatenated along dim (missing ones are zeros)"""
    return F.cat(_per_output(g), dim)


row("SplitWithSizesBackward0")(_split)  # split(x, [sizes]): the same formula


@row("UnbindBackward0")
def _unbind(F, g, needs, dim):
    """self: the slices' gradients stacked along dim (missing ones are zeros)"""
    return F.stack(_per_output(g), dim)


def _per_output(g):
    """A multi-output node with a single output gets that output's gradient, not a list."""
    return list(g) if isinstance(g, (list, tuple)) else [g]


@row("SelectBackward0")
def _select(F, g, needs, shape, key):
    """self: zeros with g written at the selected index"""
    return F.index_backward(g, shape, key)


@row("SliceBackward0")
def _slice(F, g, needs, shape, key):
    """self: zeros with g written into the slice"""
    return F.index_backward(g, shape, key)


@row("DiagonalBackward0", fresh=True)
def _diagonal(F, g, needs, shape, offset, dim1, dim2):
    """self: zeros with g written on the diagonal"""
    return F.diagonal_backward(g, shape, offset, dim1, dim2)


@row("DiagonalBackwardBackward0")
def _diagonal_backward(F, g, needs, offset, dim1, dim2):
    """grad: the diagonal of g"""
    return F.diagonal(g, offset, dim1, dim2)


@row("IndexBackward0")
def _index(F, g, needs, shape, key):
    """self: zeros with g added at the indexed positions (repeated indices accumulate)"""
    return F.index_backward(g, shape, key)


@row("IndexBackwardBackward0")
def _index_backward(F, g, needs, key):
    """grad: g read back at the indexed positions"""
    return F.index(g, key)


@row("IndexSelectBackward0")
def _index_select(F, g, needs, shape, key):
    """self: zeros with g added at the selected rows"""
    return F.index_backward(g, shape, key)


@row("GatherBackward0")
def _gather(F, g, needs, shape, dim, index):
    """self: zeros with g added at the gathered positions"""
    if not shape:  # a 0-dim input (its only index is 0): the value is the input itself
        return g
    return F.scatter_zeros(shape, dim, index, g, accumulate=True)


@row("ScatterAddBackward0")
def _scatter_add(F, g, needs, dim, index, src_shape):
    """self: g;  src: g gathered at index (zeros where src is larger than index)"""
    gs = None
    if needs[1]:
        gs = F.gather(g, dim, index)
        if tuple(gs.shape) != tuple(src_shape):
            gs = F.index_backward(gs, src_shape, tuple(slice(0, k) for k in index.shape))
    return (g if needs[0] else None), gs


@row("MaskedFillBackward0")
def _masked_fill(F, g, needs, mask):
    """self: g where not mask"""
    return F.where(mask, 0.0, g)


@row("MaskedFillBackward1")
def _masked_fill_tensor(F, g, needs, mask):
    """self: g where not mask;  value: sum of g where mask"""
    return ((F.where(mask, 0.0, g) if needs[0] else None),
            (F.sum(F.where(mask, g, 0.0), None, False) if needs[1] else None))


@row("RollBackward0")
def _roll(F, g, needs, shifts, dims):
    """self: g rolled back by -shifts"""
    return F.roll(g, tuple(-s for s in shifts), dims)


@row("FlipBackward0")
def _flip(F, g, needs, dims):
    """self: g flipped back"""
    return F.flip(g, dims)


@row("CloneBackward0")
def _clone(F, g, needs):
    """self: g"""
    return g


@row("ToCopyBackward0")
def _to_copy(F, g, needs):
    """self: g (cast back to self's dtype by the engine)"""
    return g


@row("CopyBackwards")
def _copy_(F, g, needs):
    """self (overwritten): 0;  src: g"""
    return (F.zeros_like(g) if needs[0] else None), (g if needs[1] else None)


@row("FillBackward0")
def _fill(F, g, needs):
    """self (overwritten): 0"""
    return F.zeros_like(g)


@row("ZeroBackward0")
def _zero(F, g, needs):
    """self (overwritten): 0"""
    return F.zeros_like(g)


# ---------------------------------------------------------------- losses
@row("MseLossBackward0", inputs=("self", "target"), saves=("self", "target"))
def _mse(F, g, needs, self, target, reduction, count):
    """self: 2 (self - target) g / N (mean);  target: the negative"""
    scale = 2.0 / count if reduction == "mean" else 2.0
    d = (self - target) * (g * scale)
    return (d if needs[0] else None), (-d if needs[1] else None)


@row("NllLossBackward0")
def _nll(F, g, needs, shape, target, weight, reduction, ignore_index, total_weight):
    """self: -weight[target] * g at each target position (divided by the total weight for mean)"""
    return F.nll_backward(g, shape, target, weight, reduction, ignore_index, total_weight)


row("NllLoss2DBackward0")(_nll)  # (N, C, d1, ...) inputs: the same formula


@row("BinaryCrossEntropyBackward0", inputs=("self", "target"), saves=("self", "target"))
def _bce(F, g, needs, self, target, weight, reduction, count):
    """self: g (self - target) / max(self (1 - self), 1e-12);  target: g (log(1 - self) -
    log(self)); both times weight (/ N for mean)"""
    scale = g if weight is None else g * weight
    if reduction == "mean":
        scale = scale / count
    gs = gt = None
    if needs[0]:
        gs = scale * ((self - target) / F.clamp_min(self * (1 - self), 1e-12))
    if needs[1]:
        gt = scale * (F.log(1 - self) - F.log(self))
    return gs, gt


@row("IndexPutBackward0")
def _index_put(F, g, needs, key, accumulate):
    """self: g with zeros at key (kept when accumulating);  values: g at key"""
    gs = None
    if needs[0]:
        gs = g if accumulate else F.index_fill_zero(g, key)
    return gs, (F.index(g, key) if needs[1] else None)


row("CopySlices")(_index_put)  # x[basic key] = v (a slice of x copied into): the same formula
