# The blocks of R torch's tests/testthat/test-autograd.R (spec section 6.1), in our own words.
skip_if_no_python()

test_that("1 can autograd", {
  x <- torch_tensor(c(1), requires_grad = TRUE)
  y <- 2 * x
  expect_invisible(y$backward())
  expect_equal_to_r(x$grad, 2)
})

test_that("2 can autograd with contexts", {
  x <- torch_tensor(c(1), requires_grad = TRUE)
  with_no_grad({
    with_enable_grad({
      y <- 2 * x
    })
  })
  y$backward()
  expect_equal_to_r(x$grad, 2)
})

test_that("3 requires_grad works", {
  x <- torch_tensor(c(1), requires_grad = TRUE)
  expect_true(x$requires_grad)
  x <- torch_tensor(c(1), requires_grad = FALSE)
  expect_false(x$requires_grad)
  x$requires_grad_(TRUE)
  expect_true(x$requires_grad)
  x$requires_grad_(FALSE)
  expect_false(x$requires_grad)
})

test_that("4 register_hook", {
  x <- torch_tensor(c(2), requires_grad = TRUE)
  x$register_hook(function(grad) {
    print("hello")
  })
  y <- 2 * x
  expect_output(y$backward(), "hello")
  expect_equal_to_r(x$grad, 2)

  x <- torch_tensor(c(2), requires_grad = TRUE)
  x$register_hook(function(grad) {
    print(grad)
  })
  y <- 2 * x
  expect_output(y$backward(), "torch_tensor")

  x <- torch_tensor(c(2), requires_grad = TRUE)
  x$register_hook(function(grad) print("ABABA"))
  y <- 2 * x
  y$register_hook(function(grad) print("EBEBE"))
  expect_output(y$backward(), "EBEBE.*ABABA")
})

test_that("5 register hook: a tensor returned replaces the gradient; the graph is freed", {
  x <- torch_tensor(c(2), requires_grad = TRUE)
  x$register_hook(function(grad) {
    2 * grad
  })
  y <- 2 * x
  y$backward()
  expect_equal_to_r(x$grad, 4)
  expect_error(y$backward(), "graph a second time")
})

test_that("6 register hook: an error in the hook is an error of backward", {
  x <- torch_tensor(c(2), requires_grad = TRUE)
  x$register_hook(function(grad) {
    stop("error in the hook")
  })
  y <- 2 * x
  expect_error(y$backward(), "error in the hook")
})

test_that("7 register_hook: grad non leaf", {
  x <- torch_tensor(c(1, 2, 3, 4, 5), requires_grad = TRUE)
  y <- x$unbind()[[1]]
  captured <- NULL
  y$register_hook(function(grad) {
    captured <<- grad
    NULL
  })
  y$backward()
  expect_equal_to_r(captured, 1)
  expect_equal_to_r(x$grad, c(1, 0, 0, 0, 0))
})

test_that("8 register_hook: a hook can call backward (nested)", {
  calls <- character()
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- 2 * x
  a <- torch_tensor(1, requires_grad = TRUE)
  b <- 2 * a
  a$register_hook(function(grad) {
    calls <<- c(calls, "a")
    y$backward()
  })
  x$register_hook(function(grad) {
    calls <<- c(calls, "x")
  })
  b$backward()
  expect_equal(calls, c("a", "x"))

  calls <- character()
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- 2 * x
  a <- torch_tensor(1, requires_grad = TRUE)
  b <- 2 * a
  k <- torch_tensor(1, requires_grad = TRUE)
  l <- 2 * k
  k$register_hook(function(grad) {
    calls <<- c(calls, "k")
    b$backward()
  })
  a$register_hook(function(grad) {
    calls <<- c(calls, "a")
    y$backward()
  })
  x$register_hook(function(grad) {
    calls <<- c(calls, "x")
  })
  l$backward()
  expect_equal(calls, c("k", "a", "x"))
})

test_that("9 register_hook: 2 hooks that call backward on different graphs", {
  calls <- character()
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- 2 * x
  a <- torch_tensor(1, requires_grad = TRUE)
  b <- 2 * a
  k <- torch_tensor(1, requires_grad = TRUE)
  l <- 2 * k
  x$register_hook(function(grad) calls <<- c(calls, "x"))
  a$register_hook(function(grad) calls <<- c(calls, "a"))
  l$register_hook(function(grad) {
    calls <<- c(calls, "l")
    y$backward()
  })
  k$register_hook(function(grad) {
    calls <<- c(calls, "k")
    b$backward()
  })
  l$backward()
  expect_equal(calls, c("l", "x", "k", "a"))
})

test_that("10 remove_hook", {
  x <- torch_tensor(c(2), requires_grad = TRUE)
  hook <- x$register_hook(function(grad) print("hello"))
  expect_s3_class(hook, "torch_hook")
  expect_output(print(hook), "<torch_hook>")
  y <- 2 * x
  expect_output(y$backward(), "hello")
  hook$remove()
  y <- 2 * x
  expect_silent(y$backward())
  expect_equal_to_r(x$grad, 4)
})

test_that("11 Simple autograd extension", {
  custom_pow <- autograd_function(
    forward = function(ctx, var1) {
      ctx$save_for_backward(var1)
      var1^2
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables[[1]]
      expect_tensor(v)
      list(var1 = 2 * v)
    }
  )
  x <- torch_tensor(c(3), requires_grad = TRUE)
  out <- custom_pow(x)
  out$backward()
  expect_equal_to_r(out, 9)
  expect_equal_to_r(x$grad, 6)
  expect_grad_fn(out, "torch::autograd::LanternNode")

  x <- torch_tensor(c(3), requires_grad = TRUE)
  out <- custom_pow(x) * custom_pow(x)
  out$backward()
  expect_equal_to_r(out, 81)
  expect_equal_to_r(x$grad, 12)  # backward ignores grad_output, as in R torch
})

test_that("12 Autograd extension involving 2 variables", {
  custom_mul <- autograd_function(
    forward = function(ctx, a, b) {
      ctx$save_for_backward(a, b)
      a * b
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables
      list(b = v[[1]] * grad_output, a = v[[2]] * grad_output)
    }
  )
  x <- torch_tensor(2, requires_grad = TRUE)
  y <- torch_tensor(3, requires_grad = TRUE)
  out <- custom_mul(x, y)
  out$backward()
  expect_equal_to_r(out, 6)
  expect_equal_to_r(x$grad, 3)
  expect_equal_to_r(y$grad, 2)

  x <- torch_tensor(2, requires_grad = TRUE)
  y <- torch_tensor(3, requires_grad = TRUE)
  out <- custom_mul(b = y, a = x)
  out$backward()
  expect_equal_to_r(x$grad, 3)
  expect_equal_to_r(y$grad, 2)
})

test_that("13 Named values in saved variables", {
  custom_mul <- autograd_function(
    forward = function(ctx, var1, var2) {
      ctx$save_for_backward(var1 = var1, var2 = var2)
      var1 * var2
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables
      list(var1 = grad_output * v$var2, var2 = grad_output * v$var1)
    }
  )
  x <- torch_tensor(2, requires_grad = TRUE)
  y <- torch_tensor(5, requires_grad = TRUE)
  custom_mul(x, y)$backward()
  expect_equal_to_r(x$grad, 5)
  expect_equal_to_r(y$grad, 2)
})

test_that("14 Can have optional arguments in forward", {
  linear <- autograd_function(
    forward = function(ctx, input, weight, bias = NULL) {
      ctx$save_for_backward(input = input, weight = weight, bias = bias)
      output <- input$mm(weight$t())
      if (!is.null(bias)) {
        output <- output + bias$unsqueeze(1)$expand_as(output)
      }
      output
    },
    backward = function(ctx, grad_output) {
      s <- ctx$saved_variables
      grads <- list(input = NULL, weight = NULL, bias = NULL)
      if (ctx$needs_input_grad$input) grads$input <- grad_output$mm(s$weight)
      if (ctx$needs_input_grad$weight) grads$weight <- grad_output$t()$mm(s$input)
      if (!is.null(s$bias) && ctx$needs_input_grad$bias) {
        grads$bias <- grad_output$sum(dim = 1)
      }
      grads
    }
  )
  expect_equal(names(formals(linear)), c("input", "weight", "bias"))
  expect_null(formals(linear)$bias)

  x <- torch_ones(6, 2)
  w <- torch_randn(1, 2, requires_grad = TRUE)
  out <- linear(x, w)
  out$sum()$backward()
  expect_equal_to_r(w$grad, matrix(c(6, 6), ncol = 2))

  w <- torch_randn(1, 2, requires_grad = TRUE)
  b <- torch_tensor(0, requires_grad = TRUE)
  out <- linear(x, w, b)
  out$sum()$backward()
  expect_equal_to_r(w$grad, matrix(c(6, 6), ncol = 2))
  expect_equal_to_r(b$grad, 6)
})

test_that("15 Catch errors in forward and backward R functions", {
  custom_pow <- autograd_function(
    forward = function(ctx, var1) {
      stop("stop forward")
    },
    backward = function(ctx, grad_output) {
      list(var1 = 2 * grad_output)
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  expect_error(custom_pow(x), "stop forward")

  custom_pow <- autograd_function(
    forward = function(ctx, var1) {
      var1^2
    },
    backward = function(ctx, grad_output) {
      stop("stop backward")
    }
  )
  r <- custom_pow(x)
  expect_error(r$backward(), "stop backward")
})

test_that("16 Can pass constants to save_for_backward", {
  custom_pow <- autograd_function(
    forward = function(ctx, var1, i) {
      ctx$save_for_backward(var1 = var1, i = i)
      var1^i
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables
      expect_named(v, c("var1", "i"))
      expect_type(v$i, "double")
      list(var1 = v$i * (v$var1^(v$i - 1)))
    }
  )
  x <- torch_tensor(2, requires_grad = TRUE)
  r <- custom_pow(x, 2)
  r$backward()
  expect_equal_to_r(r, 4)
  expect_equal_to_r(x$grad, 4)

  x <- torch_tensor(2, requires_grad = TRUE)
  r <- custom_pow(x, 3)
  r$backward()
  expect_equal_to_r(r, 8)
  expect_equal_to_r(x$grad, 12)
})

test_that("17 Forward can return a list", {
  custom_pow <- autograd_function(
    forward = function(ctx, var1, i) {
      ctx$save_for_backward(var1 = var1, i = i)
      list(var1^i, var1^(i + 1))
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables
      expect_tensor(grad_output[[1]])
      expect_tensor(grad_output[[2]])
      expect_equal_to_r(grad_output[[2]], 0)  # the unused output's gradient: zeros
      list(var1 = v$i * (v$var1^(v$i - 1)))
    }
  )
  x <- torch_tensor(2, requires_grad = TRUE)
  r <- custom_pow(x, 2)
  expect_type(r, "list")
  expect_length(r, 2)
  r[[1]]$backward()
  expect_equal_to_r(x$grad, 4)

  custom_pow <- autograd_function(
    forward = function(ctx, var1, i) {
      ctx$save_for_backward(var1 = var1, i = i)
      list(var1^i, var1^(i + 1))
    },
    backward = function(ctx, grad1, grad2) {
      v <- ctx$saved_variables
      expect_tensor(grad1)
      expect_tensor(grad2)
      list(var1 = v$i * (v$var1^(v$i - 1)))
    }
  )
  x <- torch_tensor(2, requires_grad = TRUE)
  r <- custom_pow(x, 2)
  r[[1]]$backward()
  expect_equal_to_r(x$grad, 4)
})

test_that("18 can use mark_dirty", {
  inplace_add <- autograd_function(
    forward = function(ctx, a, b) {
      ctx$mark_dirty(a)
      a$add_(b)
    },
    backward = function(ctx, grad) {
      list(a = grad, b = grad)
    }
  )
  x <- torch_tensor(1)
  y <- torch_tensor(2, requires_grad = TRUE)
  r <- inplace_add(x, y)
  expect_equal_to_tensor(r, x)
  expect_equal_to_r(x, 3)
  expect_true(r$requires_grad)
  expect_true(x$requires_grad)
  r$backward()
  expect_equal_to_r(y$grad, 1)

  x <- torch_tensor(1, requires_grad = TRUE)
  y <- torch_tensor(2, requires_grad = TRUE)
  expect_error(inplace_add(x, y), "leaf Variable that requires grad")
})

test_that("19 mark_non_differentiable", {
  to_mask <- autograd_function(
    forward = function(ctx, input) {
      output <- input > 0
      ctx$mark_non_differentiable(output)
      output
    },
    backward = function(ctx, g) {
      list(input = torch_zeros_like(g))
    }
  )
  x <- torch_tensor(c(-1, 2), requires_grad = TRUE)
  mask <- to_mask(x)
  expect_false(mask$requires_grad)
  y <- x$masked_fill(mask, 0)
  expect_no_error(y$sum()$backward())
  expect_equal_to_r(x$grad, c(1, 0))

  two <- autograd_function(
    forward = function(ctx, input) {
      a <- input + 1
      b <- input + 2
      ctx$mark_non_differentiable(a)
      list(a, b)
    },
    backward = function(ctx, ga, gb) {
      expect_equal_to_r(ga, 0)
      expect_equal_to_r(gb, 1)
      list(input = gb)
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  r <- two(x)
  expect_false(r[[1]]$requires_grad)
  expect_true(r[[2]]$requires_grad)
  r[[2]]$backward()
  expect_equal_to_r(x$grad, 1)
})

test_that("20 retain_grad is invisible", {
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- 2 * x
  expect_invisible(y$retain_grad())
  y$backward()
  expect_equal_to_r(y$grad, 1)
})

test_that("21 grad_fn works", {
  x <- torch_ones(c(2, 2), requires_grad = TRUE)
  y <- x$mean()
  expect_output(print(y$grad_fn), "MeanBackward0")
  k <- y$grad_fn$next_functions
  expect_length(k, 1)
  expect_length(k$next_functions, 0)
  expect_null(torch_tensor(1)$grad_fn)
})

test_that("22 autograd_backward", {
  a <- torch_tensor(1, requires_grad = TRUE)
  b <- torch_tensor(1, requires_grad = TRUE)
  on <- torch_ones(1)
  autograd_backward(list(2 * a, 3 * b), list(on, on))
  expect_equal_to_r(a$grad, 2)
  expect_equal_to_r(b$grad, 3)

  a <- torch_tensor(1, requires_grad = TRUE)
  b <- torch_tensor(1, requires_grad = TRUE)
  autograd_backward(list(2 * a, 3 * b))
  expect_equal_to_r(a$grad, 2)
  expect_equal_to_r(b$grad, 3)

  a <- torch_tensor(1, requires_grad = TRUE)
  b <- torch_tensor(1, requires_grad = TRUE)
  expect_invisible(autograd_backward(list(2 * a, 3 * b), list(NULL, on)))
  expect_equal_to_r(a$grad, 2)
  expect_equal_to_r(b$grad, 3)
})

test_that("23 autograd_backward works for single tensors", {
  a <- torch_tensor(1, requires_grad = TRUE)
  autograd_backward(2 * a)
  expect_equal_to_r(a$grad, 2)

  a <- torch_tensor(1, requires_grad = TRUE)
  autograd_backward(2 * a, torch_ones(1))
  expect_equal_to_r(a$grad, 2)
})

test_that("24 autograd_grad works", {
  x <- torch_randn(2, 2, requires_grad = TRUE)
  y <- torch_randn(2, 2, requires_grad = TRUE)
  z <- x^2 + y * x + y^2
  z$backward(torch_ones(2, 2), create_graph = TRUE)
  x_grad <- 2 * x + y
  y_grad <- x + 2 * y
  expect_equal_to_tensor(x$grad, x_grad, tolerance = 1e-6)
  expect_equal_to_tensor(y$grad, y_grad, tolerance = 1e-6)
  expect_output(print(x$grad$grad_fn), "torch::autograd::CopyBackwards")

  grad_sum <- 2 * x$grad + y$grad
  x_hv <- autograd_grad(outputs = grad_sum, grad_outputs = torch_ones(2, 2), inputs = x,
                        create_graph = TRUE)
  expect_type(x_hv, "list")
  expect_equal_to_tensor(x_hv[[1]], torch_ones(2, 2) * 5)
  y_hv <- autograd_grad(outputs = grad_sum, grad_outputs = torch_ones(2, 2), inputs = y,
                        create_graph = TRUE)
  expect_equal_to_tensor(y_hv[[1]], torch_ones(2, 2) * 4)
  expect_equal_to_tensor(x$grad, x_grad, tolerance = 1e-6)
  expect_equal_to_tensor(y$grad, y_grad, tolerance = 1e-6)
})

test_that("25 autograd_grad with non-leafs", {
  x_init <- torch_randn(2, 2, requires_grad = TRUE)
  x <- x_init
  y <- torch_randn(2, 2, requires_grad = TRUE)
  grad_output <- torch_ones(2, 2)
  fn <- function(x) x^2 + y * x + y^2
  for (i in 1:5) {
    res <- autograd_grad(fn(x), x, grad_outputs = grad_output, create_graph = TRUE)
    expect_undefined_tensor(y$grad)
    expect_undefined_tensor(x_init$grad)
    expect_equal_to_tensor(res[[1]], 2 * x + y, tolerance = 1e-6)
    x <- x + 0.05 * res[[1]]
  }
  expect_true(as_array(fn(x)$sum() > fn(x_init)$sum()))

  # one step, then backward through it: d x1 / d y = 0.05, d x1 / d x_init = 1.1
  x_init <- torch_randn(2, 2, requires_grad = TRUE)
  y <- torch_randn(2, 2, requires_grad = TRUE)
  res <- autograd_grad(fn(x_init), x_init, grad_outputs = grad_output, create_graph = TRUE)
  x <- x_init + 0.05 * res[[1]]
  x$backward(grad_output)
  expect_equal_to_r(y$grad, matrix(0.05, 2, 2), tolerance = 1e-6)
  expect_equal_to_r(x_init$grad, matrix(1.1, 2, 2), tolerance = 1e-6)
})

test_that("26 autograd_grad non leaf many outputs", {
  x <- torch_randn(4, 2, requires_grad = TRUE)
  ab <- x$chunk(2)
  a <- ab[[1]]
  b <- ab[[2]]
  hook_called <- FALSE
  x$register_hook(function(grad) hook_called <<- TRUE)
  go <- torch_randn(2, 2)
  grads <- autograd_grad(a + 2 * b, list(a, b), grad_outputs = go, create_graph = TRUE)
  expect_equal_to_tensor(grads[[1]], go)
  expect_equal_to_tensor(grads[[2]], go * 2)
  expect_false(hook_called)
  expect_undefined_tensor(x$grad)
})

test_that("27 autograd_grad retain grad", {
  x <- torch_randn(2, 2, requires_grad = TRUE)
  y <- torch_randn(2, 2, requires_grad = TRUE)
  out <- x * y
  autograd_grad(out, list(x, y), torch_ones(2, 2))
  expect_error(autograd_grad(out, list(x, y), torch_ones(2, 2)), "graph a second time")

  out <- x * y
  autograd_grad(out, list(x, y), torch_ones(2, 2), retain_graph = TRUE)
  g <- autograd_grad(out, list(x, y), torch_ones(2, 2))
  expect_equal_to_tensor(g[[1]], y)
})

test_that("28 autograd_grad allow unused", {
  x <- torch_randn(2, 2, requires_grad = TRUE)
  y <- torch_randn(2, 2, requires_grad = TRUE)
  out <- x * 2
  expect_error(autograd_grad(out, list(x, y), torch_ones(2, 2)),
               "not have been used in the graph")
  out <- x * 2
  g <- autograd_grad(out, list(x, y), torch_ones(2, 2), allow_unused = TRUE)
  expect_length(g, 2)
  expect_tensor(g[[1]])
  expect_true(is_undefined_tensor(g[[2]]))
})

test_that("29 can set requires_grad", {
  x <- torch_tensor(1, requires_grad = TRUE)
  x$requires_grad <- FALSE
  expect_false(x$requires_grad)
  x <- torch_tensor(1, requires_grad = TRUE)
  x[["requires_grad"]] <- FALSE
  expect_false(x$requires_grad)
  x$requires_grad_(TRUE)
  expect_true(x$requires_grad)
})

test_that("30 with detect anomaly", {
  x <- torch_randn(2, requires_grad = TRUE)
  y <- torch_randn(1)
  b <- x^y
  y$add_(1)
  expect_error(b$backward(torch_ones(2)), "detect_anomaly")

  expect_warning(regexp = "should be enabled only for debugging", {
    expect_error(
      with_detect_anomaly({
        x <- torch_randn(2, requires_grad = TRUE)
        y <- torch_randn(1)
        b <- x^y
        y$add_(1)
        b$backward(torch_ones(2))
      }),
      "one of the variables needed"
    )
  })
})

test_that("31 try and with_detect_anomaly", {
  x <- torch_randn(2, requires_grad = TRUE)
  y <- torch_randn(1)
  b <- x^y
  y$add_(1)
  res <- suppressWarnings(with_detect_anomaly({
    try(b$backward(torch_ones(2)), silent = TRUE)
  }))
  expect_s3_class(res, "try-error")
})

test_that("32 autograd_grad works with custom autograd functions", {
  torch_manual_seed(1)
  w1 <- torch_randn(4, 3, 5, 5)$requires_grad_()
  m1 <- exp(w1)$mean()
  grad1 <- autograd_grad(m1, w1, torch_ones_like(w1))

  exp2 <- autograd_function(
    forward = function(ctx, i) {
      result <- i$exp()
      ctx$save_for_backward(result = result)
      result
    },
    backward = function(ctx, grad_output) {
      list(i = grad_output * ctx$saved_variables$result)
    }
  )
  torch_manual_seed(1)
  w2 <- torch_randn(4, 3, 5, 5)$requires_grad_()
  m2 <- exp2(w2)$mean()
  grad2 <- autograd_grad(m2, w2, torch_ones_like(w2))
  expect_equal_to_tensor(grad1[[1]], grad2[[1]])
})

test_that("33 autograd_grad doesn't crash when a custom backward fails", {
  fails <- autograd_function(
    forward = function(ctx, i) {
      i * 2
    },
    backward = function(ctx, grad_output) {
      stop("GRADFOO")
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  expect_error(autograd_grad(fails(x), x), "GRADFOO")
})

test_that("34 can modify the gradient of a tensor", {
  x <- torch_tensor(2, requires_grad = TRUE)
  y <- x^3
  y$backward()
  expect_equal_to_r(x$grad, 12)
  x$grad <- x$grad / 2
  expect_equal_to_r(x$grad, 6)
})

test_that("35 local grad functions", {
  f <- function() {
    x <- torch_tensor(2, requires_grad = TRUE)
    local_no_grad()
    x^3
  }
  y <- with_enable_grad(f())
  expect_false(y$requires_grad)
  expect_error(y$backward(), "does not require grad")

  g <- function() {
    x <- torch_tensor(2, requires_grad = TRUE)
    local_enable_grad()
    x^3
  }
  with_no_grad({
    y <- g()
    expect_true(y$requires_grad)
    z <- y * 2
  })
  expect_false(z$requires_grad)  # the outer with_no_grad is back in force after g()
  y$backward()

  x <- torch_tensor(2, requires_grad = TRUE)
  expect_true((x * 2)$requires_grad)  # and the global mode is restored afterwards
})
