"""Matrix products: mm, matmul (batched, broadcasting), dot, mv, addmm, outer."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import STATE
from ..autograd.record import record
from ..autograd.rows import NODES
from ..autograd.views import gained_grad
from ..numerics.shape_errors import expand_error, shape_error
from ..tensor import Tensor
from .registry import as_tensor, op, recording, wrap

_MM_NODE = NODES["MmBackward0"]


def _check_float_or_same(a, b, name):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name}: expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.word.lower()} != {b.dtype.word.lower()}")


def _shape_error(name, a, b):
    sa = "x".join(map(str, a._data.shape))
    sb = "x".join(map(str, b._data.shape))
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")


@op("mm")
def mm(self, mat2):
    """Matrix product of two 2-d tensors."""
    if type(mat2) is not Tensor:
        mat2 = as_tensor(mat2)
    a, b = self._data, mat2._data
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {a.ndim}-D and {b.ndim}-D")
    if a.dtype != b.dtype:
        _check_float_or_same(self, mat2, "mm")
    if a.shape[1] != b.shape[0]:
        raise _shape_error("mm", self, mat2)
    out = Tensor._make(a @ b)  # 2-d @ 2-d: always an ndarray
    if STATE.grad_enabled and (self._requires_grad or mat2._requires_grad
                               or gained_grad(self, mat2)):
        record(_MM_NODE, (self, mat2), (out,))
    return out


@op("dot")
def dot(self, other):
    """Inner product of two 1-d tensors."""
    other = as_tensor(other)
    if self._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    if self._data.shape != other._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self._data.shape[0]}] "
                           f"and src [{other._data.shape[0]}] to have the same number of "
                           "elements, but got "
                           f"{self._data.shape[0]} and {other._data.shape[0]} elements "
                           "respectively")
    _check_float_or_same(self, other, "dot")
    out = wrap(np.asarray(np.dot(self._data, other._data)))
    if recording(self, other):
        record(NODES["DotBackward0"], (self, other), (out,))
    return out


@op("mv")
def mv(self, vec):
    """Matrix-vector product."""
    vec = as_tensor(vec)
    if self._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{self._data.ndim}, {vec._data.ndim}")
    if self._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self._data.shape[0]}), mat "
                           f"({self._data.shape[0]}x{self._data.shape[1]}), "
                           f"vec ({vec._data.shape[0]})")
    _check_float_or_same(self, vec, "mv")
    out = wrap(self._data @ vec._data)
    if recording(self, vec):
        record(NODES["MvBackward0"], (self, vec), (out,))
    return out


@op("matmul")
def matmul(self, other):
    """Matrix product with NumPy/libtorch rules: 1-d operands are vectors, extra leading dims
    are batches and broadcast."""
    other = as_tensor(other)
    a, b = self._data.ndim, other._data.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D "
                           f"and {b}D")
    if a == 1 and b == 1:
        return dot(self, other)
    if a == 2 and b == 1:
        return mv(self, other)
    if a == 2 and b == 2:
        return mm(self, other)
    if a == 1:  # a vector on the left acts as a 1-row matrix
        return matmul(self.unsqueeze(0), other).squeeze(-2)
    if b == 1:
        return matmul(self, other.unsqueeze(-1)).squeeze(-1)
    _check_float_or_same(self, other, "matmul")
    if self._data.shape[-1] != other._data.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{other._data.shape[0]}, {self._data.shape[-1]}] but got: "
                           f"[{other._data.shape[0]}, {other._data.shape[-2]}].")
    try:
        if b == 2:  # batches times one matrix: one BLAS product on the folded batch
            x = self._data
            data = np.matmul(x.reshape(-1, x.shape[-1]), other._data).reshape(
                x.shape[:-1] + (other._data.shape[-1],))
        else:
            data = np.matmul(self._data, other._data)
    except ValueError as e:  # the batch dims do not broadcast
        raise shape_error(e, self._data.shape[:-2], other._data.shape[:-2]) from None
    out = wrap(data)
    if recording(self, other):
        record(NODES["MatmulBackward0"], (self, other), (out,))
    return out


@op("addmm")
def addmm(self, mat1, mat2, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` (``self`` broadcasts)."""
    mat1, mat2 = as_tensor(mat1), as_tensor(mat2)
    if mat1._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError("addmm: mat1 and mat2 must be matrices")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise _shape_error("addmm", mat1, mat2)
    prod = mat1._data @ mat2._data
    bias = self._data
    if beta == 1 and alpha == 1 and bias.dtype == prod.dtype and (
            bias.shape == prod.shape or bias.shape == prod.shape[1:]):
        prod += bias  # the product is a fresh array: add the bias into it (no third array)
        data = prod
    else:
        if bias.shape != prod.shape:
            error = expand_error(prod.shape, bias.shape)  # libtorch expands self to the product
            if error is not None:
                raise error
        data = (bias * beta if beta != 1 else bias) + (prod * alpha if alpha != 1 else prod)
        data = np.asarray(data, dtype=np.result_type(prod.dtype, bias.dtype))
    out = wrap(data)
    if recording(self, mat1, mat2):
        record(NODES["AddmmBackward0"], (self, mat1, mat2), (out,), (beta, alpha))
    return out


@op("outer", aliases=("ger",))
def outer(self, vec2):
    """Outer product of two 1-d tensors."""
    vec2 = as_tensor(vec2)
    return self.unsqueeze(1) * vec2.unsqueeze(0)


