# The cost of the R face of the optimizers: time of opt$step() for Adam over an MLP's
# parameters (784-512-512-10, float32, gradients set once) from R, against the same step called
# from Python (in this process, through reticulate, so both use the same NumPy and threads).
# Also the crossing alone (a 1-element parameter), the overhead of one scheduler step (reads and writes param_groups) and of
# opt$step(closure) with a trivial closure. Not a test.
#
# Usage: env -u LD_LIBRARY_PATH R_LIBS=$PWD/.rlib RETICULATE_PYTHON=$PWD/.venv/bin/python \
#          Rscript benchmarks/optim_step_from_r.R [repeats]
suppressPackageStartupMessages(library(rtorchpy))

args <- commandArgs(trailingOnly = TRUE)
repeats <- if (length(args)) as.integer(args[[1]]) else 15L
number <- 20L  # steps per sample

sizes <- c(784, 512, 512, 10)
set.seed(1)
params <- list()
for (i in seq_len(length(sizes) - 1L)) {
  params <- c(params, list(torch_randn(sizes[[i + 1L]], sizes[[i]], requires_grad = TRUE),
                           torch_randn(sizes[[i + 1L]], requires_grad = TRUE)))
}
for (p in params) p$grad <- torch_randn_like(p)
opt <- optim_adam(params, lr = 1e-3)

# best (minimum) seconds per call over `repeats` samples of `number` calls
best_of <- function(f) {
  f()
  f()
  best <- Inf
  for (r in seq_len(repeats)) {
    t0 <- Sys.time()
    for (i in seq_len(number)) f()
    best <- min(best, as.numeric(difftime(Sys.time(), t0, units = "secs")) / number)
  }
  best
}

reticulate::py_run_string(paste(sep = "\n",
  "import time",
  "import numpy as np",
  "import rtorchpy as _rt",
  "def _py_best(sizes, repeats, number):",
  "    rng = np.random.default_rng(1)",
  "    ps = []",
  "    for a, b in zip(sizes[:-1], sizes[1:]):",
  "        for shape in ((b, a), (b,)):",
  "            p = _rt.torch_tensor(rng.standard_normal(shape).astype('float32'),",
  "                                 requires_grad=True)",
  "            p.grad = _rt.torch_tensor(rng.standard_normal(shape).astype('float32'))",
  "            ps.append(p)",
  "    opt = _rt.optim_adam(ps, lr=1e-3)",
  "    opt.step(); opt.step()",
  "    best = float('inf')",
  "    for _ in range(int(repeats)):",
  "        t0 = time.perf_counter()",
  "        for _ in range(int(number)):",
  "            opt.step()",
  "        best = min(best, (time.perf_counter() - t0) / number)",
  "    return best",
  "def _py_best_same(h, repeats, number):",
  "    from rtorchpy._r.handles import _get",
  "    opt = _get(h)",
  "    best = float('inf')",
  "    for _ in range(int(repeats)):",
  "        t0 = time.perf_counter()",
  "        for _ in range(int(number)):",
  "            opt.step()",
  "        best = min(best, (time.perf_counter() - t0) / number)",
  "    return best"
))
py_best <- reticulate::py_eval("_py_best")
py_best_same <- reticulate::py_eval("_py_best_same")

# alternate R and Python samples (the machine is shared)
r_times <- numeric(0)
py_times <- numeric(0)
same_times <- numeric(0)
for (round in 1:3) {
  r_times <- c(r_times, best_of(function() opt$step()))
  py_times <- c(py_times, py_best(as.list(as.integer(sizes)), repeats, number))
  same_times <- c(same_times, py_best_same(rtorchpy:::.h(opt$ptr), repeats, number))
}
r_t <- min(r_times)
py_t <- min(py_times)
same_t <- min(same_times)

# the crossing alone: Adam over one 1-element parameter, from R and from Python
tiny <- torch_ones(1, requires_grad = TRUE)
tiny$grad <- torch_ones(1)
tiny_opt <- optim_adam(list(tiny), lr = 1e-3)
tiny_r <- min(replicate(3, best_of(function() tiny_opt$step())))
tiny_py <- min(replicate(3, py_best_same(rtorchpy:::.h(tiny_opt$ptr), repeats, number)))

closure <- function() params[[6]]$sum()
closure_t <- best_of(function() opt$step(closure))
sched <- lr_step(opt, step_size = 1000)
sched_t <- best_of(function() sched$step())

n_params <- sum(vapply(params, function(p) prod(p$shape), 0))
cat(sprintf("Adam step over an MLP %s (%d parameters, float32), best of %d x %d steps\n",
            paste(sizes, collapse = "-"), as.integer(n_params), repeats, number))
cat(sprintf("  from R      opt$step():          %8.1f us\n", r_t * 1e6))
cat(sprintf("  from Python opt.step():          %8.1f us\n", py_t * 1e6))
cat(sprintf("  from Python, R's optimizer:      %8.1f us (the same object R steps)\n",
            same_t * 1e6))
cat(sprintf("  ratio R / Python:                %8.3f (same object: %.3f)\n", r_t / py_t,
            r_t / same_t))
cat(sprintf("  tiny (1 element): R %.1f us, Python %.1f us: %.1f us per crossing\n",
            tiny_r * 1e6, tiny_py * 1e6, (tiny_r - tiny_py) * 1e6))
cat(sprintf("  from R      opt$step(closure):   %8.1f us (trivial closure)\n", closure_t * 1e6))
cat(sprintf("  from R      lr_step()$step():    %8.1f us (param_groups read + write)\n",
            sched_t * 1e6))
