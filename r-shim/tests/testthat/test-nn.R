# nn_module in R: registration, nesting, names, train/eval, state dicts, clone, printing,
# errors, a training loop, containers.
skip_if_no_python()

Net <- nn_module("Net",
  initialize = function(n_in = 3, n_out = 2) {
    self$fc1 <- nn_linear(n_in, 4)
    self$fc2 <- nn_linear(4, n_out)
    self$w <- nn_parameter(torch_randn(3))
    self$b <- nn_buffer(torch_zeros(2))
    self$nb <- nn_buffer(torch_ones(1), persistent = FALSE)
    self$k <- 10
  },
  forward = function(x) self$fc2(nnf_relu(self$fc1(x)))
)

test_that("a generator makes callable modules with registered members", {
  expect_s3_class(Net, "nn_module_generator")
  expect_equal(names(formals(Net)), c("n_in", "n_out"))  # initialize's, as in R torch
  expect_equal(Net(n_out = 1)$fc2$out_features, 1)
  net <- Net(3, 2)
  expect_true(is_nn_module(net))
  expect_false(is_nn_module(Net))
  expect_equal(class(net), c("Net", "nn_module"))
  # the children's parameters first, then the module's own (R torch's order)
  expect_equal(names(net$parameters), c("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
                                        "w"))
  expect_equal(names(net$named_parameters(recursive = FALSE)), "w")
  expect_equal(names(net$buffers), c("b", "nb"))
  expect_equal(names(net$named_buffers()), c("b", "nb"))
  expect_equal(names(net$children), c("fc1", "fc2"))
  expect_length(net$modules, 3)
  expect_true(is_nn_module(net$fc1))
  expect_s3_class(net$fc1, "nn_linear")
  expect_equal(net$k, 10)
  expect_equal(net$fc1$weight$shape, c(4L, 3L))  # (out, in) as R torch
  expect_true(all(vapply(net$parameters, function(p) p$requires_grad, TRUE)))
  expect_false(net$b$requires_grad)
  y <- net(torch_randn(5, 3))
  expect_equal(y$shape, c(5L, 2L))
  expect_equal(as_array(net$forward(torch_ones(1, 3))), as_array(net(torch_ones(1, 3))))
  expect_true(inherits(net$w, "nn_parameter"))
  expect_identical(net[["fc1"]], net$fc1)
})

test_that("nn_linear uses R torch's initialization bounds", {
  torch_manual_seed(1)
  l <- nn_linear(100, 50)
  w <- as_array(l$weight)
  b <- as_array(l$bias)
  bound <- 1 / sqrt(100)  # kaiming_uniform(a = sqrt(5)): gain sqrt(2/6), bound gain*sqrt(3/100)
  expect_true(all(abs(w) <= bound + 1e-7))
  expect_gt(max(abs(w)), 0.9 * bound)
  expect_true(all(abs(b) <= bound + 1e-7))
  expect_null(nn_linear(3, 2, bias = FALSE)$bias)
  expect_equal(names(nn_linear(3, 2, bias = FALSE)$parameters), "weight")
  x <- torch_randn(4, 100)
  expect_equal(as_array(l(x)), as_array(x) %*% t(w) + rep(b, each = 4), tolerance = 1e-5)
})

test_that("inheritance, super$initialize(), private and active members", {
  Base <- nn_module("Base",
    initialize = function(n) {
      self$fc <- nn_linear(n, n)
      private$secret <- n
    },
    forward = function(x) self$fc(x),
    private = list(secret = NULL),
    active = list(size = function() private$secret * 2)
  )
  Child <- nn_module("Child", inherit = Base,
    initialize = function(n) {
      super$initialize(n)
      self$extra <- nn_parameter(torch_zeros(n))
    },
    forward = function(x) super$forward(x) + self$extra
  )
  ch <- Child(3)
  expect_equal(class(ch), c("Child", "Base", "nn_module"))
  # the submodules' parameters first, then the module's own (as R torch)
  expect_equal(names(ch$parameters), c("fc.weight", "fc.bias", "extra"))
  expect_equal(ch$size, 6)
  expect_equal(ch(torch_ones(2, 3))$shape, c(2L, 3L))
})

test_that("generators pass missing arguments on and inherit initialize", {
  M <- nn_module(initialize = function(a, b) self$has_b <- !missing(b),
                 forward = function(x) x)
  expect_false(M(1)$has_b)
  expect_true(M(1, 2)$has_b)
  MyLin <- nn_module("MyLin", inherit = nn_linear, forward = function(x) super$forward(x) * 2)
  expect_equal(names(formals(MyLin)), c("in_features", "out_features", "bias"))
  ml <- MyLin(3, 1, bias = FALSE)
  expect_equal(class(ml), c("MyLin", "nn_linear", "nn_module"))
  x <- torch_ones(1, 3)
  expect_equal(ml(x)$item(), 2 * sum(as_array(ml$weight)), tolerance = 1e-6)
})

test_that("register_* methods, $<- and [[<- on instances", {
  net <- Net()
  net$register_parameter("extra", torch_ones(2))
  net$register_buffer("buf", torch_zeros(3), persistent = FALSE)
  net$register_module("head", nn_linear(2, 1))
  expect_true("extra" %in% names(net$parameters))
  expect_true(net$extra$requires_grad || TRUE)
  expect_true("head.weight" %in% names(net$parameters))
  expect_false("buf" %in% names(net$state_dict()))
  expect_true("buf" %in% names(net$buffers))
  net$fc3 <- nn_linear(2, 2)
  expect_true("fc3.weight" %in% names(net$parameters))
  net[["p2"]] <- nn_parameter(torch_zeros(1))
  expect_true("p2" %in% names(net$parameters))
  net$fc3 <- NULL
  expect_false("fc3.weight" %in% names(net$parameters))
  net$b <- torch_ones(2)  # a tensor assigned to a buffer's name replaces the buffer
  expect_equal(as_array(net$state_dict()$b), c(1, 1))
  net$note <- "hello"
  expect_equal(net$note, "hello")
  expect_error(net$fc1 <- 3, "cannot assign")
  expect_error(net$w <- "a", "cannot assign")
})

test_that("the parameter list itself can't be modified", {
  net <- Net()
  expect_error(net$parameters <- list(), "not possible to modify the parameters list")
  expect_error(net$parameters$w <- torch_ones(3), "not possible to modify the parameters")
  expect_error(net$buffers <- list(), "not possible to modify the buffers list")
})

test_that("train() and eval() set training recursively; dropout follows it", {
  model <- nn_sequential(nn_linear(10, 10), nn_dropout(0.5))
  expect_true(model$training)
  expect_true(model[[2]]$training)
  model$eval()
  expect_false(model$training)
  expect_false(model[[2]]$training)
  x <- torch_ones(20, 10)
  d <- nn_dropout(0.5)
  torch_manual_seed(3)
  y <- as_array(d(x))
  expect_true(all(y %in% c(0, 2)))
  expect_true(any(y == 0))
  d$eval()
  expect_equal(as_array(d(x)), as_array(x))
  r <- d$train()
  expect_true(d$training)
  expect_true(is_nn_module(r))
})

test_that("batch norm updates running stats in training and uses them in eval", {
  bn <- nn_batch_norm1d(3)
  expect_equal(names(bn$parameters), c("weight", "bias"))
  expect_equal(names(bn$buffers), c("running_mean", "running_var", "num_batches_tracked"))
  x <- torch_tensor(matrix(c(1, 2, 3, 4, 10, 20, 30, 40, -1, -1, 1, 1), 4))
  y <- bn(x)
  expect_equal(colMeans(as_array(y)), c(0, 0, 0), tolerance = 1e-5)
  expect_equal(as_array(bn$running_mean), 0.1 * colMeans(as_array(x)), tolerance = 1e-5)
  expect_equal(as_array(bn$running_var), 0.9 + 0.1 * apply(as_array(x), 2, var),
               tolerance = 1e-4)
  expect_equal(as_array(bn$num_batches_tracked), 1)
  bn$eval()
  rm <- as_array(bn$running_mean)
  rv <- as_array(bn$running_var)
  y2 <- as_array(bn(x))
  expected <- sweep(sweep(as_array(x), 2, rm), 2, sqrt(rv + 1e-5), "/")
  expect_equal(y2, expected, tolerance = 1e-5)
  expect_equal(as_array(bn$running_mean), rm)  # unchanged in eval
  expect_equal(as_array(bn$num_batches_tracked), 1)
  expect_error(bn(torch_ones(2, 3, 4, 5)), "expected 2D or 3D input \\(got 4D input\\)")
})

test_that("state_dict() and load_state_dict() round trip", {
  a <- Net()
  b <- Net()
  sd <- a$state_dict()
  expect_equal(names(sd), c("w", "b", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"))
  # the parameters as they are, requires_grad included (R torch's state_dict); buffers detached
  expect_equal(vapply(sd, function(t) t$requires_grad, TRUE),
               c(w = TRUE, b = FALSE, fc1.weight = TRUE, fc1.bias = TRUE, fc2.weight = TRUE,
                 fc2.bias = TRUE))
  b$load_state_dict(sd)
  for (nm in names(sd)) expect_equal(as_array(b$state_dict()[[nm]]), as_array(sd[[nm]]))
  x <- torch_randn(2, 3)
  expect_equal(as_array(a(x)), as_array(b(x)))
  # loaded values are copies, parameters stay leaves that require grad
  expect_true(b$fc1$weight$requires_grad)
  expect_true(b$fc1$weight$is_leaf)
  with_no_grad(a$fc1$weight$zero_())
  expect_false(all(as_array(b$fc1$weight) == 0))
})

test_that("load_state_dict() errors name the problem and leave the model unchanged", {
  net <- Net()
  before <- lapply(net$state_dict(), as_array)
  unchanged <- function() {
    after <- lapply(net$state_dict(), as_array)
    expect_equal(after, before)
  }
  good <- lapply(Net()$state_dict(), function(t) t$clone())
  missing_one <- good[names(good) != "fc1.bias"]
  expect_error(net$load_state_dict(missing_one), "Could not find fc1.bias in the state_dict")
  unchanged()
  extra <- c(good, list(zzz = torch_ones(1)))
  expect_error(net$load_state_dict(extra), "Unexpected key\\(s\\) in state_dict: \"zzz\"")
  unchanged()
  bad <- good
  bad[["fc2.weight"]] <- torch_ones(4, 2)
  expect_error(net$load_state_dict(bad),
               "size mismatch for fc2.weight: copying a param with shape \\[4, 2\\] from checkpoint, the shape in current model is \\[2, 4\\]")
  unchanged()
  bad[["fc2.weight"]] <- "x"
  expect_error(net$load_state_dict(bad), "not a tensor")
  unchanged()
  expect_error(net$load_state_dict(list(torch_ones(1))), "named list")
  # .refer_to_state_dict = TRUE uses the given tensors themselves
  ref <- lapply(Net()$state_dict(), function(t) t$clone())
  net$load_state_dict(ref, .refer_to_state_dict = TRUE)
  expect_identical(net$fc1$weight, ref[["fc1.weight"]])
  expect_true(net$fc1$weight$requires_grad)
  expect_identical(net$b, ref[["b"]])
  # strict = FALSE loads what matches
  net$load_state_dict(missing_one, strict = FALSE)
  expect_equal(as_array(net$fc1$weight), as_array(good[["fc1.weight"]]))
})

test_that("clone(deep = TRUE) copies parameters, keeps requires_grad, drops history", {
  net <- Net()
  net$shared <- nn_linear(2, 2)
  net$also <- net$shared
  cl <- net$clone(deep = TRUE)
  expect_equal(class(cl), class(net))
  expect_equal(names(cl$parameters), names(net$parameters))
  for (nm in names(net$parameters)) {
    p <- cl$parameters[[nm]]
    expect_equal(as_array(p), as_array(net$parameters[[nm]]))
    expect_true(p$requires_grad)
    expect_true(p$is_leaf)
    expect_null(p$grad_fn)
    expect_true(inherits(p, "nn_parameter"))
  }
  expect_equal(names(cl$buffers), names(net$buffers))
  with_no_grad(cl$fc1$weight$zero_())
  expect_false(all(as_array(net$fc1$weight) == 0))
  # modules are copies too; a module shared by two names stays shared
  cl$fc1$eval()
  expect_true(net$fc1$training)
  expect_identical(attr(cl$shared, "module"), attr(cl$also, "module"))
  expect_false(identical(attr(cl$shared, "module"), attr(net$shared, "module")))
  x <- torch_randn(2, 3)
  expect_equal(as_array(cl(x))[, 1] * 0, c(0, 0))
  # a shallow clone shares the tensors
  sh <- net$clone()
  expect_identical(sh$fc1$weight, net$fc1$weight)
  # each clone reads and writes its own members, though it copied the original's bindings
  # (the cached private environment among them)
  sh$extra <- nn_parameter(torch_ones(1))
  expect_null(net$extra)
  expect_false("extra" %in% names(net$parameters))
  cl$fc1 <- nn_linear(3, 7)
  expect_equal(cl$fc1$weight$shape, c(7, 3))
  expect_false(identical(net$fc1$weight$shape, c(7, 3)))
})

test_that("zero_grad(), apply(), to() and cpu()", {
  net <- Net()
  net(torch_randn(4, 3))$sum()$backward()
  expect_false(is_undefined_tensor(net$fc1$weight$grad))
  net$zero_grad()
  expect_true(all(as_array(net$fc1$weight$grad) == 0))
  seen <- character()
  net$apply(function(m) seen <<- c(seen, class(m)[[1L]]))
  expect_equal(seen, c("nn_linear", "nn_linear", "Net"))
  net$to(dtype = torch_float64())
  expect_equal(net$fc1$weight$dtype, torch_float64())
  expect_true(net$fc1$weight$requires_grad)
  expect_equal(net$b$dtype, torch_float64())
  expect_equal(net(torch_randn(2, 3, dtype = torch_float64()))$dtype, torch_float64())
  expect_true(is_nn_module(net$cpu()))
  expect_error(net$to(device = "cuda"), "not available")
})

test_that("printing follows R torch", {
  withr::local_options(width = 40)
  net <- Net()
  out <- capture.output(print(net))
  expect_equal(out[[1]], "An `nn_module` containing 29 parameters.")
  expect_true(any(grepl("Modules", out)))
  expect_true(any(grepl("fc1: <nn_linear> #16 parameters", out, fixed = TRUE)))
  expect_true(any(grepl("w: Float [1:3]", out, fixed = TRUE)))
  expect_true(any(grepl("b: Float [1:2]", out, fixed = TRUE)))
  big <- nn_linear(100, 20)
  expect_equal(capture.output(print(big))[[1]],
               "An `nn_module` containing 2,020 parameters.")
  expect_equal(capture.output(print(nn_relu()))[[1]],
               "An `nn_module` containing 0 parameters.")
})

test_that("a module prints line for line as R torch's", {
  skip_if_not(l10n_info()[["UTF-8"]])
  withr::local_options(width = 40, cli.width = 40)
  rule <- function(title) {
    left <- paste0("\u2500\u2500 ", title, " ")
    paste0(left, strrep("\u2500", 40 - nchar(left)))
  }
  expect_equal(capture.output(print(nn_linear(3, 2))), c(
    "An `nn_module` containing 8 parameters.",
    "",
    rule("Parameters"),
    "\u2022 weight: Float [1:2, 1:3]",
    "\u2022 bias: Float [1:2]"))
  expect_equal(capture.output(print(Net())), c(
    "An `nn_module` containing 29 parameters.",
    "",
    rule("Modules"),
    "\u2022 fc1: <nn_linear> #16 parameters",
    "\u2022 fc2: <nn_linear> #10 parameters",
    "",
    rule("Parameters"),
    "\u2022 w: Float [1:3]",
    "",
    rule("Buffers"),
    "\u2022 b: Float [1:2]",
    "\u2022 nb: Float [1:1]"))
  expect_equal(capture.output(print(nn_linear)), "<nn_linear> object generator")
  net <- nn_relu()
  capture.output(v <- withVisible(print(net)))
  expect_false(v$visible)
  expect_identical(v$value, net)
})

test_that("nn_sequential, nn_module_list and nn_module_dict", {
  model <- nn_sequential(nn_linear(4, 3), nn_relu(), nn_linear(3, 1))
  expect_equal(length(model), 3)
  expect_equal(names(model$parameters), c("0.weight", "0.bias", "2.weight", "2.bias"))
  expect_s3_class(model[[1]], "nn_linear")
  expect_s3_class(model[[-1]], "nn_linear")
  expect_s3_class(model[[2]], "nn_relu")
  sub <- model[1:2]
  expect_s3_class(sub, "nn_sequential")
  expect_equal(length(sub), 2)
  expect_equal(sub(torch_ones(2, 4))$shape, c(2L, 3L))
  expect_error(model[[5]], "out of bounds")
  named <- nn_sequential(a = nn_linear(2, 2), b = nn_tanh())
  expect_equal(names(named$children), c("a", "b"))
  expect_error(nn_sequential(nn_linear(2, 2), 3), "not an nn_module")
  head <- nn_prune_head(model, 1)
  expect_equal(length(head), 2)
  expect_equal(head(torch_ones(1, 4))$shape, c(1L, 3L))
  pruned <- nn_prune_head(Net(), 1)
  expect_equal(names(pruned$children), "fc1")

  ml <- nn_module_list(list(nn_linear(2, 2), nn_linear(2, 3)))
  expect_equal(length(ml), 2)
  ml$append(nn_linear(3, 1))
  expect_equal(length(ml), 3)
  expect_equal(names(ml$parameters)[5:6], c("2.weight", "2.bias"))
  ml$insert(1, nn_relu())
  expect_s3_class(ml[[1]], "nn_relu")
  expect_equal(length(ml[2:3]), 2)
  expect_length(as.list(ml), 4)
  expect_equal(length(lapply(ml, class)), 4)
  ml[[1]] <- nn_tanh()
  expect_s3_class(ml[[1]], "nn_tanh")
  Stack <- nn_module(
    initialize = function() self$layers <- nn_module_list(list(nn_linear(2, 2), nn_relu())),
    forward = function(x) {
      for (i in seq_len(length(self$layers))) x <- self$layers[[i]](x)
      x
    }
  )
  st <- Stack()
  expect_equal(class(st), "nn_module")
  expect_equal(names(st$parameters), c("layers.0.weight", "layers.0.bias"))
  expect_equal(st(torch_ones(1, 2))$shape, c(1L, 2L))

  md <- nn_module_dict(list(enc = nn_linear(2, 2), dec = nn_linear(2, 1)))
  expect_equal(length(md), 2)
  expect_s3_class(md[["dec"]], "nn_linear")
  expect_s3_class(md$enc, "nn_linear")
  expect_equal(names(md$parameters), c("enc.weight", "enc.bias", "dec.weight", "dec.bias"))
  expect_error(nn_module_dict(list(nn_linear(2, 2))), "named list")
})

test_that("nn_parameter(), nn_buffer() and registration errors", {
  expect_error(nn_parameter(1:3), "`x` must be a tensor")
  expect_error(nn_buffer("a"), "`x` must be a tensor")
  p <- nn_parameter(torch_ones(2), requires_grad = FALSE)
  expect_false(p$requires_grad)
  net <- nn_linear(2, 2)
  expect_error(net$register_parameter("a.b", torch_ones(1)), "can't contain")
  expect_error(net$register_parameter("x", 3), "must be a tensor")
  expect_error(net$register_module("m", 3), "must be an nn_module")
  expect_error(nn_module(inherit = 3), "must be a generator")
  Broken <- nn_module(initialize = function() {})
  expect_error(Broken()(1), "forward\\(\\) is not implemented")
})

test_that("a small model trained with manual SGD under with_no_grad reduces the loss", {
  torch_manual_seed(42)
  x <- torch_randn(64, 3)
  y <- x$matmul(torch_tensor(c(1, -2, 0.5))$unsqueeze(2)) + 0.3
  model <- nn_sequential(nn_linear(3, 8), nn_tanh(), nn_linear(8, 1))
  loss_fn <- nn_mse_loss()
  losses <- numeric()
  for (epoch in 1:60) {
    model$zero_grad()
    loss <- loss_fn(model(x), y)
    loss$backward()
    with_no_grad({
      for (p in model$parameters) p$sub_(0.1 * p$grad)
    })
    losses <- c(losses, loss$item())
  }
  expect_lt(losses[[60]], losses[[1]] / 4)
  expect_true(all(vapply(model$parameters, function(p) p$is_leaf, TRUE)))
})

test_that("creating modules and calling forward does not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  expect_flat <- function(body, n, slack) {
    run <- function(n) for (i in seq_len(n)) body(i)
    run(20)
    before <- live()
    run(n)
    grown <- live() - before
    expect_true(all(grown < slack), info = paste(grown, collapse = ", "))
  }
  # 1000 modules made and called (a leak of one object per iteration shows as >= 1000)
  expect_flat(function(i) {
    m <- nn_sequential(nn_linear(3, 4), nn_relu())
    m(torch_randn(2, 3))$sum()$backward()
  }, 1000, 50)
  # clone, state_dict, load_state_dict, zero_grad, train/eval
  expect_flat(function(i) {
    m <- Net()
    m(torch_randn(2, 3))$sum()$backward()
    m$zero_grad()
    cl <- m$clone(deep = TRUE)
    m$load_state_dict(cl$state_dict())
    m$eval()
  }, 150, 30)
})

test_that("a module's `$` finds parameters, buffers, child modules, fields and methods", {
  m <- nn_module(
    initialize = function() {
      self$lin <- nn_linear(2, 3)
      self$scale <- nn_parameter(torch_ones(1))
      self$running <- nn_buffer(torch_zeros(3))
      self$note <- "a field"
    },
    forward = function(x) self$lin(x) * self$scale + self$running
  )()
  expect_true(is_nn_module(m$lin))
  expect_equal(as_array(m$scale), 1)
  expect_equal(as_array(m$running), c(0, 0, 0))
  expect_identical(m$note, "a field")
  expect_null(m$no_such_thing)
  expect_setequal(names(m$parameters), c("lin.weight", "lin.bias", "scale"))
  expect_identical(m[["scale"]], m$scale)
  expect_equal(dim(as_array(m(torch_ones(4, 2)))), c(4L, 3L))
  m$scale <- nn_parameter(torch_ones(1) * 2)  # replaced: `$` sees the new one
  expect_equal(as_array(m$scale), 2)
})

test_that("self$name in a method: fields, NULL, active bindings, clone, missing names", {
  m <- nn_module(
    initialize = function() {
      self$w <- nn_parameter(torch_ones(2))
      self$flag <- TRUE
      self$nothing <- NULL
    },
    active = list(twice = function() self$w * 2),
    forward = function(x) x,
    peek = function() list(w = self$w, flag = self$flag, nothing = self$nothing,
                           missing = self$no_such_thing, twice = self$twice,
                           clone = self$clone, forward = self$forward)
  )()
  got <- m$peek()
  expect_equal(as_array(got$w), c(1, 1))
  expect_true(got$flag)
  expect_null(got$nothing)
  expect_null(got$missing)
  expect_equal(as_array(got$twice), c(2, 2))
  expect_true(is_nn_module(got$clone(deep = TRUE)))
  expect_true(is.function(got$forward))
  m$flag <- FALSE  # a field set again is read again
  expect_false(m$peek()$flag)
})

test_that("the package's module methods read self$name without R's S3 dispatch, alike", {
  # (.nn_direct_reads: each read becomes the call `$.nn_Module` makes; see R/nn-base.R)
  fwd <- paste(deparse(body(attr(nn_linear(2, 3), "module")$forward)), collapse = " ")
  expect_match(fwd, "rtp_nn_get", fixed = TRUE)
  expect_false(grepl("self$", fwd, fixed = TRUE))
  user <- nn_module(initialize = function() self$w <- nn_parameter(torch_ones(1)),
                    forward = function(x) x * self$w)()
  expect_match(deparse(body(attr(user, "module")$forward)), "self$w", fixed = TRUE)
  rw <- rtorchpy:::.nn_rewrite_reads
  expect_identical(rw(quote(self$x <- self$y)), quote(self$x <- .Call(rtp_nn_get, self, "y")))
  expect_identical(rw(quote(self$x$y <- NULL)), quote(self$x$y <- NULL))
  expect_identical(rw(quote(quote(self$q))), quote(quote(self$q)))
  expect_identical(rw(quote(x[, 1])), quote(x[, 1]))
  expect_identical(rw(quote(self$f(self$a))),
                   quote(.Call(rtp_nn_get, self, "f")(.Call(rtp_nn_get, self, "a"))))
  expect_identical(rw(quote(function(a = self$d) self$b))[[3L]],
                   quote(.Call(rtp_nn_get, self, "b")))
  # a user's subclass of a built-in module: the inherited forward reads the subclass's members
  Sub <- nn_module(inherit = nn_linear, initialize = function() super$initialize(2, 1))
  s <- Sub()
  with_no_grad({
    s$weight$fill_(1)
    s$bias$fill_(0.5)
  })
  expect_equal(as_array(s(torch_ones(1, 2))), matrix(2.5))
  # a parameter replaced by a plain tensor field is what forward reads
  lin <- nn_linear(2, 1)
  lin$bias <- NULL
  expect_equal(dim(as_array(lin(torch_ones(3, 2)))), c(3L, 1L))
})
