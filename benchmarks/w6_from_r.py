"""W6 from R: W1's per-op cost and the seeds' linear, called from R through the R shim.

Runs ``benchmarks/w6_from_r.R`` with Rscript (R_LIBS=<repo>/.rlib, RETICULATE_PYTHON=this
Python, the thread variables pinned). Skipped, with a note, when Rscript is missing or
``library(rtorchpy)`` does not load (the shim is not installed: ``make r``).
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import os
import shutil
import subprocess
import sys

TARGET_US = 30.0
RATIO_CHAIN = 2.0   # R / Python, per op of the 100-op chain with backward
RATIO_SGD = 2.0     # R / Python, one manual-SGD step
RATIO_METHOD = 1.1  # x$sin() / torch_sin(x), both from R


def main():
    args = _common.parser(__doc__.splitlines()[0]).parse_args()
    env = dict(os.environ)
    env.setdefault("R_LIBS", os.path.join(_common.ROOT, ".rlib"))
    env.setdefault("RETICULATE_PYTHON", sys.executable)
    # the R session's Python imports the rtorchpy of this tree, as the other workloads do
    env["PYTHONPATH"] = os.pathsep.join([_common.ROOT] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    skip = None
    rscript = shutil.which("Rscript")
    if rscript is None:
        skip = "Rscript not found; W6 skipped"
    else:
        probe = subprocess.run([rscript, "-e", "suppressPackageStartupMessages(library(rtorchpy))"],
                               capture_output=True, text=True, env=env, timeout=300)
        if probe.returncode != 0:
            lines = probe.stderr.strip().splitlines() or ["?"]
            msg = next((ln for ln in lines if "Error" in ln), lines[-1]).strip()
            skip = f"library(rtorchpy) does not load from R_LIBS={env['R_LIBS']} ({msg}); W6 skipped"
    target_name = f"W6 forward+backward per op from R ≤ {TARGET_US:g} µs"

    def skipped(note):
        return _common.target(target_name, None, TARGET_US, note, unit="µs/op")
    if skip:
        _common.emit(args, "W6", [], [skipped(skip)], [skip],
                     description="W1's chain and the seeds' linear from R through the shim")
        return
    script = os.path.join(_common.HERE, "w6_from_r.R")
    cmd = [rscript, script] + (["quick"] if args.quick else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    if proc.returncode != 0:
        note = f"the R script failed: {proc.stderr.strip()[-1500:]}"
        _common.emit(args, "W6", [], [skipped(note)],
                     [note], description="W1's chain and the seeds' linear from R")
        return
    vals = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            _, key, value = line.split()
            vals[key] = float(value)
    rows, targets = [], []
    names = {"nograd": "forward, no grad", "record": "forward, recording",
             "fwdbwd": "forward+backward"}
    for shape in ("1", "4x4"):
        label = "(1,)" if shape == "1" else "(4, 4)"
        for key, mode in names.items():
            v = vals.get(f"{shape}_{key}_us_per_op")
            if v is not None:
                rows.append(_common.row(f"{label} {mode}, from R", "rtorchpy (R)", v, "µs/op"))
        v = vals.get(f"{shape}_fwdbwd_us_per_op")
        targets.append(_common.target(f"W6 {label} forward+backward per op from R ≤ "
                                      f"{TARGET_US:g} µs", v, TARGET_US,
                                      f"{v:.1f} µs/op" if v else "no result", unit="µs/op"))
    for key, label in (("linear_custom_us_per_call", "linear, custom function, from R"),
                       ("linear_builtin_us_per_call", "linear, built-in ops, from R")):
        if key in vals:
            rows.append(_common.row(label + " (8x16 -> 4)", "rtorchpy (R)", vals[key], "µs/call"))
    # the same work from R and from Python in one R process, timed interleaved (w6_from_r.R)
    pairs = (("chain100", "100-op chain (4,) forward+backward", "µs/op", "us_per_op"),
             ("sgd", "manual-SGD step (100x3 linear regression)", "µs/step", "us_per_step"),
             ("mul4", "x * y, (4,), forward only", "µs/call", "us"))
    for key, label, unit, suffix in pairs:
        for side, engine in (("r", "rtorchpy (R)"), ("py", "rtorchpy (Python, same process)")):
            v = vals.get(f"{key}_{side}_{suffix}")
            if v is not None:
                rows.append(_common.row(label, engine, v, unit))
    for key, label in (("method", "x$sin(), (4,)"), ("function", "torch_sin(x), (4,)")):
        v = vals.get(f"{key}_us")
        if v is not None:
            rows.append(_common.row(label, "rtorchpy (R)", v, "µs/call"))
    for key, limit, name in (("chain100_ratio", RATIO_CHAIN,
                              "W6 100-op chain fwd+bwd from R / from Python"),
                             ("sgd_ratio", RATIO_SGD, "W6 manual-SGD step from R / from Python"),
                             ("method_ratio", RATIO_METHOD, "W6 x$method() / torch_method(x)")):
        v = vals.get(key)
        targets.append(_common.target(f"{name} ≤ {limit:g}×", v, limit,
                                      f"{v:.2f}×" if v else "no result"))
    _common.emit(args, "W6", rows, targets, [],
                 description="W1's chain and the seeds' linear from R through the shim; the "
                             "same work from R and from Python in one process (interleaved)")


if __name__ == "__main__":
    main()
