"""nnf_mish, nnf_rrelu's training mode, nnf_contrib_sparsemax, nnf_multilabel_margin_loss and
nnf_ctc_loss (and their modules): values and gradients recorded from PyTorch 2.13 (so CI without
PyTorch checks them), live comparisons when PyTorch is installed, gradient checks, bad input."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

X = np.array([[-2.5, -0.3, 0.0, 0.7], [1.5, -1.1, 3.0, -4.0]])

MISH = ([[-0.19681620390653337, -0.15113317713833455, 0.0, 0.5611483776438518],
         [1.4033782663958028, -0.30764844730240204, 2.9865350049679575, -0.07259174079202535]],
        [[-0.10974357275018566, 0.40851087693570215, 0.6, 0.9687948682001859],
         [1.0884879850078475, 0.02645495317510444, 1.0211069109294435, -0.05377320979348033]])
MLM = ([1.75, 0.9], [[-0.5, 0.5, 0.5, -0.5], [0.25, -0.25, 0.0, 0.0]])
# torch.manual_seed(42); F.rrelu(float32 X, training=True), its gradient, then torch.rand(2)
RRELU = ([[-0.34278881549835205, -0.041431888937950134, 0.0, 0.699999988079071],
          [1.5, -0.14954961836338043, 3.0, -0.9384766221046448]],
         [[0.13711552321910858, 0.13810628652572632, 0.15074710547924042, 1.0],
          [1.0, 0.13595420122146606, 1.0, 0.2346191555261612]],
         [0.9345980882644653, 0.5935796499252319])
CTC = [6.248234874462638, 3.134033397761906]
CTC_MEAN, CTC_SUM = 2.6083891779580597, 9.382268272224545
CTC_GRAD = [
    [[0.084921381886, -0.607524737823, 0.357004201956, 0.165599153981],
     [-0.244093285105, 0.108349696411, -0.409522984077, 0.545266572771]],
    [[0.279166373527, 0.09785437634, 0.112748764066, -0.489769513934],
     [-0.029879352037, 0.226657606481, -0.482083984013, 0.285305729568]],
    [[-0.256844317407, 0.138245839361, 0.170620840909, -0.052022362864],
     [-0.276080643022, 0.371132776481, -0.164022976038, 0.068970842578]],
    [[-0.42643480437, 0.14536722387, 0.355730463767, -0.074662883267],
     [-0.457210782443, 0.179681269986, 0.044589538495, 0.232939973963]],
    [[-0.113075324497, 0.399545416938, 0.24950981902, -0.535979911461],
     [0.0, 0.0, 0.0, 0.0]]]


JITTER = np.random.default_rng(3).uniform(-0.05, 0.05, X.shape)  # away from the kinks


def leaf(a, dtype=None):
    return rt.torch_tensor(np.asarray(a), dtype=dtype, requires_grad=True)


def _ctc_inputs():
    lp = rt.nnf_log_softmax(rt.torch_tensor(np.sin(np.arange(40.0)).reshape(5, 2, 4)), 2)
    return leaf(lp.detach().numpy()), rt.torch_tensor(np.array([[1, 3, 3], [2, 0, 0]]))


# ---------------------------------------------------------------------------------- mish

def test_mish_values_gradient_and_node():
    x = leaf(X)
    y = rt.nnf_mish(x)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), MISH[0], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(x.grad.detach().numpy(), MISH[1], rtol=1e-14, atol=1e-16)
    assert y.grad_fn.name == "MishBackward0"
    assert rt.autograd_gradgradcheck(rt.nnf_mish, (leaf(X + 0.01),))
    assert np.allclose(rt.nn_mish()(rt.torch_tensor(X)).detach().numpy(), MISH[0])


def test_mish_inplace_and_float32():
    x = rt.torch_tensor(X.astype(np.float32))
    out = rt.nnf_mish(x, inplace=True)
    assert out is x and x.dtype == rt.torch_float32()
    np.testing.assert_allclose(x.detach().numpy(), MISH[0], rtol=1e-6)


# ---------------------------------------------------------------------------------- rrelu

def test_rrelu_training_draws_libtorch_slopes():
    rt.torch_manual_seed(42)
    x = leaf(X, rt.torch_float32())
    y = rt.nnf_rrelu(x, training=True)
    y.sum().backward()
    assert y.detach().numpy().tolist() == RRELU[0]  # bit for bit
    assert x.grad.detach().numpy().tolist() == RRELU[1]
    assert y.grad_fn.name == "RreluWithNoiseBackward0"
    # the generator moved on exactly as libtorch's
    np.testing.assert_array_equal(rt.torch_rand(2).detach().numpy(), np.float32(RRELU[2]))


def test_rrelu_module_modes_and_inplace():
    m = rt.nn_rrelu(0.1, 0.3)
    x = rt.torch_tensor(X)
    m.train()
    y = m(x).detach().numpy()
    neg = X <= 0
    slopes = y[neg & (X != 0)] / X[neg & (X != 0)]
    assert ((slopes >= 0.1) & (slopes < 0.3)).all()
    m.eval()
    np.testing.assert_allclose(m(x).detach().numpy(), np.where(X > 0, X, 0.2 * X))
    z = rt.torch_tensor(X.copy())
    rt.torch_manual_seed(3)
    out = rt.nnf_rrelu_(z, training=True)
    rt.torch_manual_seed(3)
    again = rt.nnf_rrelu(x, training=True)
    assert out is z and np.array_equal(z.detach().numpy(), again.detach().numpy())
    with pytest.raises(RuntimeError, match="Lower bound"):
        rt.nnf_rrelu(x, 0.5, 0.1, training=True)


def test_rrelu_generator_argument():
    x = rt.torch_tensor(-np.ones(5))
    a = rt.nnf_rrelu(x, training=True, generator=rt.torch_generator(7)).detach().numpy()
    b = rt.nnf_rrelu(x, training=True, generator=rt.torch_generator(7)).detach().numpy()
    assert np.array_equal(a, b)


# ----------------------------------------------------------------------------- sparsemax

def _sparsemax_reference(z):
    """The closed form, one row at a time (the test's own slow version)."""
    out = np.empty_like(z)
    for i, row in enumerate(z):
        s = np.sort(row)[::-1]
        cs = np.cumsum(s)
        k = np.arange(1, len(row) + 1)
        kz = k[1 + k * s > cs].max()
        tau = (cs[kz - 1] - 1) / kz
        out[i] = np.maximum(row - tau, 0)
    return out


def test_sparsemax_matches_the_closed_form_along_any_dim():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3, 5, 4)) * 2
    for dim in (0, 1, 2, -1):
        got = rt.nnf_contrib_sparsemax(rt.torch_tensor(z), dim=dim).detach().numpy()
        moved = np.moveaxis(z, dim, -1)
        ref = np.moveaxis(_sparsemax_reference(moved.reshape(-1, moved.shape[-1]))
                          .reshape(moved.shape), -1, dim)
        np.testing.assert_allclose(got, ref, atol=1e-12)
        np.testing.assert_allclose(got.sum(axis=dim), 1.0)
    assert (got == 0).any()
    m = rt.nn_contrib_sparsemax(dim=1)
    np.testing.assert_allclose(m(rt.torch_tensor(z)).detach().numpy().sum(axis=1), 1.0)


def test_sparsemax_gradient():
    rng = np.random.default_rng(1)
    x = leaf(rng.normal(size=(3, 6)))
    assert rt.autograd_gradcheck(lambda t: rt.nnf_contrib_sparsemax(t, 1), (x,))
    assert rt.autograd_gradgradcheck(lambda t: rt.nnf_contrib_sparsemax(t, 1), (x,))
    y = rt.nnf_contrib_sparsemax(x, 1)
    g = rng.normal(size=(3, 6))
    y.backward(rt.torch_tensor(g))
    s = y.detach().numpy() > 0
    expected = s * (g - (g * s).sum(1, keepdims=True) / s.sum(1, keepdims=True))
    np.testing.assert_allclose(x.grad.detach().numpy(), expected, atol=1e-12)


def test_sparsemax_bad_input():
    with pytest.raises(TypeError, match="input"):
        rt.nnf_contrib_sparsemax(np.ones(3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        rt.nnf_contrib_sparsemax(rt.torch_ones(2, 3), dim=2)


# ------------------------------------------------------------------ multilabel margin loss

def test_multilabel_margin_loss_values_and_gradient():
    y = rt.torch_tensor(np.array([[3, 0, -1, 1], [1, 2, -1, 0]]))
    x = leaf(X)
    loss = rt.nnf_multilabel_margin_loss(x, y, reduction="none")
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), MLM[0])
    np.testing.assert_allclose(x.grad.detach().numpy(), MLM[1])
    assert rt.nnf_multilabel_margin_loss(rt.torch_tensor(X), y).item() == pytest.approx(
        np.mean(MLM[0]))
    assert rt.nn_multilabel_margin_loss(reduction="sum")(rt.torch_tensor(X), y).item() == \
        pytest.approx(sum(MLM[0]))
    one = rt.nnf_multilabel_margin_loss(rt.torch_tensor(X[0]), y[0])
    assert one.shape == () and one.item() == pytest.approx(MLM[0][0])
    # one libtorch node, whose gradient (as libtorch's) cannot be differentiated again
    assert loss.grad_fn.name == "MultilabelMarginLossBackward0"
    x = leaf(X)
    (g,) = rt.autograd_grad(rt.nnf_multilabel_margin_loss(x, y), [x], create_graph=True)
    assert g.grad_fn.name == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="multilabel_margin_loss_backward is not implemented"):
        g.sum().backward()


def test_multilabel_margin_loss_bad_input():
    x = rt.torch_tensor(X)
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        rt.nnf_multilabel_margin_loss(x, rt.torch_tensor(np.array([[1, 2]])))
    with pytest.raises(RuntimeError, match="target out of range"):
        rt.nnf_multilabel_margin_loss(x, rt.torch_tensor(np.array([[4, 0, -1, 0]] * 2)))
    with pytest.raises(ValueError, match="reduction"):
        rt.nnf_multilabel_margin_loss(x, rt.torch_tensor(np.zeros((2, 4), np.int64)), "avg")


# ----------------------------------------------------------------------------------- ctc

def test_ctc_loss_values_and_gradient():
    lp, tg = _ctc_inputs()
    loss = rt.nnf_ctc_loss(lp, tg, [5, 4], [3, 1], reduction="none")
    assert loss.grad_fn.name == "CtcLossBackward0"
    loss.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), CTC, rtol=1e-13)
    np.testing.assert_allclose(lp.grad.detach().numpy(), CTC_GRAD, atol=2e-12)
    assert rt.nnf_ctc_loss(lp, tg, [5, 4], [3, 1]).item() == pytest.approx(CTC_MEAN, 1e-13)
    s = rt.nnf_ctc_loss(lp, tg, rt.torch_tensor([5, 4]), rt.torch_tensor([3, 1]),
                        reduction="sum")
    assert s.item() == pytest.approx(CTC_SUM, 1e-13)
    # the same targets concatenated
    flat = rt.torch_tensor(np.array([1, 3, 3, 2]))
    np.testing.assert_allclose(rt.nnf_ctc_loss(lp, flat, [5, 4], [3, 1], reduction="none")
                               .detach().numpy(), CTC, rtol=1e-13)
    m = rt.nn_ctc_loss(reduction="sum")
    assert m(lp, tg, [5, 4], [3, 1]).item() == pytest.approx(CTC_SUM, 1e-13)


def test_ctc_loss_gradcheck_and_no_second_order():
    rng = np.random.default_rng(2)
    x = leaf(rng.normal(size=(6, 3, 5)))
    tg = rt.torch_tensor(rng.integers(1, 5, (3, 3)))

    def f(t):
        return rt.nnf_ctc_loss(rt.nnf_log_softmax(t, 2), tg, [6, 5, 4], [3, 2, 0])
    assert rt.autograd_gradcheck(f, (x,))
    (g,) = rt.autograd_grad(f(x), [x], create_graph=True)
    with pytest.raises(RuntimeError, match="_ctc_loss_backward is not implemented"):
        g.sum().backward()


def test_ctc_loss_infinite_and_unbatched():
    lp = leaf(np.log(np.full((2, 1, 3), 1 / 3)))
    tg = rt.torch_tensor(np.array([[1, 1, 1]]))
    assert np.isinf(rt.nnf_ctc_loss(lp, tg, [2], [3], reduction="none").detach().numpy()).all()
    z = rt.nnf_ctc_loss(lp, tg, [2], [3], reduction="sum", zero_infinity=True)
    z.backward()
    assert z.item() == 0 and not lp.grad.detach().numpy().any()
    # one sequence: (T, C) log-probabilities, a 1-d target, a 0-d loss
    one, tg2 = _ctc_inputs()
    u = rt.nnf_ctc_loss(one[:, 0], tg2[0], 5, 3, reduction="none")
    assert u.shape == () and u.item() == pytest.approx(CTC[0], 1e-13)


def test_ctc_loss_bad_input():
    lp, tg = _ctc_inputs()
    with pytest.raises(RuntimeError, match="input_lengths to have value at most 5"):
        rt.nnf_ctc_loss(lp, tg, [6, 4], [3, 1])
    with pytest.raises(RuntimeError, match="size at least 3 at dimension 1"):
        rt.nnf_ctc_loss(lp, tg[:, :2], [5, 4], [3, 1])
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        rt.nnf_ctc_loss(lp, tg, [5, 4, 3], [3, 1])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        rt.nnf_ctc_loss(lp, tg, [5, 4], [3, 1], blank=4)
    with pytest.raises(RuntimeError, match="class indices"):
        rt.nnf_ctc_loss(lp, tg + 5, [5, 4], [3, 1])
    with pytest.raises(ValueError, match="reduction"):
        rt.nnf_ctc_loss(lp, tg, [5, 4], [3, 1], reduction="avg")


# ------------------------------------------------------------------------- with PyTorch

def test_against_pytorch_live():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(5)
    for T, N, C, S in [(7, 3, 5, 3), (4, 2, 3, 2)]:
        x = rng.normal(size=(T, N, C))
        il = rng.integers(T - 2, T + 1, N)
        tl = rng.integers(0, S + 1, N)
        tg = rng.integers(1, C, (N, S))
        for red in ("none", "mean", "sum"):
            xt = torch.tensor(x, requires_grad=True)
            o = F.ctc_loss(F.log_softmax(xt, 2), torch.tensor(tg), torch.tensor(il),
                           torch.tensor(tl), reduction=red, zero_infinity=True)
            o.sum().backward()
            xr = leaf(x)
            r = rt.nnf_ctc_loss(rt.nnf_log_softmax(xr, 2), rt.torch_tensor(tg),
                                rt.torch_tensor(il), rt.torch_tensor(tl), reduction=red,
                                zero_infinity=True)
            r.sum().backward()
            np.testing.assert_allclose(r.detach().numpy(), o.detach().numpy(), rtol=1e-12)
            np.testing.assert_allclose(xr.grad.detach().numpy(), xt.grad.numpy(), atol=1e-12)
    for dt in (torch.float32, torch.float64):
        xt = torch.tensor(rng.normal(size=(6, 9)), dtype=dt)
        torch.manual_seed(11)
        o = F.rrelu(xt, 0.05, 0.5, training=True)
        rt.torch_manual_seed(11)
        r = rt.nnf_rrelu(rt.torch_tensor(xt.detach().numpy()), 0.05, 0.5, training=True)
        assert np.array_equal(r.detach().numpy(), o.detach().numpy())
        # evaluation mode: the fixed slope multiplied in the kernel's type, bit for bit
        e = rt.nnf_rrelu(leaf(xt.detach().numpy()))
        assert np.array_equal(e.detach().numpy(), F.rrelu(xt).detach().numpy())
        assert e.grad_fn.name == F.rrelu(xt.requires_grad_()).grad_fn.name()
    z = rng.normal(size=(5, 6)) * 3
    np.testing.assert_allclose(rt.nnf_mish(rt.torch_tensor(z)).detach().numpy(),
                               F.mish(torch.tensor(z)).detach().numpy(), rtol=1e-14)
    y = np.array([[2, -1, 0, 0, 0, 0], [5, 4, 3, 2, 1, 0]] * 2 + [[0, 1, -1, 3, 3, 3]])
    xt = torch.tensor(z, requires_grad=True)
    o = F.multilabel_margin_loss(xt, torch.tensor(y), reduction="none")
    o.sum().backward()
    xr = leaf(z)
    r = rt.nnf_multilabel_margin_loss(xr, rt.torch_tensor(y), reduction="none")
    r.sum().backward()
    np.testing.assert_allclose(r.detach().numpy(), o.detach().numpy(), rtol=1e-14)
    np.testing.assert_allclose(xr.grad.detach().numpy(), xt.grad.detach().numpy(), rtol=1e-14)
