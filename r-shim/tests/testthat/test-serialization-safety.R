# torch_load() reads data only: a file can't run code, whatever it holds.

test_that("a module file of the old serialize() layout is refused without running its code", {
  path <- withr::local_tempfile(fileext = ".pt")
  env <- new.env()
  flag <- new.env()
  flag$ran <- FALSE
  delayedAssign("x", assign("ran", TRUE, envir = flag), assign.env = env)
  blob <- serialize(env, NULL)
  payload <- list(torch_tensor(as.integer(blob), dtype = torch_uint8()), list())
  names(payload) <- c("__rtorchpy_r_nn_module__", "tensors")
  torch_save(payload, path)
  expect_error(torch_load(path), "older rtorchpy .* can run code")
  expect_false(flag$ran)
})

test_that("a module file names a class; a missing generator is a clear error", {
  path <- withr::local_tempfile(fileext = ".pt")
  make <- function() {
    Hidden <- nn_module("HiddenNet", initialize = function() self$fc <- nn_linear(2, 1),
                        forward = function(x) self$fc(x))
    Hidden()
  }
  torch_save(make(), path)
  expect_error(torch_load(path), "class 'HiddenNet'.*no generator")
  # with the generator in the caller's scope it loads, and initialize is not run again
  calls <- 0
  HiddenNet <- nn_module("HiddenNet",
    initialize = function() {
      calls <<- calls + 1
      self$fc <- nn_linear(2, 1)
    },
    forward = function(x) self$fc(x))
  back <- torch_load(path)
  expect_equal(calls, 0)
  expect_equal(class(back), c("HiddenNet", "nn_module"))
  expect_equal(dim(back(torch_ones(3, 2))), c(3L, 1L))
})

test_that("a crafted class name can't reach functions that are not module generators", {
  path <- withr::local_tempfile(fileext = ".pt")
  m <- nn_linear(2, 2)
  torch_save(m, path)
  # the same payload with another class name, written as a plain list
  rec <- list(class = list("system", "nn_module"), training = TRUE, fields = list(),
              parameters = list(), buffers = list(), non_persistent = list(),
              children = list())
  payload <- list(2L, list(rec))
  names(payload) <- c("__rtorchpy_r_nn_module__", "modules")
  torch_save(payload, path)
  expect_error(torch_load(path), "class 'system'.*no generator")
})

test_that("fields of many kinds round-trip; a module that can't be rebuilt says so on save", {
  path <- withr::local_tempfile(fileext = ".pt")
  Net <- nn_module("FieldsNet",
    initialize = function() {
      self$sizes <- c(a = 1, b = NA, c = 3)
      self$labels <- c("x", NA)
      self$flags <- c(TRUE, FALSE)
      self$n <- 4L
      self$nothing <- NULL
      self$nested <- list(k = 1:3, s = "t")
      self$mask <- torch_tensor(c(TRUE, FALSE))
    },
    forward = function(x) x)
  net <- Net()
  torch_save(net, path)
  back <- torch_load(path)
  expect_identical(back$sizes, c(a = 1, b = NA, c = 3))
  expect_identical(back$labels, c("x", NA))
  expect_identical(back$flags, c(TRUE, FALSE))
  expect_identical(back$n, 4L)
  expect_null(back$nothing)
  expect_identical(back$nested, list(k = 1:3, s = "t"))
  expect_equal(as_array(back$mask), c(TRUE, FALSE))

  WithFn <- nn_module("WithFn", initialize = function() self$act <- function(x) x,
                      forward = function(x) self$act(x))
  expect_error(torch_save(WithFn(), path), "field `act`.*a function.*state dict")
})

test_that("saving and loading modules does not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  path <- withr::local_tempfile()
  run <- function(n) {
    for (i in seq_len(n)) {
      m <- nn_sequential(nn_linear(3, 2), nn_relu())
      torch_save(m, path)
      torch_load(path)(torch_ones(1, 3))
    }
  }
  run(10)
  before <- live()
  run(100)
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))
})

test_that("a field holding one of the package's nnf_ functions is saved by its name only", {
  path <- withr::local_tempfile(fileext = ".pt")
  # a transformer layer keeps its activation as a function: it round-trips
  layer <- nn_transformer_encoder_layer(d_model = 4, nhead = 2, activation = "gelu")
  model <- nn_transformer_encoder(layer, num_layers = 2)
  model$eval()
  torch_save(model, path)
  back <- torch_load(path)
  back$eval()
  expect_identical(back$layers[[1]]$activation, nnf_gelu)
  x <- torch_randn(3, 2, 4)
  expect_equal(as_array(back(x)), as_array(model(x)))
  # a crafted file naming anything but an exported nnf_/torch_ function is refused
  Act <- nn_module("ActNet", initialize = function() self$act <- nnf_relu,
                   forward = function(x) self$act(x))
  for (name in list("system", "rtorchpy:::.bridge", c("nnf_relu", "nnf_gelu"), 3)) {
    rec <- list(class = list("ActNet", "nn_module"), training = TRUE,
                fields = list(act = list("__rtorchpy_fn__", name)), parameters = list(),
                buffers = list(), non_persistent = list(), children = list())
    payload <- list(2L, list(rec))
    names(payload) <- c("__rtorchpy_r_nn_module__", "modules")
    torch_save(payload, path)
    expect_error(torch_load(path), "unknown function")
  }
})
