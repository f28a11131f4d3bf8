# Forward mode under autograd_vmap from R: per-example Jacobians and Hessians in one batched
# pass (equal to the loop over the examples), PyTorch's error for indexed assignment into a
# captured tensor, and nothing leaking per call.
skip_if_no_python()

f64 <- function(x) torch_tensor(x, dtype = torch_float64())

test_that("vmap(jacfwd), vmap(hessian) and vmap(jvp) equal the loop over the examples", {
  set.seed(35)
  X <- f64(matrix(rnorm(12), 4, 3))
  U <- f64(matrix(rnorm(12), 4, 3))
  f <- function(a) (a$sin() * a$sum())$tanh()
  g <- function(a) (a$exp() * a)$sum()
  J <- autograd_vmap(autograd_jacfwd(f))(X)
  H <- autograd_vmap(autograd_hessian_fn(g))(X)
  Tn <- autograd_vmap(function(a, u) autograd_jvp_fn(f, a, u)[[2]])(X, U)
  expect_equal(J$shape, c(4, 3, 3))
  expect_equal(H$shape, c(4, 3, 3))
  for (i in 1:4) {
    expect_equal(as_array(J[i, , ]), as_array(autograd_jacfwd(f)(X[i, ])), tolerance = 1e-12)
    expect_equal(as_array(H[i, , ]), as_array(autograd_hessian_fn(g)(X[i, ])),
                 tolerance = 1e-12)
    expect_equal(as_array(Tn[i, ]), as_array(autograd_jvp_fn(f, X[i, ], U[i, ])[[2]]),
                 tolerance = 1e-12)
    # the Hessian of sum(x * exp(x)) is diagonal: (2 + x) * exp(x)
    x <- as_array(X[i, ])
    expect_equal(as_array(H[i, , ]), diag((2 + x) * exp(x)), tolerance = 1e-12)
  }
})

test_that("per-example Hessians of a logistic log-likelihood with in_dims", {
  set.seed(36)
  X <- f64(matrix(rnorm(15), 5, 3))
  y <- f64(c(1, 0, 0, 1, 1))
  w <- f64(c(0.5, -0.25, 1))
  ll <- function(w, xi, yi) {
    eta <- (xi * w)$sum()
    yi * eta - nnf_softplus(eta)
  }
  H <- autograd_vmap(autograd_hessian_fn(ll), in_dims = list(NULL, 1, 1))(w, X, y)
  Xm <- as_array(X)
  p <- 1 / (1 + exp(-drop(Xm %*% c(0.5, -0.25, 1))))
  for (i in 1:5) {
    expect_equal(as_array(H[i, , ]), -p[i] * (1 - p[i]) * outer(Xm[i, ], Xm[i, ]),
                 tolerance = 1e-12)
  }
})

test_that("x[i] <- batched on a captured tensor gives PyTorch's error", {
  X <- f64(matrix(1:6, 2, 3))
  captured <- f64(matrix(0, 3, 3))
  row <- function(a) {
    captured[1, ] <- a
    a
  }
  one <- function(a) {
    captured[1, 1] <- a[1]
    a
  }
  expect_error(autograd_vmap(row)(X),
               paste("vmap: inplace arithmetic(self, *extra_args) is not possible because there",
                     "exists a Tensor `other` in extra_args that has more elements than `self`."),
               fixed = TRUE, class = "runtime_error")
  expect_error(autograd_vmap(one)(X), "vmap: fill_(self, *extra_args) is not possible",
               fixed = TRUE, class = "runtime_error")
  expect_equal(as_array(captured), matrix(0, 3, 3))
  # assigning into the batched argument itself is fine
  into <- function(a) {
    b <- a$clone()
    b[1] <- captured[1, 1]
    b
  }
  expect_equal(as_array(autograd_vmap(into)(X))[, 1], c(0, 0))
})

test_that("batched forward transforms and the assignment error do not leak", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  X <- f64(matrix(1:6, 2, 3) / 6)
  captured <- f64(matrix(0, 3, 3))
  g <- function(a) (a$exp() * a)$sum()
  bad <- function(a) {
    captured[1, ] <- a
    a
  }
  run <- function(n) for (i in seq_len(n)) {
    autograd_vmap(autograd_hessian_fn(g))(X)
    autograd_vmap(autograd_jacfwd(function(a) a$tanh()))(X)
    try(autograd_vmap(bad)(X), silent = TRUE)
  }
  run(10)
  before <- live()
  run(100)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
