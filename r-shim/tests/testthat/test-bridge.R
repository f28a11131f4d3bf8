# The direct call path (src/pycall.c) and its fallbacks through reticulate.
skip_if_no_python()

test_that("bridge calls go through the direct path when libpython is found", {
  rt <- rtorchpy:::.rt
  expect_true(rt$direct)
  x <- torch_tensor(c(1, 2, 3))
  h <- rtorchpy:::.h(x)
  r <- .Call(rtorchpy:::rtp_call, rt$ops[["exp"]], list(h), NULL)
  expect_true(is.complex(r))
  # a reply that is not a handle is kept for reticulate to fetch
  expect_equal(.Call(rtorchpy:::rtp_call, rt$ops[["equal"]], list(h, h), NULL), as.raw(2L))
  expect_equal(rtorchpy:::.res(rtorchpy:::.call_slow(NULL, NULL, as.raw(2L), rtorchpy:::.a)), TRUE)
  # arguments it does not convert: not called
  expect_equal(.Call(rtorchpy:::rtp_call, rt$ops[["exp"]], list(c(h, h)), NULL), as.raw(1L))
  expect_equal(.Call(rtorchpy:::rtp_call, rt$ops[["exp"]], list(NA_integer_), NULL), as.raw(1L))
})

test_that("values, errors and scalars round-trip through the direct path", {
  x <- torch_tensor(c(1, 2, 3))
  expect_equal(x$numel(), 3L)
  expect_equal(as_array(x * 2L), c(2, 4, 6))
  expect_equal(as_array(x$sum(dim = 1L, keepdim = TRUE)), 6)
  expect_equal(as_array(torch_div(x, 2, rounding_mode = "floor")), c(0, 1, 1))
  expect_error(x$sum(dim = 3L), "Dimension out of range")
  expect_true(x$exp()$allclose(torch_exp(x)))
  # a Python exception raised outside the bridge's guards becomes an R error
  expect_error(rtorchpy:::.call(rtorchpy:::.rt$take_stash, list(1)), "argument")
})
