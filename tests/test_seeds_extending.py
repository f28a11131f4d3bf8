"""What R torch documents and tests about extending autograd, in Python.

1. The custom-function examples of the seeds, with the seeds' numbers: the "Extending Autograd"
   vignette (``linear``, ``mul_constant``), the ``autograd_function`` reference page (``exp2``)
   and the course exercise (a custom ReLU). The vignette's ``linear`` is only defined there,
   never called; it is called here, with the Python (0-based) spelling ``bias.unsqueeze(0)`` /
   ``grad_output.sum(dim=0)``. The reference page's typo ``saved_variable`` is spelled
   ``saved_variables``.
2. R torch's test-autograd.R blocks on custom functions (spec §6.1 items 11-19, 32, 33), named
   ``test_rN_...``; item 14 is the ``linear`` test of part 1.
"""
import numpy as np
import pytest

import rtorchpy as r
from rtorchpy import autograd_function, torch_tensor


# ---------------------------------------------------------------- vignette: linear
def linear_forward(ctx, input, weight, bias=None):
    ctx.save_for_backward(input=input, weight=weight, bias=bias)
    output = input.mm(weight.t())
    if bias is not None:
        output = output + bias.unsqueeze(0).expand_as(output)
    return output


def linear_backward(ctx, grad_output):
    s = ctx.saved_variables
    grads = {"input": None, "weight": None, "bias": None}
    if ctx.needs_input_grad.input:
        grads["input"] = grad_output.mm(s.weight)
    if ctx.needs_input_grad.weight:
        grads["weight"] = grad_output.t().mm(s.input)
    if s.bias is not None and ctx.needs_input_grad.bias:
        grads["bias"] = grad_output.sum(dim=0)
    return grads


linear = autograd_function(linear_forward, linear_backward)


def test_linear_is_called_like_forward_without_ctx():
    import inspect
    assert str(inspect.signature(linear)) == "(input, weight, bias=None)"


def test_linear_without_and_with_bias():
    # the numbers of R torch's test "Can have optional arguments in forward"
    x = torch_tensor([[1.0, 1.0], [1.0, 1.0]])
    w = torch_tensor([[2.0, 3.0]], requires_grad=True)
    y = torch_tensor([[2.0], [2.0]])
    o = linear(x, w)
    assert o.tolist() == [[5.0], [5.0]]
    ((y - o) ** 2).mean().backward()
    assert w.grad.tolist() == [[6.0, 6.0]]

    w = torch_tensor([[2.0, 3.0]], requires_grad=True)
    b = torch_tensor([0.0], requires_grad=True)
    o = linear(x, w, b)
    ((y - o) ** 2).mean().backward()
    assert w.grad.tolist() == [[6.0, 6.0]]
    assert b.grad.tolist() == [6.0]


def test_linear_needs_input_grad_follows_requires_grad():
    seen = []

    def fwd(ctx, input, weight, bias=None):
        seen.append(ctx.needs_input_grad.to_dict())
        return linear_forward(ctx, input, weight, bias)

    f = autograd_function(fwd, linear_backward)
    x = torch_tensor([[1.0, 2.0]])
    w = torch_tensor([[1.0, 1.0]], requires_grad=True)
    f(x, w)
    f(x, w, torch_tensor([1.0], requires_grad=True))
    assert seen == [{"input": False, "weight": True, "bias": False},
                    {"input": False, "weight": True, "bias": True}]


def test_linear_passes_gradcheck():
    rng = np.random.default_rng(1)

    def t(*shape):
        return torch_tensor(rng.standard_normal(shape), dtype=r.torch_float64(),
                            requires_grad=True)
    assert r.autograd_gradcheck(linear, (t(3, 2), t(4, 2), t(4)))
    assert r.autograd_gradcheck(linear, (t(3, 2), t(4, 2)))
    assert r.autograd_gradgradcheck(linear, (t(3, 2), t(4, 2), t(4)))


# ---------------------------------------------------------------- vignette: mul_constant
def mul_constant_forward(ctx, tensor, constant):
    ctx.save_for_backward(constant=constant)
    return tensor * constant


def mul_constant_backward(ctx, grad_output):
    v = ctx.saved_variables
    return {"tensor": grad_output * v.constant}


mul_constant = autograd_function(mul_constant_forward, mul_constant_backward)


def test_mul_constant():
    x = torch_tensor([1.0], requires_grad=True)  # R's torch_tensor(1) has shape {1}
    o = mul_constant(x, 2)
    assert o.tolist() == [2.0]
    o.backward()
    assert repr(x.grad) == "torch_tensor\n 2\n[ CPUFloatType{1} ]"
    assert r.autograd_gradcheck(mul_constant, (x, 2))


# ---------------------------------------------------------------- reference page: exp2
def exp2_forward(ctx, i):
    result = i.exp()
    ctx.save_for_backward(result=result)
    return result


def exp2_backward(ctx, grad_output):
    return {"i": grad_output * ctx.saved_variables.result}


exp2 = autograd_function(exp2_forward, exp2_backward)


def test_exp2_matches_exp():
    x = torch_tensor([0.0, 1.0, -2.0], requires_grad=True)
    out = exp2(x)
    assert np.allclose(out.detach().numpy(), np.exp([0.0, 1.0, -2.0]))
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), np.exp([0.0, 1.0, -2.0]))
    assert r.autograd_gradcheck(exp2, x)
    # the backward uses recorded ops, so second order is right too
    assert r.autograd_gradgradcheck(exp2, x)


# ---------------------------------------------------------------- exercise: a custom ReLU
def relu_forward(ctx, input):
    mask = input > 0
    output = r.torch_where(mask, input, r.torch_zeros_like(input))
    ctx.save_for_backward(mask)
    return output


def relu_backward(ctx, grad_output):
    grads = {"input": None}
    if ctx.needs_input_grad.input:
        mask = ctx.saved_variables[0]
        grads["input"] = grad_output * mask
    return grads


relu = autograd_function(relu_forward, relu_backward)


def test_custom_relu_matches_nnf_relu():
    for value, expected in ((-1.0, "0"), (3.0, "6")):
        for f in (relu, r.nnf_relu):
            x = torch_tensor([value], requires_grad=True)
            (f(x) ** 2).backward()
            assert repr(x.grad) == f"torch_tensor\n {expected}\n[ CPUFloatType{{1}} ]"
            assert repr(x.grad.zero_()) == "torch_tensor\n 0\n[ CPUFloatType{1} ]"


def test_custom_relu_passes_gradcheck_away_from_zero():
    x = torch_tensor([-1.5, -0.3, 0.4, 2.0], dtype=r.torch_float64(), requires_grad=True)
    assert r.autograd_gradcheck(relu, x)


# ================================================================ R test-autograd.R blocks
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


def test_r11_simple_extension():
    x = t(3.0)
    out = custom_pow(x)
    out.backward()
    assert out.tolist() == [9.0] and x.grad.tolist() == [6.0]
    x = t(3.0)
    out = custom_pow(x) * custom_pow(x)
    out.backward()
    # each backward returns 2*v without the incoming gradient: the engine trusts it
    assert out.tolist() == [81.0] and x.grad.tolist() == [12.0]


def two_var_fwd(ctx, a, b):
    ctx.save_for_backward(a, b)
    return a ** 2 + b ** 3


def two_var_bwd(ctx, grad_output):
    a, b = ctx.saved_variables
    return {"b": 3 * b ** 2, "a": 2 * a}  # the order of the names does not matter


def test_r12_two_variables_matched_by_name():
    custom = autograd_function(two_var_fwd, two_var_bwd)
    for call in (lambda x, y: custom(x, y), lambda x, y: custom(b=y, a=x)):
        x, y = t(3.0), t(4.0)
        out = call(x, y)
        out.backward()
        assert out.tolist() == [9.0 + 64.0]
        assert x.grad.tolist() == [6.0] and y.grad.tolist() == [48.0]


def test_r13_named_saved_values():
    def fwd(ctx, var1):
        ctx.save_for_backward(var1=var1, var2=2 * var1)
        return var1 ** 2

    def bwd(ctx, grad_output):
        v = ctx.saved_variables
        assert isinstance(v.var1, r.Tensor) and isinstance(v["var2"], r.Tensor)
        return {"var1": v.var2}

    x = t(3.0)
    out = autograd_function(fwd, bwd)(x)
    out.backward()
    assert out.tolist() == [9.0] and x.grad.tolist() == [6.0]


# R test 14 (optional arguments) is test_linear_without_and_with_bias above


def test_r15_errors_in_forward_and_backward_keep_their_message():
    def bad_fwd(ctx, var1):
        raise ValueError("stop forward")

    f = autograd_function(bad_fwd, square_bwd)
    with pytest.raises(ValueError) as info:
        f(t(1.0))
    assert str(info.value) == "stop forward"
    notes = getattr(info.value, "__notes__", [])
    assert any("forward of custom autograd function BadFwdBackward" in n for n in notes)

    def bad_bwd(ctx, grad_output):
        ctx.saved_variables[0]
        raise RuntimeError("stop backward")

    out = autograd_function(square_fwd, bad_bwd)(t(1.0))
    with pytest.raises(RuntimeError) as info:
        out.backward()
    assert str(info.value) == "stop backward"
    assert any("backward of custom autograd function" in n for n in info.value.__notes__)


def test_r15_foreign_exception_objects_pass_through_unchanged():
    # the R shim raises its own exception type carrying the R message; it must survive as is
    class RError(Exception):
        def __init__(self, message, call):
            super().__init__(message)
            self.call = call

    def fwd(ctx, x):
        raise RError("Error in f(): boom\n  with a second line", "f()")

    with pytest.raises(RError) as info:
        autograd_function(fwd, square_bwd)(t(1.0))
    assert str(info.value) == "Error in f(): boom\n  with a second line"
    assert info.value.call == "f()"


def test_r16_constants_in_save_for_backward():
    def fwd(ctx, var1, i):
        ctx.save_for_backward(var1=var1, i=i)
        return var1 ** i

    def bwd(ctx, grad_output):
        v = ctx.saved_variables
        assert isinstance(v.var1, r.Tensor) and type(v.i) is int
        assert v.names() == ["var1", "i"]
        return {"var1": v.i * v.var1 ** (v.i - 1)}

    f = autograd_function(fwd, bwd)
    for i, value, grad in ((2, 4.0, 4.0), (3, 8.0, 12.0)):
        x = t(2.0)
        out = f(x, i)
        out.backward()
        assert out.tolist() == [value] and x.grad.tolist() == [grad]


def test_r17_forward_returns_several_outputs():
    def fwd(ctx, var1, i):
        ctx.save_for_backward(var1=var1, i=i)
        return [var1 ** i, var1 ** (i + 1)]

    def bwd_star(ctx, *grad_output):
        assert len(grad_output) == 2
        assert all(isinstance(g, r.Tensor) for g in grad_output)
        assert grad_output[1].tolist() == [0.0]  # the unused output's gradient is zeros
        v = ctx.saved_variables
        return {"var1": v.i * v.var1 ** (v.i - 1)}

    def bwd_two(ctx, out1, out2):
        return bwd_star(ctx, out1, out2)

    for bwd in (bwd_star, bwd_two):
        x = t(2.0)
        res = autograd_function(fwd, bwd)(x, 2)
        assert isinstance(res, list) and len(res) == 2
        res[0].backward()
        assert x.grad.tolist() == [4.0]


def test_r18_mark_dirty():
    def fwd(ctx, a, b):
        ctx.mark_dirty(a)
        return a.add_(b), b + 2

    def bwd(ctx, ga, gb):
        return {"a": ga, "b": ga + gb}

    inplace = autograd_function(fwd, bwd)
    x = t(2.0, requires_grad=False)
    y = t(3.0)
    res = inplace(x, y)
    assert res[0] is x and x.tolist() == [5.0]
    assert x.requires_grad and x.grad_fn is res[1].grad_fn
    res[0].backward()
    assert y.grad.tolist() == [1.0]


def test_r18_mark_dirty_on_a_leaf_that_requires_grad():
    def fwd(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x, x

    def bwd(ctx, g1, g2):
        return {"x": g1 * 2 + g2 * 2}

    x = t(5.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad") as info:
        autograd_function(fwd, bwd)(x)
    assert str(info.value) == ("a leaf Variable that requires grad has been used in an "
                               "in-place operation.")
    assert x.tolist() == [10.0]  # the change happened before the check, as in libtorch
    assert x.grad_fn is None


def test_r19_mark_non_differentiable():
    def fwd(ctx, input):
        output = input > 0
        ctx.mark_non_differentiable(output)
        return output

    myfun = autograd_function(fwd, lambda ctx, g: {"input": g * 0})
    x = t(-1.0, 2.0)
    mask = myfun(x)
    assert not mask.requires_grad and mask.grad_fn is None
    x.masked_fill(mask, 0).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]

    def fwd2(ctx, input):
        a, b = input + 1, input + 2
        ctx.mark_non_differentiable(a)
        return [a, b]

    seen = {}

    def bwd2(ctx, ga, gb):
        seen.update(ga=ga.tolist(), gb=gb.tolist())
        return {"input": gb}

    x = t(1.0)
    res = autograd_function(fwd2, bwd2)(x)
    assert not res[0].requires_grad and res[1].requires_grad
    res[1].backward()
    assert seen == {"ga": [0.0], "gb": [1.0]} and x.grad.tolist() == [1.0]


def test_r32_autograd_grad_with_a_custom_function():
    def fwd(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result=result)
        return result

    def bwd(ctx, grad_output):
        return {"i": grad_output * ctx.saved_variables.result}

    exp2 = autograd_function(fwd, bwd)
    grads = []
    for f in (r.torch_exp, exp2):
        r.torch_manual_seed(7)
        w1 = r.torch_randn(4, 3, 5, 5, requires_grad=True)
        m1 = f(w1).mean()
        # R passes 4-d grad_outputs for the 0-dim output (libtorch's C++ grad() does not check)
        grads.append(r.autograd_grad(m1, w1, r.torch_ones_like(w1), check_grad_shapes=False)[0])
        assert w1.grad is None
    assert np.allclose(grads[0].numpy(), grads[1].numpy())


def test_r33_autograd_grad_when_backward_fails():
    def bwd(ctx, grad_output):
        raise RuntimeError("GRADFOO")

    x = t(1.0)
    out = autograd_function(square_fwd, bwd)(x)
    with pytest.raises(RuntimeError, match="GRADFOO"):
        r.autograd_grad(out, x)
