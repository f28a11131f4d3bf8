"""The bugs the random programs of test_fuzz.py found, each as a small test of its own."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt


def _f64(a, requires_grad=False):
    return rt.torch_tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def test_expand_that_repeats_nothing_is_a_writable_view():
    # libtorch refuses writes only where memory overlaps; expand((2, 1)) of a (2, 1) tensor or
    # expand((1, 3)) of a (3,) one repeats nothing
    y = _f64([[1.0], [2.0]], requires_grad=True) * 1.0
    y.expand(2, 1).mul_(3.0)
    assert y.detach().tolist() == [[3.0], [6.0]]
    z = _f64([1.0, 2.0, 3.0])
    z.expand(1, 3).zero_()
    assert z.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="single memory location"):
        _f64([[1.0], [2.0]]).expand(2, 3).mul_(2.0)


def test_advanced_index_result_is_contiguous_as_in_libtorch():
    # NumPy lays x[:, idx] out transposed; libtorch's result is contiguous, so its t() is not,
    # and reshape(-1) of that copies: writing into the copy leaves y alone
    x = _f64(np.arange(6.0).reshape(3, 2))
    y = x[:, rt.torch_tensor(np.array([1, 0]))].t()
    before = y.tolist()
    y.reshape(-1).mul_(10.0)
    assert y.tolist() == before


def test_prod_result_changed_in_place_is_refused_in_backward():
    # libtorch saves prod's result for its formula, so changing it in place is an error there
    x = _f64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    for p in (x.prod(dim=0), x.prod()):
        p.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            p.sum().backward()


def test_second_order_through_an_in_place_op_on_a_0d_view():
    def fn(x):
        b = x * 1.0
        b.select(0, -1).mul_(3.0)
        return b[rt.torch_tensor(np.array([-1, 0, -1]))]

    x = _f64([1.5, 2.5], requires_grad=True)
    assert rt.autograd_gradcheck(fn, (x,))
    assert rt.autograd_gradgradcheck(fn, (x,))


@pytest.mark.parametrize("reduce", [
    lambda t: t.amax(2, True), lambda t: t.sum(2, keepdim=True), lambda t: t.mean(2, True),
    lambda t: t.prod(2, True), lambda t: t.max(dim=2, keepdim=True)[0],
    lambda t: t.std(2, keepdim=True), lambda t: t.logsumexp(2, True)],
    ids=["amax", "sum", "mean", "prod", "max", "std", "lse"])
def test_reduction_result_is_contiguous_so_reshape_is_a_view(reduce):
    # NumPy's result keeps the transposed input's layout; libtorch's is contiguous, so its
    # reshape(-1) is a view and writing into it changes the result
    x = _f64(np.arange(1.0, 9.0).reshape(2, 2, 2)).transpose(0, 2)
    m = reduce(x)
    m.reshape(-1).zero_()
    assert m.detach().tolist() == [[[0.0], [0.0]], [[0.0], [0.0]]]
