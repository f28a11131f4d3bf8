"""W8 W2 with modules: the W2 training step written as a user of ``nn_module`` and ``optim_*``
would write it, against the hand-written W2 step, both rtorchpy.

* rtorchpy nn: ``nn_sequential(nn_linear(784, 512), nn_relu(), nn_linear(512, 512), nn_relu(),
  nn_linear(512, 10))``, ``nn_cross_entropy_loss()``, ``optim_sgd(lr = 0.01)``; a step is
  ``opt.zero_grad()`` (R torch's default: gradients zeroed in place), loss, ``backward()``,
  ``opt.step()``.
* rtorchpy by hand: W2's step (``nnf_linear``/``nnf_relu``/``nnf_cross_entropy``, then
  ``p.sub_(p.grad, alpha = lr)`` under ``with_no_grad()`` and ``p.grad = None``).
* PyTorch nn (for information): the same ``nn.Sequential`` with ``torch.optim.SGD`` (its
  ``zero_grad()`` sets gradients to None).

Both rtorchpy variants start from the same weights and data as W2 (batch 256, float32); the
engines are interleaved in one process (same buffer sizes on both sides, so malloc's state is
shared fairly). Target: the module version within 1.05x of the hand-written step.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

from w2_mlp import LR, SIZES, make_data, rtorchpy_engine, torch_engine


def rtorchpy_modules(x, y, params, set_to_none=False):
    import rtorchpy as rt
    xs, ys = rt.torch_tensor(x), rt.torch_tensor(y)
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(rt.nn_linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(rt.nn_relu())
    model = rt.nn_sequential(*layers)
    ps = list(model.parameters.values())
    with rt.with_no_grad():
        for p, a in zip(ps, params):
            p.copy_(rt.torch_tensor(a))
    loss_fn = rt.nn_cross_entropy_loss()
    opt = rt.optim_sgd(ps, lr=LR)

    def step():
        opt.zero_grad(set_to_none=set_to_none)
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()
        return loss
    return step, ps


def torch_modules(x, y, params, torch):
    xs, ys = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(torch.nn.Linear(fan_in, fan_out))
        if i < len(SIZES) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    ps = list(model.parameters())
    with torch.no_grad():
        for p, a in zip(ps, params):
            p.copy_(torch.from_numpy(a))
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(ps, lr=LR)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()
        return loss
    return step, ps


def timeit_wall_and_cpu(fns, repeat, number, warmup):
    """As ``_common.timeit`` (engines interleaved, order rotating), recording per batch both
    the wall time and this process's CPU time: ({engine: summary}, {engine: summary})."""
    import gc
    import time
    _common.freeze()
    names = list(fns)
    wall = {n: [] for n in names}
    cpu = {n: [] for n in names}
    for r in range(warmup + repeat):
        for n in names[r % len(names):] + names[:r % len(names)]:
            fn = fns[n]
            gc.collect()
            c0, t0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            t1, c1 = time.perf_counter(), time.process_time()
            if r >= warmup:
                wall[n].append((t1 - t0) / number)
                cpu[n].append((c1 - c0) / number)
    return ({n: _common.summarize(s) for n, s in wall.items()},
            {n: _common.summarize(s) for n, s in cpu.items()})


def paired_ratio(res, a, b):
    """Median over rounds of engine a's time divided by engine b's in the same round."""
    import statistics
    return statistics.median(x / y for x, y in zip(res[a]["samples"], res[b]["samples"]))


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") and not hasattr(t, "_data") else t._data


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 2) if args.quick else (31, 3)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    x, y, params = make_data()
    builders = {"rtorchpy nn": lambda: rtorchpy_modules(x, y, params),
                "rtorchpy nn, set_to_none": lambda: rtorchpy_modules(x, y, params, True),
                "rtorchpy by hand": lambda: rtorchpy_engine(x, y, params)[::2]}
    if torch is not None:
        builders["torch nn"] = lambda: torch_modules(x, y, params, torch)
        builders["torch by hand"] = lambda: torch_engine(x, y, params, torch)[::2]

    # correctness: three steps from the same start give the same losses and weights
    ref = None
    for name, build in builders.items():
        step, ps = build()
        losses = [float(_np(step())) for _ in range(3)]
        weights = [_np(q).copy() for q in ps]
        assert all(w.dtype == np.float32 for w in weights), name
        if ref is None:
            ref = (losses, weights)
            continue
        np.testing.assert_allclose(losses, ref[0], rtol=1e-4, err_msg=name)
        for w, r in zip(weights, ref[1]):
            np.testing.assert_allclose(w, r, rtol=1e-3, atol=1e-5, err_msg=name)

    steps = {name: build()[0] for name, build in builders.items()}
    res, cpu = timeit_wall_and_cpu(steps, repeat=repeat, number=number, warmup=2)
    rows = [_common.row("step time", e, r["median"] * 1e3, "ms/step", min=r["min"] * 1e3,
                        max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
    rows += [_common.row("CPU time per step", e, r["median"] * 1e3, "ms/step",
                         min=r["min"] * 1e3, max=r["max"] * 1e3, samples=r["n"])
             for e, r in cpu.items()]
    # the target: the median over rounds of the paired ratio (each round runs every engine
    # once, back to back), which a shared machine's slow spells disturb less than a ratio of
    # medians
    wall = paired_ratio(res, "rtorchpy nn", "rtorchpy by hand")
    cpu_ratio = paired_ratio(cpu, "rtorchpy nn", "rtorchpy by hand")
    a, b = res["rtorchpy nn"]["median"], res["rtorchpy by hand"]["median"]
    targets = [_common.target("W8 W2 step with nn_sequential + optim_sgd ≤ 1.05× W2 by hand",
                              wall, 1.05,
                              f"paired median; medians {a * 1e3:.2f} vs {b * 1e3:.2f} ms/step; "
                              f"CPU time paired {cpu_ratio:.3f}×")]
    notes.append(f"engines interleaved in one process, {repeat} rounds of {number} steps each; "
                 "all start from W2's weights and agree on 3 steps' losses and weights")
    notes.append("target: median over rounds of the paired ratio (wall time); CPU time "
                 "(process_time) shown too, less sensitive to other processes")
    notes.append("rtorchpy nn: opt.zero_grad() zeroes gradients in place (R torch's default); "
                 "set_to_none: zero_grad(set_to_none=True), as PyTorch's default and W2 by hand")
    _common.emit(args, "W8", rows, targets, notes,
                 description="W2's step written with nn_sequential, nn_cross_entropy_loss and "
                             "optim_sgd, against W2's hand-written step")


if __name__ == "__main__":
    main()
