"""The ``linalg_*`` cases that tests/test_linalg.py checks against PyTorch, and that
tests/record_linalg.py runs in PyTorch to record its values for machines without it
(tests/fixtures/linalg_torch.json).

A case is a function of a library namespace (``RT`` or ``torch_namespace()``) and the inputs (as
tensors of that library) returning a tuple of tensors; inputs are float64 arrays drawn from a
fixed seed. Decompositions return what does not depend on the sign or rotation of their
vectors (``v * v``, ``u @ vh``, ``v diag(w) v^T``), which LAPACK implementations choose
differently: those are the values and gradients that libtorch and rtorchpy must agree on.
"""
from __future__ import annotations

import math

import numpy as np

import rtorchpy as rt


class RT:
    """rtorchpy under the neutral names the cases use."""
    L = rt  # linalg_<name>
    prefix = "linalg_"
    logdet = staticmethod(rt.torch_logdet)
    cholesky_solve = staticmethod(rt.torch_cholesky_solve)
    matmul = staticmethod(rt.torch_matmul)
    tensor = staticmethod(lambda a: rt.torch_tensor(np.asarray(a), dtype=rt.torch_float64()))


def torch_namespace():
    import torch

    class TH:
        L = torch.linalg
        prefix = ""
        logdet = staticmethod(torch.logdet)
        cholesky_solve = staticmethod(torch.cholesky_solve)
        matmul = staticmethod(torch.matmul)
        tensor = staticmethod(lambda a: torch.tensor(np.asarray(a), dtype=torch.float64))
    return TH


def fn(lib, name):
    return getattr(lib.L, lib.prefix + name)


# ---------------------------------------------------------------- inputs
def _rng(seed):
    return np.random.default_rng(seed)


def wellcond(seed, *shape):
    n = shape[-1]
    return _rng(seed).uniform(-1, 1, shape) + n * np.eye(n)


def spd(seed, *shape):
    x = _rng(seed).uniform(-1, 1, shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1]) + np.diag(
        np.arange(shape[-1]) * 0.7)


def anyv(seed, *shape):
    return _rng(seed).uniform(-2, 2, shape)


def distinct_abs(seed, *shape):
    n = int(np.prod(shape))
    r = _rng(seed)
    v = (r.permutation(n) + 1) * 0.3 + r.uniform(-0.05, 0.05, n)
    return (v * r.choice([-1.0, 1.0], n)).reshape(shape)


def _sym(a):
    return (a + a.mT) * 0.5


def _eigh_invariants(lib, a, uplo="L"):
    w, v = fn(lib, "eigh")(_sym(a), UPLO=uplo)
    return w, v * v, lib.matmul(v * w.unsqueeze(-2), v.mT)


def _svd_invariants(lib, a, full):
    u, s, vh = fn(lib, "svd")(a, full_matrices=full)
    k = s.shape[-1]
    u, vh = u[..., :, :k], vh[..., :k, :]
    return s, u * u, vh * vh, lib.matmul(u, vh)


def _one(x):
    return x if isinstance(x, tuple) else (x,)


# name -> (function of (lib, *tensors) returning a tuple of tensors, input arrays)
CASES = {
    "det": (lambda L, a: _one(fn(L, "det")(a)), [wellcond(1, 3, 3)]),
    "det batched": (lambda L, a: _one(fn(L, "det")(a)), [wellcond(2, 2, 3, 3)]),
    "det 1x1": (lambda L, a: _one(fn(L, "det")(a)), [wellcond(3, 1, 1)]),
    "slogdet": (lambda L, a: tuple(fn(L, "slogdet")(a)), [wellcond(4, 2, 3, 3) * -1]),
    "logdet": (lambda L, a: _one(L.logdet(a)), [spd(5, 2, 3, 3)]),
    "inv": (lambda L, a: _one(fn(L, "inv")(a)), [wellcond(6, 2, 3, 3)]),
    "inv_ex": (lambda L, a: tuple(fn(L, "inv_ex")(a)), [wellcond(7, 3, 3)]),
    "solve": (lambda L, a, b: _one(fn(L, "solve")(a, b)), [wellcond(8, 2, 3, 3), anyv(9, 2, 3, 2)]),
    "solve vector": (lambda L, a, b: _one(fn(L, "solve")(a, b)), [wellcond(10, 2, 3, 3),
                                                                 anyv(11, 3)]),
    "solve batch of vectors": (lambda L, a, b: _one(fn(L, "solve")(a, b)),
                               [wellcond(12, 2, 3, 3), anyv(13, 2, 3)]),
    "solve broadcast": (lambda L, a, b: _one(fn(L, "solve")(a, b)),
                        [wellcond(14, 2, 1, 3, 3), anyv(15, 4, 3, 2)]),
    "solve left=False": (lambda L, a, b: _one(fn(L, "solve")(a, b, left=False)),
                         [wellcond(16, 3, 3), anyv(17, 2, 3)]),
    "solve_triangular upper": (
        lambda L, a, b: _one(fn(L, "solve_triangular")(a, b, upper=True)),
        [wellcond(18, 2, 3, 3), anyv(19, 2, 3, 2)]),
    "solve_triangular lower right unit": (
        lambda L, a, b: _one(fn(L, "solve_triangular")(a, b, upper=False, left=False,
                                                       unitriangular=True)),
        [wellcond(20, 3, 3), anyv(21, 2, 3)]),
    "cholesky": (lambda L, a: _one(fn(L, "cholesky")(_sym(a))), [spd(22, 2, 3, 3)]),
    "cholesky upper": (lambda L, a: _one(fn(L, "cholesky")(_sym(a), upper=True)),
                       [spd(23, 3, 3)]),
    "cholesky_ex": (lambda L, a: tuple(fn(L, "cholesky_ex")(_sym(a))), [spd(24, 3, 3)]),
    "cholesky_solve": (lambda L, b, u: _one(L.cholesky_solve(b, u)),
                       [anyv(25, 2, 3, 2), np.linalg.cholesky(spd(26, 2, 3, 3))]),
    "cholesky_solve upper": (
        lambda L, b, u: _one(L.cholesky_solve(b, u, True)),
        [anyv(27, 3, 2), np.linalg.cholesky(spd(28, 3, 3)).T.copy()]),
    "qr reduced tall": (lambda L, a: tuple(fn(L, "qr")(a)), [anyv(29, 2, 4, 3)]),
    "qr reduced wide": (lambda L, a: tuple(fn(L, "qr")(a)), [anyv(30, 3, 4)]),
    "qr complete": (lambda L, a: tuple(fn(L, "qr")(a, mode="complete")), [anyv(31, 2, 3)]),
    "qr r": (lambda L, a: (fn(L, "qr")(a, mode="r")[1],), [anyv(32, 4, 3)]),
    "eigh": (lambda L, a: _eigh_invariants(L, a), [spd(33, 2, 3, 3)]),
    "eigh UPLO=U": (lambda L, a: _eigh_invariants(L, a, "U"), [spd(34, 3, 3)]),
    "eigvalsh": (lambda L, a: _one(fn(L, "eigvalsh")(_sym(a))), [spd(35, 2, 3, 3)]),
    "svd square": (lambda L, a: _svd_invariants(L, a, True), [anyv(36, 2, 3, 3)]),
    "svd tall full": (lambda L, a: _svd_invariants(L, a, True), [anyv(37, 4, 3)]),
    "svd wide reduced": (lambda L, a: _svd_invariants(L, a, False), [anyv(38, 2, 2, 4)]),
    "svdvals": (lambda L, a: _one(fn(L, "svdvals")(a)), [anyv(39, 2, 4, 3)]),
    "vector_norm": (lambda L, a: _one(fn(L, "vector_norm")(a)), [anyv(40, 2, 3, 4)]),
    "vector_norm ord=3 dim": (lambda L, a: _one(fn(L, "vector_norm")(a, 3, dim=(0, 2))),
                              [anyv(41, 2, 3, 4)]),
    "vector_norm ord=inf keepdim": (
        lambda L, a: _one(fn(L, "vector_norm")(a, math.inf, dim=1, keepdim=True)),
        [distinct_abs(42, 2, 3, 4)]),
    "vector_norm ord=-inf": (lambda L, a: _one(fn(L, "vector_norm")(a, -math.inf)),
                             [distinct_abs(43, 3, 4)]),
    "vector_norm ord=0.5": (lambda L, a: _one(fn(L, "vector_norm")(a, 0.5, dim=-1)),
                            [distinct_abs(44, 3, 4)]),
    "matrix_norm fro": (lambda L, a: _one(fn(L, "matrix_norm")(a)), [anyv(45, 2, 3, 4)]),
    "matrix_norm nuc": (lambda L, a: _one(fn(L, "matrix_norm")(a, "nuc")), [anyv(46, 2, 3, 4)]),
    "matrix_norm 2": (lambda L, a: _one(fn(L, "matrix_norm")(a, 2)), [anyv(47, 2, 3, 4)]),
    "matrix_norm -2 dims keepdim": (
        lambda L, a: _one(fn(L, "matrix_norm")(a, -2, dim=(2, 0), keepdim=True)),
        [anyv(48, 2, 3, 4)]),
    "matrix_norm 1": (lambda L, a: _one(fn(L, "matrix_norm")(a, 1)), [distinct_abs(49, 2, 3, 4)]),
    "matrix_norm -inf": (lambda L, a: _one(fn(L, "matrix_norm")(a, -math.inf)),
                         [distinct_abs(50, 2, 3, 4)]),
    "norm": (lambda L, a: _one(fn(L, "norm")(a)), [anyv(51, 2, 3, 4)]),
    "norm matrix ord=inf": (lambda L, a: _one(fn(L, "norm")(a, math.inf)),
                            [distinct_abs(52, 3, 4)]),
    "norm vector ord=3 dim": (lambda L, a: _one(fn(L, "norm")(a, 3, dim=1)), [anyv(53, 2, 3, 4)]),
    "cond": (lambda L, a: _one(fn(L, "cond")(a)), [wellcond(54, 2, 3, 3)]),
    "cond -2 rectangular": (lambda L, a: _one(fn(L, "cond")(a, -2)), [anyv(55, 3, 4)]),
    "cond nuc": (lambda L, a: _one(fn(L, "cond")(a, "nuc")), [wellcond(56, 3, 3)]),
    "pinv": (lambda L, a: _one(fn(L, "pinv")(a)), [anyv(57, 2, 3, 4)]),
    "pinv hermitian": (lambda L, a: _one(fn(L, "pinv")(_sym(a), hermitian=True)),
                       [spd(58, 3, 3)]),
    "lstsq": (lambda L, a, b: tuple(fn(L, "lstsq")(a, b)[:2]),
              [anyv(59, 2, 4, 3), anyv(60, 2, 4, 2)]),
    "lstsq gelsd vector": (lambda L, a, b: tuple(fn(L, "lstsq")(a, b, driver="gelsd")),
                           [anyv(61, 4, 3), anyv(62, 4)]),
    "lstsq gels wide": (lambda L, a, b: tuple(fn(L, "lstsq")(a, b, driver="gels")[:2]),
                        [anyv(63, 2, 3) + np.eye(2, 3), anyv(64, 2, 2)]),
    "matrix_power 0": (lambda L, a: _one(fn(L, "matrix_power")(a, 0)), [wellcond(65, 3, 3)]),
    "matrix_power 1": (lambda L, a: _one(fn(L, "matrix_power")(a, 1)), [wellcond(66, 3, 3)]),
    "matrix_power 5": (lambda L, a: _one(fn(L, "matrix_power")(a, 5)), [wellcond(67, 3, 3) / 3]),
    "matrix_power -1": (lambda L, a: _one(fn(L, "matrix_power")(a, -1)), [wellcond(68, 3, 3)]),
    "matrix_power -3": (lambda L, a: _one(fn(L, "matrix_power")(a, -3)), [wellcond(69, 3, 3)]),
    "multi_dot": (lambda L, a, b, c: _one(fn(L, "multi_dot")([a, b, c])),
                  [anyv(70, 3, 3), anyv(71, 3, 3), anyv(72, 3, 2)]),
    "multi_dot vectors": (lambda L, a, b, c, d: _one(fn(L, "multi_dot")([a, b, c, d])),
                          [anyv(73, 3), anyv(74, 3, 5), anyv(75, 5, 2), anyv(76, 2)]),
    "tensorinv": (lambda L, a: _one(fn(L, "tensorinv")(a, ind=2)),
                  [wellcond(77, 6, 6).reshape(2, 3, 3, 2)]),
    "tensorsolve": (lambda L, a, b: _one(fn(L, "tensorsolve")(a, b)),
                    [wellcond(78, 6, 6).reshape(2, 3, 6), anyv(79, 2, 3)]),
    "tensorsolve dims": (lambda L, a, b: _one(fn(L, "tensorsolve")(a, b, dims=(0, 2))),
                         [wellcond(80, 6, 6).reshape(2, 3, 3, 2), anyv(81, 3, 2)]),
    "householder_product": (lambda L, a, t: _one(fn(L, "householder_product")(a, t)),
                            [anyv(82, 2, 4, 3), anyv(83, 2, 2)]),
    "householder_product k=n": (lambda L, a, t: _one(fn(L, "householder_product")(a, t)),
                                [anyv(84, 3, 3), anyv(85, 3) * 0.5]),
}

# Outputs that are not differentiable in libtorch (int results) are compared but not given a
# cotangent; cases whose backward libtorch refuses are left out of the gradient checks.
NO_GRADIENT = {"qr r"}


def cotangents(outputs, seed=1000):
    """One fixed cotangent per float output (as arrays), for the vector-Jacobian products."""
    r = np.random.default_rng(seed)
    return [r.uniform(-1, 1, tuple(o.shape)) if _is_float(o) else None for o in outputs]


def _is_float(t):
    return getattr(t.dtype, "is_floating_point", False)
