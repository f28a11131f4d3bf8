"""Forward cases of the matrix, shape and sorting ops (``rtorchpy/ops/matrix.py``, ``sorting.py``)
against NumPy, for ``tests/test_ops.py``'s table of every registered op (added there with
:func:`forward_cases`)."""
from __future__ import annotations

import numpy as np


def _kron(a, b):
    return np.kron(a, b)


def _stable(a, axis=-1, descending=False):
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    return (a.shape[axis] - 1) - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"),
                                         axis)


def _diag_embed(v, offset=0):
    n = v.shape[-1] + abs(offset)
    out = np.zeros(v.shape[:-1] + (n, n), v.dtype)
    for i in range(v.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = v[..., i]
    return out


def forward_cases(Case, Raw, inplace, M, A, D, I, B, N):
    f32, f64, i64 = np.float32, np.float64, np.int64
    S = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, 0.5, -1.0, 4.0], [2.0, 2.0, 2.0, 2.0]], f32)
    Z = np.array([[1.5, 0.0, 2.0, 3.0], [2.0, -1.0, 0.5, 0.0], [0.0, 1.0, 2.0, 3.0]], f32)
    A2 = A.transpose(0, 2, 1).copy()  # (2, 4, 3)
    order = _stable(S, 1)
    order_desc0 = _stable(S, 0, True)

    def tri(fn, x, k=0):
        return fn(x, k).astype(x.dtype)

    return {
        "bmm": [Case(A, A2, expected=np.matmul(A, A2)),
                Case(A.astype(f64), A2.astype(f64),
                     expected=np.matmul(A.astype(f64), A2.astype(f64)))],
        "einsum": [Case("ij,jk->ik", M, N, expected=M @ N, method=False),
                   Case("ii->i", M[:3, :3], expected=np.diagonal(M[:3, :3]).copy(),
                        method=False),
                   Case("...ij->...ji", A, expected=A.swapaxes(-1, -2), method=False),
                   Case("ij,j", I, I[0], expected=I @ I[0], method=False)],
        "tensordot": [Case(M, N, 1, expected=np.tensordot(M, N, 1), method=False),
                      Case(A, A2, dims=([1, 2], [2, 1]),
                           expected=np.tensordot(A, A2, ([1, 2], [2, 1])), method=False),
                      Case(M, M, expected=np.asarray(np.tensordot(M, M, 2), f32), method=False)],
        "kron": [Case(M[:2, :2], N[:2], expected=_kron(M[:2, :2], N[:2])),
                 Case(I[0, :2], I[:2, :2], expected=_kron(I[0, :2], I[:2, :2]))],
        "tril": [Case(M, expected=tri(np.tril, M)), Case(A, 1, expected=tri(np.tril, A, 1)),
                 Case(I, diagonal=-1, expected=tri(np.tril, I, -1))],
        "triu": [Case(M, expected=tri(np.triu, M)), Case(A, -1, expected=tri(np.triu, A, -1)),
                 Case(B, 1, expected=np.triu(B, 1))],
        "tril_": [Case(M.copy(), expected=inplace(np.tril(M))),
                  Case(A.copy(), -1, expected=inplace(np.tril(A, -1)))],
        "triu_": [Case(M.copy(), 2, expected=inplace(np.triu(M, 2))),
                  Case(I.copy(), expected=inplace(np.triu(I)))],
        "tril_indices": [Case(3, 4, expected=np.array(np.tril_indices(3, 0, 4)), method=False),
                         Case(4, 3, -1, expected=np.array(np.tril_indices(4, -1, 3)),
                              method=False)],
        "triu_indices": [Case(3, 4, 1, expected=np.array(np.triu_indices(3, 1, 4)), method=False),
                         Case(2, 2, expected=np.array(np.triu_indices(2, 0, 2)), method=False)],
        "diag": [Case(M[0], expected=np.diag(M[0])), Case(M[0], 2, expected=np.diag(M[0], 2)),
                 Case(M, expected=np.diag(M).copy()), Case(M, -1, expected=np.diag(M, -1).copy())],
        "diag_embed": [Case(M, expected=_diag_embed(M)),
                       Case(M, 1, expected=_diag_embed(M, 1)),
                       Case(M[0], offset=-1, dim1=1, dim2=0,
                            expected=_diag_embed(M[0], -1).T.copy())],
        "trace": [Case(M, expected=np.asarray(np.trace(M), f32)),
                  Case(I, expected=np.asarray(np.trace(I), i64))],
        "cdist": [Case(M, N.T[:, :4].copy(), method=False, expected=np.sqrt(
                      ((M[:, None, :] - N.T[None, :, :4]) ** 2).sum(-1)).astype(f32)),
                  Case(D, D[:2], 1.0, method=False,
                       expected=np.abs(D[:, None] - D[None, :2]).sum(-1)),
                  Case(D, D[:2], p=np.inf, method=False,
                       expected=np.abs(D[:, None] - D[None, :2]).max(-1))],
        "repeat_interleave": [Case(M, 2, expected=np.repeat(M.reshape(-1), 2)),
                              Case(M, 2, dim=1, expected=np.repeat(M, 2, 1)),
                              Case(M, np.array([1, 0, 2]), 0,
                                   expected=np.repeat(M, [1, 0, 2], 0))],
        "tile": [Case(M, (2,), expected=np.tile(M, (2,))),
                 Case(I, (2, 1, 2), expected=np.tile(I, (2, 1, 2)))],
        "diff": [Case(M, expected=np.diff(M)), Case(M, 2, 0, expected=np.diff(M, 2, 0)),
                 Case(I, prepend=I[:, :1], append=I[:, :2],
                      expected=np.diff(I, prepend=I[:, :1], append=I[:, :2])),
                 Case(B, expected=np.diff(B))],
        "cumprod": [Case(Z, 1, expected=np.cumprod(Z, 1)), Case(Z, 0, expected=np.cumprod(Z, 0)),
                    Case(I, -1, expected=np.cumprod(I, -1)),
                    Case(B, 0, expected=np.cumprod(B, 0, dtype=i64))],
        "sort": [Case(S, expected=(np.take_along_axis(S, order, 1), order)),
                 Case(S, 0, True, expected=(np.take_along_axis(S, order_desc0, 0), order_desc0))],
        "argsort": [Case(S, expected=order), Case(S, 0, True, expected=order_desc0)],
        "topk": [Case(S, 2, expected=(np.take_along_axis(S, _stable(S, 1, True)[:, :2], 1),
                                      _stable(S, 1, True)[:, :2])),
                 Case(S, 1, 0, False, expected=(np.take_along_axis(S, _stable(S, 0)[:1], 0),
                                                _stable(S, 0)[:1]))],
        "var_mean": [Case(D, 1, expected=(D.var(1, ddof=1), D.mean(1))),
                     Case(M, correction=0, expected=(np.asarray(M.var(), f32),
                                                     np.asarray(M.mean(), f32)))],
        "std_mean": [Case(D, 0, keepdim=True, expected=(D.std(0, ddof=1, keepdims=True),
                                                        D.mean(0, keepdims=True)))],
        "quantile": [Case(D, 0.3, 1, expected=np.quantile(D, 0.3, 1)),
                     Case(D, np.array([0.1, 0.9]), expected=np.quantile(D, [0.1, 0.9])),
                     Case(M, 0.5, 0, True, "lower",
                          expected=np.quantile(M, 0.5, 0, keepdims=True, method="lower"))],
        "nanquantile": [Case(np.where(B, np.nan, D), 0.5, 1, expected=np.nanquantile(
            np.where(B, np.nan, D), 0.5, 1))],
    }
