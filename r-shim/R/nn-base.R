# nn_module: R torch's module system, in R (an R6 object holding tensor handles). R closures
# (initialize, forward, methods) never cross to Python; only the tensors' ops do.

#' @include bridge.R
NULL

# A module's R6 private environment. R6 hands it only to the class's own methods, so the base
# class has a method returning it (`.private_env`); the answer is kept in the object
# (`.__rtp_private__`), and the object it belongs to is written into it (`.__owner__`, inside a
# plain environment, which clone(deep = TRUE) leaves alone). A clone copies both bindings; the
# owner check then sends it back here for its own.
.nn_private <- function(x) {
  p <- .subset2(x, ".__rtp_private__")
  if (is.environment(p) && identical(.subset2(p, ".__owner__")$module, x)) return(p)
  get_private <- .subset2(x, ".private_env")
  if (!is.function(get_private)) return(NULL)
  p <- get_private()
  owner <- new.env(parent = emptyenv(), size = 1L)
  owner$module <- x
  assign(".__owner__", owner, envir = p)
  assign(".__rtp_private__", p, envir = x)
  p
}

.nn_error <- function(...) {
  .value_error(...)
}

# a bad argument value, of R torch's condition class for it
.nn_value_error <- function(...) {
  stop(structure(class = c("value_error", "rtorchpy_error", "error", "condition"),
                 list(message = paste0(...), call = NULL)))
}

.tensor_key <- function(x) Re(.h(x))

.nn_Module <- R6::R6Class(
  classname = "nn_Module",
  lock_objects = FALSE,
  public = list(
    training = TRUE,
    initialize = function() {},
    forward = function(...) .nn_error("forward() is not implemented for this module"),

    register_parameter = function(name, param) {
      .nn_check_name(name, "parameter")
      if (!is.null(param) && !is_torch_tensor(param)) {
        .nn_error("register_parameter(): `param` must be a tensor, got ", .what(param))
      }
      if (!is.null(param) && !inherits(param, "nn_parameter")) {
        class(param) <- unique(c("nn_parameter", class(param)))
      }
      private$parameters_[[name]] <- param
      invisible(self)
    },
    register_buffer = function(name, tensor, persistent = TRUE) {
      .nn_check_name(name, "buffer")
      if (!is.null(tensor) && !is_torch_tensor(tensor)) {
        .nn_error("register_buffer(): `tensor` must be a tensor, got ", .what(tensor))
      }
      private$buffers_[[name]] <- tensor
      np <- setdiff(private$non_persistent_buffers_, name)
      private$non_persistent_buffers_ <- if (isFALSE(persistent)) c(np, name) else np
      invisible(self)
    },
    register_module = function(name, module) {
      if (is.numeric(name)) name <- as.character(name)
      .nn_check_name(name, "module")
      if (inherits(module, "nn_Module")) module <- .nn_callable(module)
      if (!is.null(module) && !is_nn_module(module)) {
        .nn_error("register_module(): `module` must be an nn_module, got ", .what(module))
      }
      private$modules_[[name]] <- module
      invisible(self)
    },
    add_module = function(name, module) self$register_module(name, module),

    train = function(mode = TRUE) {
      self$training <- .flag(mode)
      for (m in private$modules_) m$train(mode)
      invisible(.nn_callable(self))
    },
    eval = function() self$train(FALSE),
    zero_grad = function() {
      for (p in self$parameters) {
        g <- p$grad
        if (!is_undefined_tensor(g)) {
          g$detach_()
          g$zero_()
        }
      }
      invisible(NULL)
    },

    named_parameters = function(recursive = TRUE) {
      .nn_named(self, "parameters_", recursive)
    },
    named_buffers = function(recursive = TRUE) {
      .nn_named(self, "buffers_", recursive)
    },

    state_dict = function(prefix = "", keep_vars = FALSE) {
      out <- list()
      for (nm in names(private$parameters_)) {
        p <- private$parameters_[[nm]]
        # the parameter itself, requires_grad included, as R torch's state_dict gives it
        if (!is.null(p)) out[[paste0(prefix, nm)]] <- p
      }
      for (nm in names(private$buffers_)) {
        b <- private$buffers_[[nm]]
        if (!is.null(b) && !nm %in% private$non_persistent_buffers_) {
          out[[paste0(prefix, nm)]] <- if (keep_vars) b else b$detach()
        }
      }
      for (nm in names(private$modules_)) {
        m <- private$modules_[[nm]]
        if (!is.null(m)) {
          out <- c(out, m$state_dict(prefix = paste0(prefix, nm, "."), keep_vars = keep_vars))
        }
      }
      out
    },
    load_state_dict = function(state_dict, ..., strict = TRUE, .refer_to_state_dict = FALSE) {
      .nn_load_state_dict(self, state_dict, strict, .refer_to_state_dict)
      invisible(.nn_callable(self))
    },

    apply = function(fn) {
      for (m in private$modules_) m$apply(fn)
      fn(.nn_callable(self))
      invisible(.nn_callable(self))
    },
    .apply = function(fn) {
      for (m in private$modules_) m$.apply(fn)
      for (nm in names(private$parameters_)) {
        p <- private$parameters_[[nm]]
        if (is.null(p)) next
        new <- with_no_grad(fn(p))
        if (!identical(.tensor_key(new), .tensor_key(p))) {
          g <- p$grad
          np <- nn_parameter(new, requires_grad = p$requires_grad)
          # the gradient goes along, converted the same way (as R torch's $to() does)
          if (!is.null(g) && !is_undefined_tensor(g)) np$grad <- with_no_grad(fn(g))
          private$parameters_[[nm]] <- np
        }
      }
      for (nm in names(private$buffers_)) {
        b <- private$buffers_[[nm]]
        if (!is.null(b)) private$buffers_[[nm]] <- fn(b)
      }
      invisible(.nn_callable(self))
    },
    to = function(dtype = NULL, device = NULL, tensor = NULL, non_blocking = FALSE,
                  copy = FALSE, ...) {
      .nn_check_device(device)
      if (!is.null(tensor)) dtype <- tensor$dtype
      if (is.null(dtype)) return(invisible(.nn_callable(self)))
      if (!inherits(dtype, "torch_dtype") || !isTRUE(dtype$is_floating_point)) {
        .nn_error("nn_module$to() only accepts floating point dtypes, got ", format(dtype))
      }
      self$.apply(function(x) if (x$is_floating_point()) x$to(dtype = dtype) else x)
    },
    cpu = function() invisible(.nn_callable(self)),
    cuda = function(...) .nn_error("CUDA is not available: rtorchpy computes on the CPU"),

    print = function(...) {
      .nn_print(self, private)
      invisible(self)
    },
    .private_env = function() private
  ),
  private = list(
    parameters_ = list(),
    buffers_ = list(),
    modules_ = list(),
    non_persistent_buffers_ = character(),
    deep_clone = function(name, value) {
      # (the cached private environment belongs to the original: a clone finds its own, see
      # .nn_private)
      if (identical(name, ".__rtp_private__")) return(NULL)
      .nn_deep_clone_value(name, value)
    }
  ),
  active = list(
    parameters = function(value) {
      if (!missing(value)) {
        .nn_error("It's not possible to modify the parameters list.\n You can modify the ",
                  "parameter in-place or use `module$parameter_name <- new_value`")
      }
      self$named_parameters()
    },
    buffers = function(value) {
      if (!missing(value)) {
        .nn_error("It's not possible to modify the buffers list.\n You can modify the ",
                  "buffer in-place or use `module$buffer_name <- new_value`")
      }
      self$named_buffers()
    },
    modules = function(value) {
      if (!missing(value)) .nn_error("It's not possible to modify the modules list.")
      out <- list(.nn_callable(self))
      for (m in private$modules_) {
        if (!is.null(m)) out <- c(out, m$modules)
      }
      envs <- lapply(out, function(m) attr(m, "module"))
      out[!duplicated(envs)]
    },
    children = function(value) {
      if (!missing(value)) .nn_error("It's not possible to modify the children list.")
      private$modules_
    }
  )
)

.what <- function(x) {
  if (is.null(x)) "NULL" else paste0("an object of class '", class(x)[[1L]], "'")
}

.nn_check_name <- function(name, what) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name)) {
    .nn_error("the ", what, " name must be a non-empty string")
  }
  if (grepl(".", name, fixed = TRUE)) .nn_error("the ", what, " name can't contain \".\"")
}

.nn_check_device <- function(device) {
  if (is.null(device)) return(invisible())
  if (!inherits(device, "torch_device") &&
      !(is.character(device) && length(device) == 1L && !is.na(device))) {
    .nn_error("`device` must be a device or a string such as \"cpu\", got ", .what(device))
  }
  type <- if (inherits(device, "torch_device")) device$type else device
  if (!identical(sub(":.*", "", type), "cpu")) {
    .nn_error("device '", type, "' is not available: rtorchpy computes on the CPU")
  }
}

# Parameters or buffers of x (and its descendants: names joined with "."), without duplicates.
.nn_named <- function(x, field, recursive) {
  priv <- .nn_private(x)
  own <- Filter(Negate(is.null), priv[[field]])
  if (!recursive) return(own)
  # R torch lists the children's (recursively, in registration order) before the module's own:
  # code indexing `parameters[[i]]` depends on it
  out <- list()
  for (nm in names(priv$modules_)) {
    m <- priv$modules_[[nm]]
    if (is.null(m)) next
    sub <- .nn_named(attr(m, "module"), field, TRUE)
    if (length(sub)) names(sub) <- paste0(nm, ".", names(sub))
    out <- c(out, sub)
  }
  out <- c(out, own)
  if (length(out) > 1L) out <- out[!duplicated(vapply(out, .tensor_key, 0))]
  out
}

# -- the generator and the callable instance ------------------------------------------------

#' Define a neural network module
#'
#' As R torch's `nn_module()`: returns a *generator*; calling it (`net <- Net(10, 5)`) runs
#' `initialize` with `self` (and `super$initialize()` when inheriting) and returns the module,
#' itself a function (`net(x)` calls `forward`). Tensors made with [nn_parameter()] or
#' [nn_buffer()] and modules assigned to `self$...` in `initialize` are registered as
#' parameters, buffers and submodules. A module offers `$parameters`, `$named_parameters()`,
#' `$buffers`, `$named_buffers()`, `$children`, `$modules`, `$train()`, `$eval()`,
#' `$training`, `$zero_grad()`, `$to(dtype = )`, `$cpu()`, `$state_dict()`,
#' `$load_state_dict()`, `$apply(fn)`, `$register_parameter()`, `$register_buffer()`,
#' `$register_module()` and `$clone(deep = TRUE)`.
#'
#' `$load_state_dict(state_dict, strict = TRUE, .refer_to_state_dict = FALSE)` checks
#' everything first (missing or unexpected keys, values that are not tensors, shapes) and
#' changes nothing on error; then it copies the values into the module's tensors (or, with
#' `.refer_to_state_dict = TRUE`, makes the given tensors the module's). `strict = FALSE`
#' skips missing and unexpected keys. `$state_dict()` holds the parameters and the persistent
#' buffers, detached (`keep_vars = TRUE`: as they are). `$clone(deep = TRUE)` copies the
#' tensors too (a tensor or module shared inside the module stays shared in the copy).
#'
#' The module is an R object (an R6 object holding tensor handles): its closures never cross
#' to Python.
#'
#' @param classname The class name of the modules made (`class(net)` is
#'   `c(classname, "nn_module")`).
#' @param inherit A generator made by `nn_module()` to inherit from.
#' @param ... Public members: `initialize`, `forward`, other methods and fields.
#' @param private,active Private members and active bindings (as in R6).
#' @param parent_env The environment the methods are defined in.
#' @return A module generator (class `c(classname, "nn_module_generator")`).
#' @examples
#' if (rtorchpy_available()) {
#'   Net <- nn_module("Net",
#'     initialize = function(n_in, n_out) {
#'       self$fc <- nn_linear(n_in, n_out)
#'     },
#'     forward = function(x) nnf_relu(self$fc(x))
#'   )
#'   net <- Net(3, 2)
#'   net(torch_randn(4, 3))
#'   names(net$parameters)
#' }
#' @export
#' @family neural network modules
nn_module <- function(classname = NULL, inherit = NULL, ..., private = NULL, active = NULL,
                      parent_env = parent.frame()) {
  if (is.null(inherit)) inherit <- .nn_Module
  parent <- attr(inherit, "nn_recipe")
  if (is.null(parent) && !inherits(inherit, "R6ClassGenerator")) {
    .nn_error("nn_module(): `inherit` must be a generator made by nn_module()")
  }
  public <- list(...)
  # What makes the R6 class, kept until the class is first needed (see .nn_class)
  recipe <- new.env(parent = emptyenv())
  recipe$classes <- unique(c(classname, if (is.null(parent)) inherit$public_fields$.classes
                                        else parent$classes, "nn_module"))
  recipe$spec <- list(classname = classname, inherit = inherit, public = public,
                      private = private, active = active, parent_env = parent_env)
  # the generator has initialize's arguments (as in R torch), passed on by name
  fmls <- if (!is.null(public$initialize)) formals(public$initialize)
          else if (!is.null(parent)) formals(inherit)
          else formals(.nn_init_of(inherit))
  args <- lapply(names(fmls), as.symbol)
  names(args) <- ifelse(names(fmls) == "...", "", names(fmls))
  gen <- function() NULL
  formals(gen) <- fmls
  # (the namespace itself, not a copy of a function, sits in the body: a package's generators
  # are stored in its lazy-load database, where each inlined closure would be a copy)
  body(gen) <- bquote(.(.nn_namespace())$.nn_new(.(recipe), ..(args)), splice = TRUE)
  environment(gen) <- parent_env
  gen <- structure(gen, class = c(classname, "nn_module_generator"), nn_recipe = recipe)
  # A user's class is made now (R6's own checks report at the definition, as in R torch). The
  # package's ~100 built-in modules make theirs when first used: an R6 class carries its own
  # byte-compiled copies of R6's methods (10-30 kB each once stored): half of the installed R
  # code otherwise.
  if (!identical(topenv(parent_env), .nn_namespace())) .nn_class(recipe)
  gen
}

.nn_namespace <- function() environment(.nn_namespace)

# The R6 class of a generator made by nn_module() (made once, on first use), or `gen` itself
# when it is an R6 class already.
.nn_class <- function(gen) {
  recipe <- if (is.environment(gen) && !inherits(gen, "R6ClassGenerator")) gen
            else attr(gen, "nn_recipe")
  if (is.null(recipe)) return(gen)
  cls <- recipe$class
  if (!is.null(cls)) return(cls)
  s <- recipe$spec
  e <- new.env(parent = s$parent_env)
  e$inherit <- .nn_class(s$inherit)
  public <- s$public
  private <- s$private
  if (identical(topenv(s$parent_env), .nn_namespace())) {  # (the package's own modules)
    public <- lapply(public, .nn_direct_reads)
    if (is.list(private)) private <- lapply(private, .nn_direct_reads)
  }
  # (R6 evaluates `inherit` when an object is made, in parent_env: e holds it)
  cls <- R6::R6Class(classname = s$classname, inherit = inherit, lock_objects = FALSE,
                     public = c(list(.classes = recipe$classes), public),
                     private = private, active = s$active, parent_env = e)
  recipe$class <- cls
  cls
}

# The package's own modules read `self$weight` in every forward, several times. R's `$` on a
# module first looks for a method of each class before `nn_Module` (`$.nn_linear`, ...: a walk
# of the search path each), about 2.5 µs a read. In the package's module methods each read
# `self$name` becomes a call of what `$.nn_Module` does (rtp_nn_get, the same lookup and
# answer) without that search. Assignments (`self$x <- v`) and quoted code are left as they
# are; a user's modules are not changed (their `$` dispatches as R torch's does).
.nn_direct_reads <- function(f) {
  if (!is.function(f) || is.primitive(f)) return(f)
  body(f) <- .nn_rewrite_reads(body(f))
  f
}

.nn_rewrite_reads <- function(e) {
  if (!is.call(e)) return(e)
  head <- e[[1L]]
  if (identical(head, quote(`$`)) && identical(e[[2L]], quote(self)) && length(e) == 3L &&
      (is.symbol(e[[3L]]) || is.character(e[[3L]]))) {
    return(call(".Call", quote(rtp_nn_get), quote(self), as.character(e[[3L]])))
  }
  if (is.symbol(head)) {
    h <- as.character(head)
    if (h %in% c("quote", "bquote", "substitute", "expression", "~")) return(e)
    # the target of an assignment stays (R's complex assignment needs `$<-`); its value not
    if (h %in% c("<-", "=", "<<-") && length(e) == 3L) {
      e[3L] <- list(.nn_rewrite_reads(e[[3L]]))  # (list(): a NULL value stays)
      return(e)
    }
    if (h == "function") {  # a closure made in the method: its body (not its defaults)
      e[3L] <- list(.nn_rewrite_reads(e[[3L]]))  # (list(): a NULL value stays)
      return(e)
    }
  }
  for (i in seq_along(e)) {
    if (!identical(e[[i]], quote(expr = ))) {
      e[i] <- list(.nn_rewrite_reads(e[[i]]))
    }
  }
  e
}

.nn_new <- function(recipe, ...) .nn_callable(.nn_class(recipe)$new(...))

.nn_init_of <- function(gen) {
  while (!is.null(gen)) {
    f <- gen$public_methods$initialize
    if (!is.null(f)) return(f)
    gen <- gen$get_inherit()
  }
  function() NULL
}

# The module as R torch hands it out: its forward method, classed, with the R6 object attached.
.nn_callable <- function(instance) {
  f <- .subset2(instance, "forward")
  attributes(f) <- list(class = .subset2(instance, ".classes") %||% "nn_module",
                        module = instance)
  f
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' Is an object a neural network module?
#'
#' @param x Any R object.
#' @return `TRUE` for a module made by a generator of [nn_module()].
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   is_nn_module(nn_linear(2, 1))
#'   is_nn_module(1)
#' }
is_nn_module <- function(x) inherits(x, "nn_module") && !inherits(x, "nn_module_generator")

#' Mark a tensor as a parameter or a buffer of a module
#'
#' Assigned to `self$name` in a module's `initialize`, a tensor marked with `nn_parameter()`
#' is registered as a parameter (in `$parameters`, trained), one marked with `nn_buffer()` as
#' a buffer (in `$buffers`; in `$state_dict()` unless `persistent = FALSE`).
#'
#' @param x A tensor.
#' @param requires_grad Whether the parameter requires grad.
#' @param persistent Whether the buffer is part of the module's `state_dict()`.
#' @return `x`, marked (the class is set on the tensor itself, as in R torch).
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   p <- nn_parameter(torch_zeros(2))
#'   p$requires_grad
#' }
nn_parameter <- function(x, requires_grad = TRUE) {
  if (!is_torch_tensor(x)) .nn_error("`x` must be a tensor.")
  x$requires_grad_(requires_grad)
  class(x) <- unique(c("nn_parameter", class(x)))
  x
}

#' @rdname nn_parameter
#' @export
nn_buffer <- function(x, persistent = TRUE) {
  if (!is_torch_tensor(x)) .nn_error("`x` must be a tensor.")
  class(x) <- unique(c("nn_buffer", class(x)))
  attr(x, "persistent") <- persistent
  x
}

# -- `$`, `[[` and assignment -----------------------------------------------------------------

# `$` of a module. Every self$weight in a forward takes `$.nn_Module`, which does this in C
# (rtp_nn_get: parameters, buffers, child modules) and calls this function for the rest.
.nn_get <- function(x, name) {
  priv <- .nn_private(x)
  if (!is.null(priv)) {
    v <- priv$parameters_[[name]]
    if (!is.null(v)) return(v)
    v <- priv$buffers_[[name]]
    if (!is.null(v)) return(v)
    v <- priv$modules_[[name]]
    if (!is.null(v)) return(v)
  }
  if (identical(name, "clone")) return(function(deep = FALSE) .nn_clone(x, deep))
  .subset2(x, name)
}

.nn_set <- function(x, name, value) {
  priv <- .nn_private(x)
  if (inherits(value, "nn_parameter")) {
    x$register_parameter(name, value)
  } else if (inherits(value, "nn_buffer")) {
    x$register_buffer(name, value, !isFALSE(attr(value, "persistent")))
  } else if (is_nn_module(value) || inherits(value, "nn_Module")) {
    x$register_module(name, value)
  } else if (name %in% names(priv$parameters_)) {
    if (is.null(value)) {
      priv$parameters_[[name]] <- NULL
    } else if (is_torch_tensor(value)) {
      x$register_parameter(name, value)
    } else {
      .nn_error("cannot assign ", .what(value), " as parameter '", name,
                "' (a tensor or NULL expected)")
    }
  } else if (name %in% names(priv$buffers_)) {
    if (!is.null(value) && !is_torch_tensor(value)) {
      .nn_error("cannot assign ", .what(value), " as buffer '", name,
                "' (a tensor or NULL expected)")
    }
    if (is.null(value)) {
      priv$buffers_[[name]] <- NULL
      priv$non_persistent_buffers_ <- setdiff(priv$non_persistent_buffers_, name)
    } else {
      priv$buffers_[[name]] <- value
    }
  } else if (name %in% names(priv$modules_)) {
    if (!is.null(value)) {
      .nn_error("cannot assign ", .what(value), " as child module '", name,
                "' (an nn_module or NULL expected)")
    }
    priv$modules_[[name]] <- NULL
  } else {
    assign(name, value, envir = x)
  }
  invisible(x)
}

#' @export
`$.nn_Module` <- function(x, name) .Call(rtp_nn_get, x, name)  # (.nn_get in C, see src/direct.c)

#' @export
`[[.nn_Module` <- .nn_get

#' @export
`$<-.nn_Module` <- function(x, name, value) .nn_set(x, name, value)

#' @export
`[[<-.nn_Module` <- function(x, name, value) .nn_set(x, name, value)

#' @export
`$.nn_module` <- function(x, name) .nn_get(attr(x, "module"), name)

#' @export
`[[.nn_module` <- function(x, name) {
  m <- attr(x, "module")
  if (is.numeric(name)) return(.nn_child_at(m, name))
  .nn_get(m, name)
}

#' @export
`$<-.nn_module` <- function(x, name, value) {
  .nn_set(attr(x, "module"), name, value)
  x
}

#' @export
`[[<-.nn_module` <- function(x, name, value) {
  m <- attr(x, "module")
  if (is.numeric(name)) {
    children <- .nn_private(m)$modules_
    if (length(name) != 1L || name < 1 || name > length(children)) {
      .nn_error("index ", name, " is out of bounds (the module has ", length(children),
                " children)")
    }
    name <- names(children)[[name]]
  }
  .nn_set(m, name, value)
  x
}

#' @export
print.nn_module <- function(x, ...) {
  attr(x, "module")$print()
  invisible(x)
}

#' @export
print.nn_module_generator <- function(x, ...) {
  cat("<", class(x)[[1L]], "> object generator\n", sep = "")
  invisible(x)
}

.nn_child_at <- function(m, i) {
  children <- .nn_private(m)$modules_
  if (length(i) != 1L || is.na(i) || i == 0 || abs(i) > length(children)) {
    .nn_error("index ", i, " is out of bounds (the module has ", length(children),
              " children)")
  }
  if (i < 0) i <- length(children) + 1 + i
  children[[i]]
}
