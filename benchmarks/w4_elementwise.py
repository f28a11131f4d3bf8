"""W4 large elementwise: (x*x + 3*x + 2).sum() on a (2000, 2000) float32 tensor, forward+backward.

Memory-bandwidth bound: every op streams 16 MB. NumPy by hand computes the forward as written
and the hand-derived gradient 2*x + 3. Also reported: the forward alone, recording.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

SHAPE = (2000, 2000)


def main():
    args = _common.parser(__doc__.splitlines()[0]).parse_args()
    import rtorchpy as rt
    torch, note = _common.load_torch()
    notes = [note] if note else []
    x0 = np.random.default_rng(0).uniform(-1, 1, SHAPE).astype(np.float32)

    rx = rt.torch_tensor(x0, requires_grad=True)

    def rt_fwd():
        return (rx * rx + 3 * rx + 2).sum()

    def rt_fwdbwd():
        rx.grad = None
        (rx * rx + 3 * rx + 2).sum().backward()

    def np_fwd():
        return (x0 * x0 + 3 * x0 + 2).sum()

    def np_fwdbwd():
        s = (x0 * x0 + 3 * x0 + 2).sum()
        gx = 2 * x0 + 3
        return s, gx

    modes = {"forward, recording": {"rtorchpy": rt_fwd, "numpy": np_fwd},
             "forward+backward": {"rtorchpy": rt_fwdbwd, "numpy": np_fwdbwd}}
    if torch is not None:
        tx = torch.tensor(x0, requires_grad=True)

        def t_fwd():
            return (tx * tx + 3 * tx + 2).sum()

        def t_fwdbwd():
            tx.grad = None
            (tx * tx + 3 * tx + 2).sum().backward()

        modes["forward, recording"]["torch"] = t_fwd
        modes["forward+backward"]["torch"] = t_fwdbwd

    rt_fwdbwd()
    s, gx = np_fwdbwd()
    assert rx.grad._data.dtype == np.float32 and gx.dtype == np.float32
    assert rt_fwd()._data.dtype == np.float32 and s.dtype == np.float32
    np.testing.assert_allclose(rx.grad._data, gx, rtol=1e-6)
    if torch is not None:
        t_fwdbwd()
        assert tx.grad.dtype == torch.float32
        np.testing.assert_allclose(tx.grad.numpy(), gx, rtol=1e-6)

    repeat, number = (5, 1) if args.quick else (15, 2)
    rows, res = [], {}
    for mode, fns in modes.items():
        res[mode] = _common.timeit(fns, repeat=repeat, number=number, warmup=2)
        for e, r in res[mode].items():
            rows.append(_common.row(mode, e, r["median"] * 1e3, "ms", min=r["min"] * 1e3,
                                    max=r["max"] * 1e3))
    fb = res["forward+backward"]
    targets = [_common.target("W4 forward+backward ≤ 1.1× NumPy by hand",
                              fb["rtorchpy"]["median"] / fb["numpy"]["median"], 1.1,
                              f"{fb['rtorchpy']['median'] * 1e3:.2f} vs "
                              f"{fb['numpy']['median'] * 1e3:.2f} ms")]
    _common.emit(args, "W4", rows, targets, notes,
                 description="(x*x + 3*x + 2).sum() on (2000, 2000) float32, forward+backward")


if __name__ == "__main__":
    main()
