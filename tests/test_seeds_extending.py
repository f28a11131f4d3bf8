"""The custom-function examples of the seeds, in Python, with the seeds' numbers.

Seeds: the "Extending Autograd" vignette (``linear``, ``mul_constant``), the
``autograd_function`` reference page (``exp2``) and the course exercise (a custom ReLU). The
vignette's ``linear`` is only defined there, never called; it is called here, with the Python
(0-based) spelling ``bias.unsqueeze(0)`` / ``grad_output.sum(dim=0)``. The reference page's typo
``saved_variable`` is spelled ``saved_variables``.
"""
import numpy as np

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
    assert np.allclose(out.numpy(), np.exp([0.0, 1.0, -2.0]))
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
