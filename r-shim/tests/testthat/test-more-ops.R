# torch_nonzero, torch_median, torch_kthvalue, torch_unflatten, x$new_*() and nnf_one_hot()
# with R's conventions: dims, index results and class values 1-based (values from PyTorch 2.13,
# shifted by one where R counts from 1).
skip_if_no_python()

test_that("torch_nonzero() gives 1-based indices, as a matrix or a list", {
  x <- torch_tensor(matrix(c(1, 0, 0, 3, 0, 2), 2, byrow = TRUE))
  nz <- torch_nonzero(x)
  expect_equal(nz$dtype, torch_long())
  expect_equal(as_array(nz), matrix(c(1, 1, 2, 1, 2, 3), 3, byrow = TRUE))
  expect_equal(as_array(x$nonzero()), as_array(nz))
  parts <- torch_nonzero(x, as_list = TRUE)
  expect_length(parts, 2)
  expect_equal(as_array(parts[[1]]), c(1, 2, 2))
  expect_equal(as_array(parts[[2]]), c(1, 1, 3))
  expect_equal(torch_nonzero(torch_zeros(2, 3))$shape, c(0L, 2L))
  # each row indexes R's matrix: the non-zero values in row-major order
  expect_equal(as_array(x)[as_array(nz)], c(1, 3, 2))
})

test_that("torch_median() over everything, and along a 1-based dim with 1-based indices", {
  x <- torch_tensor(matrix(c(3, 1, 2, 5, 4, 4, 0, 1), 2, byrow = TRUE), requires_grad = TRUE)
  m <- torch_median(x)
  expect_equal(as_array(m), 2)  # the lower of the two middle values, as PyTorch
  expect_equal(m$grad_fn$name, "MedianBackward0")
  r <- torch_median(x, dim = 2)
  expect_equal(as_array(r[[1]]), c(2, 1))
  expect_equal(as_array(r[[2]]), c(3L, 4L))  # PyTorch: [2, 3]
  expect_equal(r[[1]]$grad_fn$name, "MedianBackward1")
  expect_equal(x$median(1, keepdim = TRUE)[[1]]$shape, c(1L, 4L))
  r[[1]]$sum()$backward()
  expect_equal(as_array(x$grad), matrix(c(0, 0, 1, 0, 0, 0, 0, 1), 2, byrow = TRUE))
  expect_true(is.nan(as_array(torch_median(torch_tensor(c(1, NaN, 2))))))
  expect_error(torch_median(x, 0), "Indexing starts at 1")
  expect_error(torch_median(torch_zeros(2, 0), 2), "Expected reduction dim 2 to have non-zero size")
})

test_that("torch_kthvalue() takes k as it is, a 1-based dim (last by default)", {
  x <- torch_tensor(matrix(c(3, 1, 2, 5, 4, 4, 0, 1), 2, byrow = TRUE), requires_grad = TRUE)
  r <- torch_kthvalue(x, 2)
  expect_equal(as_array(r[[1]]), c(2, 1))
  expect_equal(as_array(r[[2]]), c(3L, 4L))  # PyTorch: [2, 3]
  expect_equal(r[[1]]$grad_fn$name, "KthvalueBackward0")
  r1 <- x$kthvalue(1, dim = 1)
  expect_equal(as_array(r1[[1]]), c(3, 1, 0, 1))
  expect_equal(as_array(r1[[2]]), c(1L, 1L, 2L, 2L))
  # ties: the element libtorch's selection returns (PyTorch 2.13: indices [1, 0, 2])
  ties <- torch_tensor(c(1, 1, 1))
  expect_equal(sapply(1:3, function(k) as_array(torch_kthvalue(ties, k)[[2]])), c(2, 1, 3))
  r[[1]]$sum()$backward()
  expect_equal(as_array(x$grad), matrix(c(0, 0, 1, 0, 0, 0, 0, 1), 2, byrow = TRUE))
  expect_error(torch_kthvalue(x, 5), "selected number k out of range for dimension 2")
  expect_error(torch_kthvalue(x, 1, 0), "Indexing starts at 1")
})

test_that("torch_unflatten() splits a 1-based dim into sizes; a view", {
  x <- torch_randn(2, 12, requires_grad = TRUE)
  u <- torch_unflatten(x, 2, c(3, 4))
  expect_equal(u$shape, c(2L, 3L, 4L))
  expect_equal(as_array(u[2, 3, ]), as_array(x[2, 9:12]))
  expect_equal(x$unflatten(-1, c(-1, 6))$shape, c(2L, 2L, 6L))
  expect_equal(x$unflatten(1, 2)$shape, c(2L, 12L))
  expect_equal(u$grad_fn$name, "ViewBackward0")
  y <- x$detach()$unflatten(2, c(3, 4))
  y[1, 1, 1] <- 100
  expect_equal(as_array(x[1, 1]), 100)  # a view: the write shows through
  expect_error(x$unflatten(2, c(5, 3)),
               "Provided sizes \\[5, 3\\] don't multiply up to the size of dim 2 \\(12\\)")
  expect_error(x$unflatten(2, c(-1, -1)), "only one dimension can be inferred")
  expect_error(x$unflatten(0, c(3, 4)), "Indexing starts at 1")
})

test_that("x$new_zeros() and friends keep x's dtype; sizes as numbers or a vector", {
  x <- torch_tensor(1:3)  # int64
  expect_equal(x$new_zeros(c(2, 3))$shape, c(2L, 3L))
  expect_equal(x$new_zeros(2, 3)$shape, c(2L, 3L))
  expect_equal(x$new_zeros(2, 3)$dtype, torch_long())
  expect_equal(as_array(x$new_ones(2)), c(1L, 1L))
  expect_equal(x$new_zeros(2, dtype = torch_float64())$dtype, torch_float64())
  expect_equal(x$new_empty(c(4, 1))$shape, c(4L, 1L))
  expect_equal(as_array(x$new_full(c(2, 2), 7.9)), matrix(7L, 2, 2))  # truncated to int64
  f <- torch_ones(1, dtype = torch_float64())
  z <- f$new_ones(c(2, 2), requires_grad = TRUE)
  expect_true(z$requires_grad)
  expect_equal(z$dtype, torch_float64())
  expect_error(x$new_ones(2, requires_grad = TRUE), "floating point")
  nt <- x$new_tensor(c(1.5, 2.7))
  expect_equal(nt$dtype, torch_long())
  expect_equal(as_array(nt), c(1L, 2L))
  expect_equal(f$new_tensor(2)$shape, 1L)  # an R number has shape {1}, as torch_tensor(2)
  expect_equal(as_array(f$new_tensor(matrix(1:4, 2))), matrix(c(1, 2, 3, 4), 2))
  src <- torch_tensor(c(1, 2), requires_grad = TRUE)
  expect_no_warning(cp <- f$new_tensor(src))  # (R torch has none: no PyTorch warning here)
  expect_equal(cp$dtype, torch_float64())
  expect_false(cp$requires_grad)
})

test_that("nnf_one_hot() takes 1-based class values, as R torch", {
  oh <- nnf_one_hot(torch_tensor(c(1L, 3L, 2L)))
  expect_equal(oh$dtype, torch_long())
  expect_equal(as_array(oh), matrix(c(1, 0, 0, 0, 0, 1, 0, 1, 0), 3, byrow = TRUE))
  expect_equal(nnf_one_hot(torch_tensor(c(1L, 2L)), num_classes = 4)$shape, c(2L, 4L))
  expect_equal(nnf_one_hot(torch_tensor(1L))$shape, c(1L, 1L))  # R torch's own test
  expect_equal(nnf_one_hot(torch_tensor(matrix(1:4, 2)))$shape, c(2L, 2L, 4L))
  expect_error(nnf_one_hot(torch_tensor(0L)), "1-based")
  expect_error(nnf_one_hot(torch_tensor(c(1L, 3L)), 2),
               "Class values must be smaller than num_classes")
  expect_error(nnf_one_hot(torch_tensor(c(-1L, 2L))), "Class values must be non-negative")
  expect_error(nnf_one_hot(torch_tensor(c(1, 2))), "LongTensor")
})
