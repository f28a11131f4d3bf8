# Operators, R generics and the grad_fn names R code sees (spec sections 2.4 and 4.1).
skip_if_no_python()

grad_fn_name <- function(t) {
  fn <- t$grad_fn
  if (is.null(fn)) NULL else capture.output(print(fn))
}

test_that("grad_fn names follow R torch's overload choice", {
  x <- torch_tensor(c(1, 2), requires_grad = TRUE)
  y <- torch_tensor(c(3, 4), requires_grad = TRUE)
  m <- torch_ones(2, 2, requires_grad = TRUE)
  m2 <- torch_ones(2, 3, requires_grad = TRUE)
  cases <- list(
    list(x + y, "AddBackward0"), list(x$add(y), "AddBackward0"),
    list(x + c(1, 2), "AddBackward0"), list(x + 1, "AddBackward1"),
    list(x$add(1), "AddBackward1"), list(x - y, "SubBackward0"),
    list(1 - x, "SubBackward0"), list(-x, "SubBackward0"), list(x - 1, "SubBackward1"),
    list(x * y, "MulBackward0"), list(2 * x, "MulBackward0"), list(x * 2, "MulBackward1"),
    list(x$mul(2), "MulBackward1"), list(x / y, "DivBackward0"), list(2 / x, "DivBackward0"),
    list(x / 2, "DivBackward1"), list(x %/% 2, "DivBackward3"), list(x^2, "PowBackward0"),
    list(x**2, "PowBackward0"), list(x$pow(2), "PowBackward0"),
    list(x$square(), "PowBackward0"), list(x^y, "PowBackward1"), list(2^x, "PowBackward1"),
    list(x$sum(), "SumBackward0"), list(sum(x), "SumBackward0"),
    list(torch_sum(x), "SumBackward0"), list(m$sum(dim = 1), "SumBackward1"),
    list(x$mean(), "MeanBackward0"), list(mean(x), "MeanBackward0"),
    list(torch_mean(x), "MeanBackward0"), list(m$mean(dim = 1), "MeanBackward1"),
    list(exp(x), "ExpBackward0"), list(x$exp(), "ExpBackward0"),
    list(log(x), "LogBackward0"), list(torch_log(x), "LogBackward0"),
    list(sqrt(x), "SqrtBackward0"), list(abs(x), "AbsBackward0"),
    list(sin(x), "SinBackward0"), list(cos(x), "CosBackward0"),
    list(tanh(x), "TanhBackward0"), list(torch_sigmoid(x), "SigmoidBackward0"),
    list(m$mm(m), "MmBackward0"), list(m %*% m, "MmBackward0"), list(x %*% y, "DotBackward0"),
    list(m$t(), "TBackward0"), list(m$transpose(1, 2), "TransposeBackward0"),
    list(m$permute(c(2, 1)), "PermuteBackward0"), list(x$unsqueeze(1), "UnsqueezeBackward0"),
    list(m$unsqueeze(1)$squeeze(), "SqueezeBackward0"),
    list(m$unsqueeze(1)$squeeze(1), "SqueezeBackward1"),
    list(x$expand_as(m), "ExpandBackward0"), list(m$view(4), "ViewBackward0"),
    list(m$reshape(4), "ViewBackward0"), list(m$flatten(), "ViewBackward0"),
    list(m2$t()$reshape(6), "UnsafeViewBackward0"), list(x$clone(), "CloneBackward0"),
    list(nnf_relu(x), "ReluBackward0"), list(torch_relu(x), "ReluBackward0"),
    list(x$relu(), "ReluBackward0"), list(x$clamp(min = 0), "ClampBackward1"),
    list(torch_where(x > 1, x, y), "WhereBackward0"),
    list(x$masked_fill(x > 1, 0), "MaskedFillBackward0"),
    list(x[1], "SelectBackward0"), list(m[.., 2], "SelectBackward0"),
    list(m[1, 2], "SelectBackward0"), list(m[, 1], "SelectBackward0"),
    list(m[1, ], "SliceBackward0"), list(m[1, , drop = FALSE], "SliceBackward0"),
    list(x[1:2], "SliceBackward0"), list(x[2:N], "SliceBackward0"),
    list(x[c(1, 2)], "IndexBackward0"), list(x[x > 1], "IndexBackward0"),
    list(x$unbind()[[1]], "UnbindBackward0"), list(m$chunk(2)[[1]], "SplitBackward0"),
    list(torch_cat(list(x, y)), "CatBackward0"), list(torch_stack(list(x, y)), "StackBackward0"),
    list(x$max(), "MaxBackward1"), list(m$max(dim = 1)[[1]], "MaxBackward0"),
    list(x$to(dtype = torch_double()), "ToCopyBackward0"), list(x$cumsum(1), "CumsumBackward0"),
    list(x$prod(), "ProdBackward0"), list(x$std(), "StdBackward0"),
    list(x$var(), "VarBackward0"), list(x$norm(), "NormBackward0"),
    list(torch_softmax(x, 1), "SoftmaxBackward0"),
    list(nnf_log_softmax(x, 1), "LogSoftmaxBackward0"),
    list(nnf_linear(m, m, x), "AddmmBackward0"),
    list(nnf_mse_loss(x, y), "MseLossBackward0")
  )
  for (case in cases) {
    expect_identical(grad_fn_name(case[[1]]), case[[2]], label = case[[2]])
  }
  expect_null(grad_fn_name(x > 0))
  expect_null(grad_fn_name(x$eq(y)))
  expect_null(grad_fn_name(x$detach()))
  expect_identical(grad_fn_name(m[, 1]$grad_fn$next_functions[[1]]$next_functions[[1]] -> k),
                   NULL)
  expect_output(print(m[, 1]$grad_fn$next_functions[[1]]), "^SliceBackward0$")
  expect_output(print(m[1, ]$grad_fn$next_functions[[1]]), "^SelectBackward0$")
  expect_output(print(m[1, , drop = FALSE]$grad_fn$next_functions[[1]]),
                "^UnsqueezeBackward0$")
  expect_output(print(m[1, 2]$grad_fn$next_functions[[1]]), "^SelectBackward0$")
  expect_output(print(m2$t()$reshape(6)$grad_fn$next_functions[[1]]), "^CloneBackward0$")
})

test_that("numbers on either side of an operator", {
  s <- torch_tensor(2, requires_grad = TRUE)
  expect_equal((2 * s$sum())$shape, 1L)   # a number on the left is a {1} tensor
  expect_equal((s$sum() * 2)$shape, integer(0))
  expect_equal(as_array(2 - torch_tensor(c(1, 5))), c(1, -3))
  expect_equal(as_array(10 / torch_tensor(c(2, 5))), c(5, 2))
  expect_equal(as_array(torch_tensor(c(5, 7)) %% 3), c(2, 1))
  expect_equal(as_array(torch_tensor(c(-5, 7)) %/% 2), c(-2, 3))
  expect_equal(as_array(2^torch_tensor(c(1, 3))), c(2, 8))
  expect_equal(as_array(torch_tensor(c(1, 2)) + matrix(1, 2, 2)), matrix(c(2, 2, 3, 3), 2))
  expect_equal(as_array(torch_tensor(1:3) * 2L), c(2L, 4L, 6L))
  expect_equal(torch_tensor(1:3)$dtype, (torch_tensor(1:3) * 2L)$dtype)
  expect_equal((torch_tensor(1:3) * 2)$dtype, torch_float32())
  expect_equal(as_array(+torch_tensor(c(1, -1))), c(1, -1))
  expect_equal(as_array(-torch_tensor(c(1, -1))), c(-1, 1))
})

test_that("comparisons and logical operators give bool tensors", {
  x <- torch_tensor(c(1, 2, 3))
  expect_equal(as_array(x > 1), c(FALSE, TRUE, TRUE))
  expect_equal(as_array(x >= 2), c(FALSE, TRUE, TRUE))
  expect_equal(as_array(x < 2), c(TRUE, FALSE, FALSE))
  expect_equal(as_array(x <= 2), c(TRUE, TRUE, FALSE))
  expect_equal(as_array(x == 2), c(FALSE, TRUE, FALSE))
  expect_equal(as_array(x != 2), c(TRUE, FALSE, TRUE))
  expect_equal(as_array(1 < x), c(FALSE, TRUE, TRUE))
  expect_equal(as_array((x > 1) & (x < 3)), c(FALSE, TRUE, FALSE))
  expect_equal(as_array((x < 2) | (x > 2)), c(TRUE, FALSE, TRUE))
  expect_equal(as_array(!(x > 1)), c(TRUE, FALSE, FALSE))
  expect_equal((x > 1)$dtype, torch_bool())
  expect_true((torch_tensor(c(1, 2)) > 0)$all()$item())
  expect_true(x$eq(x)$all()$item())
})

test_that("Math and Summary generics", {
  x <- torch_tensor(c(1, 4, 9))
  expect_equal(as_array(sqrt(x)), c(1, 2, 3))
  expect_equal(as_array(log(x, 3)), log(c(1, 4, 9), 3), tolerance = 1e-6)
  expect_equal(as_array(log2(torch_tensor(c(2, 8)))), c(1, 3))
  expect_equal(as_array(log10(torch_tensor(100))), 2, tolerance = 1e-6)  # NumPy: 1 ulp off
  expect_equal(as_array(exp(torch_tensor(0))), 1)
  expect_equal(as_array(floor(torch_tensor(1.5))), 1)
  expect_equal(as_array(ceiling(torch_tensor(1.5))), 2)
  expect_equal(as_array(round(torch_tensor(1.4))), 1)
  expect_equal(as_array(trunc(torch_tensor(-1.5))), -1)
  expect_equal(as_array(sign(torch_tensor(-3))), -1)
  expect_equal(as_array(abs(torch_tensor(-3))), 3)
  expect_equal(as_array(cumsum(x)), c(1, 5, 14))
  expect_equal(sum(x)$item(), 14)
  expect_equal(prod(x)$item(), 36)
  expect_equal(max(x)$item(), 9)
  expect_equal(min(x)$item(), 1)
  expect_equal(mean(x)$item(), 14 / 3, tolerance = 1e-6)
  expect_true(all(x > 0)$item())
  expect_false(any(x > 10)$item())
  expect_equal(as_array(range(x)), c(1, 9))
  expect_equal(sum(x, x)$item(), 28)   # all elements of both, as base R
  expect_error(gamma(x), "not implemented")
  expect_equal(as_array(t(torch_ones(2, 3))), matrix(1, 3, 2))
  expect_equal(matrix(1:4, 2) %*% matrix(1:4, 2), matrix(c(7, 10, 15, 22), 2))
  expect_equal(as_array(torch_ones(2, 3) %*% torch_ones(3)), c(3, 3))
  expect_equal(as_array(torch_max(torch_tensor(c(1, 5)), torch_tensor(c(3, 2)))), c(3, 5))
  expect_equal(as_array(torch_tensor(c(1, 2))$`repeat`(2)), c(1, 2, 1, 2))
})

test_that("every registered op is reachable as torch_<name> and as a method", {
  expect_true(exists("torch_exp"))
  ops <- rtorchpy:::.OP_METHODS
  expect_true(all(c("sum", "mean", "exp", "add_", "zero_", "unsqueeze", "to") %in% names(ops)))
  x <- torch_tensor(c(1, 2))
  for (name in names(ops)) expect_true(is.function(x[[name]]), label = name)
  expect_equal(as_array(x$add_(1)), c(2, 3))
  expect_equal(as_array(torch_tensor(c(-1, 1))$clamp(min = 0)), c(0, 1))
  expect_equal(as_array(torch_tensor(c(1, 2))$float()), c(1, 2))
  expect_equal(torch_tensor(c(1, 2))$long()$dtype, torch_long())
})

test_that("x$where(condition, other) keeps x where condition holds (method argument order)", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  y <- x$where(x > 1, torch_zeros(3))
  expect_equal(as_array(y), c(0, 2, 3))
  y$sum()$backward()
  expect_equal(as_array(x$grad), c(0, 1, 1))
  expect_equal(as_array(torch_where(x > 1, x, torch_zeros(3))), c(0, 2, 3))
})

test_that("of R's cumulative functions only cumsum() has a tensor method, along dim 1", {
  # as R torch: cumsum.torch_tensor is torch_cumsum(x, dim = 1); it defines no cumprod(),
  # cummax() or cummin() method, and those are errors here rather than wrong answers
  m <- torch_tensor(rbind(c(1, 2), c(3, 4)))
  expect_equal(as_array(cumsum(m)), rbind(c(1, 2), c(4, 6)))
  for (f in list(cumprod, cummax, cummin)) {
    expect_error(f(m), "is not implemented for tensors", class = "not_implemented_error")
  }
})
