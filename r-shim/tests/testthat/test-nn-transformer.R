# Attention from R: R torch's arguments and return structure, values recorded from PyTorch 2.13
# for seeded modules, masks, and no leak across the bridge.

test_that("nn_multihead_attention gives PyTorch's weights and values for a seed", {
  torch_manual_seed(5)
  m <- nn_multihead_attention(8, 2)
  expect_equal(as_array(m$in_proj_weight[1, 1:3]), c(-0.06893947, 0.32769206, 0.39922667),
               tolerance = 1e-6)
  torch_manual_seed(9)
  q <- torch_randn(4, 3, 8)
  r <- m(q, q, q)
  expect_length(r, 2)
  expect_equal(as_array(r[[1]][1, 1, 1:3]), c(-0.08711912, 0.34040982, 0.08497524),
               tolerance = 1e-5)
  expect_equal(as_array(r[[2]][1, 1, 1:3]), c(0.23311576, 0.16971771, 0.33830199),
               tolerance = 1e-5)
  expect_equal(r[[2]]$shape, c(3, 4, 4))
  expect_equal(m(q, q, q, avg_weights = FALSE)[[2]]$shape, c(3, 2, 4, 4))
  expect_null(m(q, q, q, need_weights = FALSE)[[2]])
  kpm <- torch_tensor(matrix(c(FALSE, FALSE, TRUE, TRUE), 3, 4, byrow = TRUE))
  w <- m(q, q, q, key_padding_mask = kpm)[[2]]
  expect_equal(as_array(w[, , 3:4]$sum()), 0)
  b <- nn_multihead_attention(8, 2, kdim = 3, vdim = 5, batch_first = TRUE)
  expect_equal(b(torch_randn(2, 4, 8), torch_randn(2, 6, 3), torch_randn(2, 6, 5))[[1]]$shape,
               c(2, 4, 8))
  expect_error(nn_multihead_attention(8, 3), "divisible")
})

test_that("nn_transformer_encoder_layer and nn_transformer_encoder", {
  torch_manual_seed(3)
  l <- nn_transformer_encoder_layer(16, 4, dim_feedforward = 32, dropout = 0)
  torch_manual_seed(4)
  x <- torch_randn(5, 2, 16, requires_grad = TRUE)
  y <- l(x)
  expect_equal(as_array(y[1, 1, 1:3]), c(-0.70889187, 1.21563327, 0.32176718), tolerance = 1e-5)
  enc <- nn_transformer_encoder(l, num_layers = 2, enable_nested_tensor = FALSE)
  expect_equal(length(enc$layers), 2)
  expect_equal(as_array(enc$layers[[2]]$linear1$weight), as_array(l$linear1$weight))
  out <- enc(x, is_causal = TRUE)
  out$sum()$backward()
  expect_equal(x$grad$shape, c(5, 2, 16))
  pre <- nn_transformer_encoder_layer(8, 2, dim_feedforward = 16, norm_first = TRUE,
                                      activation = "gelu", batch_first = TRUE)
  expect_equal(pre(torch_randn(3, 4, 8))$shape, c(3, 4, 8))
  expect_error(l(x, src_mask = torch_zeros(5, 5), is_causal = TRUE), "src_mask")
})

test_that("scaled dot-product attention: masks and causal", {
  q <- torch_randn(2, 5, 4)
  a <- torch_scaled_dot_product_attention(q, q, q, is_causal = TRUE)
  m <- torch_ones(5, 5)$tril()$to(dtype = torch_bool())
  b <- nnf_scaled_dot_product_attention(q, q, q, attn_mask = m)
  expect_equal(as_array(a), as_array(b), tolerance = 1e-6)
  expect_equal(as_array(a[, 1, ]), as_array(q[, 1, ]), tolerance = 1e-6)
})

test_that("attention does not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  l <- nn_transformer_encoder_layer(8, 2, dim_feedforward = 16)
  body <- function(i) {
    x <- torch_randn(4, 2, 8, requires_grad = TRUE)
    l(x, is_causal = TRUE)$sum()$backward()
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(10)
  before <- live()
  run(100)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})

test_that("nn_embedding_bag: 1-based indices, offsets, modes, PyTorch's values for a seed", {
  torch_manual_seed(2)
  m <- nn_embedding_bag(5, 3, mode = "sum")
  expect_equal(as_array(m$weight[1, ]), c(0.39229682, -0.22356401, -0.31950027),
               tolerance = 1e-6)
  out <- m(torch_tensor(rbind(c(2L, 3L), c(5L, 1L))))
  expect_equal(as_array(out[1, ]), c(-0.63193035, 1.58541095, -1.02513361), tolerance = 1e-5)
  flat <- m(torch_tensor(c(2L, 3L, 5L, 1L)), offsets = torch_tensor(c(0L, 2L)))
  expect_equal(as_array(flat), as_array(out), tolerance = 1e-6)
  mx <- nn_embedding_bag(5, 3, mode = "max", padding_idx = 2)
  expect_equal(as_array(mx$weight[2, ]), c(0, 0, 0))
  expect_equal(mx(torch_tensor(rbind(c(2L, 2L))))$shape, c(1, 3))
  expect_equal(as_array(mx(torch_tensor(rbind(c(2L, 2L))))), matrix(0, 1, 3))
})
