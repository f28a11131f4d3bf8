# Views that write through and in-place ops on views of tensors in the graph (CopySlices):
# the R face of tests/test_views.py, with the values PyTorch 2.13 / libtorch gives.
skip_if_no_python()

test_that("indexing and view ops return views that write through", {
  x <- torch_ones(3)
  x[1]$add_(1)
  x[2]$zero_()
  x$select(1, 3)$mul_(5)
  expect_equal(as_array(x), c(2, 0, 5))
  m <- torch_zeros(2, 3)
  m$t()[2, ]$fill_(7)
  m[2, 2:3]$add_(1)
  m$view(6)[1]$fill_(3)
  m$narrow(2, 1, 1)$mul_(2)
  expect_equal(as_array(m), matrix(c(6, 0, 7, 8, 0, 1), 2))
})

test_that("y[1] <- 0 and y[2:3]$mul_(3) on a tensor in the graph, then backward", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  y <- x * torch_tensor(c(2, 2, 2))
  y[1] <- 0
  expect_output(print(y$grad_fn), "CopySlices")
  v <- y[2:3]
  v$mul_(3)
  expect_output(print(y$grad_fn), "CopySlices")
  expect_output(print(v$grad_fn), "AsStridedBackward0")
  (y * y)$sum()$backward()
  expect_equal(as_array(y), c(0, 12, 18))
  expect_equal(as_array(x$grad), c(0, 144, 216))
})

test_that("a view taken before its base changed in place follows the base's new history", {
  x <- torch_tensor(c(0, 1, 2), requires_grad = TRUE)
  y <- x * 2
  v <- y[2:3]
  y[1]$mul_(5)
  expect_output(print(v$grad_fn), "AsStridedBackward0")
  (v * v)$sum()$backward()
  expect_equal(as_array(x$grad), c(0, 8, 16))
})

test_that("libtorch's refusals of in-place ops on views", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  expect_error(x[1]$zero_(),
               "a view of a leaf Variable that requires grad is being used in an in-place operation.",
               fixed = TRUE)
  y <- x * 2
  v <- with_no_grad(y[1])
  expect_error(v$mul_(2), "A view was created in no_grad mode and is being modified inplace",
               fixed = TRUE)
  expect_error(y$unbind()[[1]]$mul_(2),
               "Output 0 of Unbind is a view and is being modified inplace.", fixed = TRUE)
  expect_equal(as_array(y), c(2, 4, 6))
})

test_that("a 0-d gradient can be zeroed and accumulates into the same tensor", {
  x <- torch_tensor(3, requires_grad = TRUE)
  (x * 2)$backward()
  x$grad$zero_()
  expect_equal(x$grad$item(), 0)
  (x * 2)$backward()
  (x * 5)$backward()
  expect_equal(x$grad$item(), 7)
})

test_that("assignment drops the value's extra leading size-1 dims", {
  x <- torch_zeros(3)
  x[1] <- torch_tensor(2)
  expect_equal(as_array(x), c(2, 0, 0))
  m <- torch_zeros(2, 3)
  m[1, ] <- torch_ones(1, 1, 3)
  expect_equal(as_array(m), matrix(c(1, 0, 1, 0, 1, 0), 2))
  b <- torch_tensor(matrix(1:6, 2, byrow = TRUE) * 1, requires_grad = TRUE)
  z <- b * 1
  u <- torch_tensor(array(c(1, 2, 3), c(1, 1, 3)), requires_grad = TRUE)
  z[2, ] <- u * 2
  (z * z)$sum()$backward()
  expect_equal(as_array(b$grad), matrix(c(2, 0, 4, 0, 6, 0), 2))
  expect_equal(as_array(u$grad), array(c(8, 16, 24), c(1, 1, 3)))
})

test_that("a view taken before its base gets a history carries the gradient afterwards", {
  v <- torch_tensor(c(1, 2), requires_grad = TRUE)
  z <- torch_zeros(3, 2)
  w <- z[2:3, ]           # z requires no grad yet
  z[2, ] <- v             # now it has a history
  out <- (w * 2)$sum()
  expect_true(out$requires_grad)
  out$backward()
  expect_equal(as_array(v$grad), c(2, 2))
})
