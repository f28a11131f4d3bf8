# Tensors compare by value: all.equal() and testthat's expect_equal() (through waldo) look at
# the dtype, the shape and the values, never at the external pointer that holds the tensor.

#' Compare tensors by value
#'
#' `all.equal(x, y)` on tensors is `TRUE` when both have the same dtype and shape and their
#' values are equal within `tolerance` (as [base::all.equal()] on the arrays); otherwise it
#' describes the differences. A tensor compared with an R array or vector compares its values.
#' testthat's `expect_equal()` compares tensors the same way (dtype, shape and values).
#' @param target,current Tensors (or `current` an R array or vector).
#' @param ... Passed to [base::all.equal()] on the values (e.g. `tolerance`).
#' @return `TRUE`, or a character vector describing the differences.
#' @method all.equal torch_tensor
#' @export
#' @family tensors
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(1, 2, 3))
#'   all.equal(x, x + 1e-9)
#'   isTRUE(all.equal(x, x + 1))
#' }
all.equal.torch_tensor <- function(target, current, ...) {
  if (!is_torch_tensor(current)) return(all.equal(.tensor_values(target), current, ...))
  out <- character()
  dt <- c(.tensor_dtype(target), .tensor_dtype(current))
  if (dt[1] != dt[2]) out <- c(out, paste0("dtypes differ: ", dt[1], " and ", dt[2]))
  shapes <- list(.tensor_shape(target), .tensor_shape(current))
  if (!identical(shapes[[1]], shapes[[2]])) {
    out <- c(out, paste0("shapes differ: {", paste(shapes[[1]], collapse = ","), "} and {",
                         paste(shapes[[2]], collapse = ","), "}"))
  } else {
    v <- all.equal(.tensor_values(target), .tensor_values(current), ...)
    if (!isTRUE(v)) out <- c(out, v)
  }
  if (length(out)) out else TRUE
}

.tensor_dtype <- function(x) if (is_undefined_tensor(x)) "undefined" else as.character(x$dtype)
.tensor_shape <- function(x) if (is_undefined_tensor(x)) NULL else as.integer(x$shape)
.tensor_values <- function(x) if (is_undefined_tensor(x)) NULL else as_array(x)

# waldo's compare_proxy() method: what waldo::compare() (and so testthat 3e's expect_equal())
# sees instead of the tensor. waldo is only suggested (testthat brings it): NAMESPACE registers
# the method for when waldo is loaded (R's delayed S3 registration).
#' @exportS3Method waldo::compare_proxy
compare_proxy.torch_tensor <- function(x, path = "x") {
  list(object = list(dtype = .tensor_dtype(x), shape = .tensor_shape(x),
                     values = .tensor_values(x)),
       path = path)
}
