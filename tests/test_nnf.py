"""``nnf_*`` functions: forward values against NumPy formulas, gradients against central
differences (float64), reductions, options and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtorchpy as rt
from rtorchpy import autograd_grad, torch_tensor

RNG = np.random.default_rng(7)


def numeric_grads(f, arrays, eps=1e-6):
    out = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            hi = [b.copy() for b in arrays]
            lo = [b.copy() for b in arrays]
            hi[i][j] += eps
            lo[i][j] -= eps
            g[j] = (f(hi) - f(lo)) / (2 * eps)
        out.append(g)
    return out


def gradcheck(fn, *arrays, atol=1e-6, rtol=1e-5):
    """backward's gradient of sum(fn(...) * v) equals central differences, for each input."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[torch_tensor(a) for a in arrays])
    v = RNG.standard_normal(out.shape)

    def value(arrs):
        return float(np.sum(fn(*[torch_tensor(a) for a in arrs]).numpy() * v))
    xs = [torch_tensor(a, requires_grad=True) for a in arrays]
    grads = autograd_grad([fn(*xs)], xs, [torch_tensor(v)], allow_unused=True)
    for g, n, a in zip(grads, numeric_grads(value, arrays), arrays):
        got = np.zeros_like(a) if g is None else g.numpy()
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, n, atol=atol, rtol=rtol)


def np_softmax(x, d):
    e = np.exp(x - x.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def reduce(terms, reduction):
    return terms.mean() if reduction == "mean" else terms.sum() if reduction == "sum" else terms


# ------------------------------------------------------------------------ activations

X = RNG.uniform(-2, 2, (3, 4))


def test_activations_forward():
    x = torch_tensor(X)
    np.testing.assert_allclose(rt.nnf_relu(x).numpy(), np.maximum(X, 0))
    np.testing.assert_allclose(rt.nnf_sigmoid(x).numpy(), 1 / (1 + np.exp(-X)), rtol=1e-12)
    np.testing.assert_allclose(rt.nnf_tanh(x).numpy(), np.tanh(X), rtol=1e-12)
    for d in (0, 1, -1):
        np.testing.assert_allclose(rt.nnf_softmax(x, d).numpy(), np_softmax(X, d), rtol=1e-12)
        np.testing.assert_allclose(rt.nnf_log_softmax(x, dim=d).numpy(),
                                   np.log(np_softmax(X, d)), rtol=1e-12)
    assert rt.nnf_softmax(torch_tensor(X.astype(np.float32)), 1).dtype == rt.torch_float32()
    assert rt.nnf_softmax(torch_tensor(X.astype(np.float32)), 1,
                          dtype=rt.torch_float64()).dtype == rt.torch_float64()
    assert rt.nnf_log_softmax(torch_tensor([1, 2]), 0).dtype == rt.torch_float32()
    big = torch_tensor([1000.0, -1000.0])
    assert rt.nnf_sigmoid(big).tolist() == [1.0, 0.0]
    assert rt.nnf_log_softmax(big, 0).tolist() == [0.0, -2000.0]


def test_relu_inplace():
    x = torch_tensor([-1.0, 2.0])
    assert rt.nnf_relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]
    leaf = torch_tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        rt.nnf_relu(leaf, inplace=True)


@pytest.mark.parametrize("fn", [
    lambda x: rt.nnf_relu(x), lambda x: rt.nnf_sigmoid(x), lambda x: rt.nnf_tanh(x),
    lambda x: rt.nnf_softmax(x, 1), lambda x: rt.nnf_softmax(x, 0),
    lambda x: rt.nnf_log_softmax(x, 1), lambda x: rt.nnf_log_softmax(x, -2),
])
def test_activation_gradients(fn):
    x = np.where(np.abs(X) < 0.1, 0.5, X)  # relu: away from 0
    gradcheck(fn, x)


# ------------------------------------------------------------------------ linear

@pytest.mark.parametrize("in_shape", [(4,), (2, 4), (3, 2, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear(in_shape, bias):
    x = RNG.standard_normal(in_shape)
    w = RNG.standard_normal((3, 4))
    b = RNG.standard_normal(3)
    want = x @ w.T + (b if bias else 0)
    args = (torch_tensor(x), torch_tensor(w)) + ((torch_tensor(b),) if bias else ())
    got = rt.nnf_linear(*args)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    if bias:
        gradcheck(lambda a, c, d: rt.nnf_linear(a, c, d), x, w, b)
    else:
        gradcheck(lambda a, c: rt.nnf_linear(a, c), x, w)
    xs = [torch_tensor(x, requires_grad=True), torch_tensor(w, requires_grad=True)]
    out = rt.nnf_linear(*xs, torch_tensor(b) if bias else None)
    if len(in_shape) == 2 and bias:
        assert out.grad_fn.name == "AddmmBackward0"


# ------------------------------------------------------------------------ mse

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    a, t = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))
    got = rt.nnf_mse_loss(torch_tensor(a), torch_tensor(t), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), reduce((a - t) ** 2, reduction), rtol=1e-12)
    gradcheck(lambda x, y: rt.nnf_mse_loss(x, y, reduction=reduction), a, t)


def test_mse_loss_warns_on_broadcasting_and_keeps_float32():
    with pytest.warns(UserWarning, match="target size"):
        rt.nnf_mse_loss(rt.torch_ones(3, 1), rt.torch_ones(3))
    out = rt.nnf_mse_loss(rt.torch_ones(2, requires_grad=True), rt.torch_zeros(2))
    assert out.dtype == rt.torch_float32() and out.shape == () and out.item() == 1.0
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        rt.nnf_mse_loss(rt.torch_ones(2), rt.torch_ones(2), reduction="avg")


# ------------------------------------------------------------------------ nll and cross-entropy

def np_nll(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    """Reference: input (N, C, d...) or (C,), target (N, d...) or ()."""
    if logp.ndim == 1:
        logp, target = logp[None], np.asarray(target)[None]
        squeeze = True
    else:
        squeeze = False
    c = logp.shape[1]
    rows = np.moveaxis(logp, 1, -1).reshape(-1, c)
    t = target.reshape(-1)
    w = np.ones(c) if weight is None else weight
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    wt = w[safe] * valid
    terms = -rows[np.arange(len(t)), safe] * wt
    if reduction == "none":
        return terms.reshape(()) if squeeze else terms.reshape(target.shape)
    if reduction == "sum":
        return terms.sum()
    return terms.sum() / wt.sum()


NLL_LAYOUTS = [((4, 3), (4,)), ((3,), ()), ((2, 3, 2), (2, 2)), ((2, 3, 2, 2), (2, 2, 2))]


@pytest.mark.parametrize("in_shape,t_shape", NLL_LAYOUTS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [-100, 1])
def test_nll_loss(in_shape, t_shape, reduction, weighted, ignore):
    c = in_shape[0] if len(in_shape) == 1 else in_shape[1]
    logp = RNG.standard_normal(in_shape)
    target = RNG.integers(0, c, t_shape)
    target.reshape(-1)[0] = 0          # at least one target is not ignored
    weight = RNG.uniform(0.5, 2, c) if weighted else None
    kw = dict(weight=None if weight is None else torch_tensor(weight), ignore_index=ignore,
              reduction=reduction)
    got = rt.nnf_nll_loss(torch_tensor(logp), torch_tensor(target), **kw)
    want = np_nll(logp, target, weight, ignore, reduction)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    gradcheck(lambda x: rt.nnf_nll_loss(x, torch_tensor(target), **kw), logp)
    # cross-entropy = nll of log_softmax over the class dim
    got = rt.nnf_cross_entropy(torch_tensor(logp), torch_tensor(target), **kw)
    lsm = np.log(np_softmax(logp, 1 if logp.ndim > 1 else 0))
    np.testing.assert_allclose(got.numpy(), np_nll(lsm, target, weight, ignore, reduction),
                               rtol=1e-12)
    gradcheck(lambda x: rt.nnf_cross_entropy(x, torch_tensor(target), **kw), logp)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_class_probabilities(reduction, weighted):
    x = RNG.standard_normal((4, 3))
    p = np_softmax(RNG.standard_normal((4, 3)), 1)
    w = RNG.uniform(0.5, 2, 3)
    kw = dict(weight=torch_tensor(w) if weighted else None, reduction=reduction)
    got = rt.nnf_cross_entropy(torch_tensor(x), torch_tensor(p), **kw)
    terms = -(np.log(np_softmax(x, 1)) * p * (w if weighted else 1)).sum(axis=1)
    np.testing.assert_allclose(got.numpy(), reduce(terms, reduction), rtol=1e-12)
    gradcheck(lambda a, b: rt.nnf_cross_entropy(a, b, **kw), x, p)


def test_cross_entropy_known_value_and_node_names():
    x = torch_tensor([[0.0, 0.0]], requires_grad=True)
    loss = rt.nnf_cross_entropy(x, torch_tensor([1]))
    assert loss.item() == pytest.approx(np.log(2))
    assert loss.grad_fn.name == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name == "LogSoftmaxBackward0"
    loss.backward()
    assert x.grad.tolist() == [[0.5, -0.5]]
    assert loss.dtype == rt.torch_float32()


def test_nll_errors():
    x = rt.torch_randn(2, 3)
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        rt.nnf_nll_loss(x, torch_tensor([0, 3]))
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        rt.nnf_nll_loss(x, torch_tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target "
                                         r"batch_size \(3\)"):
        rt.nnf_nll_loss(x, torch_tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        rt.nnf_cross_entropy(x, torch_tensor([0, 1]), reduction="x")


def test_nll_mean_with_every_target_ignored_is_nan():
    out = rt.nnf_nll_loss(rt.torch_randn(2, 3), torch_tensor([1, 1]), ignore_index=1)
    assert np.isnan(out.item())


# ------------------------------------------------------------------------ binary cross-entropy

def np_bce(x, y, w=None, reduction="mean"):
    with np.errstate(divide="ignore"):
        terms = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    if w is not None:
        terms = terms * w
    return reduce(terms, reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted):
    x = RNG.uniform(0.05, 0.95, (3, 2))
    y = RNG.uniform(0, 1, (3, 2))
    w = RNG.uniform(0.5, 2, (3, 2))
    kw = dict(weight=torch_tensor(w) if weighted else None, reduction=reduction)
    got = rt.nnf_binary_cross_entropy(torch_tensor(x), torch_tensor(y), **kw)
    np.testing.assert_allclose(got.numpy(), np_bce(x, y, w if weighted else None, reduction),
                               rtol=1e-12)
    gradcheck(lambda a, b: rt.nnf_binary_cross_entropy(a, b, **kw), x, y)


def test_binary_cross_entropy_clamps_logs_at_minus_100():
    x = torch_tensor([0.0, 1.0, 0.0, 1.0])
    y = torch_tensor([1.0, 0.0, 0.0, 1.0])
    out = rt.nnf_binary_cross_entropy(x, y, reduction="none")
    assert out.tolist() == [100.0, 100.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        rt.nnf_binary_cross_entropy(torch_tensor([1.5]), torch_tensor([1.0]))
    with pytest.raises(ValueError, match="target size"):
        rt.nnf_binary_cross_entropy(torch_tensor([0.5, 0.5]), torch_tensor([1.0]))
    x = torch_tensor([0.0, 0.5], requires_grad=True)
    rt.nnf_binary_cross_entropy(x, torch_tensor([0.0, 1.0])).backward()
    assert np.all(np.isfinite(x.grad.numpy()))


@settings(max_examples=15)
@given(n=st.integers(1, 4), c=st.integers(2, 4), seed=st.integers(0, 2 ** 31))
def test_training_step_decreases_cross_entropy(n, c, seed):
    """One small SGD step along the gradient lowers the loss (a smoke test that the losses,
    linear and the gradients fit together)."""
    rng = np.random.default_rng(seed)
    x = torch_tensor(rng.standard_normal((n, 3)))
    target = torch_tensor(rng.integers(0, c, n))
    w = torch_tensor(rng.standard_normal((c, 3)), requires_grad=True)
    b = torch_tensor(np.zeros(c), requires_grad=True)
    loss = rt.nnf_cross_entropy(rt.nnf_linear(x, w, b), target)
    loss.backward()
    with rt.with_no_grad():
        w.sub_(w.grad * 1e-3)
        b.sub_(b.grad * 1e-3)
        new = rt.nnf_cross_entropy(rt.nnf_linear(x, w, b), target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert new.item() <= loss.item() + 1e-12


@pytest.mark.parametrize("loss", ["nnf_cross_entropy", "nnf_nll_loss"])
def test_every_target_ignored_gives_a_nan_loss_and_zero_gradients(loss):
    # libtorch's values: the mean over no targets is 0/0, but the ignored rows get no gradient
    # (a batch of padding only must not turn the parameters into NaN)
    x = rt.torch_tensor([[0.1, 0.2, 0.3], [0.5, -1.0, 2.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(rt, loss)(x, rt.torch_tensor([1, 1]), ignore_index=1)
        out.backward()
    assert np.isnan(out.item())
    np.testing.assert_array_equal(x.grad._data, np.zeros((2, 3), np.float32))
    # a class of weight 0 is not ignored: libtorch's -weight * g / 0 is NaN there
    x.grad = None
    getattr(rt, loss)(x, rt.torch_tensor([0, 0]), weight=rt.torch_tensor([0.0, 1, 1])).backward()
    assert np.isnan(x.grad._data[:, 0]).all()
