# Operators and R generics on tensors, as R torch defines them.

#' @export
Ops.torch_tensor <- function(e1, e2) {
  if (missing(e2)) {
    f <- .rt$unary[[.Generic]]
    if (is.null(f)) {
      .ensure_python()
      f <- .rt$unary[[.Generic]]
      if (is.null(f)) stop("unary `", .Generic, "` is not defined for tensors", call. = FALSE)
    }
    return(.res(.call(f, list(.h(e1)))))
  }
  f <- .rt$binary[[.Generic]]
  if (is.null(f)) {
    .ensure_python()
    f <- .rt$binary[[.Generic]]
    if (is.null(f)) stop("`", .Generic, "` is not defined for tensors", call. = FALSE)
  }
  # a number on the left becomes a {1} tensor (Tensor overload); on the right it stays a
  # number (Scalar overload): 2 * x is MulBackward0, x * 2 is MulBackward1
  r <- .Call(rtp_call, f, list(e1, e2), .TENSOR_CLASS)
  if (typeof(r) == "externalptr") r else .reply_t(f, list(e1, e2), r, sys.call(-1L))
}

#' Matrix product
#'
#' `x %*% y` is `torch_matmul(x, y)` when either side is a tensor, and base R's `%*%`
#' otherwise.
#' @param x,y Tensors, or R matrices/vectors.
#' @return A tensor (or base R's result).
#' @export
`%*%` <- function(x, y) {
  if (is_torch_tensor(x) || is_torch_tensor(y)) {
    f <- .rt$binary[["%*%"]]
    if (is.null(f)) {
      .ensure_python()
      f <- .rt$binary[["%*%"]]
    }
    return(.res(.call(f, list(.a(x), .a(y)))))
  }
  base::`%*%`(x, y)
}

.MATH <- c(abs = "abs", sign = "sign", sqrt = "sqrt", floor = "floor", ceiling = "ceil",
           trunc = "trunc", exp = "exp", expm1 = "expm1", log1p = "log1p", cos = "cos",
           sin = "sin", tan = "tan", tanh = "tanh", log2 = "log2", log10 = "log10",
           round = "round")

#' @export
Math.torch_tensor <- function(x, ...) {
  if (.Generic == "log") {
    out <- .op("log", list(.h(x)))
    base <- if (...length()) ..1 else NULL
    if (!is.null(base) && !isTRUE(all.equal(base, exp(1)))) out <- out / log(base)
    return(out)
  }
  if (.Generic == "cumsum") return(torch_cumsum(x, dim = 1L))
  op <- .MATH[.Generic]
  if (is.na(op)) stop("`", .Generic, "()` is not implemented for tensors", call. = FALSE)
  .op(op, list(.h(x)))
}

#' @export
Summary.torch_tensor <- function(..., na.rm = FALSE) {
  args <- list(...)
  if (length(args) != 1L) {
    stop("`", .Generic, "()` of several tensors is not supported: combine them first",
         call. = FALSE)
  }
  x <- args[[1L]]
  switch(.Generic,
    sum = torch_sum(x), prod = torch_prod(x), max = torch_max(x), min = torch_min(x),
    all = torch_all(x), any = torch_any(x),
    range = torch_stack(list(torch_min(x), torch_max(x))),
    stop("`", .Generic, "()` is not implemented for tensors", call. = FALSE))
}

#' @export
mean.torch_tensor <- function(x, dim = NULL, keepdim = FALSE, ...) {
  torch_mean(x, dim = dim, keepdim = keepdim)
}

#' @export
t.torch_tensor <- function(x) torch_t(x)
