# Test helpers, as in R torch's tests/testthat/helper-tensor.R.

# Without Python (or without the rtorchpy Python package) every test file is skipped, unless
# RTORCHPY_REQUIRE_PYTHON=1 (the pytest entry sets it): then the missing setup is an error.
skip_if_no_python <- function() {
  if (rtorchpy::rtorchpy_available()) return(invisible(TRUE))
  if (identical(Sys.getenv("RTORCHPY_REQUIRE_PYTHON"), "1")) {
    stop("RTORCHPY_REQUIRE_PYTHON=1 but Python with the rtorchpy package is not usable: ",
         tryCatch(rtorchpy::torch_ones(1), error = conditionMessage))
  }
  testthat::skip("Python with the rtorchpy package is not available")
}

expect_equal_to_r <- function(object, expected, ...) {
  expect_equal(as_array(object$cpu()), expected, ...)
}

expect_equal_to_tensor <- function(object, expected, ...) {
  expect_equal(as_array(object), as_array(expected), ...)
}

expect_tensor <- function(object) {
  expect_true(is_torch_tensor(object))
  expect_no_error(as_array(object$to(device = "cpu")))
}

# R torch's helper is a no-op ("TODO"); here it checks.
expect_undefined_tensor <- function(object) {
  expect_true(is_undefined_tensor(object))
}

expect_no_error <- function(object, ...) {
  expect_error(object, NA, ...)
}

expect_tensor_shape <- function(object, expected) {
  expect_tensor(object)
  expect_equal(object$shape, expected)
}

expect_grad_fn <- function(object, name) {
  expect_equal(capture.output(print(object$grad_fn)), name)
}
