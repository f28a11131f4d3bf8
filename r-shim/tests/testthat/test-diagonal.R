# diagonal: 1-based dims, a view that writes through, its gradient and in-place ops through it
# on a tensor in the graph (values as PyTorch 2.13 / libtorch give them).
skip_if_no_python()

test_that("torch_diagonal and x$diagonal take 1-based dims, offsets and batches", {
  x <- torch_tensor(matrix(1:12, 3, 4), dtype = torch_float64())
  expect_equal(as_array(x$diagonal()), c(1, 5, 9))
  expect_equal(as_array(torch_diagonal(x, offset = 1)), c(4, 8, 12))
  expect_equal(as_array(x$diagonal(offset = -1)), c(2, 6))
  expect_equal(as_array(x$diagonal(offset = 1, dim1 = 2, dim2 = 1)), c(2, 6))
  expect_equal(as_array(x$diagonal(dim1 = -1, dim2 = -2)), c(1, 5, 9))
  expect_equal(x$diagonal(offset = 5)$shape, 0)
  b <- torch_zeros(2, 3, 3)
  expect_equal(b$diagonal(dim1 = 2, dim2 = 3)$shape, c(2, 3))
})

test_that("the diagonal is a view: writes go through both ways", {
  b <- torch_zeros(2, 3, 3)
  b$diagonal(dim1 = 2, dim2 = 3)$fill_(1)
  expect_equal(as_array(b[2, , ]), diag(3))
  expect_equal(as_array(b$sum()), 6)
  d <- b$diagonal(dim1 = 2, dim2 = 3)
  b$mul_(4)
  expect_equal(as_array(d), matrix(4, 2, 3))
})

test_that("backward through diagonal and through an in-place op on it (CopySlices)", {
  w <- torch_tensor(matrix(1:9, 3, 3), dtype = torch_float64())
  x <- torch_zeros(3, 3, dtype = torch_float64(), requires_grad = TRUE)
  x$diagonal(offset = 1)$sum()$backward()
  expect_equal(as_array(x$grad), matrix(c(0, 0, 0, 1, 0, 0, 0, 1, 0), 3))
  x <- torch_ones(3, 3, dtype = torch_float64(), requires_grad = TRUE)
  y <- x * 1
  y$diagonal()$zero_()
  expect_output(print(y$grad_fn), "CopySlices")
  (y * w)$sum()$backward()
  expect_equal(as_array(x$grad), matrix(c(0, 2, 3, 4, 0, 6, 7, 8, 0), 3))
})

test_that("second order: the gradient of diagonal is differentiable", {
  x <- torch_ones(2, 2, dtype = torch_float64(), requires_grad = TRUE)
  v <- torch_tensor(c(3, 5), dtype = torch_float64(), requires_grad = TRUE)
  g <- autograd_grad((x$diagonal() * v)$sum(), list(x), create_graph = TRUE)[[1]]
  expect_output(print(g$grad_fn), "DiagonalBackwardBackward0")
  (g * torch_tensor(matrix(c(1, 2, 3, 4), 2), dtype = torch_float64()))$sum()$backward()
  expect_equal(as_array(v$grad), c(1, 4))
})

test_that("libtorch's errors (its 0-based numbers where R torch leaves them)", {
  x <- torch_zeros(2, 3)
  expect_error(x$diagonal(dim1 = 1, dim2 = 1), "diagonal dimensions cannot be identical 0, 0",
               fixed = TRUE)
  expect_error(x$diagonal(dim2 = 3),
               "Dimension out of range (expected to be in range of [-2, 2], but got 3)",
               fixed = TRUE)
})
