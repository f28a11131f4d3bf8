# `[` and `[<-` with R torch's rules. The index expressions are read unevaluated: `a:b` is an
# inclusive range (not a vector), `N` is the size of the dimension, `..` stands for the dims
# not indexed, an empty argument is the whole dimension, `newaxis` or `NULL` adds a dimension.
# Each argument becomes one item for the bridge (see rtorchpy/_r/index.py).

#' Index tensors as R torch does
#'
#' Indices are 1-based and negative ones count from the end (`x[-1]` is the last element).
#' `a:b` is inclusive at both ends and `a:b:s` has a step; `N` is the size of the dimension
#' (`x[2:N]`); an empty argument keeps the whole dimension; `..` stands for all dimensions not
#' indexed; `newaxis` or `NULL` inserts a dimension. A vector of indices (or a long tensor)
#' selects along its own dimension, independently of the other arguments; a logical vector or
#' bool tensor is a mask along as many dimensions as it has (an R logical vector: one, so
#' `x[TRUE]` on a one-element tensor is that tensor). A number
#' drops its dimension unless `drop = FALSE`; numbers act before vectors, so `x[1, , c(2, 3)]` on
#' a 3 x 4 x 5 tensor is 4 x 2, as in R.
#'
#' @param x A tensor.
#' @param ... Indices, one per dimension.
#' @param drop Drop the dimensions indexed by a single number.
#' @param value A tensor or a number to write (in place) at the indexed positions.
#' @return `[`: a tensor. `[<-`: `x`, modified in place.
#' @name tensor-indexing
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(matrix(1:6, nrow = 2))
#'   x[1, ]
#'   x[, 2:3]
#'   x[x > 3]
#' }
NULL

#' @rdname tensor-indexing
#' @export
`[.torch_tensor` <- function(x, ..., drop = TRUE) {
  exprs <- as.list(substitute(list(...)))[-1L]
  if (!length(exprs)) return(x)
  # x[m] with a numeric matrix: looked at only for a variable or a matrix-building call, so an
  # index expression is never evaluated twice (nor N, .. and the like evaluated at all)
  if (length(exprs) == 1L && !identical(exprs[[1L]], quote(expr = ))) {
    e <- exprs[[1L]]
    if (is.symbol(e) && !identical(e, quote(N)) && !identical(e, quote(..)) ||
        is.call(e) && is.symbol(e[[1L]]) &&
        as.character(e[[1L]]) %in% c("cbind", "rbind", "matrix")) {
      m <- eval(e, parent.frame())
      if (is.matrix(m) && is.numeric(m)) return(.index_matrix(x, m))
    }
  }
  .bridge("index", .h(x), .index_items(x, exprs, parent.frame()), .flag(drop))
}

# x[m] with a numeric matrix of one column per dimension of x: the elements m's rows point at,
# as R's own arrays take it (a one-column matrix on a 1-d tensor is a vector of indices).
.index_matrix <- function(x, m) {
  shape <- x$shape
  if (ncol(m) != length(shape) || length(shape) < 2L) {
    if (ncol(m) == 1L) return(x[as.vector(m)])
    .value_error(sprintf("a matrix index needs one column per dimension of the tensor (%d), got %d",
                         length(shape), ncol(m)))
  }
  if (anyNA(m)) .index_na("a matrix index")
  if (any(m < 1 | m != floor(m)) || any(sweep(m, 2L, shape, ">"))) {
    .value_error("a matrix index must hold whole numbers from 1 to each dimension's size")
  }
  strides <- rev(cumprod(c(1, rev(shape)[-length(shape)])))
  flat <- as.vector((m - 1) %*% strides) + 1
  x$reshape(-1L)[flat]
}

#' @rdname tensor-indexing
#' @export
`[<-.torch_tensor` <- function(x, ..., value) {
  exprs <- as.list(substitute(list(...)))[-1L]
  .bridge("set_index", .h(x), .index_items(x, exprs, parent.frame()), .a(value))
  x
}

#' Slices for indexing
#'
#' `slc(start, end, step)` is the range `start:end:step` built from variables, for use inside
#' `[`. Ends are inclusive.
#' @param start,end First and last index (1-based, negative from the end).
#' @param step Step, at least 1.
#' @return A `slice` object.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_arange(1, 10)
#'   x[slc(2, 8, 2)]
#' }
slc <- function(start, end, step = 1) {
  structure(list(start = start, end = end, step = step), class = "slice")
}

#' @export
print.slice <- function(x, ...) {
  cat("<slice>\n")
  invisible(x)
}

#' @rdname tensor-indexing
#' @format `newaxis`: `NULL`, so that `x[newaxis, ]` inserts a dimension.
#' @export
newaxis <- NULL

.expr_kind <- function(e) {
  if (identical(e, quote(expr = ))) return("f")   # empty argument: the whole dimension
  if (is.null(e)) return("n")
  if (is.symbol(e) && identical(e, quote(..))) return("e")
  if (is.symbol(e) && identical(e, quote(newaxis))) return("n")
  "x"
}

.index_items <- function(x, exprs, env) {
  kinds <- vapply(exprs, .expr_kind, "")
  takes_dim <- kinds %in% c("f", "x")
  shape <- NULL
  # the dimension argument k refers to, for `N` (counted from the end after `..`)
  dim_of <- function(k) {
    if (is.null(shape)) shape <<- dim(x)
    before <- seq_len(k - 1L)
    if (!any(kinds[before] == "e")) return(sum(takes_dim[before]) + 1L)
    length(shape) - sum(takes_dim[-seq_len(k)])
  }
  items <- vector("list", length(exprs))
  for (k in seq_along(exprs)) {
    if (kinds[[k]] != "x") {
      items[[k]] <- list(kinds[[k]])
      next
    }
    e <- exprs[[k]]
    ev <- env
    if ("N" %in% all.names(e)) {
      d <- dim_of(k)
      ev <- new.env(parent = env)
      ev$N <- shape[[d]]
    }
    items[[k]] <- .index_item(e, ev)
  }
  items
}

.index_item <- function(e, env) {
  if (is.null(e)) return(list("n"))
  if (is.symbol(e)) {
    if (identical(e, quote(..))) return(list("e"))
    if (identical(e, quote(newaxis))) return(list("n"))
  }
  if (is.call(e) && identical(e[[1L]], quote(`:`))) {
    lhs <- e[[2L]]
    if (is.call(lhs) && identical(lhs[[1L]], quote(`:`))) {
      return(list("s", .index_number(lhs[[2L]], env), .index_number(lhs[[3L]], env),
                  .index_number(e[[3L]], env)))
    }
    return(list("s", .index_number(lhs, env), .index_number(e[[3L]], env), 1L))
  }
  v <- eval(e, env)
  if (is.null(v)) return(list("n"))
  # the tensor itself, not its handle: it is often a temporary (`x[x > 0, ...]`), and with only
  # its handle kept it could be collected, and its handle released in Python, while the other
  # items are evaluated and before the call reads it ("this object was freed"); the call
  # passes it as its handle (C's to_py, or .ptr_h)
  if (is_torch_tensor(v)) return(list("i", v))
  if (inherits(v, "slice")) {
    for (part in c("start", "end", "step")) {
      if (length(v[[part]]) == 1L && !is_torch_tensor(v[[part]]) && is.na(v[[part]])) {
        .index_na(paste0("the slice's `", part, "`"))
      }
    }
    return(list("s", v$start, v$end, v$step))
  }
  if ((is.logical(v) || is.numeric(v)) && anyNA(v)) .index_na("an index")
  # a logical vector is a 1-d mask (R torch makes it a bool tensor of its length): x[TRUE] on a
  # one-element tensor keeps that element
  if (is.logical(v)) return(list("m", as.list(v)))
  if (is.numeric(v)) {
    if (length(v) == 1L) return(list("i", as.vector(v)))
    return(list("v", as.list(as.vector(v))))
  }
  .value_error("Unsupported index.")
}

.index_number <- function(e, env) {
  v <- eval(e, env)
  if (is_torch_tensor(v)) v <- v$item()
  if (length(v) == 1L && is.atomic(v) && is.na(v)) .index_na("a range's bound")
  if (!is.numeric(v) || length(v) != 1L) .value_error("Unsupported index.")
  v
}

# R indexes a vector with NA by giving NA; a tensor has no NA, so an NA index is an error
# (taking a logical NA as TRUE would read or overwrite every element).
.index_na <- function(what) {
  .nn_error(what, " is NA: a tensor can't be indexed with NA (use TRUE/FALSE or numbers)")
}
