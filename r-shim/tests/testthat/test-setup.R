# Finding Python; the error when it is missing; configuration.
skip_if_no_python()

test_that("rtorchpy_config reports Python, NumPy and rtorchpy", {
  cfg <- rtorchpy_config()
  expect_s3_class(cfg, "rtorchpy_config")
  expect_true(file.exists(cfg$python))
  expect_match(cfg$numpy_version, "^[0-9]+\\.")
  expect_match(cfg$rtorchpy_version, "^[0-9]+\\.")
  expect_output(print(cfg), "numpy:")
  expect_true(rtorchpy_available())
})

test_that("without the Python package, the first call gives one clear error", {
  rscript <- file.path(R.home("bin"), "Rscript")
  candidates <- unique(c("/usr/bin/python3", unname(Sys.which("python3"))))
  candidates <- candidates[nzchar(candidates) & file.exists(candidates)]
  lacks <- vapply(candidates, function(py) {
    system2(py, c("-c", shQuote("import rtorchpy")), stdout = FALSE, stderr = FALSE) != 0
  }, TRUE)
  skip_if(!any(lacks), "every python3 found has rtorchpy")
  python <- candidates[lacks][[1]]
  code <- paste0("library(rtorchpy); ",
                 "r <- tryCatch(torch_ones(2), error = function(e) conditionMessage(e)); ",
                 "cat(r, '\\n'); ",
                 "r2 <- tryCatch(torch_ones(2), error = function(e) conditionMessage(e)); ",
                 "cat(identical(r, r2), '\\n')")
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- withr::with_envvar(
    c(RETICULATE_PYTHON = unname(python), R_LIBS = lib, LD_LIBRARY_PATH = NA),
    system2(rscript, c("-e", shQuote(code)), stdout = TRUE, stderr = TRUE)
  )
  out <- paste(out, collapse = "\n")
  expect_match(out, "The Python package 'rtorchpy' could not be loaded|could not be loaded")
  expect_match(out, "install_rtorchpy()", fixed = TRUE)
  expect_match(out, "RETICULATE_PYTHON", fixed = TRUE)
  expect_match(out, "TRUE")  # the same error on later calls
})

test_that("install_rtorchpy and the loader are exported", {
  expect_true(is.function(install_rtorchpy))
  expect_equal(names(formals(install_rtorchpy))[1:2], c("envname", "package"))
})

test_that("the handle registry releases what R collects", {
  stats <- function() reticulate::import("rtorchpy._rbridge")$stats()
  x <- torch_randn(10)
  for (i in 1:3000) y <- x * 2
  rm(y)
  gc()
  invisible(x * 2)  # a release happens on the next handle after the garbage collection
  for (i in 1:1100) invisible(x + 1)
  gc()
  for (i in 1:1100) invisible(x + 1)
  expect_lt(stats()$handles, 2500)
})
