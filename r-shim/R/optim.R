# Optimizers. The built-in ones (optim_sgd, optim_adam, ...) run in Python (rtorchpy/optim;
# rtorchpy/_r/optim.py is their bridge): the R object holds the Python optimizer's handle and
# every method is one crossing. Optimizers defined in R with optimizer() are pure R, as in R
# torch: their state lives on the parameters (state(param)), their step runs R tensor code.
#
# Ownership: the closure given to opt$step(closure) stays in R (see .closure_dispatcher), so
# no cycle between the two collectors.

#' Optimizers
#'
#' R torch's optimizers, with PyTorch's update rules (computed in Python, one crossing per
#' call). `params` is a list of tensors (leaves; tensors that do not require grad are left
#' alone), or a list of parameter groups, `list(list(params = ..., lr = ...), ...)`, whose
#' options override the defaults given here.
#'
#' The optimizer object has the methods
#' * `zero_grad(set_to_none = FALSE)`: zero the gradients (or drop them);
#' * `step(closure = NULL)`: one update. `closure` is a function that re-evaluates the model
#'   (zeroes the gradients, computes the loss, calls `backward()`) and returns the loss; it is
#'   required by `optim_lbfgs()`, which calls it several times per step. Returns the loss the
#'   closure gave (first call), or `NULL`;
#' * `param_groups`: the groups, as a list of named lists (`params` and the options). Setting
#'   it, e.g. `opt$param_groups[[1]]$lr <- 0.01`, changes the optimizer (all changes are
#'   checked first; a refused change leaves the optimizer as it was);
#' * `defaults`: the options' defaults (read-only);
#' * `add_param_group(param_group)`: add a group (a named list with `params`);
#' * `state_dict()`, `load_state_dict(state_dict)`: R torch's layout: a list with `state`
#'   (named by the parameter's 1-based index across groups) and `param_groups` (the options,
#'   with `params` the parameters' indices). A state dict that does not fit the optimizer is
#'   refused, and the optimizer is left unchanged.
#'
#' @param params A list of tensors, or a list of parameter groups.
#' @param lr Learning rate.
#' @param momentum,dampening,nesterov SGD's momentum factor, dampening for momentum, Nesterov
#'   momentum.
#' @param weight_decay Weight decay (L2 penalty; decoupled in `optim_adamw()`).
#' @param betas Coefficients of the running averages of the gradient and its square.
#' @param eps Term added to the denominator for numerical stability.
#' @param amsgrad Use the AMSGrad variant.
#' @param alpha RMSprop's smoothing constant.
#' @param centered RMSprop: normalize by an estimate of the gradient's variance.
#' @param lr_decay Adagrad's learning-rate decay.
#' @param initial_accumulator_value Adagrad's starting value of the accumulator.
#' @param rho Adadelta's coefficient of the running average of squared gradients.
#' @param max_iter,max_eval L-BFGS: maximal iterations and closure evaluations per step
#'   (`max_eval` defaults to `max_iter * 1.25`).
#' @param tolerance_grad,tolerance_change L-BFGS termination tolerances (first-order
#'   optimality; change of function value or parameters).
#' @param history_size L-BFGS update history size.
#' @param line_search_fn `NULL` or `"strong_wolfe"`.
#' @return An optimizer, of class `c("optim_<name>", "torch_optimizer", "R6")`.
#' @examples
#' if (rtorchpy_available()) {
#'   w <- torch_zeros(3, requires_grad = TRUE)
#'   x <- torch_randn(10, 3)
#'   y <- x$matmul(torch_tensor(c(1, 2, 3)))
#'   opt <- optim_adam(list(w), lr = 0.1)
#'   for (i in 1:5) {
#'     opt$zero_grad()
#'     loss <- ((x$matmul(w) - y)^2)$mean()
#'     loss$backward()
#'     opt$step()
#'   }
#'   opt$param_groups[[1]]$lr <- 0.01
#' }
#' @name optim
#' @export
#' @family optimizers
optim_sgd <- function(params, lr = optim_required(), momentum = 0, dampening = 0,
                      weight_decay = 0, nesterov = FALSE) {
  opts <- list(momentum = momentum, dampening = dampening, weight_decay = weight_decay,
               nesterov = nesterov)
  if (!is_optim_required(lr)) opts <- c(list(lr = lr), opts)
  .py_optimizer("optim_sgd", params, opts)
}

#' @rdname optim
#' @export
optim_adam <- function(params, lr = 0.001, betas = c(0.9, 0.999), eps = 1e-08,
                       weight_decay = 0, amsgrad = FALSE) {
  .py_optimizer("optim_adam", params, list(lr = lr, betas = betas, eps = eps,
                                           weight_decay = weight_decay, amsgrad = amsgrad))
}

#' @rdname optim
#' @export
optim_adamw <- function(params, lr = 0.001, betas = c(0.9, 0.999), eps = 1e-08,
                        weight_decay = 0.01, amsgrad = FALSE) {
  .py_optimizer("optim_adamw", params, list(lr = lr, betas = betas, eps = eps,
                                            weight_decay = weight_decay, amsgrad = amsgrad))
}

#' @rdname optim
#' @export
optim_rmsprop <- function(params, lr = 0.01, alpha = 0.99, eps = 1e-08, weight_decay = 0,
                          momentum = 0, centered = FALSE) {
  .py_optimizer("optim_rmsprop", params, list(lr = lr, alpha = alpha, eps = eps,
                                              weight_decay = weight_decay, momentum = momentum,
                                              centered = centered))
}

#' @rdname optim
#' @export
optim_adagrad <- function(params, lr = 0.01, lr_decay = 0, weight_decay = 0,
                          initial_accumulator_value = 0, eps = 1e-10) {
  .py_optimizer("optim_adagrad", params, list(lr = lr, lr_decay = lr_decay,
                                              weight_decay = weight_decay,
                                              initial_accumulator_value = initial_accumulator_value,
                                              eps = eps))
}

#' @rdname optim
#' @param etas Rprop's multiplicative decrease and increase factors of the step sizes.
#' @param step_sizes Rprop's smallest and largest step sizes.
#' @export
optim_rprop <- function(params, lr = 0.01, etas = c(0.5, 1.2), step_sizes = c(1e-06, 50)) {
  .py_optimizer("optim_rprop", params, list(lr = lr, etas = as.list(as.numeric(etas)),
                                            step_sizes = as.list(as.numeric(step_sizes))))
}

#' @rdname optim
#' @param lambda ASGD's decay term.
#' @param t0 The step from which ASGD starts averaging.
#' @export
optim_asgd <- function(params, lr = 0.01, lambda = 1e-04, alpha = 0.75, t0 = 1e+06,
                       weight_decay = 0) {
  .py_optimizer("optim_asgd", params, list(lr = lr, lambd = lambda, alpha = alpha, t0 = t0,
                                           weight_decay = weight_decay))
}

#' @rdname optim
#' @export
optim_adadelta <- function(params, lr = 1, rho = 0.9, eps = 1e-06, weight_decay = 0) {
  .py_optimizer("optim_adadelta", params, list(lr = lr, rho = rho, eps = eps,
                                               weight_decay = weight_decay))
}

#' @rdname optim
#' @export
optim_lbfgs <- function(params, lr = 1, max_iter = 20, max_eval = NULL, tolerance_grad = 1e-07,
                        tolerance_change = 1e-09, history_size = 100, line_search_fn = NULL) {
  opts <- list(lr = lr, max_iter = max_iter, tolerance_grad = tolerance_grad,
               tolerance_change = tolerance_change, history_size = history_size)
  if (!is.null(max_eval)) opts$max_eval <- max_eval
  if (!is.null(line_search_fn)) opts$line_search_fn <- line_search_fn
  .py_optimizer("optim_lbfgs", params, opts)
}

#' A required optimizer option
#'
#' The default of an option that every parameter group must give (as `lr` of
#' [optim_sgd()]); `is_optimizer()` tells whether an object is an optimizer.
#' @param x An object.
#' @return `optim_required()`: a marker object. `is_optimizer()`: `TRUE` or `FALSE`.
#' @export
#' @family optimizers
#' @examples
#' if (rtorchpy_available()) {
#'   is_optimizer(optim_sgd(list(torch_zeros(1, requires_grad = TRUE)), lr = 0.1))
#' }
optim_required <- function() structure(list(), class = "optim_required")

is_optim_required <- function(x) inherits(x, "optim_required")

#' @rdname optim_required
#' @export
is_optimizer <- function(x) inherits(x, "torch_optimizer")

# R's params as the bridge takes them: tensors as handles, groups as named lists.
.optim_params <- function(params) {
  if (is_torch_tensor(params)) params <- list(params)
  if (!is.list(params)) {
    .type_error("params must be a list of tensors or a list of parameter groups, got an object of ",
                "class '", class(params)[[1L]], "'")
  }
  lapply(unname(params), .optim_arg)
}

.optim_arg <- function(v) {
  if (is_torch_tensor(v)) return(.h(v))
  if (is.list(v) && !is.object(v)) return(lapply(v, .optim_arg))
  if (is.function(v) || is.environment(v)) {
    .value_error("a parameter group holds ", if (is.function(v)) "a function" else "an environment",
                 ", expected tensors and numbers")
  }
  .a(v)
}

.optim_groups_value <- function(groups) {
  lapply(groups, function(g) {
    if (!is.list(g) || is.null(names(g))) {
      .type_error("each parameter group must be a named list with an entry 'params'")
    }
    .optim_arg(g)
  })
}

# .bridge(...) with errors reported against `call` (the user's call, not the bridge's).
.optim_bridge <- function(call, name, ...) {
  # the usual reply (a tensor, NULL, a plain value) without a tryCatch() per call: a Python
  # error's reply is raised here with the user's call; the rarer replies (an R callback's
  # error among them: its condition is re-raised below) take the general path
  args <- list(...)
  r <- .Call(rtp_bcall, name, args)
  if (is.object(r) || is.null(r)) return(r)
  if (!is.null(names(r)) && !isTRUE(r[[.ERROR_IN_R]])) .raise_reply(r, call)
  if (is.list(r) && is.character(r[[1L]]) && r[[1L]] == "v") return(r[[2L]])
  tryCatch(.bridge_reply(name, args, r), rtorchpy_error = function(e) {
    e$call <- call
    stop(e)
  })
}

.py_optimizer <- function(name, params, opts, call = sys.call(-1L)) {
  # the reply (an "O" object) comes back wrapped: an external pointer holding the handle
  ptr <- .optim_bridge(call, "optim_new", name, .optim_params(params), lapply(opts, .optim_arg))
  .py_optimizer_class(name)$new(ptr)
}

# R values from the bridge's trees (see _enc_tree in rtorchpy/_r/optim.py): handles become
# tensors, ["__dict__", keys, values] named lists, ["__list__", items] lists, other lists of
# numbers vectors (betas).
.from_tree <- function(v) {
  if (is.complex(v)) {
    if (length(v) == 1L) return(.t(v))
    return(lapply(v, .t))
  }
  if (!is.list(v)) return(v)
  if (length(v) == 1L && identical(v[[1L]], "__required__")) return(optim_required())
  if (length(v) == 2L && identical(v[[1L]], "__list__")) {
    return(lapply(as.list(v[[2L]]), .from_tree))
  }
  if (length(v) == 3L && identical(v[[1L]], "__dict__")) {
    out <- lapply(v[[3L]], .from_tree)
    names(out) <- unlist(v[[2L]])
    return(out)
  }
  out <- lapply(v, .from_tree)
  if (length(out) && all(vapply(out, function(x) is.numeric(x) && length(x) == 1L, TRUE))) {
    return(unlist(out))
  }
  out
}

.named_from <- function(pair) {
  vals <- lapply(pair[[2L]], .from_tree)
  names(vals) <- unlist(pair[[1L]])
  vals
}

PyOptimizer <- .lazy_r6(function() R6::R6Class("torch_optimizer",
  lock_objects = FALSE,
  public = list(
    ptr = NULL,
    initialize = function(ptr) {
      self$ptr <- ptr
    },
    # (zero_grad and step run every training step: .subset2(self, "ptr") spares the failed S3
    # lookups of `$` on an R6 object, one per class; C calls the Python method itself, see
    # rtp_bridgex. A reply other than NULL: an error, or a call C left to the general path.)
    zero_grad = function(set_to_none = FALSE) {
      # (a flag checked by primitives: isFALSE() alone would cost a fifth of the call)
      if (!is.logical(set_to_none) || length(set_to_none) != 1L || is.na(set_to_none)) {
        set_to_none <- .flag(set_to_none)
      }
      ptr <- .subset2(self, "ptr")
      r <- .External(rtp_bridgex, "optim_zero_grad", ptr, set_to_none)
      if (!is.null(r)) {
        .reply_t(.callable(.T_BRIDGE, "optim_zero_grad"), list(ptr, set_to_none), r, sys.call())
      }
      invisible(NULL)
    },
    step = function(closure = NULL) {
      if (is.null(closure)) {
        ptr <- .subset2(self, "ptr")
        r <- .External(rtp_bridgex, "optim_step", ptr)
        if (!is.null(r)) .reply_t(.callable(.T_BRIDGE, "optim_step"), list(ptr), r, sys.call())
        return(invisible(NULL))
      }
      if (!is.function(closure)) {
        .type_error("closure must be a function returning the loss")
      }
      .closure_dispatcher()
      if (is.null(.rt$closures)) .rt$closures <- list()
      n <- length(.rt$closures) + 1L
      .rt$closures[[n]] <- closure
      on.exit(.rt$closures[[n]] <- NULL, add = TRUE)
      .optim_bridge(sys.call(), "optim_step", .h(self$ptr), TRUE)
    },
    add_param_group = function(param_group) {
      if (!is.list(param_group) || is.null(names(param_group))) {
        .type_error("param_group must be a named list with an entry 'params'")
      }
      .optim_bridge(sys.call(), "optim_add_param_group", .h(self$ptr), .optim_arg(param_group))
      invisible(self)
    },
    state_dict = function() {
      r <- .bridge("optim_state_dict", .h(self$ptr))
      state <- lapply(r[[1L]][[2L]], .from_tree)
      names(state) <- unlist(r[[1L]][[1L]])
      groups <- lapply(r[[2L]], .named_from)
      for (i in seq_along(groups)) groups[[i]]$params <- as.integer(unlist(groups[[i]]$params))
      list(state = state, param_groups = groups)
    },
    load_state_dict = function(state_dict, ...) {
      if (!is.list(state_dict) || !all(c("state", "param_groups") %in% names(state_dict))) {
        .type_error("state_dict must be a list with entries 'state' and 'param_groups'")
      }
      state <- state_dict$state
      if (length(state) && is.null(names(state))) {
        .value_error("the state dict's 'state' must be named by the parameters' indices")
      }
      state <- if (length(state)) lapply(state, .optim_arg) else NULL
      groups <- lapply(state_dict$param_groups, function(g) {
        if (!is.list(g)) .type_error("each of 'param_groups' must be a named list")
        g$params <- as.list(g$params)
        .optim_arg(g)
      })
      .optim_bridge(sys.call(), "optim_load_state_dict", .h(self$ptr), state, groups)
      invisible(self)
    },
    print = function(...) {
      cat(.bridge("optim_repr", .h(self$ptr)), "\n", sep = "")
      invisible(self)
    }
  ),
  active = list(
    param_groups = function(value) {
      if (missing(value)) {
        return(lapply(.bridge("optim_groups", .h(self$ptr)), .named_from))
      }
      if (!is.list(value) || !length(value)) {
        .value_error("param_groups must be a non-empty list of parameter groups")
      }
      .optim_bridge(NULL, "optim_set_groups", .h(self$ptr), .optim_groups_value(value))
    },
    defaults = function(value) {
      if (!missing(value)) .value_error("the defaults of a built-in optimizer are read-only")
      .named_from(.bridge("optim_defaults", .h(self$ptr)))
    }
  )
))

# each built-in optimizer's R6 class (PyOptimizer under the optimizer's name), made on first
# use: a class made when the package is built is stored with its own copies of R6's methods
.PY_OPTIMIZERS <- new.env(parent = emptyenv())
.py_optimizer_class <- function(name) {
  cls <- .PY_OPTIMIZERS[[name]]
  if (is.null(cls)) {
    cls <- R6::R6Class(name, inherit = .r6(PyOptimizer), lock_objects = FALSE)
    assign(name, cls, envir = .PY_OPTIMIZERS)
  }
  cls
}

# opt$step(closure): R keeps the closures of the steps in progress on a stack (.rt$closures;
# each step pops its own on exit) and Python calls one R function, set once, that runs the top
# one. So Python never holds a user's closure (no cycle), and no R function is converted per
# step. The dispatcher returns the loss's handle (Python decodes it before any R code runs
# again, so the loss's R object may go).
.closure_dispatcher <- function() {
  if (isTRUE(.rt$closure_dispatch)) return(invisible())
  .bridge("optim_set_dispatch", .py_callback(function() .run_top_closure()))
  .rt$closure_dispatch <- TRUE
  invisible()
}

.run_top_closure <- function() {
  n <- length(.rt$closures)
  if (!n) .runtime_error("no optimizer step with a closure is in progress")
  loss <- .rt$closures[[n]]()
  if (!is_torch_tensor(loss)) {
    .type_error("the closure must return the loss as a tensor")
  }
  .h(loss)
}
