"""Everyday ops R torch programs use that are combinations of registered ops: ``addcmul``,
``addcdiv``, ``masked_select``, ``masked_scatter``, ``view_as``, ``reshape_as``, and the in-place
forms (``x$log_()``, ``x$unsqueeze_(1)``, ``x$addcmul_()``, ...) R torch's tensors have.

Composed of recorded ops, so gradients (and second order) come from those ops' rows.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import bump_version
from ..numerics.shape_errors import shape_error
from ..tensor import Tensor
from .inplace import _inplace_op, inplace
from .registry import OPS, as_tensor, op, recording, wrap


def _fn(name):
    return OPS[name].fn


@op("addcmul")
def addcmul(self, tensor1, tensor2, value=1):
    """``self + value * tensor1 * tensor2`` (broadcasting)."""
    return _fn("add")(self, _fn("mul")(_fn("mul")(tensor1, tensor2), value))


@op("addcdiv")
def addcdiv(self, tensor1, tensor2, value=1):
    """``self + value * tensor1 / tensor2`` (broadcasting)."""
    return _fn("add")(self, _fn("mul")(_fn("div")(tensor1, tensor2), value))


def _bool_mask(mask, name):
    mask = as_tensor(mask)
    if mask._data.dtype.kind != "b":
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return mask


def _broadcast_pair(self, mask):
    shape = self._data.shape
    if mask._data.shape != shape:
        try:
            shape = np.broadcast_shapes(mask._data.shape, shape)
        except ValueError as e:
            raise shape_error(e, mask._data.shape, self._data.shape) from None
    return shape


@op("masked_select")
def masked_select(self, mask):
    """A 1-d tensor of the elements of ``self`` where the bool ``mask`` is true (the two
    broadcast together)."""
    self = as_tensor(self)
    mask = _bool_mask(mask, "masked_select")
    shape = _broadcast_pair(self, mask)
    x = self if self._data.shape == shape else _fn("expand")(self, *shape)
    flat_pos = np.flatnonzero(np.broadcast_to(mask._data, shape))
    return _fn("index_select")(_fn("reshape")(x, -1), 0, wrap(flat_pos.astype(np.int64)))


@op("masked_scatter")
def masked_scatter(self, mask, source):
    """A copy of ``self`` whose elements where ``mask`` is true are taken, in order, from the
    first elements of ``source``."""
    self, source = as_tensor(self), as_tensor(source)
    mask = _bool_mask(mask, "masked_scatter")
    shape = _broadcast_pair(self, mask)
    m = np.broadcast_to(mask._data, shape)
    count = int(m.sum())
    if count > source._data.size:
        raise RuntimeError(f"masked_scatter: expected source to have at least {count} elements "
                           f"(the number of true values of mask), but got {source._data.size}")
    order = np.where(m.ravel(), np.cumsum(m.ravel()) - 1, 0).astype(np.int64)
    taken = _fn("index_select")(_fn("reshape")(source, -1), 0, wrap(order))
    return _fn("where")(wrap(np.ascontiguousarray(m)), _fn("reshape")(taken, *shape), self)


@op("view_as")
def view_as(self, other):
    """``self`` viewed with ``other``'s shape."""
    return _fn("view")(self, *as_tensor(other)._data.shape)


@op("reshape_as")
def reshape_as(self, other):
    """``self`` reshaped to ``other``'s shape."""
    return _fn("reshape")(self, *as_tensor(other)._data.shape)


# ---------------------------------------------------------------- in-place forms
# The in-place forms R torch's tensors have whose result has self's shape: the op is computed
# out of place and written into self's memory (ops/inplace.py: version counter, views, history).
_SAME_SHAPE = (
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh",
    "arcsinh", "atan", "arctan", "atanh", "arctanh", "ceil", "cos", "cosh", "digamma", "erf",
    "erfc", "erfinv", "expm1", "floor", "fix", "lgamma", "log", "log10", "log1p", "log2",
    "logit", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn", "sin", "sinh", "sqrt",
    "square", "tan", "tanh", "trunc", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "less",
    "less_equal", "greater", "greater_equal", "not_equal", "fmod", "remainder", "hypot",
    "logical_and", "logical_or", "logical_xor", "logical_not", "clamp_min", "clamp_max", "clip",
    "multiply", "divide", "subtract", "true_divide", "tril", "triu", "addcmul", "addcdiv",
    "masked_scatter", "negative", "addmm",
)
for _name in _SAME_SHAPE:
    if _name + "_" not in OPS:
        _inplace_op(_name + "_", OPS[_name].fn, f"In-place ``{_name}``; returns self.")


@op("polygamma_", namespace=False)
def polygamma_(self, n):
    """In-place ``polygamma(n, self)``; returns self."""
    return inplace(self, lambda t: _fn("polygamma")(n, t))


@op("scatter_add_", namespace=False, dims=("dim",), index_args=("index",))
def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``: ``src``'s values added at ``index`` along ``dim``."""
    return inplace(self, lambda t: _fn("scatter_add")(t, dim, index, src), index, src)


def _restride(self, out):
    """Give ``self`` the shape of ``out`` (a view of ``self``), in place: libtorch's metadata-only
    in-place ops. Views of ``self`` keep sharing its memory; history moves to ``out``'s node."""
    self._check_inplace(())
    if recording(self):
        self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
    self._data = out._data
    bump_version(self)
    return self


@op("unsqueeze_", namespace=False, dims=("dim",))
def unsqueeze_(self, dim):
    """In-place ``unsqueeze``: a dimension of size 1 inserted at ``dim``; returns self."""
    return _restride(self, _fn("unsqueeze")(self, dim))


@op("squeeze_", namespace=False, dims=("dim",))
def squeeze_(self, dim=None):
    """In-place ``squeeze``: dimensions of size 1 (or ``dim``, if of size 1) removed."""
    return _restride(self, _fn("squeeze")(self, dim))


@op("t_", namespace=False)
def t_(self):
    """In-place transpose of a matrix (or nothing for fewer than 2 dims); returns self."""
    return _restride(self, _fn("t")(self))


@op("transpose_", namespace=False, dims=("dim0", "dim1"))
def transpose_(self, dim0, dim1):
    """In-place ``transpose`` of two dimensions; returns self."""
    return _restride(self, _fn("transpose")(self, dim0, dim1))


@op("set_data", namespace=False)
def set_data(self, new_data):
    """Make ``self`` hold ``new_data``'s values (sharing its memory, with its shape and dtype)
    without touching autograd history: R torch's ``x$set_data(y)``."""
    if not isinstance(new_data, Tensor):
        raise TypeError(f"new_data must be a Tensor, got {type(new_data).__name__}")
    self._data = new_data._data
    bump_version(self)
    return None
