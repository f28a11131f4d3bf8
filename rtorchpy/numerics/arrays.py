"""NumPy helpers that are faster than NumPy's own Python-level ones on small arrays.

``np.broadcast_to`` and ``np.expand_dims`` are written in Python and cost a few µs each: more
than the rest of a small op. These make the same views directly; ``mean_of`` takes NumPy's
own steps for a mean, without ``ndarray.mean``'s Python-level dispatch.
"""
from __future__ import annotations

import numpy as np


def broadcast_view(a, shape):
    """``np.broadcast_to(a, shape)``: a read-only view; ValueError if ``a`` does not broadcast.
    Built directly from strides when ``a`` is C-contiguous (dims that repeat get stride 0)."""
    if not a.flags.c_contiguous:
        return np.broadcast_to(a, shape)
    lead = len(shape) - a.ndim
    if lead < 0:
        raise ValueError(f"cannot broadcast {a.shape} to {shape}")
    strides = (0,) * lead + tuple([
        stride if size == target else 0 if size == 1 and target >= 0 else _no(a, shape)
        for size, target, stride in zip(a.shape, shape[lead:], a.strides)])
    # a view of a read-only buffer is born read-only (cheaper than setting the flag after)
    return np.ndarray(shape, a.dtype, memoryview(a).toreadonly(), 0, strides)


def _no(a, shape):
    raise ValueError(f"cannot broadcast {a.shape} to {shape}")


def insert_axis(a, dim):
    """``np.expand_dims(a, dim)`` for one non-negative ``dim``: always a view."""
    return a[(slice(None),) * dim + (None,)]


_SCALARS: dict[tuple, np.ndarray] = {}  # (number, dtype) -> read-only 0-d array


def scalar_array(value, dtype):
    """``np.array(value, dtype)`` for a Python number, read-only and cached: NumPy adds or
    multiplies an array by a 0-d array of its own dtype about twice as fast as by a Python
    number (which it must first classify as a weak scalar), and the value is rounded to
    ``dtype`` either way. Zeros (0.0 and -0.0 are equal keys) and NaN (never equal) are not
    cached; the cache starts over when full."""
    key = (value, dtype)
    a = _SCALARS.get(key)
    if a is None:
        a = np.array(value, dtype)
        if value and value == value:
            if len(_SCALARS) >= 256:
                _SCALARS.clear()
            a.flags.writeable = False
            _SCALARS[key] = a
    return a


def clamp_offset(a, offset, dim1, dim2):
    """A diagonal offset NumPy can take, with the same (possibly empty) diagonal: an offset past
    the plane gives an empty diagonal, as in libtorch, but NumPy must never see it (its C int
    wraps: -2**31 gives a diagonal over memory outside the array, and a crash)."""
    return max(-a.shape[dim1], min(a.shape[dim2], int(offset)))


def diagonal_view(a, offset, dim1, dim2):
    """A view of the diagonal of ``a`` over the (non-negative, distinct) dims ``dim1`` and
    ``dim2``, as the last dim; the other dims keep their order. ``np.diagonal`` makes this very
    view but read-only, which would refuse writes through it (libtorch's
    ``x.diagonal().zero_()``); it is made writable whenever ``a`` is (its elements never share
    memory unless ``a``'s do, and those arrays are read-only)."""
    d = np.diagonal(a, clamp_offset(a, offset, dim1, dim2), dim1, dim2)
    if a.flags.writeable:
        d.flags.writeable = True
    return d


def sgn(x):
    """``np.sign`` with 0 where ``x`` is NaN, as libtorch's sign (NumPy gives NaN there); for
    complex ``x``, ``x / |x|`` (0 at 0), libtorch's ``sgn`` (NumPy 1's complex sign differs)."""
    if np.iscomplexobj(x):
        m = np.abs(x)
        return np.where(m == 0, 0, x / np.where(m == 0, 1, m)).astype(x.dtype, copy=False)
    s = np.sign(x)
    if s.dtype.kind == "f":
        nan = np.isnan(s)
        if nan.any():
            s[nan] = 0
    return s


def reduced_count(shape, axis):
    """How many elements a reduction over ``axis`` (a tuple of dims, or None for all) combines
    into each result."""
    n = 1
    for d in (range(len(shape)) if axis is None else axis):
        n *= shape[d]
    return n


# libtorch's CPU cumsum adds float16 in float32 and float32 in float64, rounding each partial
# sum once: a long float32 cumsum stays accurate (NumPy's own, in float32, drifts: 1e6 times 0.1
# ends at 100958 instead of 100000), and the results are libtorch's bit for bit.
_CUMSUM_ACCUMULATOR = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64}


def cumsum_of(x, axis):
    """The cumulative sum of ``x`` along ``axis`` in x's dtype, accumulated as libtorch's."""
    wide = _CUMSUM_ACCUMULATOR.get(x.dtype)
    if wide is None:
        return np.cumsum(x, axis=axis, dtype=x.dtype)
    return np.cumsum(x, axis=axis, dtype=wide).astype(x.dtype)


def mean_of(x, axis=None, keepdims=False):
    """``x.mean(axis=axis, keepdims=keepdims)``, bit for bit, for a float32 or float64 array
    (others go to NumPy). NumPy's steps: the sum in x's dtype, then a division by the count as
    an intp; ``ndarray.mean``'s Python-level steps cost more than the sum on a small array. An
    empty reduction goes to NumPy too, for its warning and NaN."""
    if x.dtype != np.float32 and x.dtype != np.float64:
        return x.mean(axis=axis, keepdims=keepdims)
    count = reduced_count(x.shape, axis)
    if count == 0:
        return x.mean(axis=axis, keepdims=keepdims)
    total = np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)
    if isinstance(total, np.ndarray):
        # a Python int divides in x's dtype, which holds the count exactly below these bounds:
        # the same correctly rounded quotients as NumPy's float64 ones, far cheaper than its
        # mixed-type division
        exact = count <= (2 ** 24 if x.dtype == np.float32 else 2 ** 53)
        return np.true_divide(total, count if exact else np.intp(count), out=total,
                              casting="unsafe")
    # NumPy divides the scalar sum by an intp in float64 and rounds to x's dtype: Python's float
    # division is that float64 division (the count is exact below 2^53); NumPy's mixed scalar
    # arithmetic alone would cost more than the whole sum
    if count > 2 ** 53:
        return total.dtype.type(total / np.intp(count))
    return total.dtype.type(float(total) / count)
