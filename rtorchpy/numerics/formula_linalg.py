"""The matrix functions derivative formulas compute with on arrays (``F`` in a formula, the fast
path: NumPy, records nothing), mixed into ``ARRAY_OPS``. Their twins ``TensorLinalg``
(``ops/formula_linalg.py``) call the recorded linear-algebra ops themselves, so that under
``create_graph`` a formula's solve is a ``LinalgSolveExBackward0`` node, its SVD a
``LinalgSvdBackward0`` node, ... and the gradient can be differentiated again, as in libtorch,
whose formulas call the same ops.

Real matrices only: ``mH`` is ``mT``.
"""
from __future__ import annotations

import numpy as np

from . import linalg as lnp


class ArrayLinalg:
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
        return lnp.pinv_array(a)

    @staticmethod
    def isfinite(x):
        return np.isfinite(x)

    @staticmethod
    def zeros(shape, like):
        return np.zeros(shape, dtype=like.dtype)
