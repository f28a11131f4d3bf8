"""Matrix ops: bmm, einsum, tensordot, kron, tril/triu (and in place), tril_indices/triu_indices,
diag, diag_embed, trace, cdist (the ops along a dim are in ``sorting.py``).

Ops that libtorch computes as compositions of other ops (tensordot, kron; in ``sorting.py``
tile, diff, repeat_interleave, quantile) are composed the same way here, so their grad_fn is
libtorch's and their gradients of every order come from the parts. einsum is the exception:
libtorch decomposes it into permutes, products and sums, while here it is one ``np.einsum``
with one node (``EinsumBackward0``) whose gradient is again an einsum.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes as _dt
from ..autograd.record import record
from ..autograd.rows import NODES
from ..derivatives import matops as _rows  # noqa: F401  (the rows, before NODES is read below)
from ..derivatives.matops import _CDIST_BLOCK
from ..numerics import rounded
from ..numerics.args import int64
from ..numerics.arrays import diagonal_view
from ..numerics.dims import normalize_dim
from ..tensor import Tensor
from .arith import mul as _mul
from .inplace import inplace
from .linalg import mm as _mm
from .registry import as_tensor, op, recording, wrap


def _word(t):
    return t.dtype.word


def _int(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        if isinstance(value, numbers.Real) and math.isfinite(value) and \
                float(value).is_integer():
            return int64(value, what)
        raise TypeError(f"{what} must be an integer, got {value!r}")
    return int64(value, what)


# ------------------------------------------------------------------------------ products

@op("bmm")
def bmm(self, mat2):
    """Batched matrix product of two 3-d tensors: ``out[b] = self[b] @ mat2[b]``."""
    mat2 = as_tensor(mat2)
    a, b = self._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_word(self)} but found {_word(mat2)}")
    out = wrap(np.matmul(a, b))
    if recording(self, mat2):
        record(NODES["BmmBackward0"], (self, mat2), (out,))
    return out


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class _EinsumPlan:
    """An equation with its ellipses spelled out as letters, and each letter's size: what the
    forward computes and what the gradient of each operand needs."""

    def __init__(self, inputs, output, sizes):
        self.inputs, self.output, self.sizes = inputs, output, sizes
        self.equation = ",".join(inputs) + "->" + output

    def gradient(self, i):
        """``(equation, other operand numbers, constants)`` for operand i's gradient: the
        einsum of (g, the other operands, the constants) back to operand i's subscripts. A
        subscript repeated in operand i gets a fresh letter tied to the first by an identity
        matrix (the gradient lands on the diagonal); a subscript of operand i found nowhere
        else comes from a vector of ones (the gradient is the same along it)."""
        others = [j for j in range(len(self.inputs)) if j != i]
        seen_elsewhere = set(self.output).union(*(self.inputs[j] for j in others))
        free = iter(c for c in _LETTERS if c not in self.sizes)
        target, consts, const_subs, seen = [], [], [], set()
        for c in self.inputs[i]:
            n = self.sizes[c]
            if c in seen:
                fresh = next(free)
                target.append(fresh)
                consts.append(np.eye(n))
                const_subs.append(c + fresh)
                continue
            seen.add(c)
            target.append(c)
            if c not in seen_elsewhere:
                consts.append(np.ones(n))
                const_subs.append(c)
        terms = [self.output] + [self.inputs[j] for j in others] + const_subs
        return ",".join(terms) + "->" + "".join(target), others, consts


def _einsum_error(msg):
    return RuntimeError("einsum(): " + msg)


def _parse_term(term, start, which):
    """The labels of one term (``None`` stands for the ellipsis). ``which``: the operand's
    number, or None for the output (for the error messages)."""
    labels, k = [], 0
    while k < len(term):
        c = term[k]
        if c == ".":
            if which is None and term[k:k + 3] != "...":
                raise _einsum_error("found '.' for output that is not part of any ellipsis (...)")
            if None in labels:
                raise _einsum_error(f"found '.' for operand {which} for which an ellipsis was "
                                    "already found")
            if term[k:k + 3] != "...":
                raise _einsum_error(f"found '.' for operand {which} that is not part of any "
                                    "ellipsis")
            labels.append(None)
            k += 3
            continue
        if c not in _LETTERS:
            raise _einsum_error(f"invalid subscript given at index {start + k} in the equation "
                                "string, subscripts must be in [a-zA-Z]")
        labels.append(c)
        k += 1
    return labels


def _einsum_plan(equation, arrays):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms, starts, pos = lhs.split(","), [], 0
    for t in terms:
        starts.append(pos)
        pos += len(t) + 1
    if len(terms) > len(arrays):
        raise _einsum_error("fewer operands were provided than specified in the equation")
    if len(terms) < len(arrays):
        raise _einsum_error("more operands were provided than specified in the equation")
    parsed = [_parse_term(t, s, i) for i, (t, s) in enumerate(zip(terms, starts))]
    used = {c for labels in parsed for c in labels if c is not None}
    ell_dims = 0
    for i, (labels, a) in enumerate(zip(parsed, arrays)):
        named = len([c for c in labels if c is not None])
        if None in labels:
            if named > a.ndim:
                raise _einsum_error(f"the number of subscripts in the equation ({named}) is more "
                                    f"than the number of dimensions ({a.ndim}) for operand {i}")
            ell_dims = max(ell_dims, a.ndim - named)
        elif named != a.ndim:
            raise _einsum_error(f"the number of subscripts in the equation ({named}) does not "
                                f"match the number of dimensions ({a.ndim}) for operand {i} and "
                                "no ellipsis was given")
    spare = [c for c in _LETTERS if c not in used]
    if ell_dims > len(spare):
        raise _einsum_error("too many dimensions: einsum supports at most 52 subscripts")
    ell = "".join(spare[:ell_dims])
    inputs, sizes = [], {}
    for i, (labels, a) in enumerate(zip(parsed, arrays)):
        named = len([c for c in labels if c is not None])
        mine = ell[ell_dims - (a.ndim - named):] if None in labels else ""
        sub = "".join(mine if c is None else c for c in labels)
        within = {}
        for c, n in zip(sub, a.shape):
            if c in within and within[c] != n:
                raise _einsum_error(f"subscript {c} is repeated for operand {i} but the sizes "
                                    f"don't match, {within[c]} != {n}")
            within[c] = n
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = n
            elif n != 1 and n != prev:
                raise _einsum_error(f"subscript {c} has size {n} for operand {i} which does not "
                                    f"broadcast with previously seen size {prev}")
        inputs.append(sub)
    if arrow:
        out_labels = _parse_term(rhs, len(lhs) + 2, None)
        seen = set()
        for c in out_labels:
            if c is None:
                continue
            if c not in used:
                raise _einsum_error(f"output subscript {c} does not appear in the equation for "
                                    "any input operand")
            if c in seen:
                raise _einsum_error(f"output subscript {c} appears more than once in the output")
            seen.add(c)
        output = "".join(ell if c is None else c for c in out_labels)
    else:  # implicit: the ellipsis dims, then the subscripts used once, in alphabetical order
        counts = {}
        for labels in parsed:
            for c in labels:
                if c is not None:
                    counts[c] = counts.get(c, 0) + 1
        output = ell + "".join(sorted(c for c, k in counts.items() if k == 1))
    return _EinsumPlan(inputs, output, sizes)


@op("einsum", method=False)
def einsum(equation, *tensors):
    """Einstein summation: ``torch_einsum("ij,jk->ik", a, b)`` is ``a @ b``. Subscripts are
    letters (a-z, A-Z); ``...`` stands for the remaining (broadcast) dims; without ``->`` the
    output is the subscripts that appear once, in alphabetical order. The operands may also be
    given as one list. Its grad_fn is ``EinsumBackward0`` (libtorch's is the last op its own
    decomposition records)."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string, got {type(equation).__name__}")
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = tuple(as_tensor(t) for t in tensors)
    if not tensors:
        raise _einsum_error("must provide at least one operand")
    dt = tensors[0]._data.dtype
    for t in tensors[1:]:
        if t._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_word(tensors[0])} but found {_word(t)}")
    plan = _einsum_plan(equation, [t._data for t in tensors])
    data = np.einsum(plan.equation, *[t._data for t in tensors], optimize=len(tensors) > 2)
    out = wrap(np.asarray(data, dtype=dt))
    if recording(*tensors):
        record(NODES["EinsumBackward0"], tensors, (out,), params=(plan,))
    return out


@op("tensordot", method=False)
def tensordot(a, b, dims=2):
    """Contract ``dims`` dims: an int n (the last n of ``a`` with the first n of ``b``) or two
    lists of dims, ``(dims_a, dims_b)`` (1-based in R). Computed as libtorch does: permute,
    reshape to matrices, ``mm``, reshape."""
    a, b = as_tensor(a), as_tensor(b)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be an int or a pair of lists of dims")
        da, db = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    else:
        n = _int(dims, "dims")
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        if n > a.ndim or n > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={n}")
        da, db = list(range(a.ndim - n, a.ndim)), list(range(n))
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [normalize_dim(d, a.ndim) for d in da]
    db = [normalize_dim(d, b.ndim) for d in db]
    for x, y in zip(da, db):
        sa, sb = a.shape[x], b.shape[y]
        if sa != sb:
            if sb == 1:
                b = b.sum(y, keepdim=True)
            elif sa == 1:
                a = a.sum(x, keepdim=True)
            else:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} "
                                   f"in dim {x} and second has size {sb} in dim {y}")
    keep_a = [d for d in range(a.ndim) if d not in da]
    keep_b = [d for d in range(b.ndim) if d not in db]
    size_a = int(np.prod([a.shape[d] for d in keep_a]))
    size_b = int(np.prod([b.shape[d] for d in keep_b]))
    csize = int(np.prod([a.shape[d] for d in da]))
    t1 = a.permute(*(keep_a + da)).reshape(size_a, csize)
    t2 = b.permute(*(db + keep_b)).reshape(csize, size_b)
    return _mm(t1, t2).reshape(*([a.shape[d] for d in keep_a] + [b.shape[d] for d in keep_b]))


def _unsafe_view(t, shape):
    """libtorch's ``_unsafe_view`` of a fresh tensor nobody else holds: its values in
    ``shape`` without a copy, recorded as UnsafeViewBackward0 (not a view)."""
    out = Tensor._make(t._data.reshape(shape))
    if recording(t):
        record(NODES["UnsafeViewBackward0"], (t,), (out,), (t._data.shape,))
    return out


@op("kron")
def kron(self, other):
    """Kronecker product: for matrices, the block matrix ``[self[i, j] * other]``; in general
    dims pair up from the right (the fewer-dim tensor counts as having leading 1s)."""
    other = as_tensor(other)
    na, nb = self.ndim, other.ndim
    n = max(na, nb)
    sa = (1,) * (n - na) + tuple(self.shape)
    sb = (1,) * (n - nb) + tuple(other.shape)
    a_shape, b_shape = [], []
    for x, y in zip(sa, sb):
        a_shape += [x, 1]
        b_shape += [1, y]
    prod = _mul(self.reshape(*a_shape), other.reshape(*b_shape))
    return _unsafe_view(prod, tuple(x * y for x, y in zip(sa, sb)))


# ------------------------------------------------------------------------------ triangles

def _triangle(name, np_fn, node):
    def fn(self, diagonal=0):
        if self._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        k = _int(diagonal, "diagonal")
        # past the matrix it keeps all or nothing; NumPy's int must not overflow on the way
        k = max(-self._data.shape[-2], min(self._data.shape[-1], k))
        out = wrap(np_fn(self._data, k))
        if recording(self):
            record(NODES[node], (self,), (out,), params=(k,))
        return out
    fn.__name__ = name
    fn.__doc__ = (f"The {'lower' if name == 'tril' else 'upper'} triangle of each matrix (the "
                  "last two dims), the rest zero: ``diagonal`` 0 keeps the main diagonal, "
                  "positive values diagonals above it, negative values stop below it.")
    return fn


tril = op("tril")(_triangle("tril", np.tril, "TrilBackward0"))
triu = op("triu")(_triangle("triu", np.triu, "TriuBackward0"))


def _triangle_(name, fn):
    def method(self, diagonal=0):
        if self._data.ndim < 2:
            raise RuntimeError(f"{name[:-1]}: input tensor must have at least 2 dimensions")
        return inplace(self, lambda t: fn(t, diagonal))
    method.__name__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``; returns self."
    return op(name, namespace=False)(method)


tril_ = _triangle_("tril_", tril)
triu_ = _triangle_("triu_", triu)


def _triangle_indices(name, np_fn):
    def fn(row, col, offset=0, dtype=None):
        row, col, offset = _int(row, "row"), _int(col, "col"), _int(offset, "offset")
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        dt = np.dtype(np.int64) if dtype is None else _dt.as_dtype(dtype).numpy
        if dt.kind not in "iu":
            raise RuntimeError(f'"{name}" not implemented for '
                               f"'{_dt.as_dtype(dtype).word}'")
        rows, cols = np_fn(row, offset, col)
        return wrap(np.stack([rows, cols]).astype(dt).reshape(2, -1))
    fn.__name__ = name
    fn.__doc__ = (f"The (row, column) indices of the {'lower' if name[:4] == 'tril' else 'upper'}"
                  " triangle of a ``row`` x ``col`` matrix (``offset`` as ``diagonal`` in "
                  f"``{name[:4]}``), as a 2 x N int64 tensor in row-major order. 0-based in "
                  "Python, 1-based in R (as R torch since mlverse/torch#1382).")
    return op(name, method=False, returns_index=True)(fn)


tril_indices = _triangle_indices("tril_indices", np.tril_indices)
triu_indices = _triangle_indices("triu_indices", np.triu_indices)


# ------------------------------------------------------------------------------ diagonals

@op("diag_embed", dims=("dim1", "dim2"))
def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (``dim1``, ``dim2``) planes have ``self``'s last dim on their
    ``offset`` diagonal, zeros elsewhere (one more dim than ``self``)."""
    x = self._data
    offset = _int(offset, "offset")
    nd = x.ndim + 1
    d1, d2 = normalize_dim(dim1, nd), normalize_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(offset)
    rest = iter(x.shape[:-1])
    shape = tuple(n if d in (d1, d2) else next(rest) for d in range(nd))
    z = np.zeros(shape, dtype=x.dtype)
    diagonal_view(z, offset, d1, d2)[...] = x
    out = wrap(z)
    if recording(self):
        record(NODES["DiagEmbedBackward0"], (self,), (out,), params=(offset, d1, d2))
    return out


@op("diag")
def diag(self, diagonal=0):
    """For a vector, the square matrix with it on the ``diagonal``-th diagonal; for a matrix,
    a copy of its ``diagonal``-th diagonal (0 the main one, positive above, negative below)."""
    x = self._data
    k = _int(diagonal, "diagonal")
    if x.ndim == 1:
        return diag_embed(self, k, 0, 1)
    if x.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D")
    out = wrap(diagonal_view(x, k, 0, 1).copy())
    if recording(self):
        record(NODES["DiagonalBackward0_copy"], (self,), (out,), params=(x.shape, k, 0, 1))
    return out


@op("trace")
def trace(self):
    """The sum of the main diagonal of a matrix (integers sum to int64)."""
    x = self._data
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype.kind == "b":
        raise RuntimeError("\"trace\" not implemented for 'Bool'")
    dt = np.int64 if x.dtype.kind in "iu" else x.dtype
    out = wrap(np.asarray(np.trace(x, dtype=dt)))
    if recording(self):
        record(NODES["TraceBackward0"], (self,), (out,), params=(x.shape,))
    return out


# ------------------------------------------------------------------------------ distances

_COMPUTE_MODES = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0,
                  "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


@op("cdist", method=False)
def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor; batch dims broadcast. p = 0 counts the differing
    coordinates, p = inf takes the largest difference. As libtorch, p = 2 goes through matrix
    products (``|a|^2 - 2 a.b + |b|^2``, then a view: grad_fn ViewBackward0 over
    EuclideanDistBackward0) when P or R exceeds 25, or always with ``compute_mode =
    "use_mm_for_euclid_dist"`` (R: 1); ``"donot_use_mm_for_euclid_dist"`` (R: 2) never does.
    That path cancels where points nearly coincide: its last float32 bits there depend on the
    BLAS's order of summation, as libtorch's own do."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    a, b = x1._data, x2._data
    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{t._data.ndim}D")
        if t._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_word(t)}")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                           f"X2: {b.shape[-1]}")
    p = float(p)
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_word(x1)} but found {_word(x2)}")
    mode = _COMPUTE_MODES.get(compute_mode, compute_mode)
    if mode not in (0, 1, 2):
        raise RuntimeError(f"{compute_mode} is not a valid value for compute_mode")
    if p == 2 and a.size and b.size and (mode == 1 or (mode == 0 and (
            a.shape[-2] > 25 or b.shape[-2] > 25))):
        return _cdist_mm(x1, x2)
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[:-2]}) must match the size of tensor "
                           f"b ({b.shape[:-2]}) at non-singleton dimensions") from None
    rows, n_r, m = a.shape[-2], b.shape[-2], a.shape[-1]
    block = max(1, _CDIST_BLOCK // max(1, int(np.prod(batch)) * n_r * m))
    data = np.concatenate([_distances(a[..., i:i + block, :], b, p)
                           for i in range(0, rows, block)] or [_distances(a, b, p)], -2)
    out = wrap(np.asarray(data, dtype=a.dtype))
    if recording(x1, x2):
        record(NODES["CdistBackward0"], (x1, x2), (out,), params=(p,))
    return out


def _distances(a, b, p):
    """The p-norm distances between the rows of ``a`` (..., P, M) and ``b`` (..., R, M)."""
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return np.sum(diff != 0, axis=-1).astype(a.dtype)
    if p == 1:
        return np.sum(diff, axis=-1)
    if p == 2:
        return np.sqrt(np.sum(diff * diff, axis=-1))
    if p == float("inf"):
        return np.max(diff, axis=-1, initial=0)
    return rounded.power(np.sum(rounded.power(diff, p), axis=-1), 1 / p)


def _cdist_mm(x1, x2):
    """libtorch's cdist_impl for p = 2 through matrix products: the batch dims expanded and
    flattened, ``_euclidean_dist``, then a view to the output shape."""
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    (r1, c), r2 = x1.shape[-2:], x2.shape[-2]
    if batch:
        n = int(np.prod(batch))
        x1 = x1.expand(*(batch + (r1, c))).reshape(n, r1, c)
        x2 = x2.expand(*(batch + (r2, c))).reshape(n, r2, c)
    a, b = x1._data, x2._data
    ones_a, ones_b = np.ones(a.shape[:-1] + (1,), a.dtype), np.ones(b.shape[:-1] + (1,), a.dtype)
    left = np.concatenate([a * a.dtype.type(-2), np.square(a).sum(-1, keepdims=True), ones_a], -1)
    right = np.concatenate([b, ones_b, np.square(b).sum(-1, keepdims=True)], -1)
    dist = wrap(np.sqrt(np.maximum(np.matmul(left, right.swapaxes(-1, -2)), 0)))
    if recording(x1, x2):
        record(NODES["EuclideanDistBackward0"], (x1, x2), (dist,))
    return dist.view(*(batch + (r1, r2)))
