"""The matrix functions derivative formulas compute with under ``create_graph``, mixed into
``TENSOR_OPS``: the recorded linear-algebra ops themselves, so that a formula's solve is a
``LinalgSolveExBackward0`` node, its SVD a ``LinalgSvdBackward0`` node, ... and the gradient can
be differentiated again, as in libtorch, whose formulas call the same ops. (On arrays:
``numerics/formula_linalg.py``.) Real matrices only: ``mH`` is ``mT``.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .linalg_decomp import linalg_pinv, linalg_svd
from .linalg_solve import cholesky_solve, linalg_det, linalg_solve, linalg_solve_triangular


class TensorLinalg:
    """The same, made of recorded ops (for create_graph)."""

    @staticmethod
    def solve(a, b, left=True):
        return linalg_solve(a, b, left)

    @staticmethod
    def solve_triangular(a, b, upper, left=True, unitriangular=False):
        return linalg_solve_triangular(a, b, upper, left, unitriangular)

    @staticmethod
    def cholesky_solve(b, u, upper):
        return cholesky_solve(b, u, upper)

    @staticmethod
    def eye_like(x):
        return _const(np.eye(x.shape[-1], dtype=x._data.dtype))

    @staticmethod
    def diag_embed(v):
        return v.unsqueeze(-1) * _const(np.eye(v.shape[-1], dtype=v._data.dtype))

    @staticmethod
    def svd(a, full_matrices=True):
        return linalg_svd(a, full_matrices)

    @staticmethod
    def det(a):
        return linalg_det(a)

    @staticmethod
    def pinv(a):
        return linalg_pinv(a)

    @staticmethod
    def isfinite(x):
        return x.isfinite()

    @staticmethod
    def zeros(shape, like):
        return _const(np.zeros(shape, dtype=like._data.dtype))


def _const(a):
    return Tensor._make(np.asarray(a))
