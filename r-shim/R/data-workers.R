# dataloader(num_workers > 0): each batch is made in a child process forked from this session
# with parallel::mcparallel(), at most num_workers at a time, and collected in order with
# mccollect(). A fork sees the dataset as it is (R closures, tensors: the embedded Python is
# forked with it), so nothing has to be rebuilt in the child; the child sends its batch back
# with R's serialization, tensors as raw bytes (export_tensor: exact for every dtype), and
# exits with _exit() (parallel's mcexit), so neither R's nor Python's exit handlers run there.
# A child that is still running when its pass ends (an error, an interrupt, a break) is killed
# and reaped by close(), which also runs when the pass's iterator is garbage collected.

#' @include data-dataloader.R
NULL

.WorkerPool <- R6::R6Class(
  classname = "dataloader_worker_pool",
  lock_objects = FALSE,
  public = list(
    initialize = function(iter, loader) {
      self$iter <- iter
      self$n_workers <- loader$num_workers
      self$timeout <- if (loader$timeout > 0) loader$timeout else NULL
      self$jobs <- list()
      self$count <- 0L
      # one draw per pass from torch's generator: torch_manual_seed() fixes every batch's seed
      self$base_seed <- as.integer(torch_randint(0L, 1000000000L, 1L))
      self$setup <- list(packages = loader$worker_packages, globals = loader$worker_globals,
                         init = loader$worker_init_fn)
      # kill the children if the pass is dropped before it ends
      reg.finalizer(self, function(e) e$close(), onexit = TRUE)
    },
    submit = function() {
      index <- self$iter$.next_index()
      if (.is_exhausted(index)) return(FALSE)
      self$count <- self$count + 1L
      id <- (self$count - 1L) %% self$n_workers + 1L
      seed <- (self$base_seed + self$count) %% .Machine$integer.max
      job <- parallel::mcparallel(.worker_run(self$iter, self$setup, index, id, seed),
                                  silent = FALSE)
      self$jobs[[length(self$jobs) + 1L]] <- list(job = job, id = id)
      TRUE
    },
    next_batch = function() {
      while (length(self$jobs) < self$n_workers && self$submit()) NULL
      if (!length(self$jobs)) return(.exhausted())
      head <- self$jobs[[1L]]
      self$jobs <- self$jobs[-1L]
      res <- .collect_job(head$job, self$timeout)
      if (is.null(res)) {
        self$close()
        .data_error("dataloader: worker ", head$id, " gave no batch within the timeout of ",
                    self$timeout, " s")
      }
      if (inherits(res, "try-error") || !isTRUE(res$ok)) {
        msg <- if (inherits(res, "try-error")) conditionMessage(attr(res, "condition")) else
          res$message
        self$close()
        .data_error("dataloader worker ", head$id, " failed: ", msg)
      }
      .import_tensors(res$value)
    },
    close = function() {
      jobs <- self$jobs
      self$jobs <- list()
      if (!length(jobs)) return(invisible(NULL))
      pids <- vapply(jobs, function(j) j$job$pid, 1L)
      tools::pskill(pids, tools::SIGKILL)
      # reap them (a killed child reports nothing)
      suppressWarnings(try(parallel::mccollect(lapply(jobs, `[[`, "job"), wait = TRUE),
                           silent = TRUE))
      invisible(NULL)
    }
  )
)

# mccollect() of one job: its result, or NULL when it gave none within `timeout` seconds
.collect_job <- function(job, timeout) {
  if (is.null(timeout)) {
    res <- parallel::mccollect(job, wait = TRUE)
  } else {
    deadline <- Sys.time() + timeout
    res <- NULL
    while (is.null(res)) {
      left <- as.numeric(deadline - Sys.time(), units = "secs")
      if (left <= 0) {
        tools::pskill(job$pid, tools::SIGKILL)
        suppressWarnings(try(parallel::mccollect(job, wait = TRUE), silent = TRUE))
        return(NULL)
      }
      res <- parallel::mccollect(job, wait = FALSE, timeout = min(left, 1))
    }
  }
  if (is.null(res)) {
    return(list(ok = FALSE, message = "the worker process ended without a result"))
  }
  res[[1L]]
}

# what a child process runs: the per-process setup, then the batch
.worker_run <- function(iter, setup, index, id, seed) {
  tryCatch({
    for (p in setup$packages) library(p, character.only = TRUE)
    if (length(setup$globals)) list2env(setup$globals, envir = globalenv())
    set.seed(seed)
    torch_manual_seed(seed)
    if (!is.null(setup$init)) setup$init(id)
    list(ok = TRUE, value = .export_tensors(iter$.fetch(index)))
  }, error = function(e) list(ok = FALSE, message = conditionMessage(e)))
}

.export_tensors <- function(x) {
  if (is_torch_tensor(x)) {
    return(structure(.bridge("export_tensor", .h(x)), class = "rtorchpy_exported_tensor"))
  }
  if (is.list(x) && !is.object(x)) {
    out <- lapply(x, .export_tensors)
    attributes(out) <- attributes(x)
    return(out)
  }
  x
}

.import_tensors <- function(x) {
  if (inherits(x, "rtorchpy_exported_tensor")) {
    return(.bridge("import_tensor", x[[1L]], x[[2L]], as.list(as.integer(unlist(x[[3L]]))),
                   isTRUE(x[[4L]])))
  }
  if (is.list(x) && !is.object(x)) {
    out <- lapply(x, .import_tensors)
    attributes(out) <- attributes(x)
    return(out)
  }
  x
}
