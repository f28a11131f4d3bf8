# Loading and using the package leaves the embedding Python's global state as it was (issue 28):
# collector settings, warning filters and hooks, sys.path, signal and exception hooks, NumPy's
# settings. (Other packages may share that Python.) Checked in a fresh R session each, since the
# state must be recorded before the package first uses Python: fixtures/python-state-child.R.
skip_if_no_python()

run_state_child <- function(direct) {
  rscript <- file.path(R.home("bin"), "Rscript")
  env <- c(paste0("RTORCHPY_DIRECT=", if (direct) "" else "0"))
  out <- suppressWarnings(system2(
    rscript, c("--vanilla", shQuote(test_path("fixtures", "python-state-child.R")),
               shQuote(test_path("fixtures", "python_state.py"))),
    env = env, stdout = TRUE, stderr = TRUE))
  out
}

for (direct in c(TRUE, FALSE)) {
  test_that(paste0("the package leaves Python's global state alone (",
                   if (direct) "C bridge" else "reticulate only", ")"), {
    out <- run_state_child(direct)
    expect_true("DONE" %in% trimws(out), label = paste(out, collapse = "\n"))
    expect_equal(grep("^CHANGED", out, value = TRUE), character(0))
    if (!direct) expect_true("DIRECT FALSE" %in% trimws(out))
    if (direct && isTRUE(rtorchpy:::.rt$direct)) expect_true("DIRECT TRUE" %in% trimws(out))
  })
}

test_that("the package's warnings still reach R; other Python warnings stay Python's", {
  expect_warning(nnf_mse_loss(torch_ones(7), torch_ones(7, 1)), "different to the input size")
  # a warning of someone else's Python code is not turned into an R warning
  expect_no_warning(reticulate::py_run_string(
    "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n    warnings.warn('not ours')"))
  bridge <- rtorchpy:::.rt$bridge
  collect <- reticulate::py_get_attr(bridge, "collect_warnings")
  on.exit(reticulate::py_call(collect, TRUE, FALSE))
  reticulate::py_run_string("_rtp_hook = __import__('warnings').showwarning")
  same_hook <- function() reticulate::py_eval("__import__('warnings').showwarning is _rtp_hook")
  # asked for (options(rtorchpy.python_warnings = "all") at start-up): every Python warning
  reticulate::py_call(collect, TRUE, TRUE)
  expect_false(same_hook())
  reticulate::py_call(collect, TRUE, TRUE)  # (twice: what was there is still remembered)
  reticulate::py_call(collect, TRUE, FALSE)
  expect_true(same_hook())
  # switched off again when it was never on: Python's hook is not even assigned
  reticulate::py_call(collect, TRUE, FALSE)
  expect_true(same_hook())
})

test_that("the bundled package is on sys.path only while it is imported", {
  path <- unlist(reticulate::py_eval("__import__('sys').path"))
  expect_false(rtorchpy:::.bundled_python_dir() %in% path)
  # the package's own submodules still import (through the package's __path__)
  expect_true(reticulate::py_module_available("rtorchpy.distributions"))
})
