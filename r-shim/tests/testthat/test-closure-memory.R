# R closures handed to Python (custom functions' forward/backward, hooks) that capture the frame
# holding their own outputs are freed with that frame, and still run when the graph outlives
# the R objects. (tests/test_rbridge_safety.py runs this file in every bridge mode.)

live <- function() unlist(rtorchpy:::.bridge_counts())

test_that("an autograd_function defined in the frame holding its output is freed", {
  step <- function() {
    x <- torch_randn(50, requires_grad = TRUE)
    w <- torch_randn(50)
    scaled <- autograd_function(
      forward = function(ctx, a) {
        ctx$save_for_backward(a)
        a * w * x$detach()
      },
      backward = function(ctx, g) list(a = w * g)
    )
    y <- scaled(x)  # y's frame is forward's and backward's environment
    y$sum()$backward()
    invisible(NULL)
  }
  for (i in 1:5) step()
  before <- live()
  for (i in 1:60) step()
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))  # (was 4 per step)
})

test_that("a custom node outliving every R object of the call still runs backward", {
  x <- torch_ones(3, requires_grad = TRUE)
  make <- function() {
    k <- torch_tensor(c(1, 2, 3))
    twice <- autograd_function(
      forward = function(ctx, a) a * 2,
      backward = function(ctx, g) list(a = g * 2 * k)  # (reaches the frame's `k`)
    )
    y <- twice(x)
    z <- y$sum()
    rm(y, twice)
    z
  }
  z <- make()
  for (i in 1:3) invisible(gc())
  z$backward(retain_graph = TRUE)
  expect_equal(as_array(x$grad), c(2, 4, 6))
  z$backward()  # (a retained graph keeps the R functions for the next backward)
  expect_equal(as_array(x$grad), c(4, 8, 12))
  # two outputs: the node lives while either R object does, and after both are gone
  pair <- autograd_function(
    forward = function(ctx, a) list(a * 1, a * 3),
    backward = function(ctx, g1, g2) list(a = g1 + 3 * g2)
  )
  x$grad$zero_()
  out <- pair(x)
  s <- out[[1]]$sum() + out[[2]]$sum()
  out[[1]] <- NULL
  for (i in 1:2) invisible(gc())
  out <- NULL
  for (i in 1:2) invisible(gc())
  s$backward()
  expect_equal(as_array(x$grad), rep(4, 3))
})

test_that("an nn_module whose forward captures the frame holding its output is freed", {
  step <- function() {
    w <- torch_randn(50, requires_grad = TRUE)
    m <- nn_module(initialize = function() {}, forward = function(x) x * w)()
    y <- m(torch_randn(50))
    y$sum()$backward()
    invisible(NULL)
  }
  for (i in 1:3) step()
  before <- live()
  for (i in 1:30) step()
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))
})

test_that("a hook on a dropped intermediate can use that intermediate and its frame", {
  x <- torch_ones(3, requires_grad = TRUE)
  seen <- NULL
  make <- function() {
    k <- torch_tensor(c(1, 2, 3))
    y <- x * 2
    v <- y * 1
    y$register_hook(function(g) {
      seen <<- c(as_array(y$sum()), as_array(v$sum()))
      g * k
    })
    y$sum()
  }
  s <- make()
  for (i in 1:3) invisible(gc())
  s$backward()
  expect_equal(seen, c(6, 6))
  expect_equal(as_array(x$grad), c(2, 4, 6))
})

test_that("hooks on dropped intermediates that use them are freed", {
  x <- torch_randn(50, requires_grad = TRUE)
  # (made outside `step`: a hook's environment reaching the frame that holds `s`, the graph's
  # root, would be a cycle through the graph that no weak reference can see)
  make <- function() {
    y <- x * 2
    y$register_hook(function(g) g * y$detach())
    y$sum()
  }
  step <- function() {
    s <- make()
    invisible(gc())
    s$backward()
    invisible(NULL)
  }
  for (i in 1:2) step()
  before <- live()
  for (i in 1:15) step()  # (each runs a full collection: few)
  grown <- live() - before
  expect_true(all(grown < 10), info = paste(grown, collapse = ", "))
})
