"""W15 function transforms (issue 35), each paired with PyTorch's ``torch.func`` in one process:

* the Hessian of a logistic log-likelihood, 200 parameters and 1,000 observations (float64):
  ``autograd_hessian(vectorize = TRUE)`` (reverse-over-reverse) and ``autograd_hessian_fn``
  (forward-over-reverse, ``torch.func.hessian``'s method) against ``torch.func.hessian``;
* the Jacobian of a 100 -> 100 tanh MLP (two layers, float64) by ``autograd_jacfwd``, and by
  the looped reverse-mode ``autograd_jacobian``, against ``torch.func.jacfwd``;
* per-sample gradients of W2's MLP (784-512-512-10, float32) for a batch of 64 by
  ``autograd_vmap(autograd_grad_fn(loss))`` against ``torch.func.vmap(torch.func.grad(loss))``;
* per-example Hessians of a logistic log-likelihood term (10 parameters, 128 examples,
  float64) by ``autograd_vmap(autograd_hessian_fn(ll))`` (one batched forward-over-reverse
  pass) and by a loop over the examples, against ``torch.func.vmap(torch.func.hessian(ll))``
  (an extra row, no target).

Targets (issue 35): each ≤ 2× PyTorch. ``jacfwd`` pushes all basis directions in one pass
(batched tangents); ``vmap(grad)`` is one batched forward and backward pass (batching rules,
per-sample leaves). The per-sample case times the transform only: converting its 100 MB of
gradients to NumPy (a copy in rtorchpy, a shared view in PyTorch) is left out on both sides.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np


def logistic_data():
    rng = np.random.default_rng(0)
    n, p = 1000, 200
    x = rng.standard_normal((n, p)) / np.sqrt(p)
    y = (rng.random(n) < 0.5).astype(np.float64)
    return x, y, rng.standard_normal(p) * 0.1


def mlp_data():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((100, 100)) / 10, rng.standard_normal((100, 100)) / 10,
            rng.standard_normal(100))


def w2_data(batch=64):
    rng = np.random.default_rng(2)
    sizes, params = (784, 512, 512, 10), []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params += [(rng.uniform(-1, 1, (b, a)) / np.sqrt(a)).astype(np.float32),
                   (rng.uniform(-1, 1, b) / np.sqrt(a)).astype(np.float32)]
    return params, rng.standard_normal((batch, 784)).astype(np.float32), \
        rng.integers(0, 10, batch)


def per_example_data():
    rng = np.random.default_rng(3)
    n, p = 128, 10
    return (rng.standard_normal((n, p)), (rng.random(n) < 0.5).astype(np.float64),
            rng.standard_normal(p) * 0.1)


def rtorchpy_cases():
    import rtorchpy as rt
    x, y, b = logistic_data()
    xr, yr, br = rt.torch_tensor(x), rt.torch_tensor(y), rt.torch_tensor(b)

    def nll(beta):
        eta = xr.matmul(beta)
        return (rt.nnf_softplus(eta) - yr * eta).sum()
    w1, w2, v = (rt.torch_tensor(a) for a in mlp_data())

    def mlp(z):
        return w2.matmul(w1.matmul(z).tanh()).tanh()
    params, xs, ys = w2_data()
    ps = tuple(rt.torch_tensor(p) for p in params)
    xb, yb = rt.torch_tensor(xs), rt.torch_tensor(ys)

    def loss(W1, b1, W2, b2, W3, b3, xi, yi):
        h = rt.nnf_relu(rt.nnf_linear(xi, W1, b1))
        h = rt.nnf_relu(rt.nnf_linear(h, W2, b2))
        return rt.nnf_cross_entropy(rt.nnf_linear(h, W3, b3).unsqueeze(0), yi.unsqueeze(0))
    per_sample = rt.autograd_vmap(rt.autograd_grad_fn(loss, argnums=(0, 1, 2, 3, 4, 5)),
                                  in_dims=(None,) * 6 + (0, 0))
    ex, ey, ew = (rt.torch_tensor(a) for a in per_example_data())

    def ll(w, xi, yi):
        eta = (xi * w).sum()
        return yi * eta - rt.nnf_softplus(eta)
    vmap_hess = rt.autograd_vmap(rt.autograd_hessian_fn(ll), in_dims=(None, 0, 0))
    one_hess = rt.autograd_hessian_fn(ll)
    return {
        "vmap_hessian": lambda: vmap_hess(ew, ex, ey).numpy(),
        "looped_hessian": lambda: rt.torch_stack([one_hess(ew, ex[i], ey[i])
                                                  for i in range(ex.shape[0])]).numpy(),
        "hessian": lambda: rt.autograd_hessian(nll, br, vectorize=True).numpy(),
        "hessian_fn": lambda: rt.autograd_hessian_fn(nll)(br).numpy(),
        "jacfwd": lambda: rt.autograd_jacfwd(mlp)(v).numpy(),
        "jacobian_looped": lambda: rt.autograd_jacobian(mlp, v).numpy(),
        "per_sample": lambda: per_sample(*ps, xb, yb),
    }


def torch_cases(torch):
    from torch.func import grad, hessian, jacfwd, vmap
    fn = torch.nn.functional
    x, y, b = (torch.tensor(a) for a in logistic_data())

    def nll(beta):
        eta = x @ beta
        return (fn.softplus(eta) - y * eta).sum()
    w1, w2, v = (torch.tensor(a) for a in mlp_data())

    def mlp(z):
        return torch.tanh(w2 @ torch.tanh(w1 @ z))
    params, xs, ys = w2_data()
    ps = tuple(torch.tensor(p) for p in params)
    xb, yb = torch.tensor(xs), torch.tensor(ys)

    def loss(W1, b1, W2, b2, W3, b3, xi, yi):
        h = fn.relu(fn.linear(xi, W1, b1))
        h = fn.relu(fn.linear(h, W2, b2))
        return fn.cross_entropy(fn.linear(h, W3, b3).unsqueeze(0), yi.unsqueeze(0))
    per_sample = vmap(grad(loss, argnums=(0, 1, 2, 3, 4, 5)), in_dims=(None,) * 6 + (0, 0))
    ex, ey, ew = (torch.tensor(a) for a in per_example_data())

    def ll(w, xi, yi):
        eta = (xi * w).sum()
        return yi * eta - fn.softplus(eta)
    vmap_hess = vmap(hessian(ll), in_dims=(None, 0, 0))
    return {
        "vmap_hessian": lambda: vmap_hess(ew, ex, ey).numpy(),
        "hessian": lambda: hessian(nll)(b).numpy(),
        "jacfwd": lambda: jacfwd(mlp)(v).numpy(),
        "per_sample": lambda: per_sample(*ps, xb, yb),
    }


def _arrays(res):
    """A case's result as arrays, for the correctness check (outside the timed calls: the
    per-sample gradients are 100 MB, and rtorchpy's numpy() copies where PyTorch's shares)."""
    if isinstance(res, (tuple, list)):
        return [np.asarray(r.detach().numpy() if hasattr(r, "detach") else r) for r in res]
    return res


CASES = [  # (row label, rtorchpy case, PyTorch case, target text or None)
    ("Hessian, logistic p=200 n=1000: autograd_hessian(vectorize)", "hessian", "hessian",
     "W15 Hessian (logistic, 200 parameters, 1,000 obs) ≤ 2× torch.func.hessian"),
    ("Hessian, logistic: autograd_hessian_fn (forward-over-reverse)", "hessian_fn", "hessian",
     None),
    ("Jacobian, 100->100 tanh MLP: autograd_jacfwd", "jacfwd", "jacfwd",
     "W15 Jacobian of a 100->100 tanh MLP by jacfwd ≤ 2× torch.func.jacfwd"),
    ("Jacobian, tanh MLP: looped autograd_jacobian", "jacobian_looped", "jacfwd", None),
    ("Per-sample gradients, W2 MLP, batch 64: vmap(grad)", "per_sample", "per_sample",
     "W15 per-sample gradients (W2 MLP, batch 64) by vmap(grad) ≤ 2× PyTorch"),
    ("Per-example Hessians, logistic p=10 n=128: vmap(hessian_fn)", "vmap_hessian",
     "vmap_hessian", None),
    ("Per-example Hessians, logistic: loop over the examples", "looped_hessian",
     "vmap_hessian", None),
]


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (3, 1) if args.quick else (7, 2)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    mine = rtorchpy_cases()
    theirs = torch_cases(torch) if torch is not None else {}
    for key in theirs:  # correctness first, untimed: the same values
        a, b = _arrays(mine[key]()), _arrays(theirs[key]())
        for u, w in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
            np.testing.assert_allclose(u, w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mine["hessian_fn"](), mine["hessian"](), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(mine["vmap_hessian"](), mine["looped_hessian"](), rtol=1e-12,
                               atol=1e-12)
    rows, targets = [], []
    for label, mk, tk, target in CASES:
        fns = {"rtorchpy": mine[mk]}
        if tk in theirs:
            fns["torch"] = theirs[tk]
        res = _common.timeit(fns, repeat=repeat, number=number, warmup=1)
        for e, r in res.items():
            rows.append(_common.row(label, e, r["median"] * 1e3, "ms", min=r["min"] * 1e3,
                                    max=r["max"] * 1e3, samples=r["n"]))
        if target:
            if "torch" in res:
                ratio = res["rtorchpy"]["median"] / res["torch"]["median"]
                detail = (f"{res['rtorchpy']['median'] * 1e3:.1f} vs "
                          f"{res['torch']['median'] * 1e3:.1f} ms")
            else:
                ratio, detail = None, "PyTorch not installed"
            targets.append(_common.target(target, ratio, 2.0, detail))
    notes.append(f"interleaved in one process, {repeat} batches of {number} calls, median")
    _common.emit(args, "W15", rows, targets, notes,
                 description="torch.func-style transforms: Hessian, jacfwd, vmap(grad), "
                 "vmap(hessian)")


if __name__ == "__main__":
    main()
