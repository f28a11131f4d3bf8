# Behaviour of the image layers that R torch code relies on beyond the values: a transposed
# convolution asked for an output size, old batch-norm state dicts, condition classes, the
# gradient through $to(), channel dropout's warnings, nnf_normalize(out = ).

test_that("a transposed convolution module picks its output_padding from output_size", {
  down <- nn_conv2d(4, 4, 3, stride = 2, padding = 1)
  up <- nn_conv_transpose2d(4, 4, 3, stride = 2, padding = 1)
  x <- torch_randn(2, 4, 10, 10)
  h <- down(x)
  expect_equal(h$shape, c(2, 4, 5, 5))
  expect_equal(up(h)$shape, c(2, 4, 9, 9))
  # the whole size or the spatial part only
  expect_equal(up(h, output_size = x$size())$shape, c(2, 4, 10, 10))
  expect_equal(up(h, output_size = c(9, 10))$shape, c(2, 4, 9, 10))
  # a size no output_padding reaches is a value_error naming the range
  expect_error(up(h, output_size = c(12, 12)), class = "value_error",
               regexp = "valid sizes range from \\[9, 9\\] to \\[10, 10\\]")
  expect_error(up(h, output_size = c(1, 2, 3)), class = "value_error",
               regexp = "output_size must have 2 or 4 elements")
  m1 <- nn_conv_transpose1d(3, 2, 4, stride = 3)
  expect_equal(m1(torch_randn(1, 3, 5), output_size = 18)$shape, c(1, 2, 18))
})

test_that("a batch-norm state dict without its batch counter loads, the counter as 0", {
  m <- nn_batch_norm2d(3)
  m(torch_randn(4, 3, 2, 2))
  s <- m$state_dict()
  expect_equal(s$num_batches_tracked$item(), 1)
  s$num_batches_tracked <- NULL
  m$load_state_dict(s)
  expect_length(m$state_dict(), 5)
  expect_equal(m$num_batches_tracked$item(), 0)
  # another missing key is still an error, of R torch's class
  s$running_var <- NULL
  expect_error(m$load_state_dict(s), class = "value_error", regexp = "running_var")
})

test_that("bad argument values are value_error conditions, as in R torch", {
  x <- torch_ones(1, 1, 2, 2)
  expect_error(nn_upsample()(x), class = "value_error")
  expect_error(nn_upsample(size = 4, scale_factor = 2)(x), class = "value_error")
  expect_error(nnf_interpolate(x, scale_factor = c(2, 2, 2)), class = "value_error")
  e <- tryCatch(nnf_interpolate(x), error = identity)
  expect_s3_class(e, "rtorchpy_error")
  # errors that are not about a value keep their classes only
  e <- tryCatch(nnf_conv2d(torch_randn(1, 5, 8, 8), torch_randn(4, 3, 3, 3)), error = identity)
  expect_false(inherits(e, "value_error"))
})

test_that("$to(dtype) converts a parameter's gradient with it", {
  net <- nn_sequential(nn_conv2d(1, 2, 3), nn_batch_norm2d(2))
  net(torch_randn(2, 1, 5, 5))$sum()$backward()
  net$to(dtype = torch_float64())
  expect_true(net[[1]]$weight$grad$dtype == torch_float64())
  expect_equal(net[[1]]$weight$grad$shape, c(2, 1, 3, 3))
  expect_true(net[[2]]$running_mean$dtype == torch_float64())
})

test_that("channel dropout warns about inputs of other ranks, as PyTorch does", {
  expect_warning(y <- nnf_dropout2d(torch_ones(3, 10, 10)), "3D input to dropout2d")
  expect_equal(y$shape, c(3, 10, 10))
  # a 3-d input is (N, C, L): one draw per row of the last dim
  v <- as_array(y)
  expect_true(all(v == v[, , rep(1, 10)]))
  expect_warning(nnf_dropout2d(torch_ones(3, 10)), "2-D input to dropout2d")
  expect_warning(nnf_dropout3d(torch_ones(3, 10)), "2-D input to dropout3d")
  expect_error(suppressWarnings(nnf_dropout2d(torch_ones(5))), "at least 2 dimensions")
  expect_equal(as.numeric(nnf_dropout2d(torch_randn(1, 2, 4, 4), p = 1)$abs()$sum()), 0)
})

test_that("nnf_normalize writes into out", {
  out <- torch_empty(2, 2)
  r <- nnf_normalize(torch_tensor(rbind(c(3, 4), c(0, 2))), dim = 2, out = out)
  expect_equal(as_array(out), rbind(c(0.6, 0.8), c(0, 1)), tolerance = 1e-6)
  expect_equal(as_array(r), as_array(out))
  expect_error(nnf_normalize(torch_ones(2, requires_grad = TRUE), dim = 1, out = torch_empty(2)),
               "don't support automatic differentiation")
})

test_that("layer-level torch_* functions take libtorch's arguments", {
  x <- torch_randn(2, 4, 6, 6)
  w <- torch_randn(3, 4, 3, 3)
  expect_equal(as_array(torch_conv2d(x, w, stride = 2, padding = 1)),
               as_array(nnf_conv2d(x, w, stride = 2, padding = 1)))
  expect_grad_fn(torch_conv2d(x$requires_grad_(TRUE), w), "ConvolutionBackward0")
  x <- x$detach()
  expect_equal(torch_conv1d(torch_randn(1, 2, 9), torch_randn(5, 2, 3))$shape, c(1, 5, 7))
  expect_equal(torch_conv3d(torch_randn(1, 2, 4, 4, 4), torch_randn(3, 2, 2, 2, 2))$shape,
               c(1, 3, 3, 3, 3))
  expect_equal(torch_conv_transpose2d(x, torch_randn(4, 2, 3, 3), stride = 2)$shape,
               c(2, 2, 13, 13))
  expect_equal(torch_conv_transpose1d(torch_randn(1, 2, 5), torch_randn(2, 3, 2))$shape, c(1, 3, 6))
  expect_equal(torch_conv_transpose3d(torch_randn(1, 2, 2, 2, 2), torch_randn(2, 1, 2, 2, 2))$shape,
               c(1, 1, 3, 3, 3))
  # time, batch, channels; weight (kernel, in, out)
  expect_equal(torch_conv_tbc(torch_randn(7, 2, 4), torch_randn(3, 4, 5), torch_randn(5), 1)$shape,
               c(7, 2, 5))
  tbc <- list(torch_randn(6, 2, 3), torch_randn(2, 3, 4), torch_randn(4))
  expect_equal(as_array(nnf_conv_tbc(tbc[[1]], tbc[[2]], tbc[[3]])),
               as_array(torch_conv_tbc(tbc[[1]], tbc[[2]], tbc[[3]], 0)))
  expect_equal(torch_max_pool2d(x, 2)$shape, c(2, 4, 3, 3))
  expect_equal(torch_max_pool1d(torch_randn(1, 2, 9), 3)$shape, c(1, 2, 3))
  expect_equal(torch_max_pool3d(torch_randn(1, 1, 4, 4, 4), 2)$shape, c(1, 1, 2, 2, 2))
  expect_equal(torch_avg_pool1d(torch_ones(1, 1, 4), 2, count_include_pad = FALSE)$shape,
               c(1, 1, 2))
  expect_equal(torch_adaptive_avg_pool1d(torch_randn(1, 2, 9), 3)$shape, c(1, 2, 3))
  r <- torch_adaptive_max_pool1d(torch_tensor(array(c(5, 1, 2, 9), c(1, 1, 4))), 2)
  expect_equal(as.numeric(r[[1]]), c(5, 9))
  expect_equal(as.numeric(r[[2]]), c(1, 4))  # 1-based
  rm <- torch_zeros(4)
  rv <- torch_ones(4)
  y <- torch_batch_norm(x, torch_ones(4), torch_zeros(4), rm, rv, TRUE, 0.1, 1e-5, FALSE)
  expect_equal(as.numeric(y$mean()), 0, tolerance = 1e-5)
  expect_true(as.numeric(rm$abs()$sum()) > 0)  # running stats updated in place
  expect_equal(torch_instance_norm(x, NULL, NULL, NULL, NULL, TRUE, 0.1, 1e-5, FALSE)$shape,
               x$shape)
  expect_equal(as_array(torch_layer_norm(x, c(6, 6))), as_array(nnf_layer_norm(x, c(6, 6))))
  expect_equal(as_array(torch_group_norm(x, 2)), as_array(nnf_group_norm(x, 2)))
  expect_equal(torch_pixel_shuffle(x, 2)$shape, c(2, 1, 12, 12))
  expect_equal(torch_pixel_unshuffle(x, 2)$shape, c(2, 16, 3, 3))
  s <- torch_channel_shuffle(torch_arange(1, 6)$view(c(1, 6, 1)), 2)
  expect_equal(as.numeric(s), c(1, 4, 2, 5, 3, 6))
  expect_equal(as.numeric(torch_constant_pad_nd(torch_ones(2), c(1, 2), value = 7)),
               c(7, 1, 1, 7, 7))
  e <- torch_arange(1, 10)$view(c(5, 2))
  expect_equal(as_array(torch_embedding(e, torch_tensor(c(1L, 5L)))), rbind(c(1, 2), c(9, 10)))
  ew <- torch_randn(5, 2, requires_grad = TRUE)
  torch_embedding(ew, torch_tensor(c(1L, 2L, 2L)), padding_idx = 2)$sum()$backward()
  expect_equal(as_array(ew$grad[, 1]), c(1, 0, 0, 0, 0))
})

test_that("grid sampling: bicubic, reflection padding and volumes, as PyTorch 2.13", {
  x <- torch_arange(1, 12, dtype = torch_float64())$view(c(1, 1, 3, 4)) / 10
  # expected values and grid gradients recorded from torch.nn.functional.grid_sample
  cases <- list(
    list("bicubic", "reflection", FALSE, c(0.663225, 0.28135, 1.182525),
         c(-0.1515, 0.6705, 0.204, 0.135, -0.2715, -0.135)),
    list("bilinear", "reflection", TRUE, c(0.625, 0.3575, 1.055),
         c(-0.15, 0.4, 0.15, 0.4, -0.15, -0.4)),
    list("bicubic", "border", TRUE, c(0.598590625, 0.3541871094, 1.2243),
         c(-0.02165625, 0.492, 0.1890703125, 0.303, 0, 0.189)))
  for (k in cases) {
    g <- torch_tensor(c(-1.3, 0.2, 0.45, -0.9, 1.7, 1.1), dtype = torch_float64())
    g <- g$view(c(1, 1, 3, 2))$requires_grad_(TRUE)
    y <- nnf_grid_sample(x, g, mode = k[[1]], padding_mode = k[[2]], align_corners = k[[3]])
    expect_equal(as.numeric(y$flatten()), k[[4]], tolerance = 1e-9)
    y$sum()$backward()
    expect_equal(as.numeric(g$grad$flatten()), k[[5]], tolerance = 1e-9)
  }
  v <- torch_arange(1, 24, dtype = torch_float64())$view(c(1, 1, 2, 3, 4))
  g3 <- torch_tensor(c(0.3, -0.6, 0.9, -1.4, 0.2, -0.1), dtype = torch_float64())
  y <- nnf_grid_sample(v, g3$view(c(1, 1, 1, 2, 3)), padding_mode = "reflection")
  expect_equal(as.numeric(y$flatten()), c(15.5, 11.3), tolerance = 1e-9)
  theta <- torch_tensor(array(c(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), c(1, 3, 4)))
  expect_equal(nnf_affine_grid(theta, c(1, 1, 2, 3, 4))$shape, c(1, 2, 3, 4, 3))
  expect_error(nnf_grid_sample(v, g3$view(c(1, 1, 1, 2, 3)), mode = "bicubic"),
               "bicubic interpolation only supports 4D input")
  expect_error(nnf_grid_sample(x, torch_zeros(1, 1, 1, 2), padding_mode = "mirror"),
               class = "value_error")
})

test_that("fractional max pooling draws PyTorch's windows for a seed, 1-based indices", {
  n <- 2 * 3 * 9 * 9
  x <- torch_tensor((((0:(n - 1)) * 37) %% 101) / 10)$view(c(2, 3, 9, 9))
  torch_manual_seed(5)
  r <- nnf_fractional_max_pool2d(x, 2, output_size = c(4, 5), return_indices = TRUE)
  # PyTorch 2.13's indices for seed 5 (0-based there), plus one
  expect_equal(as.numeric(r[[2]][1, 1]$flatten()),
               c(10, 2, 13, 5, 8, 19, 30, 30, 24, 35, 46, 38, 49, 51, 43, 73, 65, 76, 68, 79) + 1)
  expect_equal(as.numeric(r[[1]]$sum()), 1025.300048828125, tolerance = 1e-6)
  # the indices point at the maxima in each plane
  picked <- x$view(c(2, 3, 81))$gather(3, r[[2]]$view(c(2, 3, 20)))
  expect_equal(as_array(picked), as_array(r[[1]]$view(c(2, 3, 20))))
  # fixed samples give fixed windows
  u <- torch_rand(2, 3, 2)
  a <- nnf_fractional_max_pool2d(x, 3, output_ratio = 0.5, random_samples = u)
  b <- nnf_fractional_max_pool2d(x, 3, output_ratio = c(0.5, 0.5), random_samples = u)
  expect_equal(as_array(a), as_array(b))
  expect_equal(a$shape, c(2, 3, 4, 4))
  m <- nn_fractional_max_pool3d(2, output_size = c(2, 3, 2), return_indices = TRUE)
  out <- m(torch_randn(1, 2, 5, 6, 5, requires_grad = TRUE))
  expect_equal(out[[1]]$shape, c(1, 2, 2, 3, 2))
  expect_grad_fn(out[[1]], "FractionalMaxPool3DBackward0")
  expect_true(all(as.numeric(out[[2]]) >= 1))
  expect_error(nn_fractional_max_pool2d(2), class = "value_error")
  expect_error(nn_fractional_max_pool2d(2, output_ratio = 1.5), "between 0 and 1")
  expect_error(nnf_fractional_max_pool2d(x, 3, output_size = c(8, 8)),
               "pool height 3 too large relative to input height 9")
})

test_that("the new layer functions do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  up <- nn_conv_transpose2d(2, 2, 3, stride = 2, padding = 1)
  frac <- nn_fractional_max_pool2d(2, output_size = 3, return_indices = TRUE)
  body <- function(i) {
    x <- torch_randn(2, 2, 5, 5, requires_grad = TRUE)
    y <- up(x, output_size = c(10, 10))
    p <- frac(y)
    g <- torch_rand(2, 3, 3, 2) * 2 - 1
    s <- nnf_grid_sample(p[[1]], g, mode = "bicubic", padding_mode = "reflection")
    (s$sum() + torch_conv2d(x, torch_ones(1, 2, 2, 2))$sum())$backward()
    torch_embedding(torch_ones(4, 2), torch_tensor(c(1L, 4L)))
    torch_adaptive_max_pool1d(torch_randn(1, 2, 6), 2)
    tryCatch(nn_upsample()(x), value_error = function(e) NULL)
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
