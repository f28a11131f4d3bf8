# Numerical gradient checks, Jacobians, Hessians and vector products with R functions.
skip_if_no_python()

test_that("autograd_gradcheck accepts correct gradients and catches wrong ones", {
  x <- torch_randn(3, dtype = torch_float64(), requires_grad = TRUE)
  expect_true(autograd_gradcheck(function(a) (a * a)$sum(), x))
  expect_true(autograd_gradcheck(function(a, b) a * b + b$exp(),
                                 list(torch_randn(2, requires_grad = TRUE),
                                      torch_randn(2, requires_grad = TRUE))))
  wrong <- autograd_function(
    forward = function(ctx, x) {
      ctx$save_for_backward(x = x)
      x^2
    },
    backward = function(ctx, g) list(x = 3 * ctx$saved_variables$x * g)
  )
  expect_false(autograd_gradcheck(function(a) wrong(a), x, raise_exception = FALSE))
  expect_error(autograd_gradcheck(function(a) wrong(a), x), "Jacobian")
  expect_error(autograd_gradcheck(function(a) stop("inside gradcheck"), x), "inside gradcheck")
  expect_true(autograd_gradgradcheck(function(a) (a^3)$sum(), x))
})

test_that("Jacobian, Hessian, vjp and jvp", {
  x <- torch_tensor(c(1, 2, 3))
  j <- autograd_jacobian(function(a) a^2, x)
  expect_equal(as_array(j), diag(c(2, 4, 6)))
  h <- autograd_hessian(function(a) (a^3)$sum(), x)
  expect_equal(as_array(h), diag(c(6, 12, 18)))
  jl <- autograd_jacobian(function(a, b) a * b, list(x, torch_tensor(c(4, 5, 6))))
  expect_type(jl, "list")
  expect_equal(as_array(jl[[1]]), diag(c(4, 5, 6)))
  expect_equal(as_array(jl[[2]]), diag(c(1, 2, 3)))
  r <- autograd_vjp(function(a) a^2, x, torch_ones(3))
  expect_equal(as_array(r[[1]]), c(1, 4, 9))
  expect_equal(as_array(r[[2]]), c(2, 4, 6))
  r <- autograd_jvp(function(a) a^2, x, torch_ones(3))
  expect_equal(as_array(r[[2]]), c(2, 4, 6))
})
