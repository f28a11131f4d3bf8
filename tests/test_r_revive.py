"""The handles the R bridge makes for a hook's captured tensors once their R objects are being
collected (handles.revive), and what a consumed custom node lets go of."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy._r import handles


def test_revive_is_weak_for_the_owner_and_what_may_reach_it():
    x = rt.torch_ones(3, requires_grad=True)
    y = x * 2                      # has a grad_fn: may reach a hook's tensor
    k = rt.torch_tensor([1.0, 2.0, 3.0])  # a constant: kept by its new handle
    hy, hk, hx = handles._put(y), handles._put(k), handles._put(x)
    wy = handles.revive(hy, hy)
    wx = handles.revive(hx, hy)
    sk = handles.revive(hk, hy)
    handles.release([hy.real, hk.real, hx.real])
    assert handles._get(wy) is y and handles._get(wx) is x and handles._get(sk) is k
    del y
    gc.collect()
    with pytest.raises(RuntimeError, match="freed"):
        handles._get(wy)
    del k
    gc.collect()
    assert np.array_equal(handles._get(sk)._data, [1.0, 2.0, 3.0])  # (kept by its handle)
    handles.release([wy.real, wx.real, sk.real])
    with pytest.raises(RuntimeError, match="freed"):
        handles._get(sk)


def test_a_consumed_custom_node_drops_what_its_caller_attached():
    class Owner:
        pass

    def forward(ctx, a):
        ctx.save_for_backward(a=a)
        ctx._r_owner = Owner()
        return a * 2

    def backward(ctx, g):
        return {"a": g * 2}

    f = rt.autograd_function(forward, backward)
    x = rt.torch_ones(2, requires_grad=True)
    y = f(x)
    ctx = y.grad_fn.ctx
    y.sum().backward(retain_graph=True)
    assert ctx._r_owner is not None  # (a retained graph may run again)
    y.sum().backward()
    assert ctx._r_owner is None
