"""Convolution, padding and pooling against PyTorch 2.13: values, backward node names, first
and second derivatives on random kernels, strides, paddings, dilations and groups. Live when
PyTorch is installed; the recorded answers (``fixtures/conv_recorded.json``, made by
``record_conv.py``) are checked either way."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import rtorchpy as rt
from _conv_cases import (adaptive_case, affine_grid_case, conv_case, fold_case,
                         grid_sample_case, inputs, interp_case, pad_case, pool_case)

MAKERS = {"conv_case": conv_case, "pad_case": pad_case, "pool_case": pool_case,
          "adaptive_case": adaptive_case, "fold_case": fold_case, "interp_case": interp_case,
          "grid_sample_case": grid_sample_case, "affine_grid_case": affine_grid_case}
# composed of recorded ops: their graphs do not show libtorch's single node
COMPOSED = ("grid_sample", "affine_grid")
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" /
                       "conv_recorded.json").read_text())


def ours(fn, args, arrays, rng):
    """rtorchpy's answer in the recorder's layout (same draws from ``rng``)."""
    ts = [rt.torch_tensor(a, requires_grad=True) for a in arrays]
    out = getattr(rt, "nnf_" + fn)(*ts, **args)
    gy = rt.torch_tensor(rng.standard_normal(out.shape), requires_grad=True)
    grads = rt.autograd_grad([out], ts, [gy], create_graph=True)
    ws = [rt.torch_tensor(rng.standard_normal(t.shape)) for t in ts]
    total = None
    for g, w in zip(grads, ws):
        if g.requires_grad:
            total = (g * w).sum() if total is None else total + (g * w).sum()
    second = ([None] * (len(ts) + 1) if total is None else
              rt.autograd_grad([total], [gy] + ts, allow_unused=True))
    return out, grads, second


def _close(a, b):
    np.testing.assert_allclose(a, np.asarray(b, dtype=np.float64), rtol=1e-7, atol=1e-8)


def _same_second(ours_, want):
    """A second derivative; an unused input (None) on either side is a zero one."""
    if want is None:
        assert ours_ is None or not np.any(ours_._data)
    elif ours_ is None:
        assert not np.any(want)
    else:
        _close(ours_._data, want)


@pytest.mark.parametrize("case", RECORDED, ids=lambda c: f"{c['maker']}-{c['seed']}")
def test_recorded(case):
    fn, args, shapes = MAKERS[case["maker"]](case["seed"])
    arrays, rng = inputs(case["seed"], shapes)
    if "error" in case:
        with pytest.raises(RuntimeError) as info:
            ours(fn, args, arrays, rng)
        if "wrapping" not in str(info.value):
            assert str(info.value) == case["error"]
        return
    if fn == "pad" and args["mode"] == "circular" and "CopySlices" in case["name"]:
        case = dict(case, name=f"CircularPad{len(args['pad']) // 2}DBackward0")
    out, grads, second = ours(fn, args, arrays, rng)
    assert fn in COMPOSED or out.grad_fn.name == case["name"]
    _close(out.detach()._data, case["out"])
    for g, want in zip(grads, case["grads"]):
        _close(g.detach()._data, want)
    for s, want in zip(second, case["second"]):
        _same_second(s, want)


@pytest.mark.parametrize("seed", range(100, 140))
@pytest.mark.parametrize("maker", sorted(MAKERS))
def test_live_against_pytorch(maker, seed):
    torch = pytest.importorskip("torch")
    import record_conv
    fn, args, shapes = MAKERS[maker](seed)
    arrays, rng = inputs(seed, shapes)
    try:
        want = record_conv.torch_answer(fn, args, arrays, rng)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as info:
            ours(fn, args, *inputs(seed, shapes))
        if "wrapping" not in str(info.value):
            assert str(info.value) == str(e).split("\n")[0]
        return
    del torch
    out, grads, second = ours(fn, args, *inputs(seed, shapes))
    if not (fn == "pad" and args["mode"] == "circular") and fn not in COMPOSED:
        assert out.grad_fn.name == want["name"]
    _close(out.detach()._data, want["out"])
    for g, w in zip(grads, want["grads"]):
        _close(g.detach()._data, w)
    for s, w in zip(second, want["second"]):
        _same_second(s, w)


def test_float32_conv2d_close_to_float64():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 9, 9)), rng.standard_normal((4, 3, 3, 3))
    y64 = rt.nnf_conv2d(rt.torch_tensor(x), rt.torch_tensor(w), padding=1)._data
    y32 = rt.nnf_conv2d(rt.torch_tensor(x.astype(np.float32)),
                        rt.torch_tensor(w.astype(np.float32)), padding=1)
    assert y32._data.dtype == np.float32
    np.testing.assert_allclose(y32._data, y64, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call, message", [
    (lambda: rt.nnf_conv2d(rt.torch_randn(1, 5, 8, 8), rt.torch_randn(4, 3, 3, 3)),
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 5, 8, 8] to have 3 "
     "channels, but got 5 channels instead"),
    (lambda: rt.nnf_conv2d(rt.torch_randn(1, 3, 2, 2), rt.torch_randn(4, 3, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
     "can't be greater than actual input size"),
    (lambda: rt.nnf_conv2d(rt.torch_randn(1, 6, 8, 8), rt.torch_randn(3, 3, 3, 3), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
     "size [[3, 3, 3, 3]] instead"),
    (lambda: rt.nnf_conv2d(rt.torch_randn(1, 3, 8, 8), rt.torch_randn(4, 3, 3, 3), stride=2,
                           padding="same"),
     "padding='same' is not supported for strided convolutions"),
    (lambda: rt.nnf_conv2d(rt.torch_randn(2, 3), rt.torch_randn(4, 3, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]"),
    (lambda: rt.nnf_max_pool2d(rt.torch_randn(1, 1, 4, 4), 3, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    (lambda: rt.nnf_pad(rt.torch_randn(2, 3, 5), [5, 5], mode="reflect"),
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (5, 5) at dimension 2 of input [2, 3, 5]"),
])
def test_libtorch_error_texts(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_modules_padding_modes_and_gradients():
    rt.torch_manual_seed(0)
    x = rt.torch_randn(2, 3, 6, 6, dtype=rt.torch_float64(), requires_grad=True)
    for mode in ("zeros", "reflect", "replicate", "circular"):
        m = rt.nn_conv2d(3, 4, 3, padding="same", padding_mode=mode, dtype=rt.torch_float64())
        assert m(x).shape == (2, 4, 6, 6)
        assert rt.autograd_gradcheck(lambda a: m(a), (x,))
    m = rt.nn_conv_transpose2d(3, 2, 3, stride=2, output_padding=1)
    assert m(rt.torch_randn(1, 3, 4, 4)).shape == (1, 2, 10, 10)
    assert rt.nn_conv1d(4, 8, 3, groups=4).weight.shape == (8, 1, 3)


COMPOSITES = [("normalize", {}, (3, 4, 5)), ("normalize", {"p": 1.0, "dim": 2}, (3, 4, 5)),
              ("lp_pool2d", {"norm_type": 2, "kernel_size": 2}, (2, 3, 6, 7)),
              ("lp_pool1d", {"norm_type": 3, "kernel_size": 3, "stride": 2}, (2, 3, 9)),
              ("local_response_norm", {"size": 3}, (2, 5, 7)),
              ("local_response_norm", {"size": 4, "alpha": 0.1, "beta": 0.5, "k": 2.0},
               (2, 6, 4, 5))]


@pytest.mark.parametrize("fn, args, shape", COMPOSITES)
def test_composites_against_pytorch(fn, args, shape):
    torch = pytest.importorskip("torch")
    x = np.abs(np.random.default_rng(len(shape)).standard_normal(shape)) + 0.1
    tx = torch.tensor(x, requires_grad=True)
    rx = rt.torch_tensor(x, requires_grad=True)
    ty = getattr(torch.nn.functional, fn)(tx, **args)
    ry = getattr(rt, "nnf_" + fn)(rx, **args)
    assert ry.grad_fn.name == ty.grad_fn.name()
    _close(ry.detach()._data, ty.detach().numpy())
    (tg,) = torch.autograd.grad(ty.sum(), tx)
    (rg,) = rt.autograd_grad([ry.sum()], [rx])
    _close(rg._data, tg.numpy())


def test_composites_against_their_formulas():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 7))
    r = rt.torch_tensor(x)
    np.testing.assert_allclose(rt.nnf_normalize(r)._data,
                               x / np.linalg.norm(x, axis=1, keepdims=True))
    # lp pooling with norm_type 1 on positive values is sum pooling
    pos = np.abs(x)
    np.testing.assert_allclose(rt.nnf_lp_pool1d(rt.torch_tensor(pos), 1, 7)._data,
                               pos.sum(axis=2, keepdims=True))
    sq = np.pad(x * x, ((0, 0), (1, 1), (0, 0)))
    mean = (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3
    np.testing.assert_allclose(rt.nnf_local_response_norm(r, 3)._data,
                               x / (1 + 1e-4 * mean) ** 0.75)


@pytest.mark.parametrize("seed", range(60))
def test_grid_sample_against_pytorch(seed):
    """2-d and 3-d, every mode and padding mode, grids reaching well outside the input."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    nd = 2 if seed % 3 else 3
    n, c = 2, int(rng.integers(1, 3))
    spatial = tuple(int(v) for v in rng.integers(1, 6, nd))
    out = tuple(int(v) for v in rng.integers(1, 5, nd))
    args = {"mode": str(rng.choice(["bilinear", "nearest", "bicubic"][:5 - nd])),
            "padding_mode": str(rng.choice(["zeros", "border", "reflection"])),
            "align_corners": bool(rng.random() < 0.5)}
    x, g = rng.standard_normal((n, c) + spatial), rng.uniform(-2.5, 2.5, (n,) + out + (nd,))
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    rx, rg = rt.torch_tensor(x, requires_grad=True), rt.torch_tensor(g, requires_grad=True)
    ty = torch.nn.functional.grid_sample(tx, tg, **args)
    ry = rt.nnf_grid_sample(rx, rg, **args)
    _close(ry.detach()._data, ty.detach().numpy())
    go = rng.standard_normal(tuple(ty.shape))
    want = torch.autograd.grad(ty, [tx, tg], torch.tensor(go))
    got = rt.autograd_grad([ry], [rx, rg], [rt.torch_tensor(go)], allow_unused=True)
    for a, b in zip(got, want):  # nearest: the grid is unused here, a zero gradient there
        _close(np.zeros(b.shape) if a is None else a._data, b.numpy())


def test_grid_sample_identity_and_gradcheck():
    rng = np.random.default_rng(5)
    # (two channels are enough to sum the grid's gradient over channels; a third only made
    # the numerical second derivatives slower)
    x = rt.torch_tensor(rng.standard_normal((2, 2, 4, 5)), requires_grad=True)
    theta = rt.torch_tensor(np.tile([[1.0, 0, 0], [0, 1.0, 0]], (2, 1, 1)))
    for corners in (False, True):
        grid = rt.nnf_affine_grid(theta, (2, 2, 4, 5), corners)
        same = rt.nnf_grid_sample(x, grid, align_corners=corners)
        np.testing.assert_allclose(same.detach()._data, x.detach()._data, atol=1e-12)
    grid = rt.torch_tensor(rng.uniform(-1.2, 1.2, (2, 3, 2, 2)), requires_grad=True)
    assert rt.autograd_gradcheck(lambda a, g: rt.nnf_grid_sample(a, g, padding_mode="border"),
                                 (x, grid))
    assert rt.autograd_gradgradcheck(lambda a, g: rt.nnf_grid_sample(a, g), (x, grid))
    for mode, padding in (("bicubic", "reflection"), ("bicubic", "border"),
                          ("bilinear", "reflection")):
        def f(a, g):
            return rt.nnf_grid_sample(a, g, mode=mode, padding_mode=padding)
        assert rt.autograd_gradcheck(f, (x, grid)) and rt.autograd_gradgradcheck(f, (x, grid))
    # volumes: a 3-d identity grid samples the input back; trilinear gradients
    v = rt.torch_tensor(rng.standard_normal((1, 2, 3, 4, 2)), requires_grad=True)
    theta = rt.torch_tensor(np.tile(np.eye(3, 4), (1, 1, 1)))
    for corners in (False, True):
        grid = rt.nnf_affine_grid(theta, (1, 2, 3, 4, 2), corners)
        assert grid.shape == (1, 3, 4, 2, 3)
        same = rt.nnf_grid_sample(v, grid, padding_mode="reflection", align_corners=corners)
        np.testing.assert_allclose(same.detach()._data, v.detach()._data, atol=1e-12)
    grid = rt.torch_tensor(rng.uniform(-1.5, 1.5, (1, 2, 1, 2, 3)), requires_grad=True)
    assert rt.autograd_gradcheck(
        lambda a, g: rt.nnf_grid_sample(a, g, padding_mode="reflection"), (v, grid))


@pytest.mark.parametrize("call, message", [
    (lambda: rt.nnf_grid_sample(rt.torch_randn(1, 2, 3, 3, 3), rt.torch_zeros(1, 2, 2, 2, 3),
                                mode="bicubic"),
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    (lambda: rt.nnf_grid_sample(rt.torch_randn(1, 2, 3, 3), rt.torch_zeros(1, 2, 2, 3)),
     "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
     "[1, 2, 2, 3]"),
    (lambda: rt.nnf_grid_sample(rt.torch_randn(1, 2, 3, 3, 3), rt.torch_zeros(1, 2, 2, 3)),
     "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input "
     "with sizes [1, 2, 3, 3, 3] and grid with sizes [1, 2, 2, 3]"),
    (lambda: rt.nnf_grid_sample(rt.torch_randn(1, 2, 3, 3),
                                rt.torch_zeros(1, 2, 2, 2, dtype=rt.torch_float64())),
     "expected scalar type Float but found Double"),
])
def test_grid_sample_error_texts(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_grid_sample_and_affine_grid_value_errors():
    x = rt.torch_randn(1, 1, 2, 2)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or "
                                         "'reflection', but got: 'mirror'"):
        rt.nnf_grid_sample(x, rt.torch_zeros(1, 1, 1, 2), padding_mode="mirror")
    with pytest.raises(ValueError, match=r"Expected a batch of 3D affine matrices of shape "
                                         r"Nx3x4 for size \[1, 1, 2, 2, 2\]"):
        rt.nnf_affine_grid(rt.torch_zeros(1, 2, 3), (1, 1, 2, 2, 2))
    with pytest.raises(ValueError, match="Expected non-zero, positive output size"):
        rt.nnf_affine_grid(rt.torch_zeros(1, 3, 4), (1, 1, 2, 2, 0))
    with pytest.raises(NotImplementedError, match="only supports 4D and 5D sizes"):
        rt.nnf_affine_grid(rt.torch_zeros(1, 3, 4), (1, 1, 2))


def test_more_image_modules_and_alpha_dropout():
    assert rt.nn_pixel_shuffle(2)(rt.torch_randn(1, 8, 2, 2)).shape == (1, 2, 4, 4)
    assert rt.nn_unfold(2)(rt.torch_randn(1, 2, 3, 3)).shape == (1, 8, 4)
    assert rt.nn_fold((3, 3), 2)(rt.torch_randn(1, 8, 4)).shape == (1, 2, 3, 3)
    assert rt.nn_lp_pool2d(2, 2)(rt.torch_rand(1, 1, 4, 4)).shape == (1, 1, 2, 2)
    assert rt.nn_local_response_norm(2)(rt.torch_randn(1, 3, 4)).shape == (1, 3, 4)
    assert rt.nn_upsample(scale_factor=2, mode="bilinear")(rt.torch_randn(1, 1, 2, 2)).shape \
        == (1, 1, 4, 4)
    # alpha dropout keeps a standard normal input's mean and variance
    x = rt.torch_randn(200_000, dtype=rt.torch_float64())
    y = rt.nnf_alpha_dropout(x, 0.2, training=True)
    assert abs(float(y.mean())) < 0.01 and abs(float(y.std()) - 1) < 0.01
    assert rt.nnf_alpha_dropout(x, 0.2) is x
    d = rt.nn_alpha_dropout(0.5)
    d.eval()
    assert d(x) is x


def test_channel_dropout_ranks_and_draws_as_pytorch():
    """dropout2d takes a 3-d input as (N, C, L) and other ranks with a warning; dropout3d adds
    a batch dim to inputs that are not 5-d. Masks drawn from the same generator state as
    PyTorch 2.13's: the first element of each (sample, channel) pair, recorded for seed 7."""
    x = rt.torch_ones(3, 4, 5)
    rt.torch_manual_seed(7)
    with pytest.warns(UserWarning, match="3D input to dropout2d"):
        y = rt.nnf_dropout2d(x).numpy()
    assert (y == y[:, :, :1]).all()
    assert y[:, :, 0].tolist() == [[2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0],
                                   [0.0, 0.0, 2.0, 2.0]]
    with pytest.warns(UserWarning, match="2-D input to dropout3d"):
        assert rt.nnf_dropout3d(rt.torch_ones(3, 4)).shape == (3, 4)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        with pytest.warns(UserWarning):
            rt.nnf_dropout2d(rt.torch_ones(5))


def test_conv_transpose_output_size_and_normalize_out():
    up = rt.nn_conv_transpose2d(2, 3, 3, stride=2, padding=1)
    h = rt.torch_randn(1, 2, 5, 5)
    assert up(h).shape == (1, 3, 9, 9)
    assert up(h, output_size=(1, 3, 10, 9)).shape == (1, 3, 10, 9)
    with pytest.raises(ValueError, match=r"valid sizes range from \[9, 9\] to \[10, 10\]"):
        up(h, output_size=(11, 11))
    out = rt.torch_empty(2)
    assert rt.nnf_normalize(rt.torch_tensor([3.0, 4.0]), dim=0, out=out) is out
    assert out.tolist() == pytest.approx([0.6, 0.8])


# torch.conv_tbc's first time step for the arange inputs below (PyTorch 2.13)
TBC_FIRST_ROW = [1.84, 1.08, 2.38, 1.80]


def test_torch_layer_functions_are_the_nnf_computations():
    rng = np.random.default_rng(5)
    x = rt.torch_tensor(rng.standard_normal((2, 4, 6, 6)))
    w = rt.torch_tensor(rng.standard_normal((3, 4, 3, 3)))
    assert np.array_equal(rt.torch_conv2d(x, w, None, 2, 1).numpy(),
                          rt.nnf_conv2d(x, w, None, 2, 1).numpy())
    rm, rv = rt.torch_zeros(4, dtype=rt.torch_float64()), rt.torch_ones(4, dtype=rt.torch_float64())
    y = rt.torch_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5, False)
    assert np.array_equal(y.numpy(), rt.nnf_batch_norm(x, None, None, training=True).numpy())
    assert abs(rm.numpy()).sum() > 0
    s = rt.torch_channel_shuffle(rt.torch_arange(6).view(1, 6, 1), 3)
    assert s.flatten().tolist() == [0, 2, 4, 1, 3, 5]
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups"):
        rt.torch_channel_shuffle(x, 3)
    # conv_tbc: recorded from PyTorch 2.13 (torch.conv_tbc of these arange inputs, pad 1)
    t = rt.torch_arange(24, dtype=rt.torch_float64()).view(4, 2, 3) / 10
    k = rt.torch_arange(18, dtype=rt.torch_float64()).view(3, 3, 2) / 10 - 0.8
    out = rt.torch_conv_tbc(t, k, rt.torch_tensor([0.5, -0.5], dtype=rt.torch_float64()), 1)
    assert out.shape == (4, 2, 2)
    assert out[0].numpy().ravel().tolist() == pytest.approx(TBC_FIRST_ROW)


def test_torch_layer_functions_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 6, 5, 5))
    w = rng.standard_normal((3, 6, 2, 2))
    tx, tw = torch.tensor(x), torch.tensor(w)
    rx, rw = rt.torch_tensor(x), rt.torch_tensor(w)
    pairs = [
        (rt.torch_conv2d(rx, rw, None, 1, 1, 2), torch.conv2d(tx, tw, None, 1, 1, 2)),
        (rt.torch_conv_transpose2d(rx, rt.torch_tensor(w.transpose(1, 0, 2, 3)), None, 2),
         torch.conv_transpose2d(tx, tw.transpose(0, 1), None, 2)),
        (rt.torch_max_pool2d(rx, 2, 1, 1, 2), torch.max_pool2d(tx, 2, 1, 1, 2)),
        (rt.torch_avg_pool1d(rx[:, :, 0], 2, 2, 1, True, False),
         torch.avg_pool1d(tx[:, :, 0], 2, 2, 1, True, False)),
        (rt.torch_layer_norm(rx, [5, 5]), torch.layer_norm(tx, [5, 5])),
        (rt.torch_group_norm(rx, 3), torch.group_norm(tx, 3)),
        (rt.torch_instance_norm(rx, None, None, None, None, True, 0.1, 1e-5, False),
         torch.instance_norm(tx, None, None, None, None, True, 0.1, 1e-5, False)),
        (rt.torch_channel_shuffle(rx, 2), torch.channel_shuffle(tx, 2)),
        (rt.torch_constant_pad_nd(rx, [1, -1, 2, 0], 3.0),
         torch.constant_pad_nd(tx, [1, -1, 2, 0], 3.0)),
        (rt.torch_pixel_unshuffle(rx[:, :, :4, :4], 2), torch.pixel_unshuffle(tx[:, :, :4, :4], 2)),
        (rt.torch_adaptive_max_pool1d(rx[:, :, 0], 3)[1],
         torch.adaptive_max_pool1d(tx[:, :, 0], 3)[1]),
        (rt.torch_embedding(rx[0, 0], rt.torch_tensor([[0, 4], [2, 2]])),
         torch.embedding(tx[0, 0], torch.tensor([[0, 4], [2, 2]]))),
    ]
    for mine, theirs in pairs:
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    t = torch.arange(24, dtype=torch.float64).view(4, 2, 3) / 10
    k = torch.arange(18, dtype=torch.float64).view(3, 3, 2) / 10 - 0.8
    out = torch.conv_tbc(t, k, torch.tensor([0.5, -0.5], dtype=torch.float64), 1)
    assert out[0].numpy().ravel().tolist() == pytest.approx(TBC_FIRST_ROW)


# PyTorch 2.13, seed 5: F.fractional_max_pool{2,3}d(x, 2, output_size=..., return_indices=True)
# of x = ((arange(n) * 37) % 101) / 10 in float32; the indices of the first and last planes
FRACTIONAL = {
    2: ((2, 3, 9, 9), (4, 5),
        [10, 2, 13, 5, 8, 19, 30, 30, 24, 35, 46, 38, 49, 51, 43, 73, 65, 76, 68, 79],
        [1, 1, 4, 15, 7, 18, 29, 31, 23, 26, 37, 37, 48, 42, 53, 64, 64, 67, 78, 80],
        1025.300048828125),
    3: ((1, 2, 6, 6, 6), (3, 2, 3),
        [43, 8, 46, 30, 68, 35, 79, 117, 76, 139, 98, 106, 150, 188, 191, 210, 177, 215],
        [43, 2, 46, 24, 32, 35, 114, 117, 76, 103, 141, 106, 144, 147, 155, 174, 177, 215],
        326.1000061035156),
}


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_seeded_as_pytorch(nd):
    shape, out, first, last, total = FRACTIONAL[nd]
    n = int(np.prod(shape))
    x = rt.torch_tensor((((np.arange(n) * 37) % 101) / 10).astype(np.float32)).view(*shape)
    rt.torch_manual_seed(5)
    fn = getattr(rt, f"nnf_fractional_max_pool{nd}d")
    v, i = fn(x.requires_grad_(), 2, output_size=out, return_indices=True)
    assert i[0, 0].flatten().tolist() == first and i[-1, -1].flatten().tolist() == last
    assert float(v.sum()) == pytest.approx(total, rel=1e-6)
    assert v.grad_fn.name == f"FractionalMaxPool{nd}DBackward0"
    v.sum().backward()
    assert float(x.grad.sum()) == v.numel()  # every output's 1 lands on its maximum
    # the module draws afresh at each call; output_ratio scales the input's size
    m = getattr(rt, f"nn_fractional_max_pool{nd}d")(2, output_ratio=0.5)
    assert m(x).shape == shape[:2] + tuple(s // 2 for s in shape[2:])


def test_fractional_max_pool_errors():
    x = rt.torch_randn(2, 3, 7, 6)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an "
                                         "output_ratio"):
        rt.nnf_fractional_max_pool2d(x, 3)
    with pytest.raises(RuntimeError, match=r"^fractional_max_pool2d\(\): pool width 3 too large "
                                           "relative to input width 6$"):
        rt.nnf_fractional_max_pool2d(x, 3, output_size=(5, 6))
    with pytest.raises(RuntimeError, match=r"^fractional_max_pool3d_out\(\): pool time 7 too "
                                           "large relative to input time 7$"):
        rt.nnf_fractional_max_pool3d(rt.torch_randn(2, 3, 7, 6, 5), (7, 2, 2),
                                     output_size=(3, 2, 2))
    with pytest.raises(RuntimeError, match=r"Expect _random_samples.size\(2\) equals to 2; got 3"):
        rt.nnf_fractional_max_pool2d(x, 3, output_size=2, _random_samples=rt.torch_rand(2, 3, 3))
    with pytest.raises(RuntimeError, match="same dtype as input"):
        rt.nnf_fractional_max_pool2d(x, 3, output_size=2, _random_samples=rt.torch_rand(
            2, 3, 2, dtype=rt.torch_float64()))
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        rt.nn_fractional_max_pool2d(2, output_size=2, output_ratio=0.5)


@pytest.mark.parametrize("seed", range(20))
def test_fractional_max_pool_against_pytorch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    nd = 2 + seed % 2
    dt = (np.float32, np.float64)[(seed // 2) % 2]
    kernel = tuple(int(v) for v in rng.integers(1, 4, nd))
    sizes = tuple(k + int(rng.integers(nd - 1, 6)) for k in kernel)
    out = tuple(int(rng.integers(1, s - k + 2 - (nd == 3))) for s, k in zip(sizes, kernel))
    x = rng.standard_normal((2, 3) + sizes).astype(dt)
    u = rng.random((2, 3, nd)).astype(dt)
    tx = torch.tensor(x, requires_grad=True)
    fn = getattr(torch.nn.functional, f"fractional_max_pool{nd}d")
    tv, ti = fn(tx, kernel, output_size=out, return_indices=True, _random_samples=torch.tensor(u))
    rx = rt.torch_tensor(x, requires_grad=True)
    rv, ri = getattr(rt, f"nnf_fractional_max_pool{nd}d")(
        rx, kernel, output_size=out, return_indices=True, _random_samples=rt.torch_tensor(u))
    assert np.array_equal(ri.numpy(), ti.numpy())
    assert np.array_equal(rv.detach().numpy(), tv.detach().numpy())
    g = rng.standard_normal(tuple(tv.shape)).astype(dt)
    tv.backward(torch.tensor(g))
    rv.backward(rt.torch_tensor(g))
    # (float32: an element that is several windows' maximum sums in another order)
    np.testing.assert_allclose(rx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
