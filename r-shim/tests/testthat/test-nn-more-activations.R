# More activations from R: values recorded from PyTorch 2.13, 1-based dims, R torch's modules.

test_that("activations give PyTorch's values", {
  x <- torch_tensor(rbind(c(-2, -0.5, 0, 0.7, 3, -4)), dtype = torch_float64())
  expect_equal(as.numeric(as_array(nnf_celu(x, 0.7))),
               c(-0.6597971665126678, -0.3573208383101328, 0, 0.7, 3, -0.6976910459708426))
  expect_equal(as.numeric(as_array(nnf_softmin(x, 2)))[1:2],
               c(0.11335985573451791, 0.02529400276444588))
  expect_equal(as.numeric(as_array(nn_glu(2)(x))),
               c(-1.3363755443363323, -0.4762870634112167, 0))
  expect_equal(as.numeric(as_array(nn_hardswish()(x)))[4], 0.43166666666666664)
  expect_equal(as.numeric(as_array(nn_softsign()(x)))[4], 0.4117647058823529)
  expect_equal(as.numeric(as_array(nn_tanhshrink()(x)))[5], 2.0049452463132695)
  expect_equal(as.numeric(as_array(nn_threshold(0.5, -9)(x))), c(-9, -9, -9, 0.7, 3, -9))
  r <- nn_rrelu()
  r$eval()
  expect_equal(as.numeric(as_array(r(x)))[1], -0.4583333333333333)
  p <- nn_prelu(6)
  y <- p(x$view(c(1, 6, 1)))
  expect_equal(as.numeric(as_array(y))[1], -0.5)
  y$sum()$backward()
  expect_equal(as.numeric(as_array(p$weight$grad)), c(-2, -0.5, 0, 0, 0, -4))
  expect_equal(nn_log_sigmoid()(torch_zeros(2))$shape, 2)
  expect_error(nnf_glu(torch_randn(2, 5), 2), "Halving dimension must be even")
})

test_that("activations do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  p <- nn_prelu(3)
  body <- function(i) {
    x <- torch_randn(2, 3, requires_grad = TRUE)
    (p(x) + nnf_glu(x$repeat_interleave(2L, dim = 2), 2) + nn_celu()(x))$sum()$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
