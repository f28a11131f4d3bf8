"""Beta and Dirichlet ``rsample`` (PyTorch's implicit reparameterisation gradient) and the von
Mises distribution: values recorded from PyTorch 2.13, and live against PyTorch where it is
installed (fed our own draws, so the gradients of the same draws are compared)."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.numerics.beta_grad import dirichlet_grad

F64 = rt.torch_float64()

# (x, alpha, total) covering the four approximations, and torch._dirichlet_grad's values
GRAD_POINTS = [(0.05, 0.5, 1.7), (0.3, 1.2, 2.0), (0.97, 3.0, 3.2), (0.4, 10.0, 25.0),
               (0.3, 10.0, 25.0), (0.55, 8.0, 16.0), (0.6, 2.5, 6.0), (0.2, 0.9, 4.0),
               (0.85, 7.0, 9.0), (0.45, 4.0, 9.5)]
GRAD_TORCH = [0.2997601167889145, 0.45238339562930546, 0.37422890210780574,
              0.041208661457692475, 0.03552870295475566, 0.06832501124718497,
              0.2261495882763526, 0.3035254978587959, 0.12361744021341654,
              0.11758615898510816]


def test_dirichlet_grad_recorded():
    x, a, t = (np.array(v) for v in zip(*GRAD_POINTS))
    np.testing.assert_allclose(dirichlet_grad(x, a, t), GRAD_TORCH, rtol=1e-12)


def _f64(v, grad=False):
    return rt.torch_tensor(v, dtype=F64, requires_grad=grad)


def test_rsample_gradients_flow_and_values_are_the_samples():
    c = _f64([0.5, 2.0, 6.0], True)
    rt.torch_manual_seed(2)
    x = rt.distr_dirichlet(c).rsample((7,))
    rt.torch_manual_seed(2)
    np.testing.assert_array_equal(x.detach().numpy(), rt.distr_dirichlet(c).sample((7,)).numpy())
    np.testing.assert_allclose(x.detach().numpy().sum(-1), 1.0, atol=1e-12)
    x[:, 0].sum().backward()
    assert c.grad is not None and np.isfinite(c.grad.numpy()).all()
    a, b = _f64([1.5, 0.2], True), _f64([3.0, 0.9], True)
    y = rt.distr_beta(a, b).rsample((11,))
    assert tuple(y.shape) == (11, 2) and rt.distr_beta(a, b).has_rsample
    y.sum().backward()
    assert (a.grad.numpy() > 0).all() and (b.grad.numpy() < 0).all()


def _torch_with_our_draws(torch, fn, draws):
    """Run PyTorch's rsample with ``torch._sample_dirichlet`` returning ``draws``."""
    orig = torch._sample_dirichlet
    torch._sample_dirichlet = lambda *a, **k: torch.tensor(draws)
    try:
        return fn()
    finally:
        torch._sample_dirichlet = orig


@pytest.mark.parametrize("conc", [[0.5, 1.5, 3.0], [[0.1, 20.0, 7.0, 9.0], [30.0, 40.0, 50.0,
                                                                             0.3]]])
def test_live_dirichlet_rsample_gradient_against_pytorch(conc):
    torch = pytest.importorskip("torch")
    c = _f64(conc, True)
    rt.torch_manual_seed(3)
    x = rt.distr_dirichlet(c).rsample((50,))
    w = np.random.default_rng(1).normal(size=tuple(x.shape))
    (x * _f64(w)).sum().backward()
    tc = torch.tensor(conc, dtype=torch.float64, requires_grad=True)
    tx = _torch_with_our_draws(torch, lambda: torch.distributions.Dirichlet(tc).rsample((50,)),
                               x.detach().numpy())
    (tx * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), tc.grad.numpy(), rtol=1e-10)


def test_live_beta_rsample_gradient_against_pytorch():
    torch = pytest.importorskip("torch")
    a, b = _f64([0.3, 2.0, 12.0], True), _f64([0.7, 5.0, 9.0], True)
    rt.torch_manual_seed(1)
    x = rt.distr_beta(a, b).rsample((50,))
    w = np.random.default_rng(2).normal(size=tuple(x.shape))
    (x * _f64(w)).sum().backward()
    ta, tb = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for v in ([0.3, 2.0, 12.0], [0.7, 5.0, 9.0]))
    xx = x.detach().numpy()
    tx = _torch_with_our_draws(torch, lambda: torch.distributions.Beta(ta, tb).rsample((50,)),
                               np.stack([xx, 1 - xx], -1))
    (tx * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-10)


# --- von Mises ----------------------------------------------------------------------------

def test_von_mises_recorded():
    # PyTorch 2.13: torch.manual_seed(7); VonMises(0.5, 2.0) in float64
    d = rt.distr_von_mises(_f64(0.5), _f64(2.0))
    rt.torch_manual_seed(7)
    np.testing.assert_allclose(d.sample((4,)).numpy(),
                               [0.8264442479834453, 0.8190233291041604, -1.5211711095243698,
                                -0.5605652093436633], rtol=1e-13)
    np.testing.assert_allclose(d.log_prob(_f64(1.0)).item(), -0.9067054862873724, rtol=1e-13)
    np.testing.assert_allclose(d.variance.item(), 0.3022253424022666, rtol=1e-13)
    assert d.mean.item() == 0.5 and not d.has_rsample
    with pytest.raises(ValueError, match="concentration has invalid values"):
        rt.distr_von_mises(0.0, -1.0)


def test_von_mises_samples_are_von_mises():
    d = rt.distr_von_mises(_f64(-2.0), _f64(3.0))
    rt.torch_manual_seed(0)
    s = d.sample((20000,)).numpy()
    assert (s >= -np.pi).all() and (s < np.pi).all()
    # the circular mean direction and the mean resultant length I1(k) / I0(k)
    z = np.exp(1j * s).mean()
    assert abs(np.angle(z) - (-2.0)) < 0.02
    assert abs(abs(z) - (1 - d.variance.item())) < 0.01


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_live_von_mises_against_pytorch(dtype):
    torch = pytest.importorskip("torch")
    ours_dt, their_dt = getattr(rt, f"torch_{dtype}")(), getattr(torch, dtype)
    for loc, k in ((0.5, 2.0), (-1.0, 0.3), (2.5, 40.0), (0.0, 1e-6), (1.0, 4.0)):
        rt.torch_manual_seed(4)
        torch.manual_seed(4)
        ours = rt.distr_von_mises(rt.torch_tensor([loc, loc + 1], dtype=ours_dt),
                                  rt.torch_tensor([k, 2 * k], dtype=ours_dt)).sample((300,))
        theirs = torch.distributions.VonMises(torch.tensor([loc, loc + 1], dtype=their_dt),
                                              torch.tensor([k, 2 * k], dtype=their_dt)
                                              ).sample((300,))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
        np.testing.assert_array_equal(rt.torch_get_rng_state().numpy(),
                                      torch.get_rng_state().numpy())
    loc, kap, val = ([0.3, -2.0, 1.0, 0.1], [0.5, 3.0, 10.0, 3.75], [1.0, 3.0, -7.0, 0.4])
    l, k, v = _f64(loc, True), _f64(kap, True), _f64(val, True)
    lp = rt.distr_von_mises(l, k).log_prob(v)
    gl, gk, gv = rt.autograd_grad(lp.sum(), [l, k, v], create_graph=True)
    gk.sum().backward()
    tl, tk, tv = (torch.tensor(x, dtype=torch.float64, requires_grad=True)
                  for x in (loc, kap, val))
    tlp = torch.distributions.VonMises(tl, tk).log_prob(tv)
    tgl, tgk, tgv = torch.autograd.grad(tlp.sum(), [tl, tk, tv], create_graph=True)
    tgk.sum().backward()
    for a, b in ((lp, tlp), (gl, tgl), (gk, tgk), (gv, tgv), (k.grad, tk.grad)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    d, td = rt.distr_von_mises(l, k), torch.distributions.VonMises(tl, tk)
    np.testing.assert_allclose(d.variance.detach().numpy(), td.variance.detach().numpy(),
                               rtol=1e-12)


def test_support_objects():
    from rtorchpy.distributions import constraints
    assert rt.distr_von_mises(0.0, 1.0).support is constraints.real
    assert rt.distr_beta(2.0, 3.0).support is constraints.unit_interval


# --- gamma cdf ----------------------------------------------------------------------------

def test_gamma_cdf_against_mpmath_and_its_gradient():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    conc, rate, val = [0.01, 0.5, 2.0, 20.08, 300.0, 5.0], [1.0, 2.0, 3.0, 1.0, 1.0, 0.1], \
        [0.5, 0.3, 1.0, 14.29, 280.0, 500.0]
    r, v = _f64(rate, True), _f64(val, True)
    out = rt.distr_gamma(_f64(conc), r).cdf(v)
    want = [float(mp.gammainc(c, 0, q * x, regularized=True))
            for c, q, x in zip(conc, rate, val)]
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-13, atol=1e-300)
    out.sum().backward()
    # d/dx P(c, x) is the gamma density at x = rate * value
    dens = [float(mp.exp((c - 1) * mp.log(q * x) - q * x - mp.loggamma(c)))
            for c, q, x in zip(conc, rate, val)]
    np.testing.assert_allclose(v.grad.numpy(), np.array(dens) * rate, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(r.grad.numpy(), np.array(dens) * val, rtol=1e-12, atol=1e-300)
    chi = rt.distr_chi2(_f64(3.0)).cdf(_f64(2.0)).item()
    np.testing.assert_allclose(chi, float(mp.gammainc(1.5, 0, 1.0, regularized=True)),
                               rtol=1e-14)


def test_live_gamma_cdf_against_pytorch():
    torch = pytest.importorskip("torch")
    conc, rate, val = [0.5, 2.0, 7.0], [1.0, 3.0, 0.5], [0.3, 1.0, 20.0]
    r, v = _f64(rate, True), _f64(val, True)
    out = rt.distr_gamma(_f64(conc), r).cdf(v)
    out.sum().backward()
    tr, tv = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (rate, val))
    tout = torch.distributions.Gamma(torch.tensor(conc, dtype=torch.float64), tr).cdf(tv)
    tout.sum().backward()
    # (PyTorch's gammainc is itself off by up to ~1e-10 for large shapes; these are small)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(r.grad.numpy(), tr.grad.numpy(), rtol=1e-12)


def test_binomial_entropy():
    # PyTorch 2.13: Binomial(5, [0.3, 0.9, 0.5]).entropy() in float64
    p = _f64([0.3, 0.9, 0.5], True)
    e = rt.distr_binomial(_f64([5.0, 5.0, 5.0]), p).entropy()
    np.testing.assert_allclose(e.detach().numpy(),
                               [1.4136148552834449, 0.9102051201901213, 1.5236708720427918],
                               rtol=1e-14)
    e.sum().backward()
    h = 1e-6
    num = [(rt.distr_binomial(5.0, _f64(q + h)).entropy().item() -
            rt.distr_binomial(5.0, _f64(q - h)).entropy().item()) / (2 * h) for q in
           (0.3, 0.9, 0.5)]
    np.testing.assert_allclose(p.grad.numpy(), num, rtol=1e-6, atol=1e-9)
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        rt.distr_binomial(_f64([5.0, 6.0]), _f64([0.3, 0.3])).entropy()
