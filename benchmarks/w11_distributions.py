"""W11 distributions: ``distr_normal(mu, sigma)$log_prob(x)$sum()`` forward and backward over
10^6 float32 values, and ``distr_multivariate_normal`` log_prob of 10^4 points in 20
dimensions (float64, covariance given), forward and backward, against torch.distributions.

Both construct the distribution inside the timed call (with their default argument
validation) and differentiate with respect to the parameters. Engines interleaved in one
process; the values and gradients are checked against each other first.
Targets: normal ≤ 1.2x PyTorch, multivariate normal ≤ 1.5x PyTorch.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=10 ** 6).astype(np.float32)
    a = rng.normal(size=(20, 20))
    cov = a @ a.T + 20 * np.eye(20)
    pts = rng.normal(size=(10 ** 4, 20))
    return x, cov, pts


def build(engine, x, cov, pts):
    if engine == "rtorchpy":
        import rtorchpy as rt
        mu, sd = (rt.torch_tensor(v, requires_grad=True) for v in (0.3, 1.2))
        X = rt.torch_tensor(x)
        loc = rt.torch_zeros(20, dtype=rt.torch_float64(), requires_grad=True)
        S, P = rt.torch_tensor(cov, requires_grad=True), rt.torch_tensor(pts)

        def normal():
            mu.grad = sd.grad = None
            rt.distr_normal(mu, sd).log_prob(X).sum().backward()
            return mu.grad.item()

        def mvn():
            loc.grad = S.grad = None
            rt.distr_multivariate_normal(loc, S).log_prob(P).sum().backward()
            return S.grad.numpy().copy()
        return normal, mvn
    torch, _ = _common.load_torch()
    mu, sd = (torch.tensor(v, requires_grad=True) for v in (0.3, 1.2))
    X = torch.tensor(x)
    loc = torch.zeros(20, dtype=torch.float64, requires_grad=True)
    S, P = torch.tensor(cov, requires_grad=True), torch.tensor(pts)

    def normal():
        mu.grad = sd.grad = None
        torch.distributions.Normal(mu, sd).log_prob(X).sum().backward()
        return mu.grad.item()

    def mvn():
        loc.grad = S.grad = None
        torch.distributions.MultivariateNormal(loc, S).log_prob(P).sum().backward()
        return S.grad.numpy().copy()
    return normal, mvn


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 2) if args.quick else (15, 5)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    x, cov, pts = data()
    engines = ["rtorchpy"] + (["torch"] if torch is not None else [])
    fns = {e: build(e, x, cov, pts) for e in engines}
    if "torch" in fns:
        np.testing.assert_allclose(fns["rtorchpy"][0](), fns["torch"][0](), rtol=1e-4)
        np.testing.assert_allclose(fns["rtorchpy"][1](), fns["torch"][1](), rtol=1e-8)
    rows, targets = [], []
    for i, (label, limit) in enumerate((("normal log_prob, 10^6 float32", 1.2),
                                        ("multivariate normal log_prob, 10^4 x 20", 1.5))):
        res = _common.timeit({e: f[i] for e, f in fns.items()}, repeat=repeat, number=number,
                             warmup=1)
        rows += [_common.row(label, e, r["median"] * 1e3, "ms", min=r["min"] * 1e3,
                             max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
        if "torch" in res:
            a, b = res["rtorchpy"]["median"], res["torch"]["median"]
            ratio, detail = a / b, f"{a * 1e3:.1f} vs {b * 1e3:.1f} ms"
        else:
            ratio, detail = None, "PyTorch not installed"
        targets.append(_common.target(f"W11 {label}, forward+backward ≤ {limit}× PyTorch",
                                      ratio, limit, detail))
    notes.append(f"engines interleaved in one process, {repeat} batches of {number} calls, "
                 "median; values and gradients checked first")
    _common.emit(args, "W11", rows, targets, notes,
                 description="distribution log_prob forward and backward")


if __name__ == "__main__":
    main()
