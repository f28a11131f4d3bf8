"""Attention: nnf_scaled_dot_product_attention, nnf_multi_head_attention_forward,
nn_multihead_attention, nn_transformer_encoder_layer / nn_transformer_encoder. Values recorded
from PyTorch 2.13 for seeded modules (so CI without PyTorch checks them), live comparisons
over options when PyTorch is installed, gradients to second order, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rtorchpy as rt


def test_seeded_multihead_attention_matches_recorded_pytorch():
    rt.torch_manual_seed(5)
    m = rt.nn_multihead_attention(8, 2)
    assert [n for n, _ in m.named_parameters()] == ["in_proj_weight", "in_proj_bias",
                                                     "out_proj.weight", "out_proj.bias"]
    np.testing.assert_allclose(m.in_proj_weight._data[0, :3],
                               [-0.06893946975469589, 0.32769206166267395, 0.39922666549682617],
                               atol=1e-7)
    rt.torch_manual_seed(9)
    q = rt.torch_randn(4, 3, 8)
    o, w = m(q, q, q)
    np.testing.assert_allclose(o._data[0, 0, :3], [-0.08711912482976913, 0.3404098153114319,
                                                   0.0849752426147461], atol=2e-6)
    np.testing.assert_allclose(w._data[0, 0, :3], [0.2331157624721527, 0.1697177141904831,
                                                   0.33830198645591736], atol=2e-6)


def test_seeded_encoder_layer_matches_recorded_pytorch():
    rt.torch_manual_seed(3)
    layer = rt.nn_transformer_encoder_layer(16, 4, dim_feedforward=32, dropout=0.0)
    rt.torch_manual_seed(4)
    x = rt.torch_randn(5, 2, 16)
    np.testing.assert_allclose(layer(x)._data[0, 0, :3],
                               [-0.7088918685913086, 1.2156332731246948, 0.3217671811580658],
                               atol=5e-6)
    enc = rt.nn_transformer_encoder(layer, 2, enable_nested_tensor=False)
    assert np.array_equal(enc.layers[1].linear1.weight._data, layer.linear1.weight._data)
    assert enc.layers[1].linear1.weight is not layer.linear1.weight


def test_sdpa_masks_and_gradients():
    rng = np.random.default_rng(0)
    q = rt.torch_tensor(rng.standard_normal((2, 4, 3)), requires_grad=True)
    k = rt.torch_tensor(rng.standard_normal((2, 5, 3)), requires_grad=True)
    v = rt.torch_tensor(rng.standard_normal((2, 5, 2)), requires_grad=True)
    keep = rt.torch_tensor(rng.random((4, 5)) > 0.3)
    keep._data[:, 0] = True
    fmask = rt.torch_tensor(rng.standard_normal((4, 5)))

    def f(q, k, v):
        return (rt.nnf_scaled_dot_product_attention(q, k, v, attn_mask=keep) +
                rt.nnf_scaled_dot_product_attention(q, k, v, attn_mask=fmask, scale=0.7))
    assert rt.autograd_gradcheck(f, [q, k, v])
    assert rt.autograd_gradgradcheck(f, [q, k, v])
    c = rt.nnf_scaled_dot_product_attention(q, q, q, is_causal=True)
    np.testing.assert_allclose(c._data[:, 0], q._data[:, 0], atol=1e-12)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when "
                                           "is_causal=True"):
        rt.nnf_scaled_dot_product_attention(q, q, q, attn_mask=keep, is_causal=True)


def test_multihead_gradients_second_order():
    m = rt.nn_multihead_attention(4, 2, add_bias_kv=True).to(dtype=rt.torch_float64())
    x = rt.torch_randn(3, 2, 4, dtype=rt.torch_float64(), requires_grad=True)
    kpm = rt.torch_tensor(np.array([[False, False, True], [False, False, False]]))
    assert rt.autograd_gradgradcheck(lambda x: m(x, x, x, key_padding_mask=kpm)[0], [x])


def test_multihead_errors_and_shapes():
    m = rt.nn_multihead_attention(8, 2)
    with pytest.raises(RuntimeError, match="was expecting embedding dimension of 8, but got 6"):
        m(rt.torch_randn(3, 2, 6), rt.torch_randn(3, 2, 6), rt.torch_randn(3, 2, 6))
    with pytest.raises(RuntimeError, match=r"expecting key_padding_mask shape of \(2, 3\)"):
        x = rt.torch_randn(3, 2, 8)
        m(x, x, x, key_padding_mask=rt.torch_zeros(2, 4, dtype=rt.torch_bool()))
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        rt.nn_multihead_attention(8, 3)
    o, w = m(rt.torch_randn(3, 8), rt.torch_randn(5, 8), rt.torch_randn(5, 8))
    assert tuple(o.shape) == (3, 8) and tuple(w.shape) == (3, 5)
    o, w = m(rt.torch_randn(3, 2, 8), rt.torch_randn(5, 2, 8), rt.torch_randn(5, 2, 8),
             need_weights=False)
    assert w is None


@pytest.mark.parametrize("seed", range(4))
def test_multihead_against_pytorch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    opts = [dict(), dict(kdim=3, vdim=5), dict(add_bias_kv=True, add_zero_attn=True),
            dict(batch_first=True, bias=False)][seed]
    torch.manual_seed(seed)
    rt.torch_manual_seed(seed)
    tm, rm = torch.nn.MultiheadAttention(8, 2, **opts).double(), \
        rt.nn_multihead_attention(8, 2, **opts).to(dtype=rt.torch_float64())
    bf = opts.get("batch_first", False)
    L, S, N = 4, 6, 3
    shp = (lambda n, e: (N, n, e)) if bf else (lambda n, e: (n, N, e))
    q = rng.standard_normal(shp(L, 8))
    k = rng.standard_normal(shp(S, opts.get("kdim", 8)))
    v = rng.standard_normal(shp(S, opts.get("vdim", 8)))
    kpm = np.zeros((N, S), bool)
    kpm[0, -2:] = True
    am = rng.random((L, S)) > 0.8
    qt, qr = torch.tensor(q, requires_grad=True), rt.torch_tensor(q, requires_grad=True)
    for avg in (True, False):
        ot, wt = tm(qt, torch.tensor(k), torch.tensor(v), key_padding_mask=torch.tensor(kpm),
                    attn_mask=torch.tensor(am), average_attn_weights=avg)
        orr, wr = rm(qr, rt.torch_tensor(k), rt.torch_tensor(v),
                     key_padding_mask=rt.torch_tensor(kpm), attn_mask=rt.torch_tensor(am),
                     average_attn_weights=avg)
        np.testing.assert_allclose(orr._data, ot.detach().numpy(), atol=1e-12)
        np.testing.assert_allclose(wr._data, wt.detach().numpy(), atol=1e-12)
    (ot.sum() + wt.pow(2).sum()).backward()
    (orr.sum() + wr.pow(2).sum()).backward()
    np.testing.assert_allclose(qr.grad._data, qt.grad.numpy(), atol=1e-12)
    for (n, p), (_, r) in zip(tm.named_parameters(), rm.named_parameters()):
        np.testing.assert_allclose(r.grad._data, p.grad.numpy(), atol=1e-11, err_msg=n)


@pytest.mark.parametrize("opts", [dict(), dict(norm_first=True, activation="gelu",
                                                batch_first=True)])
def test_encoder_against_pytorch(opts):
    torch = pytest.importorskip("torch")
    torch.manual_seed(3)
    rt.torch_manual_seed(3)
    tl = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, **opts)
    rl = rt.nn_transformer_encoder_layer(16, 4, dim_feedforward=32, dropout=0.0, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        te = torch.nn.TransformerEncoder(tl, 2, enable_nested_tensor=False)
    re_ = rt.nn_transformer_encoder(rl, 2)
    x = np.random.default_rng(1).standard_normal((3, 5, 16)).astype(np.float32)
    xt, xr = torch.tensor(x, requires_grad=True), rt.torch_tensor(x, requires_grad=True)
    n = 5 if opts.get("batch_first") else 3
    ot = te(xt, mask=torch.nn.Transformer.generate_square_subsequent_mask(n), is_causal=True)
    orr = re_(xr, is_causal=True)
    np.testing.assert_allclose(orr._data, ot.detach().numpy(), atol=2e-5)
    ot.pow(2).sum().backward()
    orr.pow(2).sum().backward()
    np.testing.assert_allclose(xr.grad._data, xt.grad.numpy(), atol=5e-5)


def test_embedding_bag_recorded_and_modes():
    rt.torch_manual_seed(2)
    m = rt.nn_embedding_bag(5, 3, mode="sum")
    np.testing.assert_allclose(m.weight._data[0], [0.39229682087898254, -0.223564013838768,
                                                   -0.31950026750564575], atol=1e-7)
    out = m(rt.torch_tensor(np.array([[1, 2], [4, 0]])))
    np.testing.assert_allclose(out._data[0], [-0.6319303512573242, 1.5854109525680542,
                                              -1.0251336097717285], atol=1e-6)
    flat = m(rt.torch_tensor(np.array([1, 2, 4, 0])), offsets=rt.torch_tensor(np.array([0, 2])))
    np.testing.assert_allclose(flat._data, out._data, atol=1e-6)
    w = rt.torch_randn(6, 2, dtype=rt.torch_float64(), requires_grad=True)
    idx = rt.torch_tensor(np.array([0, 3, 3, 5, 1]))
    offs = rt.torch_tensor(np.array([0, 2, 2]))
    for mode in ("sum", "mean", "max"):
        assert rt.autograd_gradgradcheck(
            lambda w: rt.nnf_embedding_bag(idx, w, offs, mode=mode), [w])
    with pytest.raises(ValueError, match="offsets has to be None"):
        rt.nnf_embedding_bag(rt.torch_tensor(np.array([[0, 1]])), w, offs)
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        rt.nnf_embedding_bag(idx, w, offs, per_sample_weights=rt.torch_ones(5))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_against_pytorch(mode):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    W = rng.standard_normal((10, 3))
    for case in range(4):
        inp = rng.integers(0, 10, (4, 5)) if case == 0 else rng.integers(0, 10, 9)
        offs = None if case == 0 else (np.array([0, 2, 2, 7]) if case != 3
                                       else np.array([0, 3, 3, 9]))
        psw = rng.standard_normal(inp.shape) if mode == "sum" and case == 1 else None
        kw = dict(mode=mode, include_last_offset=case == 3, padding_idx=2 if case == 2 else None)
        wt, wr = torch.tensor(W, requires_grad=True), rt.torch_tensor(W, requires_grad=True)
        a = torch.nn.functional.embedding_bag(
            torch.tensor(inp), wt, None if offs is None else torch.tensor(offs),
            per_sample_weights=None if psw is None else torch.tensor(psw), **kw)
        b = rt.nnf_embedding_bag(
            rt.torch_tensor(inp), wr, None if offs is None else rt.torch_tensor(offs),
            per_sample_weights=None if psw is None else rt.torch_tensor(psw), **kw)
        np.testing.assert_allclose(b._data, a.detach().numpy(), atol=1e-12)
        g = rng.standard_normal(tuple(a.shape))
        (a * torch.tensor(g)).sum().backward()
        (b * rt.torch_tensor(g)).sum().backward()
        np.testing.assert_allclose(wr.grad._data, wt.grad.numpy(), atol=1e-12)
