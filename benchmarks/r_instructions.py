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

Needs valgrind and the installed shim (``make r``). Cases "py_*" run the same work in the
Python that reticulate started, for the ratio.
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

SETUP = """
suppressPackageStartupMessages(library(rtorchpy))
mx <- torch_tensor(c(1, 2, 3, 4)); my <- torch_tensor(c(0.5, 0.25, 2, -1))
cx <- torch_tensor(c(0.1, -0.2, 0.3, 0.4), requires_grad = TRUE)
chain4 <- function(y) {
  for (i in 1:25) { y <- y * 1.01; y <- y + 0.1; y <- torch_sin(y); y <- torch_tanh(y) }
  y
}
chain4(cx)$sum()$backward()
invisible(torch_manual_seed(0))
X <- torch_randn(100, 3)
Y <- X$matmul(torch_tensor(matrix(c(1, -2, 0.5), 3, 1))) + 0.3
w <- torch_zeros(3, 1, requires_grad = TRUE)
b <- torch_zeros(1, requires_grad = TRUE)
sgd <- function() {
  loss <- ((X$matmul(w) + b - Y)^2)$mean()
  loss$backward()
  with_no_grad({
    w$sub_(w$grad * 0.01)
    b$sub_(b$grad * 0.01)
    w$grad$zero_()
    b$grad$zero_()
  })
}
sgd()
model <- nn_sequential(nn_linear(3, 8), nn_relu(), nn_linear(8, 1))
mxx <- torch_randn(16, 3); myy <- torch_randn(16, 1)
opt <- optim_sgd(model$parameters, lr = 0.01)
opt_step <- function() {
  opt$zero_grad()
  loss <- nnf_mse_loss(model(mxx), myy)
  loss$backward()
  opt$step()
}
opt_step()
# the seeds' linear as a custom autograd function (R closures called back from Python)
linear <- autograd_function(
  forward = function(ctx, input, weight, bias = NULL) {
    ctx$save_for_backward(input = input, weight = weight, bias = bias)
    output <- input$mm(weight$t())
    if (!is.null(bias)) output <- output + bias$unsqueeze(1)$expand_as(output)
    output
  },
  backward = function(ctx, grad_output) {
    s <- ctx$saved_variables
    grads <- list(input = NULL, weight = NULL, bias = NULL)
    if (ctx$needs_input_grad$input) grads$input <- grad_output$mm(s$weight)
    if (ctx$needs_input_grad$weight) grads$weight <- grad_output$t()$mm(s$input)
    if (!is.null(s$bias) && ctx$needs_input_grad$bias) grads$bias <- grad_output$sum(dim = 1)
    grads
  }
)
xi <- torch_randn(8, 16, requires_grad = TRUE)
wi <- torch_randn(4, 16, requires_grad = TRUE)
bi <- torch_randn(4, requires_grad = TRUE)
linear(xi, wi, bi)$sum()$backward()
reticulate::py_run_string("
import rtorchpy as _rt
_mx = _rt.torch_tensor([1.0, 2.0, 3.0, 4.0])
_my = _rt.torch_tensor([0.5, 0.25, 2.0, -1.0])
_cx = _rt.torch_tensor([0.1, -0.2, 0.3, 0.4], requires_grad=True)
def _chain(y):
    for _ in range(25):
        y = y * 1.01
        y = y + 0.1
        y = _rt.torch_sin(y)
        y = _rt.torch_tanh(y)
    return y
_chain(_cx).sum().backward()
def py_chain(n):
    for _ in range(n):
        _cx.grad.zero_()
        _chain(_cx).sum().backward()
def py_mul(n):
    for _ in range(n):
        _mx * _my
def py_sin(n):
    for _ in range(n):
        _rt.torch_sin(_mx)
_rt.torch_manual_seed(0)
_X = _rt.torch_randn(100, 3)
_Y = _X.matmul(_rt.torch_tensor([[1.0], [-2.0], [0.5]])) + 0.3
_w = _rt.torch_zeros(3, 1, requires_grad=True)
_b = _rt.torch_zeros(1, requires_grad=True)
_model = _rt.nn_sequential(_rt.nn_linear(3, 8), _rt.nn_relu(), _rt.nn_linear(8, 1))
_mxx = _rt.torch_randn(16, 3)
_myy = _rt.torch_randn(16, 1)
_opt = _rt.optim_sgd(_model.parameters, lr=0.01)
def py_model(n):
    for _ in range(n):
        _model(_mxx)
def py_opt_step(n):
    for _ in range(n):
        _opt.zero_grad()
        loss = _rt.nnf_mse_loss(_model(_mxx), _myy)
        loss.backward()
        _opt.step()
def py_opt_step_only(n):
    for _ in range(n):
        _opt.step()
py_opt_step(1)  # (gradients to step with, as opt_step() gave the R model's)
def py_sgd(n):
    for _ in range(n):
        loss = ((_X.matmul(_w) + _b - _Y) ** 2).mean()
        loss.backward()
        with _rt.with_no_grad():
            _w.sub_(_w.grad * 0.01)
            _b.sub_(_b.grad * 0.01)
            _w.grad.zero_()
            _b.grad.zero_()
", convert = FALSE)
py <- reticulate::import_main(convert = FALSE)
py_loop <- function(name, n) .Call(rtorchpy:::rtp_call, py[[name]], list(as.integer(n)), NULL)
"""

# name: (R expression run once per call, calls per dump)
CASES = {
    "mul": ("mx * my", 2000),
    "mul_scalar": ("mx * 1.01", 2000),
    "sin": ("torch_sin(mx)", 2000),
    "method": ("mx$sin()", 2000),
    "grad": ("cx$grad", 2000),
    "nograd": ("with_no_grad(NULL)", 2000),
    "chain": ("{cx$grad$zero_(); chain4(cx)$sum()$backward()}", 100),
    "sgd": ("sgd()", 500),
    "model": ("model(mxx)", 500),
    "opt_step": ("opt_step()", 300),
    "opt_step_only": ("opt$step()", 1000),
    "custom": ("linear(xi, wi, bi)$sum()$backward()", 300),
    "builtin": ("(xi$mm(wi$t()) + bi)$sum()$backward()", 300),
    "py_model": ("py_loop('py_model', 500L)", 1),
    "py_opt_step": ("py_loop('py_opt_step', 300L)", 1),
    "py_opt_step_only": ("py_loop('py_opt_step_only', 1000L)", 1),
    "py_mul": ("py_loop('py_mul', 2000L)", 1),
    "py_sin": ("py_loop('py_sin', 2000L)", 1),
    "py_chain": ("py_loop('py_chain', 100L)", 1),
    "py_sgd": ("py_loop('py_sgd', 500L)", 1),
}
# calls of the Python loop per R call (the per-call count is divided by it)
INNER = {"py_mul": 2000, "py_sin": 2000, "py_chain": 100, "py_sgd": 500, "py_model": 500,
         "py_opt_step": 300, "py_opt_step_only": 1000}


def script(names, outdir, py_setup=None):
    extra = [f"reticulate::py_run_string({py_setup!r})"] if py_setup else []
    lines = [SETUP] + extra + ["ctl <- function(a) system(paste('callgrind_control', a, Sys.getpid(), "
             "'> /dev/null'))"]
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
    ap.add_argument("--py-setup", default=None,
                    help="Python code run after the set-up (e.g. 'import gc; gc.freeze()')")
    args = ap.parse_args()
    if args.list:
        for k, (expr, n) in CASES.items():
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
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.setdefault("R_LIBS", os.path.join(ROOT, ".rlib"))
    env.setdefault("RETICULATE_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
    env["PYTHONPATH"] = ROOT
    cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--instr-atstart=no",
           f"--callgrind-out-file={outdir}/callgrind.%p", "R", "--vanilla", "-s", "-f",
           script(names, outdir, args.py_setup)]
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
