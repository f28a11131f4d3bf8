"""Gradient-check samples for the recurrent layer rows (``rtorchpy/derivatives/rnn.py``):
one layer in one direction, every input differentiated (input, weights, biases, initial
states), with packed batch sizes sometimes, registered into ``tests/test_derivatives.py``."""
from __future__ import annotations

from hypothesis import strategies as st

from rtorchpy.ops.rnn import rnn_layer


def add_rnn_samples(builder, Case, anyv):
    def draw_layer(draw, rng, mode, proj=False):
        T, B, I, H = (draw(st.integers(1, 3)), draw(st.integers(1, 3)),
                      draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        k = {"lstm": 4, "gru": 3}.get(mode, 1)
        P = draw(st.integers(1, H)) if proj else H
        bias = draw(st.booleans())
        reverse = draw(st.booleans())
        bs = None
        if draw(st.booleans()):
            bs = sorted(draw(st.lists(st.integers(1, B), min_size=T, max_size=T)),
                        reverse=True)
        shapes = [(T, B, I), (k * H, I), (k * H, P)]
        if bias:
            shapes += [(k * H,), (k * H,)]
        if proj:
            shapes.append((P, H))
        shapes.append((B, P))
        if mode == "lstm":
            shapes.append((B, H))

        def fn(x, w_ih, w_hh, *rest):
            rest = list(rest)
            b_ih = rest.pop(0) if bias else None
            b_hh = rest.pop(0) if bias else None
            w_hr = rest.pop(0) if proj else None
            h0 = rest.pop(0)
            c0 = rest.pop(0) if mode == "lstm" else None
            out, h, c = rnn_layer(mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, bs, reverse)
            return (out, h) if c is None else (out, h, c)
        return Case(fn, *[anyv(rng, s) * 0.7 for s in shapes], atol=1e-5, rtol=1e-3)

    @builder("MkldnnRnnLayerBackward0")
    def _lstm(draw, rng, name):
        return draw_layer(draw, rng, "lstm")

    @builder("RnnLayerBackward0")
    def _others(draw, rng, name):
        mode = draw(st.sampled_from(["gru", "rnn_tanh", "rnn_relu", "lstm_proj"]))
        if mode == "lstm_proj":
            return draw_layer(draw, rng, "lstm", proj=True)
        return draw_layer(draw, rng, mode)
