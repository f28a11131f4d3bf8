# Creation, conversion to R, attributes and R conventions (spec sections 2 and 4).
skip_if_no_python()

test_that("torch_tensor follows R torch's dtype rules and keeps R's coordinates", {
  expect_identical(capture.output(torch_tensor(c(1, 2))$dtype), "torch_Float")
  expect_identical(capture.output(torch_tensor(1:2)$dtype), "torch_Long")
  expect_identical(capture.output(torch_tensor(c(TRUE, FALSE))$dtype), "torch_Bool")
  expect_identical(capture.output(torch_tensor(as.raw(1:2))$dtype), "torch_Byte")
  expect_equal(torch_tensor(1)$shape, 1L)
  expect_equal(torch_tensor(numeric(0))$shape, 0L)
  expect_equal(torch_tensor(1, dtype = torch_float64())$dtype, torch_float64())
  expect_true(torch_tensor(1, dtype = torch_long())$dtype == torch_int64())

  m <- matrix(c(1.5, 2, 3, 4, 5, 6), nrow = 2)
  t <- torch_tensor(m)
  expect_equal(t$shape, c(2L, 3L))
  for (i in 1:2) for (j in 1:3) expect_equal(t[i, j]$item(), m[i, j])
  expect_identical(as_array(t), m)

  a <- array(1:24, dim = c(2, 3, 4))
  ta <- torch_tensor(a)
  expect_equal(ta[2, 3, 4]$item(), a[2, 3, 4])
  expect_equal(ta[1, 2, 3]$item(), a[1, 2, 3])
  expect_identical(as_array(ta), a)
  expect_identical(as_array(torch_tensor(matrix(1:10, ncol = 5, byrow = TRUE)))[2, ],
                   6:10)

  x <- torch_tensor(c(1, 2), requires_grad = TRUE)
  copy <- torch_tensor(x)
  expect_false(copy$requires_grad)
  expect_null(copy$grad_fn)
})

test_that("sizes as R vectors or as several numbers", {
  expect_equal(torch_ones(c(2, 3))$shape, c(2L, 3L))
  expect_equal(torch_ones(2, 3)$shape, c(2L, 3L))
  expect_equal(torch_ones(size = c(2, 3))$shape, c(2L, 3L))
  expect_equal(torch_zeros(1, 4, requires_grad = TRUE)$requires_grad, TRUE)
  expect_equal(torch_randn(4, 3, 5, 5)$shape, c(4L, 3L, 5L, 5L))
  expect_equal(torch_rand(3)$shape, 3L)
  expect_equal(torch_empty(2, 2)$shape, c(2L, 2L))
  expect_equal(torch_full(c(2, 2), 7)$sum()$item(), 28)
  expect_equal(as_array(torch_eye(2)), diag(2))
  expect_equal(torch_ones_like(torch_ones(2, 3))$shape, c(2L, 3L))
  expect_equal(torch_zeros_like(torch_ones(2, 3, dtype = torch_float64()))$dtype,
               torch_float64())
  expect_equal(torch_randn_like(torch_ones(3))$shape, 3L)
  expect_equal(torch_ones(2, dtype = torch_float64())$dtype, torch_float64())
  expect_equal(torch_scalar_tensor(2.5)$shape, integer(0))
  expect_equal(torch_randint(0, 10, c(3, 3))$shape, c(3L, 3L))
  expect_equal(sort(as_array(torch_randperm(5))), 0:4)
})

test_that("torch_arange includes its end (R torch)", {
  expect_equal(length(torch_arange(0, 2, 0.5)), 5L)
  expect_equal(length(torch_arange(0, 2.5, 0.51)), 5L)
  expect_equal(length(torch_arange(2.5, 1, -0.5)), 4L)
  x <- torch_arange(0, 99)
  expect_equal(length(x), 100L)
  expect_equal(x$dtype, torch_float32())
  expect_equal(as_array(torch_arange(10)), as.numeric(1:10))
  expect_equal(as_array(torch_arange(0L, 5L)), 0:5)
  expect_equal(torch_arange(0L, 5L)$dtype, torch_long())
  expect_equal(as_array(torch_arange(1, 3, dtype = torch_long())), 1:3)
  expect_equal(as_array(torch_linspace(0, 1, 5)), c(0, 0.25, 0.5, 0.75, 1))
  expect_equal(length(torch_linspace(-4, 4, 100)), 100L)
  expect_equal(as_array(torch_logspace(0, 2, 3)), c(1, 10, 100))
})

test_that("as_array and friends", {
  expect_identical(as_array(torch_tensor(1)$sum()), 1)          # 0-d: a length-1 vector
  expect_null(dim(as_array(torch_tensor(c(1, 2)))))             # 1-d: no dim
  expect_true(is.matrix(as_array(torch_ones(2, 3))))
  expect_identical(as_array(torch_tensor(1:3)), 1:3)            # long: integer
  expect_identical(as_array(torch_tensor(c(TRUE, NA, FALSE))), c(TRUE, TRUE, FALSE))
  expect_identical(as_array(torch_tensor(3e9, dtype = torch_long())), 3e9)
  x <- torch_tensor(c(1, 2), requires_grad = TRUE)
  y <- x * 2
  expect_equal(as_array(y), c(2, 4))                            # no detach needed
  expect_equal(as.numeric(y), c(2, 4))
  expect_equal(as.integer(torch_tensor(c(1.7, 2))), c(1L, 2L))
  expect_equal(as.logical(torch_tensor(c(0, 1))), c(FALSE, TRUE))
  expect_equal(as.matrix(torch_ones(2, 2)), matrix(1, 2, 2))
  expect_equal(dim(as.array(torch_tensor(c(1, 2)))), 2L)
  expect_equal(as.vector(torch_ones(2, 2)), c(1, 1, 1, 1))
})

test_that("$item(), dim(), length(), $shape, $size(), $numel()", {
  expect_identical(torch_tensor(2.5)$item(), 2.5)
  expect_identical(torch_tensor(0.1)$item(), 0.10000000149011612)
  expect_identical(torch_tensor(5L)$item(), 5L)
  expect_identical(torch_tensor(TRUE)$item(), TRUE)
  expect_error(torch_ones(2, 2)$item(), "a Tensor with 4 elements cannot be converted to Scalar")
  x <- torch_ones(2, 3, requires_grad = TRUE)
  expect_identical(x$sum()$item(), 6)
  expect_identical(dim(x), c(2L, 3L))
  expect_identical(length(x), 6L)
  expect_identical(x$shape, c(2L, 3L))
  expect_identical(x$sum()$shape, integer(0))
  expect_identical(x$size(), c(2L, 3L))
  expect_identical(x$size(1), 2L)
  expect_identical(x$size(-1), 3L)
  expect_error(x$size(0), "Indexing starts at 1 and got a 0.", fixed = TRUE)
  expect_identical(x$numel(), 6L)
  expect_identical(x$dim(), 2L)
  expect_identical(x$ndim, 2L)
})

test_that("dims are 1-based; 0 is an error; out of range is reported 1-based", {
  x <- torch_tensor(matrix(1:6, nrow = 2) * 1)
  expect_equal(as_array(x$sum(dim = 1)), c(3, 7, 11))
  expect_equal(as_array(x$sum(dim = 2)), c(9, 12))
  expect_equal(as_array(x$sum(dim = -1)), c(9, 12))
  expect_equal(as_array(x$sum(dim = c(1, 2))), 21)
  expect_equal(x$mean(dim = 1, keepdim = TRUE)$shape, c(1L, 3L))
  expect_error(x$sum(dim = 0), "Indexing starts at 1 but found a 0.", fixed = TRUE)
  expect_error(
    x$sum(dim = 3),
    "Dimension out of range (expected to be in range of [-2, 2], but got 3)", fixed = TRUE)
  v <- torch_tensor(c(1, 2, 3))
  expect_equal(v$unsqueeze(1)$shape, c(1L, 3L))
  expect_equal(v$unsqueeze(2)$shape, c(3L, 1L))
  expect_equal(v$unsqueeze(-1)$shape, c(3L, 1L))
  expect_error(v$unsqueeze(0), "Indexing starts at 1 but found a 0.", fixed = TRUE)
  expect_equal(torch_unsqueeze(v, 1)$shape, c(1L, 3L))
  expect_equal(x$transpose(1, 2)$shape, c(3L, 2L))
  expect_equal(x$permute(c(2, 1))$shape, c(3L, 2L))
  expect_equal(torch_ones(2, 3, 4)$flatten(start_dim = 2)$shape, c(2L, 12L))
  expect_equal(torch_ones(1, 3)$squeeze(1)$shape, 3L)
  expect_equal(torch_cat(list(x, x), dim = 2)$shape, c(2L, 6L))
  expect_equal(torch_cat(list(x, x))$shape, c(4L, 3L))
  expect_equal(torch_stack(list(v, v), dim = 2)$shape, c(3L, 2L))
  expect_equal(as_array(v$cumsum(1)), c(1, 3, 6))
  expect_equal(as_array(torch_softmax(torch_zeros(2, 2), 2)), matrix(0.5, 2, 2))
  expect_error(torch_cat(list(torch_ones(2, 3), torch_ones(2, 4))),
               "Sizes of tensors must match except in dimension 1", fixed = TRUE)
  expect_error(torch_cat(list(torch_ones(2, 3), torch_ones(2, 4))),
               "for tensor number 2 in the list", fixed = TRUE)
})

test_that("index-valued results are 1-based", {
  m <- torch_tensor(matrix(c(1, 5, 3, 2), 2))
  mx <- m$max(dim = 1)
  expect_type(mx, "list")
  expect_equal(as_array(mx[[1]]), c(5, 3))
  expect_equal(as_array(mx[[2]]), c(2L, 1L))
  expect_equal(as_array(m$min(dim = 2)[[2]]), c(1L, 2L))
  expect_equal(torch_tensor(c(3, 9, 1))$argmax()$item(), 2L)
  expect_equal(as_array(m$argmax(dim = 1)), c(2L, 1L))
  w <- torch_where(m > 2)
  expect_length(w, 2)
  expect_equal(as_array(w[[1]]), c(1L, 2L))
  expect_equal(as_array(w[[2]]), c(2L, 1L))
  expect_equal(as_array(torch_gather(m, 1, torch_tensor(matrix(c(2L, 1L), 1)))),
               matrix(c(5, 3), 1))
  expect_equal(as_array(torch_index_select(m, 2, torch_tensor(2L))), matrix(c(3, 2), 2))
  expect_error(torch_index_select(m, 2, torch_tensor(0L)), "1-based")
})

test_that("requires_grad, grad, detach, retain_grad, is_leaf", {
  x <- torch_ones(2, requires_grad = TRUE)
  expect_true(x$is_leaf)
  y <- x * 2
  expect_false(y$is_leaf)
  expect_error(y$requires_grad_(FALSE), "you can only change requires_grad flags of leaf")
  expect_error(torch_tensor(1:3, requires_grad = TRUE),
               "Only Tensors of floating point and complex dtype can require gradients")
  r0 <- torch_randn(2)
  expect_identical(r0$requires_grad_(), r0)
  r <- torch_randn(4, 3)$requires_grad_()
  expect_true(r$requires_grad)
  d <- y$detach()
  expect_false(d$requires_grad)
  expect_null(d$grad_fn)
  expect_true(d$is_leaf)
  with_no_grad(w <- x * 2)
  expect_true(w$is_leaf)
  expect_undefined_tensor(y$grad)
  y$retain_grad()
  expect_true(y$retains_grad())
  y$sum()$backward()
  expect_equal_to_r(y$grad, c(1, 1))
  expect_equal_to_r(x$grad, c(2, 2))
  x$grad <- NULL
  expect_undefined_tensor(x$grad)
  x$grad <- torch_tensor(c(5, 5))
  expect_equal_to_r(x$grad, c(5, 5))
  x$grad$zero_()
  expect_equal_to_r(x$grad, c(0, 0))
  x$detach_()
  expect_false(x$requires_grad)
  expect_error(x$foo <- 1, "locked")
  expect_error(x$no_such_method, "'no_such_method' is not a method or field")
})

test_that("$backward(): accumulation, gradient argument, errors, invisibility", {
  x <- torch_tensor(c(1), requires_grad = TRUE)
  (x * 3)$backward()
  (x * 3)$backward()
  expect_equal_to_r(x$grad, 6)
  z <- torch_ones(2, 2, requires_grad = TRUE) * 2
  expect_error(z$backward(), "grad can be implicitly created only for scalar outputs")
  expect_error(z$backward(torch_ones(3)), "got [3] but expected shape compatible with [2, 2]",
               fixed = TRUE)
  expect_invisible(z$backward(torch_ones(2, 2)))
  expect_error(torch_ones(2)$sum()$backward(),
               "element 0 of tensors does not require grad and does not have a grad_fn")
  a <- torch_ones(2, requires_grad = TRUE)
  b <- torch_ones(2, requires_grad = TRUE)
  (a * b)$sum()$backward(inputs = list(a))
  expect_equal_to_r(a$grad, c(1, 1))
  expect_undefined_tensor(b$grad)
  s <- torch_tensor(2, requires_grad = TRUE)
  y <- s^2
  y$backward(retain_graph = TRUE)
  y$backward()
  expect_equal_to_r(s$grad, 8)
  expect_error(y$backward(), "Trying to backward through the graph a second time")
  expect_warning(((s * 2)$backward(keep_graph = TRUE)), "keep_graph")
})

test_that("grad mode helpers evaluate in the caller, return values and restore on error", {
  x <- torch_tensor(1, requires_grad = TRUE)
  out <- with_no_grad({
    y <- x * 2
    "value"
  })
  expect_equal(out, "value")
  expect_false(y$requires_grad)
  expect_error(with_no_grad(stop("boom")), "boom")
  expect_true((x * 2)$requires_grad)
  autograd_set_grad_mode(FALSE)
  expect_false((x * 2)$requires_grad)
  autograd_set_grad_mode(TRUE)
  expect_true((x * 2)$requires_grad)
  expect_invisible(autograd_set_grad_mode(TRUE))
  expect_equal(with_enable_grad(3), 3)
  # the value keeps its visibility: an assignment inside does not print at top level
  expect_invisible(with_no_grad({ y <- x * 2 }))
  expect_visible(with_no_grad(x * 2))
  expect_invisible(with_enable_grad(z <- 1))
  f <- function() {
    local_no_grad()
    (x * 2)$requires_grad
  }
  expect_false(f())
  expect_true((x * 2)$requires_grad)
})

test_that("in-place ops, versions and the SGD idiom", {
  w <- torch_ones(2, requires_grad = TRUE)
  expect_error(w$sub_(1), "a leaf Variable that requires grad is being used in an in-place operation.")
  loss <- (w * 3)$sum()
  loss$backward()
  with_no_grad({
    w$sub_(w$grad * 0.1)
    w$grad$zero_()
  })
  expect_equal_to_r(w, c(0.7, 0.7), tolerance = 1e-6)
  expect_equal_to_r(w$grad, c(0, 0))
  a <- torch_ones(2, requires_grad = TRUE)
  b <- a * 1
  b$add_(1)
  expect_grad_fn(b, "AddBackward1")
  b$mul_(2)
  expect_grad_fn(b, "MulBackward1")
})

test_that("dtypes and devices", {
  expect_true(torch_float32() == torch_float())
  expect_false(torch_float32() == torch_float64())
  expect_true(torch_tensor(1:2)$to(dtype = torch_float64())$dtype == torch_double())
  x <- torch_tensor(1, requires_grad = TRUE)
  expect_grad_fn(x$to(dtype = torch_double()), "ToCopyBackward0")
  expect_equal(x$to(device = "cpu")$dtype, torch_float32())
  expect_identical(x$cpu(), x)
  expect_error(x$cuda(), "CUDA")
  expect_error(torch_ones(2, device = "cuda"), "CPU")
  expect_equal(torch_ones(2, device = "cpu")$shape, 2L)
  old <- torch_get_default_dtype()
  torch_set_default_dtype(torch_float64())
  expect_equal(torch_tensor(1)$dtype, torch_float64())
  torch_set_default_dtype(old)
  expect_equal(torch_tensor(1)$dtype, torch_float32())
})

test_that("nnf functions with R conventions", {
  x <- torch_tensor(c(-1, 2), requires_grad = TRUE)
  expect_grad_fn(nnf_relu(x), "ReluBackward0")
  expect_equal(as_array(nnf_softmax(torch_zeros(2, 4), dim = 2)), matrix(0.25, 2, 4))
  logits <- torch_tensor(rbind(c(1, 2, 3), c(1, 2, 3)))
  expect_equal(nnf_cross_entropy(logits, torch_tensor(c(3L, 3L)))$item(),
               -log(exp(3) / sum(exp(1:3))), tolerance = 1e-6)
  expect_error(nnf_cross_entropy(logits, torch_tensor(c(1L, 4L))), "Target 4 is out of bounds")
  expect_grad_fn(nnf_mse_loss(x, torch_zeros(2)), "MseLossBackward0")
  expect_equal(nnf_linear(torch_ones(2, 3), torch_ones(4, 3), torch_zeros(4))$shape,
               c(2L, 4L))
})

test_that("is_contiguous() and stride() describe the memory layout (1-based dims)", {
  x <- torch_tensor(matrix(1:6, 2, byrow = TRUE))
  expect_true(x$is_contiguous())
  expect_false(x$t()$is_contiguous())
  expect_false(x$permute(c(2, 1))$is_contiguous())
  expect_false(x[, 2:3]$is_contiguous())
  expect_true(x$t()$contiguous()$is_contiguous())
  expect_identical(x$stride(), c(3, 1))  # doubles, as R torch's
  expect_identical(x$t()$stride(), c(1, 3))
  expect_identical(x$stride(1), 3)
  expect_identical(x$stride(-1), 1)
  expect_identical(torch_ones(3)$unsqueeze(2)$expand(c(3, 4))$stride(), c(1, 0))
  expect_error(x$stride(0), "Indexing starts at 1")
  expect_error(x$stride(3), "Dimension out of range")
})

test_that("int64 values beyond R's integer range come back exactly, as doubles", {
  x <- torch_tensor(c(3e9, -3e9, 5, 2147483647, -2147483647), dtype = torch_long())
  expect_no_warning(v <- as_array(x))
  expect_identical(v, c(3e9, -3e9, 5, 2147483647, -2147483647))
  expect_identical(as_array(x[3:5]), c(5L, .Machine$integer.max, -.Machine$integer.max))
  big <- torch_tensor(2^33, dtype = torch_long())
  expect_identical(big$item(), 2^33)
  expect_identical(torch_tensor(3e9, dtype = torch_long())$sum()$item(), 3e9)
  expect_identical((big * 2L)$item(), 2^34)
  expect_identical(torch_tensor(-2^52, dtype = torch_long())$item(), -2^52)
  expect_identical(torch_tensor(5L)$item(), 5L)
  # beyond 2^53 a double can't hold every int64: said, not silent
  huge <- torch_tensor(2^53, dtype = torch_long()) + 1L
  expect_warning(v <- huge$item(), "beyond 2\\^53")
  expect_equal(v, 2^53)
  expect_warning(as_array(huge), "beyond 2\\^53")
})

test_that("int64 beyond 32 bits crosses torch_save()/torch_load() exactly", {
  path <- withr::local_tempfile(fileext = ".pt")
  torch_save(list(a = torch_tensor(c(2^33, -2^40), dtype = torch_long()), n = 2^33), path)
  back <- torch_load(path)
  expect_identical(as_array(back$a), c(2^33, -2^40))
  expect_equal(back$a$dtype, torch_long())
  expect_identical(back$n, 2^33)
})

test_that("torch_round() takes decimals", {
  x <- torch_tensor(c(2.567, -1.25, 1234.5))
  expect_equal(as_array(torch_round(x, decimals = 1)), c(2.6, -1.2, 1234.5), tolerance = 1e-6)
  expect_equal(as_array(x$round(decimals = -2)), c(0, 0, 1200))
  expect_equal(as_array(torch_round(x)), c(3, -1, 1234))
})

test_that("torch_roll() and torch_movedim() take 1-based dims; gradients flow", {
  x <- torch_tensor(matrix(c(1, 2, 3, 4, 5, 6), 2, byrow = TRUE), requires_grad = TRUE)
  expect_equal(as_array(torch_roll(x, 1, 2)), matrix(c(3, 1, 2, 6, 4, 5), 2, byrow = TRUE))
  expect_equal(as_array(x$roll(c(1, 1), c(1, 2))), matrix(c(6, 4, 5, 3, 1, 2), 2, byrow = TRUE))
  expect_equal(as_array(torch_roll(x, 1)), matrix(c(6, 1, 2, 3, 4, 5), 2, byrow = TRUE))
  w <- torch_tensor(matrix(1:6, 2, byrow = TRUE) * 1)
  (torch_roll(x, 1, 2) * w)$sum()$backward()
  expect_equal(as_array(x$grad), matrix(c(2, 3, 1, 5, 6, 4), 2, byrow = TRUE))
  expect_error(torch_roll(x, 1, 0), "Indexing starts at 1")
  y <- torch_randn(2, 3, 4)
  expect_equal(torch_movedim(y, 1, 3)$shape, c(3L, 4L, 2L))
  expect_equal(y$movedim(c(1, 2), c(3, 1))$shape, c(3L, 4L, 2L))
  expect_equal(as_array(torch_movedim(y, 1, 3)[, , 2]), as_array(y[2, , ]))
})

test_that("an int64 number saved from Python loads in R exactly", {
  torch_ones(1)
  path <- gsub("\\\\", "/", withr::local_tempfile(fileext = ".pt"))
  reticulate::py_run_string(paste0(
    "import rtorchpy as _rt\n",
    "_rt.torch_save({'n': 2**33, 't': _rt.torch_tensor([2**33, -5])}, '", path, "')\n"))
  back <- torch_load(path)
  expect_identical(back$n, 2^33)
  expect_identical(as_array(back$t), c(2^33, -5))
})

test_that("bit64's integer64 makes an int64 tensor with its exact values", {
  # (an integer64 is a double vector holding each int64's 8 bytes; made here without bit64)
  words <- c(0L, 2L, 5L, 0L)  # (low and high 32 bits of 2^33, then of 5)
  i64 <- structure(readBin(writeBin(words, raw(), endian = "little"), "double", n = 2L,
                           endian = "little"), class = "integer64")
  x <- torch_tensor(i64)
  expect_equal(x$dtype, torch_long())
  expect_identical(as_array(x), c(2^33, 5))
})
