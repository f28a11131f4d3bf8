# dataloader(num_workers > 0): batches made in forked worker processes.
skip_if_no_python()
skip_on_os("windows")

slow_numbers <- dataset(
  name = "slow_numbers",
  initialize = function(n = 12, fail_at = NA, pause = 0) {
    self$n <- n
    self$fail_at <- fail_at
    self$pause <- pause
  },
  .getitem = function(i) {
    if (self$pause > 0) Sys.sleep(self$pause)
    if (identical(i, self$fail_at)) stop("broken item ", i)
    list(x = torch_tensor(c(i, -i)), y = i, r = torch_randn(1))
  },
  .length = function() self$n
)

# this session's child processes (zombies included), read from /proc
children <- function() {
  me <- as.character(Sys.getpid())
  pids <- list.files("/proc", pattern = "^[0-9]+$")
  ppid <- vapply(pids, function(p) {
    st <- tryCatch(suppressWarnings(readLines(file.path("/proc", p, "stat"), warn = FALSE)),
                   error = function(e) "")
    fields <- strsplit(sub("^.*\\) ", "", st), " ")[[1]]
    if (length(fields) >= 2) fields[[2]] else ""
  }, "")
  as.integer(pids[ppid == me])
}

run_all <- function(dl) {
  out <- list()
  it <- dataloader_make_iter(dl)
  while (!is.null(b <- dataloader_next(it))) out[[length(out) + 1]] <- b
  out
}

test_that("workers give the same batches as the main session, in order", {
  ds <- slow_numbers(11)
  torch_manual_seed(5)
  a <- run_all(dataloader(ds, batch_size = 3, shuffle = TRUE, num_workers = 2))
  torch_manual_seed(5)
  b <- run_all(dataloader(ds, batch_size = 3, shuffle = TRUE, num_workers = 2))
  torch_manual_seed(5)
  c0 <- run_all(dataloader(ds, batch_size = 3, shuffle = TRUE, num_workers = 0))
  expect_equal(length(a), 4)
  ys <- function(bs) lapply(bs, function(b) as_array(b$y))
  expect_equal(ys(a), ys(c0))
  # random draws inside .getitem are seeded per batch: reproducible under torch_manual_seed()
  expect_equal(lapply(a, function(b) as_array(b$r)), lapply(b, function(b) as_array(b$r)))
  expect_equal(a[[1]]$x$dtype, c0[[1]]$x$dtype)
  expect_equal(a[[1]]$y$dtype, torch_long())
  expect_equal(a[[1]]$r$dtype, torch_float())
  # tensor datasets work too: the fork sees the tensors
  tds <- tensor_dataset(torch_randn(7, 2), torch_arange(1, 7))
  got <- run_all(dataloader(tds, batch_size = 2, num_workers = 2))
  expect_equal(unlist(lapply(got, function(b) as_array(b[[2]]))), 1:7)
  expect_length(children(), 0)
})

test_that("worker_globals, worker_packages and worker_init_fn reach the workers", {
  scale_by <- 10
  ds <- dataset(.getitem = function(i) i * get("scale_by", envir = globalenv()) +
                  get("init_mark", envir = globalenv()) + nchar(tools::toTitleCase("a")),
                .length = function() 4)()
  dl <- dataloader(ds, batch_size = 2, num_workers = 2, worker_globals = "scale_by",
                   worker_packages = "tools",
                   worker_init_fn = function(id) assign("init_mark", 1000 * id, globalenv()))
  got <- lapply(run_all(dl), as_array)
  expect_equal(got, list(c(1011, 1021), c(2031, 2041)))
  expect_false(exists("init_mark", envir = globalenv()))
  dl <- dataloader(ds, batch_size = 2, num_workers = 1,
                   worker_globals = list(scale_by = 1, init_mark = 0))
  expect_equal(lapply(run_all(dl), as_array), list(c(2, 3), c(4, 5)))
  expect_error(dataloader(ds, num_workers = 1, worker_globals = "no_such_variable_here"),
               "could not find an object named 'no_such_variable_here'")
})

test_that("an error in a worker is raised here with its message, leaving no processes", {
  dl <- dataloader(slow_numbers(12, fail_at = 8L), batch_size = 2, num_workers = 2)
  it <- dataloader_make_iter(dl)
  expect_equal(as_array(dataloader_next(it)$y), 1:2)
  expect_error(
    while (!is.null(dataloader_next(it))) NULL,
    "dataloader worker [12] failed: dataset .getitem\\(8\\) failed: broken item 8"
  )
  expect_length(children(), 0)
  # the loader is still usable
  expect_length(run_all(dataloader(slow_numbers(4), batch_size = 2, num_workers = 2)), 2)
})

test_that("timeout and a pass dropped early leave no processes", {
  dl <- dataloader(slow_numbers(4, pause = 3), batch_size = 2, num_workers = 2, timeout = 0.5)
  expect_error(run_all(dl), "gave no batch within the timeout of 0.5 s")
  expect_length(children(), 0)
  dl <- dataloader(slow_numbers(8, pause = 0.3), batch_size = 1, num_workers = 2)
  it <- dataloader_make_iter(dl)
  dataloader_next(it)
  expect_true(length(children()) >= 1)
  rm(it)
  invisible(gc())
  Sys.sleep(0.2)
  expect_length(children(), 0)
})

test_that("two workers are faster than none when items are slow", {
  skip_on_cran()
  ds <- slow_numbers(24, pause = 0.02)
  time_of <- function(w) system.time(run_all(dataloader(ds, batch_size = 4, num_workers = w)))
  t0 <- time_of(0)[["elapsed"]]
  t2 <- time_of(2)[["elapsed"]]
  expect_lt(t2, t0)
})

test_that("worker batches do not leak across the bridge", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  ds <- slow_numbers(6)
  run <- function(n) for (k in seq_len(n)) run_all(dataloader(ds, batch_size = 2, num_workers = 2))
  run(2)
  before <- live()
  run(20)
  grown <- live() - before
  expect_true(all(grown < 30), info = paste(grown, collapse = ", "))
})

test_that("a pass that stops for another reason (here the sampler fails) stops its workers", {
  failing <- sampler(
    initialize = function(data_source) NULL,
    .iter = function() {
      i <- 0
      function() {
        i <<- i + 1
        if (i > 3) stop("the sampler broke") else c(2 * i - 1, 2 * i)
      }
    },
    .length = function() 4
  )
  dl <- dataloader(slow_numbers(8, pause = 0.05), batch_sampler = failing(NULL),
                   num_workers = 2)
  it <- dataloader_make_iter(dl)
  expect_error(while (!is.null(dataloader_next(it))) NULL, "the sampler broke")
  expect_length(children(), 0)
})

test_that("the user's own parallel jobs are left alone by a pass with workers", {
  job <- parallel::mcparallel({
    Sys.sleep(0.5)
    "the user's result"
  })
  expect_length(run_all(dataloader(slow_numbers(6), batch_size = 2, num_workers = 2)), 3)
  expect_equal(parallel::mccollect(job)[[1]], "the user's result")
})
