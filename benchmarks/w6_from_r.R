# W6 from R: W1's chain of 100 small ops and the seeds' linear, called from R through the
# rtorchpy R shim (reticulate). Prints "RESULT <name> <value>" lines that w6_from_r.py reads.
# Usage: Rscript benchmarks/w6_from_r.R [quick]
suppressPackageStartupMessages(library(rtorchpy))

quick <- length(commandArgs(trailingOnly = TRUE)) > 0 && commandArgs(trailingOnly = TRUE)[1] == "quick"
n_repeat <- if (quick) 3L else 9L
n_ops <- 100L

chain <- function(x, b) {
  for (i in 1:20) {
    x <- x * 0.9
    x <- x + b
    x <- x$sin()
    x <- x$exp()
    x <- x$tanh()
  }
  x
}

# median seconds per call over n_repeat samples of `number` calls each, after 2 warm-up samples
time_it <- function(f, number) {
  samples <- numeric(0)
  for (r in seq_len(n_repeat + 2L)) {
    t0 <- as.numeric(Sys.time())
    for (i in seq_len(number)) f()
    dt <- (as.numeric(Sys.time()) - t0) / number
    if (r > 2L) samples <- c(samples, dt)
  }
  median(samples)
}

report <- function(name, value) cat(sprintf("RESULT %s %.6g\n", name, value))

set.seed(0)
for (shape in list(c(1L), c(4L, 4L))) {
  label <- paste(shape, collapse = "x")
  x <- torch_tensor(array(runif(prod(shape), -1, 1), dim = shape), requires_grad = TRUE)
  b <- torch_tensor(array(runif(prod(shape), -0.1, 0.1), dim = shape))
  nograd <- function() with_no_grad(chain(x, b))
  record <- function() chain(x, b)
  fwdbwd <- function() {
    x$grad$zero_()  # (in place, as R torch code does between steps)
    chain(x, b)$sum()$backward()
  }
  chain(x, b)$sum()$backward()
  fwdbwd()
  number <- if (quick) 3L else 10L
  report(sprintf("%s_nograd_us_per_op", label), time_it(nograd, number) / n_ops * 1e6)
  report(sprintf("%s_record_us_per_op", label), time_it(record, number) / n_ops * 1e6)
  report(sprintf("%s_fwdbwd_us_per_op", label), time_it(fwdbwd, number) / n_ops * 1e6)
}

# -- the workloads shared with r_instructions.py (w6_workloads.R / .py) ---------------------------
w6_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
source(file.path(w6_dir, "w6_workloads.R"))

r_custom()
r_builtin()
number <- if (quick) 5L else 30L
report("linear_custom_us_per_call", time_it(r_custom, number) * 1e6)
report("linear_builtin_us_per_call", time_it(r_builtin, number) * 1e6)

# -- the same work from R and from Python, in this process, timed interleaved ------------------
# Python's side runs in the Python reticulate started here (the same rtorchpy), timed inside
# Python (a loop of `number` calls, perf_counter: w6_workloads.py's timed()), so no crossing is
# counted on its side. See interleaved() below for how the samples are taken and the ratios
# formed.
py_sampler <- function(name) function(number) reticulate::py_to_r(w6py$timed(name, number))

now <- function() as.numeric(Sys.time())  # µs resolution (proc.time()'s elapsed has 1 ms)

# per-call seconds of `number` calls of an R function
r_sample <- function(f, number) {
  t0 <- now()
  for (i in seq_len(number)) f()
  (now() - t0) / number
}
r_sampler <- function(f) function(number) r_sample(f, number)

# `number` of calls for a sample of ~`target` seconds of `sample(number)` (per-call seconds);
# the calls made here are also the warm-up. The first calls are not timed: R's JIT compiles a
# workload's closure on one of its first calls (7.6 ms for the SGD step), and a calibration
# that timed it stopped at n = 1 and sized the R side's samples at 1-3 calls, each sample then
# mostly the cold first call after the round's gc() (measured that way, the SGD step was
# 2.4-2.5x Python's and the training step 2.5x; in samples of the intended length 2.0-2.1x
# and 1.7x).
calibrate <- function(sample, target) {
  for (i in 1:3) sample(1L)
  n <- 1L
  repeat {
    t <- sample(n) * n
    if ((t > 0 && t >= target / 4) || n >= 1e6) break
    n <- n * 4L
  }
  max(1L, as.integer(round(target * n / max(t, 1e-9))))
}

# Median per-call seconds of R (`fr`) and Python (`fp`), each a function(number) giving per-call
# seconds of a sample, and the median over rounds of the per-round ratio R / Python. On the
# shared VM the machine's speed moves by 2x within seconds, so a round is two short samples
# (~sample_s each, back to back, which side goes first alternating by round) and the ratio is
# judged paired, round by round; the per-side medians are reported beside it. Before each round
# a full gc() runs, untimed: R collects the handles the previous samples left dead (their
# finalizers queue releases of the Python objects), so that a full collection (~150 ms here:
# R's heap with reticulate loaded is ~90 MB) does not fall into one side's sample by chance,
# and both sides start from the same heap. Then one call of each side, untimed: the first call
# after gc() runs ~1.5x slower (caches cold after the collection's walk of the heap; the
# queued releases are sent to Python at the first crossing). Collections triggered by a
# sample's own allocations stay in it (R's side pays for its garbage). n_rounds is even, so
# each side goes first equally often.
interleaved <- function(fr, fp) {
  nr <- calibrate(fr, sample_s)
  np <- calibrate(fp, sample_s)
  rs <- ps <- numeric(n_rounds)
  for (r in seq_len(n_rounds)) {
    invisible(gc())
    fr(1L)
    fp(1L)
    if (r %% 2L == 1L) {
      rs[[r]] <- fr(nr)
      ps[[r]] <- fp(np)
    } else {
      ps[[r]] <- fp(np)
      rs[[r]] <- fr(nr)
    }
  }
  q <- quantile(rs / ps, c(0.25, 0.5, 0.75), names = FALSE)
  list(r = median(rs), py = median(ps), ratio = q[[2]], q1 = q[[1]], q3 = q[[3]])
}

# RESULT <name>_r_<suffix>, <name>_py_<suffix> (µs, per op when `per` > 1), <name>_ratio (the
# median of the paired ratios) and <name>_ratio_q1/_q3 (their quartiles over the rounds)
report_pair <- function(name, v, suffix = "us", per = 1) {
  report(sprintf("%s_r_%s", name, suffix), v$r / per * 1e6)
  report(sprintf("%s_py_%s", name, suffix), v$py / per * 1e6)
  report_ratio(name, v)
}
report_ratio <- function(name, v) {
  report(sprintf("%s_ratio", name), v$ratio)
  report(sprintf("%s_ratio_q1", name), v$q1)
  report(sprintf("%s_ratio_q3", name), v$q3)
}

n_rounds <- if (quick) 6L else 20L
sample_s <- if (quick) 0.01 else 0.03
report_pair("chain100", interleaved(r_sampler(r_chain), py_sampler("chain")), "us_per_op", n_ops)
report_pair("sgd", interleaved(r_sampler(r_sgd), py_sampler("sgd")), "us_per_step")
report_pair("mul4", interleaved(r_sampler(r_mul), py_sampler("mul")))
v <- interleaved(r_sampler(r_method), r_sampler(r_function))
report("method_us", v$r * 1e6)
report("function_us", v$py * 1e6)
report_ratio("method", v)
v <- interleaved(r_sampler(r_method_floor), r_sampler(r_function))
report("method_floor_us", v$r * 1e6)
report_ratio("method_floor", v)
report_pair("model_fwd", interleaved(r_sampler(r_model_fwd), py_sampler("model_fwd")))
report_pair("opt_step", interleaved(r_sampler(r_opt_step), py_sampler("opt_step")))
w6_step_only_setup()
report_pair("opt_step_only", interleaved(r_sampler(r_opt_step_only), py_sampler("opt_step_only")))
