"""W12 data loading: one shuffled epoch over a ``tensor_dataset`` of 60,000 x 784 float32 rows
and 60,000 int64 labels, batch 128, against PyTorch's ``DataLoader(TensorDataset(...))``; then
from R (``benchmarks/w12_dataloader.R``): the same epoch from R and from Python in one process,
a per-item R ``dataset()`` (10,000 items, batch 32, items per second), and ``num_workers = 2``
against 0 when ``.getitem`` costs 1 ms.

rtorchpy makes each batch with one indexing call per tensor (``getbatch``); PyTorch's
``TensorDataset`` is indexed item by item and its default collate stacks the items. Engines
interleaved in one process. Targets: Python ≤ 0.5x PyTorch, R ≤ 2x Python, two workers faster
than none.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import os
import shutil
import subprocess
import sys

import numpy as np

N, D, BATCH = 60000, 784, 128


def build(engine, x, y):
    if engine == "rtorchpy":
        import rtorchpy as rt
        dl = rt.dataloader(rt.tensor_dataset(rt.torch_tensor(x), rt.torch_tensor(y)),
                           batch_size=BATCH, shuffle=True)
    else:
        torch, _ = _common.load_torch()
        from torch.utils.data import DataLoader, TensorDataset
        dl = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
                        batch_size=BATCH, shuffle=True)

    def epoch():
        n = total = 0
        for _bx, by in dl:
            n += 1
            total += by.shape[0]
        assert n == -(-N // BATCH) and total == N, (engine, n, total)
    return epoch


def r_results(quick):
    """The RESULT lines of the R script, or (None, reason)."""
    env = dict(os.environ)
    env.setdefault("R_LIBS", os.path.join(_common.ROOT, ".rlib"))
    env.setdefault("RETICULATE_PYTHON", sys.executable)
    env["PYTHONPATH"] = os.pathsep.join([_common.ROOT] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("LD_LIBRARY_PATH", None)
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "Rscript not found; the R rows are skipped"
    script = os.path.join(_common.HERE, "w12_dataloader.R")
    proc = subprocess.run([rscript, script] + (["quick"] if quick else []), capture_output=True,
                          text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        return None, f"the R script failed: {proc.stderr.strip()[-1500:]}"
    vals = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            _, key, value = line.split()
            vals[key] = float(value)
    return vals, None


def main():
    args = _common.parser(__doc__.splitlines()[0]).parse_args()
    repeat = 2 if args.quick else 5
    torch, note = _common.load_torch()
    notes = [note] if note else []
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, D), dtype=np.float32)
    y = rng.integers(0, 10, N).astype(np.int64)
    engines = ["rtorchpy"] + (["torch"] if torch is not None else [])
    res = _common.timeit({e: build(e, x, y) for e in engines}, repeat=repeat, number=1,
                         warmup=1)
    case = f"one shuffled epoch, tensor_dataset {N}x{D} float32 + labels, batch {BATCH}"
    rows = [_common.row(case, e, r["median"] * 1e3, "ms/epoch", min=r["min"] * 1e3,
                        max=r["max"] * 1e3, samples=r["n"]) for e, r in res.items()]
    if "torch" in res:
        a, b = res["rtorchpy"]["median"], res["torch"]["median"]
        ratio, detail = a / b, f"{a * 1e3:.0f} vs {b * 1e3:.0f} ms/epoch"
    else:
        ratio, detail = None, "PyTorch not installed"
    targets = [_common.target("W12 epoch over a tensor_dataset, Python ≤ 0.5× PyTorch "
                              "DataLoader(TensorDataset)", ratio, 0.5, detail)]
    vals, why = r_results(args.quick)
    if vals is None:
        notes.append(why)
        targets.append(_common.target("W12 the same epoch from R ≤ 2× from Python", None, 2.0,
                                      why))
        targets.append(_common.target("W12 num_workers = 2 / 0, .getitem costing 1 ms, from R",
                                      None, 1.0, why))
    else:
        rows.append(_common.row(case + ", from R", "rtorchpy (R)",
                                vals["tensor_epoch_r_s"] * 1e3, "ms/epoch",
                                paired_ratio=vals["tensor_epoch_ratio"]))
        rows.append(_common.row(case + ", from R", "rtorchpy (Python, same process)",
                                vals["tensor_epoch_py_s"] * 1e3, "ms/epoch"))
        rows.append(_common.row("per-item R dataset(), batch 32, shuffled", "rtorchpy (R)",
                                vals["per_item_items_per_s"], "items/s"))
        for w in (0, 2):
            rows.append(_common.row(f".getitem costing 1 ms, batch 32, num_workers = {w}",
                                    "rtorchpy (R)", vals[f"slow_items_per_s_w{w}"], "items/s"))
        r, q1, q3 = (vals.get(k) for k in ("tensor_epoch_ratio", "tensor_epoch_ratio_q1",
                                           "tensor_epoch_ratio_q3"))
        targets.append(_common.target(
            "W12 the same epoch from R ≤ 2× from Python", r, 2.0,
            f"{r:.2f}× (median of paired rounds; quartiles {q1:.2f}-{q3:.2f}×)"))
        s = vals["slow_ratio_w2_w0"]
        targets.append(_common.target(
            "W12 num_workers = 2 / 0, .getitem costing 1 ms, from R (< 1: faster)", s, 1.0,
            f"{vals['slow_items_per_s_w2']:.0f} vs {vals['slow_items_per_s_w0']:.0f} items/s"))
    notes.append(f"Python engines interleaved in one process, {repeat} epochs each, median")
    _common.emit(args, "W12", rows, targets, notes,
                 description="data loading: a shuffled epoch over a tensor_dataset, from Python "
                             "and R; a per-item R dataset(); R worker processes")


if __name__ == "__main__":
    main()
