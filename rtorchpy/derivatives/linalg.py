"""The derivative table, continued: the ``linalg_*`` ops (libtorch's FunctionsManual formulas).

Rows register into the same table as the rest of ``rtorchpy/derivatives/``; its package
docstring says what a row is.
Multi-output nodes here tell "no gradient" from a zero one (their outputs' ``out_meta``
entries are None): ``g`` is a list whose entries are None for outputs nobody used, as in
libtorch, where e.g. the SVD's formula takes a shortcut when only the singular values were
used. Real matrices only: the conjugate transposes of the formulas are transposes.

The formulas follow libtorch's, down to the choice of what is solved against what, so that the
values agree to rounding and the second-order graph (``create_graph``) records the same ops:
``F.solve`` is ``linalg_solve`` there, ``F.svd`` is ``linalg_svd`` ...
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.rows import row
from ..numerics.linalg import perm_matrix, pivots_to_perm
from .elementwise import _norm
from .shape import _reshape_back


def _t(F, x):
    return F.mT(x)


def _eps(x):
    return float(np.finfo(np.dtype(getattr(x, "_data", x).dtype)).eps)


def _data(x):
    return getattr(x, "_data", x)


def _scaled_eye(F, d, A):
    """``d`` (one number per matrix) times the identity: libtorch's
    ``diag_embed(d.unsqueeze(-1).expand_as(pivots))``."""
    return F.unsqueeze(F.unsqueeze(d, -1), -1) * F.eye_like(A)


def _prod_others(F, S):
    """For each singular value, the product of the others, with no division (libtorch's
    prod_safe_zeros_backward): each row of a matrix holding S with a 1 in place of one value,
    multiplied out. A division by a tiny singular value would ruin the next order's gradient."""
    n = S.shape[-1]
    rows = F.where(np.eye(n, dtype=bool), 1.0, F.expand(F.unsqueeze(S, -2),
                                                        tuple(S.shape[:-1]) + (n, n)))
    return F.prod(rows, (rows.ndim - 1,), False)


def _masked_fmap(F, mask, f1, f2, *ts):
    """libtorch's masked_fmap: ``f1`` on the batch elements where ``mask`` holds, ``f2`` on the
    others (each on the whole batch when the mask is uniform)."""
    mask = np.asarray(mask)
    if mask.all():
        return f1(*ts)
    if not mask.any():
        return f2(*ts)
    pieces = [(f1 if mask[idx] else f2)(*[t[idx] for t in ts]) for idx in np.ndindex(mask.shape)]
    out = F.stack(pieces, 0)
    return F.reshape(out, tuple(mask.shape) + tuple(out.shape[1:]))


# ---------------------------------------------------------------- determinants and inverses
@row("LinalgDetBackward0", inputs=("A",), outputs=("det",), saves=("A", "det"))
def _det(F, g, needs, A, det):
    """A: g det A^{-T} (det's cofactor matrix). Without create_graph, libtorch's LU solve whose
    zero pivots are perturbed by eps: 0 for an exactly singular A (g det = 0). With
    create_graph, where |det| < 100 eps, through the SVD (adjugate of a singular matrix:
    U diag(g det(U) det(V^T) prod_{j != i} S_j) V^T), elsewhere a solve with A^T."""
    if _data(A).size == 0:
        return F.zeros_like(A)
    if A.shape[-1] == 1:  # det is the entry itself (libtorch: g, not a function of A)
        return F.expand(F.unsqueeze(F.unsqueeze(g, -1), -1), tuple(A.shape))
    d = g * det
    if not F.records:
        ok = det != 0
        if not np.all(ok):  # LU + eps * I solved against d = 0: zero
            A = np.where(ok[..., None, None], A, np.eye(A.shape[-1], dtype=A.dtype))
            d = np.where(ok, d, 0)
        return F.solve(_t(F, A), _scaled_eye(F, d, A))

    def nonsingular(A, d, g):
        return F.solve(_t(F, A), _scaled_eye(F, d, A))

    def singular(A, d, g):
        U, S, Vh = F.svd(A, True)
        alpha = F.det(U) * F.det(Vh) * g
        D = F.unsqueeze(alpha, -1) * _prod_others(F, S)
        return F.matmul(U * F.unsqueeze(D, -2), Vh)

    mask = np.abs(_data(det)) < 100 * _eps(A)
    return _masked_fmap(F, mask, singular, nonsingular, A, d, g)


@row("LinalgSlogdetBackward0", inputs=("A",), outputs=("result0", "result1"), saves=("A",))
def _slogdet(F, g, needs, A):
    """A: g_logabsdet A^{-T} (the sign has no gradient); a singular A: the inf/NaN of an LU
    solve without create_graph, linalg_solve's error with it (as libtorch)."""
    g_logabsdet = g[1]
    if g_logabsdet is None:
        return None
    return F.solve(_t(F, A), _scaled_eye(F, g_logabsdet, A))


@row("LinalgInvExBackward0", outputs=("inverse",), saves=("inverse",))
def _inv(F, g, needs, inverse):
    """A: -A^{-T} g A^{-T}"""
    inv_t = _t(F, inverse)
    return -F.matmul(inv_t, F.matmul(g, inv_t))


@row("LinalgSolveExBackward0", inputs=("A", "B"), outputs=("X",), saves=("A", "X"))
def _solve(F, g, needs, A, X, left, vector):
    """B: A^{-T} g (left) or g A^{-T};  A: -gB X^T (left) or -X^T gB   (a vector B as a
    one-column matrix)"""
    gX = F.unsqueeze(g, -1) if vector else g
    gB = F.solve(_t(F, A), gX, left)
    gA = None
    if needs[0]:
        Xm = F.unsqueeze(X, -1) if vector else X
        gA = -F.matmul(gB, _t(F, Xm)) if left else -F.matmul(_t(F, Xm), gB)
    if not needs[1]:
        gB = None
    elif vector:
        gB = F.squeeze(gB, -1)
    return gA, gB


@row("LinalgSolveTriangularBackward0", inputs=("A", "B"), outputs=("X",), saves=("A", "X"))
def _solve_triangular(F, g, needs, A, X, upper, left, unitriangular):
    """B: A^{-T} g (a triangular solve with the other triangle);  A: -gB X^T (left) or
    -X^T gB, projected on A's triangle (strictly, when unitriangular)"""
    gB = F.solve_triangular(_t(F, A), g, not upper, left, unitriangular)
    gA = None
    if needs[0]:
        gA = -F.matmul(gB, _t(F, X)) if left else -F.matmul(_t(F, X), gB)
        k = int(unitriangular)
        gA = F.triu(gA, k) if upper else F.tril(gA, -k)
    return gA, (gB if needs[1] else None)


@row("CholeskySolveBackward0", inputs=("self", "input2"), saves=("input2", "result"))
def _cholesky_solve(F, g, needs, input2, result, upper):
    """self: gB = cholesky_solve(g, input2);  input2: with C = gB X^T + X gB^T,
    -input2 C (upper) or -C input2 (as libtorch: a full matrix, not projected on the triangle)"""
    g_self = F.cholesky_solve(g, input2, upper)
    g_in2 = None
    if needs[1]:
        common = F.matmul(g_self, _t(F, result))
        common = common + _t(F, common)
        g_in2 = -F.matmul(input2, common) if upper else -F.matmul(common, input2)
    return (g_self if needs[0] else None), g_in2


# ---------------------------------------------------------------- decompositions
@row("LinalgCholeskyExBackward0", outputs=("L",), saves=("L",))
def _cholesky(F, g, needs, L, upper):
    """A: L^{-T} Phi L^{-1} with Phi = tril(L^T g) with its strictly lower part mirrored and
    halved (Murray 2016; symmetric, as libtorch's)"""
    if upper:
        L, g = _t(F, L), _t(F, g)
    gA = F.tril(F.matmul(_t(F, L), g))
    gA = (gA + _t(F, F.tril(gA, -1))) * 0.5
    gA = F.solve_triangular(_t(F, L), gA, True, True)
    return F.solve_triangular(L, gA, False, False)


@row("LinalgQrBackward0", outputs=("Q", "R"), saves=("Q", "R"))
def _qr(F, g, needs, Q, R, mode):
    """m >= n: A: (Q syminvadj(triu(gR R^T - Q^T gQ)) + gQ) R^{-T};  m < n: Q tril(-(X - X^T))
    R_1^{-T} padded with zero columns, plus Q gR (X = gR R^T - Q^T gQ). Not differentiable for
    mode "r" nor for mode "complete" with more rows than columns: libtorch's errors."""
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gQ, gR = g
    if gQ is None and gR is None:
        return None
    if gQ is not None:
        gA = -F.matmul(_t(F, Q), gQ)
        if gR is not None:
            gA = F.matmul(gR, _t(F, R)) + gA
    else:
        gA = F.matmul(gR, _t(F, R))
    if m >= n:
        X = F.triu(gA)
        gA = F.matmul(Q, X + _t(F, F.triu(X, 1)))  # X + X^T with the diagonal once
        if gQ is not None:
            gA = gA + gQ
        return F.solve_triangular(_t(F, R), gA, False, False)
    X = -gA
    gA = F.matmul(Q, F.tril(X - _t(F, X)))
    gA = F.solve_triangular(_t(F, F.narrow(R, R.ndim - 1, 0, m)), gA, False, False)
    gA = F.cat([gA, F.zeros(tuple(R.shape[:-1]) + (n - m,), gA)], -1)
    if gR is not None:
        gA = gA + F.matmul(Q, gR)
    return gA


@row("LinalgEighBackward0", outputs=("L", "V"), saves=("L", "V"))
def _eigh(F, g, needs, L, V):
    """A: V (skew(V^T gV) / 2 / E, with gL on the diagonal) V^T, E_ij = L_j - L_i;  only the
    eigenvalues used: V diag(gL) V^T. Repeated eigenvalues divide by zero (as libtorch)."""
    gL, gV = g
    if gV is None:
        return F.matmul(V * F.unsqueeze(gL, -2), _t(F, V))
    VhgV = F.matmul(_t(F, V), gV)
    VhgV = (VhgV - _t(F, VhgV)) * 0.5
    E = F.unsqueeze(L, -2) - F.unsqueeze(L, -1) + F.eye_like(VhgV)
    gA = VhgV / E
    if gL is not None:
        gA = gA + F.diag_embed(gL)  # the skew part's diagonal is 0
    return F.matmul(V, F.matmul(gA, _t(F, V)))


@row("LinalgSvdBackward0", outputs=("U", "S", "Vh"), saves=("U", "S", "Vh"))
def _svd(F, g, needs, U, S, Vh, full_matrices):
    """A (real case): U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] V^T, E_jk = S_k^2 -
    S_j^2, plus (I - U U^T) gU S^{-1} V^T for tall A, U S^{-1} gV^T (I - V V^T) for wide A;
    only S used: U diag(gS) V^T. The columns past min(m, n) of a full U or V get no gradient."""
    gU, gS, gVh = g
    k = S.shape[-1]
    if full_matrices:
        U = F.narrow(U, U.ndim - 1, 0, k)
        Vh = F.narrow(Vh, Vh.ndim - 2, 0, k)
        gU = None if gU is None else F.narrow(gU, gU.ndim - 1, 0, k)
        gVh = None if gVh is None else F.narrow(gVh, gVh.ndim - 2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return (F.matmul(U, F.unsqueeze(gS, -1) * Vh) if m >= n
                else F.matmul(U * F.unsqueeze(gS, -2), Vh))
    UhgU = None if gU is None else F.matmul(_t(F, U), gU)
    UhgU = None if UhgU is None else UhgU - _t(F, UhgU)
    VhgV = None if gVh is None else F.matmul(Vh, _t(F, gVh))
    VhgV = None if VhgV is None else VhgV - _t(F, VhgV)
    S2 = S * S
    E = F.unsqueeze(S2, -2) - F.unsqueeze(S2, -1) + F.eye_like(UhgU if UhgU is not None else VhgV)
    if gU is not None and gVh is not None:
        ret = (UhgU * F.unsqueeze(S, -2) + F.unsqueeze(S, -1) * VhgV) / E
    elif gU is not None:
        ret = (UhgU / E) * F.unsqueeze(S, -2)
    else:
        ret = F.unsqueeze(S, -1) * (VhgV / E)
    if gS is not None:
        ret = ret + F.diag_embed(gS)
    if m > n and gU is not None:
        gA = F.matmul(U, ret)
        gUSinv = gU / F.unsqueeze(S, -2)
        gA = gA + gUSinv - F.matmul(U, F.matmul(_t(F, U), gUSinv))
        return F.matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = F.matmul(ret, Vh)
        SinvgVh = gVh / F.unsqueeze(S, -1)
        gA = gA + SinvgVh - F.matmul(F.matmul(SinvgVh, _t(F, Vh)), Vh)
        return F.matmul(U, gA)
    return F.matmul(U, F.matmul(ret, Vh)) if m >= n else F.matmul(F.matmul(U, ret), Vh)


def pinv_backward(F, g, pinvA, A):
    """libtorch's pinv_backward (the products arranged to keep the matrices small)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _t(F, pinvA)
    gh = _t(F, g)
    if m <= n:
        K = F.matmul(gh, pinvA)
        KpinvAh = F.matmul(K, pinvAh)
        return (-_t(F, F.matmul(pinvA, K)) + KpinvAh
                - F.matmul(F.matmul(A, pinvA), KpinvAh)
                + F.matmul(F.matmul(pinvAh, pinvA), gh - F.matmul(K, A)))
    K = F.matmul(pinvA, gh)
    pinvAhK = F.matmul(pinvAh, K)
    return (-_t(F, F.matmul(K, pinvA))
            + F.matmul(F.matmul(gh - F.matmul(A, K), pinvA), pinvAh)
            + pinvAhK - F.matmul(F.matmul(pinvAhK, pinvA), A))


@row("LinalgPinvBackward0", inputs=("A",), saves=("A", "result"))
def _pinv(F, g, needs, A, result):
    """A: -P^T g^T P^T ... libtorch's pinv_backward with P = pinv(A) (the derivative of the
    Moore-Penrose inverse where the rank is locally constant)"""
    return pinv_backward(F, g, result, A)


@row("LinalgLstsqBackward0", inputs=("A", "B"), outputs=("X", "result1"), saves=("A", "B", "X"))
def _lstsq(F, g, needs, A, B, X, vector):
    """solution: through pinv (A: pinv_backward(gX B^T), B: pinv(A)^T gX);  residuals (when
    computed): A: 2 (gL r) X^T, B: -2 gL r, r = A X - B"""
    gX, gL = g
    has_gL = gL is not None and _data(gL).size > 0
    if gX is None and not has_gL:
        return None, None
    Bm = F.unsqueeze(B, -1) if vector else B
    gA = gB = None
    if gX is not None:
        gXm = F.unsqueeze(gX, -1) if vector else gX
        pinvA = F.pinv(A)
        if needs[0]:
            gA = pinv_backward(F, F.matmul(gXm, _t(F, Bm)), pinvA, A)
        if needs[1]:
            gB = F.matmul(_t(F, pinvA), gXm)
            gB = F.squeeze(gB, -1) if vector else gB
    if has_gL:
        Xm = F.unsqueeze(X, -1) if vector else X
        r = F.matmul(A, Xm) - Bm
        gLu = F.unsqueeze(gL, -2)
        if needs[0]:
            term = F.matmul(gLu * r, _t(F, Xm)) * 2
            gA = term if gA is None else gA + term
        if needs[1]:
            term = gLu * r * -2
            term = F.squeeze(term, -1) if vector else term
            gB = term if gB is None else gB + term
    return (gA if needs[0] else None), (gB if needs[1] else None)


@row("LinalgHouseholderProductBackward0", inputs=("A", "tau"), saves=("A", "tau", "result"))
def _householder_product(F, g, needs, A, tau, result):
    """With H_i = I - tau_i v_i v_i^T (v_i: column i of A below the diagonal, 1 on it) and
    M_i = P_i^T g S_i^T (P_i = H_1..H_{i-1}, S_i = H_{i+1}..H_k I[:, :n]):  tau_i: -v_i^T M_i v_i;
    A's column i below the diagonal: -tau_i (M_i + M_i^T) v_i (libtorch's formula, products
    formed explicitly instead of its in-place updates)"""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if _data(A).size == 0 or k == 0:
        return F.zeros_like(A), F.zeros_like(tau)
    V = _unit_lower(F, A)
    vs = [F.narrow(V, V.ndim - 1, i, 1) for i in range(k)]          # (..., m, 1)
    ts = [F.unsqueeze(F.narrow(tau, tau.ndim - 1, i, 1), -1) for i in range(k)]  # (..., 1, 1)
    eye_m = F.eye_like(F.zeros((m, m), A))

    def H(i):
        return eye_m - ts[i] * F.matmul(vs[i], _t(F, vs[i]))

    prefix = [None] * k  # P_i
    P = None
    for i in range(k):
        prefix[i] = P
        P = H(i) if P is None else F.matmul(P, H(i))
    suffix = [None] * k  # S_i
    S = F.narrow(eye_m, 1, 0, n)
    for i in range(k - 1, -1, -1):
        suffix[i] = S
        S = F.matmul(H(i), S)
    v_grads, t_grads = [], []
    for i in range(k):
        M = F.matmul(g, _t(F, suffix[i]))
        if prefix[i] is not None:
            M = F.matmul(_t(F, prefix[i]), M)
        v = vs[i]
        Mv = F.matmul(M + _t(F, M), v)
        v_grads.append(-ts[i] * Mv)
        t_grads.append(-F.matmul(_t(F, v), F.matmul(M, v)))
    gA = None
    if needs[0]:
        cols = F.cat(v_grads, -1)
        if k < n:
            cols = F.cat([cols, F.zeros(tuple(A.shape[:-1]) + (n - k,), A)], -1)
        gA = F.tril(cols, -1)
    gt = None
    if needs[1]:
        gt = F.reshape(F.cat(t_grads, -1), tuple(tau.shape))
    return gA, gt


def _unit_lower(F, A):
    """A's strictly lower triangle with ones on the diagonal (the Householder vectors)."""
    m, n = A.shape[-2], A.shape[-1]
    ones = F.eye_like(F.zeros((m, m), A))
    return F.tril(A, -1) + F.narrow(ones, 1, 0, n)


# ---------------------------------------------------------------- norms
@row("LinalgVectorNormBackward0", saves=("self", "result"))
def _vector_norm(F, g, needs, self, result, ord, dims, keepdim):
    """self: as NormBackward0 (libtorch's norm_backward): ord 0: no gradient;  ord +-inf: g
    shared among the elements whose |self| is the norm (or NaN)"""
    if ord == 0:
        return None
    if math.isinf(ord):
        g = F.restore_dims(g, dims, keepdim)
        norm = F.restore_dims(result, dims, keepdim)
        size = F.abs(self)
        mask = (size == norm) | F.isnan(size)
        return F.sgn(self) * ((g / F.sum(mask * 1.0, dims, True)) * mask)
    return _norm(F, g, needs, self, result, ord, dims, keepdim)


@row("NanToNumBackward0", saves=("self",))
def _nan_to_num(F, g, needs, self):
    """self: g where self is finite, else 0"""
    return F.keep_where(F.isfinite(self), g)


row("ReshapeAliasBackward0")(_reshape_back)


@row("LinalgLuFactorExBackward0", saves=("result",))
def _lu_factor(F, g, needs, result, pivots):
    """With A = P L U (the packed factors unpacked, gL = tril(g, -1), gU = triu(g)), libtorch's
    linalg_lu_backward: square: P L^{-T} (tril(L^T gL, -1) + triu(gU U^T)) U^{-T}; wide (m < n,
    U = [U1 U2]): P L^{-T} [tril(L^T gL - gU U^T, -1) U1^{-T} + triu(gU1), gU2]; tall (m > n,
    L = [L1; L2]): P [L1^{-T} triu(gU U^T - L^T gL) + tril(gL1, -1); gL2] U^{-T}"""
    m, n = result.shape[-2], result.shape[-1]
    k = min(m, n)
    piv = np.asarray(pivots)
    P = F.constant(perm_matrix(pivots_to_perm(piv, m), _data(result).dtype), result)
    eye = F.constant(np.eye(m, k), result)
    L = F.tril(F.narrow(result, result.ndim - 1, 0, k), -1) + eye
    U = F.triu(F.narrow(result, result.ndim - 2, 0, k))
    gL = F.tril(F.narrow(g, g.ndim - 1, 0, k), -1)
    gU = F.triu(F.narrow(g, g.ndim - 2, 0, k))
    if m == n:
        gA = F.tril(F.matmul(_t(F, L), gL), -1) + F.triu(F.matmul(gU, _t(F, U)))
        gA = F.solve_triangular(_t(F, U), gA, False, False)
        gA = F.solve_triangular(_t(F, L), gA, True, True, True)
    elif m < n:
        gA = F.tril(F.matmul(_t(F, L), gL) - F.matmul(gU, _t(F, U)), -1)
        U1 = F.narrow(U, U.ndim - 1, 0, k)
        gA = F.solve_triangular(_t(F, U1), gA, False, False)
        gA = F.cat([gA + F.narrow(gU, gU.ndim - 1, 0, k),
                    F.narrow(gU, gU.ndim - 1, k, n - k)], -1)
        gA = F.solve_triangular(_t(F, L), gA, True, True, True)
    else:
        gA = F.triu(F.matmul(gU, _t(F, U)) - F.matmul(_t(F, L), gL))
        L1 = F.narrow(L, L.ndim - 2, 0, k)
        gA = F.solve_triangular(_t(F, L1), gA, True, True, True)
        gA = F.cat([gA + F.narrow(gL, gL.ndim - 2, 0, k),
                    F.narrow(gL, gL.ndim - 2, k, m - k)], -2)
        gA = F.solve_triangular(_t(F, U), gA, False, False)
    return F.matmul(P, gA)
