"""Reductions (sum, mean, prod, max, var, norm, ...), scans and softmax.

``dim`` is an int or a tuple of ints (0-based, negative counts from the end) or None for all
dims; ``keepdim`` keeps the reduced dims with size 1.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import rounded
from ..numerics.arrays import cumsum_of, mean_of, reduced_count
from ..numerics.dims import normalize_dim, normalize_dims
from ..tensor import Tensor
from .arith import maximum, minimum
from .registry import as_tensor, default_float, op, recording, wrap
from .shape import to as _to


def _reduced(a):
    """A reduction's result as a tensor, C-contiguous as libtorch allocates it (NumPy's keeps the
    input's layout: then a later reshape would copy where libtorch's is a view)."""
    if type(a) is np.ndarray and not a.flags.c_contiguous:
        a = a.copy()
    return wrap(a)


def _axis(dims):
    return None if dims is None else dims


def _dims_or_all(dim, ndim):
    dims = normalize_dims(dim, ndim)
    if dims is not None and len(dims) == 0:
        return None  # an empty dim list reduces everything, as in libtorch
    if dims is not None and ndim == 0:
        return ()  # a 0-dim tensor accepts dim 0 / -1; reducing over it changes nothing
    return dims


def _floating(self, what):
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"{what}(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {self.dtype.word}")


@op("sum", dims=("dim",))
def sum(self, dim=None, keepdim=False, dtype=None):
    """Sum over ``dim`` (all elements when None). Integers and bools sum to int64."""
    x = self._data
    if dtype is not None:
        x = x.astype(_dt.as_dtype(dtype).numpy)
    elif x.dtype.kind in "biu":
        x = x.astype(np.int64)
    dims = _dims_or_all(dim, x.ndim)
    if dims is None and (keepdim or dim is not None):
        dims = tuple(range(x.ndim))  # libtorch's dim overload (SumBackward1) reducing all dims
    if dims is None:
        out = wrap(np.asarray(x.sum(dtype=x.dtype)))
        if recording(self):
            record(NODES["SumBackward0"], (self,), (out,), (x.shape,))
        return out
    out = _reduced(np.asarray(x.sum(axis=dims, keepdims=keepdim, dtype=x.dtype)))
    if recording(self):
        record(NODES["SumBackward1"], (self,), (out,), (x.shape, dims, keepdim))
    return out


def _mean(x, dims, keepdim):
    """The mean in x's own dtype (NumPy's default for float16 would sum in float32)."""
    if x.dtype == np.float16:
        return x.mean(axis=dims, keepdims=keepdim, dtype=x.dtype)
    return mean_of(x, dims, keepdim)


@op("mean", dims=("dim",))
def mean(self, dim=None, keepdim=False, dtype=None):
    """Mean over ``dim`` (all elements when None); needs a floating dtype."""
    x = self._data if dtype is None else self._data.astype(_dt.as_dtype(dtype).numpy)
    if x.dtype.kind != "f":
        _floating(self, "mean")
    dims = _dims_or_all(dim, x.ndim)
    if dims is None and (keepdim or dim is not None):
        dims = tuple(range(x.ndim))  # libtorch's dim overload (MeanBackward1) reducing all dims
    count = reduced_count(x.shape, dims)
    if dims is None:
        out = wrap(np.asarray(_mean(x, None, False)))
        if recording(self):
            record(NODES["MeanBackward0"], (self,), (out,), (x.shape, count))
        return out
    out = _reduced(np.asarray(_mean(x, dims, keepdim)))
    if recording(self):
        record(NODES["MeanBackward1"], (self,), (out,), (x.shape, dims, keepdim, count))
    return out


@op("prod", dims=("dim",))
def prod(self, dim=None, keepdim=False, dtype=None):
    """Product over ``dim`` (all elements when None; libtorch takes one dim at a time)."""
    x = self._data if dtype is None else self._data.astype(_dt.as_dtype(dtype).numpy)
    if dtype is None and x.dtype.kind in "biu":
        x = x.astype(np.int64)
    dims = _dims_or_all(dim, x.ndim)
    out = _reduced(np.asarray(x.prod(axis=_axis(dims), keepdims=keepdim, dtype=x.dtype)))
    if recording(self):
        # the result is saved as libtorch saves it (its formula reads it): changing it in place
        # before backward is the same error there and here, although our formula does not
        record(NODES["ProdBackward0" if dim is None else "ProdBackward1"], (self,), (out,),
               (dims, keepdim))
    return out


def select_along(self, d, keepdim, idx, node):
    """(values, indices) of the elements of ``self`` at positions ``idx`` along dim ``d`` (an
    index array with ``d`` kept, of size 1; a 0-dim ``self`` counts as 1-d), shaped as a
    reduction over ``d``, recording ``node`` (max(dim)'s parameters: the indices say where the
    gradient goes)."""
    x = self._data
    values = np.take_along_axis(x if x.ndim else x.reshape(1), idx, axis=d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    if x.ndim == 0:
        values, idx = values.reshape(()), idx.reshape(())
    values, indices = _reduced(values), _reduced(idx.astype(np.int64))
    if recording(self):
        record(NODES[node], (self,), (values,), (x.shape, d, keepdim, idx))
    return values, indices


def _extreme(name, np_fn, np_arg, full_node, dim_node):
    def fn(self, dim=None, keepdim=False, other=None):
        if other is not None:  # (R torch's x$max(other = y)); a number becomes a tensor
            if dim is not None:
                raise ValueError(f"{name}(): give either dim or other, not both")
            dim = other if isinstance(other, Tensor) else as_tensor(other)
        if isinstance(dim, Tensor):  # torch_max(x, y): elementwise
            return (maximum if name == "max" else minimum)(self, dim)
        x = self._data
        if dim is None:
            if x.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the 'dim' "
                                   "argument.")
            out = wrap(np.asarray(np_fn(x)))
            if recording(self):
                record(NODES[full_node], (self,), (out,))
            return out
        d = normalize_dim(dim, x.ndim)
        idx = np_arg(x if x.ndim else x.reshape(1), axis=d, keepdims=True)
        return select_along(self, d, keepdim, idx, dim_node)
    fn.__name__ = name
    fn.__doc__ = (f"The {name}imum of all elements, or with ``dim`` a pair (values, indices) "
                  f"along that dim; with a tensor as second argument (or ``other``, a tensor or "
                  f"numbers), the elementwise {name}imum.")
    return fn


max = op("max", dims=("dim",), returns_index=True)(
    _extreme("max", np.max, np.argmax, "MaxBackward1", "MaxBackward0"))
min = op("min", dims=("dim",), returns_index=True)(
    _extreme("min", np.min, np.argmin, "MinBackward1", "MinBackward0"))


def _amax_like(name, np_fn, node):
    def fn(self, dim=(), keepdim=False):
        dims = _dims_or_all(dim, self._data.ndim)
        out = _reduced(np.asarray(np_fn(self._data, axis=_axis(dims), keepdims=keepdim)))
        if recording(self):
            record(NODES[node], (self,), (out,), (dims, keepdim))
        return out
    fn.__name__ = name
    fn.__doc__ = f"The {name[1:]}imum over ``dim`` (all dims by default); ties share the gradient."
    return op(name, dims=("dim",))(fn)


amax = _amax_like("amax", np.max, "AmaxBackward0")
amin = _amax_like("amin", np.min, "AminBackward0")


@op("argmax", dims=("dim",), returns_index=True)
def argmax(self, dim=None, keepdim=False):
    """Index of the maximum (of the flattened tensor when ``dim`` is None)."""
    if dim is None:
        return wrap(np.asarray(np.argmax(self._data, keepdims=keepdim), dtype=np.int64))
    d = normalize_dim(dim, self._data.ndim)
    return _reduced(np.asarray(np.argmax(self._data, axis=d, keepdims=keepdim), dtype=np.int64))


@op("argmin", dims=("dim",), returns_index=True)
def argmin(self, dim=None, keepdim=False):
    """Index of the minimum (of the flattened tensor when ``dim`` is None)."""
    if dim is None:
        return wrap(np.asarray(np.argmin(self._data, keepdims=keepdim), dtype=np.int64))
    d = normalize_dim(dim, self._data.ndim)
    return _reduced(np.asarray(np.argmin(self._data, axis=d, keepdims=keepdim), dtype=np.int64))


@op("logsumexp", dims=("dim",))
def logsumexp(self, dim, keepdim=False):
    """log(sum(exp(self))) over ``dim``, computed without overflow."""
    x = self._data if self._data.dtype.kind == "f" else self._data.astype(default_float())
    dims = _dims_or_all(dim, x.ndim)
    m = np.max(x, axis=_axis(dims), keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    data = rounded.log(rounded.exp(x - m).sum(axis=_axis(dims), keepdims=True)) + m
    if not keepdim:
        data = data.squeeze(axis=_axis(dims)) if dims is not None else data.reshape(())
    out = _reduced(np.asarray(data, dtype=x.dtype))
    if recording(self):
        record(NODES["LogsumexpBackward0"], (self,), (out,), (dims, keepdim))
    return out


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased else 0


@op("var", dims=("dim",))
def var(self, dim=None, unbiased=True, keepdim=False, correction=None):
    """Variance over ``dim`` with Bessel's correction unless ``unbiased=False``."""
    _floating(self, "var") if self._data.dtype.kind != "f" else None
    c = _correction(unbiased, correction)
    dims = _dims_or_all(dim, self._data.ndim)
    count = reduced_count(self._data.shape, dims)
    data = np.var(self._data, axis=_axis(dims), ddof=c, keepdims=keepdim)
    out = _reduced(np.asarray(data, dtype=self._data.dtype))
    if recording(self):
        record(NODES["VarBackward0"], (self,), (out,), (dims, c, keepdim, count))
    return out


@op("std", dims=("dim",))
def std(self, dim=None, unbiased=True, keepdim=False, correction=None):
    """Standard deviation over ``dim`` with Bessel's correction unless ``unbiased=False``."""
    _floating(self, "std") if self._data.dtype.kind != "f" else None
    c = _correction(unbiased, correction)
    dims = _dims_or_all(dim, self._data.ndim)
    count = reduced_count(self._data.shape, dims)
    data = np.std(self._data, axis=_axis(dims), ddof=c, keepdims=keepdim)
    out = _reduced(np.asarray(data, dtype=self._data.dtype))
    if recording(self):
        record(NODES["StdBackward0"], (self,), (out,), (dims, c, keepdim, count))
    return out


@op("norm", dims=("dim",))
def norm(self, p=2, dim=None, keepdim=False, dtype=None):
    """The p-norm over ``dim`` (all elements when None); p may be a number, inf or "fro";
    ``dtype``: computed in (and returned as) that dtype."""
    if dtype is not None:
        self = _to(self, dtype)
    if p == "fro" or p is None:
        p = 2
    p = float(p)
    _floating(self, "norm") if self._data.dtype.kind != "f" else None
    dims = _dims_or_all(dim, self._data.ndim)
    a = np.abs(self._data)
    if p == float("inf"):
        data = np.max(a, axis=_axis(dims), keepdims=keepdim)
    elif p == float("-inf"):
        data = np.min(a, axis=_axis(dims), keepdims=keepdim)
    elif p == 2:
        data = np.sqrt(np.sum(a * a, axis=_axis(dims), keepdims=keepdim))
    elif p == 0:
        data = np.sum(a != 0, axis=_axis(dims), keepdims=keepdim)
    else:
        data = rounded.power(np.sum(rounded.power(a, p), axis=_axis(dims), keepdims=keepdim),
                             1 / p)
    out = _reduced(np.asarray(data, dtype=self._data.dtype))
    if recording(self):  # (p = 0 too: its output requires grad, its gradient is none)
        record(NODES["NormBackward0"], (self,), (out,), (p, dims, keepdim))
    return out


@op("cumsum", dims=("dim",))
def cumsum(self, dim, dtype=None):
    """Cumulative sum along ``dim``."""
    x = self._data if dtype is None else self._data.astype(_dt.as_dtype(dtype).numpy)
    if dtype is None and x.dtype.kind in "biu":
        x = x.astype(np.int64)
    d = normalize_dim(dim, x.ndim)
    out = wrap(cumsum_of(x, d) if x.ndim else x.copy())
    if recording(self):
        record(NODES["CumsumBackward0"], (self,), (out,), (d,))
    return out


@op("softmax", dims=("dim",))
def softmax(self, dim, dtype=None):
    """exp(self) / sum(exp(self)) along ``dim``, computed without overflow."""
    x = self._data.astype(_dt.as_dtype(dtype).numpy) if dtype is not None else self._data
    x = x if x.dtype.kind == "f" else x.astype(default_float())
    d = normalize_dim(dim, x.ndim)
    e = rounded.exp(x - x.max(axis=d, keepdims=True, initial=-np.inf)) if x.ndim else \
        np.ones_like(x)
    out = wrap(e / e.sum(axis=d, keepdims=True) if x.ndim else e)
    if recording(self):
        record(NODES["SoftmaxBackward0"], (self,), (out,), (d,))
    return out


@op("log_softmax", dims=("dim",))
def log_softmax(self, dim, dtype=None):
    """log(softmax(self)) along ``dim``, computed stably."""
    x = self._data.astype(_dt.as_dtype(dtype).numpy) if dtype is not None else self._data
    x = x if x.dtype.kind == "f" else x.astype(default_float())
    d = normalize_dim(dim, x.ndim)
    if x.ndim:
        shifted = x - x.max(axis=d, keepdims=True, initial=-np.inf)
        data = shifted - rounded.log(rounded.exp(shifted).sum(axis=d, keepdims=True))
    else:
        data = np.zeros_like(x)
    out = wrap(data)
    if recording(self):
        record(NODES["LogSoftmaxBackward0"], (self,), (out,), (d,))
    return out


def _truth(name, np_fn):
    def fn(self, dim=None, keepdim=False):
        dims = _dims_or_all(dim, self._data.ndim)
        return _reduced(np.asarray(np_fn(self._data, axis=_axis(dims), keepdims=keepdim)))
    fn.__name__ = name
    fn.__doc__ = f"Whether {name} elements are true (over ``dim``): a bool tensor."
    return op(name, dims=("dim",))(fn)


all = _truth("all", np.all)
any = _truth("any", np.any)
