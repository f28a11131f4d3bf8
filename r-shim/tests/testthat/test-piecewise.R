# Piecewise gradients select as libtorch does (no NaN from the branch not taken), NaN incoming
# gradients land where libtorch puts them, shape mismatches give libtorch's text, and x$mT()
# stays a method. Expected values are libtorch's (PyTorch 2.13).
skip_if_no_python()

grad_of <- function(x, f, g = NULL) {
  y <- f(x)
  if (is.null(g)) y$sum()$backward() else y$backward(g)
  as_array(x$grad)
}

test_that("relu, clamp and max() select instead of multiplying by a mask", {
  f64 <- function(v) torch_tensor(v, dtype = torch_float64(), requires_grad = TRUE)
  expect_equal(grad_of(f64(c(-0.5, 0, 0.5)), function(x) x$relu()$sqrt()),
               c(0, 0, 1 / (2 * sqrt(0.5))))
  expect_equal(grad_of(f64(c(-0.5, 0.5, NaN)), function(x) x$clamp(min = 0)$sqrt()),
               c(0, 1 / (2 * sqrt(0.5)), 0))
  expect_equal(grad_of(f64(c(-1, 0.5, 2)), function(x) x$clamp(0, 1)$log()), c(0, 2, 0))
  expect_equal(grad_of(f64(c(1, 3, 2)), function(x) (x$max() - 3)$sqrt()), c(0, Inf, 0))
  # second order of relu(x)^1.5 at and below the kink
  x <- f64(c(-0.5, 0, 0.5))
  g <- autograd_grad((x$relu()^1.5)$sum(), x, create_graph = TRUE)[[1]]
  h <- autograd_grad(g$sum(), x)[[1]]
  expect_equal(as_array(h), c(0, 0, 0.75 / sqrt(0.5)))
})

test_that("NaN incoming gradients land where libtorch puts them", {
  f64 <- function(v) torch_tensor(v, dtype = torch_float64(), requires_grad = TRUE)
  nan <- torch_tensor(NaN, dtype = torch_float64())$squeeze()
  expect_equal(grad_of(f64(c(1, 3, 3, -1)), function(x) x$max(), nan), c(0, NaN, NaN, 0))
  a <- f64(c(1, 2, 3, NaN))
  b <- f64(c(2, 2, 1, 1))
  torch_maximum(a, b)$backward(torch_tensor(rep(NaN, 4), dtype = torch_float64()))
  expect_equal(as_array(a$grad), c(0, NaN, NaN, NaN))
  expect_equal(as_array(b$grad), c(NaN, NaN, 0, NaN))
  expect_equal(grad_of(f64(c(1, 0, 0)), function(x) x$prod(), nan), c(0, 0, 0))
})

test_that("a shape mismatch is libtorch's RuntimeError text", {
  expect_error(torch_ones(3) + torch_ones(4),
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0",
               fixed = TRUE)
  expect_error(torch_ones(2, 3)$mm(torch_ones(4, 5)),
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", fixed = TRUE)
})

test_that("mT is a method in R, as in R torch", {
  x <- torch_ones(2, 3, 4)
  expect_equal(x$mT()$shape, c(2L, 4L, 3L))
  expect_equal(torch_mT(x)$shape, c(2L, 4L, 3L))
  expect_error(torch_ones(3)$mT(), "tensor.mT is only supported on matrices", fixed = TRUE)
})
