"""Gradient-check samples for the rows of ``rtorchpy/derivatives/nn.py`` (the nn functions),
registered into ``tests/test_derivatives.py``'s table of samples by :func:`add_samples`, so that
every row is checked at first and second order on Hypothesis-drawn shapes with the others."""
from __future__ import annotations

from hypothesis import strategies as st

import rtorchpy as rt


def add_samples(builder, Case, shape, anyv, away0, const):
    """Register the samples with ``builder`` (test_derivatives' decorator)."""

    def nonzero(draw, rng):
        return away0(rng, shape(draw))

    @builder("ErfBackward0")
    def _erf(draw, rng, name):
        return Case(lambda a: rt.torch_erf(a), anyv(rng, shape(draw)))

    @builder("GeluBackward0")
    def _gelu(draw, rng, name):
        approximate = draw(st.sampled_from(["none", "tanh"]))
        return Case(lambda a: rt.nnf_gelu(a, approximate=approximate), anyv(rng, shape(draw)))

    @builder("SiluBackward0")
    def _silu(draw, rng, name):
        return Case(lambda a: rt.nnf_silu(a), anyv(rng, shape(draw)))

    @builder("EluBackward0")
    def _elu(draw, rng, name):
        alpha = draw(st.sampled_from([1.0, 0.5, 2.0]))
        return Case(lambda a: rt.nnf_elu(a, alpha=alpha), nonzero(draw, rng))

    @builder("LeakyReluBackward0")
    def _leaky(draw, rng, name):
        slope = draw(st.sampled_from([0.01, 0.2, -0.5]))
        return Case(lambda a: rt.nnf_leaky_relu(a, slope), nonzero(draw, rng))

    @builder("EluBackward1", "LeakyReluBackward1")
    def _inplace_activation(draw, rng, name):
        if name == "EluBackward1":
            alpha = draw(st.sampled_from([1.0, 0.5]))

            def act(y):
                return rt.nnf_elu(y, alpha=alpha, inplace=True)
        else:
            slope = draw(st.sampled_from([0.01, 0.2]))

            def act(y):
                return rt.nnf_leaky_relu(y, slope, inplace=True)

        def fn(a):
            y = a * 1.0
            act(y)
            return y
        return Case(fn, nonzero(draw, rng))

    @builder("HardtanhBackward0")
    def _hardtanh(draw, rng, name):
        s = shape(draw)
        if draw(st.booleans()):  # relu6: values away from the kinks at 0 and 6
            x = rng.choice([-1.0, 1.0, 5.0, 7.0], s) + rng.uniform(-0.5, 0.5, s)
            return Case(lambda a: rt.nnf_relu6(a), x)
        x = rng.choice([-1.5, 0.0, 1.5], s) + rng.uniform(-0.3, 0.3, s)
        return Case(lambda a: rt.nnf_hardtanh(a, -1.0, 1.0), x)

    @builder("SoftplusBackward0")
    def _softplus(draw, rng, name):
        beta = draw(st.sampled_from([1.0, 2.0, 0.5]))
        threshold = draw(st.sampled_from([20.0, 1.0]))
        s = shape(draw)
        # beta * x at least 0.2 away from the threshold
        x = (threshold + rng.choice([-1.0, 1.0], s) * rng.uniform(0.2, 2.0, s)) / beta
        if threshold == 20.0:
            x = anyv(rng, s)
        return Case(lambda a: rt.nnf_softplus(a, beta, threshold), x)

    @builder("LogSigmoidBackward0")
    def _logsigmoid(draw, rng, name):
        return Case(lambda a: rt.nnf_logsigmoid(a), anyv(rng, shape(draw)) * 3)

    def _loss_pair(draw, rng, edge, fn):
        """input and target whose difference stays at least 0.1 away from +-edge."""
        s = shape(draw)
        d = rng.choice([-1.0, 1.0], s) * (edge + rng.choice([-1.0, 1.0], s) *
                                           rng.uniform(0.1, 0.8 * edge, s))
        t = anyv(rng, s)
        reduction = draw(st.sampled_from(["mean", "sum", "none"]))
        if draw(st.booleans()):
            return Case(lambda a, b: fn(a, b, reduction), t + d, t)
        tt = const(t)
        return Case(lambda a: fn(a, tt, reduction), t + d)

    @builder("SmoothL1LossBackward0")
    def _smooth_l1(draw, rng, name):
        beta = draw(st.sampled_from([1.0, 0.5]))
        return _loss_pair(draw, rng, beta, lambda a, b, r: rt.nnf_smooth_l1_loss(
            a, b, reduction=r, beta=beta))

    @builder("HuberLossBackward0")
    def _huber(draw, rng, name):
        delta = draw(st.sampled_from([1.0, 0.5]))
        return _loss_pair(draw, rng, delta, lambda a, b, r: rt.nnf_huber_loss(
            a, b, reduction=r, delta=delta))

    @builder("BinaryCrossEntropyWithLogitsBackward0")
    def _bce_logits(draw, rng, name):
        s = shape(draw, min_dims=1)
        reduction = draw(st.sampled_from(["mean", "sum", "none"]))
        weight = const(rng.uniform(0.5, 2.0, s)) if draw(st.booleans()) else None
        pos_weight = const(rng.uniform(0.5, 3.0, s[-1:])) if draw(st.booleans()) else None

        def fn(a, b):
            return rt.nnf_binary_cross_entropy_with_logits(a, b, weight=weight,
                                                           reduction=reduction,
                                                           pos_weight=pos_weight)
        x = anyv(rng, s) * 2
        if draw(st.booleans()):
            return Case(fn, x, rng.uniform(0, 1, s))
        t = const(rng.uniform(0, 1, s))
        return Case(lambda a: fn(a, t), x)

    @builder("NativeLayerNormBackward0")
    def _layer_norm(draw, rng, name):
        lead = shape(draw, max_dims=2)
        norm = tuple(draw(st.lists(st.integers(2, 3), min_size=1, max_size=2)))
        s = lead + norm
        which = draw(st.sampled_from(["none", "weight", "both", "bias"]))
        eps = draw(st.sampled_from([1e-5, 0.1]))
        args = [anyv(rng, s)]
        if which in ("weight", "both"):
            args.append(anyv(rng, norm))
        if which in ("bias", "both"):
            args.append(anyv(rng, norm))

        def fn(x, *wb):
            w = wb[0] if which in ("weight", "both") else None
            b = wb[-1] if which in ("bias", "both") else None
            return rt.nnf_layer_norm(x, norm, w, b, eps=eps)
        return Case(fn, *args)

    @builder("NativeBatchNormBackward0")
    def _batch_norm(draw, rng, name):
        n = draw(st.integers(1, 3))
        c = draw(st.integers(1, 3))
        extra = draw(st.sampled_from([(), (2,), (2, 2)]))
        if n == 1 and not extra:
            n = 2
        s = (n, c) + extra
        training = draw(st.booleans())
        which = draw(st.sampled_from(["none", "weight", "both", "bias"]))
        args = [anyv(rng, s)]
        if which in ("weight", "both"):
            args.append(anyv(rng, (c,)))
        if which in ("bias", "both"):
            args.append(anyv(rng, (c,)))
        mean = rng.uniform(-1, 1, c)
        var = rng.uniform(0.5, 2, c)

        def fn(x, *wb):
            w = wb[0] if which in ("weight", "both") else None
            b = wb[-1] if which in ("bias", "both") else None
            rm, rv = const(mean.copy()), const(var.copy())
            return rt.nnf_batch_norm(x, rm, rv, w, b, training=training, eps=1e-3)
        return Case(fn, *args)

    @builder("EmbeddingBackward0")
    def _embedding(draw, rng, name):
        num, dim = draw(st.integers(2, 5)), draw(st.integers(1, 3))
        padding = draw(st.sampled_from([None, 0, -1]))
        # the padding row gets no gradient although it is used (not a derivative): the check
        # uses the other rows (tests/test_nn_functional.py checks the padding row)
        lo, hi = (1, num) if padding == 0 else (0, num - 1) if padding == -1 else (0, num)
        idx = rt.torch_tensor(rng.integers(lo, hi, shape(draw, min_dims=1)))
        # (scale_grad_by_freq is not a derivative either: checked against PyTorch instead)
        return Case(lambda w: rt.nnf_embedding(idx, w, padding_idx=padding),
                    anyv(rng, (num, dim)))

    @builder("TrilinearBackward0")
    def _bilinear(draw, rng, name):
        lead = shape(draw, min_dims=1, max_dims=2)
        i, j, o = (draw(st.integers(1, 3)) for _ in range(3))
        if draw(st.booleans()):
            return Case(lambda a, b, w, bias: rt.nnf_bilinear(a, b, w, bias),
                        anyv(rng, lead + (i,)), anyv(rng, lead + (j,)), anyv(rng, (o, i, j)),
                        anyv(rng, (o,)))
        return Case(lambda a, b, w: rt.nnf_bilinear(a, b, w),
                    anyv(rng, lead + (i,)), anyv(rng, lead + (j,)), anyv(rng, (o, i, j)))

