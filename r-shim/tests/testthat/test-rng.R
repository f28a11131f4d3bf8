# R torch's (and PyTorch's) numbers for a seed: values recorded from PyTorch 2.13 for the
# same seeds (R torch gives the same numbers as PyTorch on the CPU).

test_that("a seed gives R torch's numbers", {
  torch_manual_seed(1)
  expect_equal(as_array(torch_randn(3)), c(0.6614, 0.2669, 0.0617), tolerance = 1e-4)
  torch_manual_seed(1)
  w <- nn_linear(3, 2)$weight
  expect_equal(as_array(w), rbind(c(0.2975, -0.2548, -0.1119), c(0.2710, -0.5435, 0.3462)),
               tolerance = 1e-4)
  # the same seed in Python and in R gives the same bits
  torch_manual_seed(42)
  a <- as_array(torch_randn(1000))
  torch_manual_seed(42)
  b <- as_array(torch_randn(10, 100))
  expect_identical(a[1:100], b[1, ])
})

test_that("torch_generator(), state and with_torch_manual_seed() behave as in R torch", {
  g <- torch_generator()
  g$set_current_seed(5)
  expect_equal(g$current_seed(), 5)
  torch_manual_seed(5)
  x <- as_array(torch_rand(10))
  torch_manual_seed(99)
  expect_identical(as_array(torch_rand(10, generator = g)), x)
  s <- torch_get_rng_state()
  y <- as_array(torch_randn(20))
  torch_set_rng_state(s)
  expect_identical(as_array(torch_randn(20)), y)
  before <- as_array(torch_get_rng_state())
  v <- with_torch_manual_seed(as_array(torch_randn(1)), seed = 1)
  expect_equal(v, 0.6614, tolerance = 1e-4)
  expect_identical(as_array(torch_get_rng_state()), before)
  f <- function() {
    local_torch_manual_seed(1)
    as_array(torch_randn(1))
  }
  expect_equal(f(), 0.6614, tolerance = 1e-4)
  expect_identical(as_array(torch_get_rng_state()), before)
  expect_error(torch_manual_seed(1.5), "whole number")
  expect_error(torch_rand(2, generator = 3), "generator")
})

test_that("generator = reaches the sampling ops and the in-place fills", {
  g <- torch_generator()
  g$set_current_seed(3)
  a <- as_array(torch_empty(5)$uniform_(generator = g))
  torch_manual_seed(3)
  expect_identical(as_array(torch_empty(5)$uniform_()), a)
  g$set_current_seed(3)
  m <- as_array(torch_multinomial(torch_tensor(c(1, 2, 3)), 2, generator = g))
  expect_true(all(m %in% 1:3))
  expect_true(all(as_array(torch_empty(10)$exponential_()) > 0))
})

test_that("generators do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    g <- torch_generator()
    g$set_current_seed(i)
    torch_randn(3, generator = g)
    g$get_state()
  }
  run(20)
  before <- live()
  run(500)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})

test_that("x$uniform_() takes R torch's from/to names", {
  torch_manual_seed(1)
  x <- torch_empty(3)$uniform_(from = -1, to = 1)
  # PyTorch 2.13: torch.manual_seed(1); torch.empty(3).uniform_(-1, 1)
  expect_equal(as_array(x), c(0.5153, -0.4414, -0.1939), tolerance = 1e-4)
})
