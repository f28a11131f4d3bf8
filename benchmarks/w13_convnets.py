"""W13 Convolutional networks: a LeNet-5 training step, a 1-D convnet training step and one
large ``conv2d`` forward, rtorchpy against PyTorch.

* LeNet-5: batch 64 of 1x28x28 float32 images, ``conv 6@5x5 - relu - max_pool 2 - conv
  16@5x5 - relu - max_pool 2 - flatten - linear 120 - relu - linear 84 - relu - linear 10``,
  cross-entropy, ``optim_sgd(lr = 0.01)``; a step is ``zero_grad``, loss, backward, step.
* 1-D convnet: batch 32, 16 channels, length 1,000; three ``conv1d(16, 16, 9, padding = 4)`` +
  relu layers, the mean over the length, ``linear(16, 10)``, cross-entropy, SGD.
* conv2d forward: input (32, 64, 56, 56), 64 filters 3x3, padding 1, float32, no graph.

Both engines start from the same weights and data and are checked to agree (three steps'
losses, the forward's values) before timing; engines are interleaved in one process. Targets:
each ≤ 2× PyTorch (median over rounds of the paired ratio).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import statistics

import numpy as np

LR = 0.01


def lenet_data(rng, batch=64):
    return (rng.standard_normal((batch, 1, 28, 28)).astype(np.float32),
            rng.integers(0, 10, batch).astype(np.int64))


def conv1d_data(rng, batch=32):
    return (rng.standard_normal((batch, 16, 1000)).astype(np.float32),
            rng.integers(0, 10, batch).astype(np.int64))


def lenet_layers(nn, kind):
    """The layer list with ``nn`` = rtorchpy (R torch's names) or torch.nn."""
    if kind == "rt":
        return [nn.nn_conv2d(1, 6, 5), nn.nn_relu(), nn.nn_max_pool2d(2), nn.nn_conv2d(6, 16, 5),
                nn.nn_relu(), nn.nn_max_pool2d(2), nn.nn_flatten(), nn.nn_linear(256, 120),
                nn.nn_relu(), nn.nn_linear(120, 84), nn.nn_relu(), nn.nn_linear(84, 10)]
    return [nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84),
            nn.ReLU(), nn.Linear(84, 10)]



def rtorchpy_step(make_layers, x, y, weights, mean_last=False):
    import rtorchpy as rt
    layers = make_layers(rt, "rt")
    model = rt.nn_sequential(*layers)
    ps = list(model.parameters.values())
    with rt.with_no_grad():
        for p, w in zip(ps, weights):
            p.copy_(rt.torch_tensor(w))
    xs, ys = rt.torch_tensor(x), rt.torch_tensor(y)
    head = rt.nn_linear(16, 10) if mean_last else None
    if head is not None:
        with rt.with_no_grad():
            head.weight.copy_(rt.torch_tensor(weights[-2]))
            head.bias.copy_(rt.torch_tensor(weights[-1]))
        ps += [head.weight, head.bias]
    loss_fn = rt.nn_cross_entropy_loss()
    opt = rt.optim_sgd(ps, lr=LR)

    def step():
        opt.zero_grad()
        out = model(xs)
        if head is not None:
            out = head(out.mean(dim=2))
        loss = loss_fn(out, ys)
        loss.backward()
        opt.step()
        return float(loss.item())
    return step


def torch_step(torch, make_layers, x, y, weights, mean_last=False):
    layers = make_layers(torch.nn, "torch")
    model = torch.nn.Sequential(*layers)
    ps = list(model.parameters())
    with torch.no_grad():
        for p, w in zip(ps, weights):
            p.copy_(torch.from_numpy(w))
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    head = torch.nn.Linear(16, 10) if mean_last else None
    if head is not None:
        with torch.no_grad():
            head.weight.copy_(torch.from_numpy(weights[-2]))
            head.bias.copy_(torch.from_numpy(weights[-1]))
        ps += [head.weight, head.bias]
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(ps, lr=LR)

    def step():
        opt.zero_grad()
        out = model(xs)
        if head is not None:
            out = head(out.mean(dim=2))
        loss = loss_fn(out, ys)
        loss.backward()
        opt.step()
        return float(loss.item())
    return step


def conv1d_layers(nn, kind):
    if kind == "rt":
        out = []
        for _ in range(3):
            out += [nn.nn_conv1d(16, 16, 9, padding=4), nn.nn_relu()]
        return out
    out = []
    for _ in range(3):
        out += [nn.Conv1d(16, 16, 9, padding=4), nn.ReLU()]
    return out


def initial_weights(rng, make_layers, extra=()):
    """Weights for every parameter, in the order the modules list them (from rtorchpy's own
    initialization, so both engines start alike)."""
    import rtorchpy as rt
    model = rt.nn_sequential(*make_layers(rt, "rt"))
    ws = [p._data.copy() for p in model.parameters.values()]
    return ws + [rng.uniform(-0.25, 0.25, s).astype(np.float32) for s in extra]


def paired(res, a, b):
    return statistics.median(x / y for x, y in zip(res[a]["samples"], res[b]["samples"]))


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 1) if args.quick else (21, 2)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    rng = np.random.default_rng(0)
    rows, targets = [], []

    # ---- training steps
    cases = [("LeNet-5 training step (batch 64)", lenet_layers, lenet_data(rng), False, ()),
             ("1-D convnet training step (32x16x1000, k=9, 3 layers)", conv1d_layers,
              conv1d_data(rng), True, ((10, 16), (10,)))]
    for case, layers, (x, y), mean_last, extra in cases:
        weights = initial_weights(rng, layers, extra)
        steps = {"rtorchpy": rtorchpy_step(layers, x, y, weights, mean_last)}
        if torch is not None:
            steps["torch"] = torch_step(torch, layers, x, y, weights, mean_last)
            # correctness: three steps from the same start agree
            check = {"rtorchpy": rtorchpy_step(layers, x, y, weights, mean_last),
                     "torch": torch_step(torch, layers, x, y, weights, mean_last)}
            losses = {k: [f() for _ in range(3)] for k, f in check.items()}
            np.testing.assert_allclose(losses["rtorchpy"], losses["torch"], rtol=1e-3,
                                       err_msg=case)
        res = _common.timeit(steps, repeat=repeat, number=number, warmup=2)
        rows += [_common.row(case, e, r["median"] * 1e3, "ms/step", min=r["min"] * 1e3,
                             max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
        short = "LeNet-5 step" if case.startswith("LeNet") else "1-D convnet step"
        if torch is not None:
            targets.append(_common.target(
                f"W13 {short} ≤ 2× PyTorch", paired(res, "rtorchpy", "torch"), 2.0,
                f"paired median; medians {res['rtorchpy']['median'] * 1e3:.2f} vs "
                f"{res['torch']['median'] * 1e3:.2f} ms/step"))
        else:  # (not measured: the target still shows, as the other workloads' do)
            targets.append(_common.target(f"W13 {short} ≤ 2× PyTorch", None, 2.0,
                                          "PyTorch not installed"))

    # ---- one large forward
    import rtorchpy as rt
    size = (8, 64, 56, 56) if args.quick else (32, 64, 56, 56)
    x = rng.standard_normal(size).astype(np.float32)
    w = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
    rx, rw = rt.torch_tensor(x), rt.torch_tensor(w)
    fns = {"rtorchpy": lambda: rt.nnf_conv2d(rx, rw, padding=1)}
    if torch is not None:
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        fns["torch"] = lambda: torch.nn.functional.conv2d(tx, tw, padding=1)
        np.testing.assert_allclose(fns["rtorchpy"]()._data, fns["torch"]().numpy(), rtol=1e-3,
                                   atol=1e-4)
    res = _common.timeit(fns, repeat=max(repeat // 2, 3), number=1, warmup=1)
    case = f"conv2d forward {size} * (64, 64, 3, 3), padding 1"
    rows += [_common.row(case, e, r["median"] * 1e3, "ms", min=r["min"] * 1e3,
                         max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
    if torch is None:
        targets.append(_common.target("W13 conv2d forward (32, 64, 56, 56) * 64 3x3 ≤ 2× "
                                      "PyTorch", None, 2.0, "PyTorch not installed"))
    else:
        targets.append(_common.target(
            "W13 conv2d forward (32, 64, 56, 56) * 64 3x3 ≤ 2× PyTorch",
            paired(res, "rtorchpy", "torch"), 2.0,
            f"paired median; medians {res['rtorchpy']['median'] * 1e3:.1f} vs "
            f"{res['torch']['median'] * 1e3:.1f} ms" + (" (quick: batch 8)" if args.quick else
                                                         "")))
    notes.append("engines interleaved in one process; both start from the same weights and "
                 "agree on three steps' losses (and the forward's values) before timing")
    _common.emit(args, "W13", rows, targets, notes,
                 description="LeNet-5 and 1-D convnet training steps, conv2d forward")


if __name__ == "__main__":
    main()
