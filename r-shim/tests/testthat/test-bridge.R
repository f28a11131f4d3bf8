# The direct call path (src/pycall.c) and its fallbacks through reticulate.
skip_if_no_python()

test_that("bridge calls go through the direct path when libpython is found", {
  skip_if(identical(Sys.getenv("RTORCHPY_DIRECT"), "0"), "the C bridge is switched off")
  rt <- rtorchpy:::.rt
  expect_true(rt$direct)
  x <- torch_tensor(c(1, 2, 3))
  h <- rtorchpy:::.h(x)
  r <- .Call(rtorchpy:::rtp_ncall, 0L, "exp", list(h), NULL)
  expect_true(is.complex(r))
  # a reply it does not convert is kept for reticulate to fetch
  expect_equal(.Call(rtorchpy:::rtp_ncall, 0L, "allclose", list(h, h), NULL),
               list("v", TRUE))
  stash <- reticulate::py_eval("lambda: (1, 'a')", convert = FALSE)
  expect_equal(c_call(stash, list(), NULL), as.raw(2L))
  expect_equal(rtorchpy:::.call_slow(NULL, NULL, as.raw(2L), rtorchpy:::.a), list(1L, "a"))
  # arguments it does not convert: not called
  expect_equal(.Call(rtorchpy:::rtp_ncall, 0L, "exp", list(c(h, h)), NULL), as.raw(1L))
  expect_equal(.Call(rtorchpy:::rtp_ncall, 0L, "exp", list(NA_integer_), NULL), as.raw(1L))
})

test_that("values, errors and scalars round-trip through the direct path", {
  x <- torch_tensor(c(1, 2, 3))
  expect_equal(x$numel(), 3L)
  expect_equal(as_array(x * 2L), c(2, 4, 6))
  expect_equal(as_array(x$sum(dim = 1L, keepdim = TRUE)), 6)
  expect_equal(as_array(torch_div(x, 2, rounding_mode = "floor")), c(0, 1, 1))
  expect_error(x$sum(dim = 3L), "Dimension out of range")
  expect_true(x$exp()$allclose(torch_exp(x)))
  # a Python exception raised outside the bridge's guards becomes an R error
  expect_error(r_call(3L, "take_stash", list(1)), "argument")
})

test_that("the direct path converts values exactly as reticulate does", {
  skip_if(identical(Sys.getenv("RTORCHPY_DIRECT"), "0"), "the C bridge is switched off")
  values <- paste0("[", paste(c(
    "1j", "2.5", "3", "True", "False", "None", "'abc'", "''", "[]", "[1, 2]", "[1.5, 2.0]",
    "[True, False]", "['a', 'b']", "[1j, 2+0j]", "[1, 2.5]", "[1, None]", "['v', None]",
    "['E', 'msg']", "['v', [2, 3]]", "['L', [1j, 2j]]", "[[1, 2], [3.0]]", "[[]]",
    "float('nan')", "float('inf')", "-7", "2**31 - 1", "-2**31 + 1", "[True, 1]",
    "['N', 3-7.25j, 'MulBackward0']", "[['a'], 'b', 1]", "2**40", "-2**31", "'\u00e9'",
    "{'a': 1}", "(1, 2)", "[(1, 2)]", "{'a': 'x', 'b': 'y'}", "{'a': None, 'b': [1, 2]}",
    "{'a': {'b': [1j]}}", "{'message': 'm', 'condition_class': 'value_error', 'r_callback': True}",
    "{}", "{1: 'a'}", "{'\u00e9': 1}", "[{'a': 1}, 2]"), collapse = ", "), "]")
  pick <- reticulate::py_eval(paste0("lambda i: ", values, "[i]"), convert = FALSE)
  n <- reticulate::py_eval(paste0("len(", values, ")"))
  for (i in seq_len(n) - 1L) {
    direct <- r_call(pick, list(i))
    via_reticulate <- rtorchpy:::.rt$p2r(reticulate::py_call(pick, i))
    expect_identical(direct, via_reticulate, label = paste("value", i))
  }
  # arguments: lists and scalars arrive as reticulate would pass them
  echo <- reticulate::py_eval("lambda *a: repr(a)", convert = FALSE)
  args <- list(1, 2L, TRUE, "s", NULL, list(), list(1, list("a", NULL)), 1+2i)
  expect_identical(c_call(echo, args, NULL),
                   rtorchpy:::.rt$p2r(do.call(reticulate::py_call, c(list(echo), args))))
})
