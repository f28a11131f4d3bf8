"""More of R torch's tensor methods, written as combinations of registered ops (so gradients and
second order come from those ops' rows): ``scatter``, ``index_add``/``index_fill``/
``index_copy``, ``lerp``, ``logaddexp``, ``frac``, ``exp2``, ``deg2rad``, ``addmv``, ``addr``,
``baddbmm``, ``take``, ``nansum``, ``count_nonzero``, ``dist``, ... and the predicates
``is_complex``, ``is_signed``, ``is_same_size``, ``is_nonzero``.

The functions whose result holds no gradient (``signbit``, ``isposinf``, the bitwise ops) are
computed on the arrays directly.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import torch_get_default_dtype
from ..numerics.dims import normalize_dim
from ..tensor import Tensor
from .inplace import _inplace_op, inplace
from .registry import OPS, as_tensor, op, wrap


def _fn(name):
    return OPS[name].fn


def _zeros(t):
    return wrap(np.zeros_like(t._data))


def _along(index, dim, like):
    """An index tensor of ``like``'s shape holding ``index``'s value ``index[i]`` at position
    ``i`` of dim ``dim`` (so scatter/gather along ``dim`` act per slice)."""
    idx = np.asarray(as_tensor(index)._data, dtype=np.int64).reshape(-1)
    shape = [1] * like.ndim
    shape[dim] = idx.size
    return np.broadcast_to(idx.reshape(shape), like.shape)


def _dim_mask(self, dim, index):
    d = normalize_dim(dim, self._data.ndim)
    idx = np.asarray(as_tensor(index)._data, dtype=np.int64).reshape(-1)
    n = self._data.shape[d] if self._data.ndim else 1
    if idx.size and (idx.max() >= n or idx.min() < -n):
        raise IndexError(f"index out of range in self (dimension {d} has size {n})")
    m = np.zeros(n, dtype=bool)
    m[idx] = True
    shape = [1] * self._data.ndim
    if shape:
        shape[d] = n
    return d, wrap(np.broadcast_to(m.reshape(shape), self._data.shape).copy())


# ---------------------------------------------------------------- scatter and index_*
@op("scatter", dims=("dim",), index_args=("index",))
def scatter(self, dim, index, src):
    """A copy of ``self`` with ``src``'s values (a tensor, or one number) written at ``index``
    along ``dim``. An index named twice gets one of its values (which one is not defined, as in
    libtorch)."""
    self, index = as_tensor(self), as_tensor(index)
    d = normalize_dim(dim, self._data.ndim)
    hit = _fn("scatter_add")(wrap(np.zeros(self._data.shape, bool)), d, index,
                             wrap(np.ones(index._data.shape, bool)))
    if isinstance(src, Tensor):
        src_part = src
        if src._data.shape != index._data.shape:
            sl = tuple(slice(0, k) for k in index._data.shape)
            src_part = src[sl]
        counts = _fn("scatter_add")(wrap(np.zeros(self._data.shape, self._data.dtype)), d, index,
                                    wrap(np.ones(index._data.shape, self._data.dtype)))
        summed = _fn("scatter_add")(_zeros(self), d, index, src_part)
        values = _fn("div")(summed, _fn("clamp_min")(counts, 1)) \
            if counts._data.max(initial=0) > 1 else summed
        return _fn("where")(hit, values.to(self.dtype), self)
    return _fn("masked_fill")(self, hit, src)


@op("index_add", dims=("dim",), index_args=("index",))
def index_add(self, dim, index, source, alpha=1):
    """A copy of ``self`` with ``alpha * source``'s slices added at the positions ``index``
    names along ``dim`` (a position named twice gets both)."""
    self, source = as_tensor(self), as_tensor(source)
    d = normalize_dim(dim, self._data.ndim)
    idx = wrap(np.ascontiguousarray(_along(index, d, source._data)))
    add = source if alpha == 1 else _fn("mul")(source, alpha)
    return _fn("scatter_add")(self, d, idx, add)


@op("index_fill", dims=("dim",), index_args=("index",))
def index_fill(self, dim, index, value):
    """A copy of ``self`` with ``value`` at the positions ``index`` names along ``dim``."""
    self = as_tensor(self)
    _, mask = _dim_mask(self, dim, index)
    return _fn("masked_fill")(self, mask, value)


@op("index_copy", dims=("dim",), index_args=("index",))
def index_copy(self, dim, index, source):
    """A copy of ``self`` whose slices at the positions ``index`` names along ``dim`` are
    ``source``'s slices, in order."""
    self, source = as_tensor(self), as_tensor(source)
    d, mask = _dim_mask(self, dim, index)
    idx = wrap(np.ascontiguousarray(_along(index, d, source._data)))
    placed = _fn("scatter_add")(_zeros(self), d, idx, source)
    return _fn("where")(mask, placed, self)


# ---------------------------------------------------------------- elementwise
@op("frac")
def frac(self):
    """The fractional part, ``x - trunc(x)``."""
    return _fn("sub")(self, _fn("trunc")(self))


@op("exp2")
def exp2(self):
    """``2^x``."""
    self = as_tensor(self)
    x = self if self._data.dtype.kind == "f" else self.to(_default_float())
    return _fn("exp")(_fn("mul")(x, math.log(2.0)))


def _default_float():
    return torch_get_default_dtype()


@op("deg2rad")
def deg2rad(self):
    """Degrees to radians."""
    return _fn("mul")(_float(self), math.pi / 180.0)


@op("rad2deg")
def rad2deg(self):
    """Radians to degrees."""
    return _fn("mul")(_float(self), 180.0 / math.pi)


def _float(t):
    t = as_tensor(t)
    return t if t._data.dtype.kind == "f" else t.to(_default_float())


@op("logaddexp")
def logaddexp(self, other):
    """``log(exp(self) + exp(other))``, computed without overflow."""
    m = _fn("maximum")(self, other).detach()
    m = _fn("where")(_fn("isfinite")(m), m, _zeros(m))
    s = _fn("add")(_fn("exp")(_fn("sub")(self, m)), _fn("exp")(_fn("sub")(other, m)))
    return _fn("add")(_fn("log")(s), m)


@op("logaddexp2")
def logaddexp2(self, other):
    """``log2(2^self + 2^other)``."""
    ln2 = math.log(2.0)
    return _fn("div")(logaddexp(_fn("mul")(self, ln2), _fn("mul")(other, ln2)), ln2)


@op("lerp")
def lerp(self, end, weight):
    """``self + weight * (end - self)``."""
    return _fn("add")(self, _fn("mul")(_fn("sub")(end, self), weight))


@op("floor_divide")
def floor_divide(self, other):
    """Division rounded down (``div(rounding_mode = "floor")``)."""
    return _fn("div")(self, other, rounding_mode="floor")


@op("heaviside")
def heaviside(self, values):
    """0 where ``self < 0``, 1 where ``self > 0``, ``values`` where ``self == 0``."""
    self, values = as_tensor(self), as_tensor(values)
    x = self._data
    out = np.where(x == 0, values._data, (x > 0)).astype(np.result_type(x, values._data))
    return wrap(np.asarray(out))


@op("signbit")
def signbit(self):
    """Whether the sign bit is set (true for -0.0 too)."""
    return wrap(np.signbit(as_tensor(self)._data))


@op("isposinf")
def isposinf(self):
    """Where the value is +Inf."""
    return wrap(np.isposinf(as_tensor(self)._data))


@op("isneginf")
def isneginf(self):
    """Where the value is -Inf."""
    return wrap(np.isneginf(as_tensor(self)._data))


def _bitwise(name, np_fn):
    def fn(self, other):
        a, b = as_tensor(self)._data, as_tensor(other)._data
        if a.dtype.kind not in "biu" or b.dtype.kind not in "biu":
            raise RuntimeError(f'"{name}_cpu" not implemented for \'Float\'')
        return wrap(np.asarray(np_fn(a, b)))
    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of integer or bool tensors."
    return op(name)(fn)


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


@op("bitwise_not")
def bitwise_not(self):
    """Elementwise NOT of an integer or bool tensor."""
    a = as_tensor(self)._data
    if a.dtype.kind not in "biu":
        raise RuntimeError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return wrap(np.asarray(np.invert(a)))


# ---------------------------------------------------------------- reductions, products
@op("nansum", dims=("dim",))
def nansum(self, dim=None, keepdim=False):
    """The sum with NaN counted as 0."""
    self = as_tensor(self)
    clean = _fn("where")(_fn("isnan")(self), _zeros(self), self)
    return _fn("sum")(clean, dim, keepdim) if dim is not None else _fn("sum")(clean)


@op("count_nonzero", dims=("dim",))
def count_nonzero(self, dim=None):
    """The number of non-zero elements (over ``dim``, or all)."""
    nz = _fn("ne")(self, 0)
    return _fn("sum")(nz, dim) if dim is not None else _fn("sum")(nz)


@op("vdot")
def vdot(self, other):
    """The dot product of two 1-d tensors (real tensors: ``dot``)."""
    return _fn("dot")(self, other)


@op("dist")
def dist(self, other, p=2):
    """The ``p``-norm of ``self - other``."""
    return _fn("norm")(_fn("sub")(self, other), p)


@op("diagflat")
def diagflat(self, offset=0):
    """A matrix with ``self``'s elements (flattened) on diagonal ``offset``."""
    return _fn("diag")(_fn("reshape")(self, -1), offset)


@op("addmv")
def addmv(self, mat, vec, beta=1, alpha=1):
    """``beta * self + alpha * (mat %*% vec)``."""
    return _scaled_sum(self, _fn("mv")(mat, vec), beta, alpha)


@op("addr")
def addr(self, vec1, vec2, beta=1, alpha=1):
    """``beta * self + alpha * outer(vec1, vec2)``."""
    return _scaled_sum(self, _fn("outer")(vec1, vec2), beta, alpha)


@op("baddbmm")
def baddbmm(self, batch1, batch2, beta=1, alpha=1):
    """``beta * self + alpha * bmm(batch1, batch2)``."""
    return _scaled_sum(self, _fn("bmm")(batch1, batch2), beta, alpha)


@op("addbmm")
def addbmm(self, batch1, batch2, beta=1, alpha=1):
    """``beta * self + alpha * sum over the batch of bmm(batch1, batch2)``."""
    return _scaled_sum(self, _fn("sum")(_fn("bmm")(batch1, batch2), 0), beta, alpha)


def _scaled_sum(self, prod, beta, alpha):
    a = prod if alpha == 1 else _fn("mul")(prod, alpha)
    if beta == 0:  # (libtorch: self is ignored, NaN included)
        return _fn("add")(_zeros(a), a)
    return _fn("add")(self if beta == 1 else _fn("mul")(self, beta), a)


@op("take", index_args=("index",))
def take(self, index):
    """The elements of ``self`` (read flat, in row-major order) at ``index``."""
    index = as_tensor(index)
    flat = _fn("index_select")(_fn("reshape")(self, -1), 0, _fn("reshape")(index, -1))
    return _fn("reshape")(flat, *index._data.shape)


# ---------------------------------------------------------------- predicates
@op("is_complex")
def is_complex(self):
    """Whether the dtype is complex (the Fourier transforms make complex tensors)."""
    return as_tensor(self)._data.dtype.kind == "c"


@op("is_signed")
def is_signed(self):
    """Whether the dtype holds negative values (not bool, not uint8)."""
    return as_tensor(self)._data.dtype.kind not in "bu"


@op("is_same_size")
def is_same_size(self, other):
    """Whether both tensors have the same shape."""
    return as_tensor(self)._data.shape == as_tensor(other)._data.shape


@op("is_nonzero")
def is_nonzero(self):
    """The truth of a one-element tensor (an error for any other)."""
    x = as_tensor(self)._data
    if x.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                           if x.size else "Boolean value of Tensor with no values is ambiguous")
    return bool(x.reshape(()) != 0)


# ---------------------------------------------------------------- in-place forms
for _name in ("frac", "exp2", "deg2rad", "rad2deg", "lerp", "floor_divide", "heaviside",
              "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "addmv", "addr",
              "baddbmm", "addbmm"):
    _inplace_op(_name + "_", OPS[_name].fn, f"In-place ``{_name}``; returns self.")


def _dim_inplace(name):
    base = OPS[name]

    def method(self, dim, index, src, *rest):
        return inplace(self, lambda t: base.fn(t, dim, index, src, *rest), index,
                       *[a for a in (src,) + rest if isinstance(a, Tensor)])
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``; returns self."
    return op(name + "_", namespace=False, dims=("dim",), index_args=("index",))(method)


scatter_ = _dim_inplace("scatter")
index_fill_ = _dim_inplace("index_fill")
index_copy_ = _dim_inplace("index_copy")
index_add_ = _dim_inplace("index_add")
