"""nonzero, median, kthvalue, unflatten, the new_* methods and nnf_one_hot against PyTorch 2.13:
values, dtypes, the indices chosen among equal values (the gradient lands there), grad_fn names,
gradients and error messages. The first tests hold values recorded from PyTorch 2.13, so they
run without it; the others compare with PyTorch itself when it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rtorchpy as rt

NAN = float("nan")

# ------------------------------------------------------------------------ recorded from PyTorch

# torch.kthvalue(t, k).indices for k = 1..n: among equal values, whichever libtorch's
# quickselect leaves at rank k - 1 (not the stable order)
KTH_TIES = [
    ([1.0, 1.0, 1.0], [1, 0, 2]),
    ([2.0, 1.0, 2.0, 1.0, 2.0], [1, 3, 2, 0, 4]),
    ([5.0, 3.0, 3.0, 3.0, 1.0], [4, 3, 2, 1, 0]),
    ([0.0] * 7, [3, 4, 5, 0, 2, 1, 6]),
    ([1.0, 2.0] * 4, [0, 4, 2, 6, 3, 5, 1, 7]),
    ([3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 3.0], [3, 1, 5, 0, 4, 2, 6]),
]
# torch.median(t, 0).indices: the first of equal values at rank (n - 1) // 2
MEDIAN_TIES = [([1.0, 1.0, 1.0], 1), ([2.0, 1.0, 2.0, 1.0, 2.0], 0),
               ([5.0, 3.0, 3.0, 3.0, 1.0], 2), ([0.0] * 7, 3), ([1.0, 2.0] * 4, 6)]
# a 3 x 10 tensor with ties and NaN: torch.kthvalue(t, k, 1).indices for k = 1..10, and
# torch.median(t, 1).indices, torch.median(t, 0).indices
GRID = [[2.0, 1.0, 2.0, 2.0, 1.0, 2.0, 2.0, 0.0, 0.0, 0.0],
        [0.0, 2.0, NAN, 0.0, 1.0, NAN, NAN, 2.0, 0.0, 1.0],
        [2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 2.0, 1.0, 1.0, 1.0]]
GRID_KTH = [[9, 0, 3], [7, 3, 1], [8, 8, 5], [4, 4, 7], [1, 9, 2], [2, 7, 9], [3, 1, 8],
            [5, 2, 0], [6, 5, 6], [0, 6, 4]]
GRID_MEDIAN_1, GRID_MEDIAN_0 = [4, 2, 7], [0, 0, 1, 2, 1, 1, 1, 2, 1, 1]


@pytest.mark.parametrize("values,indices", KTH_TIES)
def test_kthvalue_picks_the_tied_element_libtorch_picks(values, indices):
    t = rt.torch_tensor(values)
    got = [int(rt.torch_kthvalue(t, k)[1].item()) for k in range(1, len(values) + 1)]
    assert got == indices


@pytest.mark.parametrize("values,index", MEDIAN_TIES)
def test_median_along_a_dim_picks_the_first_tied_element(values, index):
    assert int(rt.torch_median(rt.torch_tensor(values), 0)[1].item()) == index


def test_recorded_grid_with_ties_and_nan():
    t = rt.torch_tensor(GRID, dtype=rt.torch_float64())
    got = [rt.torch_kthvalue(t, k, 1)[1].numpy().tolist() for k in range(1, 11)]
    assert got == GRID_KTH
    assert t.median(1)[1].numpy().tolist() == GRID_MEDIAN_1
    assert t.median(0)[1].numpy().tolist() == GRID_MEDIAN_0


def test_recorded_nan_and_median_values():
    n = rt.torch_tensor([1.0, NAN, 0.0, 2.0])
    assert np.isnan(rt.torch_median(n).item())
    v, i = rt.torch_median(n, 0)
    assert np.isnan(v.item()) and i.item() == 1
    assert [x.item() for x in rt.torch_kthvalue(n, 2)] == [1.0, 0]
    v, i = rt.torch_kthvalue(n, 4)
    assert np.isnan(v.item()) and i.item() == 1
    assert rt.torch_median(rt.torch_tensor([1, 5, 3, 2])).item() == 2  # the lower middle
    assert rt.torch_median(rt.torch_tensor([1, 5, 3, 2]), 0)[1].item() == 3
    assert np.isnan(rt.torch_median(rt.torch_tensor([])).item())


def test_recorded_median_gradients():
    a = rt.torch_tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    a.median().backward()  # shared evenly among the elements equal to the median
    assert a.grad.numpy().tolist() == [0.0, 0.5, 0.5, 0.0]
    a = rt.torch_tensor([1.0, NAN, 2.0, NAN], requires_grad=True)
    a.median().backward()  # NaN: shared among the NaNs
    assert a.grad.numpy().tolist() == [0.0, 0.5, 0.0, 0.5]
    a = rt.torch_tensor([1.0, NAN, 2.0, NAN], requires_grad=True)
    a.median(0)[0].backward()  # along a dim: all of it at the index returned
    assert a.grad.numpy().tolist() == [0.0, 1.0, 0.0, 0.0]
    a = rt.torch_tensor([[1.0, 3.0, 2.0], [4.0, 4.0, 4.0]], requires_grad=True)
    v, _ = a.kthvalue(2, 0, keepdim=True)
    assert v.shape == (1, 3) and v.grad_fn.name == "KthvalueBackward0"
    v.sum().backward()
    assert a.grad.numpy().tolist() == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def _raises(fn, kind, text):
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == text


X2 = rt.torch_zeros(2, 3)
UNFLATTEN_ERRORS = [  # PyTorch 2.13's text (the unexpected ones without libtorch's C++ trace)
    (lambda: X2.unflatten(1, (2, 2)), RuntimeError, "unflatten: Provided sizes [2, 2] don't "
     "multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: X2.unflatten(1, (-1, 2)), RuntimeError, "unflatten: Provided sizes [-1, 2] don't "
     "multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: X2.unflatten(1, (0, -1)), RuntimeError, "unflatten: Provided sizes [0, -1] don't "
     "multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: X2.unflatten(1, (-1, -1)), RuntimeError,
     "unflatten got an unexpected error:\nonly one dimension can be inferred"),
    (lambda: X2.unflatten(1, (3, -2)), RuntimeError,
     "unflatten got an unexpected error:\ninvalid shape dimension -2 at index 1 of shape [3, -2]"),
    (lambda: rt.torch_zeros(2, 0).unflatten(1, (-1, 0)), RuntimeError,
     "unflatten got an unexpected error:\ncannot reshape tensor of 0 elements into shape "
     "[-1, 0] because the unspecified dimension size -1 can be any value and is ambiguous"),
    (lambda: rt.torch_tensor(5.0).unflatten(0, (1,)), RuntimeError,
     "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions"),
    (lambda: X2.unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda: X2.unflatten(2, (3,)), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
]
RANK_ERRORS = [
    (lambda: rt.torch_median(rt.torch_zeros(2, 0), 1), IndexError,
     "median(): Expected reduction dim 1 to have non-zero size."),
    (lambda: rt.torch_kthvalue(rt.torch_zeros(2, 0), 1, 1), IndexError,
     "kthvalue(): Expected reduction dim 1 to have non-zero size."),
    (lambda: rt.torch_kthvalue(X2, 4, 1), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 1"),
    (lambda: rt.torch_kthvalue(X2, 0), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 1"),
    (lambda: rt.torch_kthvalue(rt.torch_tensor(5.0), 2), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 0"),
    (lambda: rt.torch_median(rt.torch_tensor([True])), NotImplementedError,
     "\"median_cpu\" not implemented for 'Bool'"),
    (lambda: rt.torch_median(rt.torch_tensor([True]), 0), NotImplementedError,
     "\"median_out\" not implemented for 'Bool'"),
    (lambda: rt.torch_kthvalue(rt.torch_tensor([True]), 1), NotImplementedError,
     "\"kthvalue_cpu\" not implemented for 'Bool'"),
]


@pytest.mark.parametrize("fn,kind,text", UNFLATTEN_ERRORS + RANK_ERRORS)
def test_recorded_errors(fn, kind, text):
    _raises(fn, kind, text)


def test_unflatten_is_a_view():
    x = rt.torch_tensor(np.arange(24.0).reshape(2, 12), requires_grad=True)
    u = x.t().unflatten(0, (3, 4))  # of a non-contiguous tensor too
    assert u.shape == (3, 4, 2) and u.grad_fn.name == "ViewBackward0"
    d = x.detach()
    d.unflatten(1, (3, 4))[1, 2, 3] = -1.0
    assert x[1, 11].item() == -1.0


def test_nonzero_shapes_and_dtypes():
    assert rt.torch_nonzero(rt.torch_tensor(5.0)).shape == (1, 0)
    assert rt.torch_nonzero(rt.torch_tensor(0.0)).shape == (0, 0)
    parts = rt.torch_tensor(5.0).nonzero(as_tuple=True)
    assert len(parts) == 1 and parts[0].numpy().tolist() == [0]
    nz = rt.torch_tensor([[0.0, 2.0], [NAN, 0.0]], requires_grad=True).nonzero()
    assert nz.dtype == rt.torch_int64() and not nz.requires_grad
    assert nz.numpy().tolist() == [[0, 1], [1, 0]]  # NaN is not zero


# ------------------------------------------------------------------------ against PyTorch

def _torch():
    return pytest.importorskip("torch")


def _samples(rng, n=60):
    """Arrays with ties, NaN, signed zeros and distinct values, of 0 to 3 dims."""
    for i in range(n):
        shape = tuple(int(s) for s in rng.integers(1, 5, int(rng.integers(0, 4))))
        kind = i % 4
        if kind == 0:
            yield rng.choice([0.0, -0.0, 1.0, 2.0], shape)
        elif kind == 1:
            yield rng.choice([0.0, 1.0, NAN], shape)
        elif kind == 2:
            yield rng.uniform(-2, 2, shape).astype(np.float32)
        else:
            yield rng.integers(-2, 3, shape)


def _same(ours, theirs, zero_signs=True):
    a, b = ours.numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and str(a.dtype) == str(b.dtype)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if a.dtype.kind == "f" and zero_signs:
        assert np.array_equal(np.signbit(a), np.signbit(b))


def test_median_kthvalue_nonzero_match_pytorch():
    torch = _torch()
    rng = np.random.default_rng(5)
    for a in _samples(rng):
        ours, theirs = rt.torch_tensor(a), torch.tensor(a)
        # (which of -0.0 and 0.0 the median of all elements is follows std::nth_element there)
        _same(rt.torch_median(ours), torch.median(theirs), zero_signs=False)
        _same(rt.torch_nonzero(ours), torch.nonzero(theirs))
        for o, t in zip(rt.torch_nonzero(ours, as_tuple=True),
                        torch.nonzero(theirs, as_tuple=True)):
            _same(o, t)
        for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
            keepdim = bool(rng.integers(0, 2))
            for o, t in zip(rt.torch_median(ours, dim, keepdim),
                            torch.median(theirs, dim, keepdim)):
                _same(o, t)
            size = a.shape[dim] if a.ndim else 1
            for k in range(1, size + 1):
                for o, t in zip(rt.torch_kthvalue(ours, k, dim, keepdim),
                                torch.kthvalue(theirs, k, dim, keepdim)):
                    _same(o, t)


@pytest.mark.parametrize("make", [
    lambda x: x.median(), lambda x: x.median(1)[0], lambda x: x.median(0, True)[0],
    lambda x: x.kthvalue(2)[0], lambda x: x.kthvalue(1, 0, True)[0],
    lambda x: x.unflatten(1, (2, -1)), lambda x: x.t().unflatten(0, (1, 4)),
], ids=["median", "median dim", "median keepdim", "kthvalue", "kthvalue dim keepdim",
        "unflatten", "unflatten non-contiguous"])
def test_grad_fn_names_and_gradients_match_pytorch(make):
    torch = _torch()
    rng = np.random.default_rng(11)
    for a in (rng.choice([0.5, 1.0, 2.0], (3, 4)), rng.permutation(12).reshape(3, 4) * 1.0,
              np.where(rng.random((3, 4)) < 0.2, NAN, rng.choice([1.0, 2.0], (3, 4)))):
        x, xt = rt.torch_tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, yt = make(x), make(xt)
        assert y.grad_fn.name == yt.grad_fn.name()
        _same(y.detach(), yt)
        w = rng.standard_normal(tuple(yt.shape))
        (y * rt.torch_tensor(w)).sum().backward()
        (yt * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_unflatten_matches_pytorch():
    torch = _torch()
    a = np.arange(24.0).reshape(2, 3, 4)
    for dim, sizes in [(0, (1, 2)), (1, (3, 1)), (-1, (2, -1)), (2, [-1]), (1, (1, 3, 1))]:
        _same(rt.torch_unflatten(rt.torch_tensor(a), dim, sizes),
              torch.unflatten(torch.tensor(a), dim, sizes))
    for sizes in [(2, 2), (-1, -1), (3, -2), (0, -1)]:
        with pytest.raises(RuntimeError) as ours:
            rt.torch_tensor(a).unflatten(1, sizes)
        with pytest.raises(RuntimeError) as theirs:
            torch.tensor(a).unflatten(1, sizes)
        # (libtorch follows its "unexpected error" text with a C++ backtrace)
        assert str(ours.value) == str(theirs.value).split("\nException raised")[0]


# ------------------------------------------------------------------------ the new_* methods

NEW_ERRORS = [
    (lambda: rt.torch_tensor([1, 2]).new_ones(2, requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda: X2.new_zeros(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: X2.new_zeros(), TypeError, 'new_zeros() missing 1 required positional arguments: '
     '"size"'),
]


@pytest.mark.parametrize("fn,kind,text", NEW_ERRORS)
def test_recorded_errors_of_the_new_methods(fn, kind, text):
    _raises(fn, kind, text)


def test_new_tensor_copies_and_warns_for_a_tensor():
    src = rt.torch_tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"sourceTensor\.detach\(\)\.clone\(\)"):
        out = rt.torch_zeros(1, dtype=rt.torch_int32()).new_tensor(src)
    assert out.dtype == rt.torch_int32() and not out.requires_grad
    out[0] = 9
    assert src[0].item() == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert src.new_tensor([[1, 2]]).dtype == rt.torch_float32()


def test_new_methods_match_pytorch():
    torch = _torch()
    for dt, tdt in [(rt.torch_int32(), torch.int32), (rt.torch_float64(), torch.float64),
                    (rt.torch_bool(), torch.bool), (rt.torch_float16(), torch.float16)]:
        x, xt = rt.torch_zeros(1, dtype=dt), torch.zeros(1, dtype=tdt)
        _same(x.new_zeros(2, 3), xt.new_zeros(2, 3))
        _same(x.new_ones((2,)), xt.new_ones((2,)))
        _same(x.new_full((2, 1), 7.75), xt.new_full((2, 1), 7.75))
        _same(x.new_tensor([[1.5, -2.0]]), xt.new_tensor([[1.5, -2.0]]))
        _same(x.new_zeros((), dtype=rt.torch_int64()), xt.new_zeros((), dtype=torch.int64))
        assert tuple(x.new_empty([3, 0]).shape) == tuple(xt.new_empty([3, 0]).shape)
        assert x.new_empty(2).numpy().dtype == xt.new_empty(2).numpy().dtype


# ------------------------------------------------------------------------ nnf_one_hot

ONE_HOT_ERRORS = [
    (lambda: rt.nnf_one_hot(rt.torch_tensor([0, -2, 1])), RuntimeError,
     "Class values must be non-negative."),
    (lambda: rt.nnf_one_hot(rt.torch_tensor([0, 2, 1]), 2), RuntimeError,
     "Class values must be smaller than num_classes."),
    (lambda: rt.nnf_one_hot(rt.torch_tensor([0, 2, 1]), 0), RuntimeError,
     "Class values must be smaller than num_classes."),
    (lambda: rt.nnf_one_hot(rt.torch_tensor([0.0, 1.0])), RuntimeError,
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda: rt.nnf_one_hot(rt.torch_tensor(np.array([0, 1], np.int32))), RuntimeError,
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda: rt.nnf_one_hot(rt.torch_tensor(np.zeros(0, np.int64))), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
]


@pytest.mark.parametrize("fn,kind,text", ONE_HOT_ERRORS)
def test_recorded_errors_of_one_hot(fn, kind, text):
    _raises(fn, kind, text)


def test_recorded_one_hot_values():
    out = rt.nnf_one_hot(rt.torch_tensor([0, 2, 1]))
    assert out.dtype == rt.torch_int64()
    assert out.numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert rt.nnf_one_hot(rt.torch_tensor(2), 3).numpy().tolist() == [0, 0, 1]
    assert rt.nnf_one_hot(rt.torch_tensor(np.zeros((0, 2), np.int64)), 3).shape == (0, 2, 3)


def test_one_hot_matches_pytorch():
    torch = _torch()
    F = torch.nn.functional
    for values, n in [([0, 2, 1], -1), ([0, 2, 1], 5), ([[0, 1], [3, 3]], -1), (2, 3), ([], 4)]:
        v = np.array(values, np.int64)
        _same(rt.nnf_one_hot(rt.torch_tensor(v), n), F.one_hot(torch.tensor(v), n))
