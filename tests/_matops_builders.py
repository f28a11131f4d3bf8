"""Hypothesis samples for the rows of ``rtorchpy/derivatives/matops.py`` (bmm, einsum, triangles,
diagonals, cdist, cumprod, sort/topk, var_mean/std_mean, the lerp and squeeze_ of quantile),
registered into ``tests/test_derivatives.py``'s ``BUILDERS`` by :func:`add_builders`."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import rtorchpy as rt


def add_builders(builder, Case, shape, anyv, distinct):
    """Register the samples with the table test's ``builder`` decorator."""

    @builder("BmmBackward0")
    def _bmm(draw, rng, name):
        b, n, k, m = (draw(st.integers(1, 3)) for _ in range(4))
        return Case(lambda x, y: x.bmm(y), anyv(rng, (b, n, k)), anyv(rng, (b, k, m)))

    @builder("EinsumBackward0")
    def _einsum(draw, rng, name):
        n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
        eq, shapes = draw(st.sampled_from([
            ("ij,jk->ik", [(n, k), (k, m)]), ("ii->i", [(n, n)]), ("ii", [(n, n)]),
            ("i,j->ij", [(n,), (m,)]), ("...ij,...jk->...ik", [(2, n, k), (k, m)]),
            ("ij,ij->ij", [(n, k), (1, k)]), ("ijk->", [(n, k, m)]),
            ("iij,jk->ki", [(n, n, k), (k, m)]), ("ij,jk,kl->il", [(n, k), (k, m), (m, 2)]),
            ("ij,j->j", [(n, k), (k,)]), ("bij,bkj", [(2, n, k), (2, m, k)]),
        ]))
        return Case(lambda *xs: rt.torch_einsum(eq, *xs), *[anyv(rng, s) for s in shapes])

    @builder("TrilBackward0", "TriuBackward0")
    def _triangle(draw, rng, name):
        s = shape(draw, min_dims=2)
        k = draw(st.integers(-3, 3))
        op = "tril" if name == "TrilBackward0" else "triu"
        if draw(st.booleans()):  # in place, on a non-leaf
            return Case(lambda x: getattr(x * 1.0, op + "_")(k), anyv(rng, s))
        return Case(lambda x: getattr(x, op)(k), anyv(rng, s))

    @builder("DiagEmbedBackward0")
    def _diag_embed(draw, rng, name):
        s = shape(draw, min_dims=1)
        k = draw(st.integers(-2, 2))
        nd = len(s) + 1
        d1, d2 = draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2).filter(
            lambda ds: ds[0] % nd != ds[1] % nd))
        if len(s) == 1 and draw(st.booleans()):
            return Case(lambda x: x.diag(k), anyv(rng, s))
        return Case(lambda x: x.diag_embed(k, d1, d2), anyv(rng, s))

    @builder("DiagonalBackward0_copy")
    def _diag(draw, rng, name):
        s = shape(draw, min_dims=2, max_dims=2)
        k = draw(st.integers(-2, 2))
        return Case(lambda x: x.diag(k), anyv(rng, s))

    @builder("TraceBackward0")
    def _trace(draw, rng, name):
        return Case(lambda x: x.trace(), anyv(rng, shape(draw, min_dims=2, max_dims=2)))

    @builder("SqueezeBackward4")
    def _quantile(draw, rng, name):
        s = shape(draw, min_dims=1, max_side=4)
        dim = draw(st.sampled_from([None] + list(range(-len(s), len(s)))))
        keepdim = draw(st.booleans())
        interp = draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest"]))
        q = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0, [0.2, 0.75]]))
        op = draw(st.sampled_from(["quantile", "nanquantile"]))
        return Case(lambda x: getattr(x, op)(q, dim=dim, keepdim=keepdim,
                                             interpolation=interp), distinct(rng, s))

    @builder("LerpBackward1")
    def _lerp(draw, rng, name):
        from rtorchpy.ops.sorting import _lerp as lerp
        s = shape(draw)
        return Case(lambda a, b, w: lerp(a, b, w), anyv(rng, s), anyv(rng, s),
                    rng.uniform(-0.5, 1.5, s))

    @builder("CdistBackward0")
    def _cdist(draw, rng, name):
        batch = draw(st.sampled_from([(), (2,), (1,)]))
        batch2 = draw(st.sampled_from([batch, (2,) if batch else ()]))
        p_, r, m = (draw(st.integers(1, 3)) for _ in range(3))
        p = draw(st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, 1.5, float("inf")]))
        x1 = distinct(rng, batch + (p_, m))
        x2 = distinct(rng, batch2 + (r, m)) + 0.1  # no difference is 0 or a tie
        return Case(lambda a, b: rt.torch_cdist(a, b, p=p), x1, x2)

    @builder("EuclideanDistBackward0")
    def _cdist_mm(draw, rng, name):
        batch = draw(st.sampled_from([(), (2,), (1,)]))
        batch2 = draw(st.sampled_from([batch, (2,) if batch else ()]))
        p_, r, m = (draw(st.integers(1, 3)) for _ in range(3))
        x1 = distinct(rng, batch + (p_, m))
        x2 = distinct(rng, batch2 + (r, m)) + 0.1
        return Case(lambda a, b: rt.torch_cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                    x1, x2)

    @builder("CumprodBackward0")
    def _cumprod(draw, rng, name):
        s = shape(draw, max_side=4)
        dim = draw(st.integers(-max(len(s), 1), max(len(s), 1) - 1))
        x = anyv(rng, s)
        if x.size and draw(st.booleans()):  # zeros: libtorch's exact gradient
            x = np.where(rng.random(s) < 0.3, 0.0, x)
        return Case(lambda t: t.cumprod(dim), x)

    @builder("SortBackward0", "SortBackward1")
    def _sort(draw, rng, name):
        s = shape(draw)
        dim = draw(st.integers(-max(len(s), 1), max(len(s), 1) - 1))
        desc = draw(st.booleans())
        if name == "SortBackward1":
            return Case(lambda x: x.sort(dim, desc, stable=True), distinct(rng, s))
        return Case(lambda x: x.sort(dim, desc), distinct(rng, s))

    @builder("TopkBackward0")
    def _topk(draw, rng, name):
        s = shape(draw)
        dim = draw(st.integers(-max(len(s), 1), max(len(s), 1) - 1))
        size = s[dim] if s else 1
        k = draw(st.integers(0, size))
        largest = draw(st.booleans())
        return Case(lambda x: x.topk(k, dim, largest), distinct(rng, s))

    @builder("VarMeanBackward0", "StdMeanBackward0")
    def _moments(draw, rng, name):
        s = shape(draw, min_dims=1)
        dim = draw(st.sampled_from([None] + list(range(-len(s), len(s)))))
        correction = draw(st.sampled_from([0, 1, 2]))
        keepdim = draw(st.booleans())
        op = rt.torch_var_mean if name == "VarMeanBackward0" else rt.torch_std_mean
        n = int(np.prod(s)) if dim is None else s[dim]
        if n <= correction:
            correction = 0
        # std at a constant slice is not differentiable: distinct values
        return Case(lambda x: op(x, dim, correction=correction, keepdim=keepdim),
                    distinct(rng, s))
