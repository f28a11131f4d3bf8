"""The Python face's PyTorch attributes (.T, .mT, .H, .mH, .data), numpy() on a tensor that
requires grad, and the errors for a non-tensor input and an unused input. Compared with
PyTorch when installed; the recorded texts are PyTorch 2.13's."""
import warnings

import numpy as np
import pytest

import rtorchpy as rt


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


@pytest.mark.parametrize("attr,shape,expected", [
    ("T", (2, 3), ((3, 2), "PermuteBackward0")),
    ("T", (2, 3, 4), ((4, 3, 2), "PermuteBackward0")),
    ("mT", (2, 3), ((3, 2), "TransposeBackward0")),
    ("mT", (5, 2, 3), ((5, 3, 2), "TransposeBackward0")),
    ("H", (2, 3), ((3, 2), "TransposeBackward0")),
    ("mH", (5, 2, 3), ((5, 3, 2), "TransposeBackward0")),
])
def test_transpose_properties(attr, shape, expected):
    x = rt.torch_randn(*shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(x, attr)
    got_shape, node = tuple(y.shape), y.grad_fn.name
    assert (got_shape, node) == expected
    np.testing.assert_array_equal(np.asarray(y.detach()),
                                  np.asarray(x.detach()).transpose(
                                      *(range(len(shape) - 1, -1, -1) if attr == "T" else
                                        [*range(len(shape) - 2), len(shape) - 1, len(shape) - 2])))
    torch = _torch()
    if torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = getattr(torch.ones(*shape, requires_grad=True), attr)
        assert (tuple(t.shape), type(t.grad_fn).__name__) == expected


@pytest.mark.parametrize("shape,message", [
    ((2, 3, 4), "The use of `x.T` on tensors of dimension other than 2"),
    ((3,), "The use of `x.T` on tensors of dimension other than 2"),
    ((), "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."),
])
def test_T_warns_off_matrices_as_pytorch(shape, message):
    with pytest.warns(UserWarning, match=message.replace(".", r"\.").replace("`", ".")):
        rt.torch_ones(*shape).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.torch_ones(2, 3).T  # a matrix: no warning


@pytest.mark.parametrize("attr,shape,message", [
    ("mT", (3,), "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("mH", (3,), "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("H", (3,), "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
    ("H", (2, 3, 4), "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. For "
                     "batches of matrices, consider using tensor.mH"),
])
def test_transpose_properties_refuse_what_pytorch_refuses(attr, shape, message):
    for m in filter(None, (rt, _torch())):
        x = rt.torch_ones(*shape) if m is rt else m.ones(*shape)
        with pytest.raises(RuntimeError) as info:
            getattr(x, attr)
        assert str(info.value).splitlines()[0] == message


def test_mT_stays_an_op_for_torch_mT():
    x = rt.torch_ones(2, 3, 4)
    assert rt.torch_mT(x).shape == (2, 4, 3)
    with pytest.raises(RuntimeError, match="Got 1-D tensor"):
        rt.torch_mT(rt.torch_ones(3))


def test_data_is_a_detached_tensor_sharing_storage_with_its_own_version():
    x = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    d = x.data
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert not y.data.requires_grad and y.data.is_leaf
    d.add_(1)  # unseen by autograd: no version error at backward
    assert x.tolist() == [2.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_setting_data_replaces_the_storage():
    x = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    x.data = rt.torch_zeros(3)
    assert x.shape == (3,) and x.requires_grad and x.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        x.data = [1.0]
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be "
                                           "floating point or complex dtype"):
        x.data = rt.torch_zeros(2, dtype=rt.torch_int64())
    torch = _torch()
    if torch is not None:
        t = torch.tensor([1.0, 2.0], requires_grad=True)
        t.data = torch.zeros(3)
        assert tuple(t.shape) == (3,) and t.requires_grad


def test_numpy_refuses_a_tensor_that_requires_grad():
    message = ("Can't call numpy() on Tensor that requires grad. "
               "Use tensor.detach().numpy() instead.")
    for m in filter(None, (rt, _torch())):
        x = rt.torch_ones(2, requires_grad=True) if m is rt else m.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            x.numpy()
        assert str(info.value) == message
        assert x.detach().numpy().tolist() == [1.0, 1.0]
    assert (rt.torch_ones(2, requires_grad=True) * 2).detach().numpy().tolist() == [2.0, 2.0]


def test_a_non_tensor_input_is_a_type_error():
    with pytest.raises(TypeError,
                       match="torch_exp\\(\\): argument 'self' must be a Tensor, not list"):
        rt.torch_exp([1.0])
    with pytest.raises(TypeError, match="not float"):
        rt.torch_sigmoid(1.0)


def test_an_unused_input_is_reported_in_pytorchs_words():
    message = ("The differentiated Tensor at index 1 appears to not have been used in the graph. "
               "Set allow_unused=True if this is the desired behavior.")
    for m in filter(None, (rt, _torch())):
        ones = rt.torch_ones if m is rt else m.ones
        grad = rt.autograd_grad if m is rt else m.autograd.grad
        x, y = ones(2, requires_grad=True), ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            grad((x * 2).sum(), [x, y])
        assert str(info.value) == message
    # the C++ grad() R torch calls words it its own way (R face)
    x, y = rt.torch_ones(2, requires_grad=True), rt.torch_ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^element 1of the differentiated Tensors appears"):
        rt.autograd_grad((x * 2).sum(), [x, y], check_grad_shapes=False)
