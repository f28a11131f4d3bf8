# Recurrent layers and packed sequences from R: R torch's return structure, 1-based names
# and indices, values recorded from PyTorch 2.13 (tests/fixtures/rnn_torch.json, case
# lstm_basic and gru_packed_unsorted), libtorch's errors, and no leak across the bridge.

test_that("nn_lstm gives PyTorch's weights, outputs and gradients for a seed", {
  torch_manual_seed(17)
  m <- nn_lstm(3, 4)
  expect_equal(names(m$parameters), c("weight_ih_l1", "weight_hh_l1", "bias_ih_l1",
                                      "bias_hh_l1"))
  expect_equal(as_array(m$weight_ih_l1[1, ]), c(-0.06575876, 0.03510958, 0.33020872),
               tolerance = 1e-6)
  x <- torch_randn(5, 2, 3, requires_grad = TRUE)
  h0 <- torch_randn(1, 2, 4)
  c0 <- torch_randn(1, 2, 4)
  out <- m(x, list(h0, c0))
  expect_length(out, 2)
  expect_length(out[[2]], 2)
  expect_equal(out[[1]]$shape, c(5, 2, 4))
  expect_equal(as_array(out[[1]][5, 1, ]), c(0.04276, 0.17563, -0.01765, 0.01699),
               tolerance = 1e-4)
  expect_equal(as_array(out[[2]][[2]][1, 2, ]), c(-0.11633, 0.06394, -0.23008, -0.12404),
               tolerance = 1e-4)
  loss <- (out[[1]] * torch_randn(5, 2, 4))$sum() + (out[[2]][[1]] * torch_randn(1, 2, 4))$sum() +
    (out[[2]][[2]] * torch_randn(1, 2, 4))$sum()
  loss$backward()
  expect_equal(as_array(m$weight_hh_l1$grad[1, ]), c(0.00496, 0.05115, -0.00722, 0.04547),
               tolerance = 1e-3)
  expect_equal(out[[1]]$grad_fn$name, "MkldnnRnnLayerBackward0")
})

test_that("nn_gru and nn_rnn: shapes, batch_first, bidirectional, unbatched input", {
  g <- nn_gru(3, 5, num_layers = 2, batch_first = TRUE, bidirectional = TRUE)
  r <- g(torch_randn(2, 7, 3))
  expect_equal(r[[1]]$shape, c(2, 7, 10))
  expect_equal(r[[2]]$shape, c(4, 2, 5))
  expect_true("weight_hh_l2_reverse" %in% names(g$parameters))
  e <- nn_rnn(3, 4, nonlinearity = "relu")
  expect_equal(e(torch_randn(6, 3))[[1]]$shape, c(6, 4))
  expect_error(nn_rnn(3, 4, nonlinearity = "sigmoid"), "Unknown nonlinearity")
  p <- nn_lstm(3, 5, proj_size = 2)
  expect_equal(p(torch_randn(4, 1, 3))[[2]][[1]]$shape, c(1, 1, 2))
  expect_equal(p$weight_hr_l1$shape, c(2, 5))
})

test_that("packed sequences: 1-based permutations, PyTorch's values, round trip", {
  torch_manual_seed(17)
  m <- nn_gru(2, 3, num_layers = 2)$to(dtype = torch_float64())
  x <- torch_randn(5, 3, 2, dtype = torch_float64(), requires_grad = TRUE)
  h0 <- torch_randn(2, 3, 3, dtype = torch_float64(), requires_grad = TRUE)
  p <- nn_utils_rnn_pack_padded_sequence(x, c(2, 5, 3), enforce_sorted = FALSE)
  expect_s3_class(p, "PackedSequence")
  expect_equal(as_array(p$sorted_indices), c(2, 3, 1))
  expect_equal(as_array(p$unsorted_indices), c(3, 1, 2))
  expect_equal(as_array(p$batch_sizes), c(3, 3, 2, 1, 1))
  out <- m(p, h0)
  expect_s3_class(out[[1]], "PackedSequence")
  un <- nn_utils_rnn_pad_packed_sequence(out[[1]])
  expect_equal(as_array(un[[2]]), c(2, 5, 3))
  expect_equal(as_array(un[[1]][2, 1, ]), c(-0.335693, 0.011932, 0.421121), tolerance = 1e-5)
  expect_equal(as_array(out[[2]][2, 1, ]), c(-0.335693, 0.011932, 0.421121), tolerance = 1e-5)
  un[[1]]$sum()$backward()
  expect_equal(x$grad$shape, c(5, 3, 2))
  expect_equal(as_array(x$grad[5, 1, ]), c(0, 0))  # past the first sequence's end
  s <- nn_utils_rnn_pad_sequence(list(torch_ones(2), torch_ones(3)), batch_first = TRUE)
  expect_equal(as_array(s), rbind(c(1, 1, 0), c(1, 1, 1)))
  q <- nn_utils_rnn_pack_sequence(list(torch_ones(3, 1), torch_ones(1, 1)))
  expect_equal(as_array(q$batch_sizes), c(2, 1, 1))
})

test_that("bad input gets libtorch's messages as R errors", {
  m <- nn_lstm(3, 4, num_layers = 2)
  expect_error(m(torch_randn(5, 2, 7)),
               "input.size(-1) must be equal to input_size. Expected 3, got 7", fixed = TRUE)
  expect_error(m(torch_randn(5, 2, 3), list(torch_zeros(1, 2, 4), torch_zeros(2, 2, 4))),
               "Expected hidden[0] size (2, 2, 4), got [1, 2, 4]", fixed = TRUE)
  expect_error(nn_utils_rnn_pack_padded_sequence(torch_randn(4, 3, 2), c(2, 4, 1)),
               "must be sorted in decreasing order when `enforce_sorted` is True", fixed = TRUE)
  expect_error(nn_lstm(2, 3, proj_size = 3), "proj_size has to be smaller than hidden_size")
  expect_warning(nn_gru(2, 3, dropout = 0.5), "non-zero dropout expects num_layers")
})

test_that("recurrent layers and packing do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  m <- nn_lstm(2, 3, bidirectional = TRUE)
  body <- function(i) {
    x <- torch_randn(4, 2, 2, requires_grad = TRUE)
    p <- nn_utils_rnn_pack_padded_sequence(x, c(4, 2))
    out <- m(p)
    nn_utils_rnn_pad_packed_sequence(out[[1]])[[1]]$sum()$backward()
    m(x)[[2]][[1]]$sum()$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
