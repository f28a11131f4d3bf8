"""The nn functions on Hypothesis-drawn shapes against PyTorch 2.13 (skipped without it):
values, gradients and grad_fn names, for the shape cases the fixed tests do not reach
(broadcast loss operands, normalization over several dims, 0-d and n-d indices, 1-d bilinear
inputs)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rtorchpy as rt

def _torch():
    """PyTorch and its functional namespace, or skip the test."""
    torch = pytest.importorskip("torch")
    return torch, torch.nn.functional


def _check(ours_fn, theirs_fn, arrays, grad):
    torch, _ = _torch()
    xs = [rt.torch_tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
    ts = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y, ty = ours_fn(*xs), theirs_fn(*ts)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    if ty.grad_fn is None:
        return
    assert y.grad_fn.name == ty.grad_fn.name()
    v = np.random.default_rng(0).standard_normal(y.shape)
    wrt = [(x, t) for x, t, g in zip(xs, ts, grad) if g]
    ga = rt.autograd_grad((y * rt.torch_tensor(v)).sum(), [x for x, _ in wrt])
    gb = torch.autograd.grad((ty * torch.tensor(v)).sum(), [t for _, t in wrt])
    for a, b in zip(ga, gb):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def _arr(draw, shape, lo=-3, hi=3):
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return np.random.default_rng(seed).uniform(lo, hi, shape)


@settings(max_examples=40)
@given(data=st.data())
def test_pointwise_losses_broadcast(data):
    torch, TF = _torch()
    draw = data.draw
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                    max_side=3)).input_shapes
    name = draw(st.sampled_from(["l1_loss", "smooth_l1_loss", "huber_loss"]))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    kw = {"reduction": reduction}
    if name == "smooth_l1_loss":
        kw["beta"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
    if name == "huber_loss":
        kw["delta"] = draw(st.sampled_from([0.5, 1.0]))
    grads = [True, draw(st.booleans())]
    _check(lambda a, b: getattr(rt, "nnf_" + name)(a, b, **kw),
           lambda a, b: getattr(TF, name)(a, b, **kw),
           [_arr(draw, shapes[0]), _arr(draw, shapes[1])], grads)


@settings(max_examples=30)
@given(data=st.data())
def test_bce_with_logits_weights_broadcast(data):
    torch, TF = _torch()
    draw = data.draw
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3))
    w_shape = shape[draw(st.integers(0, len(shape))):]
    kw = {"reduction": draw(st.sampled_from(["mean", "sum", "none"]))}
    arrays = [_arr(draw, shape), _arr(draw, shape, 0, 1)]
    names = []
    if draw(st.booleans()):
        arrays.append(_arr(draw, w_shape, 0.1, 2))
        names.append("weight")
    if draw(st.booleans()):
        arrays.append(_arr(draw, shape[-1:], 0.1, 3))
        names.append("pos_weight")

    def call(fn):
        return lambda a, b, *w: fn(a, b, **kw, **dict(zip(names, w)))
    _check(call(rt.nnf_binary_cross_entropy_with_logits),
           call(TF.binary_cross_entropy_with_logits), arrays,
           [True, draw(st.booleans())] + [False] * len(names))


@settings(max_examples=30)
@given(data=st.data())
def test_layer_norm_shapes(data):
    torch, TF = _torch()
    draw = data.draw
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    k = draw(st.integers(1, len(shape)))
    norm = shape[len(shape) - k:]
    affine = draw(st.sampled_from(["none", "weight", "both"]))
    arrays = [_arr(draw, shape)] + [_arr(draw, norm) for _ in range(
        {"none": 0, "weight": 1, "both": 2}[affine])]
    _check(lambda x, *wb: rt.nnf_layer_norm(x, norm, *wb),
           lambda x, *wb: TF.layer_norm(x, norm, *wb), arrays, [True] * len(arrays))


@settings(max_examples=30)
@given(data=st.data())
def test_batch_norm_shapes(data):
    torch, TF = _torch()
    draw = data.draw
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=2, max_side=3))
    c = shape[1]
    training = draw(st.booleans())
    arrays = [_arr(draw, shape), _arr(draw, (c,)), _arr(draw, (c,))]
    rm, rv = _arr(draw, (c,)), _arr(draw, (c,), 0.5, 2)
    _check(lambda x, w, b: rt.nnf_batch_norm(x, rt.torch_tensor(rm), rt.torch_tensor(rv), w, b,
                                             training=training),
           lambda x, w, b: TF.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b,
                                         training=training), arrays, [True, True, True])


@settings(max_examples=30)
@given(data=st.data())
def test_embedding_index_shapes(data):
    torch, TF = _torch()
    draw = data.draw
    n, d = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    idx_shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    idx = np.random.default_rng(draw(st.integers(0, 100))).integers(0, n, idx_shape)
    pad = draw(st.sampled_from([None, 0, -1]))
    kw = {"padding_idx": pad, "scale_grad_by_freq": draw(st.booleans())}
    _check(lambda w: rt.nnf_embedding(rt.torch_tensor(idx), w, **kw),
           lambda w: TF.embedding(torch.tensor(idx), w, **kw), [_arr(draw, (n, d))], [True])


@settings(max_examples=30)
@given(data=st.data())
def test_bilinear_shapes(data):
    torch, TF = _torch()
    draw = data.draw
    lead = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    i, j, o = (draw(st.integers(1, 3)) for _ in range(3))
    arrays = [_arr(draw, lead + (i,)), _arr(draw, lead + (j,)), _arr(draw, (o, i, j))]
    if draw(st.booleans()):
        arrays.append(_arr(draw, (o,)))
    _check(rt.nnf_bilinear, TF.bilinear, arrays, [True] * len(arrays))


@settings(max_examples=30)
@given(data=st.data())
def test_activations_any_shape(data):
    torch, TF = _torch()
    draw = data.draw
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    name, kw = draw(st.sampled_from([
        ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("elu", {"alpha": 1.3}),
        ("leaky_relu", {"negative_slope": 0.3}), ("relu6", {}), ("softplus", {"beta": 3}),
        ("logsigmoid", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0})]))
    _check(lambda x: getattr(rt, "nnf_" + name)(x, **kw),
           lambda x: getattr(TF, name)(x, **kw), [_arr(draw, shape, -8, 8)], [True])
