# Custom autograd functions: the details of spec sections 1.5 and 1.6.
skip_if_no_python()

square <- function() {
  autograd_function(
    forward = function(ctx, x) {
      ctx$save_for_backward(x = x)
      x^2
    },
    backward = function(ctx, grad_output) {
      list(x = 2 * ctx$saved_variables$x * grad_output)
    }
  )
}

test_that("saved_variables keeps R torch's naming rules", {
  seen <- list()
  f <- autograd_function(
    forward = function(ctx, a, b, mode) {
      switch(mode,
        named = ctx$save_for_backward(input = a, weight = b, bias = NULL),
        unnamed = ctx$save_for_backward(a, b),
        mixed = ctx$save_for_backward(var1 = a, i = 2),
        positional = ctx$save_for_backward(a, i = 2),
        objects = ctx$save_for_backward(fn = sum, l = list(1, "a"), e = globalenv())
      )
      seen[[mode]] <<- ctx$saved_variables  # readable in forward too
      a * b
    },
    backward = function(ctx, grad_output) {
      seen[["backward"]] <<- ctx$saved_variables
      list(a = grad_output, b = grad_output)
    }
  )
  a <- torch_tensor(1, requires_grad = TRUE)
  b <- torch_tensor(2, requires_grad = TRUE)

  f(a, b, "named")$backward()
  v <- seen$backward
  expect_named(v, c("input", "weight", "bias"))
  expect_null(v$bias)
  expect_tensor(v$input)
  expect_true(v$input$requires_grad)

  f(a, b, "unnamed")$backward()
  expect_null(names(seen$backward))
  expect_length(seen$backward, 2)

  f(a, b, "mixed")$backward()
  expect_named(seen$backward, c("var1", "i"))
  expect_type(seen$backward$i, "double")

  f(a, b, "positional")$backward()
  expect_named(seen$backward, c("", "i"))

  f(a, b, "objects")$backward()
  expect_identical(seen$backward$fn, sum)
  expect_identical(seen$backward$l, list(1, "a"))
  expect_identical(seen$backward$e, globalenv())
  expect_identical(seen$objects$l, list(1, "a"))
})

test_that("a second save_for_backward replaces the first; nothing saved is list()", {
  f <- autograd_function(
    forward = function(ctx, x) {
      ctx$save_for_backward(first = 1)
      ctx$save_for_backward(second = 2)
      x * 1
    },
    backward = function(ctx, g) {
      expect_named(ctx$saved_variables, "second")
      list(x = g)
    }
  )
  f(torch_tensor(1, requires_grad = TRUE))$backward()
  g <- autograd_function(
    forward = function(ctx, x) x * 1,
    backward = function(ctx, gr) {
      expect_identical(ctx$saved_variables, list())
      list(x = gr)
    }
  )
  g(torch_tensor(1, requires_grad = TRUE))$backward()
})

test_that("the context is locked; needs_input_grad is a named list of logicals", {
  needs <- NULL
  f <- autograd_function(
    forward = function(ctx, input, weight, k = 3, bias = NULL) {
      expect_error(ctx$foo <- 1, "cannot add bindings to a locked environment")
      expect_error(ctx$save_for_backward <- 1, "locked binding")
      expect_equal(class(ctx), c("torch_autograd_context", "R6"))
      expect_setequal(ls(ctx), c("mark_dirty", "mark_non_differentiable", "needs_input_grad",
                                 "ptr", "save_for_backward", "saved_variables"))
      expect_match(format(ctx), "<torch_autograd_context>", fixed = TRUE)
      expect_null(ctx$saved_variable)  # R6: no partial matching, a typo gives NULL
      needs <<- ctx$needs_input_grad
      input * weight * k
    },
    backward = function(ctx, g) list(input = g, weight = g)
  )
  x <- torch_tensor(1)
  w <- torch_tensor(2, requires_grad = TRUE)
  out <- f(x, w)
  expect_identical(needs, list(input = FALSE, weight = TRUE, k = FALSE, bias = FALSE))
  expect_equal_to_r(out, 6)
  expect_equal(names(formals(f)), c("input", "weight", "k", "bias"))
  expect_equal(formals(f)$k, 3)
  expect_equal_to_r(f(weight = w, input = x, k = 1), 2)
})

test_that("forward runs without recording; outputs are plain under with_no_grad", {
  rec <- NULL
  f <- autograd_function(
    forward = function(ctx, x) {
      rec <<- (x * 2)$requires_grad
      expect_true(x$requires_grad)  # the input itself still requires grad
      x * 2
    },
    backward = function(ctx, g) list(x = 2 * g)
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  out <- f(x)
  expect_false(rec)
  expect_true(out$requires_grad)
  expect_output(print(out), "grad_fn = <torch::autograd::LanternNode>", fixed = TRUE)
  out2 <- with_no_grad(f(x))
  expect_null(out2$grad_fn)
  expect_false(out2$requires_grad)
})

test_that("what backward returns: names, NULLs, numbers, bare tensors, shapes", {
  make <- function(bwd) {
    autograd_function(forward = function(ctx, a, b) a * b, backward = bwd)
  }
  a <- torch_tensor(c(1, 2), requires_grad = TRUE)
  b <- torch_tensor(c(3, 4), requires_grad = TRUE)

  f <- make(function(ctx, g) list(a = g, wrong_name = g, c = 1))  # extra names ignored
  f(a, b)$sum()$backward()
  expect_equal_to_r(a$grad, c(1, 1))
  expect_equal_to_r(b$grad, c(0, 0))  # missing name: a silent zero gradient (R torch)

  a$grad <- NULL
  f <- make(function(ctx, g) list(g, g))  # unnamed list: every gradient is zero
  f(a, b)$sum()$backward()
  expect_equal_to_r(a$grad, c(0, 0))

  s <- torch_tensor(3, requires_grad = TRUE)
  f <- make(function(ctx, g) list(a = NULL, b = 2))  # a number becomes a float tensor {1}
  f(a, s)$sum()$backward()
  expect_equal_to_r(s$grad, 2)
  expect_error(f(a, b)$sum()$backward(), "got [1] but expected shape compatible with [2]",
               fixed = TRUE)

  f <- make(function(ctx, g) g)
  expect_error(f(a, b)$sum()$backward(), "Unsupported index.", fixed = TRUE)

  b$grad <- NULL
  f <- make(function(ctx, g) list(b = torch_ones(3, 2)))  # broadcastable: summed down
  f(a, b)$sum()$backward()
  expect_equal_to_r(b$grad, c(3, 3))

  f <- make(function(ctx, g) list(a = torch_ones(3)))
  expect_error(
    f(a, b)$sum()$backward(),
    paste0("Function torch::autograd::LanternNode returned an invalid gradient at index 0 - ",
           "got [3] but expected shape compatible with [2]"), fixed = TRUE)
})

test_that("what forward returns: atomic vectors, NULL, other objects", {
  f <- autograd_function(forward = function(ctx, x) c(1, 2), backward = function(ctx, g) list())
  out <- f(torch_tensor(1, requires_grad = TRUE))
  expect_tensor(out)
  expect_equal(out$dtype, torch_float32())
  f <- autograd_function(forward = function(ctx, x) list(x * 1, NULL),
                         backward = function(ctx, g) list())
  out <- f(torch_tensor(1, requires_grad = TRUE))
  expect_true(is_undefined_tensor(out[[2]]))
  f <- autograd_function(forward = function(ctx, x) mean, backward = function(ctx, g) list())
  expect_error(f(torch_tensor(1, requires_grad = TRUE)), "Expected a torch_tensor.")
})

test_that("k outputs and m backward formals (R torch's rule)", {
  three <- function(bwd) {
    autograd_function(forward = function(ctx, x) list(x * 1, x * 2, x * 3), backward = bwd)
  }
  x <- torch_tensor(1, requires_grad = TRUE)
  got <- NULL
  f <- three(function(ctx, g1, rest) {
    got <<- list(g1, rest)
    list(x = g1)
  })
  r <- f(x)
  (r[[1]] + r[[2]] + r[[3]])$backward()
  expect_tensor(got[[1]])
  expect_type(got[[2]], "list")
  expect_length(got[[2]], 2)
  f <- three(function(ctx, ...) {
    got <<- list(...)
    list(x = ..1[[1]])
  })
  r <- f(x)
  r[[1]]$backward()
  expect_length(got, 1)
  expect_length(got[[1]], 3)
  f <- three(function(ctx, a, b, c, d) {
    got <<- list(missing(d))
    list(x = a)
  })
  r <- f(x)
  r[[1]]$backward()
  expect_true(got[[1]])
})

test_that("double backward through a custom function (create_graph)", {
  sq <- square()
  x <- torch_tensor(3, requires_grad = TRUE)
  y <- sq(x)
  g <- autograd_grad(y, x, create_graph = TRUE)[[1]]
  expect_equal_to_r(g, 6)
  g2 <- autograd_grad(g, x)[[1]]
  expect_equal_to_r(g2, 2)
})

test_that("saved tensors are freed after backward and version-checked", {
  keep <- NULL
  f <- autograd_function(
    forward = function(ctx, x) {
      ctx$save_for_backward(x = x)
      x * 1
    },
    backward = function(ctx, g) {
      keep <<- ctx
      list(x = g * ctx$saved_variables$x)
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- f(x)
  y$backward()
  expect_error(keep$saved_variables, "Trying to backward through the graph a second time")
  expect_error(y$backward(), "Trying to backward through the graph a second time")

  sq <- square()
  z <- torch_tensor(2)$requires_grad_()
  w <- z * 1
  out <- sq(w)
  with_no_grad(w$add_(1))
  expect_error(out$backward(), "one of the variables needed for gradient computation")
})

test_that("R conditions raised in callbacks come back unchanged", {
  f <- autograd_function(
    forward = function(ctx, x) rlang::abort("custom failure", class = "my_error"),
    backward = function(ctx, g) list(x = g)
  )
  expect_error(f(torch_tensor(1, requires_grad = TRUE)), class = "my_error")
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- x * 2
  y$register_hook(function(g) rlang::abort("hook failure", class = "hook_error"))
  expect_error(y$backward(), class = "hook_error")
  # nothing is left behind: the next backward works
  z <- x * 3
  z$backward()
  expect_equal_to_r(x$grad, 3)
})

test_that("custom functions nest and work with hooks", {
  sq <- square()
  outer_fn <- autograd_function(
    forward = function(ctx, x) {
      ctx$save_for_backward(x = x)
      sq(x) * 1  # a custom function inside forward (not recorded)
    },
    backward = function(ctx, g) list(x = 2 * ctx$saved_variables$x * g)
  )
  x <- torch_tensor(3, requires_grad = TRUE)
  seen <- NULL
  x$register_hook(function(g) {
    seen <<- g$item()
    NULL
  })
  outer_fn(x)$backward()
  expect_equal(seen, 6)
  expect_equal_to_r(x$grad, 6)
})

test_that("a custom function calls itself inside its forward; its arguments are not kept", {
  # forward takes its arguments from a slot of the function's state that each call sets (no
  # stack): a call nested in forward must not disturb the outer call
  f <- autograd_function(
    forward = function(ctx, x, depth, label = "outer") {
      ctx$save_for_backward(depth = depth, label = label)
      if (depth > 0) x <- f(x, depth - 1, label = "inner")
      x * 2
    },
    backward = function(ctx, g) {
      s <- ctx$saved_variables
      expect_identical(s$label, "outer")
      list(x = g * 2^(s$depth + 1))
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- f(x, 3)
  expect_equal_to_r(y, 16)
  y$backward()
  expect_equal_to_r(x$grad, 16)
  expect_null(environment(f)$.rtp_state$args)
  expect_error(f(x), 'argument "depth" is missing, with no default')
  expect_null(environment(f)$.rtp_state$args)
})

test_that("forward's `...` passes extra arguments through; a tensor needing grad there errors", {
  # R torch cannot call such a forward; here `...` reaches forward as given (names, order,
  # positions), outside the graph, so a tensor that requires grad there is refused
  seen <- NULL
  f <- autograd_function(
    forward = function(ctx, x, ..., scale = 2) {
      seen <<- list(...)
      ctx$save_for_backward(scale = scale)
      x * scale + length(list(...))
    },
    backward = function(ctx, g) list(x = g * ctx$saved_variables$scale)
  )
  expect_equal(names(formals(f)), c("x", "...", "scale"))
  x <- torch_tensor(1, requires_grad = TRUE)
  y <- f(x, 3, k = "a", torch_ones(2))
  expect_equal(seen[1:2], list(3, k = "a"))
  expect_tensor(seen[[3]])
  expect_equal_to_r(y, 5)
  y$backward()
  expect_equal_to_r(x$grad, 2)
  expect_equal_to_r(f(x, scale = 5), 5)
  expect_identical(seen, list())
  expect_error(f(x, 1, torch_ones(2, requires_grad = TRUE)),
               "argument 2 of `...` is a tensor that requires grad", fixed = TRUE)
  expect_null(environment(f)$.rtp_state$args)
  expect_true((x * 1)$requires_grad)  # grad mode is back on
  # only `...` after ctx: the first extra argument is ..1
  g <- autograd_function(forward = function(ctx, ...) ..1 * 2, backward = function(ctx, g) list())
  expect_equal_to_r(g(torch_ones(1)), 2)
})
