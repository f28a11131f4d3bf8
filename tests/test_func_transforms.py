"""Function transforms (grad, jacrev, jacfwd, hessian, jvp, vjp, vmap) and forward-mode AD's
public face: values against PyTorch 2.13's ``torch.func`` (recorded in
``fixtures/func_transforms_torch.json`` by ``record_func_transforms.py``, and live when PyTorch
is installed), compositions, and the errors for bad input."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import rtorchpy as rt
from _func_suite import BATCH, N, POINT, TANGENT, rtorchpy_suite, torch_suite

F64 = rt.torch_float64()
SUITE = rtorchpy_suite()
with open(os.path.join(os.path.dirname(__file__), "fixtures", "func_transforms_torch.json")) as fh:
    RECORDED = json.load(fh)


def _t(a):
    return rt.torch_tensor(np.asarray(a, dtype=np.float64), dtype=F64)


def _close(actual, expected, what):
    np.testing.assert_allclose(actual.numpy(), np.asarray(expected), rtol=1e-9, atol=1e-9,
                               err_msg=what)


@pytest.mark.parametrize("name", sorted(SUITE))
def test_first_and_second_order_equal_recorded_torch_func(name):
    f, rec = SUITE[name], RECORDED[name]
    x = _t(POINT)
    _close(f(x), rec["value"], "value")
    _close(rt.autograd_jacrev(f)(x), rec["jacobian"], "jacrev")
    _close(rt.autograd_jacfwd(f)(x), rec["jacobian"], "jacfwd")
    _close(rt.autograd_jvp_fn(f, (x,), (_t(TANGENT),))[1], rec["jvp"], "jvp")
    _close(rt.autograd_jvp(f, x, _t(TANGENT))[1], rec["jvp"], "autograd_jvp")
    _close(rt.autograd_jacfwd(rt.autograd_jacrev(f))(x), rec["second"], "jacfwd(jacrev)")
    _close(rt.autograd_jacrev(rt.autograd_jacrev(f))(x), rec["second"], "jacrev(jacrev)")
    _close(rt.autograd_jacrev(rt.autograd_jacfwd(f))(x), rec["second"], "jacrev(jacfwd)")
    _close(rt.autograd_vmap(rt.autograd_jacrev(f))(_t(BATCH)), rec["vmap_jacobian"],
           "vmap(jacrev)")
    if "hessian" in rec:
        _close(rt.autograd_hessian_fn(f)(x), rec["hessian"], "hessian")
        _close(rt.autograd_hessian(f, x), rec["hessian"], "autograd_hessian")


@pytest.mark.parametrize("name", sorted(SUITE))
def test_live_against_torch_func_at_random_points(name):
    torch = pytest.importorskip("torch")
    from torch.func import jacfwd, jacrev, jvp, vmap
    ft = torch_suite()[name]
    f = SUITE[name]
    rng = np.random.default_rng(abs(hash(name)) % 2 ** 32)
    for _ in range(3):
        x = rng.uniform(0.2, 1.2, N)
        t = rng.standard_normal(N)
        xt, tt = torch.tensor(x), torch.tensor(t)
        _close(rt.autograd_jacfwd(f)(_t(x)), jacfwd(ft)(xt).numpy(), "jacfwd")
        _close(rt.autograd_jvp_fn(f, (_t(x),), (_t(t),))[1], jvp(ft, (xt,), (tt,))[1].numpy(),
               "jvp")
        _close(rt.autograd_jacfwd(rt.autograd_jacrev(f))(_t(x)),
               jacfwd(jacrev(ft))(xt).numpy(), "hessian")
        xs = rng.uniform(0.2, 1.2, (4, N))
        _close(rt.autograd_vmap(rt.autograd_jacrev(f))(_t(xs)),
               vmap(jacrev(ft))(torch.tensor(xs)).numpy(), "vmap(jacrev)")


# ------------------------------------------------------------------------------ grad & friends

def _loss(w, x, y):
    return ((x.matmul(w) - y) ** 2).sum()


def test_grad_grad_and_value_argnums_and_aux():
    w, x, y = _t([1.0, -2.0]), _t([[1.0, 2.0], [3.0, 4.0]]), _t([0.5, 1.0])
    g = rt.autograd_grad_fn(_loss)(w, x, y)
    r = x.numpy() @ w.numpy() - y.numpy()
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy().T @ r)
    gw, gx = rt.autograd_grad_fn(_loss, argnums=(0, 1))(w, x, y)
    np.testing.assert_allclose(gx.numpy(), 2 * np.outer(r, w.numpy()))
    g2, value = rt.autograd_grad_and_value(_loss)(w, x, y)
    assert value.item() == pytest.approx(float(r @ r))
    g3, aux = rt.autograd_grad_fn(lambda w: (_loss(w, x, y), "aux"), has_aux=True)(w)
    assert aux == "aux" and not g3.requires_grad
    np.testing.assert_allclose(g3.numpy(), g.numpy())


def test_per_example_gradients_by_vmap_of_grad():
    w, x, y = _t([1.0, -2.0]), _t([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]]), _t([0.5, 1.0, 2.0])
    per = rt.autograd_vmap(rt.autograd_grad_fn(_loss), in_dims=(None, 0, 0))(w, x, y)
    expected = np.stack([rt.autograd_grad_fn(_loss)(w, x[i], y[i]).numpy() for i in range(3)])
    np.testing.assert_allclose(per.numpy(), expected)
    assert per.shape == (3, 2)


def test_vjp_fn_matches_jacobian_transpose():
    f = SUITE["matmul_tanh_mlp"]
    x, v = _t(POINT), _t(TANGENT)
    out, vjp_fn = rt.autograd_vjp_fn(f, x)
    (g,) = vjp_fn(v)
    np.testing.assert_allclose(g.numpy(), rt.autograd_jacrev(f)(x).numpy().T @ TANGENT)


def test_gradients_flow_to_an_outer_backward():
    # grad under create_graph-style use: the result stays connected to a leaf requiring grad
    x = rt.torch_tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    g = rt.autograd_grad_fn(lambda z: (z ** 3).sum())(x)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


# ------------------------------------------------------------------------------ forward AD

def test_dual_tensors():
    x = _t([1.0, 2.0])
    with rt.autograd_dual_level():
        d = rt.autograd_make_dual(x, _t([1.0, 0.0]))
        y = (d * d).sin()
        primal, tangent = rt.autograd_unpack_dual(y)
        np.testing.assert_allclose(primal.numpy(), np.sin([1.0, 4.0]))
        np.testing.assert_allclose(tangent.numpy(), [2 * np.cos(1.0), 0.0])
        assert not y.requires_grad
        assert rt.autograd_unpack_dual(x).tangent is None
    assert rt.autograd_unpack_dual(y).tangent is None  # the level is closed: tangents forgotten


def test_dual_tensor_errors():
    x = _t([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists"):
        rt.autograd_make_dual(x, x)
    with rt.autograd_dual_level():
        with pytest.raises(RuntimeError, match="different size"):
            rt.autograd_make_dual(x, _t([1.0]))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            rt.autograd_enter_dual_level()
        with pytest.raises(ValueError, match="floating point"):
            rt.autograd_make_dual(rt.torch_tensor([1, 2]), x)
    with pytest.raises(RuntimeError, match="Nested forward mode AD"):
        rt.autograd_jacfwd(rt.autograd_jacfwd(SUITE["elementwise_chain"]))(_t(POINT))


def test_custom_function_jvp():
    def forward(ctx, x):
        ctx.save_for_backward(x=x)
        return x.exp()

    def backward(ctx, g):
        return {"x": g * ctx.saved_variables.x.exp()}

    def jvp(ctx, t):
        return t * ctx.saved_variables.x.exp()

    f = rt.autograd_function(forward, backward, jvp=jvp)
    x = _t([0.0, 1.0])
    _, j = rt.autograd_jvp(f, x, _t([1.0, 2.0]))
    np.testing.assert_allclose(j.numpy(), [1.0, 2 * np.e])
    np.testing.assert_allclose(rt.autograd_jacfwd(f)(x).numpy(), np.diag(np.exp([0.0, 1.0])))
    g = rt.autograd_function(forward, backward)
    with pytest.raises(RuntimeError, match="must implement the jvp function"):
        rt.autograd_jvp(g, x, _t([1.0, 2.0]))


def test_forward_mode_through_inplace_ops():
    x = _t([1.0, 2.0])
    with rt.autograd_dual_level():
        d = rt.autograd_make_dual(x, _t([1.0, 1.0]))
        y = d * 2
        y.mul_(d)
        np.testing.assert_allclose(rt.autograd_unpack_dual(y).tangent.numpy(), [4.0, 8.0])
        y.fill_(3.0)
        np.testing.assert_allclose(rt.autograd_unpack_dual(y).tangent.numpy(), [0.0, 0.0])


# ------------------------------------------------------------------------------ vmap

def test_vmap_in_dims_out_dims_and_tuples():
    x = _t(np.arange(6.0).reshape(2, 3))
    y = _t([10.0, 20.0, 30.0])
    out = rt.autograd_vmap(lambda a, b: a * b, in_dims=(1, 0))(x, y)
    np.testing.assert_allclose(out.numpy(), (x.numpy() * y.numpy()).T)
    out = rt.autograd_vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(x)
    np.testing.assert_allclose(out[0].numpy(), [3.0, 12.0])
    np.testing.assert_allclose(out[1].numpy(), (x.numpy() * 2).T)
    nested = rt.autograd_vmap(rt.autograd_vmap(lambda a: a * a))(x)
    np.testing.assert_allclose(nested.numpy(), x.numpy() ** 2)
    assert "torch_exp" in rt.autograd_vmap_fallback_ops() or rt.autograd_vmap_fallback_ops()


def test_vmap_errors():
    x, y = _t(np.ones((2, 3))), _t(np.ones((3, 3)))
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        rt.autograd_vmap(lambda a, b: a + b)(x, y)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure"):
        rt.autograd_vmap(lambda a, b: a + b, in_dims=(0,))(x, y)
    with pytest.raises(ValueError, match="so expected in_dim to satisfy"):
        rt.autograd_vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        rt.autograd_vmap(lambda a, b: a, in_dims=(0, 0))(x, 3)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        rt.autograd_vmap(lambda a: a + rt.torch_randn(3))(x)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        rt.autograd_vmap(lambda a: a, randomness="sometimes")


def test_vmap_randomness_same_and_different():
    x = _t(np.zeros((4, 3)))
    rt.torch_manual_seed(1)
    same = rt.autograd_vmap(lambda a: a + rt.torch_randn(3, dtype=F64), randomness="same")(x)
    assert np.allclose(same.numpy(), same.numpy()[0])
    diff = rt.autograd_vmap(lambda a: a + rt.torch_randn(3, dtype=F64),
                            randomness="different")(x)
    assert not np.allclose(diff.numpy(), diff.numpy()[0])


# ------------------------------------------------------------------------------ functional API

@pytest.mark.parametrize("name", ["matmul_tanh_mlp", "linalg_solve_det", "reductions"])
def test_autograd_jacobian_forward_mode_strategy(name):
    f, x = SUITE[name], _t(POINT)
    jac = rt.autograd_jacobian(f, x, vectorize=True, strategy="forward-mode")
    _close(jac, RECORDED[name]["jacobian"], "forward-mode jacobian")
    _close(rt.autograd_jacobian(f, x, vectorize=True), RECORDED[name]["jacobian"], "vectorize")


def test_autograd_hessian_vectorized_and_forward_over_reverse():
    f, x = SUITE["scalar_logistic"], _t(POINT)
    expected = RECORDED["scalar_logistic"]["hessian"]
    _close(rt.autograd_hessian(f, x, vectorize=True), expected, "vectorize")
    _close(rt.autograd_hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode"),
           expected, "forward-over-reverse")


def test_autograd_jacobian_strategy_errors():
    f, x = SUITE["matmul_tanh_mlp"], _t(POINT)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        rt.autograd_jacobian(f, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and"):
        rt.autograd_jacobian(f, x, create_graph=True, vectorize=True, strategy="forward-mode")
    with pytest.raises(ValueError, match="Expected strategy to be either"):
        rt.autograd_jacobian(f, x, strategy="sideways")
