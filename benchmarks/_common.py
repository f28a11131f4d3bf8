"""Shared helpers for the workload scripts.

Import this module FIRST in every workload script, before numpy or torch: it reads
``--threads N`` from the command line and pins the BLAS/OpenMP thread pools through the
environment, which the libraries only read when they are loaded.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def _early_threads(argv):
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 1


THREADS = _early_threads(sys.argv)
if "numpy" in sys.modules or "torch" in sys.modules:  # pragma: no cover - a programming error
    raise RuntimeError("benchmarks/_common.py must be imported before numpy/torch")
for _v in _THREAD_VARS:
    os.environ[_v] = str(THREADS)
# Idle pool threads sleep instead of spinning. Engines share a process (interleaved timing), and
# with 2 threads on 2 cores a spinning OpenBLAS pool (NumPy) would steal the cores from
# PyTorch's OpenMP pool and the other way round. No effect at 1 thread (no pool threads).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:  # a fresh clone without `pip install -e .` still benchmarks its own tree
    sys.path.insert(0, ROOT)


def parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    p.add_argument("--json", default=None, help="write the result here (default: stdout)")
    return p


def load_torch():
    """(torch module or None, note). Sets torch's intra-op and inter-op thread counts."""
    try:
        import torch
    except Exception as exc:  # noqa: BLE001 - any import failure means "no PyTorch rows"
        return None, f"PyTorch not importable ({type(exc).__name__}: {exc}); PyTorch rows skipped"
    torch.set_num_threads(THREADS)
    try:
        torch.set_num_interop_threads(THREADS)
    except RuntimeError:
        pass
    return torch, None


def timeit(fns, repeat, number=1, warmup=2, setup=None):
    """Median seconds per call of each callable in ``fns`` (dict name -> fn).

    The engines are interleaved (one batch of ``number`` calls each per round, rotating the
    order every round) so drift in the machine's speed hits all of them alike; ``warmup``
    rounds are run and thrown away first. ``setup(name)`` runs untimed before each batch.
    Objects alive before timing are frozen out of the garbage collector (see :func:`freeze`).
    """
    freeze()
    names = list(fns)
    samples = {n: [] for n in names}
    for r in range(warmup + repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            fn = fns[n]
            if setup is not None:
                setup(n)
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            dt = (time.perf_counter() - t0) / number
            if r >= warmup:
                samples[n].append(dt)
    return {n: summarize(s) for n, s in samples.items()}


def summarize(s):
    return {"median": statistics.median(s), "min": min(s), "max": max(s), "n": len(s),
            "samples": list(s)}


def run_isolated(script, engines, rounds, extra=()):
    """Time each engine in processes of its own: ``rounds`` rounds, each spawning one child per
    engine (order rotating), whose samples are pooled. ``script --engine E`` must print
    ``{"samples": {case: [seconds, ...]}}`` as its last line.

    For workloads with large buffers: glibc malloc adapts its mmap threshold to the sizes it
    has seen freed, so in a shared process one engine's frees decide whether another's
    temporaries come back as fresh, page-faulting mappings or as reused heap memory (measured:
    rtorchpy's W4 step 28 ms alone, 18 ms interleaved with PyTorch). A process per engine
    gives each the allocator state it would have on its own. Several rounds, because a
    process's speed also depends on the address-space layout it draws: rtorchpy's W2 step is
    ~13 ms in most processes and ~17 ms in about one in three, and always ~12.6 ms with ASLR
    off (``setarch -R``); pooling the rounds gives the median over layouts.
    """
    import subprocess
    pooled = {e: {} for e in engines}
    for r in range(rounds):
        order = engines[r % len(engines):] + engines[:r % len(engines)]
        for e in order:
            cmd = [sys.executable, script, "--threads", str(THREADS), "--engine", e, *extra]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                raise RuntimeError(f"{os.path.basename(script)} --engine {e} failed:\n"
                                   f"{proc.stderr[-3000:]}")
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            for case, samples in out["samples"].items():
                pooled[e].setdefault(case, []).extend(samples)
    return {e: {case: summarize(s) for case, s in cases.items()} for e, cases in pooled.items()}


def child_emit(res):
    """A child's result for :func:`run_isolated`: {case: {engine: summary}} -> samples."""
    print(json.dumps({"samples": {case: next(iter(r.values()))["samples"]
                                  for case, r in res.items()}}))


def row(case, engine, value, unit, **extra):
    d = {"case": case, "engine": engine, "value": value, "unit": unit}
    d.update(extra)
    return d


def target(name, value, limit, detail, comparison="<=", unit="×"):
    """A target check: ``value`` (a ratio unless ``unit`` says otherwise) against ``limit``;
    ``pass`` is None when it could not be measured (``value`` None)."""
    ok = None if value is None else bool(value <= limit if comparison == "<=" else value >= limit)
    return {"target": name, "value": value, "limit": limit, "comparison": comparison,
            "unit": unit, "pass": ok, "detail": detail}


def freeze():
    """Move every object alive now (modules: rtorchpy's, NumPy's and PyTorch's when it is a
    peer) out of the garbage collector's reach. Full collections walk every tracked object, so
    without this one engine's imports would tax another's graph building, and each
    ``gc.collect()`` between timing batches would cost ~70 ms with PyTorch loaded."""
    gc.collect()
    gc.freeze()


def versions():
    import numpy
    out = {"python": sys.version.split()[0], "numpy": numpy.__version__, "threads": THREADS}
    try:
        import rtorchpy
        out["rtorchpy"] = rtorchpy.__version__
    except Exception:  # noqa: BLE001
        pass
    if "torch" in sys.modules:
        out["torch"] = sys.modules["torch"].__version__
    return out


def emit(args, workload, rows, targets=(), notes=(), **extra):
    result = {"workload": workload, "threads": THREADS, "quick": bool(args.quick),
              "rows": list(rows), "targets": list(targets), "notes": list(notes),
              "versions": versions()}
    result.update(extra)
    text = json.dumps(result, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    else:
        print(text)
    return result
