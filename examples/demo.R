# rtorchpy from R: code written for R torch's autograd, with only library() changed.
# Run with `make demo` (or: RETICULATE_PYTHON=.venv/bin/python R_LIBS=.rlib Rscript examples/demo.R).
suppressPackageStartupMessages(library(rtorchpy))

cat("== Tracking a computation ==\n")
x <- torch_ones(2, 2, requires_grad = TRUE)
print(x)
y <- x + 2
print(y$grad_fn)
z <- y * y * 3
out <- z$mean()
print(out)

cat("\n== Backward: d(out)/dx is a matrix of 4.5 ==\n")
out$backward()
print(x$grad)

cat("\n== A vector-Jacobian product ==\n")
x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
y <- 100 * x
y$backward(torch_tensor(c(0.1, 1.0, 0.0001)))
print(x$grad)

cat("\n== No recording inside with_no_grad() ==\n")
with_no_grad({
  print((x^2)$requires_grad)
})

cat("\n== A custom autograd function: ReLU ==\n")
relu <- autograd_function(
  forward = function(ctx, input) {
    mask <- input > 0
    ctx$save_for_backward(mask = mask)
    torch_where(mask, input, torch_tensor(0))
  },
  backward = function(ctx, grad_output) {
    list(input = grad_output * ctx$saved_variables$mask)
  }
)
x <- torch_tensor(c(-1, 3), requires_grad = TRUE)
r <- relu(x)
print(r)
(r^2)$sum()$backward()
print(x$grad)

cat("\n== g(x) = f(f(f(x))) with f(x) = x^2 + 3x + 2, at x = 2 ==\n")
f <- function(x) x^2 + 3 * x + 2
x <- torch_tensor(2, requires_grad = TRUE)
f(f(f(x)))$backward()
print(x$grad)

cat("\n== R conventions: 1-based dims and indices ==\n")
m <- torch_tensor(matrix(1:6, nrow = 2))
print(m[2, ])
print(m$sum(dim = 1))
print(m$max(dim = 2)[[2]])
