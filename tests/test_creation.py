"""Creation functions and dtypes: Python-side inference rules (design decision 9), sizes,
ranges, random reproducibility, ``*_like``, and dtype objects."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rtorchpy as rt
from rtorchpy import torch_tensor

F32, F64, LONG, BOOL = rt.torch_float32(), rt.torch_float64(), rt.torch_long(), rt.torch_bool()


# ------------------------------------------------------------------------ torch_tensor inference

@pytest.mark.parametrize("data,dtype,shape", [
    (1.5, F32, ()),
    (3, LONG, ()),
    (True, BOOL, ()),
    ([1.0, 2.0], F32, (2,)),
    ([1, 2], LONG, (2,)),
    ([True, False], BOOL, (2,)),
    ([1, 2.5], F32, (2,)),          # any float makes it float
    ([True, 1], LONG, (2,)),        # bool with int is int
    ([True, 1.0], F32, (2,)),
    ([[1, 2], [3, 4]], LONG, (2, 2)),
    ([[[1.0]], [[2.0]]], F32, (2, 1, 1)),
    ((1, 2, 3), LONG, (3,)),
    ([], F32, (0,)),
    (np.array([1, 2], dtype=np.int32), rt.torch_int32(), (2,)),
    (np.array([1.0, 2.0]), F64, (2,)),            # NumPy keeps its dtype: no float32 cast
    (np.array([1.0], dtype=np.float16), rt.torch_float16(), (1,)),
    (np.array([[True]]), BOOL, (1, 1)),
    (np.array([1, 2], dtype=np.uint8), rt.torch_uint8(), (2,)),
    (np.float64(1.5), F64, ()),
    (np.int32(4), rt.torch_int32(), ()),
    (np.array(2.0), F64, ()),
])
def test_torch_tensor_inference(data, dtype, shape):
    t = torch_tensor(data)
    assert t.dtype == dtype
    assert t.shape == shape
    np.testing.assert_array_equal(t.numpy(), np.asarray(data))


def test_torch_tensor_from_python_scalar_is_zero_dim():
    t = torch_tensor(2.5)
    assert t.ndim == 0 and t.shape == () and t.item() == 2.5 and isinstance(t.item(), float)
    assert isinstance(torch_tensor(3).item(), int)
    assert torch_tensor(True).item() is True


def test_torch_tensor_copies_and_casts():
    a = np.array([1.0, 2.0])
    t = torch_tensor(a)
    a[0] = 99
    assert t.tolist() == [1.0, 2.0]
    u = torch_tensor(t)
    assert u is not t and u.tolist() == [1.0, 2.0] and u.dtype == F64
    assert torch_tensor([1, 2], dtype=F64).dtype == F64
    assert torch_tensor([1.7, -1.7], dtype=LONG).tolist() == [1, -1]
    assert torch_tensor([1.0], dtype="float64").dtype == F64
    assert torch_tensor([1.0], dtype=np.float64).dtype == F64
    assert torch_tensor([rt.torch_tensor(1.0), rt.torch_tensor(2.0)]).tolist() == [1.0, 2.0]


def test_torch_tensor_requires_grad_and_errors():
    t = torch_tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    t64 = torch_tensor([1, 2], dtype=F64, requires_grad=True)  # grad applied after the cast
    assert t64.requires_grad and t64.dtype == F64
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch_tensor([1, 2], requires_grad=True)
    with pytest.raises(ValueError, match="ragged"):
        torch_tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        torch_tensor(["a"])
    with pytest.raises(RuntimeError, match="CPU only"):
        torch_tensor([1.0], device="cuda")
    assert torch_tensor([1.0], device="cpu").device == "cpu"


def test_torch_scalar_tensor_and_from_numpy():
    s = rt.torch_scalar_tensor(3.5)
    assert s.shape == () and s.item() == 3.5
    assert rt.torch_scalar_tensor(2, dtype=F32).dtype == F32
    a = np.zeros(3)
    t = rt.torch_from_numpy(a)
    a[1] = 7.0
    assert t.tolist() == [0.0, 7.0, 0.0] and t.dtype == F64   # shares memory


@settings(max_examples=25)
@given(st.recursive(st.one_of(st.integers(-100, 100), st.floats(-1e6, 1e6), st.booleans()),
                    lambda leaf: st.lists(leaf, min_size=1, max_size=3), max_leaves=8))
def test_torch_tensor_inference_property(data):
    """float anywhere -> float32, else int anywhere -> int64, else bool (ragged data refused)."""
    try:
        ref = np.array(data)
    except ValueError:
        return
    if ref.dtype == object:
        with pytest.raises(ValueError):
            torch_tensor(data)
        return
    t = torch_tensor(data)
    flat = list(np.ravel(np.array(data, dtype=object)))
    kinds = {type(v) for v in flat}
    want = F32 if float in kinds else LONG if int in kinds else BOOL
    assert t.dtype == want and t.shape == ref.shape
    np.testing.assert_array_equal(t.numpy(), ref.astype(t.numpy().dtype))


# ------------------------------------------------------------------------ sized constructors

@pytest.mark.parametrize("fn", [rt.torch_ones, rt.torch_zeros, rt.torch_empty, rt.torch_rand,
                                rt.torch_randn])
def test_size_forms_agree(fn):
    shapes = [fn(2, 3).shape, fn((2, 3)).shape, fn([2, 3]).shape, fn(size=(2, 3)).shape,
              fn(np.array([2, 3])).shape]
    assert shapes == [(2, 3)] * 5
    assert fn().shape == () and fn(()).shape == () and fn(0).shape == (0,)
    assert fn(3).dtype == F32
    assert fn(3, dtype=F64).dtype == F64
    t = fn(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError, match="negative dimension"):
        fn(2, -1)
    with pytest.raises(TypeError):
        fn(2.5)
    with pytest.raises(TypeError):
        fn(2, size=(2,))


def test_ones_zeros_values():
    assert rt.torch_ones(2, 2).equal(rt.torch_ones((2, 2)))
    assert rt.torch_ones(2, 2).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert rt.torch_zeros(3, dtype=LONG).tolist() == [0, 0, 0]
    assert rt.torch_ones(2, dtype=BOOL).tolist() == [True, True]
    assert rt.torch_empty(2, 3).numpy().shape == (2, 3)


def test_random_functions_refuse_integer_dtypes():
    with pytest.raises(RuntimeError, match="floating point"):
        rt.torch_rand(2, dtype=LONG)
    with pytest.raises(RuntimeError, match="floating point"):
        rt.torch_randn_like(torch_tensor([1, 2]))


def test_full():
    assert rt.torch_full((2, 2), 7).dtype == LONG
    assert rt.torch_full((2, 2), 7).tolist() == [[7, 7], [7, 7]]
    assert rt.torch_full((2,), 7.5).dtype == F32
    assert rt.torch_full((2,), True).dtype == BOOL
    assert rt.torch_full(3, 1.0).shape == (3,)
    assert rt.torch_full([2, 1], 2, dtype=F64).dtype == F64
    assert rt.torch_full((1,), torch_tensor(2.5)).tolist() == [2.5]


def test_eye():
    np.testing.assert_array_equal(rt.torch_eye(3).numpy(), np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(rt.torch_eye(2, 3).numpy(), np.eye(2, 3, dtype=np.float32))
    assert rt.torch_eye(2, dtype=LONG).dtype == LONG
    assert rt.torch_eye(2).dtype == F32


# ------------------------------------------------------------------------ ranges

@pytest.mark.parametrize("args,kwargs,expected,dtype", [
    ((5,), {}, [0, 1, 2, 3, 4], LONG),                      # end exclusive, as PyTorch
    ((1, 4), {}, [1, 2, 3], LONG),
    ((10, 0, -3), {}, [10, 7, 4, 1], LONG),
    ((0, 2, 0.5), {}, [0.0, 0.5, 1.0, 1.5], F32),
    ((2.5, 1, -0.5), {}, [2.5, 2.0, 1.5], F32),
    ((1, 2.0), {}, [1.0], F32),
    ((1, 4), {"dtype": F64}, [1.0, 2.0, 3.0], F64),
    ((0, 5, 2), {"dtype": F32}, [0.0, 2.0, 4.0], F32),
    ((torch_tensor(3),), {}, [0, 1, 2], LONG),
])
def test_arange(args, kwargs, expected, dtype):
    t = rt.torch_arange(*args, **kwargs)
    assert t.dtype == dtype
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-7)


def test_arange_lengths_match_pytorch():
    # PyTorch: ceil((end - start) / step) elements, computed in double
    assert rt.torch_arange(0, 1, 0.1).shape == (10,)
    assert rt.torch_arange(0, 0.3, 0.1).shape == (3,)
    assert rt.torch_arange(0, 2.5, 0.51).shape == (5,)
    assert rt.torch_arange(0, 99).shape == (99,)
    assert rt.torch_arange(3, 3).shape == (0,)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        rt.torch_arange(0, 1, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        rt.torch_arange(0, 5, -1)
    assert rt.torch_arange(3, dtype=F32, requires_grad=True).requires_grad


def test_linspace_and_logspace():
    np.testing.assert_allclose(rt.torch_linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1])
    assert rt.torch_linspace(0, 1, 5).dtype == F32
    assert rt.torch_linspace(0, 1, 1).tolist() == [0.0]
    assert rt.torch_linspace(0, 1, 0).shape == (0,)
    assert rt.torch_linspace(-1, 1, 3, dtype=F64).dtype == F64
    assert rt.torch_linspace(0, 10, 5, dtype=LONG).tolist() == [0, 2, 5, 7, 10]
    with pytest.raises(RuntimeError, match="non-negative"):
        rt.torch_linspace(0, 1, -1)
    np.testing.assert_allclose(rt.torch_logspace(0, 2, 3).numpy(), [1, 10, 100])
    np.testing.assert_allclose(rt.torch_logspace(0, 2, 3, base=2).numpy(), [1, 2, 4])
    assert rt.torch_logspace(0, 1, 4).dtype == F32


# ------------------------------------------------------------------------ random

@pytest.mark.parametrize("draw", [
    lambda: rt.torch_rand(3, 2),
    lambda: rt.torch_randn(4),
    lambda: rt.torch_randint(0, 10, (5,)),
    lambda: rt.torch_randint(10, (5,)),
    lambda: rt.torch_randperm(6),
    lambda: rt.torch_rand_like(rt.torch_zeros(3)),
    lambda: rt.torch_randn_like(rt.torch_zeros(3, dtype=F64)),
    lambda: rt.torch_randint_like(rt.torch_zeros(3), 5),
    lambda: rt.torch_zeros(4).uniform_(-1, 1),
    lambda: rt.torch_zeros(4).normal_(2, 3),
])
def test_random_is_reproducible_after_manual_seed(draw):
    rt.torch_manual_seed(42)
    a = draw()
    b = draw()
    rt.torch_manual_seed(42)
    c = draw()
    assert a.equal(c)
    assert not a.equal(b)


def test_random_ranges_and_dtypes():
    rt.torch_manual_seed(0)
    u = rt.torch_rand(1000)
    assert u.dtype == F32 and 0 <= u.min().item() and u.max().item() < 1
    n = rt.torch_randn(4000, dtype=F64)
    assert n.dtype == F64 and abs(n.mean().item()) < 0.1 and abs(n.std().item() - 1) < 0.1
    r = rt.torch_randint(3, 7, (500,))
    assert r.dtype == LONG and r.min().item() == 3 and r.max().item() == 6
    assert rt.torch_randint(0, 2, (3,), dtype=F32).dtype == F32
    p = rt.torch_randperm(10)
    assert p.dtype == LONG and sorted(p.tolist()) == list(range(10))


# ------------------------------------------------------------------------ *_like

def test_like_functions_keep_shape_and_dtype():
    x = torch_tensor([[1, 2, 3]])
    f = rt.torch_ones(2, 1, dtype=F64)
    assert rt.torch_ones_like(x).dtype == LONG and rt.torch_ones_like(x).tolist() == [[1, 1, 1]]
    assert rt.torch_zeros_like(f).dtype == F64 and rt.torch_zeros_like(f).shape == (2, 1)
    assert rt.torch_zeros_like(x, dtype=F64).dtype == F64
    assert rt.torch_empty_like(f).shape == (2, 1)
    assert rt.torch_full_like(x, 7).tolist() == [[7, 7, 7]]
    assert rt.torch_full_like(f, 2.5).dtype == F64
    assert rt.torch_rand_like(f).dtype == F64 and rt.torch_rand_like(f).shape == (2, 1)
    assert rt.torch_randn_like(f).shape == (2, 1)
    assert rt.torch_randint_like(x, 5).dtype == LONG
    like = rt.torch_ones_like(f, requires_grad=True)
    assert like.requires_grad and like.is_leaf
    src = rt.torch_ones(2, requires_grad=True)
    assert not rt.torch_zeros_like(src).requires_grad  # *_like does not copy requires_grad


# ------------------------------------------------------------------------ dtypes

@pytest.mark.parametrize("ctor,word,np_dtype", [
    (rt.torch_float32, "Float", np.float32), (rt.torch_float, "Float", np.float32),
    (rt.torch_float64, "Double", np.float64), (rt.torch_double, "Double", np.float64),
    (rt.torch_float16, "Half", np.float16), (rt.torch_half, "Half", np.float16),
    (rt.torch_int64, "Long", np.int64), (rt.torch_long, "Long", np.int64),
    (rt.torch_int32, "Int", np.int32), (rt.torch_int, "Int", np.int32),
    (rt.torch_int16, "Short", np.int16), (rt.torch_short, "Short", np.int16),
    (rt.torch_int8, "Char", np.int8), (rt.torch_uint8, "Byte", np.uint8),
    (rt.torch_bool, "Bool", np.bool_),
])
def test_dtype_constructors(ctor, word, np_dtype):
    d = ctor()
    assert repr(d) == f"torch_{word}" and str(d) == f"torch_{word}"
    assert d == ctor() and hash(d) == hash(ctor())
    assert d.numpy == np.dtype(np_dtype)
    assert d.is_floating_point == (np.dtype(np_dtype).kind == "f")
    assert rt.torch_ones(1, dtype=d).dtype == d
    assert rt.as_dtype(np_dtype) == d


def test_dtype_misc():
    assert rt.torch_float32() != rt.torch_float64()
    assert rt.torch_get_default_dtype() == F32
    with pytest.raises(TypeError, match="unsupported dtype.*torch_cdouble"):
        rt.as_dtype("datetime64")
    assert rt.as_dtype("complex128") == rt.torch_cdouble()
    with pytest.raises(TypeError):
        rt.torch_set_default_dtype(LONG)


def test_set_default_dtype_changes_inference_and_creation():
    try:
        rt.torch_set_default_dtype(F64)
        assert torch_tensor(1.5).dtype == F64
        assert rt.torch_ones(2).dtype == F64
        assert (torch_tensor([1, 2]) * 0.5).dtype == F64
        assert rt.torch_arange(0, 1, 0.5).dtype == F64
    finally:
        rt.torch_set_default_dtype(F32)
    assert torch_tensor(1.5).dtype == F32
