#' rtorchpy: R torch's autograd on NumPy, through reticulate
#'
#' R code written for the autograd of the `torch` package runs on the `rtorchpy` Python
#' package after changing only its `library()` call: tensors ([torch_tensor()]), operators,
#' `$` methods, 1-based dims and `[` indexing, automatic differentiation (`$backward()`,
#' [autograd_grad()], hooks), custom functions ([autograd_function()]) and printing.
#'
#' The package carries the Python code it runs (the `rtorchpy` Python package, as one archive
#' in the installed package's `python/` directory, unpacked on the first start into a directory
#' of `tools::R_user_dir("rtorchpy", "cache")` per build, where Python keeps its compiled
#' bytecode; copies of other builds unused for an hour are removed, and during `R CMD check` the
#' copy goes under `tempdir()`); it needs only a Python (>= 3.9) with NumPy. Python
#' is found the way reticulate packages find it: `RETICULATE_PYTHON`, or the virtualenv made by
#' [install_rtorchpy()], or reticulate's defaults. Python is started on the first call that needs
#' it. [rtorchpy_config()] tells which Python, NumPy and rtorchpy are used.
#'
#' @keywords internal
#' @importFrom R6 R6Class
#' @importFrom parallel makeForkCluster
#' @importFrom rlang list2
#' @useDynLib rtorchpy, .registration = TRUE
#' @family package and backends
"_PACKAGE"

.onLoad <- function(libname, pkgname) {
  # nothing starts Python here: .ensure_python() does on the first call that needs it
  .rt$ops <- new.env(parent = emptyenv())
  .rt$fns <- new.env(parent = emptyenv())
  .rt$bfns <- new.env(parent = emptyenv())
  .rt$rvalues <- new.env(parent = emptyenv())
  .rt$rvalue_key <- 0L  # (.stash_rvalue: the highest key made, and the keys free again)
  .rt$free_keys <- integer(0)
  .rt$n_free <- 0L
  .rt$stashed <- 0L  # (values kept since R last asked Python which it dropped)
  .build_method_table()
}

# Start Python and the bridge module on first use; one clear error when that is impossible.
.ensure_python <- function() {
  if (isTRUE(.rt$ready)) return(invisible(TRUE))
  if (!is.null(.rt$init_error)) .runtime_error(.rt$init_error)
  bridge <- tryCatch(.start_python(), error = function(e) e)
  if (inherits(bridge, "error")) {
    # Python starts once per R session, so the same message is the answer to every later call
    .rt$init_error <- paste0("rtorchpy: ", conditionMessage(bridge))
    .runtime_error(.rt$init_error)
  }
  .rt$bridge <- bridge
  .rt$impl <- .reticulate_call()
  .rt$p2r <- .reticulate_to_r()
  .rt$bridge_release <- reticulate::py_get_attr(bridge, "release")
  .rt$bridge_collected <- reticulate::py_get_attr(bridge, "collected")
  .rt$take_stash <- reticulate::py_get_attr(bridge, "take_stash")
  .rt$take_warnings <- reticulate::py_get_attr(bridge, "take_warnings")
  .rt$call_kw <- reticulate::py_get_attr(bridge, "call_kw")
  # the package's own warnings become R warnings; every Python warning, and Python's collector
  # tuned for R's pace, only when asked for: both change a Python other packages may share
  reticulate::py_call(reticulate::py_get_attr(bridge, "collect_warnings"), TRUE,
                      identical(getOption("rtorchpy.python_warnings"), "all"))
  if (isTRUE(getOption("rtorchpy.tune_python_gc"))) {
    reticulate::py_call(reticulate::py_get_attr(bridge, "tune_gc"))
  }
  # Two ways across: C (the default), or reticulate for every call when RTORCHPY_DIRECT=0
  # (the C bridge stays uninitialised), or when C can't start (Windows, an unusual Python)
  level <- Sys.getenv("RTORCHPY_DIRECT")
  .rt$direct <- !identical(level, "0") && isTRUE(tryCatch(
    .Call(rtp_pyinit, as.character(reticulate::py_config()$libpython), "rtorchpy._r"),
    error = function(e) FALSE))
  .rt$binary <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "binary_callers")))
  .rt$unary <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "unary_callers")))
  callers <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "op_callers")))
  for (nm in names(callers)) assign(nm, callers[[nm]], envir = .rt$ops)
  # the callables the C entry points find by name (see src/names.c)
  if (.rt$direct) .rt$direct <- isTRUE(.Call(rtp_setup, .TENSOR_CLASS))
  .rt$py_methods <- reticulate::py_to_r(reticulate::py_call(
    reticulate::py_get_attr(bridge, "method_names")))
  .rt$ready <- TRUE
  invisible(TRUE)
}

.ENV_NAME <- "r-rtorchpy"
.FIX_ENV <- paste0("run rtorchpy::install_rtorchpy() once (a virtualenv '", .ENV_NAME,
                   "' with NumPy from PyPI), then restart R")

# Find and start Python, check it has what rtorchpy needs, import the bundled rtorchpy and
# return its R bridge module. Every failure says what is missing and the command that fixes it.
.start_python <- function() {
  forced <- Sys.getenv("RETICULATE_PYTHON")
  if (nzchar(forced) && !file.exists(forced)) {
    .runtime_error("RETICULATE_PYTHON is set to '", forced, "', which does not exist.\nFix: point ",
                   "RETICULATE_PYTHON at a Python (>= 3.9) that has NumPy, or unset it and ", .FIX_ENV,
                   ".")
  }
  # the environment install_rtorchpy() made, unless the user chose a Python
  if (!nzchar(forced) && !reticulate::py_available() &&
      isTRUE(tryCatch(reticulate::virtualenv_exists(.ENV_NAME), error = function(e) FALSE))) {
    try(reticulate::use_virtualenv(.ENV_NAME, required = FALSE), silent = TRUE)
  }
  started <- tryCatch(reticulate::py_available(initialize = TRUE), error = function(e) e)
  if (!isTRUE(started)) {
    .runtime_error("no Python was found (rtorchpy needs Python >= 3.9 with NumPy",
                   if (inherits(started, "error")) paste0("; ", conditionMessage(started)), ").\n",
                   "Fix: install Python 3.9 or later (reticulate::install_python() does), then ",
                   .FIX_ENV, ".")
  }
  cfg <- reticulate::py_config()
  if (utils::compareVersion(as.character(cfg$version), "3.9") < 0) {
    .runtime_error("Python ", cfg$version, " (", cfg$python, ") is too old: rtorchpy needs Python >= 3.9.",
                   "\nFix: rtorchpy::install_rtorchpy(python = \"<a Python >= 3.9>\"), then restart R.")
  }
  if (!reticulate::py_module_available("numpy")) {
    .runtime_error("Python ", cfg$python, " has no NumPy.\nFix: ", .FIX_ENV, " (or install NumPy ",
                   "into that Python: ", cfg$python, " -m pip install numpy).")
  }
  .import_rtorchpy()
  reticulate::import("rtorchpy._r", convert = FALSE)
}

# The Python package's version this R package goes with (R's x.y.z.9000 is Python's x.y.z.dev0,
# as r-shim/tools/bundle_python.py, which makes the copy, requires).
.python_version_wanted <- function() {
  sub("\\.9000$", ".dev0", as.character(utils::packageVersion("rtorchpy")))
}

# (.bundled_python_dir(), the directory holding the bundled Python package: R/python-cache.R)

# Import the Python package rtorchpy: the copy bundled with this R package, placed first on
# Python's path while it is imported so an installed rtorchpy of another version is never picked. A build without the
# bundled copy accepts an installed rtorchpy only of this package's version.
.import_rtorchpy <- function() {
  bundled <- .bundled_python_dir()
  wanted <- .python_version_wanted()
  imported <- reticulate::py_eval(
    "getattr(__import__('sys').modules.get('rtorchpy'), '__file__', None) or ''")
  if (nzchar(bundled)) {
    if (nzchar(imported) &&
        normalizePath(dirname(dirname(imported)), mustWork = FALSE) !=
          normalizePath(bundled, mustWork = FALSE)) {
      .runtime_error("this Python session already imported another rtorchpy (", imported, "), not the ",
                     "copy this R package carries (", bundled, ").\nFix: restart R and load ",
                     "library(rtorchpy) before importing rtorchpy from Python.")
    }
    sys <- reticulate::import("sys", convert = FALSE)
    if (!bundled %in% unlist(reticulate::py_to_r(sys$path))) {
      # on the path for this import only: the package's later imports of its own submodules go
      # through its __path__, and the embedding Python keeps the sys.path it had (issue 28)
      sys$path$insert(0L, bundled)
      on.exit(.drop_from_path(sys, bundled), add = TRUE)
    }
  }
  mod <- tryCatch(reticulate::import("rtorchpy", convert = TRUE), error = function(e) e)
  if (inherits(mod, "error")) {
    .runtime_error("the Python package rtorchpy could not be imported: this build of the R package does ",
                   "not carry it (", conditionMessage(mod), ").\nFix: reinstall the R package from a ",
                   "tarball made by `make r-tarball` in the repository (or `make r`).")
  }
  have <- as.character(mod$`__version__`)
  if (!identical(have, wanted)) {
    .runtime_error("the Python package rtorchpy ", have, " (", mod$`__file__`, ") does not match this R ",
                   "package (it needs ", wanted, ").\nFix: reinstall the R package from a tarball made by ",
                   "`make r-tarball`, which carries the matching Python package.")
  }
  invisible(mod)
}

# Remove the first `dir` from Python's sys.path (the entry .import_rtorchpy put there), if it is
# still there.
.drop_from_path <- function(sys, dir) {
  if (dir %in% unlist(reticulate::py_to_r(sys$path))) sys$path$remove(dir)
  invisible(NULL)
}

# A Python dict of callables as a named R list of Python objects.
.py_dict <- function(d) {
  keys <- unlist(reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$list(d)))
  stats::setNames(lapply(keys, function(k) reticulate::py_get_item(d, k)), keys)
}

# How R calls a Python callable when C does not: reticulate's exported py_call() (its internal
# entry points are faster by ~70 us a call, but are not reticulate's API). Keyword arguments
# go through the bridge's call_kw(f, args, kwargs), so that none can clash with py_call's own
# argument `x`.
.reticulate_call <- function() {
  function(x, args, keywords) {
    if (length(keywords)) {
      return(reticulate::py_call(.rt$call_kw, x, unname(args), keywords))
    }
    do.call(reticulate::py_call, c(list(x), unname(args)))
  }
}

.reticulate_to_r <- function() reticulate::py_to_r

#' Is the Python side of rtorchpy usable?
#'
#' `TRUE` when Python and the `rtorchpy` Python package can be loaded (this starts Python).
#' Useful in examples and tests: `if (rtorchpy_available()) ...`.
#' @return `TRUE` or `FALSE`.
#' @export
#' @family package and backends
#' @examples
#' if (rtorchpy_available()) {
#'   rtorchpy_available()
#' }
rtorchpy_available <- function() {
  isTRUE(tryCatch(.ensure_python(), error = function(e) FALSE))
}

#' Which Python, NumPy and rtorchpy this package uses
#'
#' @return A list (class `rtorchpy_config`) with the Python executable and version, and the
#'   NumPy and rtorchpy versions and locations; printed readably.
#' @examples
#' if (rtorchpy_available()) rtorchpy_config()
#' @export
#' @family package and backends
rtorchpy_config <- function() {
  .ensure_python()
  cfg <- reticulate::py_config()
  np <- reticulate::import("numpy", convert = TRUE)
  rt <- reticulate::import("rtorchpy", convert = TRUE)
  sys <- reticulate::import("sys", convert = TRUE)
  structure(list(
    python = cfg$python,
    python_version = sys$version,
    numpy_version = np$`__version__`,
    numpy_path = np$`__file__`,
    rtorchpy_version = rt$`__version__`,
    rtorchpy_path = rt$`__file__`,
    rtorchpy_bundled = nzchar(.bundled_python_dir()) &&
      startsWith(normalizePath(rt$`__file__`), normalizePath(.bundled_python_dir())),
    reticulate_version = as.character(utils::packageVersion("reticulate")),
    direct_calls = isTRUE(.rt$direct),
    forced_by = Sys.getenv("RETICULATE_PYTHON", unset = NA_character_)
  ), class = "rtorchpy_config")
}

#' @export
print.rtorchpy_config <- function(x, ...) {
  cat("python:          ", x$python, "\n", sep = "")
  cat("python version:  ", strsplit(x$python_version, " ")[[1]][1], "\n", sep = "")
  cat("numpy:           ", x$numpy_version, " (", dirname(x$numpy_path), ")\n", sep = "")
  cat("rtorchpy (py):   ", x$rtorchpy_version, " (", dirname(x$rtorchpy_path),
      if (isTRUE(x$rtorchpy_bundled)) ", bundled with the R package", ")\n", sep = "")
  cat("rtorchpy (R):    ", as.character(utils::packageVersion("rtorchpy")), "\n", sep = "")
  cat("reticulate:      ", x$reticulate_version, "\n", sep = "")
  cat("calls:           ", if (isTRUE(x$direct_calls)) "direct (C bridge to libpython)" else
    "through reticulate", "\n", sep = "")
  if (!is.na(x$forced_by)) cat("NOTE: Python chosen by RETICULATE_PYTHON\n")
  invisible(x)
}

#' Create a Python environment for rtorchpy
#'
#' Creates (or updates) a Python virtual environment with NumPy from PyPI, with reticulate. The
#' R package carries its own Python code, so NumPy is all the environment needs. Restart R
#' afterwards: rtorchpy then uses this environment when `RETICULATE_PYTHON` is unset (or point
#' `RETICULATE_PYTHON` at the environment's python). Needs network access to PyPI; offline, use
#' any Python 3.9+ that has NumPy through `RETICULATE_PYTHON` instead.
#'
#' @param envname Name of (or path to) the virtual environment.
#' @param python Python (>= 3.9) used to create the environment (default: reticulate's choice).
#' @param ... Passed to [reticulate::py_install()].
#' @return The environment's Python executable, invisibly.
#' @examples
#' \dontrun{
#' install_rtorchpy()
#' install_rtorchpy(python = "/usr/bin/python3.11")
#' }
#' @export
#' @family package and backends
install_rtorchpy <- function(envname = "r-rtorchpy", python = NULL, ...) {
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python, packages = NULL)
  }
  reticulate::py_install("numpy", envname = envname, method = "virtualenv", ...)
  py <- reticulate::virtualenv_python(envname)
  message("Installed NumPy into ", envname, " (", py, "). Restart R to use it",
          " (or set RETICULATE_PYTHON=", py, ").")
  invisible(py)
}

#' The pipe operator, re-exported from magrittr as R torch does
#'
#' See [magrittr::%>%] for details.
#' @name %>%
#' @rdname pipe
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   torch_tensor(c(1, 4, 9)) %>% torch_sqrt()
#' }
#' @keywords internal
#' @importFrom magrittr %>%
#' @usage lhs \%>\% rhs
#' @param lhs A value.
#' @param rhs A function call using the magrittr semantics.
#' @return The result of calling `rhs(lhs)`.
#' @export
NULL
