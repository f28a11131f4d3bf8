# Mish, rrelu's random slopes, sparsemax, the multilabel margin and CTC losses from R: values
# recorded from PyTorch 2.13, R torch's conventions (1-based dims and label targets, raw CTC
# classes), classed errors, no leak across the bridge.

x <- torch_tensor(rbind(c(-2.5, -0.3, 0, 0.7), c(1.5, -1.1, 3, -4)), dtype = torch_float64())

test_that("mish and rrelu give PyTorch's values", {
  expect_equal(as.numeric(as_array(nnf_mish(x)))[1:2],
               c(-0.19681620390653337, 1.4033782663958028))
  expect_equal(as.numeric(as_array(nn_mish()(x)))[8], -0.07259174079202535)
  torch_manual_seed(42)
  y <- nnf_rrelu(x$to(dtype = torch_float32()), training = TRUE)
  expect_equal(as.numeric(as_array(y))[c(1, 3)], c(-0.34278881549835205, -0.041431888937950134),
               tolerance = 1e-7)
  m <- nn_rrelu(0.1, 0.3)
  m$train()
  slopes <- as.numeric(as_array(m(-torch_ones(10))))
  expect_true(all(slopes <= -0.1 & slopes > -0.3))
  z <- x$clone()
  nnf_rrelu_(z)
  expect_equal(as.numeric(as_array(z))[1], -2.5 * (1 / 8 + 1 / 3) / 2)
})

test_that("sparsemax projects onto the simplex along a 1-based dim", {
  s <- nnf_contrib_sparsemax(x, dim = 2)
  expect_equal(as.numeric(as_array(s$sum(dim = 2))), c(1, 1))
  expect_equal(as.numeric(as_array(s[1, ])), c(0, 0, 0.15, 0.85))
  s1 <- nn_contrib_sparsemax(dim = 1)(x)
  expect_equal(as.numeric(as_array(s1$sum(dim = 1))), rep(1, 4))
  expect_equal(as.numeric(as_array(nnf_contrib_sparsemax(x))), as.numeric(as_array(s)))
  expect_error(nnf_contrib_sparsemax(x, dim = 3), "Dimension out of range", class = "index_error")
})

test_that("multilabel margin loss takes 1-based labels ended by -1; a 0 is an error", {
  y <- torch_tensor(rbind(c(4, 1, -1, 2), c(2, 3, -1, 1)), dtype = torch_long())
  xx <- x$clone()$requires_grad_(TRUE)
  l <- nnf_multilabel_margin_loss(xx, y, reduction = "none")
  expect_equal(as.numeric(as_array(l)), c(1.75, 0.9))
  l$sum()$backward()
  expect_equal(as.numeric(as_array(xx$grad[1, ])), c(-0.5, 0.5, 0.5, -0.5))
  expect_equal(nn_multilabel_margin_loss()(x, y)$item(), 1.325)
  expect_error(nnf_multilabel_margin_loss(x, y[, 1:2]), "inconsistent target size",
               class = "runtime_error")
  # as R torch converts index tensors: no class 0, and the loss's node is libtorch's
  y0 <- torch_tensor(rbind(c(4, 0, -1, 2), c(2, 3, -1, 1)), dtype = torch_long())
  expect_error(nn_multilabel_margin_loss()(x, y0), "Indexing starts at 1 but found a 0",
               class = "index_error")
  expect_equal(capture.output(print(l$grad_fn)), "MultilabelMarginLossBackward0")
})

test_that("ctc loss gives PyTorch's values, blank and targets as stored", {
  lp <- nnf_log_softmax(torch_tensor(array(sin(0:39), c(4, 2, 5)), dtype = torch_float64())$permute(c(3, 2, 1)), 3)
  lp <- lp$detach()$requires_grad_(TRUE)
  tg <- torch_tensor(rbind(c(1, 3, 3), c(2, 0, 0)), dtype = torch_long())
  l <- nnf_ctc_loss(lp, tg, c(5, 4), c(3, 1), reduction = "none")
  expect_equal(as.numeric(as_array(l)), c(6.248234874462638, 3.134033397761906))
  expect_output(print(l$grad_fn), "CtcLossBackward0")
  m <- nn_ctc_loss()
  expect_equal(m(lp, tg, c(5, 4), c(3, 1))$item(), 2.6083891779580597)
  m(lp, tg, c(5, 4), c(3, 1))$backward()
  expect_equal(as.numeric(as_array(lp$grad[5, 2, ])), rep(0, 4))
  expect_error(nnf_ctc_loss(lp, tg, c(6, 4), c(3, 1)), "input_lengths to have value at most 5",
               class = "runtime_error")
  expect_error(nnf_ctc_loss(lp, tg, c(5, 4), c(3, 1), blank = 4), "blank must be in label range")
})

test_that("the new layers do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  tg <- torch_tensor(rbind(c(1, 2), c(2, 2)), dtype = torch_long())
  y <- torch_tensor(rbind(c(2, -1, -1), c(1, 3, -1)), dtype = torch_long())
  body <- function(i) {
    a <- torch_randn(4, 2, 3, requires_grad = TRUE)
    l <- nnf_ctc_loss(nnf_log_softmax(a, 3), tg, c(4, 4), c(2, 2)) +
      nnf_multilabel_margin_loss(a[1, , ], y) + nnf_mish(a)$sum() +
      nnf_contrib_sparsemax(a)$sum() + nnf_rrelu(a, training = TRUE)$sum()
    l$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
