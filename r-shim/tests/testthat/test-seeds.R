# The R code of the seed material (R torch's "Using autograd" and "Extending autograd"
# vignettes, the autograd_function reference page, the autograd course exercise) runs unchanged
# except for library() and prints what the seeds show. The seeds were made with an older
# libtorch whose print had no `[ grad_fn = ... ]` / `[ requires_grad = TRUE ]` suffix; the
# expected text here is what R torch prints with libtorch 2.8.0 (spec section 3).
skip_if_no_python()

out_of <- function(expr) capture.output(expr)

test_that("seed: using autograd (vignette)", {
  x <- torch_ones(2, 2, requires_grad = TRUE)
  expect_identical(out_of(x), c("torch_tensor", " 1  1", " 1  1",
                                "[ CPUFloatType{2,2} ][ requires_grad = TRUE ]"))
  y <- x + 2
  expect_identical(out_of(y), c("torch_tensor", " 3  3", " 3  3",
                                "[ CPUFloatType{2,2} ][ grad_fn = <AddBackward1> ]"))
  expect_identical(out_of(y$grad_fn), "AddBackward1")
  z <- y * y * 3
  expect_identical(out_of(z)[2:3], c(" 27  27", " 27  27"))
  out <- z$mean()
  expect_identical(out_of(out), c("torch_tensor", "27",
                                  "[ CPUFloatType{} ][ grad_fn = <MeanBackward0> ]"))

  a <- torch_randn(2, 2)
  a <- (a * 3) / (a - 1)
  expect_identical(out_of(a$requires_grad), "[1] FALSE")
  printed <- out_of(a$requires_grad_(TRUE))
  expect_identical(printed[c(1, 4)], c("torch_tensor", "[ CPUFloatType{2,2} ][ requires_grad = TRUE ]"))
  expect_identical(out_of(a$requires_grad), "[1] TRUE")
  b <- (a * a)$sum()
  expect_identical(out_of(b$grad_fn), "SumBackward0")

  out$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 4.5000  4.5000", " 4.5000  4.5000",
                                     "[ CPUFloatType{2,2} ]"))

  x <- torch_randn(3, requires_grad = TRUE)
  y <- 100 * x
  expect_identical(out_of(y)[5], "[ CPUFloatType{3} ][ grad_fn = <MulBackward0> ]")
  v <- torch_tensor(c(0.1, 1.0, 0.0001))
  y$backward(v)
  expect_identical(out_of(x$grad), c("torch_tensor", " 1.0000e+01", " 1.0000e+02",
                                     " 1.0000e-02", "[ CPUFloatType{3} ]"))

  expect_identical(out_of(x$requires_grad), "[1] TRUE")
  expect_identical(out_of((x**2)$requires_grad), "[1] TRUE")
  expect_identical(out_of(with_no_grad({
    print((x**2)$requires_grad)
  })), "[1] FALSE")

  expect_identical(out_of(x$requires_grad), "[1] TRUE")
  y <- x$detach()
  expect_identical(out_of(y$requires_grad), "[1] FALSE")
  expect_identical(out_of(x$eq(y)$all()), c("torch_tensor", "1", "[ CPUBoolType{} ]"))
})

test_that("seed: extending autograd (vignette, with the 1-based fix of section 5.1)", {
  linear <- autograd_function(
    forward = function(ctx, input, weight, bias = NULL) {
      ctx$save_for_backward(input = input, weight = weight, bias = bias)
      output <- input$mm(weight$t())
      if (!is.null(bias))
        output <- output + bias$unsqueeze(1)$expand_as(output)
      output
    },
    backward = function(ctx, grad_output) {
      s <- ctx$saved_variables
      grads <- list(
        input = NULL,
        weight = NULL,
        bias = NULL
      )
      if (ctx$needs_input_grad$input)
        grads$input <- grad_output$mm(s$weight)
      if (ctx$needs_input_grad$weight)
        grads$weight <- grad_output$t()$mm(s$input)
      if (!is.null(s$bias) && ctx$needs_input_grad$bias)
        grads$bias <- grad_output$sum(dim = 1)
      grads
    }
  )
  mul_constant <- autograd_function(
    forward = function(ctx, tensor, constant) {
      ctx$save_for_backward(constant = constant)
      tensor * constant
    },
    backward = function(ctx, grad_output) {
      v <- ctx$saved_variables
      list(
        tensor = grad_output * v$constant
      )
    }
  )
  x <- torch_tensor(1, requires_grad = TRUE)
  o <- mul_constant(x, 2)
  o$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 2", "[ CPUFloatType{1} ]"))
  expect_identical(out_of(o), c("torch_tensor", " 2",
                                "[ CPUFloatType{1} ][ grad_fn = <torch::autograd::LanternNode> ]"))

  input <- torch_randn(4, 3, requires_grad = TRUE)
  weight <- torch_randn(2, 3, requires_grad = TRUE)
  bias <- torch_randn(2, requires_grad = TRUE)
  out <- linear(input, weight, bias)
  out$sum()$backward()
  ref_in <- input$detach()$requires_grad_()
  ref_w <- weight$detach()$requires_grad_()
  ref_b <- bias$detach()$requires_grad_()
  nnf_linear(ref_in, ref_w, ref_b)$sum()$backward()
  expect_equal_to_tensor(input$grad, ref_in$grad, tolerance = 1e-6)
  expect_equal_to_tensor(weight$grad, ref_w$grad, tolerance = 1e-6)
  expect_equal_to_tensor(bias$grad, ref_b$grad, tolerance = 1e-6)

  # the vignette as printed (bias$unsqueeze(0)) fails in R torch too: dims are 1-based
  expect_error(torch_ones(2)$unsqueeze(0), "Indexing starts at 1 but found a 0.", fixed = TRUE)
})

test_that("seed: autograd_function reference page (exp2)", {
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
  x <- torch_tensor(c(0, 1), requires_grad = TRUE)
  exp2(x)$sum()$backward()
  expect_equal_to_r(x$grad, exp(c(0, 1)), tolerance = 1e-6)
  # the page's typo `ctx$saved_variable` is NULL in R (no partial matching): backward fails
  exp_typo <- autograd_function(
    forward = function(ctx, i) {
      result <- i$exp()
      ctx$save_for_backward(result = result)
      result
    },
    backward = function(ctx, grad_output) {
      list(i = grad_output * ctx$saved_variable$result)
    }
  )
  expect_error(exp_typo(torch_tensor(1, requires_grad = TRUE))$backward())
})

test_that("seed: autograd exercise (gradients, ReLU, g = f(f(f(x))))", {
  f <- function(x) x^2 + 3 * x + 2
  x <- torch_tensor(2, requires_grad = TRUE)
  f(x)$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 7", "[ CPUFloatType{1} ]"))
  x <- torch_tensor(2, requires_grad = TRUE)
  g <- f(f(f(x)))
  g$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 69363", "[ CPUFloatType{1} ]"))

  # local linear approximation, as a data.frame for ggplot2
  x0 <- torch_tensor(2, requires_grad = TRUE)
  y0 <- f(x0)
  y0$backward()
  xs <- torch_linspace(-4, 4, 100)
  df <- data.frame(x = as_array(xs), y_true = as_array(f(xs)),
                   y_approx = as_array(y0$detach() + x0$grad * (xs - 2)))
  expect_equal(dim(df), c(100L, 3L))
  expect_equal(df$y_approx[df$x == 4], 12 + 7 * 2, tolerance = 1e-5)
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    p <- ggplot2::ggplot(df, ggplot2::aes(x = x)) +
      ggplot2::geom_line(ggplot2::aes(y = y_true)) +
      ggplot2::geom_line(ggplot2::aes(y = y_approx), linetype = "dashed")
    expect_s3_class(p, "ggplot")
  }

  relu <- autograd_function(
    forward = function(ctx, input) {
      mask <- input > 0
      output <- torch_where(mask, input, torch_tensor(0))
      ctx$save_for_backward(mask)
      output
    },
    backward = function(ctx, grad_output) {
      grads <- list(input = NULL)
      if (ctx$needs_input_grad$input) {
        mask <- ctx$saved_variables[[1]]
        grads$input <- grad_output * mask
      }
      grads
    }
  )
  x <- torch_tensor(-1, requires_grad = TRUE)
  (relu(x)^2)$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 0", "[ CPUFloatType{1} ]"))
  expect_identical(out_of(x$grad$zero_()), c("torch_tensor", " 0", "[ CPUFloatType{1} ]"))
  x <- torch_tensor(3, requires_grad = TRUE)
  (relu(x)^2)$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 6", "[ CPUFloatType{1} ]"))

  # and the same with nnf_relu, as the exercise asks to compare
  x <- torch_tensor(3, requires_grad = TRUE)
  (nnf_relu(x)^2)$backward()
  expect_identical(out_of(x$grad), c("torch_tensor", " 6", "[ CPUFloatType{1} ]"))
})
