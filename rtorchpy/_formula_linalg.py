"""The matrix functions derivative formulas compute with: mixed into the two op namespaces of
``_formula_ops.py`` (``F`` in a formula). ``_ArrayLinalg`` is NumPy (the fast path, records
nothing); ``_TensorLinalg`` calls the recorded linear-algebra ops themselves, so that under
``create_graph`` a formula's solve is a ``LinalgSolveExBackward0`` node, its SVD a
``LinalgSvdBackward0`` node, ... and the gradient can be differentiated again, as in libtorch,
whose formulas call the same ops.

Real matrices only: ``mH`` is ``mT``.
"""
from __future__ import annotations

import numpy as np

from . import _linalg_np as lnp


class _ArrayLinalg:
    """NumPy versions (arrays in, arrays out)."""

    @staticmethod
    def solve(a, b, left=True):
        """``A^{-1} B`` (``left``) or ``B A^{-1}``; batch dims broadcast; a singular ``A``
        gives inf/NaN as libtorch's LU solve does, no error."""
        if left:
            return lnp.solve(a, b)
        return np.swapaxes(lnp.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)

    @staticmethod
    def solve_triangular(a, b, upper, left=True, unitriangular=False):
        return lnp.solve_triangular(a, b, upper, left, unitriangular)

    @staticmethod
    def cholesky_solve(b, u, upper):
        """``(U^T U)^{-1} B`` (upper) or ``(L L^T)^{-1} B``, only ``u``'s triangle read."""
        if upper:
            y = lnp.solve_triangular(np.swapaxes(u, -1, -2), b, False)
            return lnp.solve_triangular(u, y, True)
        y = lnp.solve_triangular(u, b, False)
        return lnp.solve_triangular(np.swapaxes(u, -1, -2), y, True)

    @staticmethod
    def triu(x, k=0):
        return np.triu(x, k)

    @staticmethod
    def tril(x, k=0):
        return np.tril(x, k)

    @staticmethod
    def eye_like(x):
        """The identity matrix of ``x``'s last dim and dtype."""
        return np.eye(x.shape[-1], dtype=x.dtype)

    @staticmethod
    def diag_embed(v):
        """A batch of vectors (..., n) as diagonal matrices (..., n, n)."""
        out = np.zeros(v.shape + v.shape[-1:], dtype=v.dtype)
        idx = np.arange(v.shape[-1])
        out[..., idx, idx] = v
        return out

    @staticmethod
    def svd(a, full_matrices=True):
        return np.linalg.svd(a, full_matrices=full_matrices)

    @staticmethod
    def det(a):
        return np.asarray(np.linalg.det(a))

    @staticmethod
    def pinv(a):
        from ._ops_linalg_decomp import pinv_array
        return pinv_array(a)

    @staticmethod
    def isfinite(x):
        return np.isfinite(x)

    @staticmethod
    def zeros(shape, like):
        return np.zeros(shape, dtype=like.dtype)


class _TensorLinalg:
    """The same, made of recorded ops (for create_graph)."""

    @staticmethod
    def solve(a, b, left=True):
        from ._ops_linalg_solve import linalg_solve
        return linalg_solve(a, b, left)

    @staticmethod
    def solve_triangular(a, b, upper, left=True, unitriangular=False):
        from ._ops_linalg_solve import linalg_solve_triangular
        return linalg_solve_triangular(a, b, upper, left, unitriangular)

    @staticmethod
    def cholesky_solve(b, u, upper):
        from ._ops_linalg_solve import cholesky_solve
        return cholesky_solve(b, u, upper)

    @staticmethod
    def triu(x, k=0):
        from . import _ops
        return _ops.where(_const(lnp.tri_mask(x.shape[-2], x.shape[-1], True, k)), x, 0.0)

    @staticmethod
    def tril(x, k=0):
        from . import _ops
        return _ops.where(_const(lnp.tri_mask(x.shape[-2], x.shape[-1], False, k)), x, 0.0)

    @staticmethod
    def eye_like(x):
        return _const(np.eye(x.shape[-1], dtype=x._data.dtype))

    @staticmethod
    def diag_embed(v):
        return v.unsqueeze(-1) * _const(np.eye(v.shape[-1], dtype=v._data.dtype))

    @staticmethod
    def svd(a, full_matrices=True):
        from ._ops_linalg_decomp import linalg_svd
        return linalg_svd(a, full_matrices)

    @staticmethod
    def det(a):
        from ._ops_linalg_solve import linalg_det
        return linalg_det(a)

    @staticmethod
    def pinv(a):
        from ._ops_linalg_decomp import linalg_pinv
        return linalg_pinv(a)

    @staticmethod
    def isfinite(x):
        return x.isfinite()

    @staticmethod
    def zeros(shape, like):
        return _const(np.zeros(shape, dtype=like._data.dtype))


def _const(a):
    from ._tensor import Tensor
    return Tensor._make(np.asarray(a))
