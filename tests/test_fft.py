"""The Fourier transforms, complex tensors and gradients through them: values recorded from
PyTorch 2.13 (checked without it); with PyTorch installed, randomized comparisons of values
and gradients over sizes, n, dims, norms and dtypes."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt


def _f64(v, **kw):
    return rt.torch_tensor(np.asarray(v, dtype=np.complex128 if np.iscomplexobj(v) else
                                      np.float64), **kw)


def test_rfft_abs_gradient_recorded():
    x = _f64([1.0, 2.0, -1.0, 0.5, 3.0], requires_grad=True)
    f = rt.torch_fft_rfft(x, norm="ortho")
    assert f.dtype == rt.torch_cdouble() and f.grad_fn.name == "FftR2CBackward0"
    np.testing.assert_allclose(f.detach().numpy(), [
        2.4596747752497685, 1.3190983005625052 + 0.8196237382653702j,
        -1.4309016994374946 - 0.37512255020446306j], rtol=1e-14)
    rt.torch_abs(f).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [
        0.3944764024687158, 0.7567593101255929, -0.24036711792354712, 0.2528127584057335,
        1.0723866244232947], rtol=1e-13)


def test_complex_input_gradients_recorded():
    z = _f64(np.array([1 + 1j, 2 - 1j, 0.5 + 0j]), requires_grad=True)
    y = rt.torch_fft_irfft(z, n=5)
    assert y.grad_fn.name == "FftC2RBackward0" and y.dtype == rt.torch_float64()
    np.testing.assert_allclose(y.detach().numpy(), [
        1.2, 0.6658328031430298, -0.15029609570797908, -0.6205242975419577,
        -0.09501240989309295], rtol=1e-13)
    (y * _f64([0.0, 1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [
        2.0, -0.9999999999999998 + 1.3763819204711738j,
        -0.9999999999999998 + 0.32491969623290656j], rtol=1e-13, atol=1e-15)
    z = _f64(np.array([1 + 1j, 2 - 1j, 0.5 + 0j]), requires_grad=True)
    w = rt.torch_fft_fft(z, n=4, norm="forward")
    assert w.grad_fn.name == "FftC2CBackward0"
    np.testing.assert_allclose(w.detach().numpy(),
                               [0.875, -0.125 - 0.25j, -0.125 + 0.5j, 0.375 + 0.75j])
    (rt.torch_real(w) * _f64([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [2.5, -0.5 - 0.5j, -0.5])


def test_dtypes_views_and_errors():
    x = rt.torch_tensor([1.0, 2.0, 3.0])
    assert rt.torch_fft_fft(x).dtype == rt.torch_cfloat()
    assert rt.torch_fft_fft(rt.torch_tensor([1, 2])).dtype == rt.torch_cfloat()
    assert rt.torch_fft_irfft(rt.torch_fft_rfft(x), 3).dtype == rt.torch_float32()
    f = rt.torch_fft_fft(x)
    assert f.is_complex() and not x.is_complex()
    assert f.real.dtype == rt.torch_float32() and x.real is x
    pairs = rt.torch_view_as_real(f)
    assert pairs.shape == (3, 2)
    np.testing.assert_allclose(rt.torch_view_as_complex(pairs).numpy(), f.numpy())
    assert "ComplexFloatType{3}" in repr(f)
    with pytest.raises(RuntimeError, match="real input"):
        rt.torch_fft_rfft(f)
    with pytest.raises(ValueError, match="normalization mode"):
        rt.torch_fft_fft(x, norm="both")
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        rt.torch_fft_fft(x, n=0)
    with pytest.raises(RuntimeError, match="non-complex"):
        rt.torch_imag(x)
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        rt.torch_view_as_complex(rt.torch_ones(3))
    with pytest.raises(RuntimeError, match="only supported for complex"):
        rt.torch_view_as_real(x)


def test_second_order_through_fft():
    x = _f64([0.3, -1.2, 2.0, 0.7], requires_grad=True)

    def power(v):
        f = rt.torch_fft_rfft(v, n=6, norm="ortho")
        return rt.torch_real(f) ** 2 + rt.torch_imag(f) ** 2

    assert rt.autograd_gradgradcheck(power, [x])
    assert rt.autograd_gradgradcheck(
        lambda v: rt.torch_abs(rt.torch_fft_rfft(v, n=6, norm="ortho")), [x])
    assert rt.autograd_gradgradcheck(
        lambda v: rt.torch_real(rt.torch_fft_fft(v) * rt.torch_fft_fft(v * 2).conj()), [x])


def test_complex_products_conjugate_recorded():
    a = _f64(np.array([1 + 2j, -0.5 + 1j]), requires_grad=True)
    b = _f64(np.array([2 - 1j, 0.25 + 0.5j]), requires_grad=True)
    o = (a * b) / (a + b)
    (rt.torch_abs(o).sum() + rt.torch_real(o).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), [-0.1581138830084191 + 0.9743416490252568j,
                                                -0.07833059774875961 + 0.19076601564950696j])
    np.testing.assert_allclose(b.grad.numpy(), [0.1581138830084189 - 0.9743416490252568j,
                                                0.8202717695727176 + 0.08713155782778914j])
    c = rt.torch_conj(a)
    assert c.grad_fn.name == "ConjBackward0" and rt.torch_conj(rt.torch_ones(2)).dtype == \
        rt.torch_float32()


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for dt, tol in ((np.float64, 1e-11), (np.float32, 2e-5)):
        for shape, dim in (((8,), -1), ((3, 7), 1), ((5, 4), 0)):
            for n in (None, 3, 10):
                for norm in (None, "forward", "ortho"):
                    for name, complex_in in (("fft", False), ("fft", True), ("ifft", True),
                                             ("rfft", False), ("irfft", True),
                                             ("irfft", False)):
                        x = rng.standard_normal(shape).astype(dt)
                        if complex_in:
                            x = (x + 1j * rng.standard_normal(shape)).astype(
                                np.complex64 if dt == np.float32 else np.complex128)
                        ours = rt.torch_tensor(x, requires_grad=True)
                        theirs = torch.tensor(x, requires_grad=True)
                        a = getattr(rt, "torch_fft_" + name)(ours, n, dim, norm)
                        b = getattr(torch.fft, name)(theirs, n, dim, norm)
                        np.testing.assert_allclose(a.detach().numpy(),
                                                   b.detach().resolve_conj().numpy(),
                                                   rtol=tol, atol=tol)
                        assert a.dtype.word == {torch.complex64: "ComplexFloat",
                                                torch.complex128: "ComplexDouble",
                                                torch.float32: "Float",
                                                torch.float64: "Double"}[b.dtype]
                        w = rng.standard_normal(tuple(b.shape)).astype(dt)
                        if b.is_complex():
                            la = (rt.torch_abs(a) * rt.torch_tensor(w)).sum() + \
                                rt.torch_imag(a).sum()
                            lb = (torch.abs(b) * torch.tensor(w)).sum() + torch.imag(b).sum()
                        else:
                            la = (a * rt.torch_tensor(w)).sum()
                            lb = (b * torch.tensor(w)).sum()
                        la.backward()
                        lb.backward()
                        np.testing.assert_allclose(ours.grad.numpy(),
                                                   theirs.grad.resolve_conj().numpy(),
                                                   rtol=tol * 10, atol=tol * 10)


# ------------------------------------------------------------------ n-dimensional transforms
def test_fftn_padded_ortho_recorded():
    x = _f64([[1.0, 2.0, -1.0], [0.5, 3.0, -2.0]], requires_grad=True)
    f = rt.torch_fft_fftn(x, s=(2, 4), norm="ortho")
    assert f.grad_fn.name == "FftC2CBackward0" and f.dtype == rt.torch_cdouble()
    np.testing.assert_allclose(f.detach().numpy(), [
        [1.237436867076458, 1.590990257669732 - 1.7677669529663687j, -2.2980970388562794,
         1.590990257669732 + 1.7677669529663687j],
        [0.17677669529663687, -0.17677669529663687 + 0.35355339059327373j,
         0.8838834764831843, -0.17677669529663687 - 0.35355339059327373j]], rtol=1e-13,
        atol=1e-15)
    w = _f64([[0.0, 1, 2, 3], [4, 5, 6, 7]])
    ((rt.torch_abs(f) * w).sum() + rt.torch_imag(f).sum()).backward()
    assert x.grad.dtype == rt.torch_float64()
    np.testing.assert_allclose(x.grad.numpy(), [
        [1.8771195248549086, -2.743556529746782, 3.7797347246374717],
        [-1.3992150948085114, 6.260123417030424, -7.086066279430058]], rtol=1e-12)


def test_rfftn_halves_the_last_of_dim_recorded():
    x = _f64([[1.0, 2.0, -1.0], [0.5, 3.0, -2.0]], requires_grad=True)
    r = rt.torch_fft_rfftn(x, dim=(1, 0))  # dim 0 is the one-sided dim
    assert r.shape == (2, 3) and r.grad_fn.name == "FftR2CBackward0"
    np.testing.assert_allclose(r.detach().numpy(), [
        [3.5, 0.5 - 6.928203230275509j, 0.5 + 6.928203230275509j],
        [0.5, 0.5 + 1.7320508075688772j, 0.5 - 1.7320508075688772j]], rtol=1e-13, atol=1e-14)
    rt.torch_abs(r).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [
        [2.698663346374968, 1.7141255399336952, 1.5872111136913367],
        [-0.4107370460754902, 3.597026913510299, -3.1862898674348092]], rtol=1e-12)


def test_irfftn_and_ifftn_complex_input_recorded():
    z = _f64(np.array([[1 + 1j, 2 - 1j, 0.5], [-1 + 0.5j, 0.25j, 3]]), requires_grad=True)
    y = rt.torch_fft_irfftn(z, s=(2, 4))
    assert y.grad_fn.name == "FftC2RBackward0" and y.shape == (2, 4)
    np.testing.assert_allclose(y.detach().numpy(), [[0.9375, -0.25, -0.0625, -0.625],
                                                    [0.4375, 0.875, -0.5625, 0.25]],
                               atol=1e-15)
    (y * _f64(np.arange(8.0).reshape(2, 4))).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [[3.5, -1 + 1j, -0.5], [-2, 0, 0]],
                               atol=1e-14)
    i = rt.torch_fft_ifftn(z.detach(), dim=0, norm="forward")
    np.testing.assert_allclose(i.numpy(), [[1.5j, 2 - 0.75j, 3.5], [2 + 0.5j, 2 - 1.25j, -2.5]],
                               atol=1e-15)


def test_fftn_defaults_dtypes_and_errors():
    x = rt.torch_randn(2, 3, 4)
    f = rt.torch_fft_fftn(x)
    assert f.dtype == rt.torch_cfloat() and f.shape == (2, 3, 4)
    np.testing.assert_allclose(f.numpy(), np.fft.fftn(x.numpy()), rtol=1e-4, atol=1e-4)
    assert rt.torch_fft_fftn(x, s=(5,)).shape == (2, 3, 5)  # the last len(s) dims
    assert rt.torch_fft_fftn(x, s=(-1, 2)).shape == (2, 3, 2)
    assert rt.torch_fft_rfftn(x).shape == (2, 3, 3)
    assert rt.torch_fft_irfftn(rt.torch_fft_rfftn(x)).shape == (2, 3, 4)
    np.testing.assert_allclose(
        rt.torch_fft_ifftn(rt.torch_fft_fftn(x, dim=(0, 2)), dim=(0, 2)).real.numpy(),
        x.numpy(), atol=1e-5)
    assert rt.torch_fft_irfftn(rt.torch_fft_rfftn(x)).dtype == rt.torch_float32()
    assert rt.torch_fft_fftn(rt.torch_tensor([[1, 2], [3, 4]])).dtype == rt.torch_cfloat()
    g = rt.torch_fft_fftn(rt.torch_ones(2, 2, requires_grad=True))
    assert g.grad_fn.next_functions[0][0].name == "ToCopyBackward0"  # as libtorch's graph
    with pytest.raises(RuntimeError, match="same length"):
        rt.torch_fft_fftn(x, s=(2, 2), dim=0)
    with pytest.raises(RuntimeError, match="must be unique"):
        rt.torch_fft_fftn(x, dim=(0, -3))
    with pytest.raises(RuntimeError, match="only has 3 dimensions"):
        rt.torch_fft_fftn(x, s=(1, 1, 1, 1))
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        rt.torch_fft_ifftn(x, s=(0, 2))
    with pytest.raises(RuntimeError, match="real-valued input"):
        rt.torch_fft_rfftn(f)
    with pytest.raises(RuntimeError, match="at least one axis"):
        rt.torch_fft_rfftn(x, dim=())
    with pytest.raises(ValueError, match="normalization mode"):
        rt.torch_fft_irfftn(f, norm="both")
    with pytest.raises(TypeError, match="argument 's'"):
        rt.torch_fft_fftn(x, s=(1.5,))


def test_fftn_second_order_and_forward_mode():
    x = _f64([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]], requires_grad=True)
    for fn in (lambda v: rt.torch_abs(rt.torch_fft_fftn(v, s=(3, 4))),
               lambda v: rt.torch_abs(rt.torch_fft_ifftn(v, dim=(1, 0), norm="ortho")),
               lambda v: rt.torch_abs(rt.torch_fft_rfftn(v, s=(2, 5), norm="forward")),
               lambda v: rt.torch_fft_irfftn(v, s=(3, 4)) ** 2,
               lambda v: rt.torch_fft_irfftn(rt.torch_fft_rfftn(v) * rt.torch_fft_rfftn(v),
                                             dim=(1, 0)) ** 2):
        assert rt.autograd_gradcheck(fn, [x]) and rt.autograd_gradgradcheck(fn, [x])
    t = np.array([[1.0, 0.5, -2.0], [0.0, 1.5, 0.25]])
    with rt.autograd_dual_level():
        d = rt.autograd_make_dual(_f64(x.detach().numpy()), _f64(t))
        tan = rt.autograd_unpack_dual(rt.torch_fft_rfftn(d, s=(2, 4)))[1]
        tan2 = rt.autograd_unpack_dual(rt.torch_fft_irfftn(d, s=(3, 5)))[1]
    np.testing.assert_allclose(tan.numpy(), np.fft.rfftn(t, s=(2, 4), axes=(0, 1)), atol=1e-14)
    np.testing.assert_allclose(tan2.numpy(), np.fft.irfftn(t, s=(3, 5), axes=(0, 1)), atol=1e-14)


def test_fftn_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    cases = (((3, 4, 5), None, None), ((3, 4, 5), (4, 6), None), ((3, 4, 5), None, (0, 2)),
             ((3, 4, 5), (2, -1), (2, 0)), ((4, 6), (3, 8), (1, 0)), ((5, 4), (7,), None))
    for dt, tol in ((np.float64, 1e-11), (np.float32, 3e-5)):
        for shape, s, dim in cases:
            for norm in (None, "forward", "ortho"):
                for name, complex_in in (("fftn", False), ("ifftn", True), ("rfftn", False),
                                         ("irfftn", True), ("irfftn", False)):
                    x = rng.standard_normal(shape).astype(dt)
                    if complex_in:
                        x = (x + 1j * rng.standard_normal(shape)).astype(
                            np.complex64 if dt == np.float32 else np.complex128)
                    ours = rt.torch_tensor(x, requires_grad=True)
                    theirs = torch.tensor(x, requires_grad=True)
                    a = getattr(rt, "torch_fft_" + name)(ours, s, dim, norm)
                    b = getattr(torch.fft, name)(theirs, s, dim, norm)
                    assert a.grad_fn.name == b.grad_fn.name()
                    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(),
                                               rtol=tol, atol=tol)
                    w = rng.standard_normal(tuple(b.shape)).astype(dt)
                    if b.is_complex():
                        la = (rt.torch_abs(a) * rt.torch_tensor(w)).sum() + \
                            rt.torch_imag(a).sum()
                        lb = (torch.abs(b) * torch.tensor(w)).sum() + torch.imag(b).sum()
                    else:
                        la = (a * rt.torch_tensor(w)).sum()
                        lb = (b * torch.tensor(w)).sum()
                    la.backward()
                    lb.backward()
                    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(),
                                               rtol=tol * 10, atol=tol * 10)


def test_complex_power_gradient_is_conjugated_as_products_are():
    # z ** k differentiates as z * z * ... (whose MulBackward0 gradients equal PyTorch's):
    # the local derivative k z^(k-1) is conjugated for a complex z
    import rtorchpy as rt
    for k in (2, 3):
        x = rt.torch_tensor([1.0, 2.0, 0.5, -1.5], dtype=rt.torch_float64(), requires_grad=True)
        z = rt.torch_fft_fft(x)
        prod = z
        for _ in range(k - 1):
            prod = prod * z
        g_pow, = rt.autograd_grad(rt.torch_view_as_real(z ** k).sum(), [x])
        g_mul, = rt.autograd_grad(rt.torch_view_as_real(prod).sum(), [x])
        assert np.allclose(g_pow.numpy(), g_mul.numpy(), rtol=1e-12, atol=1e-12)
