# Default collation, as R torch's utils_data_default_collate(): tensors are stacked along a new
# first dim (one torch_stack() call), R vectors of length > 1, matrices and arrays become tensors
# first, scalars become a tensor of the batch (integers int64, other numbers float32, logicals
# bool), strings stay a character vector, and lists are collated element by element
# (recursively, names kept).

#' @include data-sampler.R
NULL

#' Default collation
#'
#' `utils_data_default_collate()` merges the items of a batch as R torch does (see the
#' source's description); `utils_data_default_convert()` converts one item when batching is
#' off (`batch_size = NULL`).
#' @param batch A list of items.
#' @param data One item.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   utils_data_default_collate(list(torch_tensor(c(1, 2)), torch_tensor(c(3, 4))))
#' }
utils_data_default_collate <- function(batch) {
  if (!length(batch)) .data_error("collate: the batch is empty")
  elem <- batch[[1]]
  if (is_torch_tensor(elem)) return(.collate_stack(batch))
  if (is.atomic(elem) && !is.character(elem) && !is.null(elem) &&
      (!is.null(dim(elem)) || length(elem) > 1L)) {
    return(.collate_stack(lapply(batch, torch_tensor)))
  }
  if (is.atomic(elem) && length(elem) == 1L) {
    k <- unlist(batch, use.names = FALSE)
    if (length(k) != length(batch)) {
      .data_error("collate: items of a batch must have the same length: item 1 of the batch ",
                  "is a scalar, but not every item is")
    }
    if (is.character(elem)) return(k)
    dtype <- if (is.integer(elem) || is.factor(elem)) torch_long() else
      if (is.logical(elem)) torch_bool() else torch_float()
    return(torch_tensor(k, dtype = dtype))
  }
  if (is.list(elem)) {
    n <- length(elem)
    lens <- lengths(batch)
    if (any(lens != n)) {
      k <- which(lens != n)[[1]]
      .data_error("collate: items of a batch must have the same length, but item 1 of the ",
                  "batch has ", n, " elements and item ", k, " has ", lens[[k]])
    }
    out <- lapply(seq_len(n), function(i) {
      utils_data_default_collate(lapply(batch, .subset2, i))
    })
    names(out) <- names(elem)
    return(out)
  }
  .data_error("collate: cannot collate items of class '", paste(class(elem), collapse = "/"),
              "'")
}

# torch_stack() of the batch, with an error naming the first two shapes that differ
.collate_stack <- function(batch) {
  tryCatch(torch_stack(batch, dim = 1L), error = function(e) {
    shapes <- lapply(batch, function(t) t$shape)
    k <- Position(function(s) !identical(s, shapes[[1]]), shapes)
    if (is.na(k)) stop(e)
    .data_error("collate: items of a batch must have the same shape, but item 1 of the batch ",
                "has shape [", paste(shapes[[1]], collapse = ", "), "] and item ", k,
                " has shape [", paste(shapes[[k]], collapse = ", "), "]")
  })
}

#' @rdname utils_data_default_collate
#' @export
utils_data_default_convert <- function(data) {
  if (is_torch_tensor(data)) return(data)
  if (is.list(data)) return(lapply(data, utils_data_default_convert))
  if (is.atomic(data) && !is.character(data) && !is.null(data)) return(torch_tensor(data))
  data
}
