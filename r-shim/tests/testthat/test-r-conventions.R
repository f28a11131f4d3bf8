# R conventions: tensors compare by value, R torch's conversion errors, no accelerators, the
# Math and Summary groups, and base's %*% left alone for base matrices.
skip_if_no_python()

test_that("all.equal compares tensors by dtype, shape and values", {
  expect_true(all.equal(torch_tensor(c(1, 2)), torch_tensor(c(1, 2))))
  expect_match(all.equal(torch_tensor(1), torch_tensor(2)), "Mean relative difference")
  expect_equal(all.equal(torch_tensor(1), torch_tensor(1L)), "dtypes differ: Float and Long")
  expect_equal(all.equal(torch_tensor(c(1, 2)), torch_tensor(matrix(c(1, 2), 1))),
               "shapes differ: {2} and {1,2}")
  expect_true(all.equal(torch_tensor(1), torch_tensor(1 + 1e-10)))
  expect_false(isTRUE(all.equal(torch_tensor(1), torch_tensor(1.1), tolerance = 1e-3)))
  expect_true(all.equal(torch_tensor(c(1, 2)), c(1, 2)))  # against R values: the values
  expect_false(isTRUE(all.equal(torch_tensor(c(1, 2)), c(1, 3))))
})

test_that("testthat's expect_equal (waldo) sees a tensor's dtype, shape and values", {
  local_edition(3)
  expect_equal(torch_tensor(c(1, 2)), torch_tensor(c(1, 2)))
  expect_failure(expect_equal(torch_tensor(1), torch_tensor(2)))
  expect_failure(expect_equal(torch_tensor(1), torch_tensor(1L)))
  expect_failure(expect_equal(torch_tensor(c(1, 1)), torch_tensor(matrix(1, 1, 2))))
  # inside lists too: different tensors are not identical() to each other
  expect_failure(expect_equal(list(a = torch_tensor(c(1, 2))), list(a = torch_tensor(c(1, 3)))))
  expect_equal(list(a = torch_tensor(c(1, 2))), list(a = torch_tensor(c(1, 2))))
  x <- torch_tensor(1)
  expect_true(identical(x, x))
  expect_false(identical(x, torch_tensor(1)))
  local_edition(2)
  expect_failure(expect_equal(torch_tensor(1), torch_tensor(2)))
})

test_that("lists and data frames are not converted to tensors, as in R torch", {
  expect_error(torch_tensor(data.frame(a = 1:2, b = 3:4)), "R type not handled", fixed = TRUE)
  expect_error(torch_tensor(list(1, 2)), "R type not handled", fixed = TRUE)
  expect_error(torch_tensor(list(torch_tensor(1), torch_tensor(2))), "R type not handled",
               fixed = TRUE)
  expect_equal(as_array(torch_tensor(as.matrix(data.frame(a = 1:2, b = 3:4)))),
               matrix(1:4, 2, dimnames = NULL))
})

test_that("no CUDA and no MPS: the usual device choice picks the CPU", {
  expect_false(cuda_is_available())
  expect_false(backends_mps_is_available())
  expect_identical(cuda_device_count(), 0L)
  device <- if (cuda_is_available()) "cuda" else "cpu"
  expect_equal(torch_ones(2, device = device)$device$type, "cpu")
})

test_that("the Math group covers the trigonometric and hyperbolic functions", {
  v <- c(-0.5, 0.1, 0.7)
  x <- torch_tensor(v, dtype = torch_float64())
  for (f in c("acos", "asin", "atan", "cosh", "sinh", "tanh", "cos", "sin", "tan", "exp",
              "expm1", "log1p", "abs", "sign", "floor", "ceiling", "trunc", "asinh", "atanh")) {
    fun <- get(f, baseenv())
    expect_equal(as_array(fun(x)), fun(v), tolerance = 1e-12, info = f)
  }
  expect_equal(as_array(acosh(x + 2)), acosh(v + 2), tolerance = 1e-12)
  expect_equal(as_array(round(torch_tensor(c(1.26, -2.34)), 1)), c(1.3, -2.3), tolerance = 1e-6)
  expect_equal(as_array(log(torch_tensor(8), 2)), 3, tolerance = 1e-6)
  # derivatives come from the op's own backward node
  y <- torch_tensor(0.5, requires_grad = TRUE)
  z <- asin(y)
  expect_grad_fn(z, "AsinBackward0")
  z$backward()
  expect_equal(as_array(y$grad), 1 / sqrt(1 - 0.25), tolerance = 1e-6)
  expect_error(gamma(x), "`gamma()` is not implemented for tensors", fixed = TRUE)
})

test_that("max, min, sum and prod take several tensors and dim =", {
  a <- torch_tensor(c(1, 5))
  b <- torch_tensor(c(3, -2))
  expect_equal(as_array(max(a, b)), 5)
  expect_equal(as_array(min(a, b)), -2)
  expect_equal(as_array(sum(a, b)), 7)
  expect_equal(as_array(prod(a, b)), -30)
  expect_equal(as_array(sum(a, b, 10)), 17)      # numbers join in, as in base R
  expect_equal(as_array(range(a, b)), c(-2, 5))
  m <- torch_tensor(matrix(c(1, 4, 3, 2), 2))       # rows (1, 3) and (4, 2)
  expect_equal(as_array(sum(m, dim = 1)), c(5, 5))
  expect_equal(as_array(sum(m, dim = 2)), c(4, 6))
  expect_equal(as_array(prod(m, dim = 2)), c(3, 8))
  mx <- max(m, dim = 2)                              # values and 1-based indices, as R torch
  expect_equal(as_array(mx[[1]]), c(3, 4))
  expect_equal(as_array(mx[[2]]), c(2L, 1L))
  expect_equal(as_array(min(m, dim = 1)[[1]]), c(1, 2))
  expect_error(max(a, b, dim = 1), "takes no `dim`")
  expect_error(sum(a, foo = 1), "unused argument to `sum()`: foo", fixed = TRUE)
})

test_that("%*% leaves base matrices to base and multiplies tensors", {
  m <- matrix(c(1, 2, 3, 4), 2)
  expect_identical(m %*% m, base::`%*%`(m, m))
  expect_identical(1:3 %*% 1:3, base::`%*%`(1:3, 1:3))
  expect_error(m %*% matrix(1, 3, 3), "non-conformable")
  expect_equal(as_array(torch_tensor(m) %*% m), m %*% m, tolerance = 1e-6)
  expect_equal(as_array(m %*% torch_tensor(m)), m %*% m, tolerance = 1e-6)
  if (getRversion() >= "4.3.0") {
    expect_identical(rtorchpy::`%*%`, .Primitive("%*%"))   # matrixOps does the dispatch
  } else {
    # before R 4.3: a class-free matrix never reaches the tensor path
    expect_true(is.function(rtorchpy::`%*%`))
    expect_true("is.object" %in% all.names(body(rtorchpy::`%*%`)))
  }
})
