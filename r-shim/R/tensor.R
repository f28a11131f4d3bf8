# Tensors: `$` (active bindings and methods), printing, conversion to R.

#' Is an object a tensor?
#'
#' @param x Any R object.
#' @return `TRUE` or `FALSE`. `is_undefined_tensor()` is `TRUE` for the undefined tensor that
#'   `x$grad` returns before any gradient was computed.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   is_torch_tensor(torch_tensor(1))
#'   is_torch_tensor(1)
#' }
is_torch_tensor <- function(x) inherits(x, "torch_tensor")

#' @rdname is_torch_tensor
#' @export
is_undefined_tensor <- function(x) is_torch_tensor(x) && Re(.h(x)) == 0

.undefined_tensor <- function() .wrap(complex(real = 0, imaginary = .MAGIC), .TENSOR_CLASS)

# -- `$` ---------------------------------------------------------------------------------------

.BINDINGS <- c("grad", "requires_grad", "grad_fn", "is_leaf", "shape", "dtype", "ndim",
               "device", "is_cuda", "names", "ptr", "real", "imag")

# x$grad and methods are made in C (src/direct.c rtp_dollar), which calls .dollar for the rest.
# (The method is registered under another name than `$.torch_tensor`, as it was while a faster
# method could take its place; either name works now.)
#' @rawNamespace S3method("$", torch_tensor, .dollar_closure)
.dollar_closure <- function(x, name) .Call(rtp_dollar, x, name, .protos)

# `r`: what rtp_dollar's fast path found (NULL, or a bare handle of x$grad with flags to act on)
.dollar <- function(x, name, r = NULL) {
  if (is.complex(r)) return(.t(r))
  .h(x)  # (a tensor restored from a file: R torch's "external pointer is not valid", here)
  switch(name,
    grad = , requires_grad = , grad_fn = , is_leaf = , shape = , dtype = , ndim = .attr(x, name),
    device = torch_device("cpu"),
    is_cuda = FALSE,
    names = NULL,
    ptr = x,
    real = torch_real(x),
    imag = torch_imag(x),
    {
      f <- .methods[[name]]
      if (is.null(f)) f <- .fallback_method(name)
      if (is.null(f)) .no_member(name, "torch_tensor")
      proto <- .method_proto(f)
      assign(name, proto, envir = .protos)
      .Call(rtp_dollar, x, name, .protos)  # (now finds the prototype)
    }
  )
}

# An unknown x$name is an error naming it (R torch's method lookup would hand back a function
# failing later with "attempt to apply non-function", or NULL).
.no_member <- function(name, class) {
  .value_error(sprintf("'%s' is not a method or field of class '%s'", name, class))
}

#' @export
`[[.torch_tensor` <- function(x, name) .dollar_closure(x, name)

#' @export
`$<-.torch_tensor` <- function(x, name, value) {
  switch(name,
    requires_grad = .bridge("set_requires_grad", .h(x), .flag(value, "requires_grad")),
    grad = .bridge("set_grad", .h(x), if (is.null(value)) NULL else .a(.as_grad(value))),
    .runtime_error("cannot add bindings to a locked environment")
  )
  invisible(x)
}

#' @export
`[[<-.torch_tensor` <- function(x, name, value) `$<-.torch_tensor`(x, name, value)

.as_grad <- function(value) {
  if (!is_torch_tensor(value)) .type_error("the gradient must be a tensor")
  if (is_undefined_tensor(value)) NULL else value
}

.attr <- function(x, name) {
  r <- .bridge("get_attr", x, name)
  if (name == "shape") as.integer(unlist(r)) else r
}

# A method registered in Python but missing from gen-ops.R (stale generated file).
.fallback_method <- function(name) {
  .ensure_python()
  if (!name %in% .rt$py_methods) return(NULL)
  function(self, ...) {
    args <- list(...)
    nms <- names(args)
    if (is.null(nms)) nms <- rep("", length(args))
    f <- .op_callable(name)
    .res(.rt$p2r(.rt$impl(f, c(list(.h(self)), lapply(args[nms == ""], .a)),
                          lapply(args[nms != ""], .a))))
  }
}

.methods <- new.env(parent = emptyenv())

# x$name for a method `f(self, ...)`: the formals, body and enclosure of the closure rtp_dollar
# makes per call, in a fresh environment (enclosed by f's) binding `self` to x: f's other
# arguments and f's body, compiled once here (compiler::compile; the per-call closure is made
# by R's `function` primitive, src/closures.c), so a missing argument is reported against the
# user's call and nothing is left for R's JIT. A method whose first argument is not `self`
# becomes `function(...) f(self, ...)`, f itself in the call. Made on first use; never holds the
# names of the active bindings.
.protos <- new.env(parent = emptyenv())

.method_proto <- function(f) {
  fm <- formals(f)
  env <- environment(f)
  if (!length(fm) || names(fm)[[1L]] != "self") {
    fm <- alist(self = , ... = )
    body <- as.call(list(f, quote(self), quote(...)))
    env <- baseenv()
  } else {
    body <- body(f)
  }
  list(as.pairlist(fm[-1L]), compiler::compile(body, env, options = list(suppressAll = TRUE)),
       env)
}

.keep_class <- function(out, x) {
  cls <- oldClass(x)
  if (length(cls) > length(.TENSOR_CLASS) && is_torch_tensor(out)) oldClass(out) <- cls
  out
}

.build_method_table <- function() {
  for (nm in names(.OP_METHODS)) assign(nm, get(.OP_METHODS[[nm]]), envir = .methods)
  # the ops the hand-written methods below wrap, under names no `$` can reach
  assign(".expand_op", get(.OP_METHODS[["expand"]]), envir = .methods)
  assign(".clone_op", get(.OP_METHODS[["clone"]]), envir = .methods)
  for (nm in names(.TENSOR_METHODS)) assign(nm, .TENSOR_METHODS[[nm]], envir = .methods)
}

.call_method <- function(self, name, args = list(), kwargs = NULL) {
  .bridge("tensor_method", .h(self), name, args, kwargs)
}

# x$size(dim) and x$stride(dim): one integer per dim, or the one of 1-based `dim`.
.per_dim <- function(self, name, dim) {
  if (!is.null(dim) && isTRUE(all(dim == 0))) {
    .value_error("Indexing starts at 1 and got a 0.")
  }
  as.integer(unlist(.call_method(self, name, list(dim))))
}

# Tensor methods that are not ops of the registry (attributes and autograd of a tensor).
.TENSOR_METHODS <- list(
  backward = function(self, gradient = list(), retain_graph = create_graph,
                      create_graph = FALSE, inputs = NULL, ...) {
    if (...length()) {
      dots <- list(...)
      if ("keep_graph" %in% names(dots)) {
        rlang::warn("`keep_graph` has been deprecated. Please use `retain_graph` instead.",
                    .frequency = "once", .frequency_id = "rtorchpy_keep_graph")
        retain_graph <- dots$keep_graph
      }
    }
    if (is.list(gradient) && !length(gradient)) gradient <- NULL
    if (is.null(gradient) && is.null(inputs)) {  # the usual loss$backward(): fewer R calls
      args <- list(self, retain_graph, if (missing(create_graph)) FALSE else .flag(create_graph))
      r <- .Call(rtp_bcall, "backward", args)  # (.bridge's body: NULL, or a reply to decode)
      if (!is.null(r)) .bridge_reply("backward", args, r)
    } else {
      .call_method(self, "backward", list(.a(gradient), retain_graph, .flag(create_graph),
                                          .a(inputs)))
    }
    invisible(NULL)
  },
  detach = function(self) .keep_class(.call_method(self, "detach"), self),
  detach_ = function(self) {
    .call_method(self, "detach_")
    invisible(self)
  },
  retain_grad = function(self) {
    .call_method(self, "retain_grad")
    invisible(NULL)
  },
  retains_grad = function(self) .attr(self, "retains_grad"),
  requires_grad_ = function(self, requires_grad = TRUE) {
    .bridge("set_requires_grad", .h(self), .flag(requires_grad))
    self
  },
  register_hook = function(self, hook) .register_hook(self, hook),
  item = function(self) .bridge("item", .h(self)),
  numel = function(self) .call_method(self, "numel"),
  size = function(self, dim = NULL) .per_dim(self, "size", dim),
  dim = function(self) .call_method(self, "dim"),
  ndimension = function(self) .call_method(self, "dim"),
  is_floating_point = function(self) .attr(self, "dtype")$is_floating_point,
  # (doubles, as R torch's: its stride() is sapply() over int64 values)
  stride = function(self, dim = NULL) as.numeric(.per_dim(self, "stride", dim)),
  # R torch's expand(size, implicit = FALSE): a trailing TRUE/FALSE is `implicit`, not a size
  expand = function(self, ..., implicit = FALSE) {
    size <- list(...)
    n <- length(size)
    if (n > 1L && is.logical(size[[n]]) && length(size[[n]]) == 1L) size <- size[-n]
    do.call(.methods[[".expand_op"]], c(list(self), size))
  },
  # clone() and detach() keep the R classes a tensor was given (nn_parameter, user classes)
  clone = function(self, memory_format = NULL) .keep_class(.methods[[".clone_op"]](self), self),
  is_contiguous = function(self) .call_method(self, "is_contiguous"),
  cpu = function(self) self,
  cuda = function(self, ...) .not_implemented_error("CUDA is not available: rtorchpy computes on the CPU"),
  print = function(self, n = 30) print.torch_tensor(self, n = n),
  numpy = function(self) as_array(self),
  element_size = function(self) .attr(self, "dtype")$itemsize,
  set_data = function(self, new_data) {
    .m_set_data(self, new_data)
    invisible(NULL)
  },
  refine_names = function(self, ...) .no_named_tensors("refine_names"),
  rename = function(self, ...) .no_named_tensors("rename"),
  rename_ = function(self, ...) .no_named_tensors("rename_"),
  align_to = function(self, ...) .no_named_tensors("align_to"),
  align_as = function(self, ...) .no_named_tensors("align_as")
)

.no_named_tensors <- function(what) {
  .not_implemented_error(
    sprintf("`%s()`: named tensors are not supported by rtorchpy (a tensor's `names` is ", what),
    "always NULL)")
}

#' Tensor methods and fields
#'
#' A tensor is an R object of class `torch_tensor`; `x$name` reads one of its fields and
#' `x$name(...)` calls one of its methods, as in R torch. Methods that have a function form
#' take the same arguments as it without the first one: `x$sum(dim = 1)` is
#' `torch_sum(x, dim = 1)`. Methods whose name ends in `_` change `x` in place and return it.
#' Dims and indices are 1-based. The sections list the fields, the methods about autograd and
#' attributes, then the methods of the operations by family, each linked to its function's page.
#'
#' @section Fields:
#'
#' * `x$shape`: the sizes of the dims (an integer vector); `x$ndim`: their number.
#' * `x$dtype`: the data type (see [torch_dtype]); `x$device`: always the CPU.
#' * `x$requires_grad`: whether operations on `x` are recorded (assignable:
#'   `x$requires_grad <- TRUE`).
#' * `x$grad`: the gradient accumulated by `backward()` (assignable); `x$grad_fn`: the node
#'   that made `x`, `NULL` for a leaf; `x$is_leaf`.
#' * `x$names`: always `NULL` (named tensors are not supported); `x$is_cuda`: `FALSE`.
#'
#' @section Methods (autograd and attributes):
#'
#' * `x$backward(gradient, retain_graph, create_graph, inputs)`: compute the gradients of `x`
#'   with respect to the leaves (see [autograd_backward()]).
#' * `x$detach()`, `x$detach_()`: the same values outside the graph.
#' * `x$retain_grad()`, `x$retains_grad()`: keep the gradient of a non-leaf tensor.
#' * `x$requires_grad_(requires_grad = TRUE)`: switch recording on (or off), in place.
#' * `x$register_hook(hook)`: call `hook(grad)` when the gradient of `x` is computed.
#' * `x$item()`: the value of a one-element tensor as an R number.
#' * `x$numel()`, `x$size(dim)`, `x$dim()`, `x$ndimension()`, `x$stride(dim)`,
#'   `x$element_size()`, `x$is_contiguous()`, `x$is_floating_point()`: sizes and layout.
#' * `x$expand(...)`, `x$clone()`: see [torch_expand()] and [torch_clone()].
#' * `x$cpu()`, `x$numpy()` (an R array, as [as_array()]), `x$print(n)`.
#' * `x$set_data(new_data)`: replace the values outside autograd.
#' * `x$cuda()`: an error (rtorchpy computes on the CPU); `x$refine_names()`, `x$rename()`,
#'   `x$rename_()`, `x$align_to()`, `x$align_as()`: an error (no named tensors).
#' @return Fields and methods return tensors, R values or (in-place methods) `x`.
#' @seealso [torch_tensor()] to make a tensor.
#' @family tensors
#' @aliases torch_tensor_methods
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(matrix(c(1, 2, 3, 4), nrow = 2), requires_grad = TRUE)
#'   x$shape
#'   x$dtype
#'   y <- x$pow(2)$sum()
#'   y$backward()
#'   x$grad
#'   x$detach()$add_(1)
#'   x$sum(dim = 1)
#' }
#' @name tensor_methods
#' @order 1
NULL

# -- printing ------------------------------------------------------------------------------------

#' Print a tensor as R torch does
#'
#' @param x A tensor.
#' @param n Lines of values to show before the output is truncated (`-1`: no limit).
#' @param ... Unused.
#' @return `x`, invisibly.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_randn(100)
#'   print(x, n = 5)
#' }
print.torch_tensor <- function(x, n = 30, ...) {
  cat(.bridge("format_tensor", .h(x), n), "\n", sep = "")
  invisible(x)
}

#' @export
format.torch_tensor <- function(x, n = 30, ...) .bridge("format_tensor", .h(x), n)

#' @export
as.character.torch_tensor <- function(x, ...) format.torch_tensor(x, ...)

#' @export
str.torch_tensor <- function(object, ...) {
  if (is_undefined_tensor(object)) {
    cat("Undefined tensor\n")
  } else {
    d <- dim(object)
    cat(object$dtype$word, if (length(d)) paste0(" [", paste0("1:", d, collapse = ", "), "]"),
        "\n", sep = "")
  }
  invisible(NULL)
}

# -- conversion to R -------------------------------------------------------------------------------

#' Convert a tensor to an R array
#'
#' Works on tensors that require grad (no `detach()` needed). A 0-d or 1-d tensor gives a
#' vector, a 2-d tensor a matrix, more dims an array with the same `[i, j, k]` positions.
#' Floats give doubles, integers R integers, bools logicals. An integer tensor with a value
#' beyond R's integer range gives doubles, exact up to 2^53 (with a warning beyond that).
#' @param x A tensor.
#' @return An R vector, matrix or array.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(matrix(c(1, 2, 3, 4), nrow = 2))
#'   as_array(x)
#' }
as_array <- function(x) UseMethod("as_array")

#' @export
as_array.default <- function(x) as.array(x)

#' @export
as_array.torch_tensor <- function(x) {
  if (.Call(rtp_live, x) && .attr(x, "dtype")$name %in% c("complex64", "complex128")) {
    # an R complex array from the two parts (R's complex values are pairs of doubles)
    re <- as_array(torch_real(x))
    v <- complex(real = re, imaginary = as_array(torch_imag(x)))
    if (!is.null(dim(re))) dim(v) <- dim(re)
    return(v)
  }
  r <- .bridge("to_r", .h(x))
  bytes <- r[[1L]]
  kind <- r[[2L]]
  shape <- as.integer(unlist(r[[3L]]))
  n <- if (length(shape)) prod(shape) else 1L
  if (kind == "double_rounded") {
    warning("the tensor has int64 values beyond 2^53 that R's doubles round (R's integers ",
            "are 32-bit: int64 values beyond their range are returned as doubles)", call. = FALSE)
    kind <- "double"
  }
  v <- switch(kind,
    double = readBin(bytes, "double", n = n, size = 8L, endian = "little"),
    integer = readBin(bytes, "integer", n = n, size = 4L, endian = "little"),
    logical = as.logical(readBin(bytes, "integer", n = n, size = 4L, endian = "little"))
  )
  if (length(shape) >= 2L) dim(v) <- shape
  v
}

#' @export
as.array.torch_tensor <- function(x, ...) {
  v <- as_array(x)
  if (is.null(dim(v))) array(v, dim = length(v)) else v
}

#' @export
as.matrix.torch_tensor <- function(x, ...) as.matrix(as_array(x))

#' @export
as.double.torch_tensor <- function(x, ...) as.double(as_array(x))

#' @export
as.numeric.torch_tensor <- function(x, ...) as.double(as_array(x))

#' @export
as.integer.torch_tensor <- function(x, ...) as.integer(as_array(x))

#' @export
as.logical.torch_tensor <- function(x, ...) as.logical(as_array(x))

#' @export
as.vector.torch_tensor <- function(x, mode = "any") as.vector(as_array(x), mode = mode)

#' @export
as.list.torch_tensor <- function(x, ...) as.list(as_array(x))

#' @export
# (A tensor restored from a file has no dims and no elements here, so that code summarising
# objects, such as a condition's backtrace, works; using it is R torch's error.)
dim.torch_tensor <- function(x) if (.Call(rtp_live, x)) .attr(x, "shape")

#' @export
length.torch_tensor <- function(x) {
  if (!.Call(rtp_live, x) || is_undefined_tensor(x)) return(0L)
  .call_method(x, "numel")
}

#' @export
names.torch_tensor <- function(x) NULL

# -- dtypes and devices -------------------------------------------------------------------------

.dtype <- function(name, word) {
  structure(list(name = name, word = word,
                 is_floating_point = name %in% c("float16", "bfloat16", "float32", "float64"),
                 itemsize = switch(name, complex128 = 16L, float64 = , int64 = , complex64 = 8L,
                                   float32 = , int32 = 4L, float16 = , bfloat16 = ,
                                   int16 = 2L, 1L)),
            class = "torch_dtype")
}

#' @export
print.torch_dtype <- function(x, ...) {
  cat("torch_", x$word, "\n", sep = "")
  invisible(x)
}

#' @export
as.character.torch_dtype <- function(x, ...) x$word

#' @export
Ops.torch_dtype <- function(e1, e2) {
  if (is.null(e1) || is.null(e2) || (nargs() == 2L && (!length(e1) || !length(e2)))) {
    # (R's comparison with NULL would give logical(0), which `if` then fails on obscurely)
    .value_error("can't compare a dtype with NULL (or an empty value)")
  }
  name <- function(e) if (inherits(e, "torch_dtype")) e$name else as.character(e)
  switch(.Generic,
    "==" = name(e1) == name(e2),
    "!=" = name(e1) != name(e2),
    .not_implemented_error("`", .Generic, "` is not defined for dtypes"))
}

#' The default floating point dtype
#'
#' @param d A floating point dtype, e.g. `torch_float64()`.
#' @return `torch_get_default_dtype()`: a dtype. `torch_set_default_dtype()`: `NULL`, invisibly.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   torch_get_default_dtype()
#' }
torch_get_default_dtype <- function() .fn("torch_get_default_dtype", list())

#' @rdname torch_get_default_dtype
#' @export
torch_set_default_dtype <- function(d) {
  if (!inherits(d, "torch_dtype")) {
    .type_error("torch_set_default_dtype(): `d` must be a floating point dtype such as ",
                              "torch_float64(), got ", .what(d))
  }
  .fn("torch_set_default_dtype", list(.a(d)))
  invisible(NULL)
}

#' A device
#'
#' rtorchpy computes on the CPU; `torch_device("cpu")` exists so that code passing `device =`
#' runs unchanged.
#' @param type Device type: `"cpu"`.
#' @param index Ignored.
#' @return A `torch_device`.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   torch_device("cpu")
#' }
torch_device <- function(type = "cpu", index = NULL) {
  if (!identical(tolower(type), "cpu")) {
    .not_implemented_error("rtorchpy computes on the CPU only; got device '",
                           paste(format(type), collapse = ", "), "'")
  }
  structure(list(type = "cpu"), class = "torch_device")
}

#' @export
print.torch_device <- function(x, ...) {
  cat("torch_device(type='cpu') \n")
  invisible(x)
}
