# Custom autograd functions with R forward/backward (R torch's autograd_function), and the
# gradcheck family. The Python engine records one node per call and calls back into R.

#' Define a custom differentiable function
#'
#' `forward(ctx, ...)` computes the result (with gradient recording off) and may save values
#' for the backward pass with `ctx$save_for_backward()`. `backward(ctx, grad_output)` returns a
#' named list with the gradient for each forward argument that needs one (see
#' `ctx$needs_input_grad`); missing names or `NULL` mean zeros. The returned function has the
#' arguments of `forward` without `ctx` (defaults included). Tensor arguments that require
#' grad become the inputs of the recorded node; everything else is passed through unchanged.
#' Extra arguments through forward's `...` reach forward as given, outside the graph, so a
#' tensor that requires grad among them is an error.
#' Its outputs show `grad_fn` `torch::autograd::LanternNode`, as in R torch.
#'
#' `jvp(ctx, ...)` (optional; R torch has no forward mode) gives forward-mode AD
#' ([autograd_make_dual()], [autograd_jvp()], [autograd_jacfwd()]) the function's tangents: it
#' receives forward's `ctx` (with what forward saved) and one tangent per forward argument,
#' named as forward's arguments (`NULL` where an argument has none), and returns one tangent
#' per output (a tensor, or a list as forward's result).
#'
#' @param forward,backward Functions, both taking the context as first argument.
#' @param jvp `NULL` or a function `jvp(ctx, ...)` returning the outputs' tangents.
#' @return An R function.
#' @seealso [AutogradContext]
#' @examples
#' if (rtorchpy_available()) {
#'   mul_constant <- autograd_function(
#'     forward = function(ctx, tensor, constant) {
#'       ctx$save_for_backward(constant = constant)
#'       tensor * constant
#'     },
#'     backward = function(ctx, grad_output) {
#'       v <- ctx$saved_variables
#'       list(tensor = grad_output * v$constant)
#'     }
#'   )
#'   x <- torch_tensor(1, requires_grad = TRUE)
#'   o <- mul_constant(x, 2)
#'   o$backward()
#'   x$grad
#' }
#' @export
#' @family autograd
autograd_function <- function(forward, backward, jvp = NULL) {
  force(forward)
  force(backward)
  if (!is.null(jvp) && !is.function(jvp)) {
    .type_error("autograd_function(): `jvp` must be a function or NULL, not ", class(jvp)[[1L]])
  }
  .rtp_formals <- formals(forward)[-1L]
  .rtp_names <- names(.rtp_formals)
  if (is.null(.rtp_names)) .rtp_names <- character(0)
  .rtp_state <- new.env(parent = emptyenv())
  .rtp_state$forward <- forward
  .rtp_state$backward <- backward
  .rtp_state$jvp <- jvp
  .rtp_state$names <- .rtp_names
  .rtp_state$dots <- "..." %in% .rtp_names
  .rtp_state$keys <- paste0("a", seq_along(.rtp_names) - 1L)  # Python's names of the arguments
  .rtp_state$n_backward <- length(formals(backward)) - 1L  # backward's formals after ctx
  f <- function() NULL
  formals(f) <- .rtp_formals
  body(f) <- call(".rtp_call", quote(.rtp_state), .arguments_list(.rtp_names))
  f
}

# The expression that collects f's arguments as a named list, in forward's order:
# list(a = a, b = b); forward's `...` is one element, `... = .rtp_dots(...)`, a list that the
# forward callback splices back into the call (.splice_dots()).
.arguments_list <- function(arg_names) {
  args <- lapply(arg_names, as.name)
  args[arg_names == "..."] <- list(quote(.rtp_dots(...)))
  names(args) <- arg_names
  as.call(c(as.name("list"), args))
}

# The values given to forward's `...`. They reach forward as they are, outside the graph, so a
# tensor that requires grad there would silently get no gradient: that is an error instead.
.rtp_dots <- function(...) {
  dots <- list(...)
  for (i in seq_along(dots)) {
    v <- dots[[i]]
    if (inherits(v, "torch_tensor") && isTRUE(v$requires_grad)) {
      .value_error("autograd_function(): argument ", i, " of `...` is a tensor that requires grad; ",
                   "tensors passed through forward's `...` get no gradient, so give forward a named ",
                   "argument for it")
    }
  }
  dots
}

# f's arguments as forward's call wants them: the `...` element's values spliced in its place.
.splice_dots <- function(args) {
  at <- match("...", names(args))
  c(args[seq_len(at - 1L)], args[[at]], args[-seq_len(at)])
}

# Ownership (see docs/internals): `state` holds the Python function's handle (state$fn), so the
# R closures handed to Python reach `state` only through a weak reference, else the Python
# function would keep alive, through them, the handle that keeps it alive. Each call instead
# lends `state` to its context (an R value the recorded node keeps, released with the node), so
# a backward long after `f` is gone still finds its R function.
.rtp_call <- function(state, args) {
  if (is.null(state$fn)) {
    cb <- .function_callbacks(rlang::new_weakref(state))
    state$fn <- .bridge("make_function", length(args), .py_callback(cb$forward),
                        .py_callback(cb$backward),
                        if (!is.null(state$jvp)) .py_callback(cb$jvp))
  }
  # The forward callback takes `args` from this slot as it starts, before any R code runs that
  # could call this function again (a call nested in forward sets the slot anew): one slot, no
  # stack. (It is cleared there; if Python fails before forward, the next call replaces it.)
  state$args <- args
  py_args <- .Call(rtp_handles_or_null, args)  # (tensors' handles; other values stay in R)
  .bridge("call_function", .Call(rtp_handle, state$fn), py_args, .stash_rvalue(state)[[2L]])
}

# The R functions Python calls for a custom function (their frame holds only the weak ref).
# An R error inside them stops at the crossing and resumes once Python has unwound (see
# .py_callback()).
.function_callbacks <- function(wref) {
  list(
    forward = function(ctx_h, needs) {
      ctx_p <- .Call(rtp_wrap, ctx_h, "rtorchpy_object")
      state <- .Call(rtp_wref_key, wref)
      args <- state$args
      state$args <- NULL
      if (state$dots) args <- .splice_dots(args)
      ctx <- .new_context(ctx_p, state$names, needs)
      .forward_result(.Call(rtp_call_with, state$forward, ctx, args, environment()))
    },
    backward = function(ctx_h, grads, needs) {
      ctx_p <- .Call(rtp_wrap, ctx_h, "rtorchpy_object")  # first: see .hook_callback()
      grads <- lapply(grads, .res_item)
      state <- .Call(rtp_wref_key, wref)
      if (is.null(state)) .runtime_error("the R function of this custom autograd node was freed")
      ctx <- .new_context(ctx_p, state$names, needs)
      res <- .call_backward(state$backward, state$n_backward, ctx, grads)
      .backward_result(res, state$names, state$keys)
    },
    jvp = function(ctx_h, tangents, needs) {
      ctx_p <- .Call(rtp_wrap, ctx_h, "rtorchpy_object")
      # an argument without a tangent arrives as the undefined tensor: NULL for jvp
      tangents <- lapply(tangents, function(t) if (is.complex(t) && Re(t) == 0) NULL else .res_item(t))
      state <- .Call(rtp_wref_key, wref)
      if (is.null(state)) .runtime_error("the R function of this custom autograd node was freed")
      names(tangents) <- ifelse(state$names == "...", "", state$names)
      ctx <- .new_context(ctx_p, state$names, needs)
      .forward_result(.Call(rtp_call_with, state$jvp, ctx, tangents, environment()))
    }
  )
}

.forward_result <- function(res) {
  if (inherits(res, "torch_tensor")) return(.h(res))  # (the common case, first)
  one <- function(v) {
    if (is.null(v)) return(complex(real = 0, imaginary = .MAGIC))
    if (is_torch_tensor(v)) return(.h(v))
    if (is.atomic(v)) return(.rt_keep(torch_tensor(v)))
    .type_error("Expected a torch_tensor.")
  }
  if (is.list(res) && !is.object(res)) return(list("__list__", unname(lapply(res, one))))
  one(res)
}

# Temporary tensors whose handles go back to Python must outlive the R callback's return.
.rt_keep <- function(t) {
  .rt$keep <- c(.rt$keep, list(t))
  if (length(.rt$keep) > 64L) .rt$keep <- utils::tail(.rt$keep, 64L)
  .h(t)
}

# R torch's rule for passing k output gradients to a backward with m formals after ctx.
.call_backward <- function(backward, m, ctx, grads) {
  k <- length(grads)
  args <- if (k <= m || m < 1L) {
    grads
  } else if (m == 1L) {
    list(grads)
  } else {
    c(grads[seq_len(m - 1L)], list(grads[m:k]))
  }
  .Call(rtp_call_with, backward, ctx, unname(args), environment())  # (do.call, in C)
}

# backward's named list as {key: handle} for the arguments it names (`keys`: Python's names).
# An unnamed list names none: every gradient is zero (as in R torch). (Plain loops: lapply,
# which and %in% each cost an R call more than the work on a few elements.)
.backward_result <- function(res, arg_names, keys) {
  if (!is.list(res)) .value_error("Unsupported index.")  # (a tensor too)
  out <- list()
  if (is.null(names(res))) return(out)
  for (i in seq_along(arg_names)) {
    v <- res[[arg_names[[i]]]]  # (exact names; NULL when absent)
    if (is.null(v)) next
    out[[keys[[i]]]] <- if (inherits(v, "torch_tensor")) {
      .Call(rtp_handle, v)
    } else if (is.atomic(v)) {
      .rt_keep(torch_tensor(v))
    } else {
      .type_error("Expected a torch_tensor.")
    }
  }
  out
}

#' The context of a custom autograd function
#'
#' The `ctx` that `forward` and `backward` of [autograd_function()] receive.
#'
#' * `ctx$save_for_backward(...)`: keep tensors and other R values (named or not) for
#'   backward; a second call replaces the first.
#' * `ctx$saved_variables`: what was saved, as a list in the same order. Names are kept for
#'   non-tensors, and for tensors when at least one saved tensor was named.
#' * `ctx$needs_input_grad`: a named list of logicals, one per forward argument.
#' * `ctx$mark_dirty(...)`: inputs modified in place by forward.
#' * `ctx$mark_non_differentiable(...)`: outputs without gradient.
#'
#' The object is locked: store data with `save_for_backward()`.
#' @name AutogradContext
#' @family autograd
#' @examples
#' if (rtorchpy_available()) {
#'   square <- autograd_function(
#'     forward = function(ctx, x) {
#'       ctx$save_for_backward(x)
#'       x^2
#'     },
#'     backward = function(ctx, grad_output) {
#'       x <- ctx$saved_variables[[1]]
#'       list(x = 2 * x * grad_output)
#'     }
#'   )
#'   x <- torch_tensor(3, requires_grad = TRUE)
#'   y <- square(x)
#'   y$backward()
#'   x$grad
#' }
NULL

# The context: one locked environment holding fields, methods and the active binding, used as
# an R6 object is and of class c("torch_autograd_context", "R6") as R torch's is; it prints as
# R6 prints an object (format.torch_autograd_context, below). It is made twice per
# call, so it is built in C (src/context.c): R6's $new() cost more than the rest of a small call.
# `needs` is what Python sent with the call (one logical per forward argument), so reading
# ctx$needs_input_grad costs no crossing.
.new_context <- function(ptr, arg_names, needs) {
  .Call(rtp_new_context, ptr, needs, arg_names, .context_methods, .context_active,
        .context_class, .rtp_namespace)
}

.rtp_namespace <- environment()  # (top level of a package file: the namespace)

.context_class <- c("torch_autograd_context", "R6")

# R6's printed form of an object (one string: "<class>", "  Public:", then a line per binding
# in sorted order saying what it holds), for the context, which is not made by R6.
#' @export
format.torch_autograd_context <- function(x, ...) {
  nms <- sort(ls(x, all.names = TRUE))
  what <- vapply(nms, function(nm) {
    if (bindingIsActive(nm, x)) return("active binding")
    v <- get(nm, envir = x, inherits = FALSE)
    if (is.function(v)) return(deparse(args(v))[[1L]])
    if (is.null(v)) return("NULL")
    if (is.atomic(v)) return(trimws(paste(as.character(utils::head(v, 60)), collapse = " ")))
    paste(class(v), collapse = ", ")
  }, character(1))
  paste(c(paste0("<", class(x)[[1L]], ">"), "  Public:", paste0("    ", nms, ": ", what)),
        collapse = "\n")
}

#' @export
print.torch_autograd_context <- function(x, ...) {
  cat(format(x, ...), sep = "\n")
  invisible(x)
}

# The methods and the active binding: each context gets copies whose environment is itself
# (.context_methods and .context_active, after them, list them).
.context_save <- function(ptr, ...) {
  args <- list2(...)
  nms <- names(args)
  if (is.null(nms)) nms <- rep("", length(args))
  vals <- vector("list", length(args))
  for (i in seq_along(args)) {
    v <- args[[i]]
    vals[i] <- list(if (inherits(v, "torch_tensor")) .Call(rtp_handle, v) else .stash_rvalue(v))
  }
  .bridge("ctx_save", .Call(rtp_handle, ptr), as.list(nms), vals)
  invisible(NULL)
}

.context_mark_dirty <- function(ptr, ...) {
  .bridge("ctx_mark", .h(ptr), "mark_dirty", unname(lapply(list(...), .h)))
  invisible(NULL)
}

.context_mark_non_differentiable <- function(ptr, ...) {
  .bridge("ctx_mark", .h(ptr), "mark_non_differentiable", unname(lapply(list(...), .h)))
  invisible(NULL)
}

# Python sends the names ("" for none) and whether any is set, and each value: a tensor's
# handle, ["r", key] for an R value kept in .rt$rvalues, ["v", value] for a plain one.
.context_saved <- function(ptr) {
  r <- .bridge("ctx_saved", .Call(rtp_handle, ptr))
  vals <- r[[3L]]
  for (i in seq_along(vals)) {
    v <- vals[[i]]
    vals[i] <- list(if (is.complex(v)) {
      .t(v)
    } else if (identical(v[[1L]], "r")) {
      .rt$rvalues[[as.character(v[[2L]])]]
    } else {
      v[[2L]]
    })
  }
  if (isTRUE(r[[4L]])) names(vals) <- as.character(unlist(r[[2L]]))
  vals
}

# An R value Python holds by key (RValue in rtorchpy/_r/callbacks.py), kept in .rt$rvalues.
# Keys freed by .release_rvalues() are used again: each key is a binding name, so a symbol, and
# R never frees symbols (fresh keys leaked three R cells per value: 9 per call of a custom
# function saving two R values). .rt$free_keys[seq_len(.rt$n_free)] are the free ones.
# Python reports the values it dropped only when asked: R asks at its housekeeping, which may
# not come (direct calls release their handles in C), and here, once 256 values were kept
# since it last asked. So the values kept for nothing, and the keys made, stay bounded.
.stash_rvalue <- function(v) {
  if ((.rt$stashed <- .rt$stashed + 1L) > 256L) .release_rvalues()
  n <- .rt$n_free
  if (n > 0L) {
    key <- .rt$free_keys[[n]]
    .rt$n_free <- n - 1L
  } else {
    key <- .rt$rvalue_key <- .rt$rvalue_key + 1L
  }
  assign(as.character(key), v, envir = .rt$rvalues)
  list("r", key)
}

.release_rvalues <- function() {
  if (!isTRUE(.rt$ready)) return(invisible())
  .rt$stashed <- 0L
  keys <- as.integer(unlist(.bridge("dead_rvalues")))
  if (length(keys)) {
    rm(list = as.character(keys), envir = .rt$rvalues)
    n <- .rt$n_free
    .rt$free_keys[n + seq_along(keys)] <- keys
    .rt$n_free <- n + length(keys)
  }
  invisible()
}

# A method of the context (made per context in C, src/context.c): the formals and body of a
# closure of the context that calls `impl` (compiled with the package; the function itself
# stands in the call) with the context's `ptr`; `dots`: the method takes arguments.
.ctx_spec <- function(impl, dots = TRUE) {
  if (dots) {
    list(as.pairlist(alist(... = )), as.call(list(impl, quote(ptr), quote(...))))
  } else {
    list(NULL, as.call(list(impl, quote(ptr))))
  }
}

.context_methods <- list(save_for_backward = .ctx_spec(.context_save),
                         mark_dirty = .ctx_spec(.context_mark_dirty),
                         mark_non_differentiable = .ctx_spec(.context_mark_non_differentiable))
.context_active <- list(saved_variables = .ctx_spec(.context_saved, dots = FALSE))

# -- gradcheck, jacobian, hessian, vjp, jvp ------------------------------------------------------

.r_fn <- function(func) {
  force(func)
  .py_callback(function(args) {
    args <- lapply(args, .res_item)
    .forward_result(do.call(func, args))
  })
}

.inputs <- function(inputs) {
  if (is_torch_tensor(inputs)) return(.h(inputs))
  unname(lapply(inputs, .a))
}

#' Check gradients numerically; Jacobians, Hessians and vector products
#'
#' `autograd_gradcheck()` compares the gradients computed by backward with central finite
#' differences in float64 (floating inputs are copied to float64); `autograd_gradgradcheck()`
#' does the same for second derivatives. `autograd_jacobian()`, `autograd_hessian()`,
#' `autograd_vjp()` and `autograd_jvp()` follow `torch.autograd.functional`.
#' @param func A function of the inputs returning a tensor or a list of tensors.
#' @param inputs A tensor or a list of tensors (and other values, passed through).
#' @param eps,atol,rtol Finite-difference step and tolerances.
#' @param raise_exception Error on a mismatch (default) instead of returning `FALSE`.
#' @param grad_outputs Optional list of tensors for `autograd_gradgradcheck()`.
#' @param create_graph Make the result differentiable.
#' @param v The vector of the product.
#' @param strict Accepted for PyTorch's signature (refused with `vectorize` or forward mode).
#' @param vectorize,strategy `strategy = "forward-mode"` (with `vectorize = TRUE`) computes the
#'   Jacobian with forward-mode AD, one pass per input element: better when there are more
#'   outputs than inputs. `autograd_jvp()` is one forward-mode pass.
#' @param outer_jacobian_strategy The Hessian's outer Jacobian: `"forward-mode"` (with
#'   `vectorize = TRUE`) is forward-over-reverse.
#' @return `TRUE`/`FALSE` for the checks; a tensor or (nested) list of tensors otherwise.
#' @name autograd_gradcheck
#' @export
#' @family autograd
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(0.5, 1.5), dtype = torch_float64(), requires_grad = TRUE)
#'   autograd_gradcheck(function(x) torch_sin(x) * x, list(x))
#' }
autograd_gradcheck <- function(func, inputs, eps = 1e-6, atol = 1e-5, rtol = 1e-3,
                               raise_exception = TRUE) {
  .bridge("gradcheck", "autograd_gradcheck", .r_fn(func), .inputs(inputs),
          list(eps = eps, atol = atol, rtol = rtol, raise_exception = raise_exception))
}

#' @rdname autograd_gradcheck
#' @export
autograd_gradgradcheck <- function(func, inputs, grad_outputs = NULL, eps = 1e-6, atol = 1e-5,
                                   rtol = 1e-3, raise_exception = TRUE) {
  .bridge("gradcheck", "autograd_gradgradcheck", .r_fn(func), .inputs(inputs),
          list(grad_outputs = .tensor_list(grad_outputs), eps = eps, atol = atol, rtol = rtol,
               raise_exception = raise_exception))
}

#' @rdname autograd_gradcheck
#' @export
autograd_jacobian <- function(func, inputs, create_graph = FALSE, strict = FALSE,
                              vectorize = FALSE, strategy = "reverse-mode") {
  .bridge("gradcheck", "autograd_jacobian", .r_fn(func), .inputs(inputs),
          list(create_graph = create_graph, strict = strict, vectorize = vectorize,
               strategy = strategy))
}

#' @rdname autograd_gradcheck
#' @export
autograd_hessian <- function(func, inputs, create_graph = FALSE, strict = FALSE,
                             vectorize = FALSE, outer_jacobian_strategy = "reverse-mode") {
  .bridge("gradcheck", "autograd_hessian", .r_fn(func), .inputs(inputs),
          list(create_graph = create_graph, strict = strict, vectorize = vectorize,
               outer_jacobian_strategy = outer_jacobian_strategy))
}

#' @rdname autograd_gradcheck
#' @export
autograd_vjp <- function(func, inputs, v = NULL, create_graph = FALSE) {
  .bridge("gradcheck", "autograd_vjp", .r_fn(func), .inputs(inputs),
          list(v = if (is.list(v)) .tensor_list(v) else .a(v), create_graph = create_graph))
}

#' @rdname autograd_gradcheck
#' @export
autograd_jvp <- function(func, inputs, v = NULL, create_graph = FALSE) {
  .bridge("gradcheck", "autograd_jvp", .r_fn(func), .inputs(inputs),
          list(v = if (is.list(v)) .tensor_list(v) else .a(v), create_graph = create_graph))
}
