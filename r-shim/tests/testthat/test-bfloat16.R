# bfloat16 (issue 33): float32 values on the bfloat16 grid, tagged; see rtorchpy/ops/bf16.py.

bf <- function(v) torch_tensor(v, dtype = torch_bfloat16())

test_that("torch_bfloat16() is a floating point dtype printed as R torch prints it", {
  d <- torch_bfloat16()
  expect_output(print(d), "^torch_BFloat16$")
  expect_true(d$is_floating_point)
  expect_true(d == torch_bfloat16())
  expect_false(d == torch_float32())
  expect_equal(torch_finfo(d)$eps, 0.0078125)
  expect_equal(torch_finfo(d)$bits, 16L)
  expect_equal(torch_finfo(d)$max, 3.3895313892515355e+38)
  expect_equal(torch_finfo(d)$tiny, 1.1754943508222875e-38)
})

test_that("a bfloat16 tensor rounds, prints and converts as R torch's does", {
  x <- bf(c(1.5, 2.123))
  expect_true(x$dtype == torch_bfloat16())
  expect_true(x$is_floating_point())
  expect_equal(capture.output(print(x)),
               c("torch_tensor", " 1.5000", " 2.1250", "[ CPUBFloat16Type{2} ]"))
  expect_identical(as_array(x), c(1.5, 2.125))
  expect_true(x$to(dtype = torch_float32())$dtype == torch_float32())
  expect_true(torch_tensor(c(1.5, 2.123))$bfloat16()$dtype == torch_bfloat16())
  expect_identical(as_array(torch_tensor(2.123)$to(dtype = torch_bfloat16())), 2.125)
  expect_true(torch_ones(2, 3, dtype = torch_bfloat16())$dtype == torch_bfloat16())
  expect_identical(as_array(torch_full(c(2), 0.1, dtype = torch_bfloat16())),
                   c(0.10009765625, 0.10009765625))
})

test_that("ops on bfloat16 give bfloat16 (PyTorch 2.13's values) and promote as libtorch", {
  x <- bf(c(1.5, 2.123, -0.3))
  expect_identical(as_array(x * 3), c(4.5, 6.375, -0.90234375))
  expect_identical(as_array(x + 1.7), c(3.203125, 3.828125, 1.40625))
  expect_identical(as_array(torch_exp(x)), c(4.46875, 8.375, 0.7421875))
  expect_true(torch_sin(x)$dtype == torch_bfloat16())
  expect_identical(as_array(x$sum()), 3.328125)
  expect_true((x > 2)$dtype == torch_bool())
  expect_identical(as_array(x > 2), c(FALSE, TRUE, FALSE))
  m <- bf(matrix(c(1.1, 2.2, 3.3, 4.4), 2))
  expect_true(torch_matmul(m, m)$dtype == torch_bfloat16())
  expect_true((x + torch_tensor(c(1, 2, 3)))$dtype == torch_float32())
  expect_true((x + torch_tensor(c(1L, 2L, 3L)))$dtype == torch_bfloat16())
  expect_true((x + torch_tensor(c(1, 2, 3), dtype = torch_float16()))$dtype == torch_float32())
  expect_true((x + torch_tensor(c(1, 2, 3), dtype = torch_float64()))$dtype == torch_float64())
  expect_true((x + torch_scalar_tensor(1.5))$dtype == torch_bfloat16())
})

test_that("writing into a bfloat16 tensor rounds what is written", {
  x <- torch_zeros(3, dtype = torch_bfloat16())
  x[2] <- 2.123
  expect_true(x$dtype == torch_bfloat16())
  expect_identical(as_array(x), c(0, 2.125, 0))
})

test_that("gradients of bfloat16 leaves are bfloat16", {
  x <- torch_tensor(c(1.5, 2.123, -0.3), dtype = torch_bfloat16(), requires_grad = TRUE)
  y <- (torch_exp(x) * x)$sum()
  y$backward()
  expect_true(x$grad$dtype == torch_bfloat16())
  # PyTorch 2.13: exp(x) * x + exp(x), each op rounded to bfloat16
  expect_identical(as_array(x$grad), c(11.125, 26.125, 0.51953125))
})

test_that("save and load keep bfloat16", {
  x <- bf(c(1.5, 2.123, -0.3))
  f <- tempfile(fileext = ".pt")
  on.exit(unlink(f))
  torch_save(x, f)
  y <- torch_load(f)
  expect_true(y$dtype == torch_bfloat16())
  expect_identical(as_array(y), as_array(x))
})

test_that("what bfloat16 cannot do is an error naming bfloat16", {
  expect_error(torch_fft_fft(bf(c(1, 2, 3, 4))), "bfloat16")
})

test_that("bfloat16 tensors crossing to R do not leak", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    x <- torch_tensor(c(1.5, 2.123), dtype = torch_bfloat16(), requires_grad = TRUE)
    y <- (x * x + 1.7)$sum()
    y$backward()
    as_array(x$grad)
    as_array(x$detach()$to(dtype = torch_float32()))
    capture.output(print(x))
  }
  run(10)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
