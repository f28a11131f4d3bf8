"""autograd_function / AutogradContext, the Python face: calling conventions, backward's
result, saved values, dirty and non-differentiable outputs, create_graph, hooks, anomaly mode.
(R torch's own test-autograd.R blocks on custom functions are in test_seeds_extending.py.)"""
import functools
import gc
import inspect
import weakref

import numpy as np
import pytest

import rtorchpy as r
from rtorchpy import autograd_function, torch_tensor
from rtorchpy.autograd.graph import FREED_MESSAGE


def t(*values, requires_grad=True):
    return torch_tensor(list(values), requires_grad=requires_grad)


def square_fwd(ctx, var1):
    ctx.save_for_backward(var1)
    return var1 ** 2


def square_bwd(ctx, grad_output):
    v = ctx.saved_variables[0]
    assert isinstance(v, r.Tensor)
    return {"var1": 2 * v}  # ignores grad_output on purpose (R test 11)


custom_pow = autograd_function(square_fwd, square_bwd)


# ============================================================ calling conventions
def test_signature_binding_and_defaults():
    def fwd(ctx, x, scale=2.0, *, shift=0.0):
        return x * scale + shift

    f = autograd_function(fwd, lambda ctx, g: (g * 2, None, None))
    assert str(inspect.signature(f)) == "(x, scale=2.0, *, shift=0.0)"
    assert f.__name__ == "fwd" and f.node_name == "FwdBackward"
    x = t(1.0)
    assert f(x).tolist() == [2.0] and f(x, 3.0, shift=1.0).tolist() == [4.0]
    assert f(scale=1.0, x=x).tolist() == [1.0]
    with pytest.raises(TypeError, match="FwdBackward: missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match="FwdBackward"):
        f(x, 1, 2)


def test_forward_gets_arguments_by_name_except_positional_only():
    calls = []

    def fwd(ctx, x, /, k, *, m=1):
        calls.append(k * m)
        return x * k * m

    f = autograd_function(fwd, lambda ctx, g: (g, None, None))
    assert str(inspect.signature(f)) == "(x, /, k, *, m=1)"
    x = t(1.0)
    assert f(x, 2, m=3).tolist() == [6.0] and f(x, k=4).tolist() == [4.0]
    assert calls == [6, 4]


def test_forward_needs_ctx_and_named_parameters():
    with pytest.raises(TypeError, match="first argument"):
        autograd_function(lambda: None, lambda ctx: None)
    with pytest.raises(TypeError, match=r"\*args"):
        autograd_function(lambda ctx, *args: None, lambda ctx: None)


def test_inputs_pass_unchanged_and_forward_runs_without_grad():
    seen = {}

    def fwd(ctx, x, w, k, label):
        seen.update(x=x, w=w, k=k, label=label, grad=r.is_grad_enabled(),
                    req=(x.requires_grad, w.requires_grad))
        return x * w * k

    f = autograd_function(fwd, lambda ctx, g: {"x": g})
    x, w = t(1.0), t(2.0, requires_grad=False)
    out = f(x, w, 3, label="hi")
    assert seen["x"] is x and seen["w"] is w and seen["k"] == 3 and seen["label"] == "hi"
    assert seen["grad"] is False and seen["req"] == (True, False)
    assert r.is_grad_enabled()
    # only x requires grad, so the node has one edge
    assert len(out.grad_fn.next_functions) == 1
    assert out.grad_fn.next_functions[0][0].name == "torch::autograd::AccumulateGrad"


def test_edges_follow_formal_order_not_call_order():
    f = autograd_function(lambda ctx, a, b, c: a + b + c, lambda ctx, g: (g, 2 * g, 3 * g))
    a, c = t(1.0), t(1.0)
    b = t(1.0) * 1  # a non-leaf
    out = f(c=c, b=b, a=a)
    names = [n.name for n, _ in out.grad_fn.next_functions]
    assert names == ["torch::autograd::AccumulateGrad", "MulBackward1",
                     "torch::autograd::AccumulateGrad"]
    out.backward()
    assert (a.grad.tolist(), c.grad.tolist()) == ([1.0], [3.0])


def test_needs_input_grad_reflects_requires_grad_not_grad_mode():
    seen = []

    def fwd(ctx, a, b, n):
        seen.append(ctx.needs_input_grad)
        return a + b

    f = autograd_function(fwd, lambda ctx, g: (g, g, None))
    a, b = t(1.0), t(2.0, requires_grad=False)
    f(a, b, 3)
    with r.with_no_grad():
        out = f(a, b, 3)
    for nig in seen:
        assert nig.to_dict() == {"a": True, "b": False, "n": False}
        assert list(nig) == [True, False, False] and nig[0] is True and nig.a is True
    assert out.grad_fn is None and not out.requires_grad


def test_no_grad_records_nothing_and_returned_inputs_are_detached():
    f = autograd_function(lambda ctx, x: (x, x * 2), lambda ctx, g1, g2: g1 + 2 * g2)
    x = t(1.0)
    with r.with_no_grad():
        a, b = f(x)
    assert a is not x and a.tolist() == [1.0] and not a.requires_grad
    assert b.grad_fn is None


def test_returned_input_becomes_an_alias_with_the_new_history():
    f = autograd_function(lambda ctx, x: x, lambda ctx, g: {"x": g * 3})
    x = t(1.0, 2.0)
    y = f(x)
    assert y is not x and x.is_leaf and y.grad_fn.name == "CustomFunctionBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with r.with_no_grad():
        y.add_(1)  # shares storage and version counter with x
    assert x.tolist() == [2.0, 3.0] and x._version is y._version


def test_container_types_are_preserved():
    def g(ctx, *grads):
        return {"x": sum(gr for gr in grads if gr is not None)}

    x = t(1.0)
    assert isinstance(autograd_function(lambda ctx, x: (x * 1, x * 2), g)(x), tuple)
    assert isinstance(autograd_function(lambda ctx, x: [x * 1], g)(x), list)
    d = autograd_function(lambda ctx, x: {"lo": x * 1, "hi": x * 2}, g)(x)
    assert list(d) == ["lo", "hi"]
    (d["lo"] + d["hi"]).backward()
    assert x.grad.tolist() == [2.0]  # backward got both gradients, in key order
    with pytest.raises(TypeError, match="must return a Tensor"):
        autograd_function(lambda ctx, x: 3, g)(x)


def test_non_floating_outputs_are_non_differentiable():
    seen = []

    def bwd(ctx, g_out, g_mask):
        seen.append((g_mask.dtype, g_mask.tolist()))
        return {"x": g_out}

    f = autograd_function(lambda ctx, x: (x * 2, x > 0), bwd)
    x = t(-1.0, 1.0)
    out, mask = f(x)
    assert out.requires_grad and not mask.requires_grad and mask.grad_fn is None
    out.sum().backward()
    assert seen == [(r.torch_bool(), [False, False])]


def test_set_materialize_grads_false_passes_none():
    seen = []

    def fwd(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 1, x * 2

    def bwd(ctx, g1, g2):
        seen.append((g1 is None, g2 is None))
        return {"x": g1 if g2 is None else g2 * 2}

    x = t(1.0)
    a, b = autograd_function(fwd, bwd)(x)
    a.backward()
    assert seen == [(False, True)] and x.grad.tolist() == [1.0]


def test_node_name_default_and_override():
    class Linear:
        @staticmethod
        def forward(ctx, x):
            return x * 1

    x = t(1.0)
    assert autograd_function(Linear.forward, lambda c, g: g)(x).grad_fn.name == "LinearBackward"
    f = autograd_function(lambda ctx, x: x * 1, lambda c, g: g)
    assert f(x).grad_fn.name == "CustomFunctionBackward"

    def mul_constant(ctx, x):
        return x * 2
    assert autograd_function(mul_constant, lambda c, g: g)(x).grad_fn.name == \
        "MulConstantBackward"
    lantern = autograd_function(mul_constant, lambda c, g: g,
                                name="torch::autograd::LanternNode")
    out = lantern(x)
    assert repr(out.grad_fn) == "torch::autograd::LanternNode"
    assert repr(out).endswith("[ grad_fn = <torch::autograd::LanternNode> ]")


# ============================================================ backward's result
def _one(result_fn, *args, strict_names=True, name=None):
    """Run a custom x*y-like function whose backward returns result_fn(g)."""
    f = autograd_function(lambda ctx, x, y=None: x * 1, lambda ctx, g: result_fn(g),
                          strict_names=strict_names, name=name)
    return f(*args)


def test_backward_result_forms():
    # a dict by name, a tuple or list per argument (trailing Nones allowed)
    for result in (lambda g: {"x": g * 2}, lambda g: (g * 2, None), lambda g: [g * 2, None],
                   lambda g: (g * 2, None, None)):
        x = t(1.0)
        _one(result, x).backward()
        assert x.grad.tolist() == [2.0]
    # a bare Tensor when forward has one argument
    x = t(1.0)
    autograd_function(lambda ctx, x: x * 1, lambda ctx, g: g * 5)(x).backward()
    assert x.grad.tolist() == [5.0]


def test_missing_and_none_gradients_are_zeros():
    for result in (lambda g: {}, lambda g: None, lambda g: {"y": g}, lambda g: (None, g)):
        x, y = t(1.0), t(1.0)
        _one(result, x, y).backward()
        assert x.grad.tolist() == [0.0]
    x = t(1.0)
    out = _one(lambda g: None, x)
    assert r.autograd_grad(out, x)[0].tolist() == [0.0]  # "used", with a zero gradient


def test_unknown_names_are_errors_unless_not_strict():
    x = t(1.0)
    with pytest.raises(RuntimeError) as info:
        _one(lambda g: {"x": g, "z": g, "w": g}, x).backward()
    assert str(info.value) == ("backward of CustomFunctionBackward returned a gradient for "
                               "'z', 'w', which is not an argument of forward; valid names: x, y")
    x = t(1.0)
    _one(lambda g: {"x": g * 2, "z": g}, x, strict_names=False).backward()
    assert x.grad.tolist() == [2.0]


def test_wrong_number_of_gradients():
    with pytest.raises(RuntimeError, match="returned 3 gradients but forward has 2 arguments "
                                           r"\(x, y\); expected 2"):
        _one(lambda g: (g, g, g), t(1.0)).backward()
    with pytest.raises(TypeError, match="returned a single Tensor, but forward has 2 arguments"):
        _one(lambda g: g, t(1.0)).backward()
    with pytest.raises(TypeError, match="must return a dict"):
        _one(lambda g: "nope", t(1.0)).backward()


def test_gradient_values_are_converted_and_validated():
    x = t(1.0)
    _one(lambda g: {"x": 4}, x).backward()  # a number: shape (1,), as R's length-one vectors
    assert x.grad.tolist() == [4.0] and x.grad.dtype == r.torch_float32()
    s = torch_tensor(1.0, requires_grad=True)  # 0-dim: the (1,) gradient sums down to it
    _one(lambda g: (2.5, None), s).backward()
    assert s.grad.tolist() == 2.5
    x = t(1.0, 2.0)
    _one(lambda g: {"x": np.array([1.0, 2.0])}, x).sum().backward()  # float64 -> float32
    assert x.grad.tolist() == [1.0, 2.0] and x.grad.dtype == r.torch_float32()
    with pytest.raises(TypeError, match="returned a str as the gradient of argument 'x'"):
        _one(lambda g: {"x": "a"}, t(1.0)).backward()


def test_broadcastable_gradient_is_summed_and_wrong_shape_is_an_error():
    x = t(0.0, 0.0, 0.0)
    _one(lambda g: {"x": r.torch_ones(2, 3)}, x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError) as info:
        _one(lambda g: {"x": r.torch_ones(3)}, t(0.0, 0.0), name="LinearBackward").sum().backward()
    assert str(info.value) == ("Function LinearBackward returned an invalid gradient at index 0 - "
                               "got [3] but expected shape compatible with [2]")
    with pytest.raises(RuntimeError, match="torch::autograd::LanternNode returned an invalid "
                                           "gradient at index 1"):
        f = autograd_function(lambda ctx, a, b: a * b,
                              lambda ctx, g: {"a": g, "b": r.torch_ones(5)},
                              name="torch::autograd::LanternNode")
        f(t(1.0, 2.0), t(1.0, 2.0)).sum().backward()


# ============================================================ saved values
def test_saved_variables_access_and_order():
    seen = {}

    def fwd(ctx, x):
        ctx.save_for_backward(x, 7, weight=x * 2, bias=None)
        ctx.constant = 2
        return x * 1

    def bwd(ctx, g):
        s = ctx.saved_variables
        seen.update(names=s.names(), n=len(s), first=s[0], last=s[-1], bias=s.bias,
                    weight=s["weight"].tolist(), values=list(s)[1], const=ctx.constant,
                    tensors=ctx.saved_tensors, has=("bias" in s, "nope" in s))
        return g

    x = t(1.0)
    autograd_function(fwd, bwd)(x).backward()
    assert seen["names"] == [None, None, "weight", "bias"] and seen["n"] == 4
    assert seen["first"] is x and seen["last"] is None and seen["bias"] is None
    assert seen["weight"] == [2.0] and seen["values"] == 7 and seen["const"] == 2
    assert len(seen["tensors"]) == 4 and seen["has"] == (True, False)


def test_save_for_backward_pairs_and_replacement():
    pairs = []

    def fwd(ctx, x):
        ctx.save_for_backward(x)  # replaced by the next call
        ctx.save_for_backward_pairs([(None, x), ("i", 2), (None, 3.5)])
        return x * 1

    def bwd(ctx, g):
        pairs.extend(ctx.saved_variables.pairs())
        return g

    x = t(1.0)
    autograd_function(fwd, bwd)(x).backward()
    assert pairs == [(None, x), ("i", 2), (None, 3.5)]
    with pytest.raises(RuntimeError, match="only be called from forward"):
        r.autograd.function.AutogradContext("f", None).save_for_backward(x)
    with pytest.raises(AttributeError, match="no entry named 'nope'"):
        r.autograd.function.NamedValues([("a", 1)]).nope


def test_saved_tensor_modified_in_place_is_detected():
    x = t(1.0, 2.0)
    w = t(3.0, 4.0, requires_grad=False)
    f = autograd_function(lambda ctx, x, w: ctx.save_for_backward(w=w) or x * w,
                          lambda ctx, g: {"x": g * ctx.saved_variables.w})
    out = f(x, w)
    w.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient "
                                           r"computation has been modified by an inplace "
                                           r"operation: \[CPUFloatType \[2\]\] is at version 1; "
                                           "expected version 0 instead"):
        out.sum().backward()


def test_saved_values_are_freed_after_backward():
    x = t(2.0)
    out = custom_pow(x)
    out.backward()
    with pytest.raises(RuntimeError) as info:
        out.backward()
    assert str(info.value) == FREED_MESSAGE
    # retain_graph keeps them; a function that saved nothing can always run again
    x = t(2.0)
    out = custom_pow(x)
    out.backward(retain_graph=True)
    out.backward()
    assert x.grad.tolist() == [8.0]
    y = autograd_function(lambda ctx, x: x * 2, lambda ctx, g: g * 2)(x)
    y.backward()
    y.backward()
    assert x.grad.tolist() == [12.0]


def test_constants_only_save_is_freed_too():
    x = t(1.0)
    f = autograd_function(lambda ctx, x: ctx.save_for_backward(k=3) or x * 3,
                          lambda ctx, g: g * ctx.saved_variables.k)
    out = f(x)
    out.backward()
    with pytest.raises(RuntimeError, match="graph a second time"):
        out.backward()


def test_saved_output_makes_no_reference_cycle():
    def fwd(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        ctx.mark = "ok"
        return y

    f = autograd_function(fwd, lambda ctx, g: g * ctx.saved_variables[0])
    x = t(0.0)
    gc.disable()
    try:
        out = f(x)
        node = weakref.ref(out.grad_fn)
        ref = weakref.ref(out)
        del out
        assert ref() is None and node() is None  # freed by reference counting alone
    finally:
        gc.enable()
    out = f(x)
    out.backward()
    assert x.grad.tolist() == [1.0]


# ============================================================ composition with the engine
def cube_fwd(ctx, x):
    ctx.save_for_backward(x)
    return x ** 3


def cube_bwd(ctx, g):
    (x,) = ctx.saved_variables
    return {"x": g * 3 * x ** 2}


cube = autograd_function(cube_fwd, cube_bwd)


def test_create_graph_through_a_custom_function():
    x = t(2.0)
    (g,) = r.autograd_grad(cube(x), x, create_graph=True)
    assert g.tolist() == [12.0] and g.requires_grad
    (gg,) = r.autograd_grad(g, x)
    assert gg.tolist() == [12.0]  # 6x
    x64 = torch_tensor([0.5, -1.0], dtype=r.torch_float64(), requires_grad=True)
    assert r.autograd_gradgradcheck(cube, x64)


def test_backward_grad_mode_follows_create_graph():
    modes = []

    def bwd(ctx, g):
        modes.append((r.is_grad_enabled(), type(g) is r.Tensor))
        return g

    f = autograd_function(lambda ctx, x: x * 1, bwd)
    x = t(1.0)
    f(x).backward()
    r.autograd_grad(f(x), x, create_graph=True)
    assert modes == [(False, True), (True, True)]


def test_hooks_retain_grad_and_multiple_uses():
    x = t(1.0)
    out = cube(x)
    calls = []
    out.register_hook(lambda g: calls.append(g.tolist()) or g * 2)
    out.retain_grad()
    (out + cube(x)).backward()
    assert calls == [[1.0]] and out.grad.tolist() == [2.0]
    assert x.grad.tolist() == [9.0]  # 3 * 2 + 3


def test_nested_custom_functions():
    def fwd(ctx, x):
        return cube(x) * 1  # grad mode is off inside: the inner call records nothing

    def bwd(ctx, g):
        return g * 2

    x = t(1.0)
    out = autograd_function(fwd, bwd)(x)
    assert out.grad_fn.next_functions[0][0].name == "torch::autograd::AccumulateGrad"
    out.backward()
    assert x.grad.tolist() == [2.0]


def test_anomaly_mode_names_the_custom_node():
    def bwd(ctx, g):
        raise ValueError("bad backward")

    f = autograd_function(lambda ctx, x: x * 1, bwd, name="MyNode")
    with pytest.warns(UserWarning), r.with_detect_anomaly():
        out = f(t(1.0))
        with pytest.raises(ValueError) as info:
            out.backward()
    assert str(info.value) == "bad backward"
    assert any("Error detected in MyNode" in n for n in info.value.__notes__)
    nan = autograd_function(lambda ctx, x: x * 1, lambda ctx, g: g * float("nan"), name="NanNode")
    with pytest.warns(UserWarning), r.with_detect_anomaly():
        with pytest.raises(RuntimeError, match="Function 'NanNode' returned nan values"):
            nan(t(1.0)).backward()


def test_mark_dirty_on_a_non_leaf_rebases_history():
    def fwd(ctx, a):
        a.mul_(3)
        ctx.mark_dirty(a)
        return a

    f = autograd_function(fwd, lambda ctx, g: g * 3, name="Triple")
    x = t(1.0, 2.0)
    h = x * 1
    out = f(h)
    assert out is h and h.grad_fn.name == "Triple" and h._version[0] == 1
    assert h.grad_fn.next_functions[0][0].name == "MulBackward1"
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_mark_dirty_requires_returning_the_tensor():
    def fwd(ctx, a, b):
        a.add_(1)
        ctx.mark_dirty(a)
        return b * 1

    with pytest.raises(RuntimeError, match="marked tensors dirty that it did not return"):
        autograd_function(fwd, lambda ctx, g: (None, g))(t(1.0, requires_grad=False), t(1.0))


def test_unused_output_under_create_graph_gets_zeros():
    seen = []

    def bwd(ctx, g1, g2):
        seen.append((g1.tolist(), g2.tolist(), g2.dtype))
        (a,) = ctx.saved_variables
        return g1 * 2 * a + g2 * 3

    f = autograd_function(lambda ctx, a: ctx.save_for_backward(a) or (a * a, a * 3), bwd)
    x = t(2.0)
    p, _ = f(x)
    (g,) = r.autograd_grad(p, x, create_graph=True)
    assert seen == [([1.0], [0.0], r.torch_float32())]
    assert g.tolist() == [4.0] and r.autograd_grad(g, x)[0].tolist() == [2.0]


def test_r_shim_style_callables():
    # the R shim wraps R closures as Python callables that take *args/**kwargs and carry the
    # R formals as __signature__; the engine must go by that signature
    def r_closure(*args, **kwargs):
        ctx, = args
        ctx.save_for_backward_pairs([("input", kwargs["input"]), (None, kwargs["bias"])])
        return kwargs["input"] * 2

    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for n in ("ctx", "input")]
    params.append(inspect.Parameter("bias", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    default=None))
    r_closure.__signature__ = inspect.Signature(params)

    def r_backward(ctx, grad_output):
        pairs = ctx.saved_variables.pairs()
        assert [n for n, _ in pairs] == ["input", None] and pairs[1][1] is None
        return {"input": grad_output * 2, "not_an_arg": 1}  # R ignores unknown names

    f = autograd_function(r_closure, lambda ctx, g: r_backward(ctx, g),
                          name="torch::autograd::LanternNode", strict_names=False)
    assert str(inspect.signature(f)) == "(input, bias=None)"
    x = t(1.0)
    out = f(input=x)
    assert out.grad_fn.name == "torch::autograd::LanternNode"
    out.backward()
    assert x.grad.tolist() == [2.0]


# ============================================================ gradients the engine may own
# A custom node tells the engine, per call, whether every gradient its backward returned is an
# array nobody else holds: only then may the engine add into it in place or make it a leaf's
# .grad without a copy. Sizes here are above the engine's ownership threshold.
def _big_linear(backward):
    def fwd(ctx, x, w):
        ctx.save_for_backward(x=x, w=w)
        return x.mm(w.t())
    return autograd_function(fwd, backward)


def _big_inputs():
    rng = np.random.default_rng(0)
    x = torch_tensor(rng.standard_normal((80, 70)), requires_grad=True)
    w = torch_tensor(rng.standard_normal((90, 70)), requires_grad=True)
    return x, w


def test_fresh_gradients_are_owned_and_correct():
    def bwd(ctx, g):
        s = ctx.saved_variables
        return {"x": g.mm(s.w), "w": g.t().mm(s.x)}

    x, w = _big_inputs()
    f = _big_linear(bwd)
    out = f(x, w)
    node = out.grad_fn
    assert node.fresh is False  # nothing claimed before backward ran
    out.sum().backward()
    assert node.fresh is True
    ones = np.ones((80, 90))
    np.testing.assert_allclose(x.grad.numpy(), ones @ w.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), ones.T @ x.detach().numpy())
    f(x, w).sum().backward()  # accumulates in place into the .grad it was given
    np.testing.assert_allclose(x.grad.numpy(), 2 * ones @ w.detach().numpy())


def test_gradients_held_elsewhere_are_not_owned():
    kept = []

    def keeps(ctx, g):  # the backward keeps a gradient it returns
        s = ctx.saved_variables
        gx = g.mm(s.w)
        kept.append(gx)
        return {"x": gx, "w": g.t().mm(s.x)}

    def view(ctx, g):  # a gradient that is a view (of a fresh array: still shared)
        s = ctx.saved_variables
        return {"x": g.mm(s.w), "w": s.x.t().mm(g).t()}

    def saved(ctx, g):  # a saved input as a gradient
        s = ctx.saved_variables
        return {"x": s.x, "w": s.w}

    for bwd in (keeps, view, saved):
        x, w = _big_inputs()
        x0, w0 = x.detach().numpy().copy(), w.detach().numpy().copy()
        out = _big_linear(bwd)(x, w)
        node = out.grad_fn
        out.sum().backward()
        assert node.fresh is False, bwd.__name__
        _big_linear(bwd)(x, w).sum().backward()  # must not write into what backward kept
        if bwd is keeps:
            np.testing.assert_allclose(kept[0].numpy(), np.ones((80, 90)) @ w0)
            assert not np.shares_memory(kept[0].numpy(), x.grad.numpy())
        if bwd is saved:
            np.testing.assert_array_equal(x.detach().numpy(), x0)
            np.testing.assert_array_equal(w.detach().numpy(), w0)
            np.testing.assert_allclose(x.grad.numpy(), 2 * x0)


def test_one_gradient_for_two_inputs_is_not_owned():
    def fwd(ctx, a, b):
        return a * b

    def bwd(ctx, g):
        gg = g * 3.0
        return {"a": gg, "b": gg}

    f = autograd_function(fwd, bwd)
    a = torch_tensor(np.ones((100, 50)), requires_grad=True)
    b = torch_tensor(np.ones((100, 50)), requires_grad=True)
    out = f(a, b)
    out.sum().backward()
    assert out.grad_fn.fresh is False
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.numpy()[0, 0] = 7.0
    assert b.grad.numpy()[0, 0] == 3.0


def test_forward_behind_a_wrapper_is_called_by_name():
    # a decorator's (*args, **kwargs) wrapper carries the wrapped signature (__wrapped__):
    # forward must still get every argument by name, as for the R shim's wrappers
    seen = []

    def fwd(ctx, x, scale=3.0):
        return x * scale

    @functools.wraps(fwd)
    def wrapped(ctx, **kwargs):
        seen.append(sorted(kwargs))
        return fwd(ctx, **kwargs)

    f = autograd_function(wrapped, lambda ctx, g: {"x": g * 3.0})
    x = t(1.0, 2.0)
    out = f(x)
    out.sum().backward()
    assert seen == [["scale", "x"]] and x.grad.tolist() == [3.0, 3.0]
    assert str(inspect.signature(f)) == "(x, scale=3.0)"
