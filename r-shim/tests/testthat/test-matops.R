# Matrix, shape and sorting ops with R conventions: 1-based dims, 1-based indices from
# sort/topk/argsort and tril_indices/triu_indices (R torch since mlverse/torch#1382), R vectors
# as arguments.
# Values as PyTorch 2.13 gives them.
skip_if_no_python()

f64 <- function(x) torch_tensor(x, dtype = torch_float64())

test_that("sort, argsort and topk return 1-based indices and take 1-based dims", {
  x <- f64(c(3, 1, 2, 1))
  r <- torch_sort(x)
  expect_equal(as_array(r[[1]]), c(1, 1, 2, 3))
  expect_equal(as_array(r[[2]]), c(2, 4, 3, 1))  # ties keep their order
  r <- x$sort(descending = TRUE)
  expect_equal(as_array(r[[2]]), c(1, 3, 2, 4))
  r <- x$sort(stable = TRUE)
  expect_equal(as_array(r[[2]]), c(2, 4, 3, 1))
  m <- f64(rbind(c(3, 1), c(1, 2)))
  r <- torch_sort(m, dim = 1)
  expect_equal(as_array(r[[1]]), rbind(c(1, 1), c(3, 2)))
  expect_equal(as_array(r[[2]]), rbind(c(2, 1), c(1, 2)))
  expect_equal(as_array(torch_argsort(f64(c(3, 1, 2)))), c(2, 3, 1))
  expect_equal(as_array(m$argsort(dim = 1, descending = TRUE)), rbind(c(1, 2), c(2, 1)))
  t <- torch_topk(f64(c(1, 5, 3, 5)), 2)
  expect_equal(as_array(t[[1]]), c(5, 5))
  expect_equal(as_array(t[[2]]), c(2, 4))
  t <- m$topk(1, dim = 1, largest = FALSE)
  expect_equal(as_array(t[[2]]), matrix(c(2, 1), 1))
  expect_error(torch_sort(m, dim = 0), "Indexing starts at 1 but found a 0.", fixed = TRUE)
})

test_that("the gradient of sort goes back to where the values came from", {
  x <- f64(c(3, 1, 2))
  x$requires_grad_(TRUE)
  r <- x$sort()
  expect_output(print(r[[1]]$grad_fn), "SortBackward0")
  (r[[1]] * f64(c(10, 20, 30)))$sum()$backward()
  expect_equal(as_array(x$grad), c(30, 10, 20))
})

test_that("tril_indices and triu_indices are 1-based, as in R torch", {
  expect_equal(as_array(torch_tril_indices(3, 3)),
               rbind(c(1, 2, 2, 3, 3, 3), c(1, 1, 2, 1, 2, 3)))
  expect_equal(as_array(torch_triu_indices(2, 3, offset = 1)), rbind(c(1, 1, 2), c(2, 3, 3)))
  m <- matrix(1:9, 3, 3)
  i <- as_array(torch_tril_indices(3, 3))
  expect_equal(m[t(i)], m[lower.tri(m, diag = TRUE)][order(row(m)[lower.tri(m, diag = TRUE)])])
})

test_that("tril, triu and their in-place forms", {
  x <- f64(matrix(1:9, 3, 3))
  expect_equal(as_array(torch_tril(x)), matrix(c(1, 2, 3, 0, 5, 6, 0, 0, 9), 3))
  expect_equal(as_array(x$triu(diagonal = 1)), matrix(c(0, 0, 0, 4, 0, 0, 7, 8, 0), 3))
  y <- torch_ones(3, 3)
  y$tril_(-1)
  expect_equal(as_array(y), matrix(c(0, 1, 1, 0, 0, 1, 0, 0, 0), 3))
})

test_that("cumprod, diff, diag_embed and repeat_interleave take 1-based dims", {
  m <- f64(rbind(c(1, 2), c(3, 4)))
  expect_equal(as_array(torch_cumprod(m, dim = 1)), rbind(c(1, 2), c(3, 8)))
  expect_equal(as_array(m$cumprod(dim = 2)), rbind(c(1, 2), c(3, 12)))
  d <- f64(rbind(c(1, 2, 4), c(7, 11, 16)))
  expect_equal(as_array(torch_diff(d, dim = 1)), rbind(c(6, 9, 12)))
  expect_equal(as_array(torch_diff(d)), rbind(c(1, 2), c(4, 5)))
  expect_equal(as_array(torch_diag_embed(f64(c(1, 2)), dim1 = 1, dim2 = 2)), diag(c(1, 2)))
  r <- f64(rbind(c(1, 2)))
  expect_equal(as_array(r$repeat_interleave(2, dim = 2)), rbind(c(1, 1, 2, 2)))
  expect_equal(as_array(torch_repeat_interleave(r, c(1, 2), dim = 2)), rbind(c(1, 2, 2)))
  expect_equal(as_array(torch_tile(r, c(2, 1))), rbind(c(1, 2), c(1, 2)))
  expect_equal(as_array(r$tile(2)), rbind(c(1, 2, 1, 2)))
})

test_that("cumprod's gradient with zeros is libtorch's", {
  x <- f64(c(2, 0, 3, 0, 5))
  x$requires_grad_(TRUE)
  x$cumprod(1)$sum()$backward()
  expect_equal(as_array(x$grad), c(1, 8, 0, 0, 0))
})

test_that("quantile, var_mean and std_mean over a 1-based dim", {
  x <- f64(rbind(c(1, 2, 3, 4), c(10, 20, 30, 40)))
  expect_equal(as_array(torch_quantile(x, 0.5, dim = 2)), c(2.5, 25))
  expect_equal(as_array(x$quantile(c(0.25, 0.75), dim = 2)), rbind(c(1.75, 17.5), c(3.25, 32.5)))
  expect_equal(as_array(torch_quantile(x, 0.5, dim = 1, interpolation = "lower")), c(1, 2, 3, 4))
  vm <- torch_var_mean(x, dim = 2)
  expect_equal(as_array(vm[[2]]), c(2.5, 25))
  expect_equal(as_array(vm[[1]]), c(5 / 3, 500 / 3))
  sm <- torch_std_mean(x, dim = 1, unbiased = FALSE)
  expect_equal(as_array(sm[[1]]), c(4.5, 9, 13.5, 18))
})

test_that("einsum, tensordot, bmm, kron, trace, diag and cdist", {
  a <- f64(matrix(1:6, 2, 3))
  b <- f64(matrix(1:12, 3, 4))
  expect_equal(as_array(torch_einsum("ij,jk->ik", list(a, b))), as_array(a$mm(b)))
  expect_equal(as_array(torch_einsum(equation = "ij,jk->ik", tensors = list(a, b))),
               as_array(a$mm(b)))
  expect_equal(as_array(torch_tensordot(a, b, dims = 1)), as_array(a$mm(b)))
  expect_equal(as_array(torch_tensordot(a, b, dims = list(2, 1))), as_array(a$mm(b)))
  expect_equal(as_array(torch_tensordot(a, a, dims = list(c(1, 2), c(1, 2)))), 91)
  expect_equal(as_array(torch_bmm(a$unsqueeze(1), b$unsqueeze(1))$squeeze(1)), as_array(a$mm(b)))
  expect_equal(as_array(torch_kron(f64(diag(2)), f64(matrix(1, 1, 2)))),
               rbind(c(1, 1, 0, 0), c(0, 0, 1, 1)))
  expect_equal(as_array(torch_trace(b)), 1 + 5 + 9)
  expect_equal(as_array(torch_diag(f64(c(1, 2)), 1)), rbind(c(0, 1, 0), c(0, 0, 2), c(0, 0, 0)))
  expect_equal(as_array(torch_cdist(f64(rbind(c(0, 0))), f64(rbind(c(3, 4), c(1, 0))))),
               rbind(c(5, 1)))
  far <- torch_cdist(f64(rbind(c(0, 0))), f64(rbind(c(3, 4), c(1, 0))), compute_mode = 1)
  expect_equal(as_array(far), rbind(c(5, 1)))
  expect_equal(as_array(torch_cdist(f64(rbind(c(0, 0))), f64(rbind(c(1, 1))), p = 1)), matrix(2))
  expect_error(torch_einsum("ij,jk->ik", list(a, a)),
               "subscript j has size 2 for operand 1 which does not broadcast with previously seen size 3",
               fixed = TRUE)
})
