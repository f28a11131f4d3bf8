"""Gradient-check samples for the rows of ``rtorchpy/derivatives/nn_more.py`` (mish, rrelu's
random slopes, the CTC loss, the multilabel margin loss, weight normalisation), registered
into ``tests/test_derivatives.py``."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import rtorchpy as rt
from rtorchpy.ops.nnf_more import weight_norm_interface


def add_more_samples(builder, Case, shape, anyv, away0):
    @builder("MishBackward0")
    def _mish(draw, rng, name):
        return Case(lambda a: rt.nnf_mish(a), anyv(rng, shape(draw)))

    @builder("RreluWithNoiseBackward0")
    def _rrelu(draw, rng, name):
        seed = draw(st.integers(0, 1000))
        # a fresh generator per call: every evaluation draws the same slopes
        return Case(lambda a: rt.nnf_rrelu(a, 0.1, 0.4, training=True,
                                           generator=rt.torch_generator(seed)),
                    away0(rng, shape(draw)))

    @builder("CtcLossBackward0")
    def _ctc(draw, rng, name):
        T, N, C = draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.integers(2, 4))
        S = draw(st.integers(0, 3))
        targets = rt.torch_tensor(rng.integers(1, C, (N, S)), dtype=rt.torch_long())
        il = [int(v) for v in rng.integers(max(T - 1, 0), T + 1, N)]
        tl = [int(v) for v in rng.integers(0, S + 1, N)]
        reduction = draw(st.sampled_from(["none", "mean", "sum"]))

        def fn(x):
            # through log_softmax: libtorch's gradient assumes normalised log-probabilities
            return rt.nnf_ctc_loss(rt.nnf_log_softmax(x, 2), targets, il, tl,
                                   reduction=reduction, zero_infinity=True)
        return Case(fn, np.asarray(anyv(rng, (T, N, C))), second=False)

    @builder("MultilabelMarginLossBackward0")
    def _multilabel_margin(draw, rng, name):
        n, c = draw(st.integers(1, 3)), draw(st.integers(2, 5))
        batched = draw(st.booleans())
        y = np.full((n, c), -1)
        for i in range(n):
            k = int(rng.integers(0, c + 1))
            y[i, :k] = rng.permutation(c)[:k]
        # class scores 0.37 apart: no hinge 1 - (x[j] - x[i]) lies near its kink at 0
        x = ((rng.permutation(n * c) - n * c / 2) * 0.37
             + rng.uniform(-0.01, 0.01, n * c)).reshape(n, c)
        target = rt.torch_tensor(y if batched else y[0], dtype=rt.torch_long())
        reduction = draw(st.sampled_from(["none", "mean", "sum"]))
        return Case(lambda a: rt.nnf_multilabel_margin_loss(a, target, reduction=reduction),
                    x if batched else x[0], second=False)

    @builder("WeightNormInterfaceBackward0")
    def _weight_norm(draw, rng, name):
        s = tuple(shape(draw, min_dims=1))
        dim = draw(st.sampled_from([0, len(s) - 1]))
        gs = tuple(n if d == dim else 1 for d, n in enumerate(s))
        return Case(lambda v, g: weight_norm_interface(v, g, dim), away0(rng, s), anyv(rng, gs))
