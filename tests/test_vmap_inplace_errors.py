"""An in-place op under vmap whose `self` is captured (not batched) while an operand is batched
is refused with PyTorch 2.13's own error for that op. PyTorch words it three ways: a broadcast
error, its "inplace arithmetic" check, or (for ops its per-example fallback runs) the same check
naming the op and the vmap level. The table below was recorded from PyTorch 2.13
(``torch.func.vmap``, a float32 (3,) tensor captured, operands (4, 3)); a live comparison runs
where PyTorch is installed."""
from __future__ import annotations

import pytest

import rtorchpy as torch

RECORDED = {
    "add_": "broadcast", "addcdiv_": "aten", "addcmul_": "aten", "atan2_": "broadcast",
    "bitwise_and_": "broadcast", "bitwise_or_": "broadcast", "bitwise_xor_": "broadcast",
    "clamp_": "aten", "clip_": "aten", "div_": "arith", "divide_": "arith", "eq_": "aten",
    "floor_divide_": "aten", "fmod_": "aten", "ge_": "aten", "greater_": "aten",
    "greater_equal_": "aten", "gt_": "aten", "heaviside_": "aten", "hypot_": "aten",
    "le_": "aten", "lerp_": "aten", "less_": "aten", "less_equal_": "aten",
    "logical_and_": "arith", "logical_or_": "arith", "logical_xor_": "arith", "lt_": "aten",
    "masked_fill_": "arith", "mul_": "arith", "multiply_": "arith", "ne_": "aten",
    "not_equal_": "aten", "pow_": "aten", "remainder_": "aten", "sub_": "arith",
    "subtract_": "aten", "true_divide_": "arith", "copy_": "arith",
}

ARITH = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
         "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
         "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
         "use out-of-place operators instead of inplace arithmetic. If said operator is being "
         "called inside the PyTorch framework, please file a bug report instead.")


def aten(name, level=1):
    return (f"vmap: aten::{name}(self, *extra_args) is not possible because there exists a "
            "Tensor `other` in extra_args that has more elements than `self`. This happened due "
            f"to `other` being vmapped over but `self` not being vmapped over at level {level}. "
            f"Please try to use out-of-place operators instead of aten::{name}. If said "
            "operator is being called inside the PyTorch framework, please file a bug report "
            "instead.")


def _call(mod, c, name, v):
    m = getattr(c, name)
    if name in ("addcdiv_", "addcmul_"):
        return m(v, v)
    if name == "lerp_":
        return m(v, 0.5)
    if name in ("clamp_", "clip_"):
        return m(min=v)
    if name == "masked_fill_":
        return m(v > 0, 1.0)
    return m(v)


def _message(mod, vmap, name, c_shape=(3,), a_shape=(4, 3)):
    intish = name.startswith("bitwise")
    dt = mod.int64 if intish else mod.float32
    c = mod.zeros(*c_shape, dtype=dt)
    a = mod.ones(*a_shape, dtype=dt)
    with pytest.raises(RuntimeError) as e:
        vmap(lambda v: _call(mod, c, name, v))(a)
    return str(e.value)


class _R:
    """rtorchpy under the names the shared helpers use."""
    int64 = torch.torch_int64()
    float32 = torch.torch_float32()
    zeros = staticmethod(torch.torch_zeros)
    ones = staticmethod(torch.torch_ones)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_captured_inplace_error_is_pytorchs(name):
    got = _message(_R, torch.autograd_vmap, name)
    kind = RECORDED[name]
    if kind == "broadcast":
        assert got == "output with shape [3] doesn't match the broadcast shape [4, 3]"
    elif kind == "arith":
        assert got == ARITH
    else:
        assert got == aten(name)


def test_the_broadcast_shape_is_the_batched_one():
    got = _message(_R, torch.autograd_vmap, "add_", (3,), (4, 1, 3))
    assert got == "output with shape [3] doesn't match the broadcast shape [4, 1, 3]"


def test_nothing_is_written():
    c = torch.torch_zeros(3)
    with pytest.raises(RuntimeError):
        torch.autograd_vmap(lambda v: c.pow_(v))(torch.torch_ones(4, 3))
    assert c.numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_live_against_pytorch(name):
    pt = pytest.importorskip("torch")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _message(pt, pt.func.vmap, name)
    assert _message(_R, torch.autograd_vmap, name) == want
