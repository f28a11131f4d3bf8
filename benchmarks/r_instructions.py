"""Instructions per call of small R snippets through the R shim, counted by callgrind.

Wall-clock times of one R call (~10 µs) move by 2x on a shared machine; instruction counts do
not. Each case runs in one R process under ``valgrind --tool=callgrind --instr-atstart=no``:
its setup, a warm-up, then instrumentation on, ``n`` calls of the body, a dump, ``2n`` calls, a
dump. The difference of the two dumps over ``n`` is the count per call (start-up, imports and
the dump itself cancel out). The second dump of each case is kept, for
``callgrind_annotate --inclusive=yes <file>`` (where the instructions go).

    .venv/bin/python benchmarks/r_instructions.py                 # every case
    .venv/bin/python benchmarks/r_instructions.py mul sin method  # some
    .venv/bin/python benchmarks/r_instructions.py --list
    .venv/bin/python benchmarks/r_instructions.py --expr 'neg=-mx'  # any R expression
    .venv/bin/python benchmarks/r_instructions.py --r-setup defs.R --expr 'f=my_f(mx)'

Needs valgrind and the installed shim (``make r``). The cases are W6's workloads
(``w6_workloads.R``); cases "py_*" run the same work in the Python that reticulate started
(``w6_workloads.py``), for the ratio.
(Dumps are labelled ``<case>_0`` (zeroes the counters), ``<case>_1``, ``<case>_2``.)
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# W6's workloads (w6_workloads.R and its Python twin w6_workloads.py), so that the counts here
# and W6's wall clock measure one definition of each; py_loop(name, n) runs n calls of the
# Python workload `name` from one crossing.
SETUP = f"""
suppressPackageStartupMessages(library(rtorchpy))
w6_dir <- {os.path.join(ROOT, "benchmarks")!r}
source(file.path(w6_dir, "w6_workloads.R"))
w6_step_only_setup()
cases_loop <- w6py$loop
py_loop <- function(name, n) reticulate::py_call(cases_loop, name, as.integer(n))
"""

# name: (R expression run once per call, calls per dump)
CASES = {
    "mul": ("r_mul()", 2000),
    "mul_scalar": ("mx * 1.01", 2000),
    "sin": ("r_function()", 2000),
    "method": ("r_method()", 2000),
    "grad": ("cx$grad", 2000),
    "nograd": ("with_no_grad(NULL)", 2000),
    "chain": ("r_chain()", 100),
    "sgd": ("r_sgd()", 500),
    "model": ("r_model_fwd()", 500),
    "opt_step": ("r_opt_step()", 300),
    "opt_step_only": ("r_opt_step_only()", 1000),
    "custom": ("r_custom()", 300),
    "builtin": ("r_builtin()", 300),
    "py_mul": ("py_loop('mul', 2000L)", 1),
    "py_sin": ("py_loop('sin', 2000L)", 1),
    "py_chain": ("py_loop('chain', 100L)", 1),
    "py_sgd": ("py_loop('sgd', 500L)", 1),
    "py_model": ("py_loop('model_fwd', 500L)", 1),
    "py_opt_step": ("py_loop('opt_step', 300L)", 1),
    "py_opt_step_only": ("py_loop('opt_step_only', 1000L)", 1),
}
# calls of the Python loop per R call (the per-call count is divided by it)
INNER = {"py_mul": 2000, "py_sin": 2000, "py_chain": 100, "py_sgd": 500, "py_model": 500,
         "py_opt_step": 300, "py_opt_step_only": 1000}


def script(names, outdir, py_setup=None, r_setup=None):
    extra = [f"reticulate::py_run_string({py_setup!r})"] if py_setup else []
    if r_setup:
        extra.append(f"source({os.path.abspath(r_setup)!r})")
    lines = [SETUP] + extra + ["ctl <- function(a) system(paste('callgrind_control', a, "
                               "Sys.getpid(), '> /dev/null'))"]
    for name in names:
        expr, n = CASES[name]
        # (instrumentation stays on from the first case: callgrind miscounts a dump that
        # follows an "-i off" / "-i on" pair)
        lines.append(f"f <- function() {expr}\nfor (i in 1:{max(3, n // 10)}) f()")
        # a full collection before each dump: each part starts with no dead handles waiting
        # (both parts then pay one collection, which cancels out)
        lines.append(f"ctl('-i on')\ninvisible(gc())\nctl('-d {name}_0')\n"
                     f"for (i in 1:{n}) f()\ninvisible(gc())\nctl('-d {name}_1')")
        lines.append(f"for (i in 1:{2 * n}) f()\ninvisible(gc())\nctl('-d {name}_2')")
    path = os.path.join(outdir, "cases.R")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def counts(outdir):
    """{dump label: instructions} from the callgrind files in outdir."""
    out = {}
    for fn in os.listdir(outdir):
        if not fn.startswith("callgrind."):
            continue
        text = open(os.path.join(outdir, fn), errors="replace").read()
        label = re.search(r"^desc: Trigger: Client Request: (\S+)|^desc: Trigger: dump (\S+)",
                          text, re.M)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if label and total:
            out[label.group(1) or label.group(2)] = (int(total.group(1)), fn)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--keep", default=None, help="folder for the callgrind files")
    ap.add_argument("--expr", action="append", default=[], metavar="NAME=EXPR",
                    help="an extra case: R expression EXPR, 2000 calls (repeatable)")
    ap.add_argument("--r-setup", default=None, metavar="FILE",
                    help="an R file sourced after the set-up (definitions for --expr cases)")
    ap.add_argument("--py-setup", default=None,
                    help="Python code run after the set-up (e.g. 'import gc; gc.freeze()')")
    args = ap.parse_args()
    if args.list:
        for k, (expr, _n) in CASES.items():
            print(f"{k:12s} {expr}")
        return
    for spec in args.expr:
        name, _, expr = spec.partition("=")
        if not expr:
            sys.exit(f"--expr wants NAME=EXPR, not {spec!r}")
        CASES[name] = (expr, 2000)
        args.cases.append(name)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind not found (apt-get install valgrind)")
    names = args.cases or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"unknown case(s): {', '.join(unknown)} (see --list)")
    outdir = args.keep or tempfile.mkdtemp(prefix="rinstr-")
    os.makedirs(outdir, exist_ok=True)
    for fn in os.listdir(outdir):  # an earlier run's dumps carry the same labels
        if fn.startswith("callgrind."):
            os.remove(os.path.join(outdir, fn))
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.setdefault("R_LIBS", os.path.join(ROOT, ".rlib"))
    env.setdefault("RETICULATE_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
    env["PYTHONPATH"] = ROOT
    cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--instr-atstart=no",
           f"--callgrind-out-file={outdir}/callgrind.%p", "R", "--vanilla", "-s", "-f",
           script(names, outdir, args.py_setup, args.r_setup)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stderr[-3000:])
    found = counts(outdir)
    print(f"{'case':12s} {'instructions/call':>18s}  expression")
    for name in names:
        a, b = found.get(f"{name}_1"), found.get(f"{name}_2")
        if not (a and b):
            print(f"{name:12s} {'(no dump)':>18s}")
            continue
        per = (b[0] - a[0]) / CASES[name][1] / INNER.get(name, 1)
        print(f"{name:12s} {per:18,.0f}  {CASES[name][0]}")
    print(f"(callgrind files in {outdir}; the '<case>_2' dump of each: "
          "callgrind_annotate --inclusive=yes FILE)")


if __name__ == "__main__":
    main()
