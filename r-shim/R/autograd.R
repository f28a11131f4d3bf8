# Autograd: grad mode, backward/grad, hooks, graph nodes.

# Set grad mode; the previous one. In C when it can (rtp_set_grad_mode), which calls
# .set_grad_mode_general when it cannot (the direct path off).
.set_grad_mode <- function(enabled) .Call(rtp_set_grad_mode, enabled)

# (the reply is a bare logical: no decoding in R)
.set_grad_mode_general <- function(enabled) {
  r <- .Call(rtp_bcall, "grad_mode", list(enabled))
  if (is.logical(r) && length(r) == 1L) return(r)
  # else not called (raw 01, or 04: "grad_mode" not fetched yet: fetched now, for the next
  # calls), or an error: the general path (its reply decoded)
  if (is.raw(r) && r == .UNKNOWN && is.null(.rt$bfns[["grad_mode"]])) {
    .callable(.T_BRIDGE, "grad_mode")
  }
  .bridge("set_grad_mode", enabled)
}
.set_anomaly <- function(enabled) .bridge("set_anomaly_mode", enabled)

# with_no_grad() (flag FALSE) and with_enable_grad() (TRUE): .set_grad_mode's .Call without
# the closure around it. No R call of their own in the common case; `code` stays the closure's
# last value, so its visibility is kept.
.with_grad_mode <- function(flag) {
  force(flag)
  function(code) {
    old <- .Call(rtp_set_grad_mode, flag)
    on.exit(.Call(rtp_set_grad_mode, old))
    code
  }
}

#' Enable or disable gradient recording
#'
#' `with_no_grad(code)` evaluates `code` (in the calling environment, so assignments made in
#' it are visible afterwards) with recording off, and `with_enable_grad(code)` with recording
#' on; both restore the previous mode afterwards, also on error, and return the value of
#' `code`. `local_no_grad()` and `local_enable_grad()` set the mode until the calling function
#' exits. `autograd_set_grad_mode()` sets it for good.
#'
#' @param code Code to evaluate.
#' @param .env The environment whose exit restores the mode.
#' @param enabled `TRUE` or `FALSE`.
#' @return `with_*`: the value of `code`. The others: `NULL`, invisibly.
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_ones(2, requires_grad = TRUE)
#'   with_no_grad({ y <- x * 2 })
#'   y$requires_grad
#' }
#' @export
#' @family autograd
with_no_grad <- .with_grad_mode(FALSE)

#' @rdname with_no_grad
#' @export
with_enable_grad <- .with_grad_mode(TRUE)

#' @rdname with_no_grad
#' @export
local_no_grad <- function(.env = parent.frame()) {
  .check_env(.env)  # (before the mode changes: a bad .env must leave it as it was)
  old <- .set_grad_mode(FALSE)
  withr::defer(.set_grad_mode(old), envir = .env)
  invisible(NULL)
}

#' @rdname with_no_grad
#' @export
local_enable_grad <- function(.env = parent.frame()) {
  .check_env(.env)  # (before the mode changes: a bad .env must leave it as it was)
  old <- .set_grad_mode(TRUE)
  withr::defer(.set_grad_mode(old), envir = .env)
  invisible(NULL)
}

.check_env <- function(env) {
  if (!is.environment(env)) {
    .type_error("`.env` must be an environment (the frame whose exit restores the ",
                              "grad mode), got ", .what(env))
  }
}

#' @rdname with_no_grad
#' @export
autograd_set_grad_mode <- function(enabled) {
  .set_grad_mode(.flag(enabled))
  invisible(NULL)
}

#' Detect anomalies in the backward pass
#'
#' Evaluates `code` with anomaly detection on: a backward that fails names the forward
#' operation. Always warns first, as R torch does.
#' @param code Code to evaluate.
#' @return The value of `code`.
#' @export
#' @family autograd
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(1, requires_grad = TRUE)
#'   with_detect_anomaly({
#'     y <- x * 2
#'     y$backward()
#'   })
#'   x$grad
#' }
with_detect_anomaly <- function(code) {
  rlang::warn(paste0("This mode should be enabled only for debugging as the different tests ",
                     "will slow down your program execution."))
  old <- .set_anomaly(TRUE)
  on.exit(.set_anomaly(old), add = TRUE)
  force(code)
}

.tensor_list <- function(x) {
  if (is.null(x)) return(NULL)
  if (is_torch_tensor(x)) x <- list(x)
  lapply(x, function(t) if (is.null(t) || is_undefined_tensor(t)) NULL else .h(t))
}

#' Compute gradients of tensors with respect to graph leaves
#'
#' Adds into `$grad` of every leaf the gradient of `sum(tensors[[i]] * grad_tensors[[i]])`.
#' @param tensors A tensor or a list of tensors.
#' @param grad_tensors `NULL` (ones, for one-element tensors), a tensor, or a list of tensors
#'   (`NULL` entries allowed).
#' @param retain_graph Keep the graph for another backward.
#' @param create_graph Record the backward pass (higher-order derivatives).
#' @return `NULL`, invisibly.
#' @export
#' @family autograd
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(1, 2), requires_grad = TRUE)
#'   y <- (x^2)$sum()
#'   autograd_backward(list(y))
#'   x$grad
#' }
autograd_backward <- function(tensors, grad_tensors = NULL, retain_graph = create_graph,
                              create_graph = FALSE) {
  .bridge("autograd_backward", .tensor_list(tensors), .tensor_list(grad_tensors),
          retain_graph, .flag(create_graph))
  invisible(NULL)
}

#' Gradients of outputs with respect to inputs
#'
#' Nothing is accumulated into `$grad`. As in R torch (libtorch's engine), a `grad_outputs`
#' entry whose shape is not its output's is summed down to that shape when the output
#' broadcasts to it (a full-size tensor of ones for a scalar output counts once per element),
#' and refused otherwise.
#' @param outputs A tensor or a list of tensors.
#' @param inputs A tensor or a list of tensors to differentiate with respect to.
#' @param grad_outputs `NULL`, a tensor or a list of tensors (the vector of the
#'   vector-Jacobian product).
#' @param retain_graph Keep the graph for another backward.
#' @param create_graph Record the backward pass (higher-order derivatives).
#' @param allow_unused An input the outputs do not depend on gets an undefined tensor instead
#'   of an error.
#' @return An unnamed list with one gradient per input.
#' @export
#' @family autograd
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(1, 2), requires_grad = TRUE)
#'   y <- (x^3)$sum()
#'   autograd_grad(y, x)
#' }
autograd_grad <- function(outputs, inputs, grad_outputs = NULL, retain_graph = create_graph,
                          create_graph = FALSE, allow_unused = FALSE) {
  r <- .bridge("autograd_grad", .tensor_list(outputs), .tensor_list(inputs),
               .tensor_list(grad_outputs), retain_graph, .flag(create_graph),
               .flag(allow_unused))
  unname(r)
}

# -- graph nodes -----------------------------------------------------------------------------

autograd_node <- R6::R6Class("autograd_node",
  public = list(
    ptr = NULL,
    name = NULL,
    initialize = function(ptr, name) {
      self$ptr <- ptr
      self$name <- name
    },
    print = function(newline = TRUE) {
      cat(if (is.null(self$name)) "NULL" else self$name)
      if (newline) cat("\n")
      invisible(self)
    }
  ),
  active = list(
    next_functions = function() {
      if (is.null(self$name)) return(list())
      .bridge("node_next_functions", .h(self$ptr))
    }
  )
)

.node <- function(h, name) {
  autograd_node$new(.wrap(h, "rtorchpy_object"), name)
}

# -- hooks -----------------------------------------------------------------------------------

torch_hook <- R6::R6Class("torch_hook",
  public = list(
    x = NULL,
    pos = NULL,
    initialize = function(x, pos) {
      self$x <- x
      self$pos <- pos
    },
    remove = function() {
      .bridge("remove_hook", .h(self$pos))
      invisible(NULL)
    },
    print = function(...) {
      cat("<torch_hook>\n")
      invisible(self)
    }
  )
)

# The R function handed to Python must not reach `x` strongly: Python keeps it on x's tensor,
# and a function whose environment held x would keep x's handle, hence the tensor, alive
# forever (a cycle across the two garbage collectors; see "Ownership" in docs/internals). The
# user's hook often does reach x (it is defined in the frame that holds x), so Python holds a
# wrapper that reaches the hook only through an R weak reference keyed on x: while x's R object
# lives, the hook lives; R's weak references are ephemerons, so the hook's own reference to x
# does not keep x alive. When x's R object is collected while its tensor lives on in Python (an
# intermediate that a later backward reaches), the weak reference's finalizer moves the hook
# into the wrapper's holder, which Python keeps with the tensor's hook: the hook still fires,
# and x's handle has been released, so nothing leads back to the tensor.
.register_hook <- function(x, hook) {
  torch_hook$new(x, .bridge("register_hook", .h(x), .py_callback(.hook_callback(hook, x))))
}

.hook_callback <- function(hook, x) {
  holder <- new.env(parent = emptyenv())
  holder$wref <- rlang::new_weakref(x, value = hook, finalizer = .hook_keeper(holder, hook))
  .hook_wrapper(holder)  # (made in a frame that holds only `holder`)
}

.hook_keeper <- function(holder, hook) {
  force(holder)
  force(hook)
  function(key) {
    holder$hook <- hook
    .revive_captured(hook, key)
  }
}

# The hook often uses its own tensor (`y` of the frame it was made in) and other tensors of that
# frame, and may fire after the tensor's R object was collected (a dropped intermediate): the
# collection that found it dead found them dead too (reached only through the hook, which the
# tensor's R object kept only weakly), and finalizes their handles. So the keeper, which R runs
# before those finalizers (R runs the newest first, and the keeper was made after the frame's
# tensors), rebinds the hook's variables holding tensors to new handles (`revive`: a weak one
# for the tensor itself and whatever may reach it, so no cycle back to it). Only bindings of the
# hook's own environment made before the hook; a promise or active binding is left alone.
.revive_captured <- function(hook, key) {
  env <- environment(hook)
  if (!is.environment(env) || !.Call(rtp_live, key) || environmentIsLocked(env)) return()
  tryCatch({
    nms <- ls(env, all.names = TRUE, sorted = FALSE)
    nms <- nms[!rlang::env_binding_are_lazy(env, nms) & !rlang::env_binding_are_active(env, nms)]
    for (nm in nms) {
      v <- get(nm, envir = env, inherits = FALSE)
      if (inherits(v, "torch_tensor") && .Call(rtp_live, v) && !bindingIsLocked(nm, env)) {
        assign(nm, .bridge("revive", .h(v), .h(key)), envir = env)  # (a tensor: wrapped)
      }
    }
  }, error = function(e) NULL)  # (a finalizer must not fail: the hook then sees a freed handle)
  invisible()
}

.hook_wrapper <- function(holder) {
  force(holder)  # (an unforced promise would keep .hook_callback's frame, and `x`, alive)
  function(g) {
    # wrapped first, whatever the hook does: a handle Python made that R never wraps is never
    # released (a hook ignoring its argument would leave its promise unforced)
    g <- .t(g)
    hook <- holder$hook
    if (is.null(hook)) hook <- rlang::wref_value(holder$wref)
    res <- hook(g)
    if (is_torch_tensor(res)) .h(res) else NULL
  }
}
