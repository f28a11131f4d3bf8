#' rtorchpy: R torch's autograd on NumPy, through reticulate
#'
#' R code written for the autograd of the `torch` package runs on the `rtorchpy` Python
#' package after changing only its `library()` call: tensors ([torch_tensor()]), operators,
#' `$` methods, 1-based dims and `[` indexing, automatic differentiation (`$backward()`,
#' [autograd_grad()], hooks), custom functions ([autograd_function()]) and printing.
#'
#' Python is found the way reticulate packages find it: `RETICULATE_PYTHON`, or the
#' virtualenv made by [install_rtorchpy()], or reticulate's defaults. Python is started on the
#' first call that needs it. [rtorchpy_config()] tells which Python, NumPy and rtorchpy are used.
#'
#' @keywords internal
#' @importFrom R6 R6Class
#' @useDynLib rtorchpy, .registration = TRUE
"_PACKAGE"

.onLoad <- function(libname, pkgname) {
  # the Python module, delay-loaded as reticulate packages do (nothing starts Python here)
  .rt$module <- reticulate::import("rtorchpy", delay_load = TRUE, convert = FALSE)
  .rt$ops <- new.env(parent = emptyenv())
  .rt$fns <- new.env(parent = emptyenv())
  .rt$bfns <- new.env(parent = emptyenv())
  .rt$rvalues <- new.env(parent = emptyenv())
  .build_method_table()
}

.install_hint <- paste0(
  "Install it with rtorchpy::install_rtorchpy() (then restart R), or point RETICULATE_PYTHON ",
  "at a Python that has it (for this repository: RETICULATE_PYTHON=<repo>/.venv/bin/python, ",
  "after `make venv`).")

# Start Python and the bridge module on first use; one clear error when that is impossible.
.ensure_python <- function() {
  if (isTRUE(.rt$ready)) return(invisible(TRUE))
  if (!is.null(.rt$init_error)) stop(.rt$init_error, call. = FALSE)
  ok <- tryCatch({
    if (!reticulate::py_available(initialize = TRUE)) stop("no Python was found")
    bridge <- reticulate::import("rtorchpy._rbridge", convert = FALSE)
    TRUE
  }, error = function(e) e)
  if (!isTRUE(ok)) {
    forced <- Sys.getenv("RETICULATE_PYTHON")
    if (nzchar(forced) && !file.exists(forced)) {
      ok <- simpleError(paste0("RETICULATE_PYTHON is set to '", forced,
                               "', which does not exist"))
    }
    py <- tryCatch(reticulate::py_config()$python, error = function(e) NA_character_)
    msg <- paste0(
      "rtorchpy: the Python package 'rtorchpy' could not be loaded",
      if (!is.na(py)) paste0(" from Python ", py) else " (no usable Python was found)",
      ".\n", .install_hint, "\nCause: ", conditionMessage(ok))
    .rt$init_error <- msg
    stop(msg, call. = FALSE)
  }
  .rt$bridge <- bridge
  .rt$impl <- .reticulate_call()
  .rt$p2r <- .reticulate_to_r()
  .rt$bridge_release <- reticulate::py_get_attr(bridge, "release")
  .rt$bridge_collected <- reticulate::py_get_attr(bridge, "collected")
  .rt$take_stash <- reticulate::py_get_attr(bridge, "take_stash")
  .rt$take_warnings <- reticulate::py_get_attr(bridge, "take_warnings")
  reticulate::py_call(reticulate::py_get_attr(bridge, "collect_warnings"), TRUE)
  # RTORCHPY_DIRECT=0 sends every call through reticulate (the C bridge stays uninitialised)
  .rt$direct <- !identical(Sys.getenv("RTORCHPY_DIRECT"), "0") && isTRUE(tryCatch(
    .Call(rtp_pyinit, as.character(reticulate::py_config()$libpython), bridge),
    error = function(e) FALSE))
  .rt$binary <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "binary_callers")))
  .rt$unary <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "unary_callers")))
  callers <- .py_dict(reticulate::py_call(reticulate::py_get_attr(bridge, "op_callers")))
  for (nm in names(callers)) assign(nm, callers[[nm]], envir = .rt$ops)
  .rt$py_methods <- reticulate::py_to_r(reticulate::py_call(
    reticulate::py_get_attr(bridge, "method_names")))
  .rt$ready <- TRUE
  invisible(TRUE)
}

# A Python dict of callables as a named R list of Python objects.
.py_dict <- function(d) {
  keys <- unlist(reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$list(d)))
  stats::setNames(lapply(keys, function(k) reticulate::py_get_item(d, k)), keys)
}

# The fastest way reticulate offers to call a Python callable: its internal C++ entry point,
# which skips argument-matching R code (a call then costs ~25 us instead of ~100 us for `$`).
# Falls back to the exported py_call() if a reticulate version lacks it.
.reticulate_call <- function() {
  impl <- tryCatch(utils::getFromNamespace("py_call_impl", "reticulate"),
                   error = function(e) NULL)
  if (is.function(impl) && identical(names(formals(impl)), c("x", "args", "keywords"))) {
    return(impl)
  }
  function(x, args, keywords) {
    do.call(reticulate::py_call, c(list(x), args, keywords))
  }
}

.reticulate_to_r <- function() {
  conv <- tryCatch(utils::getFromNamespace("py_ref_to_r", "reticulate"),
                   error = function(e) NULL)
  if (is.function(conv)) return(conv)
  reticulate::py_to_r
}

#' Is the Python side of rtorchpy usable?
#'
#' `TRUE` when Python and the `rtorchpy` Python package can be loaded (this starts Python).
#' Useful in examples and tests: `if (rtorchpy_available()) ...`.
#' @return `TRUE` or `FALSE`.
#' @export
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
  cat("rtorchpy (py):   ", x$rtorchpy_version, " (", dirname(x$rtorchpy_path), ")\n", sep = "")
  cat("rtorchpy (R):    ", as.character(utils::packageVersion("rtorchpy")), "\n", sep = "")
  cat("reticulate:      ", x$reticulate_version, "\n", sep = "")
  cat("calls:           ", if (isTRUE(x$direct_calls)) "direct (C bridge to libpython)" else
    "through reticulate", "\n", sep = "")
  if (!is.na(x$forced_by)) cat("NOTE: Python chosen by RETICULATE_PYTHON\n")
  invisible(x)
}

#' Install the rtorchpy Python package
#'
#' Creates (or reuses) a Python virtual environment and installs the `rtorchpy` Python package
#' and NumPy into it, with reticulate. Restart R afterwards; rtorchpy then finds it when
#' `RETICULATE_PYTHON` is unset (or point `RETICULATE_PYTHON` at the environment's python).
#'
#' @param envname Name of (or path to) the virtual environment.
#' @param package What to install: a PyPI name, or a local path (a source checkout of the
#'   Python package, installed with `pip install <path>`).
#' @param python Python used to create the environment (default: reticulate's choice).
#' @param ... Passed to [reticulate::py_install()].
#' @return The environment's Python executable, invisibly.
#' @examples
#' \dontrun{
#' install_rtorchpy()                                 # from PyPI
#' install_rtorchpy(package = "~/src/rtorchpy")       # a local checkout
#' }
#' @export
install_rtorchpy <- function(envname = "r-rtorchpy", package = "rtorchpy", python = NULL, ...) {
  if (dir.exists(path.expand(package))) package <- normalizePath(package)
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python)
  }
  reticulate::py_install(c("numpy", package), envname = envname, method = "virtualenv", ...)
  py <- reticulate::virtualenv_python(envname)
  message("Installed rtorchpy into ", envname, " (", py, "). Restart R to use it",
          " (or set RETICULATE_PYTHON=", py, ").")
  invisible(py)
}
