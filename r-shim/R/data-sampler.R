# Samplers, as R torch has them: R6 objects whose .iter() returns a function giving the next
# index (a batch sampler: the next vector of indices), or the exhaustion sentinel. The built-in
# samplers also have .indices(): a whole epoch as one integer vector, so the data loader slices
# batches out of it instead of calling a closure per item.

#' @include data-dataset.R
NULL

# coro's exhaustion sentinel (coro::exhausted()), so iterators work with and without coro
.exhausted <- function() as.symbol(".__exhausted__.")
.is_exhausted <- function(x) is.symbol(x) && identical(x, as.symbol(".__exhausted__."))

.Sampler <- .lazy_r6(function() R6::R6Class(
  classname = "utils_sampler",
  lock_objects = FALSE,
  public = list(
    initialize = function(data_source) {
      self$data_source <- data_source
    },
    .iter = function() {
      .data_error("this sampler does not define .iter()")
    },
    .length = function() {
      .data_error("this sampler does not define .length()")
    }
  )
))

# an iterator function over the elements of vector `v`
.vector_iter <- function(v) {
  i <- 0L
  n <- length(v)
  function() {
    if (i >= n) return(.exhausted())
    i <<- i + 1L
    v[[i]]
  }
}

# the indices `s` gives in one epoch, as one integer vector: its .indices() when it has one,
# else its .iter() function called until exhausted; refused when their number is not its length
.epoch_indices <- function(s) {
  if (!is.null(s$.indices)) {
    idx <- s$.indices()
  } else {
    it <- s$.iter()
    n <- length(s)
    idx <- vector("list", n)
    k <- 0L
    while (!.is_exhausted(v <- it())) {
      k <- k + 1L
      if (k > n) {
        .data_error("the sampler gave more indices than its length (", n, ")")
      }
      idx[[k]] <- v
    }
    idx <- unlist(idx[seq_len(k)])
  }
  if (length(idx) != length(s)) {
    .data_error("the sampler gave ", length(idx), " indices, but its length is ", length(s))
  }
  as.integer(idx)
}

.SequentialSampler <- .lazy_r6(function() R6::R6Class(
  classname = "utils_sampler_sequential",
  inherit = .r6(.Sampler),
  lock_objects = FALSE,
  public = list(
    .indices = function() seq_len(length(self$data_source)),
    .iter = function() .vector_iter(self$.indices()),
    .length = function() length(self$data_source)
  )
))

.RandomSampler <- .lazy_r6(function() R6::R6Class(
  classname = "utils_sampler_random",
  inherit = .r6(.Sampler),
  lock_objects = FALSE,
  public = list(
    replacement = FALSE,
    initialize = function(data_source, replacement = FALSE, num_samples = NULL,
                          generator = NULL) {
      .check_generator(generator)
      if (!is.null(num_samples) &&
          (!is.numeric(num_samples) || length(num_samples) != 1L || is.na(num_samples) ||
           num_samples < 1 || num_samples != round(num_samples))) {
        .data_error("`num_samples` must be a positive whole number")
      }
      if (!is.null(num_samples) && !isTRUE(replacement)) {
        .data_error("`num_samples` can only be given with `replacement = TRUE`")
      }
      self$data_source <- data_source
      self$replacement <- isTRUE(replacement)
      self$num_samples <- num_samples
    },
    # drawn with torch_randperm()/torch_randint(), so torch_manual_seed() makes them
    # reproducible; .order() is the pass as a tensor of 0-based positions (what a
    # tensor_dataset's pass in Python takes), .indices() the same draws as R's 1-based indices
    .order = function() {
      n <- length(self$data_source)
      if (self$replacement) {
        torch_randint(0L, n, self$.length(), dtype = torch_long())
      } else {
        torch_randperm(n)
      }
    },
    .indices = function() as.integer(self$.order()) + 1L,
    .iter = function() .vector_iter(self$.indices()),
    .length = function() {
      if (is.null(self$num_samples)) length(self$data_source) else as.integer(self$num_samples)
    }
  )
))

.BatchSampler <- .lazy_r6(function() R6::R6Class(
  classname = "utils_sampler_batch",
  inherit = .r6(.Sampler),
  lock_objects = FALSE,
  public = list(
    initialize = function(sampler, batch_size, drop_last = FALSE) {
      .check_batch_size(batch_size)
      self$sampler <- sampler
      self$batch_size <- as.integer(batch_size)
      self$drop_last <- isTRUE(drop_last)
    },
    # the epoch's batches: a list of index vectors
    .batches = function() {
      idx <- .epoch_indices(self$sampler)
      n <- length(idx)
      b <- self$batch_size
      stop <- if (self$drop_last) n - n %% b else n
      if (stop == 0L) return(list())
      starts <- seq.int(1L, stop, by = b)
      lapply(starts, function(s) idx[s:min(s + b - 1L, stop)])
    },
    .iter = function() .vector_iter(self$.batches()),
    .length = function() {
      n <- length(self$sampler)
      if (self$drop_last) n %/% self$batch_size else (n + self$batch_size - 1L) %/% self$batch_size
    }
  )
))

.check_batch_size <- function(batch_size) {
  if (!is.numeric(batch_size) || length(batch_size) != 1L || is.na(batch_size) ||
      batch_size < 1 || batch_size != round(batch_size)) {
    .data_error("`batch_size` must be a whole number >= 1, got ",
                paste(format(batch_size), collapse = " "))
  }
}

.check_generator <- function(generator) {
  if (!is.null(generator)) {
    .data_error("`generator`: only NULL is supported (the random samplers draw from the ",
                "global generator; use torch_manual_seed() for reproducible shuffling)")
  }
}

#' Samplers
#'
#' `sampler()` defines a sampler class, as R torch's: `initialize(data_source)`, `.iter()`
#' returning a function that gives the next index (for a batch sampler, the next vector of
#' indices) and `coro::exhausted()` at the end, and `.length()`. The built-in samplers:
#' `sampler_sequential()` (1, 2, ..., n), `sampler_random()` (a [torch_randperm()]
#' permutation, or `num_samples` draws with replacement: [torch_manual_seed()] makes them
#' reproducible) and `sampler_batch()` (groups another sampler's indices).
#' @inheritParams dataset
#' @return `sampler()`: a generator of class `sampler_generator`; the others: a sampler.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   every_other <- sampler(
#'     initialize = function(n) self$n <- n,
#'     .iter = function() {
#'       i <- -1
#'       function() {
#'         i <<- i + 2
#'         if (i > self$n) coro::exhausted() else i
#'       }
#'     },
#'     .length = function() ceiling(self$n / 2)
#'   )
#'   length(every_other(5))
#' }
sampler <- function(name = NULL, inherit = .Sampler, ..., private = NULL, active = NULL,
                    parent_env = parent.frame()) {
  .class_generator(name, .r6_parent(inherit, "sampler"), list(...), private, active,
                   parent_env, "Sampler", "sampler_generator")
}

#' @rdname sampler
#' @param data_source A dataset.
#' @export
sampler_sequential <- function(data_source) .r6(.SequentialSampler)$new(data_source)

#' @rdname sampler
#' @param replacement Draw with replacement.
#' @param num_samples Number of draws (with replacement only; default: the dataset's length).
#' @param generator Only `NULL`.
#' @export
sampler_random <- function(data_source, replacement = FALSE, num_samples = NULL,
                           generator = NULL) {
  .r6(.RandomSampler)$new(data_source, replacement, num_samples, generator)
}

#' @rdname sampler
#' @param sampler A sampler.
#' @param batch_size Indices per batch.
#' @param drop_last Drop a last, smaller batch.
#' @export
sampler_batch <- function(sampler, batch_size, drop_last = FALSE) {
  .r6(.BatchSampler)$new(sampler, batch_size, drop_last)
}

#' @export
print.sampler_generator <- function(x, ...) {
  cat("<sampler_generator>\n")
  print(attr(x, "Sampler"))
  invisible(x)
}

#' @export
length.utils_sampler <- function(x) x$.length()
