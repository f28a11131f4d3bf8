"""Time one optimizer step over an MLP's parameters: rtorchpy vs PyTorch (when installed).

    python benchmarks/bench_optim.py [--threads N]

Gradients are set once (random); each timed call is ``opt.step()`` alone. The two libraries'
runs alternate, and each reports its best of 15 repeats (the machine may be shared), in
microseconds per step, for a small and a larger MLP (float32).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import rtorchpy as r

MLPS = {"small (10-64-64-1)": [10, 64, 64, 1], "mnist (784-256-10)": [784, 256, 10]}
OPTS = [("optim_adam", "Adam", {"lr": 1e-3}), ("optim_adamw", "AdamW", {"lr": 1e-3}),
        ("optim_sgd", "SGD", {"lr": 0.01, "momentum": 0.9}),
        ("optim_rmsprop", "RMSprop", {"lr": 1e-3})]


def shapes(sizes):
    out = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        out += [(b, a), (b,)]
    return out


def timeit(fns, number, repeat=15):
    """Best time per call of each function, in microseconds, their repeats interleaved."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            out.append((time.perf_counter() - t0) / number)
    return [min(t) * 1e6 for t in times]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    try:
        import torch
        if args.threads:
            torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    for mlp, sizes in MLPS.items():
        arrays = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in shapes(sizes)]
        grads = [rng.standard_normal(a.shape).astype(np.float32) * 0.01 for a in arrays]
        number = 200 if sizes[0] < 100 else 30
        for name, tname, kw in OPTS:
            rp = [r.torch_tensor(a, requires_grad=True) for a in arrays]
            for p, g in zip(rp, grads):
                p.grad = r.torch_tensor(g)
            ro = getattr(r, name)(rp, **kw)
            if torch is None:
                ours, = timeit([ro.step], number)
                print(f"{mlp:20s} {name:14s} rtorchpy {ours:9.1f} us")
                continue
            tp = [torch.tensor(a, requires_grad=True) for a in arrays]
            for p, g in zip(tp, grads):
                p.grad = torch.tensor(g)
            to = getattr(torch.optim, tname)(tp, **kw)
            ours, theirs = timeit([ro.step, to.step], number)
            line = f"{mlp:20s} {name:14s} rtorchpy {ours:9.1f} us"
            line += f"   torch {theirs:9.1f} us   ratio {ours / theirs:5.2f}"
            print(line)


if __name__ == "__main__":
    main()
