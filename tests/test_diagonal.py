"""``diagonal``: a view (shared storage, writes go through), its gradient (DiagonalBackward0,
differentiable again), in-place ops through it on tensors in the graph (CopySlices), and
libtorch's errors. Compared with PyTorch when it is installed, with recorded values always."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy import autograd_gradcheck, autograd_gradgradcheck, torch_tensor

# (shape, offset, dim1, dim2): negative offsets and dims, dim1 > dim2, batches, empty diagonals
CASES = [
    ((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((3, 4), 2, 1, 0),
    ((3, 4), 4, 0, 1), ((3, 4), -3, 0, 1), ((3, 4), -7, 0, 1), ((2, 3, 4), 0, -2, -1),
    ((2, 3, 4), -1, 2, 0), ((2, 3, 4, 2), 1, 1, 3), ((2, 3, 4, 2), -1, -1, 1), ((0, 3), 0, 0, 1),
    ((3, 3), 0, -1, -2),
]


def _x(shape):
    return np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 5


@pytest.mark.parametrize("shape,offset,d1,d2", CASES)
def test_values_are_numpys_diagonal(shape, offset, d1, d2):
    got = torch_tensor(_x(shape)).diagonal(offset, d1, d2)
    np.testing.assert_array_equal(got.numpy(), np.diagonal(_x(shape), offset, d1, d2))
    fn = rt.torch_diagonal(torch_tensor(_x(shape)), offset=offset, dim1=d1, dim2=d2)
    np.testing.assert_array_equal(fn.numpy(), np.diagonal(_x(shape), offset, d1, d2))


@pytest.mark.parametrize("shape,offset,d1,d2", CASES)
def test_matches_pytorch_values_and_gradients(shape, offset, d1, d2):
    torch = pytest.importorskip("torch")
    w = np.cos(np.arange(np.diagonal(_x(shape), offset, d1, d2).size)).reshape(
        np.diagonal(_x(shape), offset, d1, d2).shape)
    x = torch_tensor(_x(shape), requires_grad=True)
    d = x.diagonal(offset, d1, d2)
    (d * torch_tensor(w)).sum().backward()
    tx = torch.tensor(_x(shape), requires_grad=True)
    td = tx.diagonal(offset, d1, d2)
    (td * torch.tensor(w)).sum().backward()
    assert tuple(d.shape) == tuple(td.shape)
    np.testing.assert_array_equal(d.detach().numpy(), td.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    assert d.grad_fn.name == type(td.grad_fn).__name__ == "DiagonalBackward0"


def test_is_a_writable_view_sharing_storage_and_version():
    x = torch_tensor(_x((3, 4)))
    d = x.diagonal(1)
    assert np.shares_memory(d._data, x._data)
    assert d._data.strides == (40,)  # libtorch: stride(0) + stride(1) elements, 5 * 8 bytes
    d.mul_(10)
    np.testing.assert_array_equal(x.numpy()[[0, 1, 2], [1, 2, 3]], [-40, 10, 60])
    assert x._version is d._version and x._version == [1]
    x.zero_()  # and writes into the base are seen through the view
    np.testing.assert_array_equal(d.numpy(), [0, 0, 0])
    b = torch_tensor(_x((2, 3, 3)))
    b.diagonal(0, -2, -1).fill_(7)
    np.testing.assert_array_equal(b.numpy()[:, [0, 1, 2], [0, 1, 2]], np.full((2, 3), 7.0))


def test_gradients_first_and_second_order():
    for shape, offset, d1, d2 in CASES[:11]:
        x = torch_tensor(np.sin(_x(shape)), requires_grad=True)
        assert autograd_gradcheck(lambda a: a.diagonal(offset, d1, d2) ** 2, (x,))
        assert autograd_gradgradcheck(lambda a: a.diagonal(offset, d1, d2) ** 2, (x,))


def test_second_order_through_the_backward_records_diagonal_backward_backward():
    x = torch_tensor(_x((3, 3)), requires_grad=True)
    y = torch_tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    (g,) = rt.autograd_grad((x.diagonal() * y).sum(), [x], create_graph=True)
    assert g.grad_fn.name == "DiagonalBackwardBackward0"
    np.testing.assert_array_equal(g.detach().numpy(), np.diag([1.0, 2.0, 3.0]))
    (g * torch_tensor(_x((3, 3)))).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [-5.0, -1.0, 3.0])  # x's diagonal


# recorded with PyTorch 2.13: x = leaf (3, 4) of _x; y = x * 1; <inplace on y's diagonal>;
# (y * w).sum().backward() with w = arange(12).reshape(3, 4) / 4
_W = np.arange(12.0).reshape(3, 4) / 4
INPLACE = {
    "zero_": (lambda d: d.zero_(),
              [[0, .25, .5, .75], [1, 0, 1.5, 1.75], [2, 2.25, 0, 2.75]]),
    "mul_2": (lambda d: d.mul_(2),
              [[0, .25, .5, .75], [1, 2.5, 1.5, 1.75], [2, 2.25, 5, 2.75]]),
}


@pytest.mark.parametrize("kind", ["zero_", "mul_2"])
def test_inplace_through_the_view_rewrites_the_base_history(kind):
    op, expected = INPLACE[kind]
    x = torch_tensor(_x((3, 4)), requires_grad=True)
    y = x * 1
    op(y.diagonal())
    assert y.grad_fn.name == "CopySlices"
    (y * torch_tensor(_W)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    try:
        import torch
    except ImportError:
        return
    tx = torch.tensor(_x((3, 4)), requires_grad=True)
    ty = tx * 1
    op(ty.diagonal())
    (ty * torch.tensor(_W)).sum().backward()
    np.testing.assert_array_equal(tx.grad.numpy(), expected)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())


def test_inplace_mul_by_a_tensor_through_the_view_matches_pytorch():
    """``y.diagonal(-1).mul_(w)`` with w in the graph: both x and w get gradients, first and
    second order (recorded values; PyTorch when installed)."""
    def run(lib, tensor):
        x = tensor(_x((3, 4)) / 3, requires_grad=True)
        w = tensor(np.array([0.5, -1.5]), requires_grad=True)
        y = x * x
        y.diagonal(-1).mul_(w)
        loss = (y * tensor(_W)).sum()
        gx, gw = lib.autograd_grad(loss, [x, w], create_graph=True) if lib else \
            __import__("torch").autograd.grad(loss, [x, w], create_graph=True)
        (gx.sum() + (gw * gw).sum()).backward()
        return [np.array(t.detach().tolist()) for t in (y, gx, gw, x.grad, w.grad)]

    got = run(rt, torch_tensor)
    expected_gw = [(-1 / 3) ** 2 * 1.0, (4 / 3) ** 2 * 2.25]  # y[i+1, i] before the mul * _W
    np.testing.assert_allclose(got[2], expected_gw, rtol=1e-12)
    try:
        import torch
    except ImportError:
        return
    want = run(None, lambda a, requires_grad=False: torch.tensor(a, requires_grad=requires_grad))
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=1e-12, atol=1e-12)


def test_version_check_sees_writes_through_the_diagonal():
    x = torch_tensor(_x((3, 3)), requires_grad=True)
    y = x * 1
    z = y.sin()  # saves y
    with rt.with_no_grad():
        y.diagonal().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("args,error,text", [
    ((0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    ((0, -1, 1), RuntimeError, "diagonal dimensions cannot be identical -1, 1"),
    ((0, 0, 2), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], "
                            r"but got 2\)"),
])
def test_errors_as_libtorch(args, error, text):
    with pytest.raises(error, match=text):
        torch_tensor(_x((2, 3))).diagonal(*args)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch_tensor([1.0, 2.0]).diagonal()


def test_no_grad_view_cannot_be_modified_with_grad_on():
    x = torch_tensor(_x((3, 3)), requires_grad=True)
    y = x * 1
    with rt.with_no_grad():
        d = y.diagonal()
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        d.mul_(2)
