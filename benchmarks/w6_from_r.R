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

# the seeds' linear (R torch spelling: 1-based dims)
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

# zero the leaves' gradients in place, as R torch code does between steps (x$grad of a leaf
# that never had a backward is an undefined tensor, so a first backward runs before timing)
reset_grad <- function(...) for (t in list(...)) t$grad$zero_()
report <- function(name, value) cat(sprintf("RESULT %s %.6g\n", name, value))

set.seed(0)
for (shape in list(c(1L), c(4L, 4L))) {
  label <- paste(shape, collapse = "x")
  x <- torch_tensor(array(runif(prod(shape), -1, 1), dim = shape), requires_grad = TRUE)
  b <- torch_tensor(array(runif(prod(shape), -0.1, 0.1), dim = shape))
  nograd <- function() with_no_grad(chain(x, b))
  record <- function() chain(x, b)
  fwdbwd <- function() {
    reset_grad(x)
    chain(x, b)$sum()$backward()
  }
  chain(x, b)$sum()$backward()
  fwdbwd()
  number <- if (quick) 3L else 10L
  report(sprintf("%s_nograd_us_per_op", label), time_it(nograd, number) / n_ops * 1e6)
  report(sprintf("%s_record_us_per_op", label), time_it(record, number) / n_ops * 1e6)
  report(sprintf("%s_fwdbwd_us_per_op", label), time_it(fwdbwd, number) / n_ops * 1e6)
}

xi <- torch_tensor(matrix(rnorm(8 * 16), 8, 16), requires_grad = TRUE)
wi <- torch_tensor(matrix(rnorm(4 * 16), 4, 16) / 4, requires_grad = TRUE)
bi <- torch_tensor(rnorm(4), requires_grad = TRUE)
custom <- function() {
  reset_grad(xi, wi, bi)
  linear(xi, wi, bi)$sum()$backward()
}
builtin <- function() {
  reset_grad(xi, wi, bi)
  (xi$mm(wi$t()) + bi)$sum()$backward()
}
linear(xi, wi, bi)$sum()$backward()
custom()
builtin()
number <- if (quick) 5L else 30L
report("linear_custom_us_per_call", time_it(custom, number) * 1e6)
report("linear_builtin_us_per_call", time_it(builtin, number) * 1e6)

# -- the same work from R and from Python, in this process, timed interleaved ------------------
# Python's side runs in the Python reticulate started here (the same rtorchpy), timed inside
# Python (a loop of `number` calls, perf_counter), so no crossing is counted on its side. Each
# sample times R then Python; the ratios are of the medians.
reticulate::py_run_string("
import time as _time
import rtorchpy as _rt

def _chain(y):
    for _ in range(25):
        y = y * 1.01
        y = y + 0.1
        y = _rt.torch_sin(y)
        y = _rt.torch_tanh(y)
    return y

def _timed(f, n):
    t0 = _time.perf_counter()
    for _ in range(n):
        f()
    return (_time.perf_counter() - t0) / n

_cx = _rt.torch_tensor([0.1, -0.2, 0.3, 0.4], requires_grad=True)
_chain(_cx).sum().backward()
def py_chain(n):
    def f():
        _cx.grad.zero_()
        _chain(_cx).sum().backward()
    return _timed(f, n)

_rt.torch_manual_seed(0)
_X = _rt.torch_randn(100, 3)
_Y = _X.matmul(_rt.torch_tensor([[1.0], [-2.0], [0.5]])) + 0.3
_w = _rt.torch_zeros(3, 1, requires_grad=True)
_b = _rt.torch_zeros(1, requires_grad=True)
def _sgd():
    loss = ((_X.matmul(_w) + _b - _Y) ** 2).mean()
    loss.backward()
    with _rt.with_no_grad():
        _w.sub_(_w.grad * 0.01)
        _b.sub_(_b.grad * 0.01)
        _w.grad.zero_()
        _b.grad.zero_()
def py_sgd(n):
    return _timed(_sgd, n)

_mx = _rt.torch_tensor([1.0, 2.0, 3.0, 4.0])
_my = _rt.torch_tensor([0.5, 0.25, 2.0, -1.0])
def py_mul(n):
    return _timed(lambda: _mx * _my, n)
", convert = FALSE)
py <- reticulate::import_main(convert = TRUE)

chain4 <- function(y) {
  for (i in 1:25) {
    y <- y * 1.01
    y <- y + 0.1
    y <- torch_sin(y)
    y <- torch_tanh(y)
  }
  y
}
cx <- torch_tensor(c(0.1, -0.2, 0.3, 0.4), requires_grad = TRUE)
chain4(cx)$sum()$backward()
r_chain <- function() {
  cx$grad$zero_()
  chain4(cx)$sum()$backward()
}

invisible(torch_manual_seed(0))
X <- torch_randn(100, 3)
Y <- X$matmul(torch_tensor(matrix(c(1, -2, 0.5), 3, 1))) + 0.3
w <- torch_zeros(3, 1, requires_grad = TRUE)
b <- torch_zeros(1, requires_grad = TRUE)
r_sgd <- function() {
  loss <- ((X$matmul(w) + b - Y)^2)$mean()
  loss$backward()
  with_no_grad({
    w$sub_(w$grad * 0.01)
    b$sub_(b$grad * 0.01)
    w$grad$zero_()
    b$grad$zero_()
  })
}
r_sgd()

mx <- torch_tensor(c(1, 2, 3, 4))
my <- torch_tensor(c(0.5, 0.25, 2, -1))
r_mul <- function() mx * my
r_method <- function() mx$sin()
r_function <- function() torch_sin(mx)

# per-call seconds of `number` calls of an R function
r_sample <- function(f, number) {
  t0 <- proc.time()[[3L]]
  for (i in seq_len(number)) f()
  (proc.time()[[3L]] - t0) / number
}

interleaved <- function(fr, fp, number, n = n_repeat) {
  rs <- ps <- numeric(0)
  for (r in seq_len(n + 1L)) {
    a <- r_sample(fr, number)
    p <- fp(number)
    if (r > 1L) {
      rs <- c(rs, a)
      ps <- c(ps, p)
    }
  }
  c(median(rs), median(ps))
}

k <- if (quick) 0.3 else 1
v <- interleaved(r_chain, py$py_chain, max(2L, as.integer(20 * k)))
report("chain100_r_us_per_op", v[[1]] / n_ops * 1e6)
report("chain100_py_us_per_op", v[[2]] / n_ops * 1e6)
report("chain100_ratio", v[[1]] / v[[2]])
v <- interleaved(r_sgd, py$py_sgd, max(20L, as.integer(300 * k)))
report("sgd_r_us_per_step", v[[1]] * 1e6)
report("sgd_py_us_per_step", v[[2]] * 1e6)
report("sgd_ratio", v[[1]] / v[[2]])
v <- interleaved(r_mul, py$py_mul, max(200L, as.integer(3000 * k)))
report("mul4_r_us", v[[1]] * 1e6)
report("mul4_py_us", v[[2]] * 1e6)
report("mul4_ratio", v[[1]] / v[[2]])
v <- interleaved(r_method, function(number) r_sample(r_function, number),
                 max(200L, as.integer(3000 * k)))
report("method_us", v[[1]] * 1e6)
report("function_us", v[[2]] * 1e6)
report("method_ratio", v[[1]] / v[[2]])
