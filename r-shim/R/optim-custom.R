# Optimizers written in R (R torch's optimizer()): pure R on the tensor ops. Their
# per-parameter state lives on the parameter (state(param)), as in R torch.

.SCHEDULER_KEYS <- c("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")

#' Define an optimizer in R
#'
#' As R torch's `optimizer()`: `initialize(params, ...)` sets the optimizer up and must call
#' `super$initialize(params, defaults)` (`defaults`: a named list of every option and its
#' default, [optim_required()] for one each group must give); `step(closure = NULL)` updates
#' the parameters, reading `self$param_groups` (a list of named lists: `params` and the
#' options) and the per-parameter state (`state(param)`, or `self$state$get(param)` /
#' `self$state$set(param, value)`), and should change them under [with_no_grad()].
#' `private$step_helper(closure, loop_fun)` runs the closure (with grad mode on), then calls
#' `loop_fun(group, param, g, p)` under no-grad for every parameter that has a gradient, and
#' returns the closure's loss.
#'
#' The base class gives `add_param_group()`, `zero_grad(set_to_none = FALSE)`,
#' `state_dict()` and `load_state_dict()` (the layout of the built-in optimizers', see
#' [optim]). Parameter groups are checked as the built-in optimizers check them: tensors that
#' are leaves, no option the defaults do not name, a non-negative `lr`.
#'
#' @param name The class name.
#' @param inherit The parent: another optimizer defined with `optimizer()` (the default is
#'   the base class). The built-in optimizers run in Python and cannot be inherited from.
#' @param ... Methods and fields: `initialize`, `step`, and any other.
#' @param private,active Private methods and active bindings (R6).
#' @param parent_env The environment the methods are evaluated in.
#' @return A generator: a function whose arguments go to `initialize`, of class
#'   `c(name, "torch_optimizer_generator")`.
#' @examples
#' if (rtorchpy_available()) {
#'   optim_sgd2 <- optimizer(
#'     "optim_sgd2",
#'     initialize = function(params, learning_rate) {
#'       super$initialize(params, list(learning_rate = learning_rate))
#'     },
#'     step = function(closure = NULL) {
#'       private$step_helper(closure, function(group, param, g, p) {
#'         param$add_(param$grad, alpha = -group$learning_rate)
#'       })
#'     }
#'   )
#'   x <- torch_ones(2, requires_grad = TRUE)
#'   opt <- optim_sgd2(list(x), learning_rate = 0.1)
#'   (x^2)$sum()$backward()
#'   opt$step()
#'   x
#' }
#' @export
#' @family optimizers
optimizer <- function(name = NULL, inherit = Optimizer, ..., private = NULL, active = NULL,
                      parent_env = parent.frame()) {
  if (inherits(inherit, "torch_optimizer_generator")) inherit <- attr(inherit, "Optimizer")
  inherit <- .r6(inherit)
  if (is.function(inherit) && !R6::is.R6Class(inherit)) {
    .type_error("inherit must be an optimizer defined in R with optimizer(); the built-in ",
                "optimizers run in Python and cannot be inherited from")
  }
  if (!R6::is.R6Class(inherit)) .type_error("inherit must be an optimizer class")
  if (is.null(name)) name <- "optimizer"
  if (!is.character(name) || length(name) != 1L) {
    .type_error("name must be a string")
  }
  methods <- list(...)
  for (nm in c("initialize", "step")) {
    if (!is.null(methods[[nm]]) && !is.function(methods[[nm]])) {
      .type_error(nm, " must be a function")
    }
  }
  # inherit passed as the class itself (R6 would evaluate its expression in parent_env)
  Class <- do.call(R6::R6Class, list(classname = name, inherit = inherit, public = methods,
                                     private = private, active = active,
                                     parent_env = parent_env, lock_objects = FALSE))
  gen <- function(...) Class$new(...)
  structure(gen, class = c(name, "torch_optimizer_generator"), Optimizer = Class)
}

#' @export
print.torch_optimizer_generator <- function(x, ...) {
  cat("<optimizer generator: ", class(x)[[1L]], ">\n", sep = "")
  invisible(x)
}

#' Per-parameter optimizer state
#'
#' `state(param)` is the state an optimizer defined with [optimizer()] keeps for `param` (a
#' list, `NULL` before the first step); `state(param) <- value` sets it. As in R torch, the
#' state is attached to the parameter tensor itself.
#' @param self A parameter (a tensor).
#' @param value A list.
#' @return `state()`: the list, or `NULL`.
#' @export
#' @family optimizers
#' @examples
#' if (rtorchpy_available()) {
#'   p <- torch_zeros(1, requires_grad = TRUE)
#'   opt <- optim_adam(list(p))
#'   (p - 1)$pow(2)$sum()$backward()
#'   opt$step()
#'   names(opt$state_dict())
#' }
state <- function(self) attr(self, "rtorchpy_optim_state", exact = TRUE)

#' @rdname state
#' @export
`state<-` <- function(self, value) {
  attr(self, "rtorchpy_optim_state") <- value
  self
}

OptimizerState <- .lazy_r6(function() R6::R6Class("torch_optimizer_state",
  public = list(
    get = function(param) state(param),
    set = function(param, value) {
      state(param) <- value
      invisible(value)
    }
  )
))

Optimizer <- .lazy_r6(function() R6::R6Class("torch_optimizer",
  lock_objects = FALSE,
  public = list(
    defaults = NULL,
    param_groups = NULL,
    state = NULL,
    initialize = function(params, defaults) {
      if (!is.list(defaults) || (length(defaults) && is.null(names(defaults)))) {
        .type_error("defaults must be a named list of the optimizer's options")
      }
      if (is_torch_tensor(params)) params <- list(params)
      if (!is.list(params)) {
        .type_error("params must be a list of tensors or a list of parameter groups")
      }
      if (!length(params)) .value_error("optimizer got an empty parameter list")
      groups <- if (is_torch_tensor(params[[1L]])) list(list(params = params)) else params
      self$defaults <- defaults
      self$state <- .r6(OptimizerState)$new()
      self$param_groups <- list()
      for (g in groups) self$add_param_group(g)
    },
    add_param_group = function(param_group) {
      group <- .check_param_group(param_group, self$defaults, self$param_groups,
                                  class(self)[[1L]])
      self$param_groups <- c(self$param_groups, list(group))
      invisible(self)
    },
    zero_grad = function(set_to_none = FALSE) {
      for (group in self$param_groups) {
        for (p in group$params) {
          g <- p$grad
          if (is.null(g) || is_undefined_tensor(g)) next
          if (.flag(set_to_none)) {
            p$grad <- NULL
          } else {
            g$detach_()
            g$zero_()
          }
        }
      }
      invisible(NULL)
    },
    step = function(closure = NULL) {
      .not_implemented_error(class(self)[[1L]], " does not implement step()")
    },
    state_dict = function() {
      index <- 0L
      state <- list()
      groups <- lapply(self$param_groups, function(group) {
        ids <- integer(0)
        for (p in group$params) {
          index <<- index + 1L
          ids <- c(ids, index)
          s <- state(p)
          if (length(s)) state[[as.character(index)]] <<- .copy_state(s)
        }
        group$params <- ids
        group
      })
      list(state = state, param_groups = groups)
    },
    load_state_dict = function(state_dict, ...) {
      if (!is.list(state_dict) || !all(c("state", "param_groups") %in% names(state_dict))) {
        .type_error("state_dict must be a list with entries 'state' and 'param_groups'")
      }
      saved <- state_dict$param_groups
      if (length(saved) != length(self$param_groups)) {
        .value_error("loaded state dict has a different number of parameter groups (",
                     length(saved), ") than the optimizer (", length(self$param_groups), ")")
      }
      by_index <- list()
      new_groups <- self$param_groups
      for (i in seq_along(saved)) {
        s <- saved[[i]]
        own <- self$param_groups[[i]]
        if (!is.list(s) || is.null(s$params)) {
          .value_error("loaded parameter group ", i, " is not a named list with 'params'")
        }
        if (length(s$params) != length(own$params)) {
          .value_error("loaded state dict contains a parameter group that doesn't match the size of ",
                       "optimizer's group (group ", i, ": ", length(s$params), " parameters saved, ",
                       length(own$params), " in the optimizer)")
        }
        unknown <- setdiff(names(s), c("params", names(own), .SCHEDULER_KEYS))
        if (length(unknown)) {
          .value_error("loaded parameter group ", i, " has options unknown to ", class(self)[[1L]],
                       ": ", paste0("'", unknown, "'", collapse = ", "))
        }
        for (j in seq_along(s$params)) by_index[[as.character(s$params[[j]])]] <- own$params[[j]]
        g <- s
        g$params <- own$params
        .check_lr(g[["lr"]])
        new_groups[[i]] <- g
      }
      st <- state_dict$state
      for (k in names(st)) {
        if (is.null(by_index[[k]])) {
          .value_error("loaded state refers to parameter ", k, ", which no loaded parameter group ",
                       "contains")
        }
      }
      # everything checked: swap in
      for (group in self$param_groups) for (p in group$params) state(p) <- NULL
      for (k in names(st)) {
        p <- by_index[[k]]
        state(p) <- .copy_state(st[[k]])
      }
      self$param_groups <- new_groups
      invisible(self)
    }
  ),
  private = list(
    step_helper = function(closure, loop_fun) {
      loss <- NULL
      if (!is.null(closure)) loss <- with_enable_grad(closure())
      with_no_grad({
        for (g in seq_along(self$param_groups)) {
          group <- self$param_groups[[g]]
          for (p in seq_along(group$params)) {
            param <- group$params[[p]]
            grad <- param$grad
            if (is.null(grad) || is_undefined_tensor(grad)) next
            loop_fun(group, param, g, p)
          }
        }
      })
      loss
    }
  )
))

.copy_state <- function(v) {
  if (is_torch_tensor(v)) return(v$detach()$clone())
  if (is.list(v) && !is.object(v)) return(lapply(v, .copy_state))
  v
}

.check_lr <- function(lr) {
  if (is.null(lr) || is_optim_required(lr)) return(invisible())
  if (!is.numeric(lr) || length(lr) != 1L || is.na(lr)) {
    .type_error("lr must be a number")
  }
  if (lr < 0) .value_error("Invalid learning rate: ", lr)
  invisible()
}

# A parameter group checked and completed with the defaults (an error names the problem;
# nothing is changed).
.check_param_group <- function(param_group, defaults, existing, classname) {
  if (!is.list(param_group) || is.null(names(param_group)) || is.null(param_group$params)) {
    .type_error("a parameter group must be a named list with an entry 'params'")
  }
  params <- param_group$params
  if (is_torch_tensor(params)) params <- list(params)
  if (!is.list(params)) .type_error("params must be a tensor or a list of tensors")
  if (!length(params)) .value_error("optimizer got an empty parameter list")
  for (p in params) {
    if (!is_torch_tensor(p)) {
      .type_error("optimizer can only optimize Tensors, but one of the params is ",
                  class(p)[[1L]])
    }
    if (!isTRUE(p$is_leaf)) .value_error("can't optimize a non-leaf Tensor")
  }
  unknown <- setdiff(names(param_group), c("params", names(defaults), .SCHEDULER_KEYS))
  if (length(unknown)) {
    .value_error("unknown optimizer option", if (length(unknown) > 1L) "s", " ",
                 paste0("'", unknown, "'", collapse = ", "), " in parameter group; ", classname,
                 " knows: ", paste(names(defaults), collapse = ", "))
  }
  group <- param_group
  group$params <- params
  for (nm in names(defaults)) {
    if (!is.null(param_group[[nm]])) next
    if (is_optim_required(defaults[[nm]])) {
      .value_error("parameter group didn't specify a value of required optimization parameter ", nm)
    }
    group[nm] <- list(defaults[[nm]])
  }
  .check_lr(group[["lr"]])
  keys <- vapply(params, function(p) Re(.h(p)), 0)
  if (anyDuplicated(keys)) {
    .value_error("optimizer contains a parameter group with duplicate parameters")
  }
  for (other in existing) {
    if (any(vapply(other$params, function(p) Re(.h(p)), 0) %in% keys)) {
      .value_error("some parameters appear in more than one parameter group")
    }
  }
  group
}
