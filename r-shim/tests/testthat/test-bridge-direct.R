# The direct path of the C bridge (src/pycall.c, from "the direct path: state"): simple ops and
# the binary operators called by C with the tensors themselves, tensor results registered and
# released in C, x$grad and x$method made in C, grad mode read and set in C.
skip_if_no_python()

# Whether this session runs the direct path (RTORCHPY_DIRECT unset): rtp_release_dead works in C
# only then (with RTORCHPY_DIRECT=0 the C bridge is off and every call goes through reticulate).
direct_on <- function() {
  invisible(torch_ones(1))  # Python started
  isTRUE(rtorchpy:::.rt$direct) && isTRUE(.Call(rtorchpy:::rtp_release_dead))
}

skip_if_not_direct <- function() {
  skip_if(!direct_on(), "the direct path is off (RTORCHPY_DIRECT is set)")
}

# -- 1. the same results with and without the direct path ------------------------------------

# Each line prints one labelled result: a tensor as its values (deparse keeps every digit),
# dtype, shape, requires_grad, is_leaf and grad_fn; other values deparsed; errors with their
# class and message; warnings too.
child_prelude <- '
suppressMessages(library(rtorchpy))
desc <- function(r) {
  if (is_torch_tensor(r)) {
    if (is_undefined_tensor(r)) return("<undefined tensor>")
    return(paste(paste(deparse(as_array(r)), collapse = ""),
                 "|", capture.output(print(r$dtype)), "|", paste(r$shape, collapse = "x"),
                 "| requires_grad", r$requires_grad, "| is_leaf", r$is_leaf,
                 "| grad_fn", paste(capture.output(print(r$grad_fn)), collapse = " ")))
  }
  if (is.list(r)) return(paste0("list(", paste(vapply(r, desc, ""), collapse = "; "), ")"))
  paste(class(r), paste(deparse(r), collapse = ""))
}
show <- function(label, expr) {
  out <- tryCatch(withCallingHandlers(paste(":", desc(expr)), warning = function(w) {
    cat(label, "| warning:", conditionMessage(w), "\n")
    invokeRestart("muffleWarning")
  }), error = function(e) {
    paste("| error <", paste(class(e), collapse = "/"), ">", conditionMessage(e), "| call",
          paste(deparse(conditionCall(e)), collapse = " "))
  })
  cat(label, out, "\n")
}
'

child_ops <- '
x <- torch_tensor(c(0.1, 0.7, -1.3))
y <- torch_tensor(c(2, 0.7, 4))
x64 <- torch_tensor(c(0.1, 0.7, -1.3), dtype = torch_float64())
y64 <- torch_tensor(c(2, 0.7, 4), dtype = torch_float64())
i3 <- torch_tensor(1:3)
b3 <- torch_tensor(c(TRUE, FALSE, TRUE))
show("sin f32", torch_sin(x))
show("tanh f32", torch_tanh(x))
show("exp f32", torch_exp(x))
show("sin f64", torch_sin(x64))
show("tanh f64", torch_tanh(x64))
show("exp f64", torch_exp(x64))
show("sqrt negative (NaN)", torch_sqrt(x))
show("method sin", x$sin())
show("method exp f64", x64$exp())
show("x * 1.01", x * 1.01)
show("x64 * 1.01", x64 * 1.01)
show("x + 2L", x + 2L)
show("x * TRUE", x * TRUE)
show("x - FALSE", x - FALSE)
show("x / y", x / y)
show("x / 0", x / 0)
show("x * Inf", x * Inf)
show("x * NaN", x * NaN)
show("x * NA", x * NA)
show("x + NA_integer_", x + NA_integer_)
show("x ^ 2", x ^ 2)
show("x ^ 0.5", x ^ 0.5)
show("x ^ y", x ^ y)
show("x64 ^ 3L", x64 ^ 3L)
show("x - y", x - y)
show("x64 - y", x64 - y)
show("x + x64", x + x64)
show("x == y", x == y)
show("x != y", x != y)
show("x < 0.5", x < 0.5)
show("x <= 0.7", x <= 0.7)
show("x > y", x > y)
show("x >= 0L", x >= 0L)
show("x64 == 0.7", x64 == 0.7)
show("i3 * 2L", i3 * 2L)
show("i3 * 2", i3 * 2)
show("i3 * 1.5", i3 * 1.5)
show("i3 / 2L", i3 / 2L)
show("i3 + i3", i3 + i3)
show("i3 - TRUE", i3 - TRUE)
show("i3 ^ 2L", i3 ^ 2L)
show("i3 == 2L", i3 == 2L)
show("i3 + .Machine$integer.max", i3 + .Machine$integer.max)
show("b3 * 2L", b3 * 2L)
show("b3 + TRUE", b3 + TRUE)
show("b3 == TRUE", b3 == TRUE)
show("broadcast 3x1 + 1x4", torch_tensor(matrix(1:3, 3, 1) * 1.5) + torch_tensor(matrix(c(10, 20, 30, 40), 1, 4)))
show("broadcast 3x1 * 1x4 (int)", torch_tensor(matrix(1:3, 3, 1)) * torch_tensor(matrix(1:4, 1, 4)))
show("broadcast 3x1 < 1x4", torch_tensor(matrix(1:3, 3, 1)) < torch_tensor(matrix(c(0.5, 1.5, 2.5, 3.5), 1, 4)))
show("shape mismatch +", torch_ones(2, 3) + torch_ones(4))
show("shape mismatch *", x * torch_ones(4))
show("shape mismatch ==", x == torch_ones(2))
show("shape mismatch torch_add", torch_add(torch_ones(2, 3), torch_ones(4)))
show("shape mismatch torch_mul", torch_mul(x, torch_ones(4)))
show("bad argument: string", torch_add(x, "a"))
show("bad argument: string on the right", x * "a")
show("bad argument: NULL", torch_mul(x, NULL))
show("matmul mismatch", torch_mm(torch_ones(2, 3), torch_ones(2, 3)))
show("torch_add alpha", torch_add(x, y, alpha = 2))
show("torch_add int alpha", torch_add(i3, i3, alpha = 3L))
show("torch_clamp min", torch_clamp(x, min = 0))
show("torch_clamp min max", torch_clamp(x, -1, 0.5))
show("torch_where", torch_where(x > 0, x, y))
show("torch_where condition only", torch_where(x > 0))
show("torch_maximum", torch_maximum(x, y))
show("torch_atan2", torch_atan2(x, y))
show("torch_mm", torch_mm(torch_tensor(matrix(1:6 / 2, 2, 3)), torch_tensor(matrix(1:6, 3, 2) * 1.0)))
show("torch_outer", torch_outer(x, y))
show("torch_reshape", torch_reshape(torch_arange(1, 6), c(2, 3)))
show("x$view", torch_arange(1, 6)$view(c(3, 2)))
show("to float64", x$to(dtype = torch_float64()))
show("x$double()", x$double())
show("x$int()", (x * 10)$int())
show("torch_div floor (string arg)", torch_div(torch_tensor(c(5, -5, 7)), 2, rounding_mode = "floor"))
show("torch_div trunc (string arg)", torch_div(torch_tensor(c(5, -5, 7)), 2, rounding_mode = "trunc"))
show("torch_div bad mode (string arg)", torch_div(x, 2, rounding_mode = "nope"))
show("linalg_qr r (string arg)", linalg_qr(torch_tensor(matrix(c(2, 1, 1, 3), 2, 2)), mode = "r"))
show("linalg_qr bad mode", linalg_qr(torch_eye(2), mode = "bad"))
show("torch_allclose TRUE", torch_allclose(x, x + 1e-9))
show("torch_allclose FALSE", torch_allclose(x, y))
show("x$allclose", x$allclose(x * 1))
show("torch_equal TRUE", torch_equal(x, x * 1))
show("torch_equal FALSE", torch_equal(x, y))
show("x$item", torch_sin(torch_tensor(0.5))$item())
show("x$numel", torch_exp(x)$numel())
show("x$size(1)", torch_ones(2, 3)$size(1))
show("x$size()", torch_ones(2, 3)$size())
show("linalg_qr (list)", linalg_qr(torch_tensor(matrix(c(2, 1, 1, 3), 2, 2))))
show("linalg_slogdet (list)", linalg_slogdet(torch_tensor(matrix(c(2, 1, 1, 3), 2, 2))))
show("linalg_eigh (list)", linalg_eigh(torch_tensor(matrix(c(2, 1, 1, 3), 2, 2))))
show("linalg_inv singular", linalg_inv(torch_zeros(2, 2)))
show("x * c(1, 2, 3)", x * c(1, 2, 3))
show("x * c(a = 2) (a named number)", x * c(a = 2))
show("x * matrix(2)", x * matrix(2))
show("x * numeric(0)", x * numeric(0))
show("x * 1e308", x64 * 1e308)
show("x * -0", x * -0)
show("x * 3+0i (complex)", x * (3 + 0i))
u <- torch_ones(1)$grad
show("undefined", u)
show("undefined * 2", u * 2)
show("undefined + x", u + x)
show("x + undefined", x + u)
show("torch_sin(undefined)", torch_sin(u))
show("undefined$grad", u$grad)
show("undefined$sin()", u$sin())
show("x + c(1L, 2L, 3L)", x + c(1L, 2L, 3L))
show("x * matrix", torch_ones(2, 2) * matrix(1:4, 2, 2))
show("2 * x", 2 * x)
show("2L * x", 2L * x)
show("TRUE + x", TRUE + x)
show("1 - x", 1 - x)
show("1 / x", 1 / x)
show("2 ^ x", 2 ^ x)
show("0.5 < x", 0.5 < x)
show("c(1, 2, 3) * x", c(1, 2, 3) * x)
show("-x", -x)
show("!b3", !b3)
show("x %% 0.5", x %% 0.5)
show("x %/% 0.5", x %/% 0.5)
show("b3 & b3", b3 & b3)
show("nnf_relu", nnf_relu(x))
show("nnf_sigmoid", nnf_sigmoid(x64))
show("nnf_softmax", nnf_softmax(x, 1))
show("nnf_mse_loss (warns)", nnf_mse_loss(torch_ones(11), torch_ones(11, 1)))
show("nnf_mse_loss", nnf_mse_loss(x, y))
show("nnf_mse_loss mismatch", nnf_mse_loss(x, torch_ones(2)))
# autograd through direct calls
w <- torch_tensor(c(0.5, -1, 2), requires_grad = TRUE)
v <- torch_tensor(c(3, 1, -2), requires_grad = TRUE)
show("w$grad before backward", w$grad)
a <- w * 2 + 1
b <- torch_sin(a) * v
cc <- torch_exp(b / 3) - w ^ 2
loss <- (cc * cc)$sum()
show("a", a)
show("b", b)
show("cc", cc)
show("loss", loss)
show("a$grad (non-leaf)", a$grad)
show("backward", loss$backward())
show("w$grad", w$grad)
show("v$grad", v$grad)
show("w$grad$grad_fn", w$grad$grad_fn)
show("2 * w", 2 * w)
show("w * 2", w * 2)
show("2L * w", 2L * w)
show("w + 1", w + 1)
show("1 + w", 1 + w)
show("w - v", w - v)
show("w / v", w / v)
show("w ^ 2", w ^ 2)
show("w ^ v", w ^ v)
show("w == v", w == v)
show("w < 1", w < 1)
show("torch_tanh(w)", torch_tanh(w))
show("w$sin()", w$sin())
show("torch_mul(w, v)", torch_mul(w, v))
show("torch_add(w, 1, alpha = 2)", torch_add(w, 1, alpha = 2))
show("w * c(1, 2, 3)", w * c(1, 2, 3))
show("with_no_grad w * 2", with_no_grad(w * 2))
show("with_no_grad torch_sin(w)", with_no_grad(torch_sin(w)))
show("after with_no_grad", w * 2)
w2 <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
z <- (2 * w2)$sum() + (w2 * 3)$sum() + torch_sin(w2)$sum() + (1 - w2)$sum()
z$backward()
show("w2$grad (2 * w2, w2 * 3, sin, 1 - w2)", w2$grad)
r <- torch_tensor(c(1, 2), requires_grad = TRUE)
show("in-place add_ on a leaf (error)", r$add_(1))
with_no_grad(r$add_(1))
show("in-place add_ on a leaf under with_no_grad", r)
r2 <- torch_tensor(c(1, 2), requires_grad = TRUE) * 1
r2$mul_(3)
show("in-place mul_ on a non-leaf", r2)
r2$sum()$backward()
show("grad after in-place", r2$grad_fn)
# dims: C shifts NULL and whole numbers other than 0 itself; the rest goes to the Python caller
m <- torch_tensor(matrix(c(1, -2, 3.5, 4, 0.5, -6), 2, 3), requires_grad = TRUE)
show("sum()", torch_sum(m))
show("sum(dim = 1)", torch_sum(m, dim = 1))
show("sum(dim = 2L, keepdim)", torch_sum(m, dim = 2L, keepdim = TRUE))
show("sum(dim = -1)", torch_sum(m, dim = -1))
show("sum(dim = 0) (error)", torch_sum(m, dim = 0))
show("sum(dim = 3) (error)", torch_sum(m, dim = 3))
show("sum(dim = 1.5) (error)", torch_sum(m, dim = 1.5))
show("sum(dim = c(1, 2))", torch_sum(m, dim = c(1, 2)))
show("sum(dim = NA) (error)", torch_sum(m, dim = NA))
show("$mean(dim = 2)", m$mean(dim = 2))
show("$mean()", m$mean())
show("unsqueeze(1)", m$unsqueeze(1))
show("unsqueeze(-1)", m$unsqueeze(-1))
show("transpose(1, 2)", m$transpose(1, 2))
show("flatten(start_dim = 1)", m$flatten(start_dim = 1))
show("cumsum(dim = 2)", torch_cumsum(m, dim = 2))
show("squeeze(2)", m$unsqueeze(2)$squeeze(2))
show("nnf_softmax(dim = 2)", nnf_softmax(m, dim = 2))
show("nnf_log_softmax(dim = 1)", nnf_log_softmax(m, dim = 1))
show("var(dim = 1)", torch_var(m, dim = 1))
lm <- (m$sum(dim = 1) * torch_tensor(c(1, 2, 3)))$sum() + nnf_softmax(m, dim = 2)$sum(dim = 2)$mean()
lm$backward()
show("grad through dims", m$grad)
# the optimizer methods a training loop calls every step (C calls them directly too)
ow <- torch_tensor(c(1, -2, 3), requires_grad = TRUE)
opt <- optim_sgd(list(ow), lr = 0.1, momentum = 0.5)
for (i in 1:3) {
  show("zero_grad", opt$zero_grad())
  (ow * ow)$sum()$backward()
  show("step", opt$step())
}
show("after steps", ow)
show("zero_grad(set_to_none = TRUE)", opt$zero_grad(set_to_none = TRUE))
show("grad set to none", ow$grad)
show("zero_grad(set_to_none = NA)", opt$zero_grad(set_to_none = NA))
show("lbfgs step without closure", optim_lbfgs(list(ow))$step())
'

run_child <- function(direct) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(child_prelude, child_ops,
               # the mode actually used (checked, not compared): C's direct state is set up
               'cat("\\nRTORCHPY-DIRECT-HELD", isTRUE(.Call(rtorchpy:::rtp_release_dead)),
                    "\\n")'), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- withr::with_envvar(
    c(RTORCHPY_DIRECT = direct, R_LIBS = lib, LD_LIBRARY_PATH = NA),
    suppressWarnings(system2(rscript, c("--vanilla", shQuote(script)), stdout = TRUE,
                             stderr = TRUE))
  )
  status <- attr(out, "status")
  list(out = as.character(out), status = if (is.null(status)) 0L else status)
}

test_that("ops give the same results, dtypes, grad_fns and errors through C and through reticulate", {
  skip_on_os("windows")  # (no direct path there: see rtp_pyinit)
  direct <- run_child(NA)          # RTORCHPY_DIRECT unset: the direct path
  callers <- run_child("0")        # every call through reticulate and the Python callers
  expect_equal(direct$status, 0L, info = paste(direct$out, collapse = "\n"))
  expect_equal(callers$status, 0L, info = paste(callers$out, collapse = "\n"))
  mode_line <- function(out) grep("^RTORCHPY-DIRECT-HELD", out, value = TRUE)
  expect_equal(mode_line(direct$out), "RTORCHPY-DIRECT-HELD TRUE ")
  expect_equal(mode_line(callers$out), "RTORCHPY-DIRECT-HELD FALSE ")
  a <- grep("^RTORCHPY-DIRECT-HELD|^$", direct$out, value = TRUE, invert = TRUE)
  b <- grep("^RTORCHPY-DIRECT-HELD|^$", callers$out, value = TRUE, invert = TRUE)
  expect_gt(length(a), 140)
  # line by line: a difference names its op
  n <- max(length(a), length(b))
  length(a) <- length(b) <- n
  differ <- which(is.na(a) | is.na(b) | a != b)
  expect_identical(differ, integer(0),
                   info = paste0("direct:  ", a[differ], "\ncallers: ", b[differ],
                                 collapse = "\n"))
  # and the script really exercised what it says (a few spot checks of the shared output)
  expect_true(any(grepl("^shape mismatch \\+ \\| error < runtime_error/rtorchpy_error/error/condition > The size of tensor a \\(3\\) must match the size of tensor b \\(4\\) at non-singleton dimension 1",
                        a)))
  expect_true(any(grepl("^2 \\* w : .*MulBackward0", a)))
  expect_true(any(grepl("^w \\* 2 : .*MulBackward1", a)))
  expect_true(any(grepl("^torch_equal TRUE : logical TRUE", a)))
  expect_true(any(grepl("^linalg_qr \\(list\\) : list\\(", a)))
  expect_true(any(grepl("^x < 0.5 : .*torch_Bool", a)))
})

# -- 2. in-process behaviour of direct calls --------------------------------------------------

test_that("errors of direct calls are rtorchpy_error conditions with the translated message", {
  e <- tryCatch(torch_ones(2, 3) + torch_ones(4), error = function(e) e)
  expect_s3_class(e, "rtorchpy_error")
  expect_equal(conditionMessage(e), paste0("The size of tensor a (3) must match the size of ",
                                          "tensor b (4) at non-singleton dimension 1"))
  e <- tryCatch(torch_add(torch_ones(2, 3), torch_ones(4)), error = function(e) e)
  expect_s3_class(e, "rtorchpy_error")
  expect_match(conditionMessage(e), "must match the size of tensor b (4)", fixed = TRUE)
  expect_identical(conditionCall(e), quote(torch_add(torch_ones(2, 3), torch_ones(4))))
  x <- torch_tensor(c(1, 2, 3))
  # Python type names become R's
  expect_error(torch_add(x, "a"), "R type 'character'", class = "rtorchpy_error")
  expect_error(torch_div(x, 2, rounding_mode = "nope"), "found 'nope'", class = "rtorchpy_error")
  expect_error(x$mm(x), class = "rtorchpy_error")
  # the bridge is fine afterwards, and no Python error is left set
  expect_equal(as_array(torch_sin(x * 0)), c(0, 0, 0))
  for (i in 1:3) expect_error(x * torch_ones(2), "non-singleton dimension 0")
  expect_equal(as_array(x + 1), c(2, 3, 4))
})

test_that("Python warnings reach R as warnings through direct calls", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  py_warn <- function(msg) {
    reticulate::py_run_string(sprintf("from rtorchpy.numerics.warn import warn; warn('%s')", msg))
  }
  # (a unique message each time, as the package's warnings are: R shows each as it comes)
  py_warn("direct-binop warning")
  expect_warning(y <- x * 2, "direct-binop warning")
  expect_equal(as_array(y), c(2, 4, 6))
  expect_equal(capture.output(print(y$grad_fn)), "MulBackward1")
  expect_no_warning(x * 2)  # shown once
  py_warn("direct-op warning")
  expect_warning(s <- torch_sin(x), "direct-op warning")
  expect_equal(as_array(s), sin(c(1, 2, 3)), tolerance = 1e-6)
  py_warn("direct-method warning")
  expect_warning(s <- x$exp(), "direct-method warning")
  expect_equal(as_array(s), exp(c(1, 2, 3)), tolerance = 1e-6)
  py_warn("direct-bool warning")
  expect_warning(b <- torch_allclose(x, x), "direct-bool warning")
  expect_true(b)
  # x$grad (made in C): the undefined tensor (with the direct path only: the Python callers
  # show a warning waiting then with a later reply), then a gradient
  if (direct_on()) {
    py_warn("grad-undefined warning")
    expect_warning(g <- x$grad, "grad-undefined warning")
    expect_true(is_undefined_tensor(g))
  }
  (x * 2)$sum()$backward()
  py_warn("grad-defined warning")
  expect_warning(g <- x$grad, "grad-defined warning")
  expect_equal(as_array(g), c(2, 2, 2))
  # a warning waiting when a direct call fails is not lost: it comes with the error, or with
  # the next reply, once
  py_warn("before-an-error warning")
  seen <- character()
  keep_warnings <- function(expr) withCallingHandlers(expr, warning = function(w) {
    seen <<- c(seen, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  keep_warnings(expect_error(x + torch_ones(2), "must match", class = "rtorchpy_error"))
  keep_warnings(expect_equal(as_array(torch_cos(x * 0)), c(1, 1, 1)))
  keep_warnings(torch_cos(x))
  expect_equal(seen, "before-an-error warning")
  # a warning raised during the call itself (nnf_mse_loss warns of different sizes)
  expect_warning(l <- nnf_mse_loss(torch_ones(13), torch_ones(13, 1)),
                 "different to the input size")
  expect_equal(as_array(l), 0)
  expect_no_warning(torch_ones(2) * 2)
})

test_that("x$grad is made in C: undefined before backward, the gradient after", {
  x <- torch_tensor(c(1, 2, 3), requires_grad = TRUE)
  expect_true(is_undefined_tensor(x$grad))
  expect_true(is_undefined_tensor(x[["grad"]]))
  y <- x * x
  expect_true(is_undefined_tensor(y$grad))   # a non-leaf: no gradient kept
  expect_true(is_undefined_tensor(torch_ones(2)$grad))
  y$sum()$backward()
  g <- x$grad
  expect_true(is_torch_tensor(g))
  expect_false(is_undefined_tensor(g))
  expect_equal(as_array(g), c(2, 4, 6))
  expect_false(g$requires_grad)
  # the same gradient through two handles: both stay valid when one is collected
  g2 <- x$grad
  rm(g)
  gc()
  invisible(rtorchpy:::.bridge_counts())
  expect_equal(as_array(g2), c(2, 4, 6))
  expect_equal(as_array(x$grad), c(2, 4, 6))
  x$grad$zero_()
  expect_equal(as_array(x$grad), c(0, 0, 0))
  expect_equal(as_array(g2), c(0, 0, 0))
  x$grad <- NULL
  expect_true(is_undefined_tensor(x$grad))
})

test_that("grad mode is set in C and restored after errors and interrupts", {
  x <- torch_tensor(c(1, 2), requires_grad = TRUE)
  expect_true((x * 2)$requires_grad)
  expect_false(with_no_grad((x * 2)$requires_grad))
  expect_false(with_no_grad(torch_sin(x)$requires_grad))
  expect_null(tryCatch(with_no_grad(stop("boom")), error = function(e) NULL))
  expect_true((x * 2)$requires_grad)
  expect_true(torch_sin(x)$requires_grad)
  expect_null(tryCatch(with_no_grad(x + torch_ones(3)), error = function(e) NULL))
  expect_true((x * 2)$requires_grad)
  expect_equal(tryCatch(with_no_grad(rlang::interrupt()), interrupt = function(e) "int"), "int")
  expect_true((x * 2)$requires_grad)
  # nested modes
  with_no_grad({
    expect_false((x * 2)$requires_grad)
    with_enable_grad(expect_true((x * 2)$requires_grad))
    expect_false((x * 2)$requires_grad)
  })
  expect_true((x * 2)$requires_grad)
  f <- function() {
    local_no_grad()
    expect_false((x * 2)$requires_grad)
    expect_false(x$sin()$requires_grad)
    stop("inside local_no_grad")
  }
  expect_error(f(), "inside local_no_grad")
  expect_true((x * 2)$requires_grad)
  g <- function() {
    local_no_grad()
    (x + 1)$requires_grad
  }
  expect_false(g())
  expect_true((x + 1)$requires_grad)
  if (direct_on()) {
    # read in C (NA: leave it), and what C sets is what Python sees
    expect_true(.Call(rtorchpy:::rtp_grad_mode, NA))
    expect_true(.Call(rtorchpy:::rtp_grad_mode, FALSE))
    expect_false(reticulate::import("rtorchpy.autograd.grad_mode")$STATE$grad_enabled)
    expect_false((x * 2)$requires_grad)
    expect_false(.Call(rtorchpy:::rtp_grad_mode, TRUE))
    expect_true((x * 2)$requires_grad)
  }
})

test_that("methods made in C by `$` work, and keep their tensor", {
  x <- torch_tensor(c(0.5, 1, 2))
  expect_equal(as_array(x$sin()), as_array(torch_sin(x)))
  expect_equal(as_array(x$exp()), as_array(torch_exp(x)))
  expect_equal(as_array(x[["sin"]]()), as_array(torch_sin(x)))
  expect_true(is.function(x$sin))
  expect_true(is.function(x$item))
  expect_error(x$no_such_method_or_field, "is not a method or field of class 'torch_tensor'")
  expect_equal(x$numel(), 3L)
  expect_equal(torch_ones(2, 3)$size(1), 2L)
  expect_equal(torch_ones(2, 3)$size(), c(2L, 3L))
  expect_equal(torch_tensor(2.5)$item(), 2.5)
  expect_equal(as_array(x$add(1, alpha = 2)), c(2.5, 3, 4))
  expect_equal(as_array(x$mul(x)), c(0.25, 1, 4))
  # two tensors' methods do not mix; a method taken before its tensor is dropped still works
  y <- torch_tensor(c(10, 20, 30))
  fx <- x$mul
  fy <- y$mul
  expect_equal(as_array(fx(2)), c(1, 2, 4))
  expect_equal(as_array(fy(2)), c(20, 40, 60))
  m <- local({
    z <- torch_tensor(c(3, 4))
    z$add
  })
  gc()
  invisible(rtorchpy:::.bridge_counts())
  expect_equal(as_array(m(1)), c(4, 5))
  # backward through `$`
  w <- torch_tensor(c(1, 2), requires_grad = TRUE)
  loss <- (w * w)$sum()
  expect_null(loss$backward())
  expect_equal(as_array(w$grad), c(2, 4))
  w2 <- torch_tensor(c(1, 2), requires_grad = TRUE)
  (w2 * 3)$backward(gradient = torch_ones(2))
  expect_equal(as_array(w2$grad), c(3, 3))
  # a method whose first formal is not `self` (the prototype then calls it with self)
  methods <- rtorchpy:::.methods
  protos <- rtorchpy:::.protos
  assign("zz_direct_test", function(input, k = 2) torch_sin(input) * k, envir = methods)
  withr::defer({
    rm("zz_direct_test", envir = methods)
    if (exists("zz_direct_test", envir = protos, inherits = FALSE)) {
      rm("zz_direct_test", envir = protos)
    }
  })
  expect_equal(as_array(x$zz_direct_test()), as_array(torch_sin(x) * 2))
  expect_equal(as_array(y$zz_direct_test(k = 3)), as_array(torch_sin(y) * 3))
  expect_equal(as_array(x$zz_direct_test(1)), as_array(torch_sin(x)))
})

# -- 3. no leaks --------------------------------------------------------------------------------

# Live registry entries and Python tensors after collecting garbage in both languages.
live <- function() unlist(rtorchpy:::.bridge_counts())[1:2]

# The bytes held by the tensors R holds, and the threshold past which R is asked to collect
# (Python keeps both: every tensor crossing to R is registered by its handles._put).
py_held <- function() {
  s <- reticulate::import("rtorchpy._r")$stats()
  c(s$held_bytes, s$gc_threshold)
}

# `body(i)` run `n` times (in its own frame, gone afterwards): a leak of one object per
# iteration grows the counts by n; the bytes held by its tensors must come back too.
expect_no_leak_direct <- function(body, n = 2000L) {
  run <- function() for (i in seq_len(n)) body(i)
  run()  # warm-up
  before <- live()
  held_before <- py_held()[1]
  run()
  grown <- live() - before
  held_grown <- py_held()[1] - held_before
  expect_true(all(grown < 50),
              info = paste(c("handles", "tensors"), grown, collapse = ", "))
  expect_lt(abs(held_grown), 50 * 400)  # (each tensor below holds 400 bytes or less)
}

test_that("x$grad gives back the object it gave for the same gradient, and only for it", {
  x <- torch_tensor(c(1, 2), requires_grad = TRUE)
  (x * 2)$sum()$backward()
  g <- x$grad
  if (direct_on()) expect_true(identical(x$grad, g))  # (the same R object: no new handle)
  x$grad$zero_()
  expect_equal(as_array(g), c(0, 0))
  x$grad <- NULL
  (x * 3)$sum()$backward()
  expect_false(identical(x$grad, g))  # a new gradient tensor, a new object
  expect_equal(as_array(x$grad), c(3, 3))
  expect_equal(as_array(g), c(0, 0))
  # more leaves than the remembered slots: each read is its own leaf's gradient
  leaves <- lapply(1:200, function(i) torch_tensor(as.numeric(i), requires_grad = TRUE))
  for (i in seq_along(leaves)) (leaves[[i]] * i)$backward()
  for (round in 1:2) {
    got <- vapply(leaves, function(t) as_array(t$grad), 0)
    expect_equal(got, as.numeric(1:200))
  }
})

test_that("x$grad does not hand out again an object a collection found dead", {
  # R runs finalizers after the collection, when it next can; in between, a remembered
  # gradient object that the caller dropped must not come back, or its finalizer clears it
  # while in use (a training loop then stopped with "external pointer is not valid").
  w <- torch_zeros(3, requires_grad = TRUE)
  (w * 2)$sum()$backward()
  for (k in 1:10) {
    local({ g <- w$grad; NULL })  # remembered, then dropped
    gctorture(TRUE)  # (a collection at each allocation: one finds that object dead)
    g2 <- w$grad
    gctorture(FALSE)
    invisible(gc())  # the pending finalizers run
    g2$zero_()
    expect_equal(as_array(g2), c(0, 0, 0))
  }
})

test_that("x$grad does not hand out an object a collection inside a finalizer found dead", {
  # (Why x$grad cannot simply run the pending finalizers before it looks:) a finalizer that
  # collects garbage (any finalizer that allocates may) finds dead what R's walk over the
  # finalizers has already passed, and those stay pending after it. x$grad must not hand such
  # an object out again (its finalizer then cleared it in use: "NULL value passed as symbol
  # address").
  once <- function() {
    w <- torch_zeros(3, requires_grad = TRUE)
    (w * 2)$sum()$backward()
    # registered before g's weak references, so R's walk (newest first) reaches it after them
    e <- new.env()
    reg.finalizer(e, function(e) invisible(gc()))
    g <- w$grad  # remembered
    rm(e)
    gctorture(TRUE)  # (a collection at each allocation: one finds e dead, not g)
    x <- numeric(1)
    gctorture(FALSE)
    rm(g)  # dropped, unseen by any collection
    g2 <- w$grad  # runs e's finalizer, whose gc() finds g dead behind the walk
    invisible(gc())  # the pending finalizers run
    g2$zero_()
    as_array(g2)
  }
  for (k in 1:5) expect_equal(once(), c(0, 0, 0))
})

test_that("x$grad of a new gradient each step does not leak", {
  x <- torch_randn(100, requires_grad = TRUE)
  expect_no_leak_direct(function(i) {
    x$grad <- NULL
    (x * 2)$sum()$backward()
    g <- x$grad
    h <- x$grad$add(1)
  }, n = 1000L)
})

test_that("direct ops, operators and x$grad in a loop do not leak", {
  x <- torch_randn(100, requires_grad = TRUE)
  (x * 2)$sum()$backward()  # x$grad is then a tensor (a new handle on each read)
  v <- torch_randn(100)
  expect_no_leak_direct(function(i) {
    y <- x * 2 + 1
    z <- torch_sin(y)
    g <- x$grad
    u <- (v / 3 - 1L) ^ 2
    b <- v < 0.5
    w <- torch_add(v, z, alpha = 2)
  })
  # x$grad that is undefined, and methods made by `$`
  x2 <- torch_randn(100, requires_grad = TRUE)
  expect_no_leak_direct(function(i) {
    g <- x2$grad
    s <- v$exp()
    n <- v$numel()
    m <- torch_mul(v, i)
  })
})

test_that("with_no_grad loops and backward chains do not leak", {
  x <- torch_randn(100, requires_grad = TRUE)
  expect_no_leak_direct(function(i) {
    with_no_grad({
      y <- x * 2
      z <- torch_tanh(y) - 1
    })
  })
  expect_no_leak_direct(function(i) {
    w <- torch_randn(100, requires_grad = TRUE)
    loss <- (torch_sin(w * 2 + 1) * w / 3)$sum()
    loss$backward()
    g <- w$grad
  }, n = 1000L)
})

test_that("an op that returns its first argument gives back the same R object", {
  skip_if(!direct_on(), "the direct path is off (RTORCHPY_DIRECT is set)")
  w <- torch_zeros(3, requires_grad = TRUE)
  g <- torch_tensor(c(1, 2, 3))
  with_no_grad({
    r <- w$sub_(g * 0.5)
    expect_identical(r, w)
    expect_identical(w$zero_(), w)
  })
  expect_equal(as_array(w), c(0, 0, 0))
  expect_true(w$requires_grad)
  expect_identical(g$contiguous(), g)
  expect_false(identical(g$add(0), g))  # a new tensor: its own object
  # sub_ on a leaf that requires grad, outside no-grad: the error, w untouched
  expect_error(w$sub_(g), "leaf Variable that requires grad")
  expect_equal(as_array(w), c(0, 0, 0))
  # and in a loop: no handle is registered for the returned self
  p <- torch_randn(100)
  q <- torch_randn(100)
  expect_no_leak_direct(function(i) {
    p$add_(q)
    p$mul_(0.5)$zero_()
  })
})

test_that("direct calls with errors, lists and non-tensor results do not leak", {
  v <- torch_randn(10)
  a <- torch_tensor(matrix(c(2, 1, 1, 3), 2, 2))
  big <- torch_ones(4)
  expect_no_leak_direct(function(i) {
    e <- tryCatch(v + big, error = function(e) NULL)
    e2 <- tryCatch(torch_add(v, "a"), error = function(e) NULL)
    ok <- torch_allclose(v, v)
    qr <- linalg_qr(a)
    r <- v * 0.5
    vec <- v * seq_len(10)    # a vector: the Python callers
    l <- 2 * v                # a number on the left: the Python callers
  }, n = 1000L)  # (reticulate calls among these: fewer iterations, still far above 50)
})

test_that("the bytes held by tensors made by direct calls are released", {
  skip_if_not_direct()
  x <- torch_randn(1000)  # 4000 bytes
  held <- function() py_held()[1]
  invisible(rtorchpy:::.bridge_counts())
  start <- held()
  keep <- x * 2
  expect_equal(held() - start, 4000)
  local({
    for (i in 1:2000) {
      y <- x * 2
      z <- torch_exp(y)
      g <- x$sin()
    }
  })
  expect_gt(held() - start, 4000)  # not yet collected
  invisible(rtorchpy:::.bridge_counts())
  expect_equal(held() - start, 4000)  # only `keep` is left
  rm(keep)
  invisible(rtorchpy:::.bridge_counts())
  expect_equal(held() - start, 0)
})

# -- 4. R collects garbage when tensors registered in C hold much memory -----------------------

vm_rss_mb <- function() {
  status <- readLines("/proc/self/status")
  kb <- as.numeric(gsub("[^0-9]", "", grep("^VmRSS:", status, value = TRUE)))
  kb / 1024
}

test_that("big tensors made by direct calls are collected (the GC flag)", {
  skip_if_not_direct()
  skip_if_not(file.exists("/proc/self/status"))
  big <- torch_ones(3000, 3000)  # 36 MB (float32)
  invisible(rtorchpy:::.bridge_counts())
  threshold <- py_held()[2]
  held0 <- py_held()[1]
  rss0 <- vm_rss_mb()
  max_held <- 0
  max_rss <- 0
  for (i in 1:40) {  # 1.44 GB made in all
    big2 <- if (i %% 2) big * 2 else torch_exp(big)
    max_held <- max(max_held, py_held()[1] - held0)
    max_rss <- max(max_rss, vm_rss_mb() - rss0)
  }
  expect_equal(as_array(big2[1, 1]), exp(1), tolerance = 1e-6)
  # (a young collection leaves the tensors an earlier one saw alive, up to 64 MiB before a full
  # one: a few of these 36 MB tensors on top of the threshold, 16 MiB at least)
  expect_lt(max_held, 2 * threshold + 128 * 2^20)
  expect_lt(max_rss, 700)
  expect_lt(vm_rss_mb() - rss0, 700)
  rm(big2)
  invisible(rtorchpy:::.bridge_counts())
  expect_lt(py_held()[1] - held0, 1e6)
})
