# Datasets, as R torch has them: dataset() and iterable_dataset() make R6 class generators
# (R code; a dataset's closures never cross to Python), tensor_dataset() serves a whole batch in
# one crossing, dataset_subset() and random_split() select items.

#' @include bridge.R
NULL

.data_error <- function(...) {
  .value_error(...)
}

.Dataset <- .lazy_r6(function() R6::R6Class(
  classname = "dataset",
  lock_objects = FALSE,
  public = list(
    .getitem = function(index) {
      .data_error("this dataset does not define .getitem()")
    }
  )
))

.IterableDataset <- .lazy_r6(function() R6::R6Class(
  classname = "iterable_dataset",
  lock_objects = FALSE,
  public = list(
    .iter = function() {
      .data_error("this iterable_dataset does not define .iter()")
    }
  )
))

# the R6 class behind `inherit`: a generator made by dataset()/iterable_dataset()/sampler(), or
# an R6 class generator
.r6_parent <- function(inherit, what) {
  inherit <- .r6(inherit)
  if (inherits(inherit, c("dataset_generator", "sampler_generator"))) {
    return(attr(inherit, "Dataset") %||% attr(inherit, "Sampler"))
  }
  if (!inherits(inherit, "R6ClassGenerator")) {
    .data_error("`inherit` must be a ", what, " generator, got ", .what(inherit))
  }
  inherit
}

.init_formals <- function(cls) {
  while (!is.null(cls)) {
    init <- cls$public_methods$initialize
    if (!is.null(init)) return(formals(init))
    cls <- cls$get_inherit()
  }
  NULL
}

# a function calling Class$new() whose formals are initialize()'s (so args() and completion
# show them), class `cls`, the R6 class in attribute `attr_name`
.class_generator <- function(name, inherit, public, private, active, parent_env, attr_name,
                             cls) {
  # do.call puts the parent class itself in the call: R6 evaluates `inherit` lazily, in
  # parent_env, where a variable of that name need not exist
  Class <- do.call(R6::R6Class, list(classname = name, inherit = inherit, lock_objects = FALSE,
                                     public = public, private = private, active = active,
                                     parent_env = parent_env))
  f <- function(...) Class$new(...)
  fm <- .init_formals(Class)
  if (!is.null(fm)) {
    # `...` is forwarded as it is, the other arguments by name
    args <- lapply(names(fm), as.symbol)
    names(args) <- ifelse(names(fm) == "...", "", names(fm))
    formals(f) <- fm
    body(f) <- as.call(c(quote(Class$new), args))
  }
  environment(f) <- list2env(list(Class = Class), parent = parent_env)
  attr(f, attr_name) <- Class
  class(f) <- cls
  f
}

#' Datasets
#'
#' `dataset()` defines a dataset class, as R torch's: a generator of R6 objects with
#' `initialize()`, `.getitem(i)` (item `i`, 1-based), `.length()`, and optionally
#' `.getbatch(indices)` (a whole batch at once, used by [dataloader()] instead of one
#' `.getitem()` per item). `ds[i]` calls `.getbatch(i)` when the dataset has it, else
#' `.getitem(i)`; `ds[[i]]` calls `.getitem(i)`; `length(ds)` calls `.length()`.
#' `iterable_dataset()` defines a dataset whose `.iter()` returns a function giving the next item,
#' or `coro::exhausted()` (the symbol `.__exhausted__.`) at the end.
#'
#' @param name A name for the class (also its first class).
#' @param inherit A dataset generator (or R6 class) to inherit from.
#' @param ... Public methods and fields.
#' @param private,active Private methods and fields, active bindings (as in R6).
#' @param parent_env The environment the methods see.
#' @return A function of class `dataset_generator` (`iterable_dataset_generator`) making
#'   datasets; its attribute `Dataset` is the R6 class.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   squares <- dataset(
#'     initialize = function(n) self$n <- n,
#'     .getitem = function(i) torch_tensor(i^2),
#'     .length = function() self$n
#'   )
#'   ds <- squares(5)
#'   length(ds)
#'   ds[3]
#' }
dataset <- function(name = NULL, inherit = .Dataset, ..., private = NULL, active = NULL,
                    parent_env = parent.frame()) {
  .class_generator(name, .r6_parent(inherit, "dataset"), list(...), private, active,
                   parent_env, "Dataset", "dataset_generator")
}

#' @rdname dataset
#' @export
iterable_dataset <- function(name, inherit = .IterableDataset, ..., private = NULL,
                             active = NULL, parent_env = parent.frame()) {
  .class_generator(name, .r6_parent(inherit, "iterable_dataset"), list(...), private,
                   active, parent_env, "Dataset",
                   c("iterable_dataset_generator", "dataset_generator"))
}

#' @export
print.dataset_generator <- function(x, ...) {
  cat("<dataset_generator>\n")
  print(attr(x, "Dataset"))
  invisible(x)
}

#' @export
`[.dataset` <- function(x, y) {
  y <- as.integer(y)
  if (!is.null(x$.getbatch)) x$.getbatch(y) else x$.getitem(y)
}

#' @export
`[[.dataset` <- function(x, y) {
  if (is.character(y)) return(.subset2(x, y))
  x$.getitem(as.integer(y))
}

#' @export
length.dataset <- function(x) {
  if (is.null(x$.length)) .data_error("this dataset does not define .length()")
  x$.length()
}

#' @export
length.iterable_dataset <- function(x) {
  if (is.null(x$.length)) return(NA_integer_)
  x$.length()
}

#' @rdname dataset
#' @param x An object.
#' @export
is_dataset <- function(x) inherits(x, c("dataset", "iterable_dataset"))

#' Dataset wrapping tensors
#'
#' Item `i` is the list of every tensor's row `i` (`x[i, ..]`); a batch of indices is one
#' indexing call per tensor, made in one crossing to Python (`.getbatch`).
#' @param ... Tensors with the same size in their first dimension.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   ds <- tensor_dataset(x = torch_randn(5, 2), y = torch_arange(1, 5))
#'   length(ds)
#'   ds[2]
#' }
tensor_dataset <- dataset(
  name = "tensor_dataset",
  initialize = function(...) {
    tensors <- rlang::list2(...)
    if (!length(tensors)) .data_error("tensor_dataset() needs at least one tensor")
    for (k in seq_along(tensors)) {
      if (!is_torch_tensor(tensors[[k]])) {
        .data_error("tensor_dataset(): argument ", k, " must be a tensor, got ",
                    .what(tensors[[k]]))
      }
    }
    lens <- vapply(tensors, function(x) {
      d <- x$shape
      if (!length(d)) .data_error("tensor_dataset(): a 0-dim tensor has no rows to index")
      as.integer(d[[1]])
    }, 1L)
    if (length(unique(lens)) != 1L) {
      .data_error("tensor_dataset(): all tensors must have the same size in the first ",
                  "dimension, got sizes ", paste(lens, collapse = ", "))
    }
    self$tensors <- unname(tensors)
  },
  # one item: its rows without the first dim, as x[i, ..]
  .getitem = function(index) {
    if (is.list(index)) index <- unlist(index)
    # an unnamed list of tensors and one of numbers: the C bridge converts both itself
    .bridge("take_rows", self$tensors, as.list(as.integer(index)), length(index) == 1L)
  },
  # a batch keeps its first dim, also when it holds one item
  .getbatch = function(index) {
    .bridge("take_rows", self$tensors, as.list(as.integer(index)), FALSE)
  },
  .length = function() {
    self$tensors[[1]]$shape[[1]]
  }
)

#' Dataset subset
#'
#' The items of `dataset` at `indices` (1-based), in that order.
#' @param dataset A dataset.
#' @param indices Item numbers.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   ds <- tensor_dataset(torch_arange(1, 10))
#'   sub <- dataset_subset(ds, indices = c(2, 4, 6))
#'   length(sub)
#'   sub[1]
#' }
dataset_subset <- dataset(
  name = "dataset_subset",
  initialize = function(dataset, indices) {
    if (!inherits(dataset, "dataset")) {
      .data_error("dataset_subset(): `dataset` must be a dataset, got ", .what(dataset))
    }
    indices <- as.integer(indices)
    n <- length(dataset)
    bad <- indices[is.na(indices) | indices < 1L | indices > n]
    if (length(bad)) {
      .data_error("dataset_subset(): index ", bad[[1]], " is out of range for a dataset of ",
                  n, " items")
    }
    self$dataset <- dataset
    self$indices <- indices
    if (!is.null(dataset$.getbatch)) self$.getbatch <- self$.getitem
  },
  .getitem = function(idx) {
    self$dataset[self$indices[idx]]
  },
  .length = function() {
    length(self$indices)
  }
)

#' Split a dataset at random
#'
#' Non-overlapping [dataset_subset()]s of the given lengths (whole numbers summing to the
#' dataset's length, or fractions summing to 1), from a [torch_randperm()] permutation, so
#' [torch_manual_seed()] makes the split reproducible.
#' @param dataset A dataset.
#' @param lengths Sizes of the parts.
#' @return A list of datasets.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(1)
#'   parts <- random_split(tensor_dataset(torch_arange(1, 10)), c(7, 3))
#'   sapply(parts, length)
#' }
random_split <- function(dataset, lengths) {
  n <- length(dataset)
  if (!is.numeric(lengths) || anyNA(lengths) || any(lengths < 0)) {
    .data_error("random_split(): `lengths` must be non-negative numbers")
  }
  if (all(lengths <= 1) && abs(sum(lengths) - 1) < 1e-9 && any(lengths != round(lengths))) {
    sizes <- floor(n * lengths)
    extra <- n - sum(sizes)
    if (extra > 0) {
      k <- (seq_len(extra) - 1L) %% length(sizes) + 1L
      for (j in k) sizes[[j]] <- sizes[[j]] + 1
    }
    lengths <- sizes
  }
  if (any(lengths != round(lengths))) {
    .data_error("random_split(): `lengths` must be whole numbers or fractions summing to 1")
  }
  if (sum(lengths) != n) {
    .data_error("random_split(): the lengths sum to ", sum(lengths), ", but the dataset has ",
                n, " items")
  }
  perm <- as.integer(torch_randperm(n)) + 1L
  ends <- cumsum(lengths)
  lapply(seq_along(lengths), function(k) {
    dataset_subset(dataset, perm[seq_len(lengths[[k]]) + ends[[k]] - lengths[[k]]])
  })
}
