# W12 from R: one shuffled epoch over a tensor_dataset (60,000 x 784 float32 rows and 60,000
# labels, batch 128) from R and, in the same process, from Python (the Python that reticulate
# started here, timed inside Python); then a per-item R dataset() (10,000 items, batch 32),
# items per second; then num_workers = 2 against 0 when .getitem costs 1 ms.
# Prints "RESULT <name> <value>" lines that w12_dataloader.py reads.
# Usage: Rscript benchmarks/w12_dataloader.R [quick]
suppressPackageStartupMessages(library(rtorchpy))

quick <- length(commandArgs(trailingOnly = TRUE)) > 0 && commandArgs(trailingOnly = TRUE)[1] == "quick"
rounds <- if (quick) 3L else 7L

torch_manual_seed(1)
x <- torch_randn(60000, 784)
y <- torch_randint(0, 10, 60000)
dl <- dataloader(tensor_dataset(x, y), batch_size = 128, shuffle = TRUE)

r_epoch <- function() {
  it <- dataloader_make_iter(dl)
  n <- 0L
  while (!is.null(b <- dataloader_next(it))) n <- n + 1L
  stopifnot(n == 469L)
}

reticulate::py_run_string("
import time
import rtorchpy as _rt
def _w10_setup(x, y):
    global _w10_dl
    _w10_dl = _rt.dataloader(_rt.tensor_dataset(x, y), batch_size=128, shuffle=True)
def _w10_epoch():
    t0 = time.perf_counter()
    n = sum(1 for _ in _w10_dl)
    assert n == 469
    return time.perf_counter() - t0
", convert = FALSE)
main <- reticulate::import_main(convert = FALSE)
# the same tensors, looked up in the bridge's registry
reg <- reticulate::import("rtorchpy._r.handles", convert = FALSE)
main$`_w10_setup`(reg$`_get`(rtorchpy:::.h(x)), reg$`_get`(rtorchpy:::.h(y)))
py_epoch <- function() reticulate::py_to_r(main$`_w10_epoch`())

elapsed <- function(f) {
  t0 <- proc.time()[["elapsed"]]
  f()
  proc.time()[["elapsed"]] - t0
}

# warm-up (the first passes take fresh memory), then interleaved rounds
for (i in 1:2) { r_epoch(); py_epoch() }
r_s <- py_s <- numeric(0)
for (i in seq_len(rounds)) {
  if (i %% 2L == 1L) {
    r_s <- c(r_s, elapsed(r_epoch))
    py_s <- c(py_s, py_epoch())
  } else {
    py_s <- c(py_s, py_epoch())
    r_s <- c(r_s, elapsed(r_epoch))
  }
}
ratio <- r_s / py_s
cat("RESULT tensor_epoch_r_s", median(r_s), "\n")
cat("RESULT tensor_epoch_py_s", median(py_s), "\n")
cat("RESULT tensor_epoch_ratio", median(ratio), "\n")
cat("RESULT tensor_epoch_ratio_q1", quantile(ratio, 0.25)[[1]], "\n")
cat("RESULT tensor_epoch_ratio_q3", quantile(ratio, 0.75)[[1]], "\n")

# a per-item dataset of R closures: each item a small tensor and a label
items <- dataset(
  initialize = function(n, cost = 0) {
    self$n <- n
    self$cost <- cost
  },
  .getitem = function(i) {
    if (self$cost > 0) Sys.sleep(self$cost)
    list(x = torch_tensor(c(i, i / 2, i / 3, i / 4)), y = i %% 10L)
  },
  .length = function() self$n
)
epoch_of <- function(ds, workers) function() {
  it <- dataloader_make_iter(dataloader(ds, batch_size = 32, shuffle = TRUE,
                                        num_workers = workers))
  while (!is.null(b <- dataloader_next(it))) NULL
}
n_items <- if (quick) 2000L else 10000L
per_item <- epoch_of(items(n_items), 0L)
per_item()
t <- median(vapply(seq_len(if (quick) 1L else 3L), function(i) elapsed(per_item), 1))
cat("RESULT per_item_items_per_s", n_items / t, "\n")

# .getitem costing 1 ms (a sleep: the work of reading a file, say): 2 workers against none
n_slow <- if (quick) 640L else 1280L
slow <- items(n_slow, cost = 0.001)
t0 <- median(vapply(1:(if (quick) 1L else 3L), function(i) elapsed(epoch_of(slow, 0L)), 1))
t2 <- median(vapply(1:(if (quick) 1L else 3L), function(i) elapsed(epoch_of(slow, 2L)), 1))
cat("RESULT slow_items_per_s_w0", n_slow / t0, "\n")
cat("RESULT slow_items_per_s_w2", n_slow / t2, "\n")
cat("RESULT slow_ratio_w2_w0", t2 / t0, "\n")
