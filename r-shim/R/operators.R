# Operators and R generics on tensors, as R torch defines them.

# Each operator of the group is also registered as a method of its own, the same function:
# R's group dispatch looks for `*.torch_tensor` before `Ops.torch_tensor`, for each operand that
# is a tensor, and a failed lookup costs (callgrind, a do-nothing method on two objects: 12.2k
# instructions through the group method, 9.8k through the operator's own). `.Generic` is the
# operator either way.
#' @rawNamespace S3method("+", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("-", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("*", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("/", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("^", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("%%", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("%/%", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("==", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("!=", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("<", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("<=", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method(">", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method(">=", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("&", torch_tensor, Ops.torch_tensor)
#' @rawNamespace S3method("|", torch_tensor, Ops.torch_tensor)
#' @export
Ops.torch_tensor <- function(e1, e2) {
  # the callable is looked up and the reply wrapped in C (src/names.c); anything else: below
  if (missing(e2)) {
    r <- .Call(rtp_unop, .Generic, e1)
    if (is.object(r)) return(r)
    return(.unary_reply(.Generic, e1, r))
  }
  # a number on the left becomes a {1} tensor (Tensor overload); on the right it stays a
  # number (Scalar overload): 2 * x is MulBackward0, x * 2 is MulBackward1
  r <- .Call(rtp_binop, .Generic, e1, e2)
  if (is.object(r)) r else .binary_reply(.Generic, e1, e2, r, sys.call())
}

# `r`: what rtp_unop/rtp_binop returned (raw 01 or 04: not called)
.unary_reply <- function(generic, e1, r) {
  f <- .rt$unary[[generic]]
  if (is.null(f)) {
    .ensure_python()
    f <- .rt$unary[[generic]]
    if (is.null(f)) .not_implemented_error("unary `", generic, "` is not defined for tensors")
  }
  if (is.raw(r)) {
    r <- .call_slow(f, list(e1), r, .ptr_h)
  }
  .res(r)
}

# `call`: the method's call, `+.torch_tensor`(x, y) for x + y; an error names the operator call
.binary_reply <- function(generic, e1, e2, r, call) {
  if (is.call(call)) call[[1L]] <- as.name(generic)
  f <- .rt$binary[[generic]]
  if (is.null(f)) {
    .ensure_python()
    f <- .rt$binary[[generic]]
    if (is.null(f)) .not_implemented_error("`", generic, "` is not defined for tensors")
  }
  .reply_t(f, list(e1, e2), r, call)
}

#' Matrix product
#'
#' `x %*% y` is `torch_matmul(x, y)` when either side is a tensor, and base R's `%*%`
#' otherwise. From R 4.3 tensors take part in base's `%*%` through the `matrixOps` group, so
#' this is base's `%*%` itself; before 4.3 base matrices and vectors go straight to base's
#' primitive after one `is.object()` test on each side (no other cost).
#' @param x,y Tensors, or R matrices/vectors.
#' @return A tensor (or base R's result).
#' @usage x \%*\% y
#' @name %*%
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   a <- torch_tensor(matrix(c(1, 2, 3, 4), nrow = 2))
#'   a %*% a
#' }
#' @export
`%*%` <- if (getRversion() >= "4.3.0") .Primitive("%*%") else local({
  base_matprod <- .Primitive("%*%")
  function(x, y) {
    # plain matrices and vectors carry no class: is.object() is FALSE for them
    if ((is.object(x) || is.object(y)) && (is_torch_tensor(x) || is_torch_tensor(y))) {
      return(.tensor_matmul(x, y))
    }
    base_matprod(x, y)
  }
})

.tensor_matmul <- function(x, y) {
  .ensure_python()
  .res(.call(.T_BINARY, "%*%", list(.a(x), .a(y))))
}

# R >= 4.3 dispatches base's %*% to S3 methods of the matrixOps group; R 4.2 has no such group,
# so NAMESPACE registers the method only where it exists.
#' @rawNamespace if (getRversion() >= "4.3.0") S3method(matrixOps, torch_tensor)
matrixOps.torch_tensor <- function(x, y) {
  if (.Generic != "%*%") .not_implemented_error("`", .Generic, "()` is not implemented for tensors")
  .tensor_matmul(x, y)
}

# R's Math group members and the elementwise op each one is (R torch's names)
.MATH <- c(abs = "abs", sign = "sign", sqrt = "sqrt", floor = "floor", ceiling = "ceil",
           trunc = "trunc", exp = "exp", expm1 = "expm1", log1p = "log1p", log2 = "log2",
           log10 = "log10", cos = "cos", sin = "sin", tan = "tan", acos = "acos",
           asin = "asin", atan = "atan", cosh = "cosh", sinh = "sinh", tanh = "tanh",
           acosh = "acosh", asinh = "asinh", atanh = "atanh", lgamma = "lgamma",
           digamma = "digamma")

#' @export
Math.torch_tensor <- function(x, ...) {
  switch(.Generic,
    log = {
      out <- .op("log", list(.h(x)))
      base <- if (...length()) ..1 else NULL
      if (!is.null(base) && !isTRUE(all.equal(base, exp(1)))) out <- out / log(base)
      return(out)
    },
    round = {
      digits <- if (...length()) ..1 else 0
      if (digits == 0) return(.op("round", list(.h(x))))
      scale <- 10^digits
      return((x * scale)$round() / scale)
    },
    cumsum = return(torch_cumsum(x, dim = 1L)),
    trigamma = return(torch_polygamma(1L, x)))
  op <- .MATH[.Generic]
  if (is.na(op) || !.has_op(op)) {
    .not_implemented_error("`", .Generic, "()` is not implemented for tensors")
  }
  .op(op, list(.h(x)))
}

# Is `name` an op of the Python registry (ops added there later need no change here)?
.has_op <- function(name) {
  .ensure_python()
  exists(name, envir = .rt$ops, inherits = FALSE)
}

#' @export
Summary.torch_tensor <- function(..., na.rm = FALSE) {
  args <- list(...)
  named <- names(args)
  dim <- NULL
  if (!is.null(named)) {
    extra <- setdiff(named[nzchar(named)], "dim")
    if (length(extra)) {
      .value_error("unused argument", if (length(extra) > 1) "s", " to `", .Generic, "()`: ",
                   paste(extra, collapse = ", "))
    }
    dim <- args$dim
    args <- args[!nzchar(named)]
  }
  if (!.Generic %in% c("sum", "prod", "max", "min", "all", "any", "range")) {
    .not_implemented_error("`", .Generic, "()` is not implemented for tensors")
  }
  if (length(args) > 1L) {
    if (!is.null(dim)) {
      .value_error("`", .Generic, "()` of several tensors reduces all of their elements: it takes ",
                   "no `dim`")
    }
    # as base R: the reduction of all the elements of all the arguments together
    parts <- lapply(args, function(a) torch_flatten(if (is_torch_tensor(a)) a else
      torch_tensor(a)))
    x <- torch_cat(parts)
  } else {
    x <- args[[1L]]
  }
  switch(.Generic,
    sum = torch_sum(x, dim = dim), prod = torch_prod(x, dim = dim),
    max = torch_max(x, dim = dim), min = torch_min(x, dim = dim),
    all = torch_all(x, dim = dim), any = torch_any(x, dim = dim),
    range = {
      if (!is.null(dim)) .value_error("`range()` of a tensor takes no `dim`")
      torch_stack(list(torch_min(x), torch_max(x)))
    })
}

#' @export
mean.torch_tensor <- function(x, dim = NULL, keepdim = FALSE, ...) {
  torch_mean(x, dim = dim, keepdim = keepdim)
}

#' @export
t.torch_tensor <- function(x) torch_t(x)
