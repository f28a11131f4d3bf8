"""W1 per-op overhead: a chain of 100 small elementwise ops, then sum and backward.

The chain is 20 rounds of (x * 0.9, x + b, sin, exp, tanh): a scalar and a tensor operand, and
three unary ops whose backward needs a saved input (sin) or output (exp, tanh). Values stay in
[-1, 1] → tanh(exp(sin(.))) ∈ (0.35, 1), so nothing overflows however long the chain.
Reported: µs per op = time for the whole chain / 100 (the final sum and backward included
in the forward+backward mode), for shapes (1,) and (4, 4), float32.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

ROUNDS, OPS_PER_ROUND = 20, 5
N_OPS = ROUNDS * OPS_PER_ROUND


def chain(x, b):
    """The same source for rtorchpy and PyTorch tensors."""
    for _ in range(ROUNDS):
        x = x * 0.9
        x = x + b
        x = x.sin()
        x = x.exp()
        x = x.tanh()
    return x


def np_forward(x, b):
    for _ in range(ROUNDS):
        x = np.tanh(np.exp(np.sin(x * 0.9 + b)))
    return x


def np_forward_tape(x, b):
    tape = []
    for _ in range(ROUNDS):
        x = x * 0.9
        x = x + b
        tape.append(x)           # sin saves its input
        x = np.sin(x)
        x = np.exp(x)
        tape.append(x)           # exp saves its output
        x = np.tanh(x)
        tape.append(x)           # tanh saves its output
    return x, tape


def np_backward(tape, shape, dtype):
    g = np.ones(shape, dtype)                 # d sum / d x
    for i in range(ROUNDS - 1, -1, -1):
        s_in, e_out, t_out = tape[3 * i], tape[3 * i + 1], tape[3 * i + 2]
        g = g * (1 - t_out * t_out)          # tanh
        g = g * e_out                        # exp
        g = g * np.cos(s_in)                 # sin
        g = g * 0.9                          # mul by scalar (the add passes g through)
    return g


def main():
    args = _common.parser(__doc__.splitlines()[0]).parse_args()
    import rtorchpy as rt
    torch, note = _common.load_torch()
    notes = [note] if note else []
    repeat, number = (5, 5) if args.quick else (15, 20)
    rows, targets = [], []
    rng = np.random.default_rng(0)
    for shape in [(1,), (4, 4)]:
        label = str(shape)
        x0 = rng.uniform(-1, 1, shape).astype(np.float32)
        b0 = rng.uniform(-0.1, 0.1, shape).astype(np.float32)

        rx = rt.torch_tensor(x0, requires_grad=True)
        rb = rt.torch_tensor(b0)

        def rt_nograd():
            with rt.with_no_grad():
                return chain(rx, rb)

        def rt_record():
            return chain(rx, rb)

        def rt_fwdbwd():
            rx.grad = None
            chain(rx, rb).sum().backward()

        def np_nograd():
            return np_forward(x0, b0)

        def np_record():
            return np_forward_tape(x0, b0)

        def np_fwdbwd():
            y, tape = np_forward_tape(x0, b0)
            y.sum()
            return np_backward(tape, shape, np.float32)

        modes = {
            "forward, no grad": {"rtorchpy": rt_nograd, "numpy": np_nograd},
            "forward, recording": {"rtorchpy": rt_record, "numpy": np_record},
            "forward+backward": {"rtorchpy": rt_fwdbwd, "numpy": np_fwdbwd},
        }
        if torch is not None:
            tx = torch.tensor(x0, requires_grad=True)
            tb = torch.tensor(b0)

            def t_nograd():
                with torch.no_grad():
                    return chain(tx, tb)

            def t_record():
                return chain(tx, tb)

            def t_fwdbwd():
                tx.grad = None
                chain(tx, tb).sum().backward()

            modes["forward, no grad"]["torch"] = t_nograd
            modes["forward, recording"]["torch"] = t_record
            modes["forward+backward"]["torch"] = t_fwdbwd

        # correctness and dtype before timing: the three engines agree, float32 throughout
        rt_fwdbwd()
        g_np = np_fwdbwd()
        assert rx.grad._data.dtype == np.float32 and g_np.dtype == np.float32
        np.testing.assert_allclose(rx.grad._data, g_np, rtol=1e-4, atol=1e-6)
        assert rt_nograd()._data.dtype == np.float32
        if torch is not None:
            t_fwdbwd()
            assert tx.grad.dtype == torch.float32
            np.testing.assert_allclose(tx.grad.numpy(), g_np, rtol=1e-4, atol=1e-6)

        per_mode = {}
        for mode, fns in modes.items():
            res = _common.timeit(fns, repeat=repeat, number=number, warmup=2)
            per_mode[mode] = res
            for eng, r in res.items():
                rows.append(_common.row(f"{label} {mode}", eng, r["median"] / N_OPS * 1e6,
                                        "µs/op", min=r["min"] / N_OPS * 1e6,
                                        max=r["max"] / N_OPS * 1e6))
        if torch is not None:
            fb = per_mode["forward+backward"]
            ratio = fb["rtorchpy"]["median"] / fb["torch"]["median"]
            targets.append(_common.target(
                f"W1 {label} forward+backward per op ≤ 0.5× PyTorch", ratio, 0.5,
                f"{fb['rtorchpy']['median'] / N_OPS * 1e6:.2f} vs "
                f"{fb['torch']['median'] / N_OPS * 1e6:.2f} µs/op"))
        else:
            targets.append(_common.target(
                f"W1 {label} forward+backward per op ≤ 0.5× PyTorch", None, 0.5,
                "PyTorch not installed"))
    _common.emit(args, "W1", rows, targets, notes,
                 description="per-op overhead, chain of 100 ops (mul, add, sin, exp, tanh)")


if __name__ == "__main__":
    main()
