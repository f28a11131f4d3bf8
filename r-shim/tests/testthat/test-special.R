# Special functions, the extra losses and sampling from R: values against R's own functions
# (pnorm, lgamma, digamma, trigamma, psigamma, qlogis, atan2), gradients, 1-based multinomial
# indices and reproducible draws under torch_manual_seed.
skip_if_no_python()

test_that("erf, erfc, erfinv, lgamma, digamma, polygamma and logit agree with R", {
  v <- c(-2.5, -0.3, 0.4, 1, 3.5)
  x <- torch_tensor(v, dtype = torch_float64())
  expect_equal(as_array(torch_erf(x)), 2 * pnorm(v * sqrt(2)) - 1, tolerance = 1e-14)
  expect_equal(as_array(x$erfc()), 2 * pnorm(-v * sqrt(2)), tolerance = 1e-14)
  p <- c(-0.9, -0.2, 0, 0.5, 0.99)
  expect_equal(as_array(torch_erfinv(torch_tensor(p, dtype = torch_float64()))),
               qnorm((p + 1) / 2) / sqrt(2), tolerance = 1e-13)
  expect_equal(as_array(torch_lgamma(x)), lgamma(v), tolerance = 1e-13)
  expect_equal(as_array(lgamma(x)), lgamma(v), tolerance = 1e-13)  # the Math group
  expect_equal(as_array(x$digamma()), digamma(v), tolerance = 1e-13)
  expect_equal(as_array(digamma(x)), digamma(v), tolerance = 1e-13)
  expect_equal(as_array(torch_polygamma(1, x)), trigamma(v), tolerance = 1e-13)
  expect_equal(as_array(trigamma(x)), trigamma(v), tolerance = 1e-13)
  expect_equal(as_array(x$polygamma(2)), psigamma(v, 2), tolerance = 1e-12)
  q <- c(0.1, 0.5, 0.8)
  expect_equal(as_array(torch_logit(torch_tensor(q, dtype = torch_float64()))), qlogis(q),
               tolerance = 1e-14)
  expect_equal(as_array(torch_logit(torch_tensor(c(0, 1)), eps = 0.25)),
               qlogis(c(0.25, 0.75)), tolerance = 1e-6)
  expect_true(is.infinite(as_array(torch_lgamma(torch_tensor(0)))))
  expect_true(is.nan(as_array(torch_digamma(torch_tensor(-2)))))
  expect_equal(torch_erf(torch_tensor(1L))$dtype, torch_float32())
})

test_that("atan2, hypot and xlogy take tensors and numbers", {
  a <- torch_tensor(c(1, -1, 0, 3), dtype = torch_float64())
  b <- torch_tensor(c(1, 2, -1, 4), dtype = torch_float64())
  expect_equal(as_array(torch_atan2(a, b)), atan2(c(1, -1, 0, 3), c(1, 2, -1, 4)))
  expect_equal(as_array(a$hypot(b)), sqrt(c(1, -1, 0, 3)^2 + c(1, 2, -1, 4)^2))
  expect_equal(as_array(torch_xlogy(a, b$abs())), c(1, -1, 0, 3) * log(c(1, 2, 1, 4)))
  expect_equal(as_array(torch_xlogy(torch_tensor(c(0, 2)), 0)), c(0, -Inf))
  expect_equal(as_array(torch_xlogy(2, torch_tensor(c(1, exp(1))))), c(0, 2), tolerance = 1e-6)
  expect_error(torch_hypot(torch_tensor(1L), torch_tensor(2L)), "not implemented for 'Long'")
  expect_error(torch_polygamma(-1, a), "does not support negative n")
})

test_that("gradients have libtorch's nodes and values", {
  x <- torch_tensor(c(0.3, 1.7), dtype = torch_float64(), requires_grad = TRUE)
  y <- torch_lgamma(x)
  expect_grad_fn(y, "LgammaBackward0")
  y$sum()$backward()
  expect_equal(as_array(x$grad), digamma(c(0.3, 1.7)), tolerance = 1e-13)
  x$grad$zero_()
  torch_erf(x)$sum()$backward()
  expect_equal(as_array(x$grad), 2 / sqrt(pi) * exp(-c(0.3, 1.7)^2), tolerance = 1e-14)
  expect_grad_fn(torch_polygamma(1, x), "PolygammaBackward0")
  expect_grad_fn(torch_atan2(x, x), "Atan2Backward0")
  expect_grad_fn(torch_xlogy(x, 2), "XlogyBackward2")
  expect_true(autograd_gradgradcheck(function(a) torch_digamma(a), list(x)))
})

test_that("nnf_kl_div, nnf_poisson_nll_loss and nnf_gaussian_nll_loss", {
  lp <- matrix(log(c(0.2, 0.3, 0.5, 0.6)), 2)
  tp <- matrix(c(0.1, 0.4, 0.5, 0.0), 2)
  input <- torch_tensor(lp, dtype = torch_float64())
  target <- torch_tensor(tp, dtype = torch_float64())
  terms <- ifelse(tp == 0, 0, tp * log(tp)) - tp * lp
  expect_equal(as_array(nnf_kl_div(input, target, reduction = "batchmean")), sum(terms) / 2,
               tolerance = 1e-14)
  expect_equal(as_array(nnf_kl_div(input, target, reduction = "none")), terms,
               tolerance = 1e-14)
  expect_warning(nnf_kl_div(input, target), "batchmean")
  rate <- torch_tensor(c(0.5, 2), dtype = torch_float64())
  k <- torch_tensor(c(1, 3), dtype = torch_float64())
  expect_equal(as_array(nnf_poisson_nll_loss(rate, k, log_input = FALSE, reduction = "sum")),
               sum(c(0.5, 2) - c(1, 3) * log(c(0.5, 2) + 1e-8)), tolerance = 1e-14)
  mu <- torch_tensor(c(0, 1), dtype = torch_float64(), requires_grad = TRUE)
  loss <- nnf_gaussian_nll_loss(mu, torch_tensor(c(1, 1), dtype = torch_float64()),
                                torch_tensor(c(2, 0.5), dtype = torch_float64()), full = TRUE)
  expect_equal(as_array(loss), mean(-dnorm(c(1, 1), c(0, 1), sqrt(c(2, 0.5)), log = TRUE)),
               tolerance = 1e-14)
  loss$backward()
  expect_equal(as_array(mu$grad), c(-1 / 2, 0) / 2, tolerance = 1e-14)
})

test_that("sampling: reproducible, shaped as asked, multinomial indices 1-based", {
  torch_manual_seed(7)
  a <- torch_normal(0, 1, size = c(2, 3))
  torch_manual_seed(7)
  b <- torch_normal(0, 1, size = c(2, 3))
  expect_equal(as_array(a), as_array(b))
  expect_equal(a$shape, c(2, 3))
  m <- torch_normal(torch_zeros(4, dtype = torch_float64()), 2)
  expect_equal(m$shape, 4)
  expect_equal(m$dtype, torch_float64())
  s <- torch_multinomial(torch_tensor(c(0, 0, 1)), 4, replacement = TRUE)
  expect_equal(as_array(s), rep(3L, 4))
  w <- torch_tensor(rbind(c(1, 0), c(0, 1)))
  expect_equal(as_array(w$multinomial(1)), matrix(c(1L, 2L), 2))
  expect_equal(sort(as_array(torch_multinomial(torch_ones(5), 5))), 1:5)
  p <- torch_poisson(torch_tensor(c(0, 0)))
  expect_equal(as_array(p), c(0, 0))
  expect_equal(as_array(torch_bernoulli(torch_tensor(c(0, 1)))), c(0, 1))
  expect_equal(as_array(torch_zeros(3)$bernoulli(p = 1)), c(1, 1, 1))
  expect_error(torch_multinomial(torch_tensor(c(0.5, 0.5)), 3), "without replacement")
  expect_error(torch_normal(0, -1, size = 2), "normal expects std >= 0.0")
})
