# Careless input from R: NA, wrong flags, misspelled arguments and bad state setters give clear
# errors and leave the session's state as it was.

test_that("NA arguments are errors naming the argument, never -2^31 or TRUE", {
  x <- torch_randn(3, 3)
  expect_error(torch_diag(x, diagonal = NA_integer_), "'diagonal' is NA")
  expect_error(x$diag(NA_integer_), "'diagonal' is NA")
  expect_error(torch_diagonal(x, offset = NA_integer_), "'offset' is NA")
  expect_error(torch_tril(x, diagonal = NA_integer_), "'diagonal' is NA")
  expect_error(torch_randperm(NA_integer_), "'n' is NA")
  expect_error(torch_linspace(NA_integer_, 1, 3), "'start' is NA")
  expect_error(torch_sum(x, 1, keepdim = NA), "'keepdim' is NA")
  expect_error(x$sum(dim = 1, keepdim = NA), "'keepdim' is NA")
  expect_error(nnf_softmax(x, dim = NA), "'dim' is NA")
  expect_error(x$reshape(c(9L, NA)), "is NA")
  expect_error(x$to(dtype = NA), "'dtype' is NA")
  expect_error(x + NA, "is NA")
  expect_error(torch_zeros(2, NA), "whole numbers")
  # NA_real_ is a number (NaN), as in R torch
  expect_true(is.nan(as_array(torch_tensor(1) + NA_real_)))
  # (tests/test_rbridge_safety.py runs this file through reticulate and the Python callers too)
})

test_that("NA indices are errors; a logical NA is not TRUE", {
  x <- torch_arange(1, 6)$reshape(c(2, 3))
  before <- as_array(x)
  expect_error(x[NA], "an index is NA")
  expect_error(x[c(1, NA)], "an index is NA")
  expect_error(x[slc(NA_integer_, 2)], "slice's `start` is NA")
  expect_error(x[1:NA_integer_], "is NA")
  expect_error(x[NA] <- 1, "an index is NA")
  expect_identical(as_array(x), before)
})

test_that("flags take TRUE or FALSE only", {
  expect_error(torch_ones(2, requires_grad = NA), "`requires_grad` must be TRUE or FALSE")
  expect_error(torch_ones(2, requires_grad = new.env()), "`requires_grad` must be TRUE or FALSE")
  expect_error(torch_ones(2, requires_grad = "yes"), "`requires_grad` must be TRUE or FALSE")
  expect_error(torch_tensor(1, requires_grad = 1), "`requires_grad` must be TRUE or FALSE")
  x <- torch_ones(2)
  expect_error(x$requires_grad_(NA), "must be TRUE or FALSE")
  expect_error(x$requires_grad <- "no", "`requires_grad` must be TRUE or FALSE")
  expect_false(x$requires_grad)
  m <- nn_linear(2, 2)
  expect_error(m$train(NA), "`mode` must be TRUE or FALSE")
  expect_true(m$training)
})

test_that("a misspelled argument is an error, not a size", {
  expect_error(torch_zeros(2, 2, require_grad = TRUE), "unused argument `require_grad`")
  expect_error(torch_randn(3)$view(3, dtype = 1), "unused argument `dtype`")
  expect_equal(dim(torch_zeros(size = c(2, 3))), c(2L, 3L))
  expect_equal(dim(torch_randn(6)$reshape(shape = c(3, 2))), c(3L, 2L))
})

test_that("state setters refuse bad input and leave the state as it was", {
  state <- function() list(grad = rtorchpy:::.set_grad_mode(TRUE), dtype = torch_get_default_dtype())
  rtorchpy:::.set_grad_mode(TRUE)
  start <- state()
  expect_error(autograd_set_grad_mode(1), "`enabled` must be TRUE or FALSE")
  expect_error(autograd_set_grad_mode("yes"), "`enabled` must be TRUE or FALSE")
  expect_error(autograd_set_grad_mode(NA), "`enabled` must be TRUE or FALSE")
  f <- function() local_no_grad(.env = 1)
  expect_error(f(), "`.env` must be an environment")
  g <- function() local_enable_grad(.env = "x")
  expect_error(g(), "`.env` must be an environment")
  expect_error(torch_set_default_dtype(NULL), "must be a floating point dtype")
  expect_error(torch_set_default_dtype("double"), "must be a floating point dtype")
  expect_error(with_no_grad(stop("inside")), "inside")
  expect_error(with_enable_grad(stop("inside")), "inside")
  expect_error(with_detect_anomaly(stop("inside")), "inside")
  expect_false(rtorchpy:::.set_anomaly(FALSE))
  expect_error(torch_manual_seed("a"), "seed")
  expect_error(torch_manual_seed(NA), "seed")
  expect_identical(state(), start)
  x <- torch_ones(1, requires_grad = TRUE)
  expect_true((x * 2)$requires_grad)
})

test_that("bad input leaks nothing across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  x <- torch_randn(3, 3)
  run <- function(n) {
    for (i in seq_len(n)) {
      try(torch_diag(x, diagonal = NA_integer_), silent = TRUE)
      try(x[NA], silent = TRUE)
      try(torch_ones(2, requires_grad = NA), silent = TRUE)
      try(x$sum(dim = 1, keepdim = NA), silent = TRUE)
    }
  }
  run(10)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))
})

test_that("an R complex number is never taken for a tensor, whatever its imaginary part", {
  x <- torch_ones(2)
  for (z in c(1 - 7.25i, 2 - 7.25i, 0.5 - 7.25i, 3 + 1i)) {
    expect_error(torch_sum(z), "complex")
    expect_error(x + z, "complex")
    expect_error(x$add(z), "complex")
    expect_error(torch_cat(list(x, z)), "complex")
  }
  # the handle of a live tensor, retyped as a number, is refused too (keys are sparse and
  # random per session)
  k <- Re(rtorchpy:::.h(x))
  expect_true(k > 2^40 && k < 2^53)
  expect_error(torch_sum(complex(real = k + 1, imaginary = -7.25)), "complex")
})

test_that("an environment-like object that is not a tensor is refused as a bad argument", {
  x <- torch_ones(2, requires_grad = TRUE)
  hook <- x$register_hook(function(g) g)
  on.exit(hook$remove())
  np <- reticulate::import("numpy", convert = FALSE)
  classed_env <- structure(new.env(), class = "my_thing")
  for (v in list(hook, np, classed_env)) {
    what <- paste0("can't use an object of class '", class(v)[[1]], "' as a tensor or a number")
    expect_error(torch_add(x, v), what, fixed = TRUE, class = "type_error")
    expect_error(x + v, what, fixed = TRUE)
    expect_error(x$mul(v), what, fixed = TRUE)
    expect_error(torch_cat(list(x, v)), what, fixed = TRUE)
  }
  # refused in R, before Python: nothing is left behind however often it happens
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) try(x * hook, silent = TRUE)
  run(20)
  before <- live()
  run(200)
  expect_true(all(live() - before < 20))
})
