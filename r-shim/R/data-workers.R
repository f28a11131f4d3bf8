# dataloader(num_workers > 0): batches made in worker processes forked from this session when a
# pass starts (parallel::makeForkCluster(): forked R processes talking to this one over
# sockets). A fork sees the dataset as it is (R closures, tensors: the embedded Python is forked
# with it), so nothing has to be rebuilt or serialized but the indices going out and the
# batches coming back, tensors as raw bytes (export_tensor: exact for every dtype). Each worker
# has two batches in flight (the second waits in its socket, so it starts as soon as the first is
# sent back), and batches are handed back in the sampler's order. The workers exit with _exit() (parallel's mcexit), so
# neither R's nor Python's exit handlers run in them. When the pass ends (its last batch, an
# error, a timeout, or its iterator dropped and garbage collected) the workers are stopped, and
# killed if busy.

#' @include data-dataloader.R
NULL

# what a forked worker finds of its pass (set just before the fork): the pass's iterator by key
.data_passes <- new.env(parent = emptyenv())

.WorkerPool <- .lazy_r6(function() R6::R6Class(
  classname = "dataloader_worker_pool",
  lock_objects = FALSE,
  public = list(
    initialize = function(iter, loader) {
      self$iter <- iter
      self$n_workers <- loader$num_workers
      self$timeout <- if (loader$timeout > 0) loader$timeout else NULL
      self$count <- 0L
      self$queue <- list()      # the worker of each batch in flight, oldest first
      self$free <- rep(seq_len(self$n_workers), 2L)  # two slots a worker
      # one draw per pass from torch's generator: torch_manual_seed() fixes every batch's seed
      self$base_seed <- as.integer(torch_randint(0L, 1000000000L, 1L))
      self$key <- paste0("pass", sample.int(.Machine$integer.max, 1L))
      assign(self$key, iter, envir = .data_passes)
      on.exit(rm(list = self$key, envir = .data_passes), add = TRUE)
      self$cl <- parallel::makeForkCluster(self$n_workers)
      self$pids <- integer(0)
      # kill the workers if the pass is dropped before it ends
      reg.finalizer(self, function(e) e$close(), onexit = TRUE)
      setup <- list(packages = loader$worker_packages, globals = loader$worker_globals,
                    init = loader$worker_init_fn)
      for (id in seq_len(self$n_workers)) {
        .send_call(self$cl[[id]], .worker_setup, list(self$key, id, setup))
      }
      for (id in seq_len(self$n_workers)) {
        res <- self$receive(id)
        if (!isTRUE(res$ok)) {
          self$close()
          .data_error("dataloader worker ", id, " failed to start: ", res$message)
        }
        self$pids[[id]] <- res$pid
      }
    },
    # the reply of worker `id`, waiting at most the timeout (NULL when it passed)
    receive = function(id) {
      con <- self$cl[[id]]$con
      if (!is.null(self$timeout) && !isTRUE(socketSelect(list(con), FALSE, self$timeout))) {
        return(NULL)
      }
      msg <- tryCatch(unserialize(con), error = function(e) NULL)
      if (is.null(msg)) return(list(ok = FALSE, message = "the worker process ended"))
      if (!isTRUE(msg$success)) {
        return(list(ok = FALSE, message = conditionMessage(attr(msg$value, "condition"))))
      }
      msg$value
    },
    submit = function() {
      if (!length(self$free)) return(FALSE)
      index <- self$iter$.next_index()
      if (.is_exhausted(index)) return(FALSE)
      self$count <- self$count + 1L
      id <- self$free[[1L]]
      self$free <- self$free[-1L]
      seed <- (self$base_seed + self$count) %% .Machine$integer.max
      .send_call(self$cl[[id]], .worker_task, list(self$key, index, seed))
      self$queue[[length(self$queue) + 1L]] <- id
      TRUE
    },
    next_batch = function() {
      # any way out but a batch (an error here or in the sampler, an interrupt while waiting)
      # stops the workers
      done <- FALSE
      on.exit(if (!done) self$close())
      while (self$submit()) NULL
      if (!length(self$queue)) {
        done <- TRUE
        self$close()
        return(.exhausted())
      }
      id <- self$queue[[1L]]
      self$queue <- self$queue[-1L]
      res <- self$receive(id)
      if (is.null(res)) {
        self$close()
        .data_error("dataloader: worker ", id, " gave no batch within the timeout of ",
                    self$timeout, " s")
      }
      if (!isTRUE(res$ok)) {
        self$close()
        .data_error("dataloader worker ", id, " failed: ", res$message)
      }
      self$free <- c(self$free, id)
      out <- .import_tensors(res$value)
      done <- TRUE
      out
    },
    close = function() {
      cl <- self$cl
      self$cl <- NULL
      if (is.null(cl)) return(invisible(NULL))
      idle <- setdiff(seq_along(cl), unlist(self$queue))
      busy <- self$pids[unique(unlist(self$queue))]
      # idle workers end their loop; busy ones (or all, if that fails) are killed
      for (id in idle) try(.send_call(cl[[id]], NULL, NULL, done = TRUE), silent = TRUE)
      if (length(busy)) tools::pskill(busy, tools::SIGKILL)
      for (node in cl) try(close(node$con), silent = TRUE)
      self$queue <- list()
      .reap(self$pids)
      invisible(NULL)
    }
  )
))

# parallel's cluster protocol: a call message to one worker (done: the message ending its loop)
.send_call <- function(node, fun, args, done = FALSE) {
  msg <- if (done) list(type = "DONE") else
    list(type = "EXEC", data = list(fun = fun, args = args, return = TRUE, tag = NULL))
  serialize(msg, node$con, xdr = FALSE)
}

# wait (briefly) for the workers to exit, so none is left behind as a zombie
.reap <- function(pids) {
  pids <- pids[!is.na(pids)]
  for (i in 1:50) {
    alive <- pids[file.exists(file.path("/proc", pids))]
    if (!length(alive)) return(invisible())
    # (parallel reaps the forks it made when they exit)
    Sys.sleep(0.01)
  }
  tools::pskill(pids, tools::SIGKILL)
}

# in a worker: the per-process setup (packages, globals, worker_init_fn(id))
.worker_setup <- function(key, id, setup) {
  tryCatch({
    for (p in setup$packages) library(p, character.only = TRUE)
    if (length(setup$globals)) list2env(setup$globals, envir = globalenv())
    if (!is.null(setup$init)) setup$init(id)
    list(ok = TRUE, pid = Sys.getpid())
  }, error = function(e) list(ok = FALSE, message = conditionMessage(e)))
}

# in a worker: one batch, seeded by its number
.worker_task <- function(key, index, seed) {
  tryCatch({
    set.seed(seed)
    torch_manual_seed(seed)
    iter <- get(key, envir = .data_passes)
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
