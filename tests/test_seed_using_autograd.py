"""Seed 002 ("Using autograd"), in Python: every deterministic number and printout it shows."""
import numpy as np

from rtorchpy import torch_ones, torch_randn, torch_tensor, with_no_grad


def body(t):
    """The printed tensor without the header line (the seed shows values and footer)."""
    return t.format().split("\n", 1)[1]


def test_requires_grad_and_first_ops():
    x = torch_ones(2, 2, requires_grad=True)
    assert body(x) == " 1  1\n 1  1\n[ CPUFloatType{2,2} ][ requires_grad = TRUE ]"
    y = x + 2
    assert body(y).startswith(" 3  3\n 3  3\n[ CPUFloatType{2,2} ]")
    assert repr(y.grad_fn) == "AddBackward1"
    z = y * y * 3
    out = z.mean()
    assert body(z).startswith(" 27  27\n 27  27\n")
    assert body(out).startswith("27\n[ CPUFloatType{} ]")
    out.backward()
    assert body(x.grad) == " 4.5000  4.5000\n 4.5000  4.5000\n[ CPUFloatType{2,2} ]"


def test_requires_grad_flag_changes_in_place():
    a = torch_randn(2, 2)
    a = (a * 3) / (a - 1)
    assert a.requires_grad is False
    assert a.requires_grad_(True) is a
    assert a.requires_grad
    b = (a * a).sum()
    assert repr(b.grad_fn) == "SumBackward0"


def test_vector_jacobian_product():
    x = torch_randn(3, requires_grad=True)
    y = 100 * x
    v = torch_tensor([0.1, 1.0, 0.0001])
    y.backward(v)
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 100.0, 0.01], rtol=1e-6)
    assert body(x.grad) == " 1.0000e+01\n 1.0000e+02\n 1.0000e-02\n[ CPUFloatType{3} ]"


def test_no_grad_and_detach():
    x = torch_randn(3, requires_grad=True)
    assert (x ** 2).requires_grad
    with with_no_grad():
        assert not (x ** 2).requires_grad
    y = x.detach()
    assert not y.requires_grad
    assert body(x.eq(y).all()) == "1\n[ CPUBoolType{} ]"
