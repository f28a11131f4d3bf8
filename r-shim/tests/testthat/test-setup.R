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

test_that("the Python code comes from the copy bundled with the R package", {
  cfg <- rtorchpy_config()
  # installed as one archive, unpacked on first use (R/python-cache.R)
  expect_equal(list.files(system.file("python", package = "rtorchpy")), "rtorchpy.tar.xz")
  bundled <- file.path(rtorchpy:::.bundled_python_dir(), "rtorchpy")
  expect_true(file.exists(file.path(bundled, "__init__.py")))
  expect_true(cfg$rtorchpy_bundled)
  expect_equal(normalizePath(dirname(cfg$rtorchpy_path)), normalizePath(bundled))
  # its version is the R package's (R's .9000 is Python's .dev0)
  expect_equal(cfg$rtorchpy_version,
               sub("\\.9000$", ".dev0", as.character(packageVersion("rtorchpy"))))
  expect_output(print(cfg), "bundled with the R package")
})

test_that("a Python without NumPy gives one clear error naming NumPy and the fix", {
  rscript <- file.path(R.home("bin"), "Rscript")
  candidates <- unique(c("/usr/bin/python3", unname(Sys.which("python3"))))
  candidates <- candidates[nzchar(candidates) & file.exists(candidates)]
  lacks <- vapply(candidates, function(py) {
    system2(py, c("-c", shQuote("import numpy")), stdout = FALSE, stderr = FALSE) != 0
  }, TRUE)
  skip_if(!any(lacks), "every python3 found has NumPy")
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
  expect_match(out, paste0("Python ", python, " has no NumPy"), fixed = TRUE)
  expect_match(out, "rtorchpy::install_rtorchpy()", fixed = TRUE)
  expect_match(out, "TRUE")  # the same error on later calls
})

test_that("a RETICULATE_PYTHON that does not exist is named in the error", {
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- paste0("library(rtorchpy); ",
                 "cat(tryCatch(torch_ones(2), error = function(e) conditionMessage(e)))")
  lib <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- withr::with_envvar(
    c(RETICULATE_PYTHON = "/nonexistent/python", R_LIBS = lib, LD_LIBRARY_PATH = NA),
    system2(rscript, c("-e", shQuote(code)), stdout = TRUE, stderr = TRUE)
  )
  out <- paste(out, collapse = "\n")
  expect_match(out, "RETICULATE_PYTHON is set to '/nonexistent/python', which does not exist",
               fixed = TRUE)
  expect_match(out, "install_rtorchpy()", fixed = TRUE)
})

test_that("install_rtorchpy makes a NumPy environment; the loader is exported", {
  expect_true(is.function(install_rtorchpy))
  expect_equal(names(formals(install_rtorchpy)), c("envname", "python", "..."))
})

test_that("the handle registry releases what R collects", {
  stats <- function() reticulate::import("rtorchpy._r")$stats()
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
