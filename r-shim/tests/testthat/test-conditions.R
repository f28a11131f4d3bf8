# Errors are R torch's classed conditions (value_error, type_error, runtime_error,
# not_implemented_error), also of class "error", whichever path raised them: Python through
# the C bridge, Python through reticulate, R code, or C.

expect_condition_class <- function(expr, cls) {
  e <- tryCatch(expr, error = function(e) e)
  expect_s3_class(e, cls)
  expect_s3_class(e, "rtorchpy_error")
  expect_s3_class(e, "error")
  expect_false(grepl("Traceback|File \"|rtorchpy/", conditionMessage(e)))
  invisible(e)
}

test_that("shape errors from Python are runtime_errors with R torch's 1-based message", {
  x <- torch_ones(2, 3)
  e <- expect_condition_class(torch_matmul(x, x), "runtime_error")
  expect_match(conditionMessage(e), "cannot be multiplied")
  e <- expect_condition_class(x$sum(dim = 5), "index_error")
  expect_match(conditionMessage(e), "Dimension out of range")
  expect_s3_class(e, "value_error")  # an index_error is a value_error too
})

test_that("bad arguments give value_error and type_error", {
  expect_condition_class(torch_ones(2, requires_grad = NA), "type_error")
  expect_condition_class(optim_sgd(list(torch_ones(2, requires_grad = TRUE)), lr = -1),
                         "value_error")
  expect_condition_class(torch_ones(2, 3, require_grad = TRUE), "value_error")
  expect_condition_class(torch_tensor(function(x) x), "type_error")
})

test_that("the error class survives every bridge path", {
  x <- torch_randn(3)
  # generated op wrapper (C fast path), a method, a function with keyword arguments
  expect_condition_class(torch_reshape(x, c(2, 2)), "runtime_error")
  expect_condition_class(x$view(c(4, 4)), "runtime_error")
  expect_condition_class(nnf_softmax(x, dim = 7), "index_error")
  withr::with_envvar(c(RTORCHPY_DIRECT = "0"), {
    expect_condition_class(torch_reshape(x, c(2, 2)), "runtime_error")
  })
})

test_that("things rtorchpy does not do are not_implemented_errors", {
  expect_condition_class(torch_ones(2)$cuda(), "not_implemented_error")
})

test_that("a tensor restored from a file is a classed runtime_error from C", {
  f <- tempfile(fileext = ".rds")
  saveRDS(torch_ones(2), f)
  x <- readRDS(f)
  e <- expect_condition_class(x + 1, "runtime_error")
  expect_match(conditionMessage(e), "external pointer is not valid")
})

test_that("handlers for R torch's classes catch our errors", {
  caught <- tryCatch(torch_ones(2)$sum(dim = 3), value_error = function(e) "value")
  expect_equal(caught, "value")
  expect_error(torch_ones(2, 2)$mm(torch_ones(3, 3)), class = "runtime_error")
})

test_that("long messages arrive whole", {
  # the message names a 600-element shape: ~1,800 characters, past the 1,000 C used to keep
  e <- expect_condition_class(torch_ones(2)$view(rep(1, 600)), "runtime_error")
  expect_gt(nchar(conditionMessage(e)), 1500)
  expect_match(conditionMessage(e), "input of size 2$")
})

test_that("a Python error outside the bridge's guards is classed too, with its whole message", {
  rtorchpy:::.ensure_python()
  bad_value <- reticulate::py_eval("lambda: int('not a number')", convert = FALSE)
  e <- expect_condition_class(c_call(bad_value, list(), NULL), "value_error")
  expect_match(conditionMessage(e), "invalid literal")
  bad_type <- reticulate::py_eval("lambda: len(3)", convert = FALSE)
  expect_condition_class(c_call(bad_type, list(), NULL), "type_error")
  long <- reticulate::py_eval("lambda: (_ for _ in ()).throw(RuntimeError('y' * 5000))",
                              convert = FALSE)
  e <- expect_condition_class(c_call(long, list(), NULL), "runtime_error")
  expect_equal(nchar(conditionMessage(e)), 5000)
})
