# The everyday R torch surface (issue 29): the pipe, unknown methods, older names, in-place forms,
# R values where tensors are expected, grad_outputs' shapes.

test_that("the magrittr pipe is re-exported", {
  skip_if_no_python()
  expect_true("%>%" %in% getNamespaceExports("rtorchpy"))
  x <- torch_tensor(c(1, 4, 9))
  expect_equal(as_array(x %>% torch_sqrt()), c(1, 2, 3))
})

test_that("an unknown x$name is an error naming it and the class", {
  skip_if_no_python()
  x <- torch_ones(2)
  expect_error(x$not_a_method(), "'not_a_method' is not a method or field of class 'torch_tensor'")
  expect_error(x$not_a_field, "not_a_field")
  expect_error(x[["nope"]], "'nope' is not a method or field")
  expect_null(x$names)  # (a field, NULL as in R torch)
  expect_error(x$refine_names(c("a")), "named tensors are not supported")
  expect_error(x$rename(a = "b"), "named tensors are not supported")
})

test_that("the methods R torch programs call exist and compute", {
  skip_if_no_python()
  S <- torch_tensor(matrix(c(4, 1, 1, 3), 2))
  Si <- solve(matrix(c(4, 1, 1, 3), 2))
  expect_equal(as_array(S$inverse()), Si, tolerance = 1e-6)
  expect_equal(as_array(S$pinverse()), Si, tolerance = 1e-5)
  expect_equal(as_array(S$det()), 11, tolerance = 1e-5)
  L <- S$cholesky()
  expect_equal(as_array(L$matmul(L$t())), as_array(S), tolerance = 1e-5)
  b <- torch_tensor(matrix(c(1, 2), 2))
  sol <- b$solve(S)
  expect_equal(as_array(sol[[1]]), Si %*% c(1, 2), tolerance = 1e-5)
  x <- torch_tensor(c(-0.5, 0.25))
  expect_equal(as_array(x$arctanh()), atanh(c(-0.5, 0.25)), tolerance = 1e-6)
  m <- torch_tensor(c(TRUE, FALSE))
  expect_equal(as_array(x$masked_select(m)), -0.5)
  expect_equal(as_array(x$masked_scatter(m, torch_tensor(c(7, 8)))), c(7, 0.25))
  expect_equal(x$view_as(torch_ones(2, 1))$shape, c(2L, 1L))
  # in-place forms return self, changed
  y <- torch_tensor(c(1, 4))
  y$sqrt_()
  expect_equal(as_array(y), c(1, 2))
  y$log_()
  expect_equal(as_array(y), log(c(1, 2)), tolerance = 1e-6)
  y$addcmul_(torch_tensor(c(1, 1)), torch_tensor(c(2, 3)), value = 2)
  expect_equal(as_array(y), log(c(1, 2)) + c(4, 6), tolerance = 1e-6)
  z <- torch_ones(3)
  z$unsqueeze_(1)
  expect_equal(z$shape, c(1L, 3L))
  z$squeeze_(1)
  expect_equal(z$shape, 3L)
  w <- torch_ones(2)
  w$set_data(torch_zeros(3, dtype = torch_float64()))
  expect_equal(w$shape, 3L)
  expect_true(w$dtype == torch_float64())
})

test_that("R torch's older function names", {
  skip_if_no_python()
  x <- torch_tensor(c(1, 2, 3))
  expect_equal(as_array(torch_less_equal(x, 2)), c(TRUE, TRUE, FALSE))
  expect_equal(as_array(torch_greater(x, 2)), c(FALSE, FALSE, TRUE))
  expect_equal(as_array(torch_not_equal(x, 2)), c(TRUE, FALSE, TRUE))
  expect_equal(as_array(torch_greater_equal(x, 2)), c(FALSE, TRUE, TRUE))
  expect_equal(as_array(torch_less(x, 2)), c(TRUE, FALSE, FALSE))
  A <- matrix(c(3, 1, 0, 1, 2, 0.5, 0, 0.5, 1), 3)
  At <- torch_tensor(A, dtype = torch_float64())
  expect_equal(as_array(torch_inverse(At)), solve(A))
  expect_equal(as_array(torch_det(At)), det(A))
  expect_equal(as_array(torch_cholesky(At)), t(chol(A)))
  expect_equal(as_array(torch_cholesky(At, upper = TRUE)), chol(A))
  s <- torch_svd(At)
  expect_equal(as_array(s[[1]] %*% torch_diag(s[[2]]) %*% s[[3]]$t()), A)
  q <- torch_qr(At)
  expect_equal(as_array(q[[1]]$matmul(q[[2]])), A)
  expect_equal(as_array(torch_pinverse(At)), solve(A))
  expect_equal(as_array(torch_slogdet(At)[[2]]), log(det(A)))
  expect_equal(as_array(torch_matrix_power(At, 2)), A %*% A)
  expect_equal(as_array(torch_cholesky_inverse(torch_cholesky(At))), solve(A))
  ts <- torch_triangular_solve(torch_ones(3, 1, dtype = torch_float64()), At$triu())
  expect_equal(as.vector(as_array(ts[[1]])), backsolve(A * upper.tri(A, diag = TRUE), rep(1, 3)))
  qr_raw <- torch_geqrf(At)
  expect_equal(abs(as_array(qr_raw[[1]]$triu())), abs(qr.R(qr(A))))
})

test_that("R numbers, integer vectors and named lists where a tensor is expected", {
  skip_if_no_python()
  x <- torch_tensor(c(1, 2))
  expect_equal(as_array(torch_mul(2, x)), c(2, 4))
  expect_true(torch_mul(2, x)$dtype == torch_float32())
  expect_equal(as_array(torch_add(c(10L, 20L), x)), c(11, 22))
  expect_true(torch_add(1L, torch_tensor(1L))$dtype == torch_int64())
  expect_equal(as_array(torch_logical_and(c(TRUE, FALSE), torch_tensor(TRUE))), c(TRUE, FALSE))
  groups <- tapply(1:6, rep(c("a", "b"), 3), function(v) torch_tensor(as.numeric(v)))
  expect_equal(as_array(torch_stack(groups)), rbind(c(1, 3, 5), c(2, 4, 6)))
  expect_equal(as_array(torch_stack(list(a = torch_ones(2), b = torch_zeros(2)))),
               rbind(c(1, 1), c(0, 0)))
  expect_equal(as_array(torch_cat(list(a = torch_ones(1), b = torch_zeros(1)))), c(1, 0))
})

test_that("grad_outputs of another shape are summed or refused, as libtorch's engine does", {
  skip_if_no_python()
  w <- torch_tensor(c(0.1, 0.2, 0.3), requires_grad = TRUE)
  g <- autograd_grad(torch_exp(w)$mean(), w, torch_ones_like(w))[[1]]
  expect_equal(as_array(g), exp(c(0.1, 0.2, 0.3)), tolerance = 1e-6)
  expect_error(autograd_grad(torch_exp(w) * 2, w, torch_ones(2)),
               "invalid gradient at index 0 - got \\[2\\] but expected shape compatible with \\[3\\]")
  torch_exp(w)$mean()$backward(torch_ones(3))
  expect_equal(as_array(w$grad), exp(c(0.1, 0.2, 0.3)), tolerance = 1e-6)
  w$grad <- NULL
  autograd_backward(list(torch_exp(w)$mean()), list(torch_ones(3)))
  expect_equal(as_array(w$grad), exp(c(0.1, 0.2, 0.3)), tolerance = 1e-6)
  expect_error((w * 2)$backward(torch_ones(4)), "invalid gradient at index 0")
})

test_that("R torch's CPU allocator calls are accepted", {
  skip_if_no_python()
  expect_null(cpu_cache_flush())
  expect_null(set_cpu_allocator_config(cache_enabled = FALSE))
  expect_error(set_cpu_allocator_config(threshold_call_gc = -1), "threshold_call_gc")
})

test_that("no object leaks per call of the new forms", {
  skip_if_no_python()
  live <- function() unlist(rtorchpy:::.bridge_counts())[1:2]
  S <- torch_tensor(matrix(c(4, 1, 1, 3), 2))
  run <- function() for (i in 1:300) {
    a <- torch_mul(2, S)$inverse()
    b <- S$clone()
    b$log_()
    b$unsqueeze_(1)
    d <- torch_stack(list(p = S, q = S))
    e <- tryCatch(S$no_such_method, error = function(e) NULL)
  }
  run()
  gc()
  before <- live()
  run()
  gc()
  expect_true(all(live() - before < 50))
})

test_that("model$parameters lists the children's parameters before the module's own", {
  skip_if_no_python()
  Inner <- nn_module(initialize = function() {
    self$lin <- nn_linear(2, 1)
    self$scale <- nn_parameter(torch_ones(1))
  })
  Outer <- nn_module(initialize = function() {
    self$own <- nn_parameter(torch_zeros(3))
    self$inner <- Inner()
    self$head <- nn_linear(1, 1, bias = FALSE)
  })
  m <- Outer()
  expect_equal(names(m$parameters),
               c("inner.lin.weight", "inner.lin.bias", "inner.scale", "head.weight", "own"))
  expect_equal(m$parameters[[5]]$shape, 3L)
  expect_equal(names(m$named_parameters()), names(m$parameters))
  expect_equal(names(m$named_parameters(recursive = FALSE)), "own")
})

test_that("optim_rprop and optim_asgd train as PyTorch's Rprop and ASGD", {
  skip_if_no_python()
  A <- matrix(c(1.76, 0.40, 0.98, 2.24, 1.87, -0.98, 0.95, -0.15, -0.10, 0.41), 5)
  y <- c(0.14, 1.45, 0.76, 0.12, 0.44)
  fit <- function(make) {
    w <- torch_zeros(2, dtype = torch_float64(), requires_grad = TRUE)
    opt <- make(list(w))
    for (i in 1:150) {
      opt$zero_grad()
      loss <- ((torch_tensor(A, dtype = torch_float64())$matmul(w) - torch_tensor(y))^2)$sum()
      loss$backward()
      opt$step()
    }
    as_array(w)
  }
  ls_fit <- qr.solve(A, y)
  expect_equal(fit(function(p) optim_rprop(p, lr = 0.05)), ls_fit, tolerance = 1e-2)
  expect_equal(fit(function(p) optim_asgd(p, lr = 0.02, t0 = 5)), ls_fit, tolerance = 5e-2)
  o <- optim_rprop(list(torch_ones(2, requires_grad = TRUE)), etas = c(0.4, 1.3))
  expect_equal(unlist(o$param_groups[[1]]$etas), c(0.4, 1.3))
  expect_error(optim_rprop(list(torch_ones(2, requires_grad = TRUE)), etas = c(2, 0.5)),
               "Invalid eta values")
})

test_that("R torch's methods and exports: what we lack is what the docs' page lists", {
  skip_if_no_python()
  read_names <- function(file) {
    x <- readLines(test_path("fixtures", file))
    x[nzchar(x) & !startsWith(x, "#")]
  }
  x <- torch_ones(2)
  methods <- read_names("r-torch-tensor-methods.txt")
  # ($imag exists for complex tensors only, as in R torch)
  probe <- function(n) if (n == "imag") torch_fft_fft(x) else x
  resolves <- vapply(methods, function(n) !inherits(try(probe(n)[[n]], silent = TRUE),
                                                    "try-error"), NA)
  lacking_methods <- methods[!resolves]
  # an unknown method is an error naming it and the class
  for (n in head(lacking_methods, 20)) {
    expect_error(x[[n]], sprintf("'%s' is not a method or field of class 'torch_tensor'", n),
                 fixed = TRUE)
  }
  lacking_exports <- setdiff(read_names("r-torch-exports.txt"), getNamespaceExports("rtorchpy"))
  for (n in c("inverse", "det", "solve", "set_data", "unsqueeze_", "masked_select", "log_")) {
    expect_true(n %in% methods[resolves], info = n)
  }
  expect_false(any(c("%>%", "torch_inverse", "optim_rprop", "cpu_cache_flush") %in%
                     lacking_exports))
  # the page (generated by scripts/not_yet_available.py from the sources) agrees with the
  # installed package; only in the source tree
  page <- file.path(test_path(), "..", "..", "..", "docs", "not-yet-available.md")
  skip_if_not(file.exists(page), "the docs are not next to the package")
  lines <- readLines(page)
  section <- function(from, to) {
    i <- which(lines == from)
    j <- if (is.null(to)) length(lines) else which(lines == to) - 1L
    text <- paste(lines[i:j], collapse = " ")
    gsub("`", "", regmatches(text, gregexpr("`[^` ]+`", text))[[1]])
  }
  listed_methods <- section("## Tensor methods", "## Refused on purpose")
  refused <- c("align_as", "align_to", "refine_names", "rename", "rename_")
  expect_setequal(setdiff(lacking_methods, refused), listed_methods)
  listed_exports <- setdiff(section("## Functions", "## Tensor methods"),
                            c("r-shim/tests/testthat/fixtures/"))
  expect_setequal(lacking_exports, listed_exports)
})

test_that("behaviours from R torch's tensor, nn and optim tests", {
  skip_if_no_python()
  # expand(size, implicit): a trailing TRUE is `implicit`, not a size
  expect_equal(torch_tensor(1)$expand(c(2, 2, 3), TRUE)$size(), c(2L, 2L, 3L))
  expect_equal(torch_tensor(1)$expand(c(2, 3), FALSE)$shape, c(2L, 3L))
  # x[TRUE] on a one-element tensor is that element; matrix indexing as R's arrays
  expect_equal(as_array(torch_tensor(1)[TRUE]), 1)
  m <- matrix(1:12, 3)
  idx <- cbind(c(1, 3, 2), c(4, 1, 2))
  expect_equal(as_array(torch_tensor(m)[idx]), m[idx])
  expect_error(torch_tensor(m)[cbind(1, 5)], "whole numbers from 1")
  # stride() gives doubles, as R torch's
  expect_identical(torch_randn(10, 10)$stride(), c(10, 1))
  expect_identical(torch_randn(10, 10)$stride(1), 10)
  # clone() and detach() keep extra classes
  p <- nn_parameter(torch_ones(2))
  expect_true(inherits(p$clone(), "nn_parameter"))
  expect_true(inherits(p$detach(), "nn_parameter"))
  x <- structure(torch_ones(2), class = c("my_tensor", class(torch_ones(2))))
  expect_equal(class(x$clone())[1], "my_tensor")
  # module$to(dtype) converts the gradients too; state_dict() keeps requires_grad
  l <- nn_linear(2, 1)
  l(torch_ones(1, 2))$sum()$backward()
  l$to(dtype = torch_float64())
  expect_true(l$weight$grad$dtype == torch_float64())
  expect_equal(as_array(l$weight$grad), matrix(c(1, 1), 1))
  expect_true(l$state_dict()$weight$requires_grad)
  # torch_save: names given twice, vectors (optimizer hyper-parameters)
  f <- tempfile()
  torch_save(list(a = torch_ones(1), a = torch_zeros(1), v = c(1, 2)), f)
  back <- torch_load(f)
  expect_equal(names(back), c("a", "a", "v"))
  expect_equal(back$v, c(1, 2))
  w <- torch_ones(2, requires_grad = TRUE)
  o <- optim_adam(list(w), betas = c(0.8, 0.99))
  (w * 2)$sum()$backward()
  o$step()
  torch_save(o$state_dict(), f)
  expect_equal(torch_load(f)$param_groups[[1]]$betas, c(0.8, 0.99))
  # other = in x$to(), x$min(), torch_max()
  y <- torch_tensor(c(1, 5))
  expect_true(y$to(other = torch_ones(1, dtype = torch_int64()))$dtype == torch_int64())
  expect_equal(as_array(y$min(other = torch_tensor(c(3, 3)))), c(1, 3))
  expect_equal(as_array(torch_max(y, other = torch_tensor(c(3, 3)))), c(3, 5))
  expect_equal(as_array(torch_tensor(1:10)$min(other = 9L))[10], 9)
  # verbose = in the schedulers
  opt <- optim_sgd(list(torch_ones(1, requires_grad = TRUE)), lr = 0.1)
  expect_no_error(lr_one_cycle(opt, max_lr = 1, total_steps = 10, verbose = FALSE))
  s <- lr_reduce_on_plateau(opt, patience = 0, verbose = TRUE)
  s$step(1)
  expect_message(s$step(2), "reducing learning rate of group 1")
  # torch_norm(dtype =), torch_normal(std =) alone, memory_format = / generator = accepted
  expect_true(torch_norm(y, dtype = torch_float64())$dtype == torch_float64())
  expect_equal(torch_normal(std = 2, size = 3)$shape, 3L)
  expect_equal(as_array(y$clone(memory_format = torch_contiguous_format())), c(1, 5))
  expect_equal(torch_randn(2, generator = torch_generator())$shape, 2L)
  # NULL == dtype is an error
  expect_error(NULL == torch_float32(), "NULL")
  expect_error(torch_float32() == NULL, "NULL")
  # nnf_binary_cross_entropy pairs [32, 1] with [32] as libtorch's kernel does
  torch_manual_seed(1)
  p1 <- torch_sigmoid(torch_randn(32, 1))
  tg <- (torch_randn(32) > 0)$to(dtype = torch_float32())
  expect_equal(as_array(nnf_binary_cross_entropy(p1, tg)),
               as_array(nnf_binary_cross_entropy(p1, tg$view(c(32, 1)))))
  expect_error(nnf_binary_cross_entropy(p1, torch_ones(31)))
})

test_that("scatter, index_add/fill/copy and other composites, with R's 1-based dims and indices", {
  skip_if_no_python()
  index <- torch_tensor(matrix(c(1, 2), ncol = 1), dtype = torch_long())
  z <- torch_zeros(3, 5)
  expected <- matrix(0, 3, 5)
  expected[1:2, 1] <- 1
  expect_equal(as_array(z$scatter(1, index, 1)), expected)
  z$scatter_(1, index, 1)
  expect_equal(as_array(z), expected)
  x <- torch_ones(3, 2, requires_grad = TRUE)
  y <- x$index_add(1, torch_tensor(c(1L, 3L)), torch_ones(2, 2) * 5)
  expect_equal(as_array(y), rbind(c(6, 6), c(1, 1), c(6, 6)))
  y$sum()$backward()
  expect_equal(as_array(x$grad), matrix(1, 3, 2))
  expect_equal(as_array(torch_ones(2, 3)$index_fill(2, torch_tensor(2L), 0)),
               rbind(c(1, 0, 1), c(1, 0, 1)))
  expect_equal(as_array(torch_zeros(3, 1)$index_copy(1, torch_tensor(c(3L, 1L)),
                                                     torch_tensor(matrix(c(7, 8), 2)))),
               matrix(c(8, 0, 7), 3))
  expect_equal(as_array(torch_take(torch_tensor(rbind(c(1, 2), c(3, 4))), torch_tensor(c(4L, 1L)))),
               c(4, 1))
  expect_equal(as_array(torch_frac(torch_tensor(c(1.5, -2.25)))), c(0.5, -0.25))
  expect_equal(as_array(torch_lerp(torch_tensor(1), torch_tensor(3), 0.5)), 2)
  expect_equal(as_array(torch_nansum(torch_tensor(c(1, NaN, 2)))), 3)
  expect_true(torch_ones(2)$is_signed())
  expect_true(torch_ones(2)$is_same_size(torch_zeros(2)))
})
