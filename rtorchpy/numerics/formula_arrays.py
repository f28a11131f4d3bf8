"""``ARRAY_OPS``: the op namespace a derivative formula computes with on the fast path (``F`` in
``rtorchpy/derivatives/``): NumPy on ndarrays, recording nothing.

Its twin ``TENSOR_OPS`` (``rtorchpy/ops/formula_tensors.py``) has the same functions made of
recorded rtorchpy ops, for ``create_graph``. Operators (``+ - * / **``, comparisons, ``&``)
already behave alike on both kinds of value.
"""
from __future__ import annotations

import math

import numpy as np

from . import conv, fft, pool, rnn, rounded, special
from .arrays import broadcast_view, clamp_offset, cumsum_of, diagonal_view, insert_axis, sgn
from .formula_linalg import ArrayLinalg
from .index_order import add_at, has_arrays, put, scatter_add_into, take
from .losses import nll_grad_array

_FILL_BELOW = 4096  # elements


def _restore_dims_shape(shape, dims, keepdim):
    """The shape a reduction's output had with keepdim=True."""
    if keepdim or dims is None:
        return None
    out = list(shape)
    for d in dims:
        out.insert(d, 1)
    return tuple(out)


# unsigned integers as wide as each float dtype, for selecting by bit mask (see keep_where)
_UINT_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_BITSELECT_FROM = 256  # elements; below, np.where is cheaper than the few extra calls


def _bitselect(mask, g, keep):
    """``where(mask, g, +0)`` (``keep``) or ``where(mask, +0, g)`` as a fresh array.

    np.where branches per element: on a random mask (ReLU's) it costs ~3.7 ns per float32
    element, 12x a multiply. ``g * mask`` is fast but wrong when g holds inf or NaN (inf * 0 is
    NaN, which libtorch's select never produces). ANDing g's bits with a mask of all ones or all
    zeros selects exactly (+0.0 where dropped) at the price of a multiply."""
    uint = _UINT_OF_SIZE.get(g.itemsize)
    if (g.size < _BITSELECT_FROM or uint is None or g.dtype.kind != "f"
            or mask.shape != g.shape):
        zero = g.dtype.type(0)
        return np.where(mask, g, zero) if keep else np.where(mask, zero, g)
    bits = mask.view(np.uint8).astype(uint)  # 1 where mask holds, else 0
    if keep:
        np.negative(bits, out=bits)  # 1 -> all ones, 0 -> 0 (unsigned wraparound)
    else:
        bits -= 1  # 1 -> 0, 0 -> all ones
    bits &= g.view(uint)
    return bits.view(g.dtype)


def _log_sigmoid_wide(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


_log_sigmoid = rounded.in_float64(_log_sigmoid_wide)  # float32: computed wide, rounded once


def _repeated(value, shape):
    """A read-only array of ``shape`` whose every element is the 0-d array ``value``."""
    return broadcast_view(np.ascontiguousarray(value), shape)


class _ArrayOps(ArrayLinalg):
    """NumPy versions of what the formulas need (matrix functions: ``formula_linalg.py``)."""

    records = False  # libtorch runs these backwards with grad mode off

    @staticmethod
    def keep_where(mask, g):
        """g where mask, else +0: a piecewise gradient that selects, so inf or NaN in the
        branch not taken never leaks (libtorch's ``where(mask, grad, 0)``)."""
        return _bitselect(mask, g, True)

    @staticmethod
    def zero_where(mask, g):
        """+0 where mask, else g (libtorch's ``grad.masked_fill(mask, 0)``)."""
        return _bitselect(mask, g, False)

    sgn = staticmethod(sgn)  # sign with 0 for NaN, as libtorch's ``sgn``

    isnan = staticmethod(np.isnan)

    @staticmethod
    def count_nonzero(mask):
        return int(np.count_nonzero(mask))

    where = staticmethod(np.where)
    # float32 transcendentals through float64, as the forward ops (CPU-independent bits)
    exp = staticmethod(rounded.exp)
    log = staticmethod(rounded.log)
    sign = staticmethod(np.sign)
    sin = staticmethod(rounded.sin)
    cos = staticmethod(rounded.cos)
    pow = staticmethod(rounded.power)  # ndarray ** is NumPy's float32 pow: CPU-dependent
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
    # (nn functions: derivatives/nn.py)
    tanh = staticmethod(rounded.tanh)
    sigmoid = staticmethod(rounded.sigmoid)
    erf = staticmethod(special.erf)

    @staticmethod
    def log_sigmoid(x):
        """log(sigmoid(x)) without overflow: min(x, 0) - log1p(exp(-|x|))."""
        return _log_sigmoid(x)
    trunc = staticmethod(np.trunc)
    floor = staticmethod(np.floor)

    @staticmethod
    def matmul(a, b):
        """``a @ b``; a product over a contraction of length 1 (the outer products of a batched
        matrix-vector product's backward: per-sample weight gradients) as a broadcast multiply,
        the same values, since NumPy's matmul runs that shape without BLAS, ~8x slower."""
        if a.ndim > 2 and b.ndim > 2 and a.shape[-1] == 1 and b.shape[-2] == 1:
            return a * b
        return np.matmul(a, b)
    # special functions (rows in derivatives/special.py)
    digamma = staticmethod(special.digamma)
    polygamma = staticmethod(special.polygamma)

    @staticmethod
    def xlogy(x, y):
        """x * log(y), 0 where x == 0 (x may be a bool mask; y an array or a number)."""
        return special.xlogy(x, y)

    @staticmethod
    def zeros_like(x):
        return np.zeros_like(x)

    @staticmethod
    def expand(g, shape):
        if g.shape == shape:
            return g
        if g.ndim:
            return broadcast_view(g, shape)
        # the gradient of a full reduction (``loss.sum()``): np.broadcast_to costs ~3 µs, more
        # than the rest of a small node; a small result is filled instead, a large one is a
        # read-only view that repeats the one value (no memory, no pass over it)
        if math.prod(shape) <= _FILL_BELOW:
            out = np.empty(shape, g.dtype)
            out[...] = g
            return out
        return _repeated(g, shape)

    @staticmethod
    def scale(g, c):
        """``g * c`` for a number ``c``; a gradient that repeats one value (see ``expand``)
        stays one, without a pass over memory."""
        if g.size > _FILL_BELOW and not any(g.strides):
            return _repeated(np.asarray(g.reshape(-1)[0] * c, g.dtype), g.shape)
        return g * c

    @staticmethod
    def restore_dims(g, dims, keepdim):
        if keepdim or dims is None:
            return g
        return g.reshape(_restore_dims_shape(g.shape, dims, keepdim))

    # ndarray methods rather than NumPy's module functions: the same work without the
    # Python-level dispatch (np.sum costs ~3 µs on a small array, ndarray.sum ~1.5; np.swapaxes
    # 0.6 against 0.16), which on a small array is most of a node's backward
    @staticmethod
    def sum(x, dims, keepdim):
        return np.asarray(x.sum(axis=dims, keepdims=keepdim))

    @staticmethod
    def mean(x, dims, keepdim):
        return np.asarray(x.mean(axis=dims, keepdims=keepdim))

    @staticmethod
    def prod(x, dims, keepdim):
        return np.asarray(x.prod(axis=dims, keepdims=keepdim))

    @staticmethod
    def cumsum(x, dim):
        return cumsum_of(x, dim)

    @staticmethod
    def prod_others(x, dims):
        """For each element, the product of the other elements of its reduced slice, as
        libtorch forms it: ``prod / x`` when x has no zero at all, else (anywhere a zero) the
        product of the elements before times that of the elements after, with no division (so
        a NaN or inf among the others reaches every element, a zero only the others)."""
        if not (x == 0).any():
            return np.prod(x, axis=dims, keepdims=True) / x
        nd = x.ndim
        red = tuple(range(nd)) if dims is None else tuple(dims)
        moved = np.moveaxis(x, red, tuple(range(nd - len(red), nd)))
        rows = moved.reshape(moved.shape[:nd - len(red)] + (-1,))
        ones = np.ones(rows.shape[:-1] + (1,), x.dtype)
        before = np.cumprod(np.concatenate([ones, rows[..., :-1]], -1), -1)
        after = np.cumprod(np.concatenate([ones, rows[..., :0:-1]], -1), -1)[..., ::-1]
        others = (before * after).reshape(moved.shape)
        return np.moveaxis(others, tuple(range(nd - len(red), nd)), red)

    @staticmethod
    def flip(x, dims):
        return np.flip(x, dims)

    @staticmethod
    def roll(x, shifts, dims):
        return np.roll(x, shifts[0]) if dims is None else np.roll(x, shifts, axis=dims)

    @staticmethod
    def mT(x):
        return x.swapaxes(-1, -2)

    @staticmethod
    def transpose(x, a, b):
        return x.swapaxes(a, b)

    @staticmethod
    def permute(x, dims):
        return x.transpose(dims)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def unsqueeze(x, dim):
        return insert_axis(x, dim) if dim >= 0 else np.expand_dims(x, dim)

    @staticmethod
    def squeeze(x, dim):
        return x.squeeze(dim)

    @staticmethod
    def narrow(x, dim, start, length):
        return x[(slice(None),) * dim + (slice(start, start + length),)]

    @staticmethod
    def select(x, dim, i):
        return x[(slice(None),) * dim + (i,)]

    @staticmethod
    def diagonal(x, offset, dim1, dim2):
        return np.diagonal(x, clamp_offset(x, offset, dim1, dim2), dim1, dim2)

    @staticmethod
    def diagonal_backward(g, shape, offset, dim1, dim2):
        z = np.zeros(shape, dtype=g.dtype)
        diagonal_view(z, offset, dim1, dim2)[...] = g
        return z

    @staticmethod
    def cat(xs, dim):
        return np.concatenate(xs, axis=dim)

    @staticmethod
    def stack(xs, dim):
        return np.stack(xs, axis=dim)

    # keys with index arrays place their dims as libtorch does (see numerics/index_order.py)
    @staticmethod
    def index(x, key):
        return take(x, key)

    @staticmethod
    def index_backward(g, shape, key):
        z = np.zeros(shape, dtype=g.dtype)
        if has_arrays(key):
            add_at(z, key, g)
        else:
            z[key] = g
        return z

    @staticmethod
    def index_fill_zero(g, key):
        out = np.array(g, copy=True)
        put(out, key, 0)
        return out

    @staticmethod
    def scatter_zeros(shape, dim, index, src, accumulate=False):
        z = np.zeros(shape, dtype=src.dtype)
        if accumulate:
            scatter_add_into(z, dim, index, src)
        else:
            np.put_along_axis(z, index, src, axis=dim)
        return z

    @staticmethod
    def gather(x, dim, index):
        corner = tuple(slice(None) if i == dim else slice(0, k) for i, k in enumerate(index.shape))
        return np.take_along_axis(x[corner], index, axis=dim)

    @staticmethod
    def clamp_min(x, lo):
        return np.maximum(x, lo)

    @staticmethod
    def nll_backward(g, shape, target, weight, reduction, ignore_index, total_weight):
        return nll_grad_array(g, shape, target, weight, reduction, ignore_index, total_weight)

    @staticmethod
    def convolution(x, w, stride, padding, dilation, transposed, output_padding, groups):
        return conv.convolution(x, w, stride, padding, dilation, transposed, output_padding,
                                groups)

    @staticmethod
    def convolution_weight(x, g, kernel, stride, padding, dilation, transposed, groups):
        return conv.convolution_weight(x, g, kernel, stride, padding, dilation, transposed,
                                       groups)

    @staticmethod
    def constant_pad(x, pads):
        return conv.constant_pad(x, pads)

    @staticmethod
    def gather_pad(x, indices, sizes, kind):
        return np.ascontiguousarray(conv.gather_pad(x, indices))

    @staticmethod
    def gather_pad_backward(g, indices, sizes, kind):
        return conv.gather_pad_adjoint(g, indices, sizes)

    @staticmethod
    def max_pool_backward(g, indices, shape, nd):
        return pool.max_pool_backward(g, indices, shape, nd)

    @staticmethod
    def im2col(x, kernel, dilation, padding, stride):
        return conv.unfold(x, kernel, dilation, padding, stride)

    @staticmethod
    def col2im(x, sizes, kernel, dilation, padding, stride):
        return conv.fold(x, sizes, kernel, dilation, padding, stride)

    @staticmethod
    def pixel_shuffle(x, factor, up):
        return conv.pixel_shuffle(x, factor, up)

    @staticmethod
    def apply_matrices(x, mats, node, partner):
        return pool.apply_matrices(x, mats)

    @staticmethod
    def avg_pool_backward(g, kernel, stride, padding, divisor, shape):
        return pool.avg_pool_backward(g, kernel, stride, padding, divisor, shape)

    # matrix, shape and sorting ops (rows in derivatives/matops.py)
    @staticmethod
    def einsum(equation, operands):
        return np.asarray(np.einsum(equation, *operands, optimize=len(operands) > 2))

    @staticmethod
    def constant(value, like):
        """A constant array (an identity matrix, a vector of ones) in ``like``'s dtype."""
        return np.asarray(value, dtype=like.dtype)

    @staticmethod
    def tril(x, diagonal=0):
        return np.tril(x, diagonal)

    @staticmethod
    def triu(x, diagonal=0):
        return np.triu(x, diagonal)

    @staticmethod
    def cumprod_backward(g, x, y, dim):
        """libtorch's O(n) cumprod gradient: ``reverse_cumsum(g * y) / x`` before the first zero
        of each slice, at the first zero the sum of g times the products that skip it, 0
        after it."""
        def reverse_cumsum(a):
            return np.flip(cumsum_of(np.flip(a, -1), -1), -1)
        if not (x == 0).any():
            return np.moveaxis(reverse_cumsum(np.moveaxis(g * y, dim, -1)), -1, dim) / x
        xm, gm, ym = (np.moveaxis(a, dim, -1) for a in (x, g, y))
        zeros_so_far = np.cumsum(xm == 0, -1)
        before = zeros_so_far == 0
        first = (xm == 0) & (zeros_so_far == 1)
        out = np.where(before, reverse_cumsum(np.where(before, gm * ym, 0)) /
                       np.where(before, xm, 1), 0)
        skipping = np.cumprod(np.where(first, 1, xm), -1)  # products that leave out the zero
        at_first = reverse_cumsum(np.where(zeros_so_far >= 1, gm * skipping, 0))
        out = np.where(first, at_first, out).astype(g.dtype, copy=False)
        return np.moveaxis(out, -1, dim)

    # a recurrent layer's backward through time, from the forward's saved activations
    rnn_layer_backward = staticmethod(rnn.node_backward)

    # the Fourier transforms' adjoints (derivatives/fft.py)
    fft_fit = staticmethod(fft.fit)
    fft_c2c = staticmethod(fft.c2c)
    fft_r2c = staticmethod(fft.r2c)
    fft_c2r = staticmethod(fft.c2r)

    @staticmethod
    def fft_double(x, dim, start, length):
        out = x.copy()
        out[(slice(None),) * dim + (slice(start, start + length),)] *= 2
        return out

    @staticmethod
    def is_complex(x):
        return x.dtype.kind == "c"

    conj = staticmethod(np.conj)

    @staticmethod
    def real_part(x):
        return np.ascontiguousarray(x.real) if np.iscomplexobj(x) else x

    @staticmethod
    def view_as_real(x):
        return np.stack([x.real, x.imag], axis=-1)

    @staticmethod
    def view_as_complex(x):
        return (x[..., 0] + 1j * x[..., 1]).astype(fft.complex_of(x.dtype), copy=False)


ARRAY_OPS = _ArrayOps()
