"""Linear systems and determinants: ``linalg_det``, ``linalg_slogdet``, ``torch_logdet``,
``linalg_inv``, ``linalg_inv_ex``, ``linalg_solve``, ``linalg_solve_triangular``,
``torch_cholesky_solve``, ``linalg_matrix_power``, ``linalg_multi_dot``, ``linalg_tensorinv``,
``linalg_tensorsolve`` (and ``linalg_eig``/``linalg_eigvals``, which need complex tensors).

Every function takes a batch of matrices ``(*, m, n)`` where libtorch does, computes with
NumPy's LAPACK (float32 stays float32) and records libtorch's node. Errors carry libtorch's text.
"""
from __future__ import annotations

import operator

import numpy as np

from ..autograd.record import record
from ..autograd.rows import NODES
from ..numerics import linalg as lnp
from ..numerics.args import int64
from ..numerics.formula_arrays import ARRAY_OPS
from ..numerics.linalg import c_array as _c
from ..numerics.shape_errors import broadcast_error
from ..tensor import Tensor
from .arith import where
from .linalg import matmul, mm
from .registry import as_tensor, op, recording, wrap
from .shape import _view_of, clone


def record_multi(node_name, inputs, outputs, params=()):
    """``record`` for a node with several outputs whose formula tells an unused output (None)
    from a zero gradient, as libtorch's do."""
    node = record(NODES[node_name], inputs, outputs, params)
    if node is not None:  # None: only forward AD's tangents were wanted (no input needs grad)
        node.out_meta = (None,) * len(outputs)
    return node


def _singular_error(name, info, batch_shape, what="inversion"):
    idx = lnp.first_failure(info)
    k = int(np.asarray(info)[idx])
    return RuntimeError(f"{name}: {lnp.batch_prefix(batch_shape, idx)}The diagonal element {k} is "
                        f"zero, the {what} could not be completed because the input matrix is "
                        "singular.")


# ---------------------------------------------------------------- determinants
@op("linalg_det", method=False)
def linalg_det(A):
    """The determinant of each square matrix of ``A`` (shape ``(*, n, n)``)."""
    A = as_tensor(A)
    lnp.check_square(A, "linalg.det")
    lnp.check_float(A, "linalg.det", "lu_cpu")
    out = wrap(np.asarray(np.linalg.det(A._data), dtype=A._data.dtype))
    if recording(A):
        record(NODES["LinalgDetBackward0"], (A,), (out,))
    return out


@op("linalg_slogdet", method=False)
def linalg_slogdet(A):
    """``(sign, logabsdet)``: the sign of each determinant and the log of its absolute value
    (``(0, -inf)`` for a singular matrix; the determinant is ``sign * exp(logabsdet)``)."""
    A = as_tensor(A)
    lnp.check_square(A, "linalg.slogdet")
    lnp.check_float(A, "linalg.slogdet", "lu_cpu")
    a = A._data
    sign, logabs = np.linalg.slogdet(a)
    sign, logabs = np.asarray(sign, dtype=a.dtype), np.asarray(logabs, dtype=a.dtype)
    if a.size and np.any(sign == 0):  # libtorch: the signed zero of the LU pivots' product
        lu, _, perm_sign, _ = lnp.lu_factor(a)
        pivots = np.sign(np.diagonal(lu, 0, -2, -1))
        sign = np.where(sign == 0, perm_sign * np.prod(pivots, axis=-1), sign).astype(a.dtype)
    s, la = wrap(np.asarray(sign)), wrap(np.asarray(logabs))
    if recording(A):
        record_multi("LinalgSlogdetBackward0", (A,), (s, la))
    return s, la


@op("logdet")
def logdet(self):
    """log(det(self)): NaN where the determinant is negative, -inf where it is 0 (through
    ``linalg_slogdet``, as libtorch: grad_fn WhereBackward0)."""
    self = as_tensor(self)
    lnp.check_square(self, "logdet")
    lnp.check_float(self, "logdet", "lu_cpu")
    sign, logabs = linalg_slogdet(self)
    return where(sign == -1.0, float("nan"), logabs)


# ---------------------------------------------------------------- inverses
def _inverse(A):
    """(inverse, info): NumPy's inverse, or for singular matrices LAPACK's getrf + getrs
    written out (libtorch's inf/NaN and the index of the zero pivot)."""
    a = A._data
    batch = a.shape[:-2]
    try:
        return np.linalg.inv(a), np.zeros(batch, dtype=np.int32)
    except np.linalg.LinAlgError:
        lu, perm, _, info = lnp.lu_factor(a)
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        return lnp.lu_solve(lu, perm, eye), info


@op("linalg_inv", method=False)
def linalg_inv(A):
    """The inverse of each square matrix of ``A``; a singular one is an error."""
    return _inv(as_tensor(A), "linalg.inv")


def _inv(A, name):
    lnp.check_square(A, "linalg.inv")
    lnp.check_float(A, "linalg.inv", "lu_cpu")
    inv, info = _inverse(A)
    if np.any(info):
        raise _singular_error(name, info, A._data.shape[:-2])
    out = wrap(inv)
    if recording(A):
        record(NODES["LinalgInvExBackward0"], (A,), (out,))
    return out


@op("linalg_inv_ex", method=False)
def linalg_inv_ex(A, check_errors=False):
    """``(inverse, info)``: info (int32, one per matrix) is 0, or the 1-based index of the zero
    pivot of a singular matrix, whose inverse is then inf/NaN. ``check_errors=True`` raises."""
    A = as_tensor(A)
    lnp.check_square(A, "linalg.inv_ex")
    lnp.check_float(A, "linalg.inv_ex", "lu_cpu")
    inv, info = _inverse(A)
    if check_errors and np.any(info):
        raise _singular_error("linalg.inv_ex", info, A._data.shape[:-2])
    out = wrap(inv)
    if recording(A):
        record(NODES["LinalgInvExBackward0"], (A,), (out,))
    return out, wrap(np.asarray(info))


# ---------------------------------------------------------------- solvers
def is_vector_rhs(A, B):
    """libtorch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s)."""
    return B.ndim == 1 or (A.ndim - 1 == B.ndim and B.shape == A.shape[:-1])


def _check_batch(a_batch, b_batch):
    try:
        return np.broadcast_shapes(a_batch, b_batch)
    except ValueError:
        raise broadcast_error(b_batch, a_batch) from None


@op("linalg_solve", method=False)
def linalg_solve(A, B, left=True):
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``) for square ``A``. ``B``
    is a matrix or a vector (``(*, n)``); batch dims broadcast. A singular ``A`` is an error."""
    A, B = as_tensor(A), as_tensor(B)
    name = "linalg.solve"
    lnp.check_float(A, name, "lu_cpu")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.word} and B of type {B.dtype.word} instead")
    a, b = A._data, B._data
    vector = a.ndim >= 1 and is_vector_rhs(a, b)
    bm = b[..., None] if vector else b
    lnp.check_square(A, name)
    if bm.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = a.shape[-1]
    if (bm.shape[-2] if left else bm.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({a.shape[-2]}x{n} and {bm.shape[-2]}x{bm.shape[-1]})")
    batch = _check_batch(a.shape[:-2], bm.shape[:-2])
    a_, b_ = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(bm, batch + bm.shape[-2:])
    if not left:
        a_, b_ = np.swapaxes(a_, -1, -2), np.swapaxes(b_, -1, -2)
    try:
        x = np.linalg.solve(a_, b_) if a_.size else np.zeros(b_.shape, a.dtype)
    except np.linalg.LinAlgError:
        _, _, _, info = lnp.lu_factor(a_)
        idx = lnp.first_failure(info)
        raise RuntimeError(f"torch.linalg.solve: {lnp.batch_prefix(batch, idx)}The solver failed "
                           "because the input matrix is singular.") from None
    if not left:
        x = np.swapaxes(x, -1, -2)
    out = wrap(_c(x[..., 0] if vector else x))
    if recording(A, B):
        record(NODES["LinalgSolveExBackward0"], (A, B), (out,), (left, vector))
    return out


@op("linalg_solve_triangular", method=False)
def linalg_solve_triangular(A, B, upper, left=True, unitriangular=False):
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``) reading only the upper
    (``upper=True``) or lower triangle of ``A`` (its diagonal taken as ones when
    ``unitriangular``). ``B`` must be a matrix; batch dims broadcast. A zero on the diagonal
    gives inf/NaN, as libtorch (no error)."""
    A, B = as_tensor(A), as_tensor(B)
    name = "linalg.solve_triangular"
    lnp.check_square(A, name)
    lnp.check_matrix(B, name, "B")
    a, b = A._data, B._data
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({a.shape[-2]}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    dt = np.result_type(a.dtype, b.dtype)
    if dt.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{lnp.type_word(dt)}")
    _check_batch(a.shape[:-2], b.shape[:-2])
    x = lnp.solve_triangular(a.astype(dt, copy=False), b.astype(dt, copy=False), bool(upper),
                             bool(left), bool(unitriangular))
    out = wrap(_c(x))
    if recording(A, B):
        record(NODES["LinalgSolveTriangularBackward0"], (A, B), (out,),
               (bool(upper), bool(left), bool(unitriangular)))
    return out


@op("cholesky_solve")
def cholesky_solve(self, input2, upper=False):
    """The solution ``X`` of ``(L L^T) X = self`` for a Cholesky factor ``L = input2`` (lower;
    ``upper=True``: ``(U^T U) X = self``); only that triangle of ``input2`` is read."""
    self, input2 = as_tensor(self), as_tensor(input2)
    b, u = self._data, input2._data
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if u.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {u.ndim} dimensions "
                           "instead")
    if b.dtype != u.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{self.dtype.word} and A of type {input2.dtype.word} instead.")
    if u.shape[-1] != u.shape[-2] or u.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{u.shape[-2]} by {u.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    lnp.check_float(self, "cholesky_solve")
    _check_batch(b.shape[:-2], u.shape[:-2])
    out = wrap(_c(ARRAY_OPS.cholesky_solve(b, u, bool(upper))))
    if recording(self, input2):
        record(NODES["CholeskySolveBackward0"], (self, input2), (out,), (bool(upper),))
    return out


# ---------------------------------------------------------------- products
def _int_power(n):
    if isinstance(n, Tensor):
        n = n.item()
    if isinstance(n, float) and n.is_integer():  # an R number
        n = int(n)
    try:  # (int64's range, as libtorch: binary powering then takes at most 63 squarings)
        return int64(operator.index(n), "n", "linalg_matrix_power")
    except TypeError:
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}") from None


def _mm(a, b):
    return mm(a, b) if a.ndim == 2 and b.ndim == 2 else matmul(a, b)


@op("linalg_matrix_power", method=False)
def linalg_matrix_power(A, n):
    """``A`` to the integer power ``n`` (matrix products, by binary powering as libtorch); 0 is
    the identity, a negative ``n`` a power of the inverse."""
    A = as_tensor(A)
    n = _int_power(n)
    lnp.check_square(A, "linalg.matrix_power")
    if n == 0:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A._data.shape)
        return clone(A).copy_(wrap(np.array(eye)))
    if n == 1:
        return clone(A)
    if n == -1:
        return linalg_inv(A)
    a = linalg_inv(A) if n < 0 else A
    n = abs(n)
    if n == 2:
        return _mm(a, a)
    if n == 3:
        return _mm(_mm(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else _mm(z, z)
        if bit:
            result = z if result is None else _mm(result, z)
    return result


def _chain_order(shapes):
    """The optimal parenthesization of a matrix chain (libtorch's matrix_chain_order)."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j], s[i][j] = q, k
    return s


@op("linalg_multi_dot", method=False)
def linalg_multi_dot(tensors):
    """The product of two or more matrices in the cheapest order; the first may be a row
    vector, the last a column vector (1-d), as in libtorch."""
    ts = [as_tensor(t) for t in tensors]
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = ts[0].ndim, ts[-1].ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    for i in range(1, n - 1):
        if ts[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].ndim}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    dt = ts[0]._data.dtype
    for i, t in enumerate(ts[1:], 1):
        if t._data.dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {ts[0].dtype.word.lower()} and tensor {i} "
                               f"{t.dtype.word.lower()}")
    if first == 1:
        ts[0] = ts[0].unsqueeze(0)
    if last == 1:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i in range(n - 1):
        if ts[i].shape[-1] != ts[i + 1].shape[0]:
            sa, sb = list(ts[i].shape), list(ts[i + 1].shape)
            if i == 0 and first == 1:
                sa = sa[1:]
            if i + 1 == n - 1 and last == 1:
                sb = sb[:1]
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {sa} and {sb} "
                               "cannot be multiplied")
    if n == 2:
        result = mm(ts[0], ts[1])
    elif n == 3:
        a, b = ts[0].shape[0], ts[1].shape[0]
        c, d = ts[2].shape[0], ts[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            result = mm(ts[0], mm(ts[1], ts[2]))
        else:
            result = mm(mm(ts[0], ts[1]), ts[2])
    else:
        order = _chain_order([t.shape for t in ts])

        def chain(i, j):
            if i == j:
                return ts[i]
            return mm(chain(i, order[i][j]), chain(order[i][j] + 1, j))
        result = chain(0, n - 1)
    if first == 1 and last == 1:
        shape = ()
    elif first == 1:
        shape = (result.shape[1],)
    elif last == 1:
        shape = (result.shape[0],)
    else:
        shape = tuple(result.shape)
    return result.view(shape)


# ---------------------------------------------------------------- tensor inverses
def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


@op("linalg_tensorinv", method=False, dims=("ind",))
def linalg_tensorinv(A, ind=2):
    """The inverse of ``A`` for ``tensordot`` over its first ``ind`` dims: ``A`` reshaped to a
    square matrix (``prod(shape[:ind])`` rows), inverted, reshaped to
    ``shape[ind:] + shape[:ind]``."""
    A = as_tensor(A)
    ind = _int_power(ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    end, start = shape[ind:], shape[:ind]
    pe, ps = _prod(end), _prod(start)
    if pe != ps:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {pe} != {ps}")
    inv = _inv(A.reshape(pe, pe), "inv")
    new = end + start
    return _view_of(inv, inv._data.reshape(new), NODES["ReshapeAliasBackward0"],
                    (inv._data.shape,))


@op("linalg_tensorsolve", method=False, dims=("dims",))
def linalg_tensorsolve(A, B, dims=None):
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``; ``dims`` (optional) are dims of ``A``
    moved to the end first."""
    A, B = as_tensor(A), as_tensor(B)
    a = A
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        nd = A.ndim
        src = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in src]
        a = A.permute(*(rest + src))
    shape = tuple(a.shape)
    result_shape = shape[B.ndim:]
    rp, op_ = _prod(result_shape), _prod(tuple(B.shape))
    if rp != op_:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {rp} != {op_}")
    x = linalg_solve(a.reshape(rp, rp), B.flatten())
    return x.reshape(result_shape)


# ---------------------------------------------------------------- complex results
_COMPLEX = ("{name}: the eigenvalues and eigenvectors of a general real matrix may be complex, "
            "and rtorchpy's linear algebra has no complex results yet. For a symmetric matrix use "
            "linalg_eigh or "
            "linalg_eigvalsh; otherwise compute it with another library.")


@op("linalg_eig", method=False)
def linalg_eig(A):
    """Not available yet: its results are complex, and rtorchpy's complex tensors (made by the
    Fourier transforms) do not reach linear algebra (raises; for symmetric matrices use
    ``linalg_eigh``)."""
    raise RuntimeError(_COMPLEX.format(name="linalg_eig"))


@op("linalg_eigvals", method=False)
def linalg_eigvals(A):
    """Not available yet: its results are complex, and rtorchpy's complex tensors (made by the
    Fourier transforms) do not reach linear algebra (raises; for symmetric matrices use
    ``linalg_eigvalsh``)."""
    raise RuntimeError(_COMPLEX.format(name="linalg_eigvals"))
