# Printing: byte-identical to R torch (libtorch 2.8.0), from the golden transcripts.
skip_if_no_python()

golden_path <- function() {
  p <- Sys.getenv("RTORCHPY_GOLDEN")  # another copy of the transcripts, when the runner names one
  if (nzchar(p) && file.exists(p)) return(p)
  test_path("fixtures", "r-torch-print-golden.txt")
}

# Blocks: a line "> <R code>" then the exact output, up to the next "> " line.
parse_golden <- function(path) {
  lines <- readLines(path, encoding = "UTF-8", warn = FALSE)
  lines <- lines[!(seq_along(lines) < match(TRUE, startsWith(lines, "> ")))]
  starts <- which(startsWith(lines, "> "))
  ends <- c(starts[-1] - 1L, length(lines))
  lapply(seq_along(starts), function(i) {
    out <- lines[seq.int(starts[i] + 1L, length.out = ends[i] - starts[i])]
    while (length(out) && out[length(out)] == "") out <- out[-length(out)]
    list(code = substring(lines[starts[i]], 3L), output = out)
  })
}

# Evaluate like the R console: each top-level expression, printing the visible values.
console <- function(code, env) {
  capture.output({
    for (e in parse(text = code, keep.source = FALSE)) {
      res <- withVisible(eval(e, env))
      if (res$visible) print(res$value)
    }
  })
}

test_that("the golden transcripts print byte-identically", {
  blocks <- parse_golden(golden_path())
  expect_equal(length(blocks), 53L)
  env <- new.env(parent = globalenv())
  for (b in blocks) {
    expect_identical(console(b$code, env), b$output, label = b$code)
  }
})

test_that("undefined tensors, nodes, hooks, dtypes and devices print as in R torch", {
  x <- torch_tensor(1, requires_grad = TRUE)
  expect_identical(capture.output(print(x$grad)), c("torch_tensor", "[ Tensor (undefined) ]"))
  expect_true(is_undefined_tensor(x$grad))
  expect_false(is.null(x$grad))
  y <- (x + 2) * 3
  expect_identical(capture.output(y$grad_fn), "MulBackward1")
  expect_identical(capture.output(print(y$grad_fn$next_functions)),
                   c("[[1]]", "AddBackward1", ""))
  expect_identical(capture.output(y$grad_fn$next_functions[[1]]$next_functions),
                   c("[[1]]", "torch::autograd::AccumulateGrad", ""))
  z <- 2 * x
  nf <- z$grad_fn$next_functions
  expect_length(nf, 2)
  expect_identical(capture.output(print(nf)),
                   c("[[1]]", "NULL", "", "[[2]]", "torch::autograd::AccumulateGrad", ""))
  h <- x$register_hook(function(g) NULL)
  expect_identical(capture.output(h), "<torch_hook>")
  expect_identical(capture.output(torch_float32()), "torch_Float")
  expect_identical(capture.output(x$dtype), "torch_Float")
  expect_identical(capture.output(torch_tensor(1:2)$dtype), "torch_Long")
  expect_identical(capture.output(x$device), "torch_device(type='cpu') ")
  expect_identical(capture.output(slc(1, 2)), "<slice>")
})

test_that("the vignette chain of grad_fn nodes", {
  x1 <- torch_ones(2, 2, requires_grad = TRUE)
  x2 <- torch_tensor(1.1, requires_grad = TRUE)
  y <- x1 * (x2 + 2)
  z <- y$pow(2) * 3
  out <- z$mean()
  fn <- out$grad_fn
  expect_output(print(fn), "^MeanBackward0$")
  fn <- fn$next_functions[[1]]
  expect_output(print(fn), "^MulBackward1$")
  fn <- fn$next_functions[[1]]
  expect_output(print(fn), "^PowBackward0$")
  fn <- fn$next_functions[[1]]
  expect_output(print(fn), "^MulBackward0$")
  nf <- fn$next_functions
  expect_identical(capture.output(print(nf)), c("[[1]]", "torch::autograd::AccumulateGrad", "",
                                                "[[2]]", "AddBackward1", ""))
  expect_identical(capture.output(print(nf[[2]]$next_functions)),
                   c("[[1]]", "torch::autograd::AccumulateGrad", ""))
  y$retain_grad()
  z$retain_grad()
  out$backward()
  expect_equal_to_r(z$grad, matrix(0.25, 2, 2))
  expect_equal_to_r(y$grad, matrix(4.65, 2, 2), tolerance = 1e-6)
  expect_equal_to_r(x2$grad, 18.6, tolerance = 1e-6)
  expect_equal_to_r(x1$grad, matrix(14.415, 2, 2), tolerance = 1e-6)
  expect_identical(capture.output(out),
                   c("torch_tensor", "28.829998016357422",
                     "[ CPUFloatType{} ][ grad_fn = <MeanBackward0> ]"))
})

test_that("print(n =), $print() and truncation", {
  x <- torch_arange(0, 99)
  out <- capture.output(print(x))
  expect_length(out, 1 + 30 + 1 + 1)
  expect_identical(out[32], "... [the output was truncated (use n=-1 to disable)]")
  expect_identical(out[33], "[ CPUFloatType{100} ]")
  expect_identical(capture.output(print(x, n = 50))[51], " 49")
  expect_length(capture.output(print(x, n = -1)), 102)
  expect_identical(capture.output(x$print(n = 3)), capture.output(print(x, n = 3)))
  expect_length(capture.output(print(torch_arange(0, 24))), 27)
  capture.output(v <- withVisible(print(x, n = 2)))
  expect_false(v$visible)
})
