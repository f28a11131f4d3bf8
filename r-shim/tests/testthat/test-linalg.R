# linalg_*: R torch's names, 1-based dims, named result lists where R torch names them, and
# libtorch's gradients (values as PyTorch 2.13 / libtorch give them).
skip_if_no_python()

a_mat <- function() {
  torch_tensor(rbind(c(4, 1, 0), c(1, 3, 1), c(0, 1, 2)), dtype = torch_float64())
}

test_that("determinants, inverses and solves, with their gradients", {
  a <- a_mat()
  expect_equal(as_array(linalg_det(a)), det(as_array(a)))
  expect_equal(as_array(linalg_inv(a)), solve(as_array(a)))
  b <- torch_tensor(c(1, 2, 3), dtype = torch_float64())
  expect_equal(as_array(linalg_solve(a, b)), solve(as_array(a), c(1, 2, 3)))
  sl <- linalg_slogdet(a)
  expect_equal(as_array(sl[[1]]), 1)
  expect_equal(as_array(sl[[2]]), log(det(as_array(a))))
  x <- a_mat()$requires_grad_(TRUE)
  d <- linalg_det(x)
  expect_output(print(d$grad_fn), "LinalgDetBackward0")
  d$backward()
  expect_equal(as_array(x$grad), det(as_array(a)) * t(solve(as_array(a))))
  x <- a_mat()$requires_grad_(TRUE)
  linalg_solve(x, b)$sum()$backward()
  expect_output(print(linalg_solve(x, b)$grad_fn), "LinalgSolveExBackward0")
  expect_equal(dim(as_array(x$grad)), c(3, 3))
  expect_equal(as_array(torch_logdet(a)), log(det(as_array(a))))
  expect_equal(as_array(a$logdet()), log(det(as_array(a))))
})

test_that("R torch's named lists: inv_ex, cholesky_ex, lstsq", {
  a <- a_mat()
  r <- linalg_inv_ex(a)
  expect_named(r, c("inverse", "info"))
  expect_equal(as_array(r$info), 0L)
  ch <- linalg_cholesky_ex(a)
  expect_named(ch, c("L", "info"))
  expect_equal(as_array(ch$L), t(chol(as_array(a))))
  ls <- linalg_lstsq(a, torch_ones(3, 1, dtype = torch_float64()))
  expect_named(ls, c("solution", "residuals", "rank", "singular_values"))
  expect_equal(as_array(ls$solution), solve(as_array(a), matrix(1, 3, 1)))
  expect_equal(as_array(ls$rank), 3L)
  # unnamed where R torch's are
  expect_null(names(linalg_qr(a)))
  expect_length(linalg_svd(a), 3)
})

test_that("dims are 1-based: vector_norm, matrix_norm, norm, tensorinv, tensorsolve", {
  x <- torch_tensor(array(1:24, c(2, 3, 4)), dtype = torch_float64())
  xr <- array(1:24, c(2, 3, 4))
  expect_equal(as_array(linalg_vector_norm(x, dim = 1)), sqrt(apply(xr^2, c(2, 3), sum)))
  expect_equal(as_array(linalg_vector_norm(x, ord = Inf, dim = c(1, 3))), apply(xr, 2, max))
  expect_equal(as_array(linalg_norm(x, dim = 2, keepdim = TRUE))[, 1, ],
               sqrt(apply(xr^2, c(1, 3), sum)))
  m <- matrix(c(1, -2, 3, 4, -5, 6), 2)
  mt <- torch_tensor(m, dtype = torch_float64())
  expect_equal(as_array(linalg_matrix_norm(mt, ord = 1)), max(colSums(abs(m))))
  expect_equal(as_array(linalg_matrix_norm(mt, ord = Inf)), max(rowSums(abs(m))))
  expect_equal(as_array(linalg_matrix_norm(mt, ord = "nuc")), sum(svd(m)$d))
  expect_equal(as_array(linalg_matrix_norm(x, dim = c(1, 3))),
               apply(xr, 2, function(s) sqrt(sum(s^2))))
  e <- torch_eye(6, dtype = torch_float64())$reshape(c(2, 3, 6))
  expect_equal(linalg_tensorinv(e$reshape(c(6, 2, 3)), ind = 2)$shape, c(2, 3, 6))
  a4 <- torch_eye(6, dtype = torch_float64())$reshape(c(2, 3, 3, 2))
  b <- torch_ones(3, 2, dtype = torch_float64())
  expect_equal(linalg_tensorsolve(a4, b, dims = c(1, 2))$shape, c(2, 3))  # dims 1, 2 moved last
  expect_error(linalg_vector_norm(x, dim = 0), "Indexing starts at 1")
})

test_that("decompositions: Cholesky, QR, eigh, SVD", {
  a <- a_mat()
  expect_equal(as_array(linalg_cholesky(a)), t(chol(as_array(a))))
  qr <- linalg_qr(a)
  expect_equal(as_array(torch_mm(qr[[1]], qr[[2]])), as_array(a))
  e <- linalg_eigh(a)
  expect_equal(as_array(e[[1]]), rev(eigen(as_array(a))$values))
  expect_equal(as_array(linalg_eigvalsh(a)), rev(eigen(as_array(a))$values))
  expect_equal(as_array(linalg_svdvals(a)), svd(as_array(a))$d)
  x <- a_mat()$requires_grad_(TRUE)
  linalg_svdvals(x)$sum()$backward()
  s <- svd(as_array(a))
  expect_equal(as_array(x$grad), s$u %*% t(s$v))
  expect_error(linalg_eig(a), "no complex results")
})

test_that("matrix_power, multi_dot, pinv, cond and matrix_rank", {
  a <- a_mat()
  ar <- as_array(a)
  expect_equal(as_array(linalg_matrix_power(a, 3)), ar %*% ar %*% ar)
  expect_equal(as_array(linalg_matrix_power(a, -1)), solve(ar))
  expect_equal(as_array(linalg_multi_dot(list(a, a, a))), ar %*% ar %*% ar)
  expect_equal(as_array(linalg_pinv(a)), solve(ar))
  expect_equal(as_array(linalg_cond(a)), kappa(ar, exact = TRUE))
  expect_equal(as_array(linalg_matrix_rank(torch_ones(3, 3))), 1L)
})

test_that("second order through linalg_inv (create_graph)", {
  x <- torch_tensor(matrix(c(2, 1, 1, 3), 2), dtype = torch_float64(), requires_grad = TRUE)
  g <- autograd_grad(linalg_inv(x)$sum(), list(x), create_graph = TRUE)[[1]]
  h <- autograd_grad(g$sum(), list(x))[[1]]
  xi <- solve(matrix(c(2, 1, 1, 3), 2))
  one <- matrix(1, 2, 2)
  # d/dX sum(-X^-T 1 X^-T) = X^-T (1 X^-T 1^T... ): check against a finite difference
  f <- function(m) sum(-t(solve(m)) %*% one %*% t(solve(m)))
  num <- matrix(0, 2, 2)
  for (i in 1:4) {
    e <- matrix(0, 2, 2)
    e[i] <- 1e-6
    num[i] <- (f(matrix(c(2, 1, 1, 3), 2) + e) - f(matrix(c(2, 1, 1, 3), 2) - e)) / 2e-6
  }
  expect_equal(as_array(h), num, tolerance = 1e-6)
  expect_equal(as_array(g), -t(xi) %*% one %*% t(xi))
})

test_that("libtorch's errors", {
  expect_error(linalg_inv(torch_tensor(matrix(c(1, 2, 2, 4), 2))),
               "The diagonal element 2 is zero")
  expect_error(linalg_det(torch_ones(3, 2)), "A must be batches of square matrices")
  expect_error(linalg_cholesky(torch_tensor(matrix(c(1, 2, 2, 1), 2))),
               "not positive-definite")
})
