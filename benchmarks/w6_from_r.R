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
