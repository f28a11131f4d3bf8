# autograd_vmap from R: its errors speak of the 1-based in_dims/out_dims the user wrote, and
# chunk_size is validated.
skip_if_no_python()

f64 <- function(x) torch_tensor(x, dtype = torch_float64())
X <- f64(matrix(1:6, 2, 3))

test_that("vmap's errors show R's 1-based in_dims and out_dims", {
  expect_error(autograd_vmap(function(a) a, in_dims = 3)(X),
               "in_dims = 3)(<inputs>): Got in_dim = 3 for some input", fixed = TRUE,
               class = "value_error")
  expect_error(autograd_vmap(function(a) a, in_dims = 3)(X),
               "1 <= in_dim <= 2 or -2 <= in_dim <= -1", fixed = TRUE)
  expect_error(autograd_vmap(function(a, b) a + b, in_dims = list(1, NULL, 2))(X, X),
               "in_dims = list(1, NULL, 2))(<inputs>): in_dims is not compatible", fixed = TRUE)
  expect_error(autograd_vmap(function(a, b) a + b, in_dims = list(1, 2))(X, 3),
               "Got in_dim = 2 for an input but the input is of type double", fixed = TRUE)
  expect_error(autograd_vmap(function(a, b) a + b, in_dims = list(1, 2))(X, 3),
               "please use NULL", fixed = TRUE)
  expect_error(autograd_vmap(function(a) a$sum(), out_dims = 3)(X), "out_dim = 3 is out of range",
               fixed = TRUE)
  expect_error(autograd_vmap(function(a) list(a, a), out_dims = list(1, 2, 3))(X),
               "out_dims = list(1, 2, 3))(<inputs>): out_dims is not compatible", fixed = TRUE)
  # a nested vmap's message is converted once
  expect_error(autograd_vmap(autograd_vmap(function(a) a$sum(), in_dims = 5))(X),
               "Got in_dim = 5 for some input", fixed = TRUE)
  # an R error inside the mapped function is left as it is
  expect_error(autograd_vmap(function(a) stop("in_dim=0 is mine"))(X), "in_dim=0 is mine",
               fixed = TRUE)
})

test_that("chunk_size: NULL or a positive whole number", {
  expect_equal(as_array(autograd_vmap(function(a) a$sum(), chunk_size = 1)(X)), c(9, 12))
  expect_equal(as_array(autograd_vmap(function(a) a$sum(), chunk_size = NULL)(X)), c(9, 12))
  expect_error(autograd_vmap(function(a) a, chunk_size = 0),
               "chunk_size should be NULL or greater than 0. (got 0)", fixed = TRUE,
               class = "value_error")
  expect_error(autograd_vmap(function(a) a, chunk_size = 1.5), "chunk_size must be NULL or a whole")
  expect_error(autograd_vmap(function(a) a, chunk_size = "2"), "chunk_size must be NULL or a whole")
})

test_that("vmap's R error path does not leak", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  run <- function(n) for (i in seq_len(n)) {
    try(autograd_vmap(function(a) a, in_dims = 3)(X), silent = TRUE)
    autograd_vmap(function(a) a$sum(), chunk_size = 2)(X)
  }
  run(10)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 50), info = paste(grown, collapse = ", "))
})
