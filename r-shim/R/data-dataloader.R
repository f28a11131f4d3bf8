# dataloader(), as R torch has it: an R6 object combining a dataset, a sampler and a collate
# function; dataloader_make_iter() starts a pass, dataloader_next() steps it. Batches are made
# in this session, or in forked worker processes (data-workers.R) when num_workers > 0.

#' @include data-collate.R
NULL

#' Data loader
#'
#' Batches of a dataset, as R torch's `dataloader()`: `batch_size` items a batch (`NULL`:
#' items one at a time, converted but not collated), reshuffled each pass when `shuffle`
#' (with [torch_randperm()], so [torch_manual_seed()] makes it reproducible), or chosen by
#' `sampler` / `batch_sampler` (see [sampler()]). A dataset with `.getbatch()` is asked for a
#' whole batch at once. `collate_fn` merges a list of items (default:
#' [utils_data_default_collate()]). `drop_last` drops a last, smaller batch.
#'
#' Iterate with `dataloader_make_iter()` and `dataloader_next()` (which returns `completed` at
#' the end), with `coro::loop(for (b in dl) ...)` where coro is installed (this package
#' registers its [as_iterator()] method with coro), or with `as_iterator(dl)` without it.
#'
#' @section Worker processes: With `num_workers > 0` (Unix only) every batch is made in a
#'   forked child process of this session, at most `num_workers` at a time, and handed back in
#'   order; the child sees the dataset as it is (closures, tensors and all). In each child,
#'   before it makes its batch: the `worker_packages` are loaded, `worker_globals` (a named
#'   list, or names of variables looked up where `dataloader()` was called) are copied to its
#'   global environment, the seeds are set (`set.seed()` and [torch_manual_seed()] with a
#'   number drawn once per pass plus the batch's number, so results do not depend on which
#'   worker ran), and `worker_init_fn(id)` runs (`id` in `1:num_workers`). An error in a
#'   child is raised here with its message; `timeout` (seconds; -1: none) bounds the wait for
#'   a batch. Children left when a pass ends early (an error, an interrupt, a `break`) are
#'   killed when the pass's iterator is finished or garbage collected.
#'
#' @param dataset A dataset (see [dataset()], [iterable_dataset()]).
#' @param batch_size Items a batch, or `NULL`.
#' @param shuffle Reshuffle every pass.
#' @param sampler,batch_sampler Samplers choosing the items / the batches.
#' @param num_workers Worker processes (0: this session).
#' @param collate_fn Merges a list of items into a batch.
#' @param pin_memory Ignored (there is no GPU).
#' @param drop_last Drop the last batch when it is smaller.
#' @param timeout Seconds to wait for a worker's batch (-1: no limit).
#' @param worker_init_fn Called in each worker with its id.
#' @param worker_globals,worker_packages Variables and packages for the workers.
#' @param generator Only `NULL` (the global generator is used).
#' @return A `dataloader`.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   ds <- tensor_dataset(torch_randn(10, 2), torch_randn(10))
#'   dl <- dataloader(ds, batch_size = 4)
#'   length(dl)
#'   batch <- dataloader_next(dataloader_make_iter(dl))
#'   batch[[1]]$shape
#' }
dataloader <- function(dataset, batch_size = 1, shuffle = FALSE, sampler = NULL,
                       batch_sampler = NULL, num_workers = 0, collate_fn = NULL,
                       pin_memory = FALSE, drop_last = FALSE, timeout = -1,
                       worker_init_fn = NULL, worker_globals = NULL, worker_packages = NULL,
                       generator = NULL) {
  if (is.character(worker_globals)) {
    env <- parent.frame()
    found <- vapply(worker_globals, exists, TRUE, envir = env)
    if (!all(found)) {
      .data_error("worker_globals: could not find an object named '",
                  worker_globals[!found][[1]], "'")
    }
    worker_globals <- mget(worker_globals, envir = env, inherits = TRUE)
  }
  .r6(.DataLoader)$new(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
                  collate_fn, pin_memory, drop_last, timeout, worker_init_fn, worker_globals,
                  worker_packages, generator)
}

.DataLoader <- .lazy_r6(function() R6::R6Class(
  classname = "dataloader",
  lock_objects = FALSE,
  public = list(
    initialize = function(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
                          collate_fn, pin_memory, drop_last, timeout, worker_init_fn,
                          worker_globals, worker_packages, generator) {
      if (!is_dataset(dataset)) {
        .data_error("dataloader(): `dataset` must be a dataset, got ", .what(dataset))
      }
      .check_generator(generator)
      if (!is.numeric(num_workers) || length(num_workers) != 1L || is.na(num_workers) ||
          num_workers < 0 || num_workers != round(num_workers)) {
        .data_error("`num_workers` must be a whole number >= 0")
      }
      if (!is.null(collate_fn) && !is.function(collate_fn)) {
        .data_error("`collate_fn` must be a function, got ", .what(collate_fn))
      }
      if (!is.null(worker_init_fn) && !is.function(worker_init_fn)) {
        .data_error("`worker_init_fn` must be a function, got ", .what(worker_init_fn))
      }
      if (!is.null(worker_globals) && (!is.list(worker_globals) ||
                                       is.null(names(worker_globals)))) {
        .data_error("`worker_globals` must be a named list or a character vector")
      }
      if (!is.null(worker_packages) && !is.character(worker_packages)) {
        .data_error("`worker_packages` must be a character vector")
      }
      if (!is.numeric(timeout) || length(timeout) != 1L || is.na(timeout)) {
        .data_error("`timeout` must be a number of seconds (-1: no limit)")
      }
      if (!is.null(batch_size)) .check_batch_size(batch_size)
      kind <- if (inherits(dataset, "iterable_dataset")) "iterable" else "map"
      if (!is.null(batch_sampler)) {
        if (!identical(as.numeric(batch_size), 1) || isTRUE(shuffle) || !is.null(sampler) ||
            isTRUE(drop_last)) {
          .data_error("`batch_sampler` is mutually exclusive with `batch_size`, `shuffle`, ",
                      "`sampler` and `drop_last`")
        }
        batch_size <- NULL
      }
      if (kind == "iterable") {
        if (isTRUE(shuffle) || !is.null(sampler) || !is.null(batch_sampler)) {
          .data_error("dataloader(): an iterable_dataset gives its items in its own order: ",
                      "`shuffle`, `sampler` and `batch_sampler` cannot be used")
        }
        if (num_workers > 0) {
          .data_error("dataloader(): `num_workers > 0` is not supported for an ",
                      "iterable_dataset (its iterator cannot be shared between processes); ",
                      "use num_workers = 0")
        }
      } else if (!is.null(sampler)) {
        if (isTRUE(shuffle)) .data_error("`sampler` is mutually exclusive with `shuffle`")
        if (!inherits(sampler, "utils_sampler")) {
          .data_error("`sampler` must be a sampler (see sampler()), got ", .what(sampler))
        }
      } else if (is.null(batch_sampler)) {
        sampler <- if (isTRUE(shuffle)) .r6(.RandomSampler)$new(dataset) else
          .r6(.SequentialSampler)$new(dataset)
      }
      if (!is.null(batch_sampler) && !inherits(batch_sampler, "utils_sampler")) {
        .data_error("`batch_sampler` must be a sampler (see sampler()), got ",
                    .what(batch_sampler))
      }
      if (num_workers > 0 && .Platform$OS.type != "unix") {
        .data_error("dataloader(): `num_workers > 0` needs forked worker processes, which ",
                    "this platform does not have; use num_workers = 0")
      }
      if (kind == "map" && is.null(batch_sampler) && !is.null(batch_size)) {
        batch_sampler <- .r6(.BatchSampler)$new(sampler, batch_size, drop_last)
      }
      self$dataset <- dataset
      self$batch_size <- batch_size
      self$shuffle <- isTRUE(shuffle)
      self$sampler <- sampler
      self$batch_sampler <- batch_sampler
      self$num_workers <- as.integer(num_workers)
      self$pin_memory <- isTRUE(pin_memory)
      self$drop_last <- isTRUE(drop_last)
      self$timeout <- timeout
      self$worker_init_fn <- worker_init_fn
      self$worker_globals <- worker_globals
      self$worker_packages <- worker_packages
      self$.dataset_kind <- kind
      self$.has_getbatch <- kind == "map" && !is.null(dataset$.getbatch)
      batched <- kind == "iterable" && !is.null(batch_size) || !is.null(self$batch_sampler)
      self$.auto_collation <- batched && !self$.has_getbatch
      self$collate_fn <- collate_fn %||% (if (self$.auto_collation) utils_data_default_collate
                                          else utils_data_default_convert)
    },
    .iter = function() .r6(.DataLoaderIter)$new(self),
    .length = function() {
      if (self$.dataset_kind == "iterable") {
        n <- length(self$dataset)
        if (is.na(n) || is.null(self$batch_size)) return(n)
        b <- self$batch_size
        return(if (self$drop_last) n %/% b else (n + b - 1) %/% b)
      }
      length(self$batch_sampler %||% self$sampler)
    }
  )
))

# Whether a pass of `loader` can run in Python (rtorchpy/_r/data.py TensorEpoch): a
# tensor_dataset whose .getbatch is the built-in one, the built-in batch sampler, the default
# collation, no workers. The batches are the same either way; only the crossings differ.
.tensor_epoch_ok <- function(loader) {
  ds <- loader$dataset
  bs <- loader$batch_sampler
  loader$num_workers == 0L && inherits(ds, "tensor_dataset") &&
    identical(class(bs)[[1L]], "utils_sampler_batch") &&
    identical(loader$collate_fn, utils_data_default_convert) &&
    identical(body(ds$.getbatch),
              body(attr(tensor_dataset, "Dataset")$public_methods$.getbatch))
}

# A pass's order as a tensor of 0-based positions: drawn as one by the built-in random sampler,
# else any sampler's indices (which .epoch_indices() checks) made into one.
.epoch_order <- function(s) {
  if (identical(class(s)[[1L]], "utils_sampler_random")) return(s$.order())
  torch_tensor(.epoch_indices(s) - 1L, dtype = torch_long())
}

# One pass. The indices of the built-in samplers are drawn when the pass starts (one
# torch_randperm() per pass); other samplers are stepped batch by batch.
.DataLoaderIter <- .lazy_r6(function() R6::R6Class(
  classname = "dataloader_iterator",
  lock_objects = FALSE,
  public = list(
    initialize = function(loader) {
      self$loader <- loader
      self$dataset <- loader$dataset
      self$collate_fn <- loader$collate_fn
      self$done <- FALSE
      self$pos <- 0L
      if (loader$.dataset_kind == "iterable") {
        self$items <- self$dataset$.iter()
        if (!is.function(self$items)) {
          .data_error(".iter() of an iterable_dataset must return a function, got ",
                      .what(self$items))
        }
        return(invisible(self))
      }
      self$n <- length(self$dataset)
      bs <- loader$batch_sampler
      s <- bs %||% loader$sampler
      self$epoch <- NULL
      if (.tensor_epoch_ok(loader)) {
        # the whole pass in Python: its order sent once, then one plain crossing a batch
        self$epoch <- .bridge("tensor_epoch", self$dataset$tensors, .epoch_order(bs$sampler),
                              bs$batch_size, bs$drop_last)
      } else if (!is.null(bs$.batches)) {
        self$batches <- bs$.batches()
        self$next_index <- NULL
      } else if (is.null(bs) && !is.null(s$.indices)) {
        self$batches <- as.list(.epoch_indices(s))
        self$next_index <- NULL
      } else {
        self$batches <- NULL
        self$next_index <- s$.iter()
      }
      if (loader$num_workers > 0) self$pool <- .r6(.WorkerPool)$new(self, loader)
    },
    # the next batch's indices, or the exhaustion sentinel
    .next_index = function() {
      if (is.null(self$batches)) return(self$next_index())
      if (self$pos >= length(self$batches)) return(.exhausted())
      self$pos <- self$pos + 1L
      self$batches[[self$pos]]
    },
    # the batch at `index` (an index vector when batching, else one index), collated
    .fetch = function(index) {
      index <- as.integer(index)
      bad <- index[is.na(index) | index < 1L | index > self$n]
      if (length(bad)) {
        .data_error("dataloader: the sampler gave index ", bad[[1]], ", out of range for a ",
                    "dataset of ", self$n, " items")
      }
      ds <- self$dataset
      if (self$loader$.has_getbatch) {
        data <- tryCatch(ds$.getbatch(index), error = function(e) {
          .data_error("dataset .getbatch() failed for the batch of items ",
                      .show_index(index), ": ", conditionMessage(e))
        })
      } else if (!is.null(self$loader$batch_sampler)) {
        data <- vector("list", length(index))
        i <- 0L
        getitem <- ds$.getitem
        tryCatch(for (k in seq_along(index)) {
          i <- index[[k]]
          data[[k]] <- getitem(i)
        }, error = function(e) {
          .data_error("dataset .getitem(", i, ") failed: ", conditionMessage(e))
        })
      } else {
        data <- tryCatch(ds$.getitem(index), error = function(e) {
          .data_error("dataset .getitem(", index, ") failed: ", conditionMessage(e))
        })
      }
      self$collate_fn(data)
    },
    .next_iterable = function() {
      size <- self$loader$batch_size
      it <- self$items
      if (is.null(size)) {
        x <- it()
        return(if (.is_exhausted(x)) x else self$collate_fn(x))
      }
      batch <- vector("list", size)
      k <- 0L
      while (k < size) {
        x <- it()
        if (.is_exhausted(x)) break
        k <- k + 1L
        batch[[k]] <- x
      }
      if (k == 0L || (k < size && self$loader$drop_last)) return(.exhausted())
      self$collate_fn(batch[seq_len(k)])
    },
    .next = function() {
      if (self$done) return(.exhausted())
      out <- if (!is.null(self$epoch)) {
        .bridge("tensor_epoch_next", self$epoch) %||% .exhausted()
      } else if (!is.null(self$pool)) {
        self$pool$next_batch()
      } else if (self$loader$.dataset_kind == "iterable") {
        self$.next_iterable()
      } else {
        index <- self$.next_index()
        if (.is_exhausted(index)) .exhausted() else self$.fetch(index)
      }
      if (.is_exhausted(out)) self$finish()
      out
    },
    # ends the pass (and kills its worker processes)
    finish = function() {
      self$done <- TRUE
      if (!is.null(self$pool)) {
        self$pool$close()
        self$pool <- NULL
      }
      invisible(NULL)
    },
    .length = function() self$loader$.length()
  )
))

.show_index <- function(index) {
  paste0(paste(utils::head(index, 8L), collapse = ", "), if (length(index) > 8L) ", ...")
}

#' @export
length.dataloader <- function(x) x$.length()

#' Iterate over a data loader
#'
#' `dataloader_make_iter()` starts a pass over a [dataloader()]; `dataloader_next()` gives its
#' next batch, or `completed` once the pass is over. `as_iterator(dl)` is the pass as a
#' function (coro's iterator protocol: it returns `coro::exhausted()` at the end), which is what
#' `coro::loop(for (batch in dl) ...)` uses where coro is installed. `enumerate(dl)` (deprecated
#' in R torch) gives the batches of one pass as a list.
#' @param dataloader,x A data loader.
#' @param iter An iterator made by `dataloader_make_iter()`.
#' @param completed What `dataloader_next()` returns at the end.
#' @param max_len The most batches `enumerate()` takes.
#' @param ... Unused.
#' @export
#' @family data
#' @examples
#' if (rtorchpy_available()) {
#'   dl <- dataloader(tensor_dataset(torch_arange(1, 6)), batch_size = 2)
#'   it <- dataloader_make_iter(dl)
#'   dataloader_next(it)
#'   dataloader_next(it)
#' }
dataloader_make_iter <- function(dataloader) {
  if (!is_dataloader(dataloader)) {
    .data_error("dataloader_make_iter(): expected a dataloader, got ", .what(dataloader))
  }
  dataloader$.iter()
}

#' @rdname dataloader_make_iter
#' @export
dataloader_next <- function(iter, completed = NULL) {
  res <- iter$.next()
  if (.is_exhausted(res)) completed else res
}

#' @rdname dataloader_make_iter
#' @export
is_dataloader <- function(x) inherits(x, "dataloader")

#' @rdname dataloader_make_iter
#' @export
as_iterator <- function(x) UseMethod("as_iterator")

#' @rdname dataloader_make_iter
#' @export
#' @rawNamespace S3method(coro::as_iterator, dataloader)
as_iterator.dataloader <- function(x) {
  iter <- dataloader_make_iter(x)
  function() dataloader_next(iter, .exhausted())
}

#' @export
as_iterator.default <- function(x) {
  if (requireNamespace("coro", quietly = TRUE)) return(coro::as_iterator(x))
  if (is.function(x)) return(x)
  .vector_iter(x)
}

#' @rdname dataloader_make_iter
#' @export
enumerate <- function(x, ...) UseMethod("enumerate")

#' @rdname dataloader_make_iter
#' @export
enumerate.dataloader <- function(x, max_len = 1e6, ...) {
  warning(structure(class = c("deprecated", "warning", "condition"), list(
    message = "enumerate() is deprecated (as in R torch): use coro::loop() or dataloader_next()",
    call = NULL)))
  iter <- dataloader_make_iter(x)
  out <- vector("list", min(max_len, length(x), na.rm = TRUE))
  k <- 0L
  while (k < max_len && !is.null(b <- dataloader_next(iter))) {
    k <- k + 1L
    out[[k]] <- b
  }
  out[seq_len(k)]
}

#' @export
print.dataloader <- function(x, ...) {
  cat("<dataloader>\n")
  cat("  dataset:     ", paste(class(x$dataset)[[1]]), " (",
      tryCatch(length(x$dataset), error = function(e) NA), " items)\n", sep = "")
  cat("  batch_size:  ", format(x$batch_size %||% "NULL"), "\n", sep = "")
  cat("  shuffle:     ", x$shuffle, "\n", sep = "")
  cat("  num_workers: ", x$num_workers, "\n", sep = "")
  invisible(x)
}
