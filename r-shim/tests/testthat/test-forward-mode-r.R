# Forward mode from R: a custom function's `jvp`, tangents under with_no_grad(), and nothing
# leaking per call.
skip_if_no_python()

f64 <- function(x) torch_tensor(x, dtype = torch_float64())

scaled_sin <- autograd_function(
  forward = function(ctx, x, k) {
    ctx$save_for_backward(x = x, k = k)
    k * torch_sin(x)
  },
  backward = function(ctx, grad_output) {
    s <- ctx$saved_variables
    list(x = grad_output * s$k * torch_cos(s$x))
  },
  jvp = function(ctx, x, k) {
    s <- ctx$saved_variables
    x * s$k * torch_cos(s$x)
  }
)

test_that("a custom function's jvp gives its tangent (ctx$ as in backward)", {
  x <- f64(c(0.5, 1, 2))
  v <- f64(c(1, -2, 0.5))
  r <- autograd_jvp(function(z) scaled_sin(z, 3), x, v)
  expect_equal(as_array(r[[2]]), 3 * cos(c(0.5, 1, 2)) * c(1, -2, 0.5))
  # the same through a dual tensor, composed with registered ops
  t <- with_dual_level({
    d <- autograd_make_dual(x, v)
    autograd_unpack_dual(scaled_sin(d, 2)$exp())$tangent
  })
  expect_equal(as_array(t), exp(2 * sin(c(0.5, 1, 2))) * 2 * cos(c(0.5, 1, 2)) * c(1, -2, 0.5))
  # both names of the tangent's argument reach jvp; `k` has none: NULL
  seen <- NULL
  probe <- autograd_function(
    forward = function(ctx, x, k) x * k,
    backward = function(ctx, g) list(x = g),
    jvp = function(ctx, x, k) {
      seen <<- is.null(k)
      x * 2
    }
  )
  autograd_jvp(function(z) probe(z, 2), x, v)
  expect_true(seen)
})

test_that("jvp errors: a function without one, a jvp that is not a function", {
  nojvp <- autograd_function(function(ctx, x) x * 2, function(ctx, g) list(x = g * 2))
  expect_error(autograd_jvp(function(z) nojvp(z), f64(1), f64(1)), "implement the jvp")
  expect_error(autograd_function(function(ctx, x) x, function(ctx, g) g, jvp = 3),
               "`jvp` must be a function or NULL", class = "type_error")
})

test_that("tangents keep flowing under with_no_grad(), as in PyTorch", {
  x <- f64(c(1, 2))$requires_grad_(TRUE)
  res <- with_dual_level({
    d <- autograd_make_dual(x, f64(c(1, 1)))
    y <- with_no_grad({
      expect_false(rtorchpy:::.set_grad_mode(NA))  # (NA: only read the mode)
      torch_sin(d) * d
    })
    list(t = autograd_unpack_dual(y)$tangent, rg = y$requires_grad,
         on = rtorchpy:::.set_grad_mode(NA))
  })
  expect_equal(as_array(res$t), cos(c(1, 2)) * c(1, 2) + sin(c(1, 2)))
  expect_false(res$rg)
  expect_true(res$on)
  # opened the other way round
  t2 <- with_no_grad(with_dual_level(
    autograd_unpack_dual(autograd_make_dual(x, f64(c(1, 1)))$exp())$tangent))
  expect_equal(as_array(t2), exp(c(1, 2)))
  expect_true(rtorchpy:::.set_grad_mode(NA))
  expect_true(torch_sin(x)$requires_grad)
})

test_that("custom functions with jvp do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  x <- f64(c(0.5, 1))
  v <- f64(c(1, 1))
  run <- function(n) for (i in seq_len(n)) {
    f <- autograd_function(
      forward = function(ctx, x) {
        ctx$save_for_backward(x = x)
        x^2
      },
      backward = function(ctx, g) list(x = 2 * g * ctx$saved_variables$x),
      jvp = function(ctx, x) 2 * x * ctx$saved_variables$x
    )
    autograd_jvp(function(z) f(z), x, v)
    autograd_jvp(function(z) scaled_sin(z, 2), x, v)
  }
  run(10)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
