"""W4 large elementwise: (x*x + 3*x + 2).sum() on a (2000, 2000) float32 tensor, forward+backward.

Memory-bandwidth bound: every op streams 16 MB. NumPy by hand computes the forward as written
and the hand-derived gradient 2*x + 3. Also reported: the forward alone, recording.
Each engine is timed in processes of its own (3 rounds, samples pooled): with 16 MB
temporaries, glibc malloc's adaptive mmap threshold would otherwise let one engine's frees
decide whether another's allocations page-fault (see ``_common.run_isolated``).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import os

import numpy as np

# processes per engine: the step time depends on the address-space layout the process draws
# (ASLR; see _common.run_isolated), so sample several
ROUNDS = 7

SHAPE = (2000, 2000)
MODES = ("forward, recording", "forward+backward")


def data():
    return np.random.default_rng(0).uniform(-1, 1, SHAPE).astype(np.float32)


def build(engine, x0):
    """{mode: fn} for one engine, and a function returning (loss, grad) as ndarrays."""
    if engine == "numpy":
        def fwd():
            return (x0 * x0 + 3 * x0 + 2).sum()

        def fwdbwd():
            s = (x0 * x0 + 3 * x0 + 2).sum()
            gx = 2 * x0 + 3
            return s, gx
        return {MODES[0]: fwd, MODES[1]: fwdbwd}, fwdbwd

    if engine == "rtorchpy":
        import rtorchpy as rt
        x = rt.torch_tensor(x0, requires_grad=True)
        grad = lambda: x.grad._data  # noqa: E731
        loss_dtype = lambda y: y._data.dtype  # noqa: E731
    else:
        torch, _ = _common.load_torch()
        x = torch.tensor(x0, requires_grad=True)
        grad = lambda: x.grad.numpy()  # noqa: E731
        loss_dtype = lambda y: y.detach().numpy().dtype  # noqa: E731

    def fwd():
        return (x * x + 3 * x + 2).sum()

    def fwdbwd():
        x.grad = None
        (x * x + 3 * x + 2).sum().backward()

    def check():
        fwdbwd()
        return loss_dtype(fwd()), grad()
    return {MODES[0]: fwd, MODES[1]: fwdbwd}, check


def main():
    p = _common.parser(__doc__.splitlines()[0])
    p.add_argument("--engine", default=None, help="internal: time one engine")
    args = p.parse_args()
    repeat, number = (5, 1) if args.quick else (3, 2)
    x0 = data()
    if args.engine:
        fns, _ = build(args.engine, x0)
        _common.child_emit({m: _common.timeit({args.engine: f}, repeat=repeat, number=number,
                                              warmup=2) for m, f in fns.items()})
        return
    torch, note = _common.load_torch()
    notes = [note] if note else []
    engines = ["rtorchpy", "numpy"] + (["torch"] if torch is not None else [])

    # correctness and dtypes, all engines side by side (untimed)
    s, gx = build("numpy", x0)[1]()
    assert s.dtype == np.float32 and gx.dtype == np.float32
    for e in engines[:1] + engines[2:]:
        dt, g = build(e, x0)[1]()
        assert dt == np.float32 and g.dtype == np.float32, (e, dt, g.dtype)
        np.testing.assert_allclose(g, gx, rtol=1e-6)

    res = _common.run_isolated(os.path.abspath(__file__), engines, 1 if args.quick else ROUNDS,
                               ["--quick"] if args.quick else [])
    rows = []
    for mode in MODES:
        for e in engines:
            r = res[e][mode]
            rows.append(_common.row(mode, e, r["median"] * 1e3, "ms", min=r["min"] * 1e3,
                                    max=r["max"] * 1e3, samples=r["n"]))
    fb = {e: res[e]["forward+backward"]["median"] for e in engines}
    targets = [_common.target("W4 forward+backward ≤ 1.1× NumPy by hand",
                              fb["rtorchpy"] / fb["numpy"], 1.1,
                              f"{fb['rtorchpy'] * 1e3:.2f} vs {fb['numpy'] * 1e3:.2f} ms")]
    notes.append("each engine timed in its own processes (7 rounds × 3 batches, pooled "
                 "median; --quick: 1 round)")
    _common.emit(args, "W4", rows, targets, notes,
                 description="(x*x + 3*x + 2).sum() on (2000, 2000) float32, forward+backward")


if __name__ == "__main__":
    main()
