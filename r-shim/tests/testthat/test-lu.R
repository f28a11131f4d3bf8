# R torch's older LU and Householder functions (torch_lu, torch_lu_unpack, torch_lu_solve,
# torch_orgqr, torch_ormqr, torch_chain_matmul) and the deprecated linalg arguments.
skip_if_no_python()

f64 <- function(x) torch_tensor(x, dtype = torch_float64())
A <- rbind(c(1, 2, 3), c(4, 5, 6), c(7, 8, 10))

test_that("torch_lu packs the factors and keeps LAPACK's 1-based pivots", {
  r <- suppressWarnings(torch_lu(f64(A)))
  expect_length(r, 2)
  expect_equal(as_array(r[[2]]), c(3L, 3L, 3L))
  expect_true(r[[2]]$dtype == torch_int32())
  expect_equal(as_array(r[[1]])[1, ], c(7, 8, 10))
  r3 <- suppressWarnings(torch_lu(f64(matrix(0, 2, 2)), get_infos = TRUE))
  expect_length(r3, 3)
  expect_equal(as_array(r3[[3]]), 1L)
  expect_error(suppressWarnings(torch_lu(f64(A), pivot = FALSE)),
               "LU without pivoting is not implemented")
})

test_that("torch_lu_unpack and torch_lu_solve undo the factorization", {
  r <- suppressWarnings(torch_lu(f64(A)))
  pl <- torch_lu_unpack(r[[1]], r[[2]])
  expect_equal(as_array(pl[[1]]) %*% as_array(pl[[2]]) %*% as_array(pl[[3]]), A)
  b <- f64(matrix(c(1, 2, 3, 4, 5, 6), 3))
  x <- suppressWarnings(torch_lu_solve(b, r[[1]], r[[2]]))
  expect_equal(as_array(x), solve(A, as_array(b)))
  expect_equal(as_array(suppressWarnings(b$lu_solve(r[[1]], r[[2]]))), solve(A, as_array(b)))
})

test_that("gradients flow through torch_lu and torch_lu_solve", {
  a <- f64(A)$requires_grad_(TRUE)
  b <- f64(matrix(1, 3, 1))
  r <- suppressWarnings(torch_lu(a))
  suppressWarnings(torch_lu_solve(b, r[[1]], r[[2]]))$sum()$backward()
  ai <- solve(A)
  gb <- t(ai) %*% matrix(1, 3, 1)
  expect_equal(as_array(a$grad), -gb %*% t(ai %*% matrix(1, 3, 1)))
})

test_that("orgqr and ormqr apply geqrf's reflectors", {
  h <- torch_geqrf(f64(A))
  q <- torch_orgqr(h[[1]], h[[2]])
  expect_equal(as_array(q) %*% t(as_array(q)), diag(3))
  expect_equal(as_array(h[[1]]$orgqr(h[[2]])), as_array(q))
  c <- f64(matrix(1:6, 3))
  expect_equal(as_array(torch_ormqr(h[[1]], h[[2]], c)), as_array(q) %*% as_array(c))
  expect_equal(as_array(h[[1]]$ormqr(h[[2]], c, transpose = TRUE)),
               t(as_array(q)) %*% as_array(c))
  ct <- f64(matrix(1:6, 2))
  expect_equal(as_array(torch_ormqr(h[[1]], h[[2]], ct, left = FALSE)),
               as_array(ct) %*% as_array(q))
})

test_that("torch_chain_matmul multiplies a list, with PyTorch's deprecation warning", {
  m <- f64(A)
  # (PyTorch warns once per session: an earlier test file may have had it already)
  msgs <- character(0)
  r <- withCallingHandlers(torch_chain_matmul(list(m, m, m)), warning = function(w) {
    msgs <<- c(msgs, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_true(all(grepl("chain_matmul is deprecated", msgs)))
  expect_equal(as_array(r), A %*% A %*% A)
  expect_error(torch_chain_matmul(list(f64(c(1, 2)))), "Tensor dimension is 1, expected 2")
})

test_that("linalg_pinv(rcond =) and linalg_matrix_rank(tol =) warn as R torch does", {
  a <- torch_eye(4)
  expect_warning(linalg_pinv(a, rcond = 1e-15), "`rcond` is deprecated in favor of `rtol`")
  expect_warning(linalg_pinv(a, rtol = 0, atol = 1e-7), NA)
  expect_warning(r <- linalg_matrix_rank(a, tol = 0.001),
                 "`tol` argument is deprecated in favor of `atol` and `rtol`")
  expect_equal(as_array(r), 4L)
  expect_warning(linalg_matrix_rank(a, atol = 0.1), NA)
})

test_that("the LU functions do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  a <- f64(A)
  b <- f64(matrix(1, 3, 1))
  run <- function(n) for (i in seq_len(n)) suppressWarnings({
    r <- torch_lu(a)
    torch_lu_unpack(r[[1]], r[[2]])
    torch_lu_solve(b, r[[1]], r[[2]])
    h <- torch_geqrf(a)
    torch_ormqr(h[[1]], h[[2]], b)
    linalg_pinv(a, rcond = 1e-10)
  })
  run(10)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
