# Learning-rate schedulers (written in R on param_groups): every scheduler's sequence of
# learning rates equals the Python scheduler's (rtorchpy/optim/lr_scheduler.py, run in this
# process through reticulate), with built-in optimizers and with ones defined by optimizer().
skip_if_no_python()

py_sched <- local({
  fn <- NULL
  function() {
    if (is.null(fn)) {
      reticulate::py_run_string(paste(sep = "\n",
        "import math as _math",
        "import rtorchpy as _rt",
        "_LAMBDAS = {'exp': lambda e: 0.9 ** e, 'lin': lambda e: 1.0 / (e + 1),",
        "            'mul': lambda e: 0.95, 'alt': lambda e: 1.1 if e % 2 else 0.8}",
        "def _sched_run(opt_name, opt_kwargs, n_groups, sched_name, sched_kwargs, steps,",
        "               metrics=None, lambda_names=None):",
        "    ps = [_rt.torch_ones(2, requires_grad=True) for _ in range(int(n_groups))]",
        "    groups = [{'params': [p], 'lr': opt_kwargs.get('lr', 0.1) * (i + 1)}",
        "              for i, p in enumerate(ps)]",
        "    opt = getattr(_rt, opt_name)(groups, **opt_kwargs)",
        "    kw = dict(sched_kwargs)",
        "    if lambda_names is not None:",
        "        fns = [_LAMBDAS[n] for n in lambda_names]",
        "        kw['lr_lambda'] = fns[0] if len(fns) == 1 else fns",
        "    s = getattr(_rt, sched_name)(opt, **kw)",
        "    out = [list(s.get_last_lr())]",
        "    moms = []",
        "    for i in range(int(steps)):",
        "        opt.step()",
        "        if metrics is not None:",
        "            s.step(metrics[i])",
        "        else:",
        "            s.step()",
        "        out.append(list(s.get_last_lr()))",
        "        g = opt.param_groups[0]",
        "        moms.append(g['betas'][0] if 'betas' in g else g.get('momentum', 0.0))",
        "    return [out, moms]"
      ))
      fn <<- reticulate::py_eval("_sched_run")
    }
    fn
  }
})

R_LAMBDAS <- list(exp = function(e) 0.9^e, lin = function(e) 1 / (e + 1),
                  mul = function(e) 0.95, alt = function(e) if (e %% 2) 1.1 else 0.8)

# An SGD written in R, to show the schedulers work on optimizer()-defined ones too.
optim_sgd_plain <- optimizer(
  "optim_sgd_plain",
  initialize = function(params, lr = 0.1, momentum = 0) {
    super$initialize(params, list(lr = lr, momentum = momentum))
  },
  step = function(closure = NULL) {
    private$step_helper(closure, function(group, param, g, p) {
      param$add_(param$grad, alpha = -group$lr)
    })
  }
)

run_r <- function(ctor, opt_kwargs, n_groups, sched, sched_kwargs, steps, metrics = NULL,
                  lambda_names = NULL) {
  ps <- lapply(seq_len(n_groups), function(i) torch_ones(2, requires_grad = TRUE))
  lr0 <- if (is.null(opt_kwargs$lr)) 0.1 else opt_kwargs$lr
  groups <- lapply(seq_len(n_groups), function(i) list(params = list(ps[[i]]), lr = lr0 * i))
  opt <- do.call(ctor, c(list(groups), opt_kwargs))
  kw <- sched_kwargs
  if (!is.null(lambda_names)) {
    fns <- unname(R_LAMBDAS[lambda_names])
    kw$lr_lambda <- if (length(fns) == 1L) fns[[1L]] else fns
  }
  s <- do.call(sched, c(list(opt), kw))
  out <- list(s$get_last_lr())
  moms <- numeric(0)
  for (i in seq_len(steps)) {
    for (p in ps) p$grad <- torch_ones(2)
    opt$step()
    if (is.null(metrics)) s$step() else s$step(metrics[[i]])
    out[[i + 1L]] <- s$get_last_lr()
    g <- opt$param_groups[[1]]
    moms <- c(moms, if (!is.null(g$betas)) g$betas[[1]] else if (!is.null(g$momentum))
      g$momentum else 0)
  }
  # the learning rates the optimizer now has are the scheduler's last ones
  expect_equal(vapply(opt$param_groups, function(g) g$lr, 0), out[[steps + 1L]])
  list(lrs = do.call(rbind, out), moms = moms)
}

run_py <- function(opt_name, opt_kwargs, n_groups, sched_name, sched_kwargs, steps,
                   metrics = NULL, lambda_names = NULL) {
  r <- py_sched()(opt_name, opt_kwargs, as.integer(n_groups), sched_name, sched_kwargs,
                  as.integer(steps), metrics,
                  if (is.null(lambda_names)) NULL else as.list(lambda_names))
  list(lrs = do.call(rbind, lapply(r[[1]], unlist)), moms = unlist(r[[2]]))
}

expect_same_schedule <- function(sched_name, sched_kwargs, steps = 12, opt_name = "optim_sgd",
                                 opt_kwargs = list(lr = 0.1), n_groups = 2, metrics = NULL,
                                 lambda_names = NULL, custom = TRUE) {
  sched <- get(sched_name, envir = asNamespace("rtorchpy"))
  py <- run_py(opt_name, opt_kwargs, n_groups, sched_name, sched_kwargs, steps, metrics,
               lambda_names)
  r <- run_r(get(opt_name, envir = asNamespace("rtorchpy")), opt_kwargs, n_groups, sched,
             sched_kwargs, steps, metrics, lambda_names)
  info <- paste(sched_name, deparse(sched_kwargs))
  expect_equal(dim(r$lrs), c(steps + 1L, n_groups), info = info)
  expect_equal(r$lrs, py$lrs, tolerance = 1e-12, info = info)
  expect_equal(r$moms, py$moms, tolerance = 1e-12, info = info)
  # the schedule does change the rate
  expect_true(length(unique(round(r$lrs[, 1], 12))) > 1L, info = info)
  if (custom) {
    rc <- run_r(optim_sgd_plain, opt_kwargs, n_groups, sched, sched_kwargs, steps, metrics,
                lambda_names)
    expect_equal(rc$lrs, py$lrs, tolerance = 1e-12, info = paste("optimizer():", info))
  }
}

test_that("lr_step", {
  expect_same_schedule("lr_step", list(step_size = 3, gamma = 0.5))
  expect_same_schedule("lr_step", list(step_size = 1), opt_name = "optim_adam",
                       opt_kwargs = list(lr = 0.01), custom = FALSE)
})

test_that("lr_lambda and lr_multiplicative (R functions of the epoch)", {
  expect_same_schedule("lr_lambda", list(), lambda_names = "exp")
  expect_same_schedule("lr_lambda", list(), lambda_names = c("exp", "lin"))
  expect_same_schedule("lr_multiplicative", list(), lambda_names = "mul")
  expect_same_schedule("lr_multiplicative", list(), lambda_names = c("alt", "mul"),
                       opt_name = "optim_rmsprop", opt_kwargs = list(lr = 0.01),
                       custom = FALSE)
})

test_that("lr_cosine_annealing (past T_max too)", {
  expect_same_schedule("lr_cosine_annealing", list(T_max = 5, eta_min = 0.001), steps = 16)
  expect_same_schedule("lr_cosine_annealing", list(T_max = 3), steps = 10,
                       opt_name = "optim_adamw", opt_kwargs = list(lr = 0.02), custom = FALSE)
})

test_that("lr_one_cycle (learning rate and momentum)", {
  expect_same_schedule("lr_one_cycle", list(max_lr = 0.5, total_steps = 20), steps = 20,
                       opt_kwargs = list(lr = 0.1, momentum = 0.9))
  expect_same_schedule("lr_one_cycle", list(max_lr = c(0.5, 0.2), epochs = 3,
                                            steps_per_epoch = 4, anneal_strategy = "linear",
                                            three_phase = TRUE), steps = 11,
                       opt_kwargs = list(lr = 0.1, momentum = 0.9))
  # Adam: beta1 cycles
  expect_same_schedule("lr_one_cycle", list(max_lr = 0.01, total_steps = 10,
                                            pct_start = 0.4), steps = 10,
                       opt_name = "optim_adam", opt_kwargs = list(lr = 0.001), custom = FALSE)
  expect_same_schedule("lr_one_cycle", list(max_lr = 0.3, total_steps = 8,
                                            cycle_momentum = FALSE), steps = 8)
  w <- torch_ones(1, requires_grad = TRUE)
  opt <- optim_sgd(list(w), lr = 0.1, momentum = 0.9)
  s <- lr_one_cycle(opt, max_lr = 1, total_steps = 2)
  s$step()
  s$step()
  expect_error(s$step(), "Tried to step 3 times. The specified number of total steps is 2")
  expect_error(lr_one_cycle(optim_adagrad(list(w)), max_lr = 1, total_steps = 5),
               "optimizer must support momentum or beta1")
  expect_error(lr_one_cycle(opt, max_lr = 1), "either total_steps OR")
})

test_that("lr_reduce_on_plateau", {
  metrics <- c(1, 0.9, 0.95, 0.96, 0.97, 0.98, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6)
  expect_same_schedule("lr_reduce_on_plateau", list(patience = 2, factor = 0.5), steps = 15,
                       metrics = metrics)
  expect_same_schedule("lr_reduce_on_plateau", list(mode = "max", patience = 1, cooldown = 2,
                                                    threshold_mode = "abs", threshold = 0.01,
                                                    min_lr = c(0.03, 0.05)),
                       steps = 15, metrics = -metrics)
  # a metric may be a one-element tensor
  w <- torch_ones(1, requires_grad = TRUE)
  opt <- optim_sgd(list(w), lr = 1)
  s <- lr_reduce_on_plateau(opt, patience = 0)
  s$step(torch_tensor(2))
  s$step(torch_tensor(3))
  expect_equal(s$get_last_lr(), 0.1)
  expect_equal(opt$param_groups[[1]]$lr, 0.1)
})

test_that("schedulers record initial_lr in the groups and check their arguments", {
  w <- torch_ones(1, requires_grad = TRUE)
  opt <- optim_sgd(list(w), lr = 0.2)
  s <- lr_step(opt, step_size = 2)
  expect_equal(opt$param_groups[[1]]$initial_lr, 0.2)
  expect_equal(s$base_lrs, 0.2)
  expect_equal(s$last_epoch, 0)
  expect_error(lr_step(opt, step_size = 0), "step_size must be a positive integer")
  expect_error(lr_step(opt, step_size = 1.5), "step_size must be an integer")
  expect_error(lr_step(list(), step_size = 1), "is not an Optimizer")
  expect_error(lr_lambda(opt, lr_lambda = list(R_LAMBDAS$exp, R_LAMBDAS$exp)),
               "Expected 1 lr_lambdas, but got 2")
  expect_error(lr_lambda(opt, lr_lambda = 3), "lr_lambda should be a function")
  expect_error(lr_cosine_annealing(opt, T_max = 0), "T_max must be a positive number")
  expect_error(lr_reduce_on_plateau(opt, factor = 1), "Factor should be < 1.0.")
  expect_error(lr_reduce_on_plateau(opt, mode = "up"), "mode up is unknown!")
  expect_error(lr_step(optim_sgd(list(torch_ones(1, requires_grad = TRUE)), lr = 0.1),
                       step_size = 2, last_epoch = 3), "initial_lr")
  # an error inside an R lr_lambda is the R error
  expect_error(lr_lambda(opt, lr_lambda = function(e) stop("bad lambda")), "bad lambda")
})

test_that("lr_scheduler() defines a scheduler in R (R torch's way)", {
  lr_halve <- lr_scheduler(
    "lr_halve",
    initialize = function(optimizer, every = 2, last_epoch = -1) {
      self$every <- every
      super$initialize(optimizer, last_epoch)
    },
    get_lr = function() {
      lrs <- vapply(self$optimizer$param_groups, function(g) g$lr, 0)
      if (self$last_epoch > 0 && self$last_epoch %% self$every == 0) lrs / 2 else lrs
    }
  )
  expect_s3_class(lr_halve, "lr_scheduler_generator")
  for (opt_fn in list(function(p) optim_adam(p, lr = 0.8),
                      function(p) optim_sgd_plain(p, lr = 0.8))) {
    w <- torch_ones(1, requires_grad = TRUE)
    opt <- opt_fn(list(w))
    s <- lr_halve(opt, every = 2)
    expect_s3_class(s, "lr_halve")
    lrs <- vapply(1:6, function(i) {
      s$step()
      s$get_last_lr()
    }, 0)
    expect_equal(lrs, c(0.8, 0.4, 0.4, 0.2, 0.2, 0.1))
    expect_equal(opt$param_groups[[1]]$lr, 0.1)
  }
  # inheriting from another one
  lr_quarter <- lr_scheduler("lr_quarter", inherit = lr_halve,
                             get_lr = function() self$base_lrs / 4)
  opt <- optim_sgd(list(torch_ones(1, requires_grad = TRUE)), lr = 1)
  s <- lr_quarter(opt, every = 1)
  expect_equal(s$get_last_lr(), 0.25)
  expect_error(lr_scheduler("x", inherit = 3), "inherit must be a scheduler class")
})
