"""The two op namespaces a derivative formula computes with (``F`` in ``_derivatives.py``).

``ARRAY_OPS`` works on ndarrays and records nothing: the fast path of every backward without
``create_graph``. ``TENSOR_OPS`` has the same functions made of rtorchpy ops, so under
``create_graph`` the backward pass is itself recorded and can be differentiated again.
Operators (``+ - * / **``, comparisons, ``&``) already behave alike on both kinds of value.
"""
from __future__ import annotations

import math

import numpy as np

from . import _rounded_math as rounded
from ._arrays import broadcast_view, diagonal_view, insert_axis, sgn
from ._formula_linalg import _ArrayLinalg, _TensorLinalg
from ._index_order import add_at, has_arrays, put, take

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


def _repeated(value, shape):
    """A read-only array of ``shape`` whose every element is the 0-d array ``value``."""
    return broadcast_view(np.ascontiguousarray(value), shape)


class _ArrayOps(_ArrayLinalg):
    """NumPy versions of what the formulas need (matrix functions: ``_formula_linalg``)."""

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
    trunc = staticmethod(np.trunc)
    floor = staticmethod(np.floor)
    matmul = staticmethod(np.matmul)

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
        return np.cumsum(x, axis=dim)

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
        return np.diagonal(x, offset, dim1, dim2)

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

    # keys with index arrays place their dims as libtorch does (see _index_order)
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
        from ._ops_index import _scatter_add_into
        z = np.zeros(shape, dtype=src.dtype)
        if accumulate:
            _scatter_add_into(z, dim, index, src)
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
        from .nnf import nll_grad_array
        return nll_grad_array(g, shape, target, weight, reduction, ignore_index, total_weight)


class _TensorOps(_TensorLinalg):
    """The same functions, made of recorded rtorchpy ops (for create_graph)."""

    records = True

    @staticmethod
    def keep_where(mask, g):
        # a recorded where: its own backward selects again, so the next order stays NaN-free
        from . import _ops
        return _ops.where(_as_bool(mask), g, 0.0)

    @staticmethod
    def zero_where(mask, g):
        from . import _ops
        return _ops.where(_as_bool(mask), 0.0, g)

    @staticmethod
    def sgn(x):
        return x.sign()  # NaN -> 0 already (the op follows libtorch)

    @staticmethod
    def isnan(x):
        return x.isnan()

    @staticmethod
    def count_nonzero(mask):
        return int(np.count_nonzero(mask._data if hasattr(mask, "_data") else mask))

    @staticmethod
    def where(c, a, b):
        from . import _ops
        return _ops.where(_as_bool(c), a, b)

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
        from .creation import torch_zeros_like
        return torch_zeros_like(x)

    @staticmethod
    def expand(g, shape):
        return g.expand(shape)

    @staticmethod
    def scale(g, c):
        return g * c

    @staticmethod
    def restore_dims(g, dims, keepdim):
        from ._tensor import Tensor
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
        from ._ops_shape import diagonal_backward
        return diagonal_backward(g, shape, offset, dim1, dim2)

    @staticmethod
    def cat(xs, dim):
        from ._ops_shape import cat
        return cat(xs, dim)

    @staticmethod
    def stack(xs, dim):
        from ._ops_shape import stack
        return stack(xs, dim)

    @staticmethod
    def index(x, key):
        from ._ops_index import _advanced
        if any(isinstance(k, np.ndarray) for k in key):
            return _advanced(x, key)
        return x[key]

    @staticmethod
    def index_backward(g, shape, key):
        from ._ops_index import index_backward
        return index_backward(g, shape, key)

    @staticmethod
    def index_fill_zero(g, key):
        from ._ops_index import _index_put
        return _index_put(g, key, 0.0, False, "IndexPutBackward0")

    @staticmethod
    def scatter_zeros(shape, dim, index, src, accumulate=False):
        from ._ops_index import scatter_zeros
        return scatter_zeros(shape, dim, index, src, accumulate)

    @staticmethod
    def gather(x, dim, index):
        from ._tensor import Tensor
        return x.gather(dim, Tensor._make(index))

    @staticmethod
    def clamp_min(x, lo):
        return x.clamp(min=lo)

    @staticmethod
    def nll_backward(g, shape, target, weight, reduction, ignore_index, total_weight):
        from .nnf import nll_grad_tensor
        return nll_grad_tensor(g, shape, target, weight, reduction, ignore_index, total_weight)


def _as_bool(c):
    from ._tensor import Tensor
    if isinstance(c, Tensor):
        return c
    return Tensor._make(np.asarray(c, dtype=bool))


ARRAY_OPS = _ArrayOps()
TENSOR_OPS = _TensorOps()
