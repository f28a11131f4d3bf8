# Creation functions with R torch's conventions (sizes as `...` or a vector, R dtypes).

#' Create a tensor from R data
#'
#' Doubles give float32, integers int64 (long), logicals bool; `dtype` converts. A number
#' gives shape `{1}` (never 0-d). Matrices and arrays keep their positions: `m[i, j]` is
#' `x[i, j]`. A tensor gives a detached copy. Lists and data frames are an error ("R type not
#' handled", as in R torch): convert them first, e.g. `torch_tensor(as.matrix(df))`.
#' @param data An R vector, matrix or array, or a tensor.
#' @param dtype A dtype, e.g. `torch_float64()`, or `NULL`.
#' @param device `NULL` or `"cpu"`.
#' @param requires_grad Track operations on the tensor for automatic differentiation.
#' @param pin_memory Ignored.
#' @return A tensor: [tensor_methods] lists its fields (`x$shape`, `x$grad`, ...) and methods
#'   (`x$sum()`, `x$backward()`, ...).
#' @examples
#' if (rtorchpy_available()) {
#'   torch_tensor(c(1, 2, 3))
#'   torch_tensor(matrix(1:6, nrow = 2))
#' }
#' @export
#' @family tensors
torch_tensor <- function(data, dtype = NULL, device = NULL, requires_grad = FALSE,
                         pin_memory = FALSE) {
  .check_device(device)
  if (is_torch_tensor(data)) {
    return(.fn("torch_tensor", list(.h(data), .a(dtype), NULL, .flag(requires_grad))))
  }
  # as R torch: only atomic vectors, matrices and arrays (lists and data frames are not)
  if (is.list(data)) .type_error("R type not handled")
  .bridge("from_r", .r_array(data), .a(dtype), .flag(requires_grad))
}

#' A 0-d tensor
#'
#' @param value A number.
#' @inheritParams torch_tensor
#' @return A tensor with no dimensions.
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   torch_scalar_tensor(3.5)
#' }
torch_scalar_tensor <- function(value, dtype = NULL, device = NULL, requires_grad = FALSE) {
  .check_device(device)
  if (is_torch_tensor(value)) value <- value$item()
  out <- torch_tensor(value, dtype = dtype)$reshape(integer(0))
  if (.flag(requires_grad)) out$requires_grad_(TRUE)
  out
}

.check_device <- function(device) {
  if (!is.null(device)) {
    type <- if (inherits(device, "torch_device")) device$type else as.character(device)
    if (length(type) != 1L || is.na(type)) {  # (one message, whatever was given)
      .value_error("`device` must be NULL, \"cpu\" or a torch_device, got ", .what(device))
    }
    torch_device(type)
  }
  invisible(NULL)
}

.size_args <- function(...) {
  s <- .dots(...)
  lapply(s, function(v) {
    if (!is.numeric(v) || is.na(v) || v != round(v)) {
      .value_error("size must be given as whole numbers")
    }
    as.integer(v)
  })
}

.sized <- function(name, size, dtype, device, requires_grad, generator = NULL) {
  .check_device(device)
  kw <- list(dtype = .a(dtype), requires_grad = .flag(requires_grad))
  if (!is.null(generator)) kw$generator <- .a(generator)
  .fn(name, size, kw)
}

#' Tensors filled with constants or random values
#'
#' The size is given as numbers or as one vector: `torch_ones(2, 3)`, `torch_ones(c(2, 3))`
#' and `torch_ones(size = c(2, 3))` are the same. Floating point results are float32 unless
#' `dtype` says otherwise.
#' @param ... The size.
#' @param names Ignored (named tensors are not supported).
#' @param dtype A dtype, or `NULL`.
#' @param layout Ignored.
#' @param device `NULL` or `"cpu"`.
#' @param requires_grad Track operations for automatic differentiation.
#' @param generator A generator made by [torch_generator()] for the random draws (`torch_rand()`,
#'   `torch_randn()`), or `NULL` for the default one.
#' @return A tensor.
#' @name tensor-creation
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   torch_zeros(2, 3)
#'   torch_ones(2, dtype = torch_long())
#'   torch_manual_seed(1)
#'   torch_randn(2, 2)
#' }
NULL

#' @rdname tensor-creation
#' @export
torch_ones <- function(..., names = NULL, dtype = NULL, layout = NULL, device = NULL,
                       requires_grad = FALSE) {
  .sized("torch_ones", .size_args(...), dtype, device, requires_grad)
}

#' @rdname tensor-creation
#' @export
torch_zeros <- function(..., names = NULL, dtype = NULL, layout = NULL, device = NULL,
                        requires_grad = FALSE) {
  .sized("torch_zeros", .size_args(...), dtype, device, requires_grad)
}

#' @rdname tensor-creation
#' @export
torch_empty <- function(..., names = NULL, dtype = NULL, layout = NULL, device = NULL,
                        requires_grad = FALSE) {
  .sized("torch_empty", .size_args(...), dtype, device, requires_grad)
}

#' @rdname tensor-creation
#' @export
torch_rand <- function(..., names = NULL, dtype = NULL, layout = NULL, device = NULL,
                       requires_grad = FALSE, generator = NULL) {
  .sized("torch_rand", .size_args(...), dtype, device, requires_grad, generator)
}

#' @rdname tensor-creation
#' @export
torch_randn <- function(..., names = NULL, dtype = NULL, layout = NULL, device = NULL,
                        requires_grad = FALSE, generator = NULL) {
  .sized("torch_randn", .size_args(...), dtype, device, requires_grad, generator)
}

#' @rdname tensor-creation
#' @param size The size, as a vector.
#' @param fill_value The value to fill with.
#' @export
torch_full <- function(size, fill_value, names = NULL, dtype = NULL, layout = NULL,
                       device = NULL, requires_grad = FALSE) {
  .check_device(device)
  .fn("torch_full", list(.size_args(size), fill_value),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' @rdname tensor-creation
#' @param n,m Rows and columns.
#' @export
torch_eye <- function(n, m = n, dtype = NULL, layout = NULL, device = NULL,
                      requires_grad = FALSE) {
  .check_device(device)
  .fn("torch_eye", list(as.integer(n), as.integer(m)),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' @rdname tensor-creation
#' @param low,high Integers are drawn from `low` (inclusive) to `high` (exclusive).
#' @export
torch_randint <- function(low, high, size, generator = NULL, dtype = NULL, layout = NULL,
                          device = NULL, requires_grad = FALSE) {
  .check_device(device)
  kw <- list(dtype = .a(dtype), requires_grad = .flag(requires_grad))
  if (!is.null(generator)) kw$generator <- .a(generator)
  .fn("torch_randint", list(low, high, .size_args(size)), kw)
}

#' @rdname tensor-creation
#' @export
torch_randperm <- function(n, dtype = torch_int64(), layout = NULL, device = NULL,
                           requires_grad = FALSE, generator = NULL) {
  .check_device(device)
  kw <- list(dtype = .a(dtype), requires_grad = .flag(requires_grad))
  if (!is.null(generator)) kw$generator <- .a(generator)
  .fn("torch_randperm", list(as.integer(n)), kw)
}

#' Tensors shaped like another
#'
#' @param input A tensor whose shape (and, unless `dtype` is given, dtype) is used.
#' @param fill_value The value to fill with.
#' @param low,high Bounds for `torch_randint_like()`.
#' @param memory_format Ignored.
#' @inheritParams tensor-creation
#' @return A tensor.
#' @name tensor-creation-like
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_randn(2, 3)
#'   torch_zeros_like(x)
#'   torch_ones_like(x, dtype = torch_long())
#' }
NULL

.like <- function(name, input, args = list(), dtype, requires_grad) {
  .fn(name, c(list(.h(input)), args), list(dtype = .a(dtype),
                                            requires_grad = .flag(requires_grad)))
}

#' @rdname tensor-creation-like
#' @export
torch_ones_like <- function(input, dtype = NULL, layout = NULL, device = NULL,
                            requires_grad = FALSE, memory_format = NULL) {
  .like("torch_ones_like", input, list(), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_zeros_like <- function(input, dtype = NULL, layout = NULL, device = NULL,
                             requires_grad = FALSE, memory_format = NULL) {
  .like("torch_zeros_like", input, list(), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_empty_like <- function(input, dtype = NULL, layout = NULL, device = NULL,
                             requires_grad = FALSE, memory_format = NULL) {
  .like("torch_empty_like", input, list(), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_rand_like <- function(input, dtype = NULL, layout = NULL, device = NULL,
                            requires_grad = FALSE, memory_format = NULL) {
  .like("torch_rand_like", input, list(), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_randn_like <- function(input, dtype = NULL, layout = NULL, device = NULL,
                             requires_grad = FALSE, memory_format = NULL) {
  .like("torch_randn_like", input, list(), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_full_like <- function(input, fill_value, dtype = NULL, layout = NULL, device = NULL,
                            requires_grad = FALSE, memory_format = NULL) {
  .like("torch_full_like", input, list(fill_value), dtype, requires_grad)
}

#' @rdname tensor-creation-like
#' @export
torch_randint_like <- function(input, low, high, dtype = NULL, layout = NULL, device = NULL,
                               requires_grad = FALSE, memory_format = NULL) {
  .like("torch_randint_like", input, list(low, high), dtype, requires_grad)
}

#' Sequences
#'
#' `torch_arange(start, end, step)` includes `end` (R torch's rule; a missing `end` means
#' `1:start`). It is int64 when `start`, `end` and `step` are all R integers, float32
#' otherwise (unless `dtype` is given). `torch_linspace()` gives `steps` values from `start` to
#' `end`, both included; `torch_logspace()` their powers of `base`.
#' @param start,end First and last value.
#' @param step Increment.
#' @param steps Number of values.
#' @param base Base of `torch_logspace()`.
#' @inheritParams tensor-creation
#' @return A 1-d tensor.
#' @examples
#' if (rtorchpy_available()) {
#'   torch_arange(1, 5)
#'   torch_linspace(0, 1, 5)
#' }
#' @name torch_arange
#' @export
#' @family tensors
torch_arange <- function(start, end, step = 1L, dtype = NULL, layout = NULL, device = NULL,
                         requires_grad = FALSE) {
  .check_device(device)
  if (missing(end)) {
    end <- start
    start <- if (is.integer(end)) 1L else 1
  }
  all_int <- is.integer(start) && is.integer(end) && is.integer(step)
  .bridge("arange", start, end, step, .a(dtype), all_int, .flag(requires_grad))
}

#' @rdname torch_arange
#' @export
torch_linspace <- function(start, end, steps = 100, dtype = NULL, layout = NULL,
                           device = NULL, requires_grad = FALSE) {
  .check_device(device)
  .fn("torch_linspace", list(start, end, as.integer(steps)),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' @rdname torch_arange
#' @export
torch_logspace <- function(start, end, steps = 100, base = 10, dtype = NULL, layout = NULL,
                           device = NULL, requires_grad = FALSE) {
  .check_device(device)
  .fn("torch_logspace", list(start, end, as.integer(steps), base),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

