"""W10 random numbers: ``torch_randn(10^6)`` (float32 and float64) after a seed, against
``torch.randn``.

rtorchpy draws libtorch's numbers: mt19937 words from NumPy's ``MT19937`` (its state set as
libtorch seeds it), 24-bit float32 (53-bit float64) uniforms, then Box-Muller in blocks of 16.
float32 replays libtorch's AVX2 polynomial logarithm and sine/cosine in array operations
specialised to the sampler's 2^24 possible inputs (``numerics/box_muller32.py``); float64 gives
the C library's log/sin/cos bits (``numerics/libm.py``). PyTorch runs the same in C++. Both
seeded with the same seed before each call is timed, and the results checked equal bit for bit
first. Engines interleaved in one process. Target: within 2x of PyTorch, each dtype.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

N = 10 ** 6


def build(engine, double):
    if engine == "rtorchpy":
        import rtorchpy as rt
        dt = rt.torch_float64() if double else rt.torch_float32()

        def draw():
            rt.torch_manual_seed(1)
            return rt.torch_randn(N, dtype=dt)
        return draw, lambda t: t.numpy()
    torch, _ = _common.load_torch()
    dt = torch.float64 if double else torch.float32

    def draw():
        torch.manual_seed(1)
        return torch.randn(N, dtype=dt)
    return draw, lambda t: t.numpy()


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 2) if args.quick else (21, 5)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    engines = ["rtorchpy"] + (["torch"] if torch is not None else [])
    rows, targets = [], []
    for double, label in ((False, "float32"), (True, "float64")):
        fns = {e: build(e, double) for e in engines}
        if "torch" in fns:
            ours, theirs = (fns[e][1](fns[e][0]()) for e in ("rtorchpy", "torch"))
            np.testing.assert_array_equal(ours, theirs)
        res = _common.timeit({e: f for e, (f, _) in fns.items()}, repeat=repeat, number=number,
                             warmup=1)
        rows += [_common.row(f"torch_randn(10^6), {label}, seeded", e, r["median"] * 1e3, "ms",
                             min=r["min"] * 1e3, max=r["max"] * 1e3, samples=r["n"])
                 for e, r in res.items()]
        if "torch" in res:
            a, b = res["rtorchpy"]["median"], res["torch"]["median"]
            ratio, detail = a / b, f"{a * 1e3:.1f} vs {b * 1e3:.1f} ms"
        else:
            ratio, detail = None, "PyTorch not installed"
        targets.append(_common.target(f"W10 torch_randn(10^6) {label} ≤ 2× PyTorch", ratio, 2.0,
                                      detail))
    notes.append(f"engines interleaved in one process, {repeat} batches of {number} calls, "
                 "median; seed set inside each call; results checked equal bit for bit")
    _common.emit(args, "W10", rows, targets, notes,
                 description="torch_randn(10^6) float32 and float64 after torch_manual_seed(1)")


if __name__ == "__main__":
    main()
