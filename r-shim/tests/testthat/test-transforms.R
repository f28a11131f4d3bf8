# Function transforms and forward-mode AD from R: 1-based argnums / in_dims / out_dims, R
# closures as functions, compositions, errors kept intact, and nothing leaking per call.

f64 <- function(x) torch_tensor(x, dtype = torch_float64())

test_that("grad, jacobians and the Hessian of an R closure", {
  f <- function(x) (x^3)$sum()
  x <- f64(c(1, 2))
  expect_equal(as_array(autograd_grad_fn(f)(x)), c(3, 12))
  expect_equal(as_array(autograd_hessian_fn(f)(x)), diag(c(6, 12)))
  expect_equal(as_array(autograd_jacrev(autograd_jacrev(f))(x)), diag(c(6, 12)))
  expect_equal(as_array(autograd_jacfwd(function(x) x$exp())(x)), diag(exp(c(1, 2))))
  gv <- autograd_grad_and_value(f)(x)
  expect_equal(as_array(gv[[2]]), 9)
  # argnums is 1-based: the gradient with respect to the second argument
  g2 <- autograd_grad_fn(function(a, b) (a * b^2)$sum(), argnums = 2)(x, f64(c(3, 4)))
  expect_equal(as_array(g2), 2 * c(1, 2) * c(3, 4))
  both <- autograd_grad_fn(function(a, b) (a * b)$sum(), argnums = c(1, 2))(x, f64(c(3, 4)))
  expect_equal(as_array(both[[1]]), c(3, 4))
  expect_equal(as_array(both[[2]]), c(1, 2))
})

test_that("vmap maps over 1-based dims and composes with grad", {
  X <- f64(matrix(1:6, 3, 2))
  expect_equal(as_array(autograd_vmap(function(a) a$sum(), in_dims = 2)(X)), c(6, 15))
  expect_equal(as_array(autograd_vmap(function(a) a * 2, out_dims = 2)(X)), t(matrix(1:6, 3, 2)) * 2)
  loss <- function(b, xi, yi) ((xi$matmul(b) - yi)^2)$sum()
  b <- f64(c(1, 2))
  y <- f64(c(1, 2, 3))
  per <- autograd_vmap(autograd_grad_fn(loss), in_dims = list(NULL, 1, 1))(b, X, y)
  Xm <- matrix(1:6, 3, 2)
  want <- t(sapply(1:3, function(i) 2 * Xm[i, ] * (sum(Xm[i, ] * c(1, 2)) - c(1, 2, 3)[i])))
  expect_equal(as_array(per), want)
  expect_error(autograd_vmap(function(a, b) a + b)(X, b), "same size in the mapped dimension")
  expect_error(autograd_vmap(function(a) a, in_dims = 0), "1-based")
  expect_error(autograd_vmap(function(a) a + torch_randn(2))(X), "randomness error mode")
  expect_true("linalg_det" %in% autograd_vmap_fallback_ops())
  expect_false("exp" %in% autograd_vmap_fallback_ops())
})

test_that("dual tensors, jvp and forward-mode Jacobians", {
  x <- f64(c(1, 2))
  tan <- with_dual_level({
    d <- autograd_make_dual(x, f64(c(1, 0)))
    autograd_unpack_dual(d$sin() * 2)$tangent
  })
  expect_equal(as_array(tan), c(2 * cos(1), 0))
  expect_error(autograd_make_dual(x, x), "no level exists")
  r <- autograd_jvp_fn(function(z) z$exp(), x, f64(c(1, 1)))
  expect_equal(as_array(r[[2]]), exp(c(1, 2)))
  j <- autograd_jacobian(function(z) z$exp(), x, vectorize = TRUE, strategy = "forward-mode")
  expect_equal(as_array(j), diag(exp(c(1, 2))))
  h <- autograd_hessian(function(z) (z^3)$sum(), x, vectorize = TRUE,
                        outer_jacobian_strategy = "forward-mode")
  expect_equal(as_array(h), diag(c(6, 12)))
  expect_equal(as_array(autograd_jvp(function(z) z^2, x, f64(c(1, 1)))[[2]]), c(2, 4))
})

test_that("an R error inside a transformed function reaches R intact", {
  bad <- function(x) stop("my own error")
  expect_error(autograd_grad_fn(bad)(f64(1)), "my own error")
  expect_error(autograd_vmap(bad)(f64(c(1, 2))), "my own error")
})

test_that("transforms do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  f <- function(x) (x^3)$sum()
  loss <- function(b, xi) (xi * b)$sum()
  X <- f64(matrix(1:6, 3, 2))
  run <- function(n) for (i in seq_len(n)) {
    x <- f64(c(1, 2))
    autograd_grad_fn(f)(x)
    autograd_hessian_fn(f)(x)
    autograd_vmap(autograd_grad_fn(loss), in_dims = list(NULL, 1))(x, X)
    with_dual_level(autograd_unpack_dual(autograd_make_dual(x, x)$exp())$tangent)
  }
  run(10)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})

test_that("per-sample gradients of an nnf network from R run by batching rules", {
  set.seed(3)
  W <- f64(matrix(rnorm(12), 4, 3))
  b <- f64(rnorm(4))
  X <- f64(matrix(rnorm(15), 5, 3))
  y <- torch_tensor(c(1L, 3L, 2L, 4L, 1L))
  loss <- function(W, b, xi, yi) {
    logits <- nnf_relu(nnf_linear(xi, W, b))
    nnf_cross_entropy(logits$unsqueeze(1), yi$unsqueeze(1))
  }
  per <- autograd_vmap(autograd_grad_fn(loss, argnums = c(1, 2)),
                       in_dims = list(NULL, NULL, 1, 1))(W, b, X, y)
  expect_equal(per[[1]]$shape, c(5, 4, 3))
  for (i in 1:5) {
    one <- autograd_grad_fn(loss, argnums = c(1, 2))(W, b, X[i, ], y[i])
    expect_equal(as_array(per[[1]][i, , ]), as_array(one[[1]]), tolerance = 1e-12)
    expect_equal(as_array(per[[2]][i, ]), as_array(one[[2]]), tolerance = 1e-12)
  }
  chunked <- autograd_vmap(function(x) (x * 2)$sum(), chunk_size = 2)(X)
  expect_equal(as_array(chunked), rowSums(as_array(X)) * 2)
  captured <- f64(c(0, 0, 0))
  expect_error(autograd_vmap(function(x) captured$mul_(x))(X), "inplace arithmetic")
  expect_error(autograd_vmap(function(x) captured$add_(x))(X),
               "output with shape [3] doesn't match the broadcast shape [5, 3]", fixed = TRUE)
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    autograd_vmap(autograd_grad_fn(loss), in_dims = list(NULL, NULL, 1, 1), chunk_size = 3)(
      W, b, X, y)
  }
  run(10)
  before <- live()
  run(100)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
