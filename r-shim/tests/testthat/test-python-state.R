# Loading and using the package leaves the embedding Python's global state as it was: the
# cyclic collector's settings and Python's warning hook. (Other packages may share that Python.)
skip_if_no_python()

test_that("the package leaves Python's collector and warning hook alone", {
  x <- torch_randn(3, requires_grad = TRUE)
  (x * 2)$sum()$backward()
  gc <- reticulate::import("gc", convert = TRUE)
  warnings <- reticulate::import("warnings", convert = FALSE)
  expect_equal(gc$get_freeze_count(), 0L)
  expect_equal(unlist(gc$get_threshold())[[1]], 700L)
  same_hook <- reticulate::py_eval(
    "__import__('warnings').showwarning is __import__('warnings')._showwarning_orig")
  expect_true(same_hook)
})

test_that("the package's warnings still reach R; other Python warnings stay Python's", {
  expect_warning(nnf_mse_loss(torch_ones(7), torch_ones(7, 1)), "different to the input size")
  # a warning of someone else's Python code is not turned into an R warning
  expect_no_warning(reticulate::py_run_string(
    "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n    warnings.warn('not ours')"))
  bridge <- rtorchpy:::.rt$bridge
  on.exit(reticulate::py_call(reticulate::py_get_attr(bridge, "collect_warnings"), TRUE, FALSE))
  # asked for (options(rtorchpy.python_warnings = "all") at start-up): every Python warning
  reticulate::py_call(reticulate::py_get_attr(bridge, "collect_warnings"), TRUE, TRUE)
  expect_false(reticulate::py_eval(
    "__import__('warnings').showwarning is __import__('warnings')._showwarning_orig"))
  reticulate::py_call(reticulate::py_get_attr(bridge, "collect_warnings"), TRUE, FALSE)
  expect_true(reticulate::py_eval(
    "__import__('warnings').showwarning is __import__('warnings')._showwarning_orig"))
})
