# distr_* from R: values recorded from PyTorch 2.13 (float64), R torch's 1-based categorical
# values, value_error conditions, gradients through log_prob, and no leak per object.

test_that("distr_normal's log_prob, gradients and fields", {
  mu <- torch_tensor(c(0.5, -1), dtype = torch_float64(), requires_grad = TRUE)
  sd <- torch_tensor(c(1.5, 0.3), dtype = torch_float64(), requires_grad = TRUE)
  d <- distr_normal(mu, sd)
  x <- torch_tensor(c(1, -0.5), dtype = torch_float64())
  lp <- d$log_prob(x)
  # -(x - mu)^2 / (2 sd^2) - log(sd) - log(2 pi) / 2
  want <- -(c(1, -0.5) - c(0.5, -1))^2 / (2 * c(1.5, 0.3)^2) - log(c(1.5, 0.3)) - log(2 * pi) / 2
  expect_equal(as_array(lp), want, tolerance = 1e-12)
  lp$sum()$backward()
  expect_equal(as_array(mu$grad), (c(1, -0.5) - c(0.5, -1)) / c(1.5, 0.3)^2, tolerance = 1e-12)
  expect_equal(d$batch_shape, 2L)
  expect_equal(d$event_shape, integer(0))
  expect_equal(as_array(d$mean), c(0.5, -1))
  expect_equal(as_array(d$stddev), c(1.5, 0.3))
  expect_true(d$has_rsample)
  expect_equal(d$sample(c(3, 4))$shape, c(3, 4, 2))
  expect_equal(d$expand(c(5, 2))$batch_shape, c(5L, 2L))
})

test_that("a seed gives R torch's samples", {
  torch_manual_seed(1)
  expect_equal(as_array(distr_normal(0, 1)$sample(3)), c(0.6614, 0.2669, 0.0617),
               tolerance = 1e-4)
})

test_that("categorical values are 1-based, as in R torch", {
  d <- distr_categorical(probs = torch_tensor(c(0.2, 0.3, 0.5)))
  s <- as_array(d$sample(100))
  expect_true(all(s %in% 1:3))
  expect_equal(as_array(d$log_prob(torch_tensor(3L))), log(0.5), tolerance = 1e-6)
  expect_equal(as_array(d$probs), c(0.2, 0.3, 0.5), tolerance = 1e-6)
})

test_that("the other distributions give PyTorch's log_prob", {
  # values from PyTorch 2.13, float64
  expect_equal(as_array(distr_poisson(torch_tensor(3, dtype = torch_float64()))$log_prob(
    torch_tensor(2, dtype = torch_float64()))), dpois(2, 3, log = TRUE), tolerance = 1e-12)
  expect_equal(as_array(distr_gamma(torch_tensor(2, dtype = torch_float64()), 3)$log_prob(
    torch_tensor(1, dtype = torch_float64()))), dgamma(1, 2, 3, log = TRUE), tolerance = 1e-12)
  expect_equal(as_array(distr_chi2(torch_tensor(3, dtype = torch_float64()))$log_prob(
    torch_tensor(1.5, dtype = torch_float64()))), dchisq(1.5, 3, log = TRUE),
    tolerance = 1e-12)
  expect_equal(as_array(distr_bernoulli(probs = torch_tensor(0.3, dtype = torch_float64()))
                        $log_prob(torch_tensor(1, dtype = torch_float64()))), log(0.3),
               tolerance = 1e-12)
  expect_equal(as_array(distr_beta(torch_tensor(2, dtype = torch_float64()), 3)$log_prob(
    torch_tensor(0.4, dtype = torch_float64()))), dbeta(0.4, 2, 3, log = TRUE),
    tolerance = 1e-12)
  S <- rbind(c(2, 0.5), c(0.5, 1))
  mv <- distr_multivariate_normal(torch_zeros(2, dtype = torch_float64()),
                                  torch_tensor(S, dtype = torch_float64()))
  x <- c(0.3, -1.2)
  want <- -0.5 * (2 * log(2 * pi) + log(det(S)) + drop(t(x) %*% solve(S) %*% x))
  expect_equal(as_array(mv$log_prob(torch_tensor(x, dtype = torch_float64()))), want,
               tolerance = 1e-12)
  mix <- distr_mixture_same_family(
    distr_categorical(probs = torch_tensor(c(0.3, 0.7), dtype = torch_float64())),
    distr_normal(torch_tensor(c(-1, 1), dtype = torch_float64()), 1))
  want <- log(0.3 * dnorm(0.2, -1) + 0.7 * dnorm(0.2, 1))
  expect_equal(as_array(mix$log_prob(torch_tensor(0.2, dtype = torch_float64()))), want,
               tolerance = 1e-12)
})

test_that("invalid parameters and values are value_error conditions", {
  expect_error(distr_normal(0, -1), "The parameter scale has invalid values",
               class = "value_error")
  expect_error(distr_poisson(2)$log_prob(torch_tensor(-1)), "within the support",
               class = "value_error")
  expect_error(distr_multivariate_normal(torch_zeros(2), torch_tensor(rbind(c(1, 2), c(2, 1)))),
               "covariance_matrix has invalid values", class = "value_error")
  expect_error(distr_bernoulli(probs = torch_tensor(1.5)), "invalid values",
               class = "value_error")
})

test_that("distributions do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    d <- distr_normal(torch_zeros(3), 1)
    d$log_prob(torch_ones(3))$sum()
    d$sample(2)
    d$mean
  }
  run(20)
  before <- live()
  run(300)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})

test_that("student_t, negative_binomial, binomial, dirichlet and half_normal from R", {
  f64 <- function(x) torch_tensor(x, dtype = torch_float64())
  expect_equal(as_array(distr_student_t(f64(4))$log_prob(f64(0.7))), dt(0.7, 4, log = TRUE),
               tolerance = 1e-12)
  # PyTorch's negative binomial: failures before total_count successes, probs = P(failure)
  expect_equal(as_array(distr_negative_binomial(f64(3), probs = f64(0.4))$log_prob(f64(2))),
               dnbinom(2, size = 3, prob = 0.6, log = TRUE), tolerance = 1e-12)
  expect_equal(as_array(distr_binomial(f64(10), probs = f64(0.3))$log_prob(f64(4))),
               dbinom(4, 10, 0.3, log = TRUE), tolerance = 1e-12)
  expect_equal(as_array(distr_half_normal(f64(2))$log_prob(f64(1))),
               log(2) + dnorm(1, 0, 2, log = TRUE), tolerance = 1e-12)
  d <- distr_dirichlet(f64(c(1, 2, 3)))
  expect_equal(d$event_shape, 3L)
  expect_equal(as_array(d$log_prob(f64(c(0.2, 0.3, 0.5)))),
               lgamma(6) - lgamma(1) - lgamma(2) - lgamma(3) + log(0.3) + 2 * log(0.5),
               tolerance = 1e-12)
})

test_that("distr_von_mises: PyTorch's draws for a seed, log_prob and circular moments", {
  f64 <- function(x) torch_tensor(x, dtype = torch_float64())
  d <- distr_von_mises(f64(0.5), f64(2))
  torch_manual_seed(7)
  # PyTorch 2.13: torch.manual_seed(7); VonMises(0.5, 2.0) (float64) .sample((4,))
  expect_equal(as.numeric(as_array(d$sample(4))),
               c(0.8264442479834453, 0.8190233291041604, -1.5211711095243698,
                 -0.5605652093436633), tolerance = 1e-12)
  # kappa cos(x - mu) - log(2 pi I0(kappa)), with I0 from base R
  expect_equal(as_array(d$log_prob(f64(1))),
               2 * cos(0.5) - log(2 * pi * besselI(2, 0)), tolerance = 1e-6)
  expect_equal(as_array(d$log_prob(f64(1))), -0.9067054862873724, tolerance = 1e-12)
  expect_equal(as_array(d$variance), 0.3022253424022666, tolerance = 1e-12)
  expect_equal(as_array(d$mean), 0.5)
  expect_false(d$has_rsample)
  expect_error(distr_von_mises(0, -1), "concentration has invalid values",
               class = "value_error")
})

test_that("$support is a constraint object, as in R torch", {
  s <- distr_normal(0, 1)$support
  expect_s3_class(s, "torch_Real")
  expect_s3_class(s, "torch_Constraint")
  expect_output(print(s), "torch_Real")
  g <- distr_gamma(2, 3)$support
  expect_s3_class(g, "torch_GreaterThanEq")
  expect_equal(g$lower_bound, 0)
  expect_equal(as_array(g$check(torch_tensor(c(-1, 0, 2)))), c(FALSE, TRUE, TRUE))
  expect_output(print(distr_beta(2, 3)$support), "torch_Interval: \\(lower_bound=0, upper_bound=1\\)")
  u <- distr_uniform(torch_tensor(c(0, 1)), torch_tensor(c(2, 5)))$support
  expect_output(print(u), "lower_bound=\\(0, 1\\), upper_bound=\\(2, 5\\)")
  expect_equal(as_array(u$check(torch_tensor(c(1, 5)))), c(TRUE, FALSE))
  # categorical values are 1-based in R, and so is its support
  cs <- distr_categorical(probs = torch_tensor(c(0.2, 0.3, 0.5)))$support
  expect_s3_class(cs, "torch_IntegerInterval")
  expect_equal(c(cs$lower_bound, cs$upper_bound), c(1, 3))
  expect_equal(as_array(cs$check(torch_tensor(c(1L, 3L, 4L)))), c(TRUE, TRUE, FALSE))
  expect_s3_class(distr_dirichlet(torch_ones(3))$support, "torch_Simplex")
  expect_equal(distr_dirichlet(torch_ones(3))$support$event_dim, 1L)
  expect_true(distr_poisson(2)$support$is_discrete)
})

test_that("beta and dirichlet rsample are differentiable (PyTorch's implicit gradient)", {
  a <- torch_tensor(c(0.5, 2, 12), dtype = torch_float64(), requires_grad = TRUE)
  b <- torch_tensor(c(0.7, 5, 9), dtype = torch_float64(), requires_grad = TRUE)
  torch_manual_seed(1)
  x <- distr_beta(a, b)$rsample(20)
  expect_equal(x$shape, c(20, 3))
  x$sum()$backward()
  expect_true(all(is.finite(as_array(a$grad))) && all(as_array(a$grad) > 0))
  expect_true(all(as_array(b$grad) < 0))   # a larger beta pulls draws towards 0
  cc <- torch_tensor(c(1, 2, 3), dtype = torch_float64(), requires_grad = TRUE)
  y <- distr_dirichlet(cc)$rsample(5)
  expect_equal(as_array(y$sum(-1)), rep(1, 5), tolerance = 1e-12)
  (y[, 1])$sum()$backward()
  expect_true(as_array(cc$grad)[1] > 0)
})

test_that("supports and von Mises do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    d <- distr_von_mises(torch_zeros(3), 2)
    d$log_prob(torch_ones(3))$sum()
    d$sample(2)
    s <- d$support
    s$check(torch_ones(2))
  }
  run(20)
  before <- live()
  run(300)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})

test_that("gamma and chi2 cdf are base R's pgamma and pchisq", {
  f64 <- function(x) torch_tensor(x, dtype = torch_float64())
  expect_equal(as_array(distr_gamma(f64(c(0.5, 2, 30)), f64(c(1, 3, 0.5)))$cdf(
    f64(c(0.3, 1, 55)))), pgamma(c(0.3, 1, 55), c(0.5, 2, 30), c(1, 3, 0.5)), tolerance = 1e-13)
  expect_equal(as_array(distr_chi2(f64(3))$cdf(f64(2))), pchisq(2, 3), tolerance = 1e-13)
})
