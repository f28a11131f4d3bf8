"""Operands whose shapes do not fit raise libtorch's RuntimeError and text, not NumPy's
ValueError. Compared with PyTorch when installed, else with the texts PyTorch 2.13 gives."""
import warnings

import pytest

import rtorchpy as rt


def _ones(m, *shape):
    return rt.torch_ones(*shape) if m is rt else m.ones(*shape)


def _fn(m, name):
    """The namespace function ``name`` (``torch_name`` here, ``torch.name`` there)."""
    return getattr(rt, "torch_" + name) if m is rt else getattr(m, name)


def _index(m, values):
    return rt.torch_tensor(values) if m is rt else m.tensor(values)


def _nnf(m, name):
    return getattr(rt, "nnf_" + name) if m is rt else getattr(m.nn.functional, name)


# name -> (function of the module, the text PyTorch 2.13 raises)
A3_B4 = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"
CASES = {
    "add_2d": (lambda m: _ones(m, 2, 3) + _ones(m, 2, 4),
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
               "dimension 1"),
    "add_leading": (lambda m: _ones(m, 5, 3) + _ones(m, 2, 1, 4),
                    "The size of tensor a (3) must match the size of tensor b (4) at "
                    "non-singleton dimension 2"),
    "add": (lambda m: _ones(m, 3) + _ones(m, 4), A3_B4),
    "add_alpha": (lambda m: _ones(m, 3).add(_ones(m, 4), alpha=2), A3_B4),
    "sub": (lambda m: _ones(m, 3) - _ones(m, 4), A3_B4),
    "mul": (lambda m: _ones(m, 3) * _ones(m, 4), A3_B4),
    "mul_int": (lambda m: _ones(m, 3) * _ones(m, 4).long(), A3_B4),
    "div": (lambda m: _ones(m, 3) / _ones(m, 4), A3_B4),
    "div_floor": (lambda m: _ones(m, 3).div(_ones(m, 4), rounding_mode="floor"), A3_B4),
    "pow": (lambda m: _ones(m, 3) ** _ones(m, 4), A3_B4),
    "maximum": (lambda m: _fn(m, "maximum")(_ones(m, 3), _ones(m, 4)), A3_B4),
    "minimum": (lambda m: _fn(m, "minimum")(_ones(m, 3), _ones(m, 4)), A3_B4),
    "fmod": (lambda m: _ones(m, 3).fmod(_ones(m, 4)), A3_B4),
    "remainder": (lambda m: _ones(m, 3).remainder(_ones(m, 4)), A3_B4),
    "where": (lambda m: _fn(m, "where")(_ones(m, 3) > 0, _ones(m, 3), _ones(m, 4)), A3_B4),
    "eq": (lambda m: _ones(m, 3) == _ones(m, 4), A3_B4),
    "lt": (lambda m: _ones(m, 3) < _ones(m, 4), A3_B4),
    "clamp_tensor": (lambda m: _ones(m, 3).clamp(_ones(m, 4), None), A3_B4),
    "add_": (lambda m: _ones(m, 3).add_(_ones(m, 4)), A3_B4),
    "mul_": (lambda m: _ones(m, 3).mul_(_ones(m, 4)), A3_B4),
    "copy_": (lambda m: _ones(m, 3).copy_(_ones(m, 4)), A3_B4),
    "masked_fill": (lambda m: _ones(m, 3).masked_fill(_ones(m, 4) > 0, 1.0),
                    "The size of tensor a (4) must match the size of tensor b (3) at "
                    "non-singleton dimension 0"),
    "mse_loss": (lambda m: _nnf(m, "mse_loss")(_ones(m, 3), _ones(m, 4)), A3_B4),
    "matmul": (lambda m: _ones(m, 2, 3) @ _ones(m, 4, 5),
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    "mm": (lambda m: _ones(m, 2, 3).mm(_ones(m, 4, 5)),
           "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    "vector_matrix": (lambda m: _ones(m, 3) @ _ones(m, 4, 5),
                      "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
    "linear": (lambda m: _nnf(m, "linear")(_ones(m, 2, 3), _ones(m, 5, 4)),
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    "batch_dims": (lambda m: _ones(m, 2, 2, 3) @ _ones(m, 3, 3, 5),
                   "The size of tensor a (2) must match the size of tensor b (3) at "
                   "non-singleton dimension 0"),
    "addmm_bias": (lambda m: _fn(m, "addmm")(_ones(m, 2), _ones(m, 2, 3), _ones(m, 3, 5)),
                   "The expanded size of the tensor (5) must match the existing size (2) at "
                   "non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [2]"),
    "linear_bias": (lambda m: _nnf(m, "linear")(_ones(m, 2, 3), _ones(m, 5, 3), _ones(m, 4)),
                    "The expanded size of the tensor (5) must match the existing size (4) at "
                    "non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [4]"),
    "setitem_slice": (lambda m: _ones(m, 3, 3).__setitem__((slice(None), 0), _ones(m, 4)),
                      "The expanded size of the tensor (3) must match the existing size (4) at "
                      "non-singleton dimension 0.  Target sizes: [3].  Tensor sizes: [4]"),
    "setitem_index": (lambda m: _ones(m, 3, 3).__setitem__(_index(m, [0, 1]), _ones(m, 4)),
                      "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing "
                      "result of shape [2, 3]"),
    "index_put": (lambda m: _ones(m, 3, 3).index_put((_index(m, [0, 1]),), _ones(m, 4)),
                  "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing "
                  "result of shape [2, 3]"),
    "expand": (lambda m: _ones(m, 2, 3).expand(2, 4),
               "The expanded size of the tensor (4) must match the existing size (3) at "
               "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]"),
}


def _message(fn, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mse_loss warns about the sizes first
        with pytest.raises(RuntimeError) as info:
            fn(m)
    return str(info.value).splitlines()[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape_mismatch_raises_libtorchs_runtime_error(name):
    fn, recorded = CASES[name]
    assert _message(fn, rt) == recorded
    torch = pytest.importorskip("torch")
    assert _message(fn, torch) == recorded


def test_a_failed_op_leaves_the_graph_and_grad_mode_intact():
    x = rt.torch_ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError):
        y + rt.torch_ones(4)
    assert rt.is_grad_enabled()
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_value_error_that_is_not_about_shapes_is_left_alone():
    with pytest.raises(ValueError, match="rounding_mode"):
        rt.torch_ones(3).div(rt.torch_ones(3), rounding_mode="round")
