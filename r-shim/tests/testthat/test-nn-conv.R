# Convolution, padding, pooling and image normalization layers from R: R torch's names and
# arguments, 1-based indices of max pooling, values against recorded PyTorch 2.13 results.

test_that("nnf_conv2d matches PyTorch and records ConvolutionBackward0", {
  x <- torch_tensor(array(seq(0, 1, length.out = 2 * 3 * 5 * 5), c(2, 3, 5, 5)),
                    dtype = torch_float64(), requires_grad = TRUE)
  w <- torch_tensor(array(sin(1:(4 * 3 * 3 * 3)), c(4, 3, 3, 3)), dtype = torch_float64(),
                    requires_grad = TRUE)
  y <- nnf_conv2d(x, w, stride = 2, padding = 1)
  expect_equal(y$shape, c(2, 4, 3, 3))
  expect_grad_fn(y, "ConvolutionBackward0")
  # recorded from PyTorch 2.13: torch.nn.functional.conv2d(x, w, stride=2, padding=1) with x
  # and w the same arrays (NumPy's reshape(order = "F") of the same sequences)
  expect_equal(as.numeric(y$sum()), 8.771686440535568, tolerance = 1e-12)
  expect_equal(as_array(y[1, 1]), matrix(c(-0.1058631493, -0.2832812633, 0.049527364,
                                           -0.2236204665, -0.395488479, 0.309458995,
                                           -0.1881036342, -0.2378321452, 0.4126624371),
                                         3, byrow = TRUE), tolerance = 1e-9)
  expect_equal(as.numeric(y[2, 4, 3]), c(0.2017610435, 0.2668281419, -0.3367855929),
               tolerance = 1e-9)
  y$sum()$backward()
  expect_equal(x$grad$shape, x$shape)
  expect_equal(w$grad$shape, w$shape)
  expect_true(autograd_gradcheck(function(a, b) nnf_conv2d(a, b, padding = "same"),
                                 list(x$detach()$requires_grad_(TRUE),
                                      w$detach()$requires_grad_(TRUE))))
})

test_that("convolution errors are libtorch's", {
  expect_error(nnf_conv2d(torch_randn(1, 5, 8, 8), torch_randn(4, 3, 3, 3)),
               "expected input[1, 5, 8, 8] to have 3 channels, but got 5 channels instead",
               fixed = TRUE)
  expect_error(nnf_conv2d(torch_randn(1, 3, 2, 2), torch_randn(4, 3, 3, 3)),
               "Kernel size can't be greater than actual input size", fixed = TRUE)
  expect_error(nnf_conv2d(torch_randn(1, 6, 8, 8), torch_randn(3, 3, 3, 3), groups = 2),
               "expected weight to be divisible by 2 at dimension 0", fixed = TRUE)
})

test_that("nn_conv modules take R torch's arguments", {
  m <- nn_conv2d(in_channels = 3, out_channels = 6, kernel_size = c(3, 5), padding = "same",
                 padding_mode = "circular")
  expect_equal(m$weight$shape, c(6, 3, 3, 5))
  expect_equal(m(torch_randn(2, 3, 7, 9))$shape, c(2, 6, 7, 9))
  d <- nn_conv1d(4, 8, 3, groups = 4, bias = FALSE)
  expect_null(d$bias)
  expect_equal(d(torch_randn(2, 4, 10))$shape, c(2, 8, 8))
  t <- nn_conv_transpose2d(3, 2, 3, stride = 2, output_padding = 1)
  expect_equal(t$weight$shape, c(3, 2, 3, 3))
  expect_equal(t(torch_randn(1, 3, 4, 4))$shape, c(1, 2, 10, 10))
  expect_equal(nn_conv3d(2, 2, 2)(torch_randn(1, 2, 3, 3, 3))$shape, c(1, 2, 2, 2, 2))
})

test_that("nnf_pad pads the last dims first", {
  x <- torch_tensor(matrix(1:6, 2, 3, byrow = TRUE), dtype = torch_float())$unsqueeze(1)
  expect_equal(as_array(nnf_pad(x, c(1, 0), value = -1))[1, , ],
               matrix(c(-1, 1, 2, 3, -1, 4, 5, 6), 2, byrow = TRUE))
  expect_equal(as_array(nnf_pad(x, c(2, 1), mode = "reflect"))[1, 1, ], c(3, 2, 1, 2, 3, 2))
  expect_equal(as_array(nnf_pad(x, c(1, 1), mode = "replicate"))[1, 2, ], c(4, 4, 5, 6, 6))
  expect_equal(as_array(nnf_pad(x, c(1, 1), mode = "circular"))[1, 1, ], c(3, 1, 2, 3, 1))
  y <- nnf_pad(x$requires_grad_(TRUE), c(1, 1), mode = "reflect")
  expect_grad_fn(y, "ReflectionPad1DBackward0")
})

test_that("max pooling returns 1-based indices that unpooling takes back", {
  x <- torch_tensor(array(c(1, 5, 2, 8, 3, 0, 7, 4, 6, 9, 1, 2, 0, 3, 5, 4), c(1, 1, 4, 4)))
  out <- nnf_max_pool2d(x, 2, return_indices = TRUE)
  # the plane is rows (1 3 6 0), (5 0 9 3), (2 7 1 5), (8 4 2 4)
  expect_equal(as.numeric(out[[1]]), c(5, 8, 9, 5))
  expect_equal(as.numeric(out[[2]]), c(5, 13, 7, 12))  # row-major flat indices, 1-based
  back <- nnf_max_unpool2d(out[[1]], out[[2]], 2)
  expect_equal(as.numeric(back$sum()), 27)
  expect_equal(as.numeric(back$max()), 9)
  m <- nn_max_pool2d(2, return_indices = TRUE)
  res <- m(x)
  expect_equal(as_array(nn_max_unpool2d(2)(res[[1]], res[[2]])), as_array(back))
  expect_equal(nn_avg_pool2d(2)(x)$shape, c(1, 1, 2, 2))
  expect_equal(nn_adaptive_avg_pool2d(c(3, 1))(x)$shape, c(1, 1, 3, 1))
  expect_equal(nn_adaptive_max_pool1d(2)(torch_randn(2, 3, 7))$shape, c(2, 3, 2))
  expect_equal(nnf_avg_pool1d(torch_ones(1, 1, 5), 2, ceil_mode = TRUE)$shape, c(1, 1, 3))
})

test_that("image normalization and channel dropout layers", {
  torch_manual_seed(1)
  x <- torch_randn(4, 3, 5, 5)
  bn <- nn_batch_norm2d(3)
  y <- bn(x)
  expect_equal(as.numeric(y$mean()), 0, tolerance = 1e-5)
  expect_equal(as.numeric(bn$num_batches_tracked), 1)
  bn$eval()
  expect_equal(bn(x)$shape, x$shape)
  expect_error(bn(torch_randn(2, 3)), "expected 4D input (got 2D input)", fixed = TRUE)
  expect_equal(nn_batch_norm3d(3, momentum = NULL)(torch_randn(2, 3, 2, 2, 2))$shape,
               c(2, 3, 2, 2, 2))
  gn <- nn_group_norm(3, 6)
  expect_grad_fn(gn(torch_randn(2, 6, 4)), "NativeGroupNormBackward0")
  inorm <- nn_instance_norm2d(3)
  z <- inorm(x)
  expect_equal(as.numeric(z[1, 2]$mean()), 0, tolerance = 1e-5)
  d <- nn_dropout2d(0.5)
  out <- d(torch_ones(8, 16, 2, 2))
  per_channel <- as_array(out[, , 1, 1])
  expect_true(all(per_channel %in% c(0, 2)))
  expect_equal(as_array(out[, , 2, 2]), per_channel)
  d$eval()
  expect_equal(as.numeric(d(torch_ones(2, 2, 2, 2))$sum()), 16)
})

test_that("conv layers do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  net <- nn_sequential(nn_conv2d(1, 2, 3, padding = 1), nn_relu(), nn_max_pool2d(2),
                       nn_batch_norm2d(2), nn_flatten(), nn_linear(8, 2))
  body <- function(i) {
    x <- torch_randn(3, 1, 4, 4)
    out <- net(x)
    out$sum()$backward()
    nnf_pad(x, c(1, 1, 1, 1), mode = "reflect")
    nnf_max_pool2d(x, 2, return_indices = TRUE)
    nnf_adaptive_avg_pool2d(x, 2)
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})

test_that("unfold, fold and pixel shuffle from R", {
  x <- torch_randn(2, 3, 5, 4)
  cols <- nnf_unfold(x, kernel_size = c(2, 3), padding = 1)
  expect_equal(cols$shape, c(2, 18, 24))
  back <- nnf_fold(cols, output_size = c(5, 4), kernel_size = c(2, 3), padding = 1)
  expect_equal(back$shape, c(2, 3, 5, 4))
  ones <- nnf_fold(nnf_unfold(torch_ones(1, 1, 3, 3), 2), c(3, 3), 2)
  expect_equal(as_array(ones[1, 1]), matrix(c(1, 2, 1, 2, 4, 2, 1, 2, 1), 3))
  y <- nnf_pixel_shuffle(torch_randn(1, 8, 2, 3)$requires_grad_(TRUE), 2)
  expect_equal(y$shape, c(1, 2, 4, 6))
  expect_grad_fn(y, "PixelShuffleBackward0")
  expect_equal(as_array(nnf_pixel_unshuffle(nnf_pixel_shuffle(x$repeat_interleave(4L, dim = 2),
                                                               2), 2)),
               as_array(x$repeat_interleave(4L, dim = 2)))
})

test_that("interpolation from R", {
  x <- torch_tensor(array(c(1, 2, 3, 4), c(1, 1, 2, 2)))
  up <- nnf_interpolate(x, scale_factor = 2, mode = "nearest")
  expect_equal(as_array(up[1, 1]), matrix(c(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4), 4))
  bl <- nnf_interpolate(x, size = c(3, 3), mode = "bilinear", align_corners = TRUE)
  expect_equal(as_array(bl[1, 1]), matrix(c(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4), 3))
  expect_grad_fn(nnf_interpolate(x$requires_grad_(TRUE), scale_factor = 2, mode = "bicubic",
                                 align_corners = FALSE), "UpsampleBicubic2DBackward0")
  expect_equal(nn_upsample(scale_factor = 2)(torch_randn(1, 2, 3))$shape, c(1, 2, 6))
  expect_error(nnf_interpolate(x, mode = "bilinear"),
               "either size or scale_factor should be defined", fixed = TRUE)
})

test_that("normalize, lp pooling and local response norm from R", {
  x <- torch_tensor(matrix(c(3, 4, 0, 5), 2, byrow = TRUE))
  expect_equal(as_array(nnf_normalize(x, dim = 2)), matrix(c(0.6, 0.8, 0, 1), 2, byrow = TRUE),
               tolerance = 1e-6)
  expect_equal(as_array(nnf_normalize(x, dim = 1))[, 1], c(1, 0))
  expect_equal(nnf_lp_pool2d(torch_rand(1, 2, 4, 4), 2, 2)$shape, c(1, 2, 2, 2))
  expect_equal(nnf_local_response_norm(torch_randn(2, 5, 7), 3)$shape, c(2, 5, 7))
})

test_that("affine grids and grid sampling from R", {
  x <- torch_randn(1, 2, 3, 4)
  theta <- torch_tensor(array(c(1, 0, 0, 1, 0, 0), c(1, 2, 3)))
  grid <- nnf_affine_grid(theta, c(1, 2, 3, 4))
  expect_equal(grid$shape, c(1, 3, 4, 2))
  expect_equal(as_array(nnf_grid_sample(x, grid)), as_array(x), tolerance = 1e-6)
  expect_equal(nnf_grid_sample(x, grid, mode = "nearest", padding_mode = "border")$shape,
               c(1, 2, 3, 4))
})

test_that("more image modules from R", {
  expect_equal(nn_pixel_shuffle(2)(torch_randn(1, 8, 2, 2))$shape, c(1, 2, 4, 4))
  expect_equal(nn_pixel_unshuffle(2)(torch_randn(1, 2, 4, 4))$shape, c(1, 8, 2, 2))
  expect_equal(nn_unfold(2)(torch_randn(1, 2, 3, 3))$shape, c(1, 8, 4))
  expect_equal(nn_fold(c(3, 3), 2)(torch_randn(1, 8, 4))$shape, c(1, 2, 3, 3))
  expect_equal(nn_lp_pool2d(2, 2)(torch_rand(1, 1, 4, 4))$shape, c(1, 1, 2, 2))
  expect_equal(nn_lp_pool1d(2, 3)(torch_rand(1, 1, 9))$shape, c(1, 1, 3))
  expect_equal(nn_local_response_norm(2)(torch_randn(1, 3, 4))$shape, c(1, 3, 4))
  d <- nn_alpha_dropout(0.3)
  expect_equal(d(torch_randn(10))$shape, 10)
  d$eval()
  x <- torch_randn(5)
  expect_equal(as_array(d(x)), as_array(x))
})
