# Learning-rate schedulers, in R on the optimizer's `param_groups` (as R torch's): they work
# with the built-in optimizers (whose param_groups reads and writes Python, one crossing each
# way per step) and with those defined by optimizer(). The schedules are PyTorch's, as in
# rtorchpy/optim/lr_scheduler.py (the tests compare the two).

#' Define a learning-rate scheduler in R
#'
#' As R torch's `lr_scheduler()`: `initialize(optimizer, ...)` stores its settings and calls
#' `super$initialize(optimizer, last_epoch)`, which records each group's `initial_lr` (in
#' `self$base_lrs`) and takes the first step; `get_lr()` returns the learning rates for
#' `self$last_epoch`, one per parameter group (read the current ones from
#' `self$optimizer$param_groups`). `step()`, `get_last_lr()`, `state_dict()` and
#' `load_state_dict()` come from the base class, whose `step()` writes the values into the
#' optimizer's groups.
#' @param classname The class name.
#' @param inherit The parent: another scheduler made with `lr_scheduler()` (default: the base
#'   class).
#' @param ... Methods and fields (`initialize`, `get_lr`, ...).
#' @param parent_env The environment the methods are evaluated in.
#' @return A generator: a function whose arguments go to `initialize`.
#' @examples
#' if (rtorchpy_available()) {
#'   lr_halve <- lr_scheduler(
#'     "lr_halve",
#'     initialize = function(optimizer, last_epoch = -1) {
#'       super$initialize(optimizer, last_epoch)
#'     },
#'     get_lr = function() self$base_lrs * 0.5^self$last_epoch
#'   )
#'   opt <- optim_sgd(list(torch_ones(1, requires_grad = TRUE)), lr = 1)
#'   s <- lr_halve(opt)
#'   s$step()
#'   s$get_last_lr()
#' }
#' @export
#' @family optimizers
lr_scheduler <- function(classname = NULL, inherit = LRScheduler, ...,
                         parent_env = parent.frame()) {
  if (inherits(inherit, "lr_scheduler_generator")) inherit <- attr(inherit, "scheduler")
  inherit <- .r6(inherit)
  if (!R6::is.R6Class(inherit)) .type_error("inherit must be a scheduler class")
  if (is.null(classname)) classname <- "lr_scheduler"
  if (!is.character(classname) || length(classname) != 1L) {
    .type_error("classname must be a string")
  }
  # inherit passed as the class itself (R6 would evaluate its expression in parent_env)
  Class <- do.call(R6::R6Class, list(classname = classname, inherit = inherit,
                                     public = list(...), parent_env = parent_env,
                                     lock_objects = FALSE))
  gen <- function(...) Class$new(...)
  structure(gen, class = c(classname, "lr_scheduler_generator"), scheduler = Class)
}

#' @export
print.lr_scheduler_generator <- function(x, ...) {
  cat("<lr_scheduler generator: ", class(x)[[1L]], ">\n", sep = "")
  invisible(x)
}

.as_count <- function(name, value, minimum, message = NULL) {
  if (!is.numeric(value) || length(value) != 1L || is.na(value) || value != round(value)) {
    .value_error(name, " must be an integer, got ", deparse(value))
  }
  if (value < minimum) {
    .value_error(if (is.null(message)) paste0(name, " must be an integer >= ", minimum, ", got ", value)
                 else sprintf(message, format(value)))
  }
  as.integer(value)
}

.check_real <- function(name, value) {
  if (!is.numeric(value) || length(value) != 1L || is.na(value)) {
    .type_error(name, " must be a number")
  }
  invisible(value)
}

# One value per parameter group (a vector of one value, or of one per group).
.per_group <- function(name, value, n) {
  if (length(value) == 1L) return(rep(list(value), n))
  if (length(value) != n) {
    .value_error(name, " must have the same length as optimizer$param_groups. ", name, " has ",
                 length(value), " values, param_groups has ", n, ".")
  }
  as.list(value)
}

LRScheduler <- .lazy_r6(function() R6::R6Class("lr_scheduler",
  lock_objects = FALSE,
  public = list(
    optimizer = NULL,
    base_lrs = NULL,
    last_epoch = NULL,
    initialize = function(optimizer, last_epoch = -1) {
      if (!is_optimizer(optimizer)) {
        .type_error(class(optimizer)[[1L]], " is not an Optimizer")
      }
      last_epoch <- .as_count("last_epoch", last_epoch, -1L)
      self$optimizer <- optimizer
      groups <- optimizer$param_groups
      if (last_epoch == -1L) {
        missing_initial <- vapply(groups, function(g) is.null(g$initial_lr), TRUE)
        if (any(missing_initial)) {
          for (i in which(missing_initial)) groups[[i]]$initial_lr <- groups[[i]]$lr
          optimizer$param_groups <- groups
        }
      } else {
        for (i in seq_along(groups)) {
          if (is.null(groups[[i]]$initial_lr)) {
            .value_error("param 'initial_lr' is not specified in param_groups[[", i, "]] when ",
                         "resuming scheduler with last_epoch >= 0")
          }
        }
      }
      self$base_lrs <- vapply(groups, function(g) as.numeric(g$initial_lr), 0)
      self$last_epoch <- last_epoch
      private$step_count <- 0L
      private$is_initial <- TRUE
      on.exit(private$is_initial <- FALSE, add = TRUE)
      self$step()
    },
    get_lr = function() {
      .not_implemented_error(class(self)[[1L]], " does not implement get_lr()")
    },
    get_last_lr = function() private$last_lr,
    step = function() {
      private$step_count <- private$step_count + 1L
      self$last_epoch <- self$last_epoch + 1L
      private$groups <- self$optimizer$param_groups
      values <- as.numeric(unlist(self$get_lr()))
      groups <- private$groups
      private$groups <- NULL
      if (length(values) != length(groups)) {
        .value_error(class(self)[[1L]], "$get_lr() gave ", length(values), " learning rates for ",
                     length(groups), " parameter groups")
      }
      for (i in seq_along(groups)) groups[[i]]$lr <- values[[i]]
      self$optimizer$param_groups <- groups
      private$last_lr <- values
      invisible(NULL)
    },
    state_dict = function() {
      list(last_epoch = self$last_epoch, base_lrs = self$base_lrs,
           step_count = private$step_count, last_lr = private$last_lr)
    },
    load_state_dict = function(state_dict) {
      self$last_epoch <- state_dict$last_epoch
      self$base_lrs <- state_dict$base_lrs
      private$step_count <- state_dict$step_count
      private$last_lr <- state_dict$last_lr
      invisible(self)
    }
  ),
  private = list(
    step_count = 0L,
    is_initial = FALSE,
    last_lr = NULL,
    # the groups read at the start of step() (get_lr reads, and may change, these)
    groups = NULL,
    current_lrs = function() vapply(private$groups, function(g) as.numeric(g$lr), 0)
  )
))

# -- lr_lambda, lr_multiplicative --------------------------------------------------------------

.lambdas <- function(optimizer, lr_lambda) {
  n <- length(optimizer$param_groups)
  if (!is.function(lr_lambda) && !is.list(lr_lambda)) {
    .type_error("lr_lambda should be a function, or a list of functions (one per parameter group)")
  }
  fns <- if (is.function(lr_lambda)) rep(list(lr_lambda), n) else lr_lambda
  if (length(fns) != n) {
    .value_error("Expected ", n, " lr_lambdas, but got ", length(fns))
  }
  for (f in fns) {
    if (!is.function(f)) .type_error("lr_lambda should be a function")
  }
  fns
}

LambdaLR <- .lazy_r6(function() R6::R6Class(
  "lr_lambda", inherit = .r6(LRScheduler), lock_objects = FALSE,
  public = list(
    lr_lambdas = NULL,
    initialize = function(optimizer, lr_lambda, last_epoch = -1) {
      if (!is_optimizer(optimizer)) {
        .type_error(class(optimizer)[[1L]], " is not an Optimizer")
      }
      self$lr_lambdas <- .lambdas(optimizer, lr_lambda)
      super$initialize(optimizer, last_epoch)
    },
    get_lr = function() {
      vapply(seq_along(self$base_lrs), function(i) {
        self$base_lrs[[i]] * self$lr_lambdas[[i]](self$last_epoch)
      }, 0)
    }
  )
))

MultiplicativeLR <- .lazy_r6(function() R6::R6Class(
  "lr_multiplicative", inherit = .r6(LambdaLR), lock_objects = FALSE,
  public = list(
    get_lr = function() {
      lrs <- private$current_lrs()
      if (private$is_initial) return(lrs)
      vapply(seq_along(lrs), function(i) lrs[[i]] * self$lr_lambdas[[i]](self$last_epoch), 0)
    }
  )
))

#' Learning-rate schedulers
#'
#' R torch's schedulers, with PyTorch's schedules. Each changes the `lr` of every parameter
#' group of an optimizer (built in, or defined with [optimizer()]). Creating one records each
#' group's starting `lr` as `initial_lr` and takes the first step. Call `$step()` once per
#' epoch (`lr_one_cycle()`: once per batch; `lr_reduce_on_plateau()`: `$step(metric)`), after
#' the optimizer's `step()`; `$get_last_lr()` gives the learning rates set last, one per group.
#'
#' * `lr_lambda()`: `lr = initial_lr * lr_lambda(epoch)`.
#' * `lr_multiplicative()`: each step multiplies `lr` by `lr_lambda(epoch)`.
#' * `lr_step()`: every `step_size` epochs `lr` is multiplied by `gamma`.
#' * `lr_cosine_annealing()`: `lr` follows a cosine from `initial_lr` to `eta_min` over
#'   `T_max` epochs (PyTorch's recursive form).
#' * `lr_one_cycle()`: the 1cycle policy: `lr` rises from `max_lr / div_factor` to `max_lr`
#'   over the first `pct_start` of the steps, then falls to
#'   `max_lr / div_factor / final_div_factor`; with `cycle_momentum` the momentum (or Adam's
#'   first beta) moves inversely between `max_momentum` and `base_momentum`.
#' * `lr_reduce_on_plateau()`: multiplies `lr` by `factor` once the metric has not improved
#'   (by `threshold`, relatively or absolutely) for more than `patience` epochs, then waits
#'   `cooldown` epochs; never below `min_lr`.
#'
#' @param optimizer An optimizer.
#' @param lr_lambda A function of the epoch (a number), or a list of them, one per group.
#' @param step_size Period of the decay, in epochs.
#' @param gamma Multiplicative factor of the decay.
#' @param T_max Half-period of the cosine, in epochs.
#' @param eta_min Minimal learning rate.
#' @param max_lr Peak learning rate (one value, or one per group).
#' @param total_steps,epochs,steps_per_epoch The number of steps of the cycle: `total_steps`,
#'   or `epochs * steps_per_epoch`.
#' @param pct_start Fraction of the cycle spent increasing the learning rate.
#' @param anneal_strategy `"cos"` or `"linear"`.
#' @param cycle_momentum Cycle the momentum too.
#' @param base_momentum,max_momentum The momentum's bounds (one value, or one per group).
#' @param div_factor `initial_lr = max_lr / div_factor`.
#' @param final_div_factor `min_lr = initial_lr / final_div_factor`.
#' @param three_phase Use a third phase (back to `initial_lr`, then down to `min_lr`).
#' @param mode `"min"` (lower metric is better) or `"max"`.
#' @param factor Factor of the reduction (< 1).
#' @param patience Epochs without improvement tolerated.
#' @param threshold,threshold_mode Minimal improvement; `"rel"` or `"abs"`.
#' @param cooldown Epochs to wait after a reduction.
#' @param min_lr Lower bound of the learning rate (one value, or one per group).
#' @param eps Reductions smaller than this are skipped.
#' @param last_epoch The index of the last epoch (`-1` to start afresh).
#' @param verbose `lr_reduce_on_plateau()`: report each reduction with a message, as R torch does;
#'   `lr_one_cycle()`: accepted (nothing to report).
#' @return A scheduler (an R6 object of class `c("lr_<name>", "lr_scheduler", "R6")`).
#' @examples
#' if (rtorchpy_available()) {
#'   w <- torch_zeros(2, requires_grad = TRUE)
#'   opt <- optim_sgd(list(w), lr = 0.1)
#'   sched <- lr_step(opt, step_size = 2, gamma = 0.5)
#'   for (epoch in 1:4) {
#'     opt$step()
#'     sched$step()
#'   }
#'   sched$get_last_lr()
#' }
#' @seealso [lr_scheduler()] to write one's own.
#' @name lr_schedulers
#' @export
#' @family optimizers
lr_lambda <- function(optimizer, lr_lambda, last_epoch = -1) {
  .r6(LambdaLR)$new(optimizer, lr_lambda, last_epoch)
}

#' @rdname lr_schedulers
#' @export
lr_multiplicative <- function(optimizer, lr_lambda, last_epoch = -1) {
  .r6(MultiplicativeLR)$new(optimizer, lr_lambda, last_epoch)
}

# -- lr_step -------------------------------------------------------------------------------

StepLR <- .lazy_r6(function() R6::R6Class(
  "lr_step", inherit = .r6(LRScheduler), lock_objects = FALSE,
  public = list(
    step_size = NULL,
    gamma = NULL,
    initialize = function(optimizer, step_size, gamma = 0.1, last_epoch = -1) {
      self$step_size <- .as_count("step_size", step_size, 1L,
                                  "step_size must be a positive integer, got %s")
      self$gamma <- .check_real("gamma", gamma)
      super$initialize(optimizer, last_epoch)
    },
    get_lr = function() {
      lrs <- private$current_lrs()
      if (self$last_epoch == 0L || self$last_epoch %% self$step_size != 0L) return(lrs)
      lrs * self$gamma
    }
  )
))

#' @rdname lr_schedulers
#' @export
lr_step <- function(optimizer, step_size, gamma = 0.1, last_epoch = -1) {
  .r6(StepLR)$new(optimizer, step_size, gamma, last_epoch)
}

# -- lr_cosine_annealing ---------------------------------------------------------------------

CosineAnnealingLR <- .lazy_r6(function() R6::R6Class(
  "lr_cosine_annealing", inherit = .r6(LRScheduler), lock_objects = FALSE,
  public = list(
    T_max = NULL,
    eta_min = NULL,
    initialize = function(optimizer, T_max, eta_min = 0, last_epoch = -1) {
      if (!is.numeric(T_max) || length(T_max) != 1L || is.na(T_max) || T_max <= 0) {
        .value_error("T_max must be a positive number, got ", deparse(T_max))
      }
      self$T_max <- T_max
      self$eta_min <- .check_real("eta_min", eta_min)
      super$initialize(optimizer, last_epoch)
    },
    get_lr = function() {
      lrs <- private$current_lrs()
      t <- self$last_epoch
      tm <- self$T_max
      eta <- self$eta_min
      if (private$is_initial) return(lrs)
      if (private$step_count == 1L && t > 0L) {
        return(eta + (self$base_lrs - eta) * (1 + cos(t * pi / tm)) / 2)
      }
      if ((t - 1 - tm) %% (2 * tm) == 0) {
        return(lrs + (self$base_lrs - eta) * (1 - cos(pi / tm)) / 2)
      }
      (1 + cos(pi * t / tm)) / (1 + cos(pi * (t - 1) / tm)) * (lrs - eta) + eta
    }
  )
))

#' @rdname lr_schedulers
#' @export
lr_cosine_annealing <- function(optimizer, T_max, eta_min = 0, last_epoch = -1) {
  .r6(CosineAnnealingLR)$new(optimizer, T_max, eta_min, last_epoch)
}
