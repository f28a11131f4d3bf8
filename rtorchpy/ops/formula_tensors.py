"""``TENSOR_OPS``: the op namespace a derivative formula computes with under ``create_graph``
(``F`` in ``rtorchpy/derivatives/``): the functions of ``ARRAY_OPS``
(``rtorchpy/numerics/formula_arrays.py``) made of recorded rtorchpy ops, so the backward pass is
itself recorded and can be differentiated again.
"""
from __future__ import annotations

import numpy as np

from ..autograd import graph
from ..numerics import pool as pool_arrays
from ..tensor import Tensor
from . import conv, fft, fold, pad, pool_adaptive
from .arith import where
from .creation import torch_zeros_like
from .formula_linalg import TensorLinalg
from .index import _advanced, _index_put, index_backward, scatter_zeros
from .matrix import einsum
from .nnf import nll_grad_tensor
from .nnf_layers import nnf_logsigmoid
from .rnn import layer_backward_tensors, layer_tangent_tensors
from .shape import cat, diagonal_backward, stack
from .special import xlogy


class _TensorOps(TensorLinalg):
    """The same functions, made of recorded rtorchpy ops (for create_graph)."""

    records = True

    @staticmethod
    def keep_where(mask, g):
        # a recorded where: its own backward selects again, so the next order stays NaN-free
        return where(_as_bool(mask), g, 0.0)

    @staticmethod
    def zero_where(mask, g):
        return where(_as_bool(mask), 0.0, g)

    @staticmethod
    def sgn(x):
        if x._data.dtype.kind == "c":  # z / |z| (0 at 0), recorded so its own gradient exists
            m = x.abs()
            return x / m.clamp_min(float(np.finfo(m._data.dtype).tiny))
        return x.sign()  # NaN -> 0 already (the op follows libtorch)

    @staticmethod
    def isnan(x):
        return x.isnan()

    @staticmethod
    def count_nonzero(mask):
        return int(np.count_nonzero(mask._data if hasattr(mask, "_data") else mask))

    @staticmethod
    def where(c, a, b):
        return where(_as_bool(c), a, b)

    @staticmethod
    def exp(x):
        return x.exp()

    @staticmethod
    def log(x):
        return x.log()

    @staticmethod
    def sign(x):
        return x.sign()

    @staticmethod
    def sin(x):
        return x.sin()

    @staticmethod
    def cos(x):
        return x.cos()

    @staticmethod
    def pow(x, exponent):
        return x ** exponent

    @staticmethod
    def sqrt(x):
        return x.sqrt()

    @staticmethod
    def tanh(x):
        return x.tanh()

    @staticmethod
    def sigmoid(x):
        return x.sigmoid()

    @staticmethod
    def erf(x):
        return x.erf()

    @staticmethod
    def digamma(x):
        return x.digamma()

    @staticmethod
    def polygamma(n, x):
        return x.polygamma(n)

    @staticmethod
    def xlogy(x, y):
        if x._data.dtype.kind == "b":
            # the mask self != 0: as a float of the other operand's precision (a number: float64,
            # as libtorch keeps it), not the default float a bool tensor with a number would give
            x = x.double() if not hasattr(y, "_data") else x.to(dtype=y.dtype)
        return xlogy(x, y)

    @staticmethod
    def log_sigmoid(x):
        return nnf_logsigmoid(x)

    @staticmethod
    def abs(x):
        return x.abs()

    @staticmethod
    def trunc(x):
        return x.trunc()

    @staticmethod
    def floor(x):
        return x.floor()

    @staticmethod
    def matmul(a, b):
        return a.matmul(b)

    @staticmethod
    def zeros_like(x):
        return torch_zeros_like(x)

    @staticmethod
    def expand(g, shape):
        return g.expand(shape)

    @staticmethod
    def scale(g, c):
        return g * c

    @staticmethod
    def restore_dims(g, dims, keepdim):
        if keepdim or dims is None:
            return g
        if not isinstance(g, Tensor):  # an index array saved as a param
            return np.expand_dims(g, dims)
        for d in dims:
            g = g.unsqueeze(d)
        return g

    @staticmethod
    def sum(x, dims, keepdim):
        return x.sum(dim=dims, keepdim=keepdim)

    @staticmethod
    def mean(x, dims, keepdim):
        return x.mean(dim=dims, keepdim=keepdim)

    @staticmethod
    def prod(x, dims, keepdim):
        if dims is None:
            return x.prod() if not keepdim else x.prod().reshape((1,) * x.ndim)
        for d in sorted(dims, reverse=True):
            x = x.prod(dim=d, keepdim=True)
        return x if keepdim else x.squeeze(dims)

    @staticmethod
    def cumsum(x, dim):
        return x.cumsum(dim)

    @staticmethod
    def prod_others(x, dims):
        """For each element, the product of the other elements of its reduced slice, built so
        that it stays differentiable where ``x`` has zeros (no division there)."""
        if not np.any(x._data == 0):
            return _TensorOps.prod(x, dims, True) / x
        nd = x.ndim
        if nd == 0:
            return _TensorOps.zeros_like(x) + 1.0
        red = tuple(range(nd)) if dims is None else tuple(dims)
        keep = tuple(d for d in range(nd) if d not in red)
        perm = keep + red
        xp = x.permute(*perm)
        lead = xp.shape[:len(keep)]
        n = 1
        for d in red:
            n *= x.shape[d]
        flat = xp.reshape(*lead, n)
        # rows[..., i, j] = x_j for j != i, 1 on the diagonal; the product of each row
        rows = _TensorOps.where(np.eye(n, dtype=bool), 1.0, flat.unsqueeze(-2).expand(*lead, n, n))
        others = rows.prod(dim=-1).reshape(*xp.shape)
        inverse = [0] * nd
        for i, d in enumerate(perm):
            inverse[d] = i
        return others.permute(*inverse)

    @staticmethod
    def flip(x, dims):
        return x.flip(dims)

    @staticmethod
    def roll(x, shifts, dims):
        return x.roll(shifts, dims)

    @staticmethod
    def mT(x):
        return x.transpose(-1, -2)

    @staticmethod
    def transpose(x, a, b):
        return x.transpose(a, b)

    @staticmethod
    def permute(x, dims):
        return x.permute(*dims)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def unsqueeze(x, dim):
        return x.unsqueeze(dim)

    @staticmethod
    def squeeze(x, dim):
        return x.squeeze(dim)

    @staticmethod
    def narrow(x, dim, start, length):
        return x.narrow(dim, start, length)

    @staticmethod
    def select(x, dim, i):
        return x.select(dim, i)

    @staticmethod
    def diagonal(x, offset, dim1, dim2):
        return x.diagonal(offset, dim1, dim2)

    @staticmethod
    def diagonal_backward(g, shape, offset, dim1, dim2):
        return diagonal_backward(g, shape, offset, dim1, dim2)

    @staticmethod
    def cat(xs, dim):
        return cat(xs, dim)

    @staticmethod
    def stack(xs, dim):
        return stack(xs, dim)

    @staticmethod
    def index(x, key):
        if any(isinstance(k, np.ndarray) for k in key):
            return _advanced(x, key)
        return x[key]

    @staticmethod
    def index_backward(g, shape, key):
        return index_backward(g, shape, key)

    @staticmethod
    def index_fill_zero(g, key):
        return _index_put(g, key, 0.0, False, "IndexPutBackward0")

    @staticmethod
    def scatter_zeros(shape, dim, index, src, accumulate=False):
        return scatter_zeros(shape, dim, index, src, accumulate)

    @staticmethod
    def gather(x, dim, index):
        return x.gather(dim, Tensor._make(index))

    @staticmethod
    def clamp_min(x, lo):
        return x.clamp(min=lo)

    @staticmethod
    def nll_backward(g, shape, target, weight, reduction, ignore_index, total_weight):
        return nll_grad_tensor(g, shape, target, weight, reduction, ignore_index, total_weight)

    # matrix, shape and sorting ops (rows in derivatives/matops.py)
    @staticmethod
    def convolution(x, w, stride, padding, dilation, transposed, output_padding, groups):
        return conv.convolution(x, w, None, stride, padding, dilation, transposed,
                                output_padding, groups)

    @staticmethod
    def convolution_weight(x, g, kernel, stride, padding, dilation, transposed, groups):
        return conv.convolution_weight(x, g, kernel, stride, padding, dilation, transposed,
                                       groups)

    @staticmethod
    def constant_pad(x, pads):
        return pad.constant_pad(x, pads)

    @staticmethod
    def gather_pad(x, indices, sizes, kind):
        return pad.gather_pad(x, indices, sizes, kind)

    @staticmethod
    def gather_pad_backward(g, indices, sizes, kind):
        return pad.gather_pad_backward(g, indices, sizes, kind)

    @staticmethod
    def max_pool_backward(g, indices, shape, nd):
        nc, plane = int(np.prod(shape[:-nd])), int(np.prod(shape[-nd:]))
        rows = np.arange(nc).reshape(nc, 1)
        flat = index_backward(g.reshape(nc, -1), (nc, plane), (rows, indices.reshape(nc, -1)))
        return flat.reshape(shape)

    @staticmethod
    def im2col(x, kernel, dilation, padding, stride):
        return fold.im2col(x, kernel, dilation, padding, stride)

    @staticmethod
    def col2im(x, sizes, kernel, dilation, padding, stride):
        return fold.col2im(x, sizes, kernel, dilation, padding, stride)

    @staticmethod
    def pixel_shuffle(x, factor, up):
        return fold.shuffle(x, factor, up)

    @staticmethod
    def apply_matrices(x, mats, node, partner):
        return pool_adaptive.apply_matrices(x, mats, node, partner)

    @staticmethod
    def avg_pool_backward(g, kernel, stride, padding, divisor, shape):
        nd = len(kernel)
        out = tuple(g.shape[-nd:])
        gd = (g / Tensor._make(np.asarray(divisor, g._data.dtype))).reshape(-1, 1, *out)
        ones = Tensor._make(np.ones((1, 1) + tuple(kernel), g._data.dtype))
        spread = conv.convolution(gd, ones, None, stride, (0,) * nd, (1,) * nd, True, (0,) * nd,
                                  1)
        pads = pool_arrays.full_pads(shape[-nd:], kernel, stride, padding, out)
        return pad.constant_pad(spread, pads).reshape(shape)

    @staticmethod
    def einsum(equation, operands):
        return einsum(equation, *operands)

    @staticmethod
    def constant(value, like):
        return Tensor._make(np.asarray(value, dtype=like._data.dtype))

    @staticmethod
    def tril(x, diagonal=0):
        return x.tril(diagonal)

    @staticmethod
    def triu(x, diagonal=0):
        return x.triu(diagonal)

    @staticmethod
    def cumprod_backward(g, x, y, dim):
        """Differentiable: ``reverse_cumsum(g * y) / x`` when x has no zero, else (as libtorch
        under grad mode) the O(n^2) sum over j >= k of g_j times the product of x_i, i <= j,
        i != k, built from a recorded cumprod of x with x_k set to 1 in row k."""
        if not np.any(x._data == 0):
            return (g * y).flip((dim,)).cumsum(dim).flip((dim,)) / x
        n = x.shape[dim]
        xm, gm = x.transpose(dim, -1), g.transpose(dim, -1)
        lead = tuple(xm.shape[:-1])
        rows = _TensorOps.where(np.eye(n, dtype=bool), 1.0,
                                xm.unsqueeze(-2).expand(*lead, n, n))  # row k: x with x_k = 1
        products = rows.cumprod(-1)  # [..., k, j] = prod of x_i, i <= j, i != k
        later = np.triu(np.ones((n, n), dtype=bool))  # j >= k
        terms = _TensorOps.where(later, products * gm.unsqueeze(-2), 0.0)
        return terms.sum(dim=-1).transpose(dim, -1)

    # a recurrent layer replayed in recorded ops and differentiated with create_graph
    rnn_layer_backward = staticmethod(layer_backward_tensors)
    rnn_layer_tangent = staticmethod(layer_tangent_tensors)  # (its forward-mode rule)

    # the Fourier transforms' adjoints, as the recorded transforms themselves
    @staticmethod
    def fft_fit(x, dim, length):
        if isinstance(dim, tuple):
            for d, size in zip(dim, length):
                x = _TensorOps.fft_fit(x, d, size)
            return x
        have = x.shape[dim]
        if have == length:
            return x
        if have > length:
            return x.narrow(dim, 0, length)
        pads = [0, 0] * (x.ndim - 1 - dim) + [0, length - have]
        return pad.constant_pad(x, pads)

    @staticmethod
    def fft_c2c(x, dims, norm, inverse):
        return (fft.fft_ifftn if inverse else fft.fft_fftn)(x, None, dims, norm)

    @staticmethod
    def fft_r2c(x, dims, norm):
        return fft.fft_rfftn(x, None, dims, norm)

    @staticmethod
    def fft_c2r(x, n, dims, norm):
        return fft.fft_irfftn(x, [x.shape[d] for d in dims[:-1]] + [n], dims, norm)

    @staticmethod
    def fft_double(x, dim, start, length):
        factor = np.ones(x.shape[dim])
        factor[start:start + length] = 2
        shape = [1] * x.ndim
        shape[dim] = x.shape[dim]
        return x * Tensor._make(factor.reshape(shape).astype(fft.real_dtype(x)))

    @staticmethod
    def real_part(x):
        return fft.real(x)

    @staticmethod
    def is_complex(x):
        return x._data.dtype.kind == "c"

    conj = staticmethod(fft.conj)

    view_as_real = staticmethod(fft.view_as_real)
    view_as_complex = staticmethod(fft.view_as_complex)


def _as_bool(c):
    if isinstance(c, Tensor):
        return c
    return Tensor._make(np.asarray(c, dtype=bool))


TENSOR_OPS = _TensorOps()
# the autograd layer runs formulas under create_graph with this namespace (it cannot import it:
# these ops sit above it)
graph.FORMULA_OPS[1] = TENSOR_OPS
