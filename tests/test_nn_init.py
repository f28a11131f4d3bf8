"""nn_init_* (distributions, reproducibility, in place outside autograd, errors) and the
gradient clipping utilities (against PyTorch 2.13 when installed, and by definition)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import rtorchpy as rt


def _param(*shape, dtype=None):
    return rt.nn_parameter(rt.torch_empty(*shape, dtype=dtype))


def _values(t):
    return t.detach().numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", [rt.torch_float32(), rt.torch_float64()], ids=str)
def test_distributions_have_the_right_moments(dtype):
    rt.torch_manual_seed(0)
    n_out, n_in = 300, 200
    w = _param(n_out, n_in, dtype=dtype)
    cases = [
        (lambda: rt.nn_init_uniform_(w, -2.0, 1.0), -0.5, 9 / 12, (-2.0, 1.0)),
        (lambda: rt.nn_init_normal_(w, 1.0, 0.5), 1.0, 0.25, None),
        (lambda: rt.nn_init_xavier_uniform_(w, gain=2.0), 0.0,
         4 * 2.0 / (n_in + n_out), (-2 * math.sqrt(6 / (n_in + n_out)),
                                     2 * math.sqrt(6 / (n_in + n_out)))),
        (lambda: rt.nn_init_xavier_normal_(w), 0.0, 2.0 / (n_in + n_out), None),
        (lambda: rt.nn_init_kaiming_uniform_(w, a=math.sqrt(5)), 0.0, 1 / (3 * n_in),
         (-1 / math.sqrt(n_in), 1 / math.sqrt(n_in))),
        (lambda: rt.nn_init_kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"), 0.0,
         2.0 / n_out, (-math.sqrt(6 / n_out), math.sqrt(6 / n_out))),
        (lambda: rt.nn_init_kaiming_normal_(w, nonlinearity="relu"), 0.0, 2.0 / n_in, None),
        (lambda: rt.nn_init_kaiming_normal_(w, a=0.2, mode="fan_out"), 0.0,
         2.0 / (1 + 0.04) / n_out, None),
        (lambda: rt.nn_init_trunc_normal_(w, 0.0, 1.0, -1.0, 1.0), 0.0, 0.2911, (-1.0, 1.0)),
    ]
    for fill, mean, var, bounds in cases:
        assert fill() is w
        v = _values(w)
        n = v.size
        assert abs(v.mean() - mean) < 5 * math.sqrt(var / n) + 1e-12
        assert abs(v.var() / var - 1) < 0.03
        if bounds is not None:
            assert v.min() >= bounds[0] and v.max() <= bounds[1]
        assert w.dtype == dtype and w.requires_grad and w.is_leaf and w.grad_fn is None


def test_constant_fills_eye_orthogonal():
    w = _param(3, 5)
    assert (_values(rt.nn_init_constant_(w, 0.25)) == 0.25).all()
    assert (_values(rt.nn_init_zeros_(w)) == 0).all()
    assert (_values(rt.nn_init_ones_(w)) == 1).all()
    np.testing.assert_array_equal(_values(rt.nn_init_eye_(w)), np.eye(3, 5))
    rt.torch_manual_seed(1)
    for shape in ((4, 6), (6, 4), (5, 5), (3, 2, 2)):
        q = _values(rt.nn_init_orthogonal_(_param(*shape, dtype=rt.torch_float64()), gain=2.0))
        flat = q.reshape(shape[0], -1)
        small = min(flat.shape)
        gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
        np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-12)


def test_seeded_reproducibility_and_version_bumps():
    w = _param(4, 3)
    for fill in (rt.nn_init_uniform_, rt.nn_init_normal_, rt.nn_init_xavier_uniform_,
                 rt.nn_init_xavier_normal_, rt.nn_init_kaiming_uniform_,
                 rt.nn_init_kaiming_normal_, rt.nn_init_orthogonal_):
        rt.torch_manual_seed(42)
        a = _values(fill(w))
        rt.torch_manual_seed(42)
        v = w._version[0]
        b = _values(fill(w))
        np.testing.assert_array_equal(a, b)
        assert w._version[0] == v + 1
        c = _values(fill(w))
        assert not np.array_equal(b, c)
    rt.torch_manual_seed(3)
    m1 = rt.nn_linear(5, 4)
    rt.torch_manual_seed(3)
    m2 = rt.nn_linear(5, 4)
    for k in m1.parameters:
        np.testing.assert_array_equal(_values(m1.parameters[k]), _values(m2.parameters[k]))


def test_init_of_a_saved_parameter_is_detected_by_backward():
    w = _param(2, 2)
    rt.nn_init_ones_(w)
    y = (w * w).sum()
    rt.nn_init_zeros_(w)  # in place after w was saved for backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_calculate_gain():
    assert rt.nn_init_calculate_gain("linear") == 1
    assert rt.nn_init_calculate_gain("conv2d") == 1
    assert rt.nn_init_calculate_gain("sigmoid") == 1
    assert rt.nn_init_calculate_gain("tanh") == pytest.approx(5 / 3)
    assert rt.nn_init_calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert rt.nn_init_calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / 1.0001))
    assert rt.nn_init_calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert rt.nn_init_calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity softsign"):
        rt.nn_init_calculate_gain("softsign")
    with pytest.raises(ValueError, match="not a valid number"):
        rt.nn_init_calculate_gain("leaky_relu", "x")


def test_calculate_gain_matches_torch():
    torch = pytest.importorskip("torch")
    for nl, p in [("linear", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
                  ("leaky_relu", 0.3), ("selu", None), ("sigmoid", None)]:
        assert rt.nn_init_calculate_gain(nl, p) == pytest.approx(
            torch.nn.init.calculate_gain(nl, p), rel=1e-15)


def test_init_errors():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        rt.nn_init_xavier_uniform_(_param(3))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        rt.nn_init_kaiming_normal_(_param(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        rt.nn_init_kaiming_uniform_(_param(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        rt.nn_init_eye_(_param(2, 2, 2))
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        rt.nn_init_orthogonal_(_param(3))
    with pytest.raises(RuntimeError, match="expected a floating point tensor"):
        rt.nn_init_normal_(rt.torch_zeros(2, dtype=rt.torch_long()))
    with pytest.raises(RuntimeError, match="found from=1"):
        rt.nn_init_uniform_(_param(2), 1.0, 0.0)
    with pytest.raises(TypeError):
        rt.nn_init_normal_([1.0, 2.0])


# ------------------------------------------------------------------------ gradient clipping

def _with_grads(seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    ps = [rt.nn_parameter(rt.torch_zeros(*s, dtype=rt.torch_float64() if dtype == np.float64
                                         else rt.torch_float32())) for s in ((3, 2), (4,))]
    for p in ps:
        p.grad = rt.torch_tensor(rng.standard_normal(p.shape).astype(dtype))
    return ps


@pytest.mark.parametrize("norm_type", [2, 1, 3.5, math.inf])
def test_clip_grad_norm(norm_type):
    ps = _with_grads(0)
    grads = [p.grad.numpy().copy() for p in ps]
    flat = np.concatenate([g.ravel() for g in grads])
    total = np.abs(flat).max() if norm_type == math.inf else \
        np.sum(np.abs(flat) ** norm_type) ** (1 / norm_type)
    out = rt.nn_utils_clip_grad_norm_(ps, max_norm=0.5, norm_type=norm_type)
    assert out.item() == pytest.approx(total, rel=1e-12)
    scale = 0.5 / (total + 1e-6)
    for p, g in zip(ps, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * scale, rtol=1e-12)
    # below the limit: unchanged
    ps = _with_grads(0)
    before = [p.grad.numpy().copy() for p in ps]
    rt.nn_utils_clip_grad_norm_({"a": ps[0], "b": ps[1]}, max_norm=1e6, norm_type=norm_type)
    for p, g in zip(ps, before):
        np.testing.assert_array_equal(p.grad.numpy(), g)


@pytest.mark.parametrize("norm_type", [2, 1, math.inf])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_grad_norm_matches_torch(norm_type, dtype):
    torch = pytest.importorskip("torch")
    ps = _with_grads(1, dtype)
    tps = []
    for p in ps:
        t = torch.zeros(p.shape, dtype=torch.float64 if dtype == np.float64 else torch.float32,
                        requires_grad=True)
        t.grad = torch.tensor(p.grad.numpy())
        tps.append(t)
    out = rt.nn_utils_clip_grad_norm_(ps, 0.7, norm_type)
    tout = torch.nn.utils.clip_grad_norm_(tps, 0.7, norm_type)
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    assert out.numpy().dtype == tout.numpy().dtype
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=rtol)
    for p, t in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=rtol)


def test_clip_grad_norm_edge_cases():
    assert rt.nn_utils_clip_grad_norm_([rt.nn_parameter(rt.torch_zeros(2))], 1.0).item() == 0
    p = rt.nn_parameter(rt.torch_zeros(2))
    p.grad = rt.torch_tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        rt.nn_utils_clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    m = rt.nn_linear(3, 2)
    m(rt.torch_randn(4, 3)).sum().backward()
    total = rt.nn_utils_clip_grad_norm_(m.parameters, 0.1)
    after = math.sqrt(sum(float((p.grad.numpy().astype(np.float64) ** 2).sum())
                          for p in m.parameters.values()))
    assert total.item() > 0.1 and after == pytest.approx(0.1, rel=1e-4)


def test_clip_grad_value():
    ps = _with_grads(2)
    before = [p.grad.numpy().copy() for p in ps]
    versions = [p.grad._version[0] for p in ps]
    assert rt.nn_utils_clip_grad_value_(ps, 0.3) is None
    for p, g, v in zip(ps, before, versions):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -0.3, 0.3))
        assert p.grad._version[0] == v + 1


def test_zero_element_tensors():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        m = rt.nn_linear(0, 3)
    assert m.weight.shape == (3, 0) and (m.bias.detach().numpy() == 0).all()
    assert m(rt.torch_zeros(2, 0)).shape == (2, 3)
