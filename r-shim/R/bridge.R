# The R side of the bridge to Python (see rtorchpy/_r/__init__.py for the protocol).
#
# Every R object that stands for a Python object (tensor, node, hook, context) is an external
# pointer (as R torch's tensors are) holding a handle: a complex number whose real part is the
# key of the object in the Python registry. Handles are the only thing passed to Python for
# them, because reticulate converts an unclassed complex number in C++, while any classed R
# object costs an R-level dispatch. When R collects the pointer, a C finalizer (src/handles.c)
# queues the key; the queue is released in batches. The imaginary part of a handle Python
# returns may carry flags (collect garbage, Python warnings to show); the handle R keeps always
# has the plain .MAGIC, which Python checks, so an R complex number is never read as a handle.
# Ownership rules (what may hold what across the two garbage collectors): docs/internals.

.rt <- new.env(parent = emptyenv())
.rt$ready <- FALSE

# (.MAGIC, .FLAG_GC, .FLAG_WARN, the raw replies and the table numbers: R/gen-protocol.R)
# Im(h) == .MAGIC - .FLAG_GC * gc - .FLAG_WARN * warn (see rtorchpy/_r/handles.py _put)
.TENSOR_CLASS <- c("torch_tensor", "R7")

# -- handles ---------------------------------------------------------------------------------

.wrap <- function(h, class) .Call(rtp_wrap, h, class)

# A new R tensor for the handle Python returned.
.t <- function(h) {
  p <- .Call(rtp_wrap, h, .TENSOR_CLASS)  # keeps the handle without the flags
  im <- Im(h)[[1L]]  # (a tensor registered in C carries its size as a second element)
  if (im == .MAGIC) {
    if (.Call(rtp_ndead) > .RELEASE_BATCH) .housekeeping(FALSE)
    return(p)
  }
  flags <- round((.MAGIC - im) / .FLAG_GC)
  .housekeeping(flags %% 2 == 1)
  if (flags >= 2) .py_warnings()
  p
}

.h <- function(x) .Call(rtp_handle, x)

.release_dead <- function() {
  .Call(rtp_release_callbacks)  # R functions Python no longer calls (src/callback.c)
  if (isTRUE(.Call(rtp_release_dead))) return(invisible())  # C hands them to Python itself
  keys <- .Call(rtp_take_dead)
  if (length(keys)) .rt$impl(.rt$bridge_release, list(keys), NULL)
  invisible()
}

# Python holds NumPy memory for every handle R holds; R's garbage collector does not see it, so
# when Python reports that the memory held grew a lot, collect (and release) now.
#
# The collection is of the young generations first: a full one costs ~150 ms in a session with
# reticulate's large heap, a young one a few ms, and what grew since the last collection is
# mostly young (a training loop's intermediates, a data loader's batches). What a young
# collection leaves (objects that were alive at the previous one, since promoted) is bounded:
# when more than a quarter of the growth since the last full collection remains, and that is
# more than 64 MiB, a full one follows.
.housekeeping <- function(collect) {
  if (collect) {
    base <- .rt$held_full %||% 0
    before <- .held_bytes()
    gc(verbose = FALSE, full = FALSE)
    .release_dead()
    after <- .held_bytes()
    if (after - base > max((before - base) / 4, 67108864)) {
      gc(verbose = FALSE)
      .release_dead()
      after <- .held_bytes()
      .rt$held_full <- after
    }
  } else {
    .release_dead()
  }
  .release_rvalues()
}

# The bytes of the tensors R holds (Python counts them: every tensor is registered by its
# handles._put); resets the collection threshold to twice that (at least 256 MiB).
.held_bytes <- function() {
  as.numeric(.rt$p2r(.rt$impl(.rt$bridge_collected, list(), NULL)))
}

# -- calls -----------------------------------------------------------------------------------

# The tables of callables C finds by name (src/names.c; numbers in R/gen-protocol.R): ops,
# binary and unary operators, functions of the bridge module, other functions of the package
# (creation, nnf_*, ...).

# The reticulate object for callable `name` of table `t` (for calls C does not make), fetched
# from Python once: ops and package functions through the bridge's callers, the bridge's own
# functions as its attributes; the operator tables arrive whole when Python starts.
.callable <- function(t, name) {
  f <- .callable_table(t)[[name]]
  if (is.null(f)) f <- .fetch_callable(t, name)
  f
}

.callable_table <- function(t) switch(t + 1L, .rt$ops, .rt$binary, .rt$unary, .rt$bfns, .rt$fns)

.fetch_callable <- function(t, name) {
  .ensure_python()
  table <- .callable_table(t)
  f <- table[[name]]
  if (!is.null(f) || !is.environment(table)) return(f)
  f <- switch(t + 1L, .rt$bridge$op_caller(name), NULL, NULL,
              reticulate::py_get_attr(.rt$bridge, name), .rt$bridge$fn_caller(name))
  assign(name, f, envir = table)
  f
}

# Call callable `name` of table `t` with the R list `args`: directly through the Python C API
# when the arguments are handles (or objects holding one) and scalars (src/pycall.c), else,
# or for a reply that is not a handle, through reticulate. The reply is not decoded.
.call <- function(t, name, args) {
  r <- .Call(rtp_ncall, t, name, args, NULL)
  if (is.raw(r)) .call_slow(.callable(t, name), args, r, .ptr_h) else r
}

# `conv` converts each argument for reticulate when the direct path did not call (raw 01:
# arguments C does not convert; raw 04: the callable is not known in C).
.call_slow <- function(f, args, how, conv) {
  force(f)  # (fetching the callable may start Python, which sets .rt$impl)
  if (how == .NOT_CALLED || how == .UNKNOWN) {
    return(.rt$p2r(.rt$impl(f, lapply(args, conv), NULL)))
  }
  if (how == .INTERRUPTED) rlang::interrupt()  # Python was interrupted (KeyboardInterrupt)
  .rt$p2r(.rt$impl(.rt$take_stash, list(), NULL))
}

# (`call`: the call an error reports, as .raise() would find it without this extra frame)
.reply_t <- function(f, args, r, call) {
  if (is.raw(r)) r <- .call_slow(f, args, r, .a)
  if (is.complex(r)) return(.t(r))
  if (!is.null(names(r))) .raise_reply(r, call)
  .res(r)
}

# (into plain lists too: an index item holds its tensor, see .index_item())
.ptr_h <- function(v) {
  if (typeof(v) == "externalptr") return(.Call(rtp_handle, v))
  if (is.list(v) && !is.object(v)) return(lapply(v, .ptr_h))
  if ((is.logical(v) || is.character(v)) && anyNA(v)) return(.na_int(v))
  v
}

# R's NA as Python must see it: reticulate sends NA_integer_ as -2^31, which Python refuses by
# the argument's name (rtorchpy/_r/handles.py, R_NA_INT), but a logical NA as TRUE and
# NA_character_ as the string "NA"; so those are sent as NA_integer_ too. (The direct C path
# never passes an NA: it leaves such calls to reticulate.)
.na_int <- function(v) {
  if (length(v) == 1L && is.null(attributes(v))) return(NA_integer_)
  out <- as.list(v)
  out[is.na(v)] <- list(NA_integer_)
  out
}

# Call op `name` (the callables are fetched from Python once). Arguments not yet converted
# with .a() are converted when the direct path cannot pass them.
.op <- function(name, args) {
  r <- .Call(rtp_op, name, args)
  if (typeof(r) == "externalptr") r else .op_reply(name, args, r, sys.call(-1L))
}

# The generated wrappers call `.External(rtp_opx, name, ...)` themselves (or `.Call(rtp_op,
# name, args)` when they take `...`: the callable cached in C, the reply wrapped in C) and come
# here only for another reply: `r` is what C returned, `args` the arguments as a list
# (raw 04: C does not know the callable, e.g. Python not started yet: the call goes through
# reticulate; else as .op's). The nnf_* wrappers do the same with rtp_fnx / rtp_fn and
# .fn_reply.
.op_reply <- function(name, args, r, call) .reply_t(.callable(.T_OPS, name), args, r, call)

.fn_reply <- function(name, args, r, call) .reply_t(.callable(.T_FNS, name), args, r, call)

# Call a non-op function of the package (creation functions, nnf_*, ...).
.fn <- function(name, args, kwargs = NULL) {
  if (length(kwargs)) {
    f <- .callable(.T_FNS, name)
    return(.res(.rt$p2r(.rt$impl(f, lapply(args, .ptr_h), lapply(kwargs, .ptr_h)))))
  }
  .res(.call(.T_FNS, name, args))
}

# Call a function of the bridge module itself.
.bridge <- function(name, ...) {
  args <- list(...)
  r <- .Call(rtp_bcall, name, args)  # the callable cached in C; a tensor reply wrapped
  if (is.object(r) || is.null(r)) r else .bridge_reply(name, args, r)  # (NULL: a bare None)
}

# The reply `r` of rtp_bcall(name, args) that is not a wrapped tensor, decoded (raw 04: the
# callable is not cached yet, so the call was not made: it is made here).
.bridge_reply <- function(name, args, r) {
  if (is.raw(r)) r <- .call_slow(.callable(.T_BRIDGE, name), args, r, .ptr_h)
  if (is.null(r)) NULL else .res(r)  # (a bare None: a reply with nothing to decode)
}

# -- replies ---------------------------------------------------------------------------------

# A reply: a handle, a list tagged by its first element (rtorchpy/_r/__init__.py), or an error
# reply, the only one with names (.raise_reply).
.res <- function(r) {
  if (is.complex(r)) return(.t(r))
  if (is.null(r)) return(r)  # (a bare None: a direct call's, sent without encoding)
  if (!is.null(names(r))) .raise_reply(r, sys.call(-2L))  # (the call .raise() would report)
  switch(r[[1L]],
    v = r[[2L]],
    L = lapply(r[[2L]], .res_item),
    N = .node(r[[2L]], r[[3L]]),
    D = .dtype(r[[2L]], r[[3L]]),
    O = .wrap(r[[2L]], "rtorchpy_object"),
    SV = r,
    W = {
      .show_warnings(r[[2L]])
      .res(r[[3L]])
    },
    .runtime_error("rtorchpy: unexpected reply from Python")
  )
}

.res_item <- function(x) if (is.complex(x)) .t(x) else .res(x)

# An error reply (rtorchpy/_r/errors.py's error_reply: a dict, which arrives as a named list;
# its fields read by name, R/gen-protocol.R): an R error in an R callback is re-raised (the
# condition R kept), any other raised as an R condition of the class Python chose, reported
# against `call`.
.raise_reply <- function(r, call) {
  if (isTRUE(r[[.ERROR_IN_R]])) .reraise(r[[.ERROR_MESSAGE]])
  .raise(r[[.ERROR_MESSAGE]], call, r[[.ERROR_CLASS]])
}

# `kind`: the condition class Python chose for its exception (rtorchpy/_r/errors.py).
.raise <- function(msg, call = sys.call(-3L), kind = "runtime_error") {
  # warnings the failing call raised belong to it, not to the next call's reply: shown first
  # (R prints them after the error, as "In addition")
  .py_warnings()
  stop(.condition(msg, kind, call))
}

# An R error raised inside an R function called by Python (hook, custom forward/backward):
# re-raise the original condition, as R torch does. Through src/callback.c, the jump R had
# started (to the handler of the condition, or to the top level) was stopped where Python called
# R; Python has unwound, and the jump goes on from here. Through reticulate (the fallback),
# .callback() kept the condition (an interrupt too) and it is signalled again.
.reraise <- function(msg) {
  .Call(rtp_resume_unwind)
  cond <- .rt$callback_error
  .rt$callback_error <- NULL
  if (inherits(cond, "interrupt")) rlang::interrupt()
  if (inherits(cond, "condition")) stop(cond)
  .runtime_error(msg)
}

# Run an R callback for Python when reticulate makes the callable (.py_callback's fallback):
# errors and interrupts are kept (to re-raise in R once Python has unwound) and reported to
# Python as a marker; nothing R signals may unwind through the Python frames between here and
# R's call into Python.
.callback <- function(expr) {
  tryCatch(expr, error = function(e) {
    .rt$callback_error <- e
    list("__rerror__", conditionMessage(e))
  }, interrupt = function(e) {
    .rt$callback_error <- e
    list("__rinterrupt__", "interrupted")
  })
}

# Python warnings raised during the last call (the bridge collects them) as R warnings.
.py_warnings <- function() {
  .show_warnings(.rt$p2r(.rt$impl(.rt$take_warnings, list(), NULL)))
}

.show_warnings <- function(msgs) {
  for (m in unlist(msgs)) warning(m, call. = FALSE)
  invisible()
}

# Live objects on both sides, for leak tests: the bridge registry's size and Python's count
# of live tensors, after collecting garbage in R and in Python (twice: each side may free
# what the other held).
.bridge_counts <- function() {
  .ensure_python()
  for (i in 1:2) {
    gc(verbose = FALSE)
    .release_dead()
    .release_rvalues()
    r <- .bridge("live_counts")
  }
  r
}

# An R function as a Python callable whose arguments and result are converted as reticulate
# converts them (handles stay complex numbers, lists become R lists or vectors, named lists
# dicts). Made in C (src/callback.c): a call costs a few thousand instructions, and an R error
# or interrupt inside is stopped where Python called R and resumed by .reraise() once Python
# has unwound. Without the C API (rtp_r_function gives raw 01), reticulate's r_to_py, with the
# function run inside .callback().
.py_callback <- function(f) {
  force(f)
  .ensure_python()
  r <- .Call(rtp_r_function, f, "rtorchpy_object")
  if (is.raw(r)) return(reticulate::r_to_py(function(...) .callback(f(...)), convert = TRUE))
  if (is.complex(r)) r <- .wrap(r, "rtorchpy_object")  # (a reply with flags: none needed here)
  r
}

# -- arguments -------------------------------------------------------------------------------

# An R argument as the bridge expects it: tensors (and other handle objects) as their handle,
# dtypes by name, arrays as raw bytes; vectors as reticulate converts them. Functions,
# environments, symbols and the like are refused here, with their R type in the message.
.a <- function(v) {
  if (typeof(v) == "externalptr") return(.Call(rtp_handle, v))
  if (is.object(v)) return(.a_object(v))
  if (is.list(v)) return(lapply(v, .a))
  if (!is.null(attr(v, "dim", exact = TRUE))) return(.r_array(v))
  if (!is.atomic(v) && !is.null(v)) .bad_argument(v)
  if ((is.logical(v) || is.character(v)) && anyNA(v)) return(.na_int(v))
  v
}

# A TRUE/FALSE argument, checked: anything else (NA, 1, "yes", a vector, NULL) is an error
# naming the argument, where isTRUE() would quietly read it as FALSE.
.flag <- function(x, name = deparse(substitute(x))) {
  if (is.logical(x) && length(x) == 1L && !is.na(x)) return(as.vector(x))
  what <- if (is.null(x)) "NULL" else if (is.atomic(x) && length(x) == 1L) {
    paste0(if (is.character(x)) paste0("\"", x, "\"") else format(x), " (", typeof(x), ")")
  } else {
    .what(x)
  }
  .type_error("`", name, "` must be TRUE or FALSE, got ", what)
}

.bad_argument <- function(v) {
  what <- if (is.function(v)) {
    "a function"
  } else if (is.object(v)) {  # (a reticulate object, a torch_hook, ...: its class says most)
    paste0("an object of class '", class(v)[[1]], "'")
  } else {
    paste0("an object of type '", typeof(v), "'")
  }
  .type_error("can't use ", what, " as a tensor or a number (expected a tensor, ",
                            "a number or a vector)")
}

.a_object <- function(v) {
  if (typeof(v) == "externalptr") return(.Call(rtp_handle, v))
  if (inherits(v, "R6") && typeof(v$ptr) == "externalptr") return(.Call(rtp_handle, v$ptr))
  if (inherits(v, "torch_dtype")) return(v$name)
  if (inherits(v, "torch_device")) return(v$type)
  if (inherits(v, "factor")) return(as.integer(v))
  if (is.list(v)) return(lapply(unclass(v), .a))
  # (an environment with a class, such as a reticulate object or a torch_hook, can't be
  # unclassed: base R's error for that would not say what was wrong)
  if (is.environment(v)) .bad_argument(v)
  .a(unclass(v))
}

# The names R torch gives the sizes or dims a function takes in `...` (torch_ones(size = ),
# x$reshape(shape = ), x$permute(dims = ), ...): any other name is a mistake.
.SIZE_ARG_NAMES <- c("size", "shape", "sizes", "dims", "tensors")

# The values of `...` flattened into one list (sizes, dims: `f(2, 3)` or `f(c(2, 3))`).
.dots <- function(...) {
  d <- list(...)
  if (!length(d)) return(list())
  nms <- names(d)
  if (!is.null(nms)) {
    bad <- nms[nzchar(nms) & !nms %in% .SIZE_ARG_NAMES]
    # a misspelled argument (require_grad = TRUE) would otherwise become a size
    if (length(bad)) {
      .value_error("unused argument", if (length(bad) > 1L) "s", " ",
                                 paste0("`", bad, "`", collapse = ", "),
                                 " (sizes and dims are given unnamed, or as one vector)")
    }
  }
  as.list(unlist(lapply(d, function(v) if (is_torch_tensor(v)) as_array(v) else v),
                 use.names = FALSE))
}

# An R vector, matrix or array as the bridge's raw form (column-major bytes, R type, dims).
.r_array <- function(data) {
  if (is.null(data)) data <- logical(0)
  if (is.factor(data)) data <- as.integer(data)
  # bit64's integer64 keeps each int64's 8 bytes in a double: sent as those bytes (int64)
  kind <- if (inherits(data, "integer64")) "integer64" else typeof(data)
  d <- dim(data)
  if (is.null(d)) d <- length(data)
  bytes <- switch(kind,
    double = , integer64 = writeBin(as.vector(unclass(data)), raw(), endian = "little"),
    integer = writeBin(as.vector(data), raw(), endian = "little"),
    logical = writeBin(as.integer(data), raw(), endian = "little"),
    raw = as.vector(data),
    complex = .not_implemented_error("complex tensors are not supported by rtorchpy"),
    .type_error("can't convert an R object of type '", kind, "' to a tensor")
  )
  list("__rarray__", bytes, kind, as.list(as.integer(d)))
}
