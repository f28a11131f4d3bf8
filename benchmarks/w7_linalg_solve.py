"""W7 linear solve: ``linalg_solve(A, B).sum()`` forward+backward for a (64, 64) ``A`` and
``B``, in float32 (R torch's default dtype) and float64.

The backward is libtorch's: ``gB = solve(A^T, g)``, ``gA = -gB X^T``. PyTorch solves the
backward with the LU factors it kept from the forward; rtorchpy (NumPy has no LU routine)
factorizes ``A^T`` again, so it does about twice PyTorch's LAPACK work: at this size the
per-call overhead still dominates. NumPy by hand does what rtorchpy does, without autograd.
Engines are interleaved in one process. Target: rtorchpy within 1.5x of PyTorch (float32).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

N = 64
DTYPES = ("float32", "float64")


def data(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((N, N)) + N ** 0.5 * np.eye(N)).astype(dtype)
    b = rng.standard_normal((N, N)).astype(dtype)
    return a, b


def build(engine, a0, b0):
    """The timed function (forward+backward) and one returning (gA, gB) as ndarrays."""
    if engine == "numpy":
        ones = np.ones_like(b0)

        def step():
            x = np.linalg.solve(a0, b0)
            gb = np.linalg.solve(a0.T, ones)
            return -gb @ x.T, gb
        return step, step

    if engine == "rtorchpy":
        import rtorchpy as rt
        a = rt.torch_tensor(a0, requires_grad=True)
        b = rt.torch_tensor(b0, requires_grad=True)
        solve = rt.linalg_solve
        to_np = lambda t: t._data  # noqa: E731
    else:
        torch, _ = _common.load_torch()
        a = torch.tensor(a0, requires_grad=True)
        b = torch.tensor(b0, requires_grad=True)
        solve = torch.linalg.solve
        to_np = lambda t: t.numpy()  # noqa: E731

    def step():
        a.grad = b.grad = None
        solve(a, b).sum().backward()

    def grads():
        step()
        return to_np(a.grad), to_np(b.grad)
    return step, grads


def main():
    p = _common.parser(__doc__.splitlines()[0])
    args = p.parse_args()
    repeat, number = (5, 20) if args.quick else (15, 50)
    torch, note = _common.load_torch()
    notes = [note] if note else []
    engines = ["rtorchpy", "numpy"] + (["torch"] if torch is not None else [])
    rows, targets = [], []
    for dtype in DTYPES:
        a0, b0 = data(dtype)
        steps, checks = {}, {}
        for e in engines:
            steps[e], checks[e] = build(e, a0, b0)
        # correctness, all engines side by side (untimed): same gradients, dtype kept
        ref_a, ref_b = checks["numpy"]()
        tol = 1e-4 if dtype == "float32" else 1e-10
        for e in engines:
            ga, gb = checks[e]()
            assert ga.dtype == np.dtype(dtype) and gb.dtype == np.dtype(dtype), (e, ga.dtype)
            np.testing.assert_allclose(ga, ref_a, rtol=tol, atol=tol)
            np.testing.assert_allclose(gb, ref_b, rtol=tol, atol=tol)
        res = _common.timeit(steps, repeat=repeat, number=number, warmup=2)
        case = f"{dtype} forward+backward"
        for e in engines:
            r = res[e]
            rows.append(_common.row(case, e, r["median"] * 1e6, "µs", min=r["min"] * 1e6,
                                    max=r["max"] * 1e6, samples=r["n"]))
        if dtype == "float32":
            if "torch" in res:
                ratio = res["rtorchpy"]["median"] / res["torch"]["median"]
                detail = (f"{res['rtorchpy']['median'] * 1e6:.0f} vs "
                          f"{res['torch']['median'] * 1e6:.0f} µs")
            else:
                ratio, detail = None, "PyTorch not installed"
            targets.append(_common.target("W7 linalg_solve (64x64 float32) forward+backward "
                                          "≤ 1.5× PyTorch", ratio, 1.5, detail))
    notes.append(f"interleaved in one process, {repeat} batches of {number} calls, median")
    _common.emit(args, "W7", rows, targets, notes,
                 description="linalg_solve(A, B).sum() with A, B (64, 64), forward+backward")


if __name__ == "__main__":
    main()
