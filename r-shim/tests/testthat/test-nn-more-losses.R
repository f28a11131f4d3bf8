# More losses from R: values recorded from PyTorch 2.13 (1-based class targets), modules,
# and no leak across the bridge.

test_that("margin and embedding losses give PyTorch's values", {
  a <- torch_tensor(rbind(c(0.5, -1.2, 0.3), c(2.0, 0.1, -0.7)), dtype = torch_float64())
  b <- torch_tensor(rbind(c(-0.4, 0.9, 1.1), c(0.3, -0.2, 0.8)), dtype = torch_float64())
  pm <- torch_tensor(rbind(c(1, -1, 1), c(-1, -1, 1)), dtype = torch_float64())
  expect_equal(nn_hinge_embedding_loss(margin = 0.7)(a, pm)$item(), 0.4333333333333333)
  expect_equal(nn_soft_margin_loss()(a, pm)$item(), 0.877704235998111)
  expect_equal(nn_margin_ranking_loss(0.2)(a, b, pm)$item(), 0.85)
  expect_equal(nn_cosine_embedding_loss(0.1)(a, b, torch_tensor(c(1, -1)))$item(), 0.741132285040214)
  expect_equal(nn_multi_margin_loss()(a, torch_tensor(c(3L, 1L)))$item(), 0.19999999999999998)
  expect_equal(nn_triplet_margin_loss()(a, b, a * 0.5)$item(), 2.4899593349440936)
  y <- torch_tensor(rbind(c(1, 0, 1), c(0, 0, 1)), dtype = torch_float64())
  expect_equal(nn_multilabel_soft_margin_loss()(a, y)$item(), 0.8777042359981111)
  p <- nnf_log_softmax(a, 2)
  q <- nnf_softmax(b, 2)
  expect_equal(nn_kl_div_loss(reduction = "batchmean")(p, q)$item(),
               nnf_kl_div(p, q, reduction = "batchmean")$item())
  expect_error(nn_multi_margin_loss()(a, torch_tensor(c(0L, 1L))), "1-based")
  expect_error(nn_multi_margin_loss()(a, torch_tensor(c(4L, 1L))), "out of range")
})

test_that("losses do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  body <- function(i) {
    a <- torch_randn(3, 4, requires_grad = TRUE)
    l <- nn_multi_margin_loss()(a, torch_tensor(c(1L, 4L, 2L))) +
      nn_triplet_margin_loss()(a, a * 2, -a) + nn_soft_margin_loss()(a, a$sign())
    l$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
