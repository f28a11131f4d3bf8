"""Distributions against PyTorch 2.13: log_prob and its gradients (parameters and value),
entropy, cdf, mean and variance from recorded values (fixtures/distributions_torch.json, made
by record_distributions.py); second-order gradients, samples for a seed and rsample gradients
live when PyTorch is installed; validate_args errors; moments and a Kolmogorov-Smirnov check
for the samplers that are not PyTorch's."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as rt
from _distr_cases import CASES, HAS_CDF, HAS_ENTROPY

REC = json.loads((Path(__file__).parent / "fixtures" / "distributions_torch.json").read_text())
F64 = rt.torch_float64()


def _build(key, grad=True):
    fn, _, params, value = CASES[key]
    rp = {k: rt.torch_tensor(v, dtype=F64, requires_grad=grad) for k, v in params.items()}
    d = getattr(rt, fn)(**rp)
    rv = rt.torch_tensor(value, dtype=F64, requires_grad=grad and "categorical" not in key)
    return d, rp, rv


def _close(got, want, tol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("key", sorted(CASES))
def test_against_recorded_pytorch(key):
    d, rp, rv = _build(key)
    want = REC[key]
    lp = d.log_prob(rv)
    _close(lp.detach().numpy(), want["log_prob"])
    inputs = list(rp.values()) + ([rv] if rv.requires_grad else [])
    grads = rt.autograd_grad(lp.sum(), inputs, allow_unused=True)
    for g, w in zip(grads, want["grads"]):
        if w is not None:
            _close(g.numpy(), w)
    _close(d.mean.detach().numpy(), want["mean"])
    _close(d.variance.detach().numpy(), want["variance"])
    if key in HAS_ENTROPY:
        _close(d.entropy().detach().numpy(), want["entropy"])
    if key in HAS_CDF:
        _close(d.cdf(rv).detach().numpy(), want["cdf"])


@pytest.mark.parametrize("key", ["normal", "laplace", "mvn_cov", "mvn_tril", "gamma", "beta",
                                 "bernoulli_logits", "categorical_logits"])
def test_second_order_against_pytorch(key):
    torch = pytest.importorskip("torch")
    fn, cls, params, value = CASES[key]
    tp = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    td = getattr(torch.distributions, cls)(**tp)
    d, rp, rv = _build(key)
    tv = torch.tensor(value, dtype=torch.float64)
    ga = torch.autograd.grad(td.log_prob(tv).sum(), list(tp.values()), create_graph=True)
    gb = rt.autograd_grad(d.log_prob(rv.detach()).sum(), list(rp.values()), create_graph=True)
    ha = torch.autograd.grad(sum(g.sum() for g in ga), list(tp.values()), allow_unused=True)
    hb = rt.autograd_grad(sum(g.sum() for g in gb[1:]) + gb[0].sum(), list(rp.values()),
                          allow_unused=True)
    # gamma and beta go through digamma's derivative (trigamma), which is 1e-9 relative here
    tol = 1e-8 if key in ("gamma", "beta") else 1e-11
    for x, y in zip(ha, hb):
        if x is not None:
            _close(y.numpy(), x.numpy(), tol)


@pytest.mark.parametrize("key,shape", [("normal", (5,)), ("normal", (40,)), ("uniform", (6,)),
                                       ("exponential", (3, 2)), ("laplace", (7,)),
                                       ("log_normal", (5,)), ("bernoulli_probs", (6,)),
                                       ("categorical_probs", (9,)), ("mvn_cov", (30,))])
def test_samples_are_pytorchs_for_a_seed(key, shape):
    torch = pytest.importorskip("torch")
    fn, cls, params, _ = CASES[key]
    td = getattr(torch.distributions, cls)(**{k: torch.tensor(v, dtype=torch.float32)
                                             for k, v in params.items()})
    d = getattr(rt, fn)(**{k: rt.torch_tensor(v.astype(np.float32)) for k, v in params.items()})
    torch.manual_seed(4)
    a = td.sample(shape).numpy()
    rt.torch_manual_seed(4)
    b = d.sample(shape).numpy()
    assert a.shape == b.shape
    # (the multivariate normal's matrix product may round differently: 1 ULP)
    tol = 1e-6 if key == "mvn_cov" else 0
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def test_rsample_is_reparameterised_with_pytorchs_gradients():
    torch = pytest.importorskip("torch")
    loc, scale = np.array([0.5, -1.0]), np.array([1.5, 0.3])
    tl, ts = (torch.tensor(v, requires_grad=True) for v in (loc, scale))
    rl, rs = (rt.torch_tensor(v, requires_grad=True) for v in (loc, scale))
    torch.manual_seed(2)
    x = torch.distributions.Normal(tl, ts).rsample((20,))
    rt.torch_manual_seed(2)
    y = rt.distr_normal(rl, rs).rsample((20,))
    _close(y.detach().numpy(), x.detach().numpy())
    (x ** 2).sum().backward()
    (y ** 2).sum().backward()
    _close(rl.grad.numpy(), tl.grad.numpy())
    _close(rs.grad.numpy(), ts.grad.numpy())


def test_validate_args_errors_in_r_torchs_words():
    with pytest.raises(ValueError, match="The parameter scale has invalid values"):
        rt.distr_normal(0.0, -1.0)
    with pytest.raises(ValueError, match="The parameter probs has invalid values"):
        rt.distr_bernoulli(probs=rt.torch_tensor([1.5]))
    with pytest.raises(ValueError, match="covariance_matrix has invalid values"):
        rt.distr_multivariate_normal(rt.torch_zeros(2),
                                     rt.torch_tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="within the support"):
        rt.distr_poisson(2.0).log_prob(rt.torch_tensor([-1.0]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        rt.distr_bernoulli()
    # validate_args = False: no check
    assert math.isnan(rt.distr_normal(0.0, -1.0, validate_args=False).log_prob(
        rt.torch_tensor([0.0])).item())


def test_shapes_and_expand():
    d = rt.distr_normal(rt.torch_zeros(3), 1.0)
    assert d.batch_shape == (3,) and d.event_shape == ()
    assert d.sample((2,)).shape == (2, 3)
    e = d.expand((4, 3))
    assert e.batch_shape == (4, 3) and e.sample().shape == (4, 3)
    m = rt.distr_multivariate_normal(rt.torch_zeros(2, 3), rt.torch_eye(3))
    assert m.batch_shape == (2,) and m.event_shape == (3,)
    assert m.log_prob(rt.torch_zeros(5, 2, 3)).shape == (5, 2)


def test_mixture_against_pytorch():
    torch = pytest.importorskip("torch")
    w, mu, sd = np.array([0.2, 0.5, 0.3]), np.array([-2.0, 0.0, 3.0]), np.array([1.0, .5, 2.0])
    tw, tm, ts = (torch.tensor(v, requires_grad=True) for v in (w, mu, sd))
    rw, rm, rs = (rt.torch_tensor(v, requires_grad=True) for v in (w, mu, sd))
    TD = torch.distributions
    tmix = TD.MixtureSameFamily(TD.Categorical(probs=tw), TD.Normal(tm, ts))
    rmix = rt.distr_mixture_same_family(rt.distr_categorical(probs=rw), rt.distr_normal(rm, rs))
    x = np.linspace(-4, 5, 7)
    a = tmix.log_prob(torch.tensor(x))
    b = rmix.log_prob(rt.torch_tensor(x))
    _close(b.detach().numpy(), a.detach().numpy())
    for g, h in zip(torch.autograd.grad(a.sum(), [tw, tm, ts]),
                    rt.autograd_grad(b.sum(), [rw, rm, rs])):
        _close(h.numpy(), g.numpy())
    _close(rmix.mean.detach().numpy(), tmix.mean.detach().numpy())
    _close(rmix.variance.detach().numpy(), tmix.variance.detach().numpy())
    torch.manual_seed(0)
    rt.torch_manual_seed(0)
    _close(rmix.sample((25,)).numpy(), tmix.sample((25,)).numpy())


def _ks(sample, cdf):
    x = np.sort(sample)
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


@pytest.mark.parametrize("seed", [0, 1])
def test_gamma_beta_poisson_samplers_moments_and_ks(seed):
    rt.torch_manual_seed(seed)
    n = 20000
    g = rt.distr_gamma(3.0, 2.0).sample((n,)).numpy().astype(np.float64)
    assert abs(g.mean() - 1.5) < 0.03 and abs(g.var() - 0.75) < 0.05
    # Gamma(3, 2): the CDF in closed form for an integer shape
    cdf = lambda x: 1 - np.exp(-2 * x) * (1 + 2 * x + (2 * x) ** 2 / 2)  # noqa: E731
    assert _ks(g, cdf) < 1.63 / math.sqrt(n)  # KS critical value at 1%
    b = rt.distr_beta(2.0, 1.0).sample((n,)).numpy().astype(np.float64)
    assert _ks(b, lambda x: x ** 2) < 1.63 / math.sqrt(n)
    p = rt.distr_poisson(rt.torch_tensor([3.5])).sample((n,)).numpy()
    assert abs(p.mean() - 3.5) < 0.06 and abs(p.var() - 3.5) < 0.15
    c = rt.distr_chi2(4.0).sample((n,)).numpy().astype(np.float64)
    assert abs(c.mean() - 4) < 0.1


def test_gamma_rsample_gradient_is_pytorchs_for_the_same_draws():
    torch = pytest.importorskip("torch")
    conc = np.array([0.3, 1.7, 4.0, 12.0])
    c = rt.torch_tensor(conc, requires_grad=True)
    r = rt.torch_tensor(np.array([1.0, 2.0, 0.5, 3.0]), requires_grad=True)
    rt.torch_manual_seed(0)
    x = rt.distr_gamma(c, r).rsample((50,))
    x.sum().backward()
    draws = x.detach().numpy() * r.detach().numpy()  # the standard gamma draws
    want = torch._standard_gamma_grad(torch.tensor(conc).expand(50, 4),
                                      torch.tensor(draws)).numpy() / r.detach().numpy()
    _close(c.grad.numpy(), want.sum(0), 1e-10)
    _close(r.grad.numpy(), -(x.detach().numpy() / r.detach().numpy()).sum(0), 1e-12)
