"""W3 deep graph: chains of 10^4, 10^5 and 10^6 tiny ops on a (1,) float32 tensor, then backward.

The chain alternates ``y * 0.5`` and ``y + 0.5`` (bounded: y stays in [0, 1]); the backward
walks the whole chain, so a recursive engine would hit Python's recursion limit. Reported:
µs per op for the forward (recording), the backward, and both; the per-op time should not grow
with the length. 10^6 is measured once (no repeats); the smaller lengths take the median of
several runs. Each engine and length runs in processes of its own, in rounds (Python's full garbage
collections walk every live object, so one engine's imports or graph would tax another's).
Garbage collection stays on, as users have it.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import gc
import json
import os
import subprocess
import sys
import time

import numpy as np


def chain(y, n):
    for _ in range(n // 2):
        y = y * 0.5
        y = y + 0.5
    return y


def _rss():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def run_rtorchpy(n):
    import rtorchpy as rt
    x = rt.torch_tensor(np.array([0.3], np.float32), requires_grad=True)
    r0 = _rss()
    t0 = time.perf_counter()
    y = chain(x, n).sum()
    t1 = time.perf_counter()
    r1 = _rss()
    y.backward()
    t2 = time.perf_counter()
    assert x.grad is not None and x.grad._data.dtype == np.float32
    return t1 - t0, t2 - t1, (r1 - r0 if r0 is not None else None)


def run_numpy(n):
    x = np.array([0.3], np.float32)
    r0 = _rss()
    t0 = time.perf_counter()
    tape = []
    y = x
    for _ in range(n // 2):
        y = y * 0.5
        tape.append(0.5)           # mul by a constant: backward multiplies by it
        y = y + 0.5
        tape.append(None)          # add of a constant: backward passes g through
    s = y.sum()
    t1 = time.perf_counter()
    r1 = _rss()
    g = np.ones_like(x)
    for c in reversed(tape):
        if c is not None:
            g = g * c
    t2 = time.perf_counter()
    assert g.dtype == np.float32 and s.dtype == np.float32
    return t1 - t0, t2 - t1, (r1 - r0 if r0 is not None else None)


def make_run_torch(torch):
    def run_torch(n):
        x = torch.tensor([0.3], dtype=torch.float32, requires_grad=True)
        r0 = _rss()
        t0 = time.perf_counter()
        y = chain(x, n).sum()
        t1 = time.perf_counter()
        r1 = _rss()
        y.backward()
        t2 = time.perf_counter()
        assert x.grad is not None and x.grad.dtype == torch.float32
        return t1 - t0, t2 - t1, (r1 - r0 if r0 is not None else None)
    return run_torch


def measure_child(engine, n, repeat, warmup):
    """In a child process: ``warmup`` + ``repeat`` runs of one engine at one length."""
    if engine == "torch":
        torch, _ = _common.load_torch()
        run = make_run_torch(torch)
    else:
        run = {"rtorchpy": run_rtorchpy, "numpy": run_numpy}[engine]
        if engine == "rtorchpy":
            import rtorchpy  # noqa: F401  (import time stays out of the first run)
    _common.freeze()
    samples = []
    for r in range(warmup + repeat):
        gc.collect()
        fwd, bwd, mem = run(n)
        gc.collect()
        if r >= warmup:
            samples.append((fwd, bwd, mem))
    return {"runs": samples}


def measure(engines, n, repeat, warmup, rounds):
    """Each engine in processes of its own: Python's full garbage collections walk every live
    object, so a PyTorch import (~170k objects) would slow rtorchpy's graph building in the
    same process, and a 10^6 graph would slow whatever runs after it. ``rounds`` rounds with
    the engine order rotating, so a burst of load from elsewhere does not land on one engine;
    the median run over all rounds is reported."""
    runs = {e: [] for e in engines}
    for r in range(rounds):
        for e in engines[r % len(engines):] + engines[:r % len(engines)]:
            cmd = [sys.executable, os.path.abspath(__file__), "--threads", str(_common.THREADS),
                   "--child", e, "--sizes", str(n), "--repeat", str(repeat),
                   "--warmup", str(warmup)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                raise RuntimeError(f"W3 child {e} n={n} failed:\n{proc.stderr[-3000:]}")
            runs[e].extend(json.loads(proc.stdout.strip().splitlines()[-1])["runs"])
    out = {}
    for e, rs in runs.items():
        rs.sort(key=lambda t: t[0] + t[1])
        fwd, bwd, mem = rs[len(rs) // 2]
        out[e] = {"fwd": fwd, "bwd": bwd, "total": fwd + bwd, "mem": mem, "n": len(rs)}
    return out


def main():
    p = _common.parser(__doc__.splitlines()[0])
    p.add_argument("--sizes", default=None,
                   help="comma-separated chain lengths (default 10000,100000,1000000; "
                        "--quick: 10000,100000)")
    p.add_argument("--child", default=None, help="internal: run one engine")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--warmup", type=int, default=0)
    args = p.parse_args()
    if args.child:
        print(json.dumps(measure_child(args.child, int(args.sizes), args.repeat, args.warmup)))
        return
    torch, note = _common.load_torch()
    notes = [note] if note else []
    runs = ["rtorchpy", "numpy"] + (["torch"] if torch is not None else [])
    if args.sizes:
        sizes = [int(float(s)) for s in args.sizes.split(",")]
    else:
        sizes = [10**4, 10**5] if args.quick else [10**4, 10**5, 10**6]
    results, rows = {}, []
    for n in sizes:
        if n >= 10**6:
            repeat, warmup, rounds = 1, 0, 1
        elif n >= 10**5:
            repeat, warmup, rounds = (1, 1, 1) if args.quick else (1, 1, 3)
        else:
            repeat, warmup, rounds = (3, 1, 1) if args.quick else (3, 1, 3)
        res = measure(runs, n, repeat, warmup, rounds)
        results[n] = res
        label = f"10^{len(str(n)) - 1}" if str(n).strip("0") == "1" else str(n)
        for e, r in res.items():
            extra = {"forward_us_per_op": r["fwd"] / n * 1e6,
                     "backward_us_per_op": r["bwd"] / n * 1e6, "runs": r["n"],
                     "total_s": r["total"]}
            if r["mem"] is not None:
                extra["forward_rss_bytes_per_op"] = r["mem"] / n
            rows.append(_common.row(f"{label} ops, forward+backward", e, r["total"] / n * 1e6,
                                    "µs/op", **extra))
    targets = []
    per_op = {n: {e: r["total"] / n for e, r in res.items()} for n, res in results.items()}
    if 10**5 in per_op:
        if torch is not None:
            ratio = per_op[10**5]["rtorchpy"] / per_op[10**5]["torch"]
            targets.append(_common.target(
                "W3 10^5 per op ≤ 0.4× PyTorch", ratio, 0.4,
                f"{per_op[10**5]['rtorchpy'] * 1e6:.2f} vs "
                f"{per_op[10**5]['torch'] * 1e6:.2f} µs/op"))
        else:
            targets.append(_common.target("W3 10^5 per op ≤ 0.4× PyTorch", None, 0.4,
                                          "PyTorch not installed"))
        if 10**4 in per_op:
            ratio = per_op[10**5]["rtorchpy"] / per_op[10**4]["rtorchpy"]
            targets.append(_common.target(
                "W3 per op at 10^5 ≤ 1.5× per op at 10^4 (linear growth)", ratio, 1.5,
                f"{per_op[10**5]['rtorchpy'] * 1e6:.2f} vs "
                f"{per_op[10**4]['rtorchpy'] * 1e6:.2f} µs/op"))
    if 10**6 in per_op:
        r = results[10**6]["rtorchpy"]
        targets.append(_common.target(
            "W3 10^6 completes", 1.0, 1.0,
            f"rtorchpy {r['total']:.1f} s in all ({r['fwd']:.1f} s forward, "
            f"{r['bwd']:.1f} s backward)", comparison=">="))
    else:
        targets.append(_common.target("W3 10^6 completes", None, 1.0,
                                      "not run (--quick or --sizes)", comparison=">="))
    notes.append("each engine and length in processes of its own, 3 rounds with the engine "
                 "order rotating: 10^5 the median of 3 runs, 10^4 of 9; 10^6 one run per engine "
                 "(--quick: 1 round)")
    _common.emit(args, "W3", rows, targets, notes,
                 description="deep graph: chains of tiny ops (mul 0.5, add 0.5) then backward")


if __name__ == "__main__":
    main()
