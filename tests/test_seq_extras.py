"""Issue 33's ops around sequences and signals: window functions, fftfreq, cross, cummax/cummin,
bincount, vander, atleast_*, index, result_type, finfo/iinfo, empty_strided and the methods
fill_diagonal_, put_, resize_, narrow_copy. Values recorded from PyTorch 2.13 (checked without
it); with PyTorch installed, more comparisons."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt

# PyTorch 2.13, float64, window_length 6: (periodic, symmetric)
WINDOWS = {
    "hann": ((), [0.0, 0.24999999999999994, 0.7499999999999999, 1.0, 0.7500000000000002,
                  0.25000000000000033],
             [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737,
              0.3454915028125264, 0.0]),
    "hamming": ((0.6, 0.3), [0.3, 0.44999999999999996, 0.7499999999999999, 0.8999999999999999,
                             0.7500000000000001, 0.4500000000000002],
                [0.3, 0.5072949016875158, 0.8427050983124842, 0.8427050983124842,
                 0.5072949016875158, 0.3]),
    "blackman": ((), [0.0, 0.12999999999999995, 0.6299999999999999, 1.0, 0.6300000000000003,
                      0.13000000000000023],
                 [0.0, 0.20077014326253045, 0.8492298567374694, 0.8492298567374696,
                  0.20077014326253056, 0.0]),
    "bartlett": ((), [0.0, 0.3333333333333333, 0.6666666666666666, 1.0, 0.6666666666666667,
                      0.3333333333333335],
                 [0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999, 0.0]),
    "kaiser": ((5.0,), [0.036710892271286676, 0.3282019573723212, 0.7753221044454067, 1.0,
                        0.7753221044454067, 0.3282019573723212],
               [0.036710892271286676, 0.4149036392433668, 0.9138124838692001,
                0.9138124838692001, 0.4149036392433668, 0.036710892271286676]),
}


def _window(name, n, periodic, extra=(), **kw):
    return getattr(rt, f"torch_{name}_window")(n, periodic, *extra, **kw)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_windows_recorded(name):
    extra, periodic, symmetric = WINDOWS[name]
    for flag, want in ((True, periodic), (False, symmetric)):
        w = _window(name, 6, flag, extra, dtype=rt.torch_float64())
        assert w.dtype == rt.torch_float64()
        np.testing.assert_allclose(w.numpy(), want, rtol=1e-14, atol=1e-15)
        w32 = _window(name, 6, flag, extra)  # the default dtype, float32
        assert w32.dtype == rt.torch_float32()
        np.testing.assert_allclose(w32.numpy(), want, rtol=3e-7, atol=1e-7)
    assert _window(name, 0, True, extra).shape == (0,)
    assert _window(name, 1, False, extra).numpy().tolist() == [1.0]


def test_window_bad_input():
    with pytest.raises(RuntimeError, match="floating point"):
        rt.torch_hann_window(4, dtype=rt.torch_int64())
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        rt.torch_kaiser_window(-1)
    with pytest.raises(TypeError, match="window_length"):
        rt.torch_blackman_window(2.5)
    assert rt.torch_hann_window(3, requires_grad=True).requires_grad


def test_fftfreq_recorded():
    np.testing.assert_array_equal(
        rt.torch_fft_fftfreq(7, 0.25).numpy(),
        np.array([0.0, 0.5714285969734192, 1.1428571939468384, 1.7142858505249023,
                  -1.7142858505249023, -1.1428571939468384, -0.5714285969734192], np.float32))
    np.testing.assert_array_equal(
        rt.torch_fft_rfftfreq(7, 0.25).numpy(),
        np.array([0.0, 0.5714285969734192, 1.1428571939468384, 1.7142858505249023], np.float32))
    assert rt.torch_fft_fftfreq(0).shape == (0,)
    assert rt.torch_fft_fftfreq(4, dtype=rt.torch_float64()).numpy().tolist() == \
        [0.0, 0.25, -0.5, -0.25]


def test_cross_gradient_and_errors():
    a = rt.torch_tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    b = rt.torch_tensor([[4.0, 5.0, 6.0], [0.0, 1.0, 0.0]], requires_grad=True)
    c = rt.torch_cross(a, b)  # first dim of size 3 (dim 1); a broadcasts
    assert c.grad_fn.name == "LinalgCrossBackward0"
    assert c.detach().numpy().tolist() == [[-3.0, 6.0, -3.0], [-3.0, 0.0, 1.0]]
    c.sum().backward()
    # recorded from PyTorch 2.13 (a's gradient summed over the broadcast rows)
    assert a.grad.numpy().tolist() == [[0.0, 2.0, -2.0]]
    assert b.grad.numpy().tolist() == [[1.0, -2.0, 1.0]] * 2
    with pytest.raises(RuntimeError, match="dimension 0 must have length 3. Got 1 and 2"):
        rt.torch_cross(a, b, dim=0)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        rt.torch_cross(rt.torch_ones(3), b)
    with pytest.raises(RuntimeError, match="dtype"):
        rt.torch_cross(rt.torch_ones(3), rt.torch_ones(3, dtype=rt.torch_float64()))


def test_cummax_ties_nan_and_gradient():
    x = rt.torch_tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 5.0, float("nan")],
                        requires_grad=True)
    v, i = rt.torch_cummax(x, 0)
    assert i.numpy().tolist() == [0, 1, 2, 2, 4, 4, 6]  # recorded from PyTorch 2.13
    assert v.grad_fn.name == "CummaxBackward0"
    v.sum().backward()
    assert x.grad.numpy().tolist() == [1.0, 1.0, 2.0, 0.0, 2.0, 0.0, 1.0]
    v, i = rt.torch_cummin(rt.torch_tensor([[3, 1, 1], [2, 4, 0]]), 1)
    assert v.numpy().tolist() == [[3, 1, 1], [2, 2, 0]]
    assert i.numpy().tolist() == [[0, 1, 2], [0, 0, 2]]


def test_bincount_dtypes():
    x = rt.torch_tensor([0, 1, 1, 3])
    assert rt.torch_bincount(x).dtype == rt.torch_int64()
    w32 = rt.torch_tensor([1.0, 1.0, 1.0, 1.0])
    assert rt.torch_bincount(x, w32).dtype == rt.torch_float32()
    assert rt.torch_bincount(x, rt.torch_tensor([1, 2, 3, 4])).dtype == rt.torch_float64()
    with pytest.raises(RuntimeError, match="same length"):
        rt.torch_bincount(x, rt.torch_ones(2))
    with pytest.raises(RuntimeError, match="minlength"):
        rt.torch_bincount(x, minlength=-1)


def test_dtype_limits_and_result_type():
    f = rt.torch_finfo(rt.torch_float32())
    assert (f.bits, f.eps, f.tiny, f.resolution) == (32, 2.0 ** -23, 2.0 ** -126, 1e-06)
    assert rt.torch_finfo(rt.torch_float16()).max == 65504.0
    i = rt.torch_iinfo(rt.torch_int64())
    assert (i.bits, i.min, i.max) == (64, -2 ** 63, 2 ** 63 - 1)
    with pytest.raises(TypeError, match="integer dtype"):
        rt.torch_iinfo(rt.torch_float32())
    assert rt.torch_result_type(1, 2.0) == rt.torch_float32()
    assert rt.torch_result_type(rt.torch_tensor([1], dtype=rt.torch_int32()), 5) == \
        rt.torch_int32()
    with pytest.raises(TypeError, match="tensor2"):
        rt.torch_result_type(rt.torch_ones(1), "a")


def test_empty_strided_and_methods():
    e = rt.torch_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2)
    e.fill_(1.0)
    assert e.sum().item() == 6.0
    x = rt.torch_zeros(3, 4)
    with pytest.raises(IndexError, match="index 12 on a tensor of 12 elements"):
        x.put_(rt.torch_tensor([12]), rt.torch_tensor([1.0]))
    with pytest.raises(RuntimeError, match="same number of elements"):
        x.put_(rt.torch_tensor([1, 2]), rt.torch_tensor([1.0]))
    with pytest.raises(RuntimeError, match="require grad"):
        rt.torch_ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="equal length"):
        rt.torch_zeros(2, 3, 3).fill_diagonal_(1.0)
    # put_ and fill_diagonal_ on a non-leaf pass gradients
    w = rt.torch_ones(2, 2, requires_grad=True)
    y = w * 2.0
    y.put_(rt.torch_tensor([3]), rt.torch_tensor([0.0]))
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert w.grad.numpy().tolist() == [[0.0, 2.0], [2.0, 0.0]]
    # narrow_copy copies
    z = rt.torch_arange(0, 5)
    n = z.narrow_copy(0, 1, 2)
    n.fill_(0)
    assert z.numpy().tolist() == [0, 1, 2, 3, 4]


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for n in (2, 5, 16, 101):
        for periodic in (True, False):
            for name, extra in (("hann", ()), ("hamming", ()), ("blackman", ()),
                                ("bartlett", ()), ("kaiser", (12.0,)), ("kaiser", (3.0,))):
                for dt, tdt, tol in ((rt.torch_float32(), torch.float32, 3e-6),
                                     (rt.torch_float64(), torch.float64, 1e-13)):
                    got = _window(name, n, periodic, extra, dtype=dt).numpy()
                    want = getattr(torch, f"{name}_window")(n, periodic, *extra, dtype=tdt)
                    np.testing.assert_allclose(got, want.numpy(), rtol=tol, atol=tol / 10)
        for d in (1.0, 0.3):
            np.testing.assert_array_equal(rt.torch_fft_fftfreq(n, d).numpy(),
                                          torch.fft.fftfreq(n, d).numpy())
    for shape, dim in (((4, 3), -1), ((3, 2, 3), 0), ((2, 3, 5), 1)):
        a, b = rng.standard_normal(shape), rng.standard_normal(shape)
        ra, rb = rt.torch_tensor(a, requires_grad=True), rt.torch_tensor(b, requires_grad=True)
        ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        g = rng.standard_normal(shape)
        (rt.torch_cross(ra, rb, dim) * rt.torch_tensor(g)).sum().backward()
        (torch.cross(ta, tb, dim) * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(ra.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(rb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    x = rng.integers(0, 4, (3, 6)).astype(np.float64)
    x[1, 2] = np.nan
    for fn in ("cummax", "cummin"):
        for dim in (0, 1):
            v, i = getattr(rt, "torch_" + fn)(rt.torch_tensor(x), dim)
            tv, ti = getattr(torch, fn)(torch.tensor(x), dim)
            np.testing.assert_array_equal(v.numpy(), tv.numpy())
            np.testing.assert_array_equal(i.numpy(), ti.numpy())
    v = rng.standard_normal(4)
    for n in (None, 1, 3, 6):
        for inc in (False, True):
            np.testing.assert_allclose(rt.torch_vander(rt.torch_tensor(v), n, inc).numpy(),
                                       torch.vander(torch.tensor(v), n, inc).numpy(), rtol=1e-15)
    for shape in ((), (2,), (2, 3), (1, 2, 3)):
        t = torch.zeros(shape)
        for k in ("1d", "2d", "3d"):
            assert getattr(rt, "torch_atleast_" + k)(rt.torch_zeros(*shape)).shape == \
                tuple(getattr(torch, "atleast_" + k)(t).shape)
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), True)):
        a, ta = rt.torch_zeros(*shape), torch.zeros(shape)
        a.fill_diagonal_(2.0, wrap)
        ta.fill_diagonal_(2.0, wrap)
        np.testing.assert_array_equal(a.numpy(), ta.numpy())
