# `[` and `[<-` with R torch's rules (spec section 4.3).
skip_if_no_python()

test_that("scalars are 1-based, negative from the end, and drop their dim", {
  x <- torch_arange(1, 10)
  expect_equal(x[1]$item(), 1)
  expect_equal(x[-1]$item(), 10)
  expect_equal(x[-2]$item(), 9)
  expect_equal(x[1]$shape, integer(0))
  expect_equal(x[1, drop = FALSE]$shape, 1L)
  expect_error(x[0], "Indexing in R is 1-based and found a 0.", fixed = TRUE)
  expect_error(x[11], "out of range")
  i <- 3
  expect_equal(x[i]$item(), 3)
  expect_equal(x[torch_tensor(4L)$sum()]$item(), 4)
  m <- torch_tensor(matrix(1:12, nrow = 3))
  expect_equal(m[2, 3]$item(), 8L)
  expect_equal(as_array(m[2, ]), c(2L, 5L, 8L, 11L))
  expect_equal(as_array(m[, 2]), 4:6)
  expect_equal(m[2, , drop = FALSE]$shape, c(1L, 4L))
  expect_equal(as_array(m[-1, -1]), 12L)
})

test_that("ranges are inclusive; N; steps; slc()", {
  x <- torch_arange(1, 10)
  expect_equal(as_array(x[2:5]), 2:5 * 1)
  expect_equal(as_array(x[1:(-7)]), 1:4 * 1)
  expect_equal(as_array(x[8:-1]), 8:10 * 1)
  expect_equal(as_array(x[5:N]), 5:10 * 1)
  expect_equal(as_array(x[(N - 1):N]), c(9, 10))
  expect_equal(as_array(x[N]), 10)
  expect_equal(as_array(x[1:5:2]), c(1, 3, 5))
  expect_equal(as_array(x[-3:-1]), c(8, 9, 10))
  a <- 2
  b <- 4
  expect_equal(as_array(x[a:b]), c(2, 3, 4))
  expect_equal(as_array(x[slc(a, b)]), c(2, 3, 4))
  expect_equal(as_array(x[slc(1, 9, 4)]), c(1, 5, 9))
  m <- torch_tensor(matrix(1:12, nrow = 3))
  expect_equal(as_array(m[2:N, 3:N]), matrix(c(8L, 9L, 11L, 12L), 2))
  expect_equal(as_array(m[1, 2:N]), c(4L, 7L, 10L))
})

test_that("empty arguments, `..`, newaxis and NULL", {
  a <- torch_tensor(array(1:24, dim = c(2, 3, 4)))
  expect_equal(a[, , 1]$shape, c(2L, 3L))
  expect_equal(a[.., 1]$shape, c(2L, 3L))
  expect_equal(as_array(a[.., 1]), array(1:24, dim = c(2, 3, 4))[, , 1])
  expect_equal(a[1, ..]$shape, c(3L, 4L))
  expect_equal(a[1, .., 2]$shape, 3L)
  expect_equal(as_array(a[1, .., N]), array(1:24, dim = c(2, 3, 4))[1, , 4])
  expect_equal(a[newaxis, 1, 1, 1]$shape, 1L)
  expect_equal(a[NULL, ..]$shape, c(1L, 2L, 3L, 4L))
  expect_equal(a[]$shape, c(2L, 3L, 4L))
})

test_that("vectors and index tensors select per dimension (R semantics)", {
  m <- torch_tensor(matrix(1:16, nrow = 4))
  r <- m[c(1, 3), c(1, 3)]
  expect_equal(as_array(r), matrix(1:16, 4)[c(1, 3), c(1, 3)])
  expect_equal(as_array(m[c(2, 4), 1]), c(2L, 4L))
  expect_equal(as_array(m[torch_tensor(c(1L, 4L)), 2]), c(5L, 8L))
  expect_equal(as_array(m[c(-1, 1), 1]), c(4L, 1L))
  expect_error(m[c(0, 1), 1], "Indexing in R is 1-based and found a 0.", fixed = TRUE)
  x <- torch_tensor(c(5, 6, 7))
  expect_equal(as_array(x[c(TRUE, FALSE, TRUE)]), c(5, 7))
  expect_equal(as_array(m[m > 10]), c(13L, 14L, 11L, 15L, 12L, 16L))  # row-major order
  expect_equal(as_array(x[x > 5]), c(6, 7))
  expect_error(x["a"], "Unsupported index.")
})

test_that("indexing is differentiable", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  y <- x[2]
  y$backward()
  expect_equal_to_r(x$grad, c(0, 1, 0))
  m <- torch_ones(3, 3, requires_grad = TRUE)
  m[c(1, 3), c(1, 3)]$sum()$backward()
  expect_equal_to_r(m$grad, matrix(c(1, 0, 1, 0, 0, 0, 1, 0, 1), 3))
})

test_that("assignment with `[<-`", {
  x <- torch_zeros(5)
  x[1] <- 1
  x[-1] <- 5
  x[2:3] <- torch_tensor(c(2, 3))
  expect_equal(as_array(x), c(1, 2, 3, 0, 5))
  x[x > 2] <- 0
  expect_equal(as_array(x), c(1, 2, 0, 0, 0))
  m <- torch_zeros(2, 3)
  m[2, ] <- 1
  m[, 3] <- 7
  expect_equal(as_array(m), matrix(c(0, 1, 0, 1, 7, 7), 2))
  m[.., 1] <- 9
  expect_equal(as_array(m[, 1]), c(9, 9))
  v <- torch_zeros(4)
  v[c(1, 3)] <- 1
  expect_equal(as_array(v), c(1, 0, 1, 0))
  expect_error({ m[c(1, 2), c(1, 2)] <- 0 }, "not allowed in assignment")
  w <- torch_ones(2, requires_grad = TRUE)
  expect_error({ w[1] <- 0 }, "leaf Variable that requires grad")
  with_no_grad(w[1] <- 0)
  expect_equal_to_r(w, c(0, 1))
})

test_that("a number next to a vector drops its dim first, as in libtorch (R semantics)", {
  a <- array(as.numeric(0:59), dim = c(3, 4, 5))
  x <- torch_tensor(a, requires_grad = TRUE)
  r <- x[1, , c(2, 3)]
  expect_equal(dim(r), c(4L, 2L))  # NumPy's rule would give 2 x 4, transposed
  expect_equal(as_array(r), a[1, , c(2, 3)])
  expect_equal(as_array(x[c(1, 3), 2, c(2, 3)]), a[c(1, 3), 2, c(2, 3)])
  expect_equal(as_array(x[-1, c(4, 1), ]), a[3, c(4, 1), ])
  w <- array(as.numeric(1:8), dim = c(4, 2))
  (r * torch_tensor(w))$sum()$backward()
  g <- array(0, dim = dim(a))
  g[1, , c(2, 3)] <- w
  expect_equal_to_r(x$grad, g)
  y <- x$clone()
  y[1, , c(2, 3)] <- torch_tensor(-w)
  b <- a
  b[1, , c(2, 3)] <- -w
  expect_equal(as_array(y$detach()), b)
  expect_equal(y$grad_fn$name, "CopySlices")
  x$grad$zero_()
  y$sum()$backward()
  g <- array(1, dim = dim(a))
  g[1, , c(2, 3)] <- 0
  expect_equal_to_r(x$grad, g)
})

test_that("masks and index_select work on 0-dim tensors", {
  t <- torch_tensor(2, requires_grad = TRUE)$sum()  # 0-dim
  r <- t[t > 0]
  expect_equal(dim(r), 1L)
  expect_equal(dim(t[t < 0]), 0L)
  r$sum()$backward()
  s <- t$index_select(1, torch_tensor(1L))
  expect_equal(dim(s), integer(0))
  expect_equal(s$grad_fn$name, "IndexSelectBackward0")
  expect_error(t$index_select(1, torch_tensor(c(1L, 1L))), "Index to scalar can have only 1 value")
  u <- t$clone()
  u[u > 0] <- 7
  expect_equal(as_array(u), 7)
  v <- torch_tensor(c(1, 2, 3))
  # an R logical vector is a 1-d mask, as R torch makes it (issue 29: x[TRUE] kept a dim)
  expect_equal(as_array(torch_tensor(5)[TRUE]), 5)
  expect_equal(dim(torch_tensor(5)[FALSE]), 0L)
  expect_error(v[TRUE], "mask")
})

test_that("index_put and index_put_ take a list of 1-based index tensors", {
  x <- torch_zeros(3, 3)
  r <- x$index_put(list(torch_tensor(c(1L, 3L)), torch_tensor(c(2L, 2L))), torch_tensor(c(5, 6)))
  expect_equal(as_array(r), matrix(c(0, 0, 0, 5, 0, 6, 0, 0, 0), 3))
  y <- torch_zeros(3, 3, requires_grad = TRUE)$clone()
  y$index_put_(list(torch_tensor(c(1L, -1L))), torch_tensor(2), accumulate = TRUE)
  expect_equal(as_array(y$detach()), matrix(c(2, 0, 2), 3, 3))
  expect_equal(y$grad_fn$name, "IndexPutBackward0")
  z <- torch_zeros(2, 2)
  z$index_put_(list(torch_tensor(c(TRUE, FALSE))), torch_tensor(1))
  expect_equal(as_array(z), matrix(c(1, 0, 1, 0), 2))
  expect_error(x$index_put(list(torch_tensor(0L)), torch_tensor(1)), "1-based")
})

test_that("a temporary index tensor lives until the call has read it", {
  # Index expressions are evaluated one after the other; a tensor one of them makes (the mask
  # x[, 1] > 10) was kept as its handle alone, so a collection while a later one was evaluated
  # freed it, and its handle was released before the call read it ("this object was freed").
  x <- torch_arange(1, 24)$view(c(4, 6))
  for (k in 1:3) {
    junk <- lapply(1:300, function(i) x + i)  # garbage enough for a batch of releases
    rm(junk)
    expect_equal(as_array(x[x[, 1] > 10, {invisible(gc()); 1:2}]), rbind(c(13, 14), c(19, 20)))
    y <- x$clone()
    junk <- lapply(1:300, function(i) x + i)
    rm(junk)
    y[x[, 1] > 10, {invisible(gc()); 2}] <- -1
    expect_equal(as_array(y)[, 2], c(2, 8, -1, -1))
  }
})
