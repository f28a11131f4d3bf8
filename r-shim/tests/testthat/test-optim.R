# Optimizers from R: the same steps as from Python give the same parameters (the reference
# runs in this process's Python, through reticulate), closures (L-BFGS calls back into R),
# param_groups, state dicts, optimizer() in R, errors, and no leak across the bridge.
skip_if_no_python()

X_VALUES <- c(1, 2, 0.5, -1, 0.3, 1.5, 2, -0.5, 1, 0, 1, -2, 0.7, 0.2, -1.2)
Y_VALUES <- c(1, -1, 2, 0.5, -0.3)

py_ref <- local({
  env <- NULL
  function() {
    if (is.null(env)) {
      reticulate::py_run_string(paste(sep = "\n",
        "import numpy as _np",
        "import rtorchpy as _rt",
        sprintf("_X = _rt.torch_tensor(_np.array([%s], dtype='float32').reshape(5, 3))",
                paste(X_VALUES, collapse = ", ")),
        sprintf("_Y = _rt.torch_tensor(_np.array([%s], dtype='float32'))",
                paste(Y_VALUES, collapse = ", ")),
        "def _ref_run(name, groups, kwargs, steps, closure, lrs=None):",
        "    w = _rt.torch_tensor([0.5, -1.0, 2.0], requires_grad=True)",
        "    b = _rt.torch_tensor([0.1], requires_grad=True)",
        "    if groups is None:",
        "        params = [w, b]",
        "    else:",
        "        params = [dict(g, params=[w] if g['params'] == 'w' else [b]) for g in groups]",
        "    opt = getattr(_rt, name)(params, **kwargs)",
        "    def loss_fn():",
        "        opt.zero_grad()",
        "        l = ((_X.matmul(w) + b - _Y) ** 2).mean()",
        "        l.backward()",
        "        return l",
        "    for i in range(int(steps)):",
        "        if lrs is not None:",
        "            opt.param_groups[0]['lr'] = lrs[i]",
        "        if closure:",
        "            opt.step(loss_fn)",
        "        else:",
        "            loss_fn()",
        "            opt.step()",
        "    return [float(v) for v in w._data] + [float(v) for v in b._data]"
      ))
      env <<- reticulate::py_eval("_ref_run")
    }
    env
  }
})

# The same problem from R: w (3) and b (1), mean squared error on X, Y.
problem <- function() {
  list(w = torch_tensor(c(0.5, -1, 2), requires_grad = TRUE),
       b = torch_tensor(0.1, requires_grad = TRUE),
       X = torch_tensor(matrix(X_VALUES, 5, 3, byrow = TRUE)),
       Y = torch_tensor(Y_VALUES))
}

run_r <- function(ctor, args, steps, closure = FALSE, groups = NULL, lrs = NULL) {
  p <- problem()
  params <- if (is.null(groups)) {
    list(p$w, p$b)
  } else {
    lapply(groups, function(g) {
      g$params <- if (g$params == "w") list(p$w) else list(p$b)
      g
    })
  }
  opt <- do.call(ctor, c(list(params), args))
  loss_fn <- function() {
    opt$zero_grad()
    l <- ((p$X$matmul(p$w) + p$b - p$Y)^2)$mean()
    l$backward()
    l
  }
  for (i in seq_len(steps)) {
    if (!is.null(lrs)) opt$param_groups[[1]]$lr <- lrs[[i]]
    if (closure) {
      opt$step(loss_fn)
    } else {
      loss_fn()
      opt$step()
    }
  }
  c(as_array(p$w), as_array(p$b))
}

run_py <- function(name, args, steps, closure = FALSE, groups = NULL, lrs = NULL) {
  unlist(py_ref()(name, groups, args, as.integer(steps), closure, lrs))
}

expect_same_steps <- function(name, args, steps = 5, closure = FALSE, groups = NULL) {
  ctor <- get(name, envir = asNamespace("rtorchpy"))
  r <- run_r(ctor, args, steps, closure, groups)
  py <- run_py(name, args, steps, closure, groups)
  expect_equal(r, py, tolerance = 1e-6, info = paste(name, deparse(args)))
  # and the parameters did move
  expect_false(isTRUE(all.equal(r, c(0.5, -1, 2, 0.1))), info = name)
}

test_that("each optimizer's steps from R match the same steps from Python", {
  expect_same_steps("optim_sgd", list(lr = 0.1))
  expect_same_steps("optim_sgd", list(lr = 0.05, momentum = 0.9, nesterov = TRUE,
                                      weight_decay = 0.01))
  expect_same_steps("optim_sgd", list(lr = 0.05, momentum = 0.5, dampening = 0.1))
  expect_same_steps("optim_adam", list(lr = 0.05))
  expect_same_steps("optim_adam", list(lr = 0.05, betas = c(0.8, 0.99), amsgrad = TRUE,
                                       weight_decay = 0.1))
  expect_same_steps("optim_adamw", list(lr = 0.05, weight_decay = 0.1))
  expect_same_steps("optim_rmsprop", list(lr = 0.01))
  expect_same_steps("optim_rmsprop", list(lr = 0.01, momentum = 0.9, centered = TRUE,
                                          weight_decay = 0.01))
  expect_same_steps("optim_adagrad", list(lr = 0.1, lr_decay = 0.01,
                                          initial_accumulator_value = 0.1))
  expect_same_steps("optim_adadelta", list(lr = 1, rho = 0.8))
  # a closure with a first-order optimizer: called once per step
  expect_same_steps("optim_adam", list(lr = 0.05), closure = TRUE)
})

test_that("optim_lbfgs steps with an R closure (called back several times) as Python does", {
  expect_same_steps("optim_lbfgs", list(lr = 1), steps = 2, closure = TRUE)
  expect_same_steps("optim_lbfgs", list(lr = 1, line_search_fn = "strong_wolfe",
                                        max_iter = 5, history_size = 3),
                    steps = 3, closure = TRUE)
  p <- problem()
  calls <- 0
  opt <- optim_lbfgs(list(p$w, p$b), max_iter = 4)
  loss <- opt$step(function() {
    calls <<- calls + 1
    opt$zero_grad()
    l <- ((p$X$matmul(p$w) + p$b - p$Y)^2)$mean()
    l$backward()
    l
  })
  expect_true(calls > 1)
  expect_true(is_torch_tensor(loss))
  expect_equal(as_array(loss), mean((matrix(X_VALUES, 5, 3, byrow = TRUE) %*% c(0.5, -1, 2) +
                                      0.1 - Y_VALUES)^2), tolerance = 1e-5)
  expect_error(opt$step(), "needs a closure")
  # (an error from Python's step, as any: its R class, and the user's call)
  e <- tryCatch(opt$step(), error = function(e) e)
  expect_s3_class(e, "value_error")
  expect_identical(conditionCall(e), quote(opt$step()))
})

test_that("an error in the closure is the R error, and the parameters are restored", {
  p <- problem()
  opt <- optim_lbfgs(list(p$w))
  n <- 0
  cond <- tryCatch(opt$step(function() {
    n <<- n + 1
    if (n > 1) stop("my closure failed")
    opt$zero_grad()
    l <- (p$w^2)$sum()
    l$backward()
    l
  }), error = identity)
  expect_equal(conditionMessage(cond), "my closure failed")
  opt2 <- optim_sgd(list(p$w), lr = 0.1)
  expect_error(opt2$step(function() 1), "must return the loss as a tensor")
  expect_error(opt2$step("f"), "closure must be a function")
})

test_that("parameter groups: R torch's list of lists, each with its options", {
  groups <- list(list(params = "w", lr = 0.1, momentum = 0.9), list(params = "b"))
  r <- run_r(optim_sgd, list(lr = 0.01), 4, groups = groups)
  py <- run_py("optim_sgd", list(lr = 0.01), 4, groups = groups)
  expect_equal(r, py, tolerance = 1e-6)

  p <- problem()
  opt <- optim_adam(list(list(params = list(p$w), lr = 0.1), list(params = p$b)), lr = 0.5)
  pg <- opt$param_groups
  expect_length(pg, 2L)
  expect_equal(pg[[1]]$lr, 0.1)
  expect_equal(pg[[2]]$lr, 0.5)
  expect_equal(pg[[1]]$betas, c(0.9, 0.999))
  expect_false(pg[[1]]$amsgrad)
  expect_true(is_torch_tensor(pg[[1]]$params[[1]]))
  expect_equal(as_array(pg[[1]]$params[[1]]), c(0.5, -1, 2))
  expect_equal(opt$defaults$lr, 0.5)
  expect_equal(names(opt$defaults), c("lr", "betas", "eps", "weight_decay", "amsgrad"))
})

test_that("writing param_groups changes the optimizer (and the next steps)", {
  lrs <- c(0.1, 0.05, 0.02, 0.3)
  r <- run_r(optim_sgd, list(lr = 1), 4, lrs = lrs)
  py <- run_py("optim_sgd", list(lr = 1), 4, lrs = lrs)
  expect_equal(r, py, tolerance = 1e-6)

  p <- problem()
  opt <- optim_adam(list(p$w), lr = 0.01)
  opt$param_groups[[1]]$lr <- 0.001
  opt$param_groups[[1]]$betas <- c(0.5, 0.6)
  expect_equal(opt$param_groups[[1]]$lr, 0.001)
  expect_equal(opt$param_groups[[1]]$betas, c(0.5, 0.6))
  # a refused change leaves every option as it was
  expect_error(opt$param_groups[[1]]$lr <- -1, "Invalid learning rate")
  expect_error(opt$param_groups[[1]]$foo <- 1, "unknown optimizer option 'foo'")
  expect_error(opt$param_groups[[1]]$betas <- c(2, 0.5), "Invalid beta parameter at index 0")
  expect_equal(opt$param_groups[[1]]$lr, 0.001)
  expect_equal(opt$param_groups[[1]]$betas, c(0.5, 0.6))
  expect_null(opt$param_groups[[1]]$foo)
  expect_error(opt$defaults <- list(), "read-only")
})

test_that("add_param_group adds a group; a refused one changes nothing", {
  p <- problem()
  opt <- optim_sgd(list(p$w), lr = 0.1)
  opt$add_param_group(list(params = list(p$b), lr = 0.01, momentum = 0.5))
  expect_length(opt$param_groups, 2L)
  expect_equal(opt$param_groups[[2]]$momentum, 0.5)
  expect_equal(opt$param_groups[[2]]$dampening, 0)
  expect_error(opt$add_param_group(list(params = list(p$b))),
               "more than one parameter group")
  expect_error(opt$add_param_group(list(params = list(torch_ones(2, requires_grad = TRUE)),
                                        lr = -2)), "Invalid learning rate")
  expect_error(opt$add_param_group(list(1)), "named list")
  expect_length(opt$param_groups, 2L)
})

test_that("state_dict has R torch's layout and a round trip continues the same trajectory", {
  p <- problem()
  loss_fn <- function(opt) {
    opt$zero_grad()
    l <- ((p$X$matmul(p$w) + p$b - p$Y)^2)$mean()
    l$backward()
    l
  }
  opt <- optim_adam(list(p$w, p$b), lr = 0.05, amsgrad = TRUE)
  for (i in 1:3) {
    loss_fn(opt)
    opt$step()
  }
  sd <- opt$state_dict()
  expect_named(sd, c("state", "param_groups"))
  expect_named(sd$state, c("1", "2"))
  expect_equal(sd$state[["1"]]$step, 3)
  expect_true(is_torch_tensor(sd$state[["1"]]$exp_avg))
  expect_equal(sd$param_groups[[1]]$params, 1:2)
  expect_equal(sd$param_groups[[1]]$lr, 0.05)

  # a copy: the next steps do not change it
  before <- as_array(sd$state[["1"]]$exp_avg)
  loss_fn(opt)
  opt$step()
  expect_equal(as_array(sd$state[["1"]]$exp_avg), before)

  # continuing from the state dict (a new optimizer, other options) = continuing the original
  p2 <- problem()
  p2$w$requires_grad <- FALSE
  with_no_grad({
    p2$w$copy_(p$w)
    p2$b$copy_(p$b)
  })
  p2$w$requires_grad <- TRUE
  sd <- opt$state_dict()
  opt2 <- optim_adam(list(p2$w, p2$b), lr = 0.9)
  opt2$load_state_dict(sd)
  expect_equal(opt2$param_groups[[1]]$lr, 0.05)
  expect_true(opt2$param_groups[[1]]$amsgrad)
  for (i in 1:3) {
    loss_fn(opt)
    opt$step()
    opt2$zero_grad()
    l <- ((p2$X$matmul(p2$w) + p2$b - p2$Y)^2)$mean()
    l$backward()
    opt2$step()
  }
  expect_equal(as_array(p2$w), as_array(p$w), tolerance = 1e-7)
  expect_equal(as_array(p2$b), as_array(p$b), tolerance = 1e-7)
  expect_equal(opt2$state_dict()$state[["1"]]$step, 7)

  # L-BFGS's state (lists of tensors, numbers) survives a round trip
  opt3 <- optim_lbfgs(list(p$w, p$b), max_iter = 3)
  opt3$step(function() loss_fn(opt3))
  sd3 <- opt3$state_dict()
  opt4 <- optim_lbfgs(list(p$w, p$b), max_iter = 3)
  opt4$load_state_dict(sd3)
  expect_equal(opt4$state_dict()$state[["1"]]$n_iter, sd3$state[["1"]]$n_iter)
  expect_silent(opt4$step(function() loss_fn(opt4)))
})

test_that("a state dict taken before any step round-trips (empty state)", {
  w <- torch_ones(2, requires_grad = TRUE)
  opt <- optim_rmsprop(list(w), lr = 0.3, momentum = 0.5)
  sd <- opt$state_dict()
  expect_length(sd$state, 0L)
  opt2 <- optim_rmsprop(list(w), lr = 0.9)
  opt2$load_state_dict(sd)
  expect_equal(opt2$param_groups[[1]]$lr, 0.3)
  expect_equal(opt2$param_groups[[1]]$momentum, 0.5)
  expect_length(opt2$state_dict()$state, 0L)
})

test_that("load_state_dict refuses a state dict that does not fit, changing nothing", {
  p <- problem()
  opt <- optim_adam(list(p$w, p$b), lr = 0.05)
  p$w$grad <- torch_ones(3)
  p$b$grad <- torch_ones(1)
  opt$step()
  sd <- opt$state_dict()
  other <- optim_adam(list(p$w), lr = 0.3)
  expect_error(other$load_state_dict(sd), "doesn't match the size")
  two <- sd
  two$param_groups <- c(two$param_groups, two$param_groups)
  expect_error(opt$load_state_dict(two), "different number of parameter groups")
  bad <- sd
  names(bad$state) <- c("1", "7")
  expect_error(opt$load_state_dict(bad), "refers to parameter 6")
  sgd_sd <- optim_sgd(list(p$w, p$b), lr = 0.1, momentum = 0.5)$state_dict()
  expect_error(opt$load_state_dict(sgd_sd), "options unknown to optim_adam")
  expect_error(opt$load_state_dict(list(1)), "entries 'state' and 'param_groups'")
  expect_equal(opt$param_groups[[1]]$lr, 0.05)
  expect_equal(opt$state_dict()$state[["1"]]$step, 1)
})

test_that("bad input: R errors naming the problem", {
  w <- torch_ones(2, requires_grad = TRUE)
  expect_error(optim_adam(list(w), lr = -1), "Invalid learning rate: -1")
  expect_error(optim_adam(list(w), foo = 1), "unused argument")
  expect_error(optim_adam(list(list(params = list(w), foo = 1))),
               "unknown optimizer option 'foo' in parameter group")
  expect_error(optim_sgd(list(w)), "required optimization parameter lr")
  expect_error(optim_sgd(list(), lr = 0.1), "empty parameter list")
  expect_error(optim_sgd(list(w * 2), lr = 0.1), "can't optimize a non-leaf Tensor")
  expect_error(optim_sgd(list(w, w), lr = 0.1), "duplicate parameters")
  expect_error(optim_sgd(list(w, 3), lr = 0.1), "optimizer can only optimize Tensors")
  expect_error(optim_adam(list(w), betas = c(1.5, 0.9)), "Invalid beta parameter at index 0")
  expect_error(optim_lbfgs(list(w), line_search_fn = "backtracking"), "strong_wolfe")
  expect_error(optim_sgd("w", lr = 0.1), "list of tensors")
  cond <- tryCatch(optim_adam(list(w), lr = -1), error = identity)
  expect_equal(deparse(conditionCall(cond)), "optim_adam(list(w), lr = -1)")
  # a tensor given alone is a list of one (as in R torch)
  expect_length(optim_sgd(w, lr = 0.1)$param_groups[[1]]$params, 1L)
  # a named list of tensors (what model$parameters gives), built in and written in R
  b <- torch_zeros(1, requires_grad = TRUE)
  named <- list(weight = w, bias = b)
  expect_length(optim_adam(named)$param_groups[[1]]$params, 2L)
  # frozen parameters are accepted and left alone
  frozen <- torch_ones(2)
  opt <- optim_sgd(list(w, frozen), lr = 0.1)
  (w * 2)$sum()$backward()
  opt$step()
  expect_equal(as_array(frozen), c(1, 1))
})

test_that("optimizers have R torch's classes; zero_grad", {
  w <- torch_ones(2, requires_grad = TRUE)
  opt <- optim_sgd(list(w), lr = 0.1)
  expect_equal(class(opt), c("optim_sgd", "torch_optimizer", "R6"))
  expect_true(is_optimizer(opt))
  expect_false(is_optimizer(list()))
  expect_true(is.complex(rtorchpy:::.h(opt$ptr)))  # one handle, wrapped once
  (w * 3)$sum()$backward()
  opt$zero_grad()
  expect_equal(as_array(w$grad), c(0, 0))
  opt$zero_grad(set_to_none = TRUE)
  expect_true(is_undefined_tensor(w$grad) || is.null(w$grad))
  expect_output(print(opt), "optim_sgd")
})

# -- optimizers written in R -------------------------------------------------------------------

optim_sgd_r <- optimizer(
  "optim_sgd_r",
  initialize = function(params, lr = optim_required(), momentum = 0) {
    super$initialize(params, list(lr = lr, momentum = momentum))
  },
  step = function(closure = NULL) {
    private$step_helper(closure, function(group, param, g, p) {
      d_p <- param$grad
      if (group$momentum != 0) {
        st <- state(param)
        if (is.null(st)) {
          buf <- d_p$clone()
        } else {
          buf <- st$momentum_buffer
          buf$mul_(group$momentum)$add_(d_p)
        }
        state(param) <- list(momentum_buffer = buf)
        d_p <- buf
      }
      param$add_(d_p, alpha = -group$lr)
    })
  }
)

test_that("an optimizer written in R with optimizer() matches optim_sgd", {
  expect_equal(class(optim_sgd_r), c("optim_sgd_r", "torch_optimizer_generator"))
  for (args in list(list(lr = 0.1), list(lr = 0.05, momentum = 0.9))) {
    r <- run_r(optim_sgd_r, args, 5)
    builtin <- run_r(optim_sgd, args, 5)
    expect_equal(r, builtin, tolerance = 1e-6)
    expect_equal(r, run_py("optim_sgd", args, 5), tolerance = 1e-6)
  }
  # with a closure
  expect_equal(run_r(optim_sgd_r, list(lr = 0.1), 3, closure = TRUE),
               run_py("optim_sgd", list(lr = 0.1), 3, closure = TRUE), tolerance = 1e-6)
  # groups, and writing param_groups
  groups <- list(list(params = "w", lr = 0.1, momentum = 0.9), list(params = "b"))
  expect_equal(run_r(optim_sgd_r, list(lr = 0.01), 4, groups = groups),
               run_py("optim_sgd", list(lr = 0.01), 4, groups = groups), tolerance = 1e-6)
  lrs <- c(0.1, 0.05, 0.02, 0.3)
  expect_equal(run_r(optim_sgd_r, list(lr = 1), 4, lrs = lrs),
               run_py("optim_sgd", list(lr = 1), 4, lrs = lrs), tolerance = 1e-6)
})

test_that("optimizer(): self$state, state_dict round trip, checks, inheritance", {
  counter_opt <- optimizer(
    "counter_opt",
    initialize = function(params, lr = 0.1) {
      super$initialize(params, list(lr = lr))
    },
    step = function(closure = NULL) {
      with_no_grad({
        for (group in self$param_groups) {
          for (param in group$params) {
            if (is_undefined_tensor(param$grad)) next
            s <- self$state$get(param)
            n <- if (is.null(s)) 1 else s$n + 1
            self$state$set(param, list(n = n, last = param$grad$clone()))
            param$sub_(param$grad * group$lr)
          }
        }
      })
    }
  )
  w <- torch_ones(2, requires_grad = TRUE)
  b <- torch_zeros(1, requires_grad = TRUE)
  expect_length(counter_opt(list(weight = w, bias = b))$param_groups[[1]]$params, 2L)
  opt <- counter_opt(list(w, b), lr = 0.5)
  expect_equal(class(opt), c("counter_opt", "torch_optimizer", "R6"))
  expect_true(is_optimizer(opt))
  for (i in 1:2) {
    opt$zero_grad()
    (w * 2)$sum()$backward()
    opt$step()
  }
  expect_equal(as_array(w), c(-1, -1))
  expect_true(is_undefined_tensor(b$grad) || is.null(b$grad))
  sd <- opt$state_dict()
  expect_named(sd$state, "1")
  expect_equal(sd$state[["1"]]$n, 2)
  expect_equal(sd$param_groups[[1]]$params, 1:2)
  w2 <- torch_ones(2, requires_grad = TRUE)
  b2 <- torch_zeros(1, requires_grad = TRUE)
  opt2 <- counter_opt(list(w2, b2), lr = 3)
  opt2$load_state_dict(sd)
  expect_equal(opt2$param_groups[[1]]$lr, 0.5)
  expect_equal(state(w2)$n, 2)
  expect_error(counter_opt(list(w2), lr = 1)$load_state_dict(sd), "doesn't match the size")
  bad <- sd
  names(bad$state) <- "9"
  expect_error(opt2$load_state_dict(bad), "refers to parameter 9")
  expect_equal(state(w2)$n, 2)

  # the checks of the built-in optimizers
  expect_error(counter_opt(list(w), lr = -1), "Invalid learning rate: -1")
  expect_error(counter_opt(list()), "empty parameter list")
  expect_error(counter_opt(list(w * 2)), "can't optimize a non-leaf Tensor")
  expect_error(counter_opt(list(list(params = list(w), foo = 2))),
               "unknown optimizer option 'foo'")
  expect_error(optim_sgd_r(list(w)), "required optimization parameter lr")
  expect_error(counter_opt(list(w), foo = 1), "unused argument")
  expect_error(opt$add_param_group(list(params = list(w))), "more than one parameter group")
  expect_length(opt$param_groups, 1L)

  # inheriting from an R optimizer; a class without step
  child <- optimizer("child", inherit = counter_opt,
                     initialize = function(params) super$initialize(params, lr = 0.25))
  co <- child(list(torch_ones(1, requires_grad = TRUE)))
  expect_equal(co$param_groups[[1]]$lr, 0.25)
  nostep <- optimizer("nostep", initialize = function(params) {
    super$initialize(params, list(lr = 1))
  })
  expect_error(nostep(list(w))$step(), "does not implement step")
  expect_error(optimizer("x", inherit = optim_adam), "cannot be inherited from")
})

# -- the bridge --------------------------------------------------------------------------------

live <- function() {
  r <- unlist(rtorchpy:::.bridge_counts())
  c(handles = r[[1L]], tensors = r[[2L]], rvalues = length(ls(rtorchpy:::.rt$rvalues)))
}

test_that("1000 steps with an R closure leave the bridge's live counts flat", {
  p <- problem()
  opt <- optim_adam(list(p$w, p$b), lr = 0.01)
  closure <- function() {
    opt$zero_grad()
    l <- ((p$X$matmul(p$w) + p$b - p$Y)^2)$mean()
    l$backward()
    l
  }
  for (i in 1:50) opt$step(closure)  # warm-up
  before <- live()
  for (i in 1:1000) opt$step(closure)
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(names(grown), grown, collapse = ", "))

  # a new closure (capturing the tensors) each step, and L-BFGS calling it many times
  lb <- optim_lbfgs(list(p$w, p$b), max_iter = 3)
  # each closure has its own environment holding a tensor of its own: a closure kept by
  # Python (or by anything the bridge made) would keep that tensor's handle
  make_closure <- function() {
    one <- torch_ones(1)
    function() {
      lb$zero_grad()
      l <- ((p$X$matmul(p$w) + p$b - p$Y)^2)$mean() * one
      l$backward()
      l
    }
  }
  run <- function(n) {
    for (i in seq_len(n)) lb$step(make_closure())
  }
  run(20)
  before <- live()
  run(200)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(names(grown), grown, collapse = ", "))

  # optimizers and their param_groups / state dicts, made and dropped
  run2 <- function(n) {
    for (i in seq_len(n)) {
      w <- torch_randn(5, requires_grad = TRUE)
      o <- optim_adam(list(w), lr = 0.1)
      (w^2)$sum()$backward()
      o$step(function() (w^2)$sum())
      o$param_groups[[1]]$lr <- 0.2
      o$load_state_dict(o$state_dict())
    }
  }
  run2(20)
  before <- live()
  run2(150)
  grown <- live() - before
  expect_true(all(grown < 30), info = paste(names(grown), grown, collapse = ", "))
})
