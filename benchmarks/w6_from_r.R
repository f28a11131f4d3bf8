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
# Python (a loop of `number` calls, perf_counter), so no crossing is counted on its side. See
# interleaved() below for how the samples are taken and the ratios formed.
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

# a small model and its training step (model_fwd, opt_step, opt_step_only); weights and data are
# set from R's (py_model_init) so that both sides compute the same numbers
import numpy as _np
_model = _rt.nn_sequential(_rt.nn_linear(3, 8), _rt.nn_relu(), _rt.nn_linear(8, 1))
_opt = _rt.optim_sgd(_model.parameters, lr=0.01)
_x16 = _rt.torch_randn(16, 3)
_y16 = _rt.torch_randn(16, 1)

def _f32(a, shape):
    # `a` is R's array flattened (column-major): reticulate here cannot convert R arrays to
    # NumPy, so plain vectors cross (a list, or a float for one value)
    return _rt.torch_tensor(_np.asarray(a, dtype=_np.float32).reshape(shape, order='F'))

def py_model_init(params, x, y):
    global _x16, _y16
    ps = list(_model.parameters.values())
    assert len(ps) == len(params)
    with _rt.with_no_grad():
        for p, a in zip(ps, params):
            p.copy_(_f32(a, tuple(p.shape)))
    _x16 = _f32(x, (16, 3))
    _y16 = _f32(y, (16, 1))
    return _model(_x16).tolist()

def py_model_fwd(n):
    return _timed(lambda: _model(_x16), n)

def _opt_step():
    _opt.zero_grad()
    loss = _rt.nnf_mse_loss(_model(_x16), _y16)
    loss.backward()
    _opt.step()
def py_opt_step(n):
    return _timed(_opt_step, n)

def py_backward_once():
    _opt.zero_grad()
    _rt.nnf_mse_loss(_model(_x16), _y16).backward()
def py_opt_step_only(n):
    return _timed(_opt.step, n)
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
invisible(r_sgd())

mx <- torch_tensor(c(1, 2, 3, 4))
my <- torch_tensor(c(0.5, 0.25, 2, -1))
r_mul <- function() mx * my
r_method <- function() mx$sin()
r_function <- function() torch_sin(mx)

# the same small model and training step from R, with the Python model given R's weights and data
model <- nn_sequential(nn_linear(3, 8), nn_relu(), nn_linear(8, 1))
opt <- optim_sgd(model$parameters, lr = 0.01)
x16 <- torch_randn(16, 3)
y16 <- torch_randn(16, 1)
flat <- function(t) as.numeric(as_array(t))
py_out <- py$py_model_init(unname(lapply(model$parameters, flat)), flat(x16), flat(y16))
r_out <- flat(model(x16))
if (max(abs(r_out - unlist(py_out))) > 1e-5) stop("the R and Python models differ")
r_model_fwd <- function() model(x16)
r_opt_step <- function() {
  opt$zero_grad()
  loss <- nnf_mse_loss(model(x16), y16)
  loss$backward()
  opt$step()
}
invisible(r_opt_step())

now <- function() as.numeric(Sys.time())  # µs resolution (proc.time()'s elapsed has 1 ms)

# per-call seconds of `number` calls of an R function
r_sample <- function(f, number) {
  t0 <- now()
  for (i in seq_len(number)) f()
  (now() - t0) / number
}
r_sampler <- function(f) function(number) r_sample(f, number)

# `number` of calls for a sample of ~`target` seconds of `sample(number)` (per-call seconds);
# the calls made here are also the warm-up
calibrate <- function(sample, target) {
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
report_pair("chain100", interleaved(r_sampler(r_chain), py$py_chain), "us_per_op", n_ops)
report_pair("sgd", interleaved(r_sampler(r_sgd), py$py_sgd), "us_per_step")
report_pair("mul4", interleaved(r_sampler(r_mul), py$py_mul))
v <- interleaved(r_sampler(r_method), r_sampler(r_function))
report("method_us", v$r * 1e6)
report("function_us", v$py * 1e6)
report_ratio("method", v)
report_pair("model_fwd", interleaved(r_sampler(r_model_fwd), py$py_model_fwd))
report_pair("opt_step", interleaved(r_sampler(r_opt_step), py$py_opt_step))
# opt$step() alone, on the gradients of one backward (left in place: SGD without momentum
# moves the weights by the same step each call)
opt$zero_grad()
nnf_mse_loss(model(x16), y16)$backward()
py$py_backward_once()
report_pair("opt_step_only", interleaved(r_sampler(function() opt$step()), py$py_opt_step_only))
