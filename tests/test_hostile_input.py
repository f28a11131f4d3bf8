"""Careless and hostile input from Python (issue 36): no crash, no hang, no silent wrong value,
clear errors naming the argument, state left as it was, copy/deepcopy as in PyTorch."""
import copy
import math
import time
import warnings

import numpy as np
import pytest

import rtorchpy as rt

# ------------------------------------------------------------------------------ crashes


@pytest.mark.parametrize("offset", [-2 ** 31, 2 ** 31, 2 ** 40, -2 ** 40, 2 ** 63 - 1, -2 ** 63,
                                    3, -3, 2, -2])
def test_diagonal_offsets_past_the_matrix_are_empty_diagonals(offset):
    # PyTorch 2.13: an offset past the plane gives an empty diagonal (torch.diagonal and
    # torch.diag of a matrix alike); NumPy's C int must never see -2**31 (a crash)
    x = rt.torch_randn(3, 3, requires_grad=True)
    expected = max(0, 3 - abs(offset))
    d = rt.torch_diagonal(x, offset=offset)
    assert d.shape == (expected,)
    d.format()  # printing reads the memory
    assert rt.torch_diag(x, offset).shape == (expected,)
    assert x.diagonal(offset, 0, 1).shape == (expected,)
    d.sum().backward()
    assert x.grad.shape == (3, 3)


def test_offsets_beyond_int64_are_errors():
    x = rt.torch_randn(3, 3)
    for f in (lambda: rt.torch_diag(x, 2 ** 64), lambda: rt.torch_diagonal(x, -2 ** 70),
              lambda: rt.torch_tril(x, 2 ** 63)):
        with pytest.raises(RuntimeError, match="out of the range of int64"):
            f()
    with pytest.raises(TypeError, match="'offset' must be int"):
        rt.torch_diagonal(x, 1.5)


def test_a_huge_vector_diagonal_is_an_error_not_a_crash():
    with pytest.raises(RuntimeError, match="not enough memory"):
        rt.torch_diag(rt.torch_ones(3), -2 ** 31)


def test_unsigned_values_beyond_int64_are_refused_not_wrapped():
    x = rt.torch_randn(3, 2)
    with pytest.raises(RuntimeError, match="int64 without overflow"):
        rt.torch_index_select(x, 0, np.uint64(2 ** 64 - 1))
    assert rt.torch_index_select(x, 0, np.uint64(2)).tolist() == x[2:].tolist()
    assert rt.torch_tensor(np.array([7], np.uint32)).dtype == rt.torch_int64()
    for v in (2 ** 63, [2 ** 63], -2 ** 63 - 1):
        with pytest.raises(RuntimeError, match="int64 without overflow"):
            rt.torch_tensor(v)


# ------------------------------------------------------------------------------ hangs


def _trunc(n=20000, **kw):
    rt.torch_manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = rt.nn_init_trunc_normal_(rt.torch_empty(n, dtype=rt.torch_float64()), **kw)
        return t.numpy()


def test_trunc_normal_matches_the_truncated_distribution():
    v = _trunc()
    assert v.min() >= -2 and v.max() <= 2
    # the standard normal truncated to [-2, 2]: mean 0, std 0.8796
    assert abs(v.mean()) < 0.03 and abs(v.std() - 0.8796) < 0.02
    # far in a tail: N(100, 1) on [-2, 2] piles up below 2, mean 2 - 1/98 (PyTorch 2.13 draws
    # from the same distribution)
    v = _trunc(mean=100.0)
    assert v.min() >= -2 and v.max() <= 2 and abs(v.mean() - (2 - 1 / 98)) < 2e-3
    v = _trunc(mean=-100.0)
    assert abs(v.mean() + (2 - 1 / 98)) < 2e-3
    v = _trunc(a=-math.inf, b=-30.0)
    assert v.max() <= -30 and abs(v.mean() + 30.0333) < 2e-3


@pytest.mark.parametrize("kw,check", [
    (dict(mean=1e12), lambda v: np.all(v == 2.0)),
    (dict(mean=-1e300), lambda v: np.all(v == -2.0)),
    (dict(std=math.inf), lambda v: v.min() >= -2 and v.max() <= 2 and abs(v.std() - 1.1547) < .03),
    (dict(std=1e300), lambda v: v.min() >= -2 and v.max() <= 2 and abs(v.std() - 1.1547) < .03),
    (dict(std=1e-300), lambda v: np.all(np.abs(v) < 1e-290)),
    (dict(a=-math.inf, b=math.inf), lambda v: abs(v.std() - 1) < 0.03),
    (dict(a=1.0, b=1.0), lambda v: np.all(v == 1.0)),
])
def test_trunc_normal_degenerate_arguments_end_quickly(kw, check):
    t0 = time.time()
    v = _trunc(**kw)
    assert time.time() - t0 < 5
    assert check(v), (v.min(), v.max(), v.mean(), v.std())


@pytest.mark.parametrize("kw,error,message", [
    (dict(a=2.0, b=-2.0), RuntimeError, "from=2.0 > to=-2.0"),
    (dict(std=0.0), RuntimeError, "std must be positive"),
    (dict(std=-1.0), RuntimeError, "std must be positive"),
    (dict(mean=math.nan), RuntimeError, "mean must be finite"),
    (dict(std=math.inf, a=-math.inf), RuntimeError, "finite bounds"),
    (dict(mean="a"), TypeError, "'mean' must be a number"),
])
def test_trunc_normal_errors(kw, error, message):
    t = rt.torch_zeros(3)
    with pytest.raises(error, match=message):
        rt.nn_init_trunc_normal_(t, **kw)
    assert t.tolist() == [0, 0, 0]


def test_polygamma_refuses_huge_orders_quickly():
    x = rt.torch_ones(3)
    t0 = time.time()
    for n in (10 ** 12, 1e12, 10001, 2 ** 64):
        with pytest.raises(RuntimeError, match="too large"):
            rt.torch_polygamma(n, x)
    assert time.time() - t0 < 1
    # (orders up to the bound still compute, as PyTorch: inf beyond n = 170)
    assert rt.torch_polygamma(171, x).tolist() == [math.inf] * 3


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("call,message", [
    (lambda x: rt.torch_sum(1), "torch_sum(): argument 'self' must be a Tensor, not int"),
    (lambda x: rt.torch_sum(bytearray(b"ab")), "argument 'self' must be a Tensor, not bytearray"),
    (lambda x: rt.torch_add(x, None), "torch_add(): argument 'other'"),
    (lambda x: rt.torch_add(x, x, "abc"), "torch_add(): argument 'alpha'"),
    (lambda x: rt.torch_ones(2, requires_grad="no"),
     "torch_ones(): argument 'requires_grad' must be bool, not str"),
    (lambda x: rt.torch_sum(x, 0, keepdim="no"), "argument 'keepdim' must be bool, not str"),
    (lambda x: x.sum(0, keepdim=1), "argument 'keepdim' must be bool, not int"),
    (lambda x: x.requires_grad_("no"), "argument 'requires_grad' must be bool"),
    (lambda x: rt.torch_tensor(1.0, requires_grad=None), "must be bool, not NoneType"),
    (lambda x: rt.torch_load(x), "argument 'path' must be a file path"),
    (lambda x: rt.nn_linear("a", 2), "nn_linear(): argument 'in_features' must be int"),
    (lambda x: rt.nn_batch_norm1d(math.inf), "argument 'num_features' must be int"),
    (lambda x: rt.nn_init_kaiming_uniform_(x, mode=x), "mode must be 'fan_in' or 'fan_out'"),
    (lambda x: rt.optim_sgd([rt.torch_ones(1, requires_grad=True)], lr=rt.torch_tensor(0.1)),
     "lr must be a number"),
])
def test_clear_type_errors(call, message):
    x = rt.torch_randn(2, 3)
    with pytest.raises(TypeError) as e:
        call(x)
    assert message in str(e.value)
    assert "_data" not in str(e.value)


def test_numpy_booleans_are_flags():
    x = rt.torch_randn(2, 3)
    assert x.sum(0, keepdim=np.bool_(True)).shape == (1, 3)
    assert rt.torch_ones(2, requires_grad=np.True_).requires_grad


# ------------------------------------------------------------------------------ state

BAD = [None, "yes", "no", 1, 0, 1.0, math.nan, [True], np.array([True, False]), object()]


def _state():
    return (rt.is_grad_enabled(), rt.is_anomaly_enabled(), rt.torch_get_default_dtype())


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_state_setters_refuse_bad_input_and_leave_the_state(value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for setter in (rt.autograd_set_grad_mode, rt.set_grad_enabled,
                       rt.autograd_set_detect_anomaly, rt.with_detect_anomaly,
                       rt.torch_set_default_dtype):
            before = _state()
            with pytest.raises(TypeError):
                setter(value)
            assert _state() == before, setter
    # the same from a non-default state
    rt.autograd_set_grad_mode(False)
    try:
        with pytest.raises(TypeError):
            rt.autograd_set_grad_mode(value)
        assert not rt.is_grad_enabled()
    finally:
        rt.autograd_set_grad_mode(True)


@pytest.mark.parametrize("value", [None, "yes", math.nan, math.inf, object(), [1], 2 ** 64,
                                   -2 ** 63 - 1], ids=repr)
def test_a_refused_seed_leaves_the_generator(value):
    rt.torch_manual_seed(7)
    expected = rt.torch_rand(3).tolist()
    rt.torch_manual_seed(7)
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        rt.torch_manual_seed(value)
    assert rt.torch_rand(3).tolist() == expected


def test_default_dtype_is_not_set_by_none_or_bytes():
    before = rt.torch_get_default_dtype()
    try:
        for d in (None, b"f8", rt.torch_int64(), 3, 1.5, True):
            with pytest.raises(TypeError):
                rt.torch_set_default_dtype(d)
        assert rt.torch_get_default_dtype() is before
    finally:
        rt.torch_set_default_dtype(before)


def test_modes_come_back_after_errors_inside_blocks():
    before = _state()
    with pytest.raises(ValueError):
        with rt.with_no_grad():
            raise ValueError
    with pytest.raises(ValueError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with rt.with_detect_anomaly():
                raise ValueError

    @rt.with_no_grad()
    def boom():
        raise ValueError
    with pytest.raises(ValueError):
        boom()
    assert _state() == before


def test_failed_inplace_ops_leave_values_versions_and_graph():
    x = rt.torch_ones(3, requires_grad=True)
    y = x * 2
    fn, version, values = y.grad_fn, y._version[0], y.tolist()
    for bad in (lambda: y.add_("a"), lambda: y.mul_(None), lambda: y.clamp_(min="a"),
                lambda: y.fill_("a"), lambda: y.copy_(rt.torch_ones(4)),
                lambda: y.add_(x, alpha="a")):
        with pytest.raises((TypeError, RuntimeError)):
            bad()
        assert y.grad_fn is fn and y._version[0] == version and y.tolist() == values
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


# ------------------------------------------------------------------------------ copies


def test_deepcopy_of_tensors_as_pytorch():
    x = rt.torch_ones(3, requires_grad=True)
    x.grad = rt.torch_full(c(3), 2.0) if False else rt.torch_ones(3) * 2
    x.note = ["kept"]
    d = copy.deepcopy(x)
    assert d is not x and d.requires_grad and d.is_leaf and d.tolist() == x.tolist()
    assert d.grad.tolist() == [2.0] * 3 and d.grad is not x.grad
    assert d.note == ["kept"] and d.note is not x.note
    d.detach().add_(1)  # its own memory
    assert x.tolist() == [1.0] * 3
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x[1:])  # a view of a leaf that requires grad has history


def c(*a):
    return a


def test_deepcopy_keeps_views_sharing_memory_within_one_copy():
    base = rt.torch_arange(0, 6.0).reshape(2, 3)
    view = base[1]
    b2, v2 = copy.deepcopy([base, view])
    b2[1, 0] = 100.0
    assert v2.tolist() == [100.0, 4.0, 5.0]
    assert base.tolist() == [[0, 1, 2], [3, 4, 5]]
    alone = copy.deepcopy(view)
    assert alone.tolist() == [3.0, 4.0, 5.0]


def test_copy_shares_memory_and_drops_history():
    x = rt.torch_ones(2, requires_grad=True)
    y = x * 3
    for src in (x, y):
        c1 = copy.copy(src)
        assert c1 is not src and c1.requires_grad and c1.is_leaf and c1.grad is None
        assert c1._data is src._data


def test_deepcopy_of_modules_optimizers_and_state_dicts():
    m = rt.nn_linear(2, 3)
    opt = rt.optim_adam(list(m.parameters.values()), lr=0.1)
    m(rt.torch_ones(1, 2)).sum().backward()
    opt.step()
    m2, opt2 = copy.deepcopy((m, opt))
    assert m2.weight is not m.weight and m2.weight.tolist() == m.weight.tolist()
    assert opt2.param_groups[0]["params"][0] is m2.weight  # one memo: consistent
    sd = copy.deepcopy(m.state_dict())
    assert list(sd) == ["weight", "bias"] and sd["weight"].tolist() == m.weight.tolist()
    with rt.with_no_grad():
        m2.weight.fill_(0.0)
    assert m.weight.abs().sum().item() > 0
    sd_opt = copy.deepcopy(opt.state_dict())
    assert sd_opt is not None


# ------------------------------------------------------------------------------ silent values


def test_integers_beyond_int64_are_errors_not_wrapped():
    x = rt.torch_arange(0, 3).long()
    for f in (lambda: x + 2 ** 63, lambda: x * -2 ** 64, lambda: x.masked_fill(x > 0, 2 ** 63),
              lambda: x.fill_(2 ** 63), lambda: x.roll(np.uint64(2 ** 64 - 1)),
              lambda: x[np.array([np.uint64(2 ** 64 - 1)])]):
        with pytest.raises((RuntimeError, IndexError)):
            f()
    assert x.tolist() == [0, 1, 2]
    assert (x + 2 ** 62).tolist() == [2 ** 62, 2 ** 62 + 1, 2 ** 62 + 2]
    assert x.fmod(2 ** 62).tolist() == [0, 1, 2]
    assert rt.torch_randn(2).fmod(2 ** 64).shape == (2,)  # (NumPy 1 made an object array)


def test_index_select_refuses_negative_indices_as_libtorch():
    x = rt.torch_randn(3, 2)
    with pytest.raises(IndexError, match="index out of range"):
        rt.torch_index_select(x, 0, rt.torch_tensor([-1]))


@pytest.mark.parametrize("k", [-2 ** 63, 2 ** 63 - 1, -2 ** 31, 2 ** 31, -4, 4])
def test_triangles_with_offsets_past_the_matrix(k):
    x = rt.torch_ones(3, 4, requires_grad=True)
    low, up = x.tril(k), x.triu(k)
    assert low.sum().item() == (12 if k > 0 else 0)
    assert up.sum().item() == (0 if k > 0 else 12)
    (low.sum() + up.sum()).backward()
    assert x.grad.tolist() == [[1.0] * 4] * 3


def test_negative_repeats_are_refused_as_libtorch():
    with pytest.raises(RuntimeError, match="negative dimension -3: \\[-3, 4\\]"):
        rt.torch_ones(3, 4).repeat(-1, 1)


@pytest.mark.parametrize("kw", [dict(), dict(mean=100.0), dict(mean=1.5, std=0.5, a=0.0, b=1.0),
                                dict(a=-6.0, b=-3.0)], ids=repr)
def test_trunc_normal_draws_as_pytorch(kw):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = np.sort(torch.nn.init.trunc_normal_(torch.empty(20000, dtype=torch.float64),
                                                     **kw).numpy())
    ours = np.sort(_trunc(**kw))
    # two-sample Kolmogorov-Smirnov statistic: 0.02 is far beyond chance at 20000 draws each
    grid = np.concatenate([ours, theirs])
    d = np.abs(np.searchsorted(ours, grid, side="right") -
               np.searchsorted(theirs, grid, side="right")).max() / 20000
    assert d < 0.02, d
