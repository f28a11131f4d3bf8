"""W9 Adam step: one ``optim_adam`` step over the parameters of W2's MLP (784-512-512-10,
669,706 float32 values in six tensors), against ``torch.optim.Adam``.

Gradients are set once (random, fixed seed) and each timed call is ``opt.step()`` alone, so
this measures the update itself: per parameter, rtorchpy runs NumPy's in-place ufuncs
(lerp of the first moment, the second moment, sqrt, bias corrections, the division) over
reused scratch buffers; PyTorch (CPU) runs its single-tensor loop of ATen kernels (the
``foreach`` and ``fused`` paths are its CUDA defaults). Engines interleaved in one process.
Target: within 1.2x of PyTorch.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

from w2_mlp import SIZES

LR = 1e-3


def arrays(seed=0):
    rng = np.random.default_rng(seed)
    params, grads = [], []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        for shape in ((fan_out, fan_in), (fan_out,)):
            params.append(rng.uniform(-0.05, 0.05, shape).astype(np.float32))
            grads.append((rng.standard_normal(shape) * 0.01).astype(np.float32))
    return params, grads


def build(engine, params, grads):
    if engine == "rtorchpy":
        import rtorchpy as rt
        ps = [rt.torch_tensor(p, requires_grad=True) for p in params]
        for p, g in zip(ps, grads):
            p.grad = rt.torch_tensor(g)
        opt = rt.optim_adam(ps, lr=LR)
        return opt.step, lambda: [p._data.copy() for p in ps]
    torch, _ = _common.load_torch()
    ps = [torch.tensor(p, requires_grad=True) for p in params]
    for p, g in zip(ps, grads):
        p.grad = torch.tensor(g)
    opt = torch.optim.Adam(ps, lr=LR)
    return opt.step, lambda: [p.detach().numpy().copy() for p in ps]


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 5) if args.quick else (21, 10)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    params, grads = arrays()
    engines = ["rtorchpy"] + (["torch"] if torch is not None else [])

    # correctness: five steps from the same start give the same parameters, float32 kept
    ref = None
    for e in engines:
        step, values = build(e, params, grads)
        for _ in range(5):
            step()
        got = values()
        assert all(v.dtype == np.float32 for v in got), e
        if ref is None:
            ref = got
        for v, r in zip(got, ref):
            np.testing.assert_allclose(v, r, rtol=1e-5, atol=1e-7, err_msg=e)

    steps = {e: build(e, params, grads)[0] for e in engines}
    res = _common.timeit(steps, repeat=repeat, number=number, warmup=2)
    rows = [_common.row("Adam step, 784-512-512-10", e, r["median"] * 1e6, "µs/step",
                        min=r["min"] * 1e6, max=r["max"] * 1e6, samples=r["n"])
            for e, r in res.items()]
    if "torch" in res:
        a, b = res["rtorchpy"]["median"], res["torch"]["median"]
        ratio, detail = a / b, f"{a * 1e6:.0f} vs {b * 1e6:.0f} µs/step"
    else:
        ratio, detail = None, "PyTorch not installed"
    targets = [_common.target("W9 Adam step over the W2 MLP's parameters ≤ 1.2× PyTorch",
                              ratio, 1.2, detail)]
    notes.append(f"engines interleaved in one process, {repeat} batches of {number} steps, "
                 "median; gradients fixed, 5 steps checked equal first")
    _common.emit(args, "W9", rows, targets, notes,
                 description="one optim_adam step over W2's MLP parameters (float32), "
                             "gradients fixed")


if __name__ == "__main__":
    main()
