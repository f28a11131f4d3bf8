# Issue 33's ops around sequences and signals from R: R torch's names and arguments, 1-based
# dims and indices, values recorded from PyTorch 2.13, errors as R conditions, and no leak.

test_that("window functions and fftfreq give PyTorch's values", {
  w <- torch_hann_window(6, periodic = FALSE, dtype = torch_float64())
  expect_equal(as_array(w), c(0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737,
                              0.3454915028125264, 0), tolerance = 1e-14)
  expect_equal(as_array(torch_hamming_window(6, alpha = 0.6, beta = 0.3, dtype = torch_float64())),
               c(0.3, 0.45, 0.75, 0.9, 0.75, 0.45), tolerance = 1e-14)
  expect_equal(as_array(torch_kaiser_window(6, periodic = FALSE, beta = 5, dtype = torch_float64())),
               c(0.036710892271286676, 0.4149036392433668, 0.9138124838692001,
                 0.9138124838692001, 0.4149036392433668, 0.036710892271286676),
               tolerance = 1e-14)
  expect_equal(as_array(torch_bartlett_window(5)), c(0, 0.4, 0.8, 0.8, 0.4), tolerance = 1e-7)
  expect_equal(as_array(torch_blackman_window(1)), 1)
  expect_true(torch_blackman_window(4)$dtype == torch_float32())
  expect_equal(as_array(torch_fft_fftfreq(4, d = 0.5)), c(0, 0.5, -1, -0.5))
  expect_error(torch_hann_window(4, dtype = torch_long()), "floating point",
               class = "runtime_error")
  expect_error(torch_kaiser_window(-2), "non-negative")
})

test_that("cross, cummax/cummin, bincount, vander and atleast follow R torch", {
  x <- torch_tensor(rbind(c(1, 2, 3), c(0, 1, 0)), requires_grad = TRUE)
  y <- torch_tensor(rbind(c(4, 5, 6), c(0, 0, 1)))
  c1 <- torch_cross(x, y)  # no dim: the first dim of size 3, here 2
  expect_equal(as_array(c1$detach()), rbind(c(-3, 6, -3), c(1, 0, 0)))
  expect_equal(c1$grad_fn$name, "LinalgCrossBackward0")
  expect_equal(as_array(torch_cross(x, y, dim = 2)$detach()), as_array(c1$detach()))
  expect_error(torch_cross(x, y, dim = 1), "dimension 1 must have length 3",
               class = "runtime_error")
  r <- torch_cummax(torch_tensor(c(1, 3, 3, 2, 5)), dim = 1)
  expect_equal(as_array(r[[1]]), c(1, 3, 3, 3, 5))
  expect_equal(as_array(r[[2]]), c(1, 2, 3, 3, 5))  # 1-based; ties take the later position
  r <- torch_cummin(torch_tensor(rbind(c(3, 1, 2), c(0, 4, -1))), dim = 2)
  expect_equal(as_array(r[[2]]), rbind(c(1, 2, 2), c(1, 1, 3)))
  z <- torch_tensor(c(1, 3, 2), requires_grad = TRUE)
  torch_cummax(z, 1)[[1]]$sum()$backward()
  expect_equal(as_array(z$grad), c(1, 2, 0))
  expect_equal(as_array(torch_bincount(torch_tensor(c(0L, 2L, 2L)), minlength = 5)),
               c(1, 0, 2, 0, 0))
  expect_equal(as_array(torch_bincount(torch_tensor(c(0L, 2L)), torch_tensor(c(0.5, 2)))),
               c(0.5, 0, 2))
  expect_error(torch_bincount(torch_tensor(c(-1L, 2L))), "non-negative")
  expect_equal(as_array(torch_vander(torch_tensor(c(1, 2, 3)), N = 3)),
               rbind(c(1, 1, 1), c(4, 2, 1), c(9, 3, 1)))
  expect_equal(as_array(torch_vander(torch_tensor(c(2L, 3L)), increasing = TRUE)),
               rbind(c(1, 2), c(1, 3)))
  expect_equal(torch_atleast_2d(torch_tensor(c(1, 2)))$shape, c(1, 2))
  expect_equal(torch_atleast_3d(torch_ones(2, 2))$shape, c(2, 2, 1))
  expect_equal(lapply(torch_atleast_1d(list(torch_scalar_tensor(1), torch_ones(2))),
                      function(t) t$shape), list(1, 2))
})

test_that("dtype limits, result_type and empty_strided", {
  expect_equal(torch_finfo(torch_float32())$eps, 2^-23)
  expect_equal(torch_finfo(torch_float64())$tiny, .Machine$double.xmin)
  expect_equal(torch_finfo(torch_float16())$max, 65504)
  expect_identical(torch_iinfo(torch_int16())$max, 32767L)
  expect_equal(torch_iinfo(torch_int32())$min, -2^31)
  expect_error(torch_iinfo(torch_float32()), "integer dtype", class = "value_error")
  expect_error(torch_finfo(torch_long()), "floating point dtype", class = "value_error")
  expect_true(torch_result_type(torch_tensor(1L), 1.5) == torch_float32())
  expect_true(torch_result_type(torch_tensor(1, dtype = torch_float64()), torch_tensor(1L)) ==
                torch_float64())
  e <- torch_empty_strided(c(2, 3), c(1, 2))
  expect_equal(e$shape, c(2, 3))
  expect_equal(e$stride(), c(1, 2))
})

test_that("index, index_put_ and the in-place methods use 1-based positions", {
  m <- torch_tensor(matrix(1:12, 3, 4))
  expect_equal(as_array(torch_index(m, list(torch_tensor(c(1L, 3L)), torch_tensor(c(2L, 4L))))),
               c(4, 12))
  z <- torch_zeros(2, 2)
  torch_index_put_(z, list(torch_tensor(2L), torch_tensor(1L)), torch_tensor(7))
  expect_equal(as_array(z), rbind(c(0, 0), c(7, 0)))
  z <- torch_zeros(3, 3)
  z$fill_diagonal_(5)
  expect_equal(as_array(z), diag(5, 3))
  z <- torch_zeros(2, 3)
  z$put_(torch_tensor(c(1L, 6L)), torch_tensor(c(9, 8)))
  expect_equal(as_array(z), rbind(c(9, 0, 0), c(0, 0, 8)))
  expect_error(z$put_(torch_tensor(7L), torch_tensor(1)), "out of range")
  z <- torch_arange(1, 6)
  z$resize_(c(2, 3))
  expect_equal(as_array(z), rbind(c(1, 2, 3), c(4, 5, 6)))
  expect_error(torch_ones(2, requires_grad = TRUE)$resize_(3), "require grad")
  expect_equal(as_array(torch_arange(1, 6)$narrow_copy(1, 2, 3)), c(2, 3, 4))
  a <- torch_tensor(matrix(1:6, 2))
  a$t_()
  expect_equal(a$shape, c(3, 2))
  a <- torch_tensor(c(-1, 2))
  a$abs_()
  expect_equal(as_array(a), c(1, 2))
  s <- torch_zeros(3, 2)$scatter(1, torch_tensor(matrix(c(1L, 3L), 1)), 4)
  expect_equal(as_array(s), rbind(c(4, 0), c(0, 0), c(0, 4)))
  s <- torch_zeros(2, 3)
  s$scatter_(2, torch_tensor(matrix(c(3L, 1L), 2)), torch_tensor(matrix(c(1, 2), 2)))
  expect_equal(as_array(s), rbind(c(0, 0, 1), c(2, 0, 0)))
  s$index_add_(1, torch_tensor(2L), torch_ones(1, 3))
  expect_equal(as_array(s), rbind(c(0, 0, 1), c(3, 1, 1)))
  s$index_fill_(2, torch_tensor(c(1L, 3L)), -1)
  expect_equal(as_array(s), rbind(c(-1, 0, -1), c(-1, 1, -1)))
})

test_that("the new ops do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  body <- function(i) {
    x <- torch_randn(4, 3, requires_grad = TRUE)
    w <- torch_hann_window(3)
    v <- torch_cummax(torch_cross(x, x * w, dim = 2), 1)
    l <- v[[1]]$sum() + torch_vander(x[, 1], N = 3)$sum()
    l$backward()
    b <- torch_bincount(v[[2]]$flatten() - 1L)
    z <- torch_zeros(3, 3)
    z$fill_diagonal_(1)
    z$put_(torch_tensor(1L), torch_tensor(2))
    torch_index(z, list(torch_tensor(1L)))
    torch_finfo(torch_float32())
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})

test_that("Fourier transforms: complex results, $real/$imag, gradients as PyTorch's", {
  x <- torch_tensor(c(1, 2, -1, 0.5, 3), dtype = torch_float64(), requires_grad = TRUE)
  f <- torch_fft_rfft(x, norm = "ortho")
  expect_true(f$dtype == torch_cdouble())
  expect_true(f$is_complex())
  expect_equal(f$grad_fn$name, "FftR2CBackward0")
  expect_equal(as_array(f), c(2.4596747752497685 + 0i,
                              1.3190983005625052 + 0.8196237382653702i,
                              -1.4309016994374946 - 0.37512255020446306i), tolerance = 1e-14)
  expect_equal(as_array(f$real$detach()), Re(as_array(f)))
  expect_equal(as_array(f$imag$detach()), Im(as_array(f)))
  torch_abs(f)$sum()$backward()
  expect_equal(as_array(x$grad), c(0.3944764024687158, 0.7567593101255929,
                                   -0.24036711792354712, 0.2528127584057335,
                                   1.0723866244232947), tolerance = 1e-13)
  y <- torch_fft_irfft(torch_fft_rfft(torch_tensor(c(1, 2, 3, 4))), n = 4)
  expect_equal(as_array(y), c(1, 2, 3, 4), tolerance = 1e-6)
  m <- torch_fft_fft(torch_ones(2, 3), dim = 1)
  expect_equal(as_array(torch_view_as_real(m))[, , 1], rbind(c(2, 2, 2), c(0, 0, 0)))
  expect_equal(Re(as_array(torch_fft_ifft(torch_fft_fft(torch_tensor(c(1, 5, 2)))))),
               c(1, 5, 2), tolerance = 1e-6)
  expect_output(print(m), "ComplexFloatType\\{2,3\\}")
  expect_error(torch_fft_fft(x, norm = "both"), "normalization mode", class = "value_error")
  expect_error(torch_fft_rfft(f), "real input", class = "runtime_error")
})

test_that("Fourier transforms do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  body <- function(i) {
    x <- torch_randn(8, requires_grad = TRUE)
    f <- torch_fft_rfft(x * torch_hann_window(8))
    l <- torch_abs(f)$sum() + torch_fft_irfft(f, n = 8)$sum() + f$real$sum()
    l$backward()
    as_array(f)
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})

test_that("complex arithmetic from R: conjugated gradients as PyTorch's", {
  x <- torch_tensor(c(1, 2, -1, 0.5), dtype = torch_float64(), requires_grad = TRUE)
  f <- torch_fft_fft(x)
  g <- f * torch_conj(f) / (f + 3)
  expect_true(torch_conj(x)$dtype == torch_float64())  # a real tensor: itself
  l <- torch_abs(g)$sum()
  l$backward()
  # recorded from PyTorch 2.13
  expect_equal(as_array(x$grad), c(-33.20436846040921, 36.72005992442655,
                                   -35.39067286190483, 34.684898753259404),
               tolerance = 1e-12)
  expect_error(torch_exp(f), "complex tensors are not supported here")
})

test_that("n-dimensional Fourier transforms: 1-based dims, s, values and gradients as PyTorch's", {
  x <- torch_tensor(rbind(c(1, 2, -1), c(0.5, 3, -2)), dtype = torch_float64(),
                    requires_grad = TRUE)
  f <- torch_fft_fftn(x, s = c(2, 4), norm = "ortho")
  expect_equal(f$grad_fn$name, "FftC2CBackward0")
  expect_equal(f$shape, c(2, 4))
  # recorded from PyTorch 2.13
  expect_equal(as_array(f)[1, ], c(1.237436867076458 + 0i,
                                   1.590990257669732 - 1.7677669529663687i,
                                   -2.2980970388562794 + 0i,
                                   1.590990257669732 + 1.7677669529663687i), tolerance = 1e-13)
  w <- torch_tensor(rbind(c(0, 1, 2, 3), c(4, 5, 6, 7)), dtype = torch_float64())
  ((torch_abs(f) * w)$sum() + f$imag$sum())$backward()
  expect_equal(as_array(x$grad), rbind(c(1.8771195248549086, -2.743556529746782,
                                         3.7797347246374717),
                                       c(-1.3992150948085114, 6.260123417030424,
                                         -7.086066279430058)), tolerance = 1e-12)
  # dim = c(2, 1): dim 1 (the last given) is the one-sided one
  r <- torch_fft_rfftn(x$detach(), dim = c(2, 1))
  expect_equal(r$grad_fn, NULL)
  expect_equal(r$shape, c(2, 3))
  expect_equal(torch_fft_fftn(x, dim = 1)$shape, c(2, 3))
  expect_equal(torch_fft_fftn(x, s = 5)$shape, c(2, 5))  # the last length(s) dims
  y <- torch_fft_irfftn(torch_fft_rfftn(x), s = c(2, 3))
  expect_equal(y$grad_fn$name, "FftC2RBackward0")
  expect_equal(as_array(y), as_array(x$detach()), tolerance = 1e-12)
  z <- torch_fft_ifftn(torch_fft_fftn(x, dim = c(1, 2)), dim = c(-2, -1))
  expect_equal(as_array(z$real), as_array(x$detach()), tolerance = 1e-12)
  expect_error(torch_fft_fftn(x, dim = c(1, 1)), "must be unique", class = "runtime_error")
  expect_error(torch_fft_fftn(x, s = c(2, 2), dim = 1), "same length",
               class = "runtime_error")
  expect_error(torch_fft_rfftn(f), "real-valued input", class = "runtime_error")
  expect_error(torch_fft_ifftn(x, norm = "none"), "normalization mode", class = "value_error")
})

test_that("n-dimensional Fourier transforms do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  body <- function(i) {
    x <- torch_randn(4, 6, requires_grad = TRUE)
    f <- torch_fft_rfftn(x, s = c(4, 8))
    l <- torch_abs(f)$sum() + torch_fft_irfftn(f, s = c(4, 8))$sum() +
      torch_fft_ifftn(torch_fft_fftn(x, dim = 1))$real$sum()
    l$backward()
    as_array(f)
  }
  run <- function(n) for (i in seq_len(n)) body(i)
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
