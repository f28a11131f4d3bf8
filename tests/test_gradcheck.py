"""autograd_gradcheck / gradgradcheck and the torch.autograd.functional-style helpers."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtorchpy as r
from rtorchpy.autograd.gradcheck import GradcheckError


def randn(*shape, requires_grad=True, seed=0):
    rng = np.random.default_rng(seed)
    return r.torch_tensor(rng.standard_normal(shape), dtype=r.torch_float64(),
                          requires_grad=requires_grad)


def doubled_grad(a):
    """a * 1 whose backward is wrong: a hook doubles the gradient."""
    out = a * 1
    out.register_hook(lambda g: g * 2)
    return out


# ------------------------------------------------------------------ gradcheck
def test_gradcheck_passes_on_builtin_ops():
    x, y = randn(3), randn(2, 3, seed=1)
    assert r.autograd_gradcheck(lambda a, b: (a * b).exp().sum(dim=0), (x, y))
    assert r.autograd_gradcheck(lambda a: a.tanh(), x)
    assert r.autograd_gradcheck(lambda a, b: (a.mm(b.t()), a.sum()), (randn(2, 3), randn(4, 3)))


def test_gradcheck_works_in_float64_on_float32_inputs():
    x = r.torch_tensor([0.3, -1.2, 2.0], requires_grad=True)  # float32
    seen = []
    assert r.autograd_gradcheck(lambda a: seen.append(a.dtype) or a.exp(), x)
    assert all(d == r.torch_float64() for d in seen)
    assert x.dtype == r.torch_float32()  # the caller's tensor is untouched


def test_gradcheck_accepts_keyword_inputs_and_non_tensor_args():
    x = randn(2, 2)
    assert r.autograd_gradcheck(lambda a, k=1: a.pow(k), {"a": x, "k": 3})
    assert r.autograd_gradcheck(lambda a, k: a.pow(k), (x, 2))


def test_gradcheck_reports_the_worst_element():
    x = randn(2, 3)
    with pytest.raises(GradcheckError) as info:
        r.autograd_gradcheck(lambda inp: doubled_grad(inp), (x,))
    msg = str(info.value)
    assert "Jacobian mismatch for output 0 with respect to input 0 ('inp')" in msg
    assert "worst element: d output[" in msg and "/ d input[" in msg
    assert "numerical 1 vs analytical 2" in msg
    assert "numerical Jacobian" in msg and "analytical Jacobian" in msg


def test_gradcheck_names_keyword_inputs_and_can_return_false():
    x, y = randn(2), randn(2, seed=1)
    f = lambda a, b: a * doubled_grad(b)  # noqa: E731
    assert r.autograd_gradcheck(f, {"a": x, "b": y}, raise_exception=False) is False
    with pytest.raises(GradcheckError, match="with respect to input 'b'"):
        r.autograd_gradcheck(f, {"a": x, "b": y})


def test_gradcheck_only_checks_inputs_that_require_grad():
    x, w = randn(3), randn(3, requires_grad=False)
    seen = []

    def f(a, b):
        seen.append(b.requires_grad)
        return a * b.exp()
    assert r.autograd_gradcheck(f, (x, w))
    assert not any(seen)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        r.autograd_gradcheck(lambda a: a * 2, (w,))


def test_gradcheck_catches_a_missing_gradient():
    # the output depends on x numerically, but the graph does not know it (detach)
    x = randn(3)
    with pytest.raises(GradcheckError, match="numerical 3 vs analytical 1"):
        r.autograd_gradcheck(lambda a: a.detach() * 2 + a, x)


def test_gradcheck_skips_non_floating_outputs():
    x = randn(4)
    assert r.autograd_gradcheck(lambda a: (a > 0, a * 3), x)


def test_gradgradcheck():
    x, y = randn(3), randn(2, 3, seed=1)
    assert r.autograd_gradgradcheck(lambda a, b: (a * b).exp().sum(dim=0), (x, y))
    assert r.autograd_gradgradcheck(lambda a: (a ** 3).sum(), x)


# ------------------------------------------------------------------ functional helpers
def test_jacobian_shapes_and_values():
    x, y = randn(3), randn(2, 3, seed=1)
    j = r.autograd_jacobian(lambda a: a * 2, x)
    assert j.shape == (3, 3) and np.allclose(j.numpy(), 2 * np.eye(3))
    jx, jy = r.autograd_jacobian(lambda a, b: a * b, (x, y))
    assert jx.shape == (2, 3, 3) and jy.shape == (2, 3, 2, 3)
    assert np.allclose(jx.detach().numpy()[1], np.diag(y.detach().numpy()[1]))
    (j00, j01), (j10, j11) = r.autograd_jacobian(lambda a, b: (a.sum(), b * 0), (x, y))
    assert j00.shape == (3,) and j01.shape == (2, 3) and j11.shape == (2, 3, 2, 3)
    assert np.all(j10.numpy() == 0) and np.all(j11.numpy() == 0)
    outs = r.autograd_jacobian(lambda a: (a.exp(), a.sum()), x)
    assert isinstance(outs, tuple) and outs[0].shape == (3, 3) and outs[1].shape == (3,)
    assert j.grad_fn is None and not j.requires_grad


def test_jacobian_create_graph_is_differentiable():
    x = randn(3)
    j = r.autograd_jacobian(lambda a: a ** 3, x, create_graph=True)
    assert j.requires_grad
    j.sum().backward()
    assert np.allclose(x.grad.numpy(), 6 * x.detach().numpy())


def test_hessian():
    x = randn(3)
    h = r.autograd_hessian(lambda a: (a ** 3).sum(), x)
    assert np.allclose(h.detach().numpy(), np.diag(6 * x.detach().numpy()))
    x2, y2 = randn(2), randn(2, seed=1)
    (hxx, hxy), (hyx, hyy) = r.autograd_hessian(lambda a, b: (a * b).sum(), (x2, y2))
    assert np.allclose(hxy.numpy(), np.eye(2)) and np.allclose(hxx.numpy(), 0)
    with pytest.raises(RuntimeError, match="single element"):
        r.autograd_hessian(lambda a: a * 2, x)


def test_vjp_and_jvp():
    x = randn(3)
    v = randn(3, requires_grad=False, seed=2)
    out, g = r.autograd_vjp(lambda a: a ** 2, x, v)
    assert np.allclose(out.detach().numpy(), x.detach().numpy() ** 2) and out.grad_fn is None
    assert np.allclose(g.detach().numpy(), 2 * x.detach().numpy() * v.detach().numpy())
    out, g = r.autograd_jvp(lambda a: a ** 2, x, v)
    assert np.allclose(g.detach().numpy(), 2 * x.detach().numpy() * v.detach().numpy())
    # a non-square Jacobian tells jvp and vjp apart
    a = randn(2, 3, requires_grad=False, seed=3)
    _, jv = r.autograd_jvp(lambda t: a.mm(t.unsqueeze(1)).squeeze(1), x, v)
    _, vj = r.autograd_vjp(lambda t: a.mm(t.unsqueeze(1)).squeeze(1), x,
                           r.torch_ones(2, dtype=r.torch_float64()))
    assert jv.shape == (2,) and np.allclose(jv.numpy(), a.numpy() @ v.numpy())
    assert vj.shape == (3,) and np.allclose(vj.numpy(), a.numpy().sum(0))
    with pytest.raises(RuntimeError, match="can only be None"):
        r.autograd_vjp(lambda t: t * 2, x)
    _, s = r.autograd_vjp(lambda t: t.sum(), x)
    assert np.allclose(s.numpy(), 1)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        r.autograd_jvp(lambda t: t * 2, x, randn(2))


def test_vjp_jvp_tuple_conventions():
    x, y = randn(2), randn(2, seed=1)
    outs, (gx, gy) = r.autograd_vjp(lambda a, b: (a * b, a + b), (x, y),
                                    (r.torch_ones(2, dtype=r.torch_float64()),) * 2)
    assert isinstance(outs, tuple) and len(outs) == 2
    assert np.allclose(gx.numpy(), y.detach().numpy() + 1)
    assert np.allclose(gy.numpy(), x.detach().numpy() + 1)
    outs, (j1, j2) = r.autograd_jvp(lambda a, b: (a * b, a * 0 + 1), (x, y),
                                    (r.torch_ones(2, dtype=r.torch_float64()),) * 2)
    assert np.allclose(j1.numpy(), x.detach().numpy() + y.detach().numpy())
    assert np.allclose(j2.numpy(), 0)


# ------------------------------------------------------------------ custom functions
def _exp_forward(ctx, x):
    y = x.exp()
    ctx.save_for_backward(y=y, x=x)
    return y


def test_gradcheck_on_custom_functions_right_and_wrong():
    right = r.autograd_function(_exp_forward,
                                lambda ctx, g: {"x": g * ctx.saved_variables.y})
    wrong = r.autograd_function(_exp_forward,
                                lambda ctx, g: {"x": g * ctx.saved_variables.x},
                                name="WrongExpBackward")
    x = randn(2, 2)
    assert r.autograd_gradcheck(right, x)
    assert r.autograd_gradgradcheck(right, x)
    with pytest.raises(GradcheckError) as info:
        r.autograd_gradcheck(wrong, (x,))
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0 ('x'):")
    # the worst element is where exp(x) and x are furthest apart
    xs = x.detach().numpy()
    worst = np.unravel_index(int(np.argmax(np.exp(xs) - xs)), xs.shape)
    idx = "[" + ", ".join(str(int(i)) for i in worst) + "]"
    assert f"worst element: d output{idx} / d input{idx}:" in msg
    assert f"vs analytical {xs[worst]:.8g}" in msg
    assert r.autograd_gradcheck(wrong, x, raise_exception=False) is False


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    # first derivative right, but computed from a detached value: no second derivative
    flat = r.autograd_function(_exp_forward,
                               lambda ctx, g: {"x": g * ctx.saved_variables.y.detach()})
    x = randn(3)
    assert r.autograd_gradcheck(flat, x)
    with pytest.raises(GradcheckError, match=r"with respect to input 0 \('x'\)"):
        r.autograd_gradgradcheck(flat, x)
    assert r.autograd_gradgradcheck(flat, x, raise_exception=False) is False


def test_gradcheck_on_a_multi_output_custom_function():
    def fwd(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b, a + b

    def bwd(ctx, g_prod, g_sum):
        a, b = ctx.saved_variables
        return g_prod * b + g_sum, g_prod * a + g_sum

    f = r.autograd_function(fwd, bwd)
    assert r.autograd_gradcheck(f, (randn(3), randn(3, seed=1)))
    assert r.autograd_gradgradcheck(f, (randn(3), randn(3, seed=1)))
    j = r.autograd_jacobian(f, (randn(2), randn(2, seed=1)))
    assert len(j) == 2 and len(j[0]) == 2 and j[1][0].shape == (2, 2)


def test_docstring_examples():
    import doctest

    import rtorchpy.autograd.function as function_module
    import rtorchpy.autograd.gradcheck as gradcheck_module
    for module in (function_module, gradcheck_module):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------ property: broadcasting
@st.composite
def broadcastable_shapes(draw):
    out = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))

    def shrink(shape):
        kept = shape[draw(st.integers(0, len(shape))):]
        return [1 if draw(st.booleans()) else s for s in kept]
    return shrink(out), shrink(out)


@settings(max_examples=25)
@given(broadcastable_shapes(), st.integers(0, 2 ** 16))
def test_custom_mul_with_unreduced_gradients_passes_gradcheck(shapes, seed):
    # backward returns full broadcast-shaped gradients; the engine sums them back to each
    # input's shape, which is what gradcheck verifies against finite differences
    def fwd(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    def bwd(ctx, g):
        a, b = ctx.saved_variables
        return g * b, g * a

    mul = r.autograd_function(fwd, bwd)
    a, b = randn(*shapes[0], seed=seed), randn(*shapes[1], seed=seed + 1)
    assert r.autograd_gradcheck(mul, (a, b))


@pytest.mark.parametrize("fn", [lambda a: a.unsqueeze(0), lambda a: a[None, :].transpose(0, 1),
                                lambda a: a.reshape(-1), lambda a: a[1:]],
                         ids=["unsqueeze", "index-transpose", "reshape", "slice"])
def test_gradcheck_outputs_that_are_views_of_the_input(fn):
    # the output shares the input's storage: finite differences must copy it before the input
    # is perturbed back, or every column of the numerical Jacobian comes out zero
    x = r.torch_tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    assert r.autograd_gradcheck(fn, (x,))
    assert r.autograd_gradgradcheck(fn, (x,))
