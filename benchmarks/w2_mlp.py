"""W2 MLP training step: batch 256, 784-512-512-10, ReLU, cross-entropy, SGD under no-grad.

Time: ms per step (forward, backward, in-place SGD update, gradients reset), each engine in
processes of its own (3 rounds, samples pooled; see ``_common.run_isolated`` for why). Memory:
each engine in a FRESH process (this script re-runs itself with --memory ENGINE --meter METER)
measuring peak growth during training steps over the state just before them:
* tracemalloc: peak traced bytes over the post-warm-up baseline (NumPy reports its buffers to
  tracemalloc, so this is exact for rtorchpy and NumPy by hand; PyTorch's allocator is not
  traced, so PyTorch has no tracemalloc number);
* rss: the kernel's RSS high-water mark (VmHWM, reset through /proc/self/clear_refs) minus
  RSS just before the measured steps, for every engine including PyTorch, with glibc malloc
  told to mmap every buffer over 64 KiB and give it back on free (MALLOC_MMAP_THRESHOLD_,
  MALLOC_TRIM_THRESHOLD_), so RSS follows live buffers rather than malloc's caches.
Both are taken after 2 warm-up steps (BLAS buffers, allocator pools, lazy imports).
The float32 check walks rtorchpy's recorded graph before backward and asserts every input of
every node, every gradient and every parameter is float32 (no float64 upcasts).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import json
import os
import subprocess
import sys

import numpy as np

# processes per engine: the step time depends on the address-space layout the process draws
# (ASLR; see _common.run_isolated), so sample several
ROUNDS = 7

BATCH, SIZES, LR = 256, (784, 512, 512, 10), 0.01


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], BATCH).astype(np.int64)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return x, y, params


# ---------------------------------------------------------------- NumPy by hand
def numpy_engine(x, y, params):
    params = [p.copy() for p in params]
    idx = np.arange(BATCH)
    lr = np.float32(LR)

    def step(keep=False):
        W1, b1, W2, b2, W3, b3 = params
        # forward: ReLU in place (its backward only needs the output's sign)
        h1 = x @ W1.T
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ W2.T
        h2 += b2
        np.maximum(h2, 0, out=h2)
        z3 = h2 @ W3.T
        z3 += b3
        z3 -= z3.max(axis=1, keepdims=True)
        e = np.exp(z3)
        s = e.sum(axis=1, keepdims=True)
        loss = (np.log(s[:, 0]) - z3[idx, y]).mean()
        # backward: softmax - onehot, then the layers
        g3 = e
        g3 /= s
        g3[idx, y] -= 1
        g3 /= np.float32(BATCH)
        gW3, gb3 = g3.T @ h2, g3.sum(axis=0)
        gh2 = g3 @ W3
        gh2[h2 <= 0] = 0
        gW2, gb2 = gh2.T @ h1, gh2.sum(axis=0)
        gh1 = gh2 @ W2
        gh1[h1 <= 0] = 0
        gW1, gb1 = gh1.T @ x, gh1.sum(axis=0)
        grads = (gW1, gb1, gW2, gb2, gW3, gb3)
        for p, g in zip(params, grads):
            p -= lr * g
        if keep:
            step.last = (loss, grads)
        return loss

    def check():
        step(keep=True)
        loss, grads = step.last
        assert loss.dtype == np.float32, loss.dtype
        assert all(g.dtype == np.float32 for g in grads)
        assert all(p.dtype == np.float32 for p in params)

    return step, check, params


# ---------------------------------------------------------------- rtorchpy
def rtorchpy_engine(x, y, params):
    import rtorchpy as rt
    xs, ys = rt.torch_tensor(x), rt.torch_tensor(y)
    ps = [rt.torch_tensor(p, requires_grad=True) for p in params]

    def forward():
        W1, b1, W2, b2, W3, b3 = ps
        h = rt.nnf_relu(rt.nnf_linear(xs, W1, b1))
        h = rt.nnf_relu(rt.nnf_linear(h, W2, b2))
        return rt.nnf_cross_entropy(rt.nnf_linear(h, W3, b3), ys)

    def step():
        loss = forward()
        loss.backward()
        with rt.with_no_grad():
            for p in ps:
                p.sub_(p.grad, alpha=LR)
                p.grad = None
        return loss

    def check():
        """No float64 anywhere: every recorded node's inputs, the loss, the grads, the params."""
        loss = forward()
        dtypes, seen, stack = set(), set(), [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            dtypes.update(str(dt) for _, dt in getattr(node, "in_meta", ()))
            stack.extend(e for e in node.edges if e is not None)
        dtypes.discard("int64")  # class targets
        assert dtypes == {"float32"}, f"recorded dtypes {dtypes}"
        assert loss._data.dtype == np.float32
        loss.backward()
        assert all(p.grad._data.dtype == np.float32 for p in ps)
        for p in ps:
            p.grad = None
        step()
        assert all(p._data.dtype == np.float32 for p in ps)
        return len(seen)

    return step, check, ps


# ---------------------------------------------------------------- PyTorch
def torch_engine(x, y, params, torch):
    import torch.nn.functional as F
    xs, ys = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
    ps = [torch.tensor(p, requires_grad=True) for p in params]

    def step():
        W1, b1, W2, b2, W3, b3 = ps
        h = F.relu(F.linear(xs, W1, b1))
        h = F.relu(F.linear(h, W2, b2))
        loss = F.cross_entropy(F.linear(h, W3, b3), ys)
        loss.backward()
        with torch.no_grad():
            for p in ps:
                p.sub_(p.grad, alpha=LR)
                p.grad = None
        return loss

    def check():
        loss = step()
        assert loss.dtype == torch.float32 and all(p.dtype == torch.float32 for p in ps)

    return step, check, ps


def _to_np(p):
    if isinstance(p, (np.ndarray, np.generic)):
        return np.asarray(p)
    if hasattr(p, "detach"):
        p = p.detach()
    if hasattr(p, "numpy"):
        return p.numpy()
    return np.asarray(p._data)


def build(engine, x, y, params):
    if engine == "numpy":
        return numpy_engine(x, y, params)
    if engine == "rtorchpy":
        return rtorchpy_engine(x, y, params)
    torch, _ = _common.load_torch()
    return torch_engine(x, y, params, torch)


# ---------------------------------------------------------------- memory (fresh process)
def _rss_now():
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["VmRSS"].split()[0]) * 1024
    except OSError:
        import psutil
        return psutil.Process().memory_info().rss


def _rss_reset_peak():
    """Reset the kernel's RSS high-water mark (Linux >= 4.0); False when not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _rss_peak():
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["VmHWM"].split()[0]) * 1024
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_child(engine, meter, steps, warmup=2):
    import gc
    x, y, params = make_data()
    if meter == "tracemalloc":
        import tracemalloc
        tracemalloc.start()
    step, check, _ = build(engine, x, y, params)
    for _ in range(warmup):   # BLAS buffers, allocator pools, lazy imports
        step()
    gc.collect()
    if meter == "tracemalloc":
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
    else:
        exact = _rss_reset_peak()
        base = _rss_now()
    for _ in range(steps):
        step()
    if meter == "tracemalloc":
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        exact = True
    else:
        peak = _rss_peak()
    print(json.dumps({"engine": engine, "meter": meter, "growth": peak - base, "exact": exact}))


def measure_memory(engine, meter, steps):
    cmd = [sys.executable, os.path.abspath(__file__), "--threads", str(_common.THREADS),
           "--memory", engine, "--meter", meter, "--steps", str(steps)]
    env = dict(os.environ)
    # a fixed mmap threshold and no trimming delay: every buffer over 64 KiB is its own mapping,
    # returned to the kernel when freed, so RSS follows live memory instead of malloc's caches
    env.update(MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="0")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"memory child {engine}/{meter} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["growth"]


def main():
    p = _common.parser(__doc__.splitlines()[0])
    p.add_argument("--memory", default=None, help="internal: measure one engine's memory")
    p.add_argument("--meter", default="tracemalloc", choices=["tracemalloc", "rss"])
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--engine", default=None, help="internal: time one engine")
    args = p.parse_args()
    if args.memory:
        return memory_child(args.memory, args.meter, args.steps)
    if args.engine:
        repeat, number = (5, 2) if args.quick else (3, 3)
        step = build(args.engine, *make_data())[0]
        _common.child_emit({"step time": _common.timeit({args.engine: step}, repeat=repeat,
                                                        number=number, warmup=2)})
        return

    torch, note = _common.load_torch()
    notes = [note] if note else []
    engines = ["rtorchpy", "numpy"] + (["torch"] if torch is not None else [])
    x, y, params = make_data()
    built = {e: build(e, x, y, params) for e in engines}

    # dtype checks, and the engines agree on the first step's loss and updated weights
    n_nodes = built["rtorchpy"][1]()
    for e in engines:
        if e != "rtorchpy":
            built[e][1]()
    fresh = {e: build(e, x, y, params) for e in engines}
    losses = {e: float(_to_np(fresh[e][0]())) for e in engines}
    for e in engines:
        np.testing.assert_allclose(losses[e], losses["numpy"], rtol=1e-4)
        np.testing.assert_allclose(_to_np(fresh[e][2][0]), _to_np(fresh["numpy"][2][0]),
                                   rtol=1e-3, atol=1e-5)
    del fresh, built
    notes.append("step time: each engine timed in its own processes (7 rounds × 3 batches of "
                 "3 steps, pooled median; --quick: 1 round)")
    notes.append(f"float32 check passed: {n_nodes} recorded nodes, all inputs/grads/params "
                 "float32; first-step losses agree across engines")

    res = _common.run_isolated(os.path.abspath(__file__), engines, 1 if args.quick else ROUNDS,
                               ["--quick"] if args.quick else [])
    res = {e: r["step time"] for e, r in res.items()}
    rows = [_common.row("step time", e, r["median"] * 1e3, "ms/step", min=r["min"] * 1e3,
                        max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]

    mem = {}
    for e in engines:
        meters = ["rss"] if e == "torch" else ["tracemalloc", "rss"]
        for m in meters:
            mem[(e, m)] = measure_memory(e, m, args.steps)
            rows.append(_common.row(f"peak memory growth ({m})", e, mem[(e, m)] / 2**20, "MiB"))
    targets = [
        _common.target("W2 step time ≤ 1.05× NumPy by hand",
                       res["rtorchpy"]["median"] / res["numpy"]["median"], 1.05,
                       f"{res['rtorchpy']['median'] * 1e3:.2f} vs "
                       f"{res['numpy']['median'] * 1e3:.2f} ms/step"),
        _common.target("W2 peak memory growth ≤ 1.2× NumPy by hand (tracemalloc)",
                       mem[("rtorchpy", "tracemalloc")] / mem[("numpy", "tracemalloc")], 1.2,
                       f"{mem[('rtorchpy', 'tracemalloc')] / 2**20:.1f} vs "
                       f"{mem[('numpy', 'tracemalloc')] / 2**20:.1f} MiB"),
        _common.target("W2 float32 stays float32 (no float64 upcasts)", 1.0, 1.0,
                       "asserted on every recorded node, grad and parameter"),
    ]
    notes.append(f"memory: growth over {args.steps} steps after setup, each engine in a fresh "
                 "process after 2 warm-up steps; tracemalloc = peak traced NumPy/Python bytes "
                 "over the baseline; rss = VmHWM (reset before the steps) − VmRSS before the "
                 "steps")
    _common.emit(args, "W2", rows, targets, notes,
                 description="MLP step, batch 256, 784-512-512-10, ReLU, cross-entropy, SGD")


if __name__ == "__main__":
    main()
