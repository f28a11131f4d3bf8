# dataloader(): batching, shuffling, iteration, errors, worker processes, leaks.
skip_if_no_python()

numbers <- dataset(
  name = "numbers",
  initialize = function(n = 10, fail_at = NA) {
    self$n <- n
    self$fail_at <- fail_at
  },
  .getitem = function(i) {
    if (identical(i, self$fail_at)) stop("no item here")
    list(x = torch_tensor(c(i, -i)), y = i)
  },
  .length = function() self$n
)

all_batches <- function(dl, field = "y") {
  out <- list()
  it <- dataloader_make_iter(dl)
  while (!is.null(b <- dataloader_next(it))) out[[length(out) + 1]] <- as_array(b[[field]])
  out
}

test_that("dataloader() batches in order, with drop_last and length()", {
  dl <- dataloader(numbers(10), batch_size = 4)
  expect_true(is_dataloader(dl))
  expect_equal(length(dl), 3)
  expect_equal(all_batches(dl), list(1:4, 5:8, 9:10))
  dl <- dataloader(numbers(10), batch_size = 4, drop_last = TRUE)
  expect_equal(length(dl), 2)
  expect_equal(all_batches(dl), list(1:4, 5:8))
  it <- dataloader_make_iter(dataloader(numbers(3), batch_size = 2))
  b <- dataloader_next(it)
  expect_equal(b$x$shape, c(2, 2))
  expect_equal(b$y$dtype, torch_long())
  dataloader_next(it)
  expect_identical(dataloader_next(it, completed = "done"), "done")
  expect_identical(dataloader_next(it, completed = "done"), "done")
  expect_output(print(dl), "<dataloader>")
})

test_that("tensor_dataset batches come from .getbatch, one call per batch", {
  calls <- 0
  counted <- dataset(
    initialize = function() self$t <- tensor_dataset(torch_arange(1, 10)),
    .getitem = function(i) stop(".getitem must not be called"),
    .getbatch = function(i) {
      calls <<- calls + 1
      self$t$.getbatch(i)
    },
    .length = function() 10
  )
  dl <- dataloader(counted(), batch_size = 4)
  got <- all_batches(dl, 1)
  expect_equal(calls, 3)
  expect_equal(got, list(1:4, 5:8, 9:10))
  dl <- dataloader(tensor_dataset(torch_randn(10, 3), torch_arange(1, 10)), batch_size = 4)
  b <- dataloader_next(dataloader_make_iter(dl))
  expect_equal(b[[1]]$shape, c(4, 3))
  expect_equal(as_array(b[[2]]), 1:4)
})

test_that("a tensor_dataset's pass in Python gives the batches the R path gives", {
  batches <- function(dl) {
    out <- list()
    it <- dataloader_make_iter(dl)
    while (!is.null(b <- dataloader_next(it))) out[[length(out) + 1]] <- b
    out
  }
  x <- torch_randn(23, 3)
  y <- torch_arange(1, 23)
  ds <- tensor_dataset(x, y)
  # a collate_fn other than the default takes the general path: batch by batch from R
  general <- function(b) utils_data_default_convert(b)
  cases <- list(
    list(shuffle = TRUE), list(shuffle = FALSE, drop_last = TRUE),
    list(sampler = sampler_random(ds, replacement = TRUE, num_samples = 30))
  )
  for (opts in cases) {
    fast <- do.call(dataloader, c(list(ds, batch_size = 5), opts))
    slow <- do.call(dataloader, c(list(ds, batch_size = 5, collate_fn = general), opts))
    it <- dataloader_make_iter(fast)
    expect_false(is.null(it$epoch))
    expect_null(dataloader_make_iter(slow)$epoch)
    torch_manual_seed(11)
    a <- all_batches(fast, 2)
    torch_manual_seed(11)
    b <- all_batches(slow, 2)
    expect_identical(a, b)
    torch_manual_seed(11)
    xa <- unlist(lapply(batches(fast), function(bt) as_array(bt[[1]])))
    torch_manual_seed(11)
    xb <- unlist(lapply(batches(slow), function(bt) as_array(bt[[1]])))
    expect_identical(xa, xb)
  }
  # a subclass with its own .getbatch keeps it
  own <- dataset(inherit = tensor_dataset,
                 .getbatch = function(index) list(torch_tensor(index)))(x)
  it <- dataloader_make_iter(dataloader(own, batch_size = 4))
  expect_null(it$epoch)
  expect_equal(as_array(dataloader_next(it)[[1]]), 1:4)
  # a pass left half-way and a new one started: each complete
  dl <- dataloader(ds, batch_size = 10, shuffle = TRUE)
  it <- dataloader_make_iter(dl)
  dataloader_next(it)
  expect_equal(length(batches(dl)), 3)
})

test_that("shuffling is reproducible under torch_manual_seed() and differs per pass", {
  ds <- tensor_dataset(torch_arange(1, 20))
  dl <- dataloader(ds, batch_size = 5, shuffle = TRUE)
  torch_manual_seed(7)
  a <- unlist(all_batches(dl, 1))
  a2 <- unlist(all_batches(dl, 1))
  torch_manual_seed(7)
  b <- unlist(all_batches(dl, 1))
  expect_equal(a, b)
  expect_equal(sort(a), 1:20)
  expect_false(identical(a, a2))
})

test_that("batch_size = NULL, batch_sampler and collate_fn", {
  dl <- dataloader(numbers(3), batch_size = NULL)
  it <- dataloader_make_iter(dl)
  item <- dataloader_next(it)
  expect_equal(item$x$shape, 2)
  expect_true(is_torch_tensor(item$y))
  bs <- sampler_batch(sampler_sequential(numbers(5)), 2)
  dl <- dataloader(numbers(5), batch_sampler = bs)
  expect_equal(all_batches(dl), list(1:2, 3:4, 5))
  expect_error(dataloader(numbers(5), batch_sampler = bs, shuffle = TRUE), "mutually exclusive")
  dl <- dataloader(numbers(5), batch_size = 2,
                   collate_fn = function(items) sum(vapply(items, function(b) b$y, 1)))
  it <- dataloader_make_iter(dl)
  expect_equal(dataloader_next(it), 3)
})

test_that("as_iterator() and enumerate() iterate a pass", {
  dl <- dataloader(numbers(5), batch_size = 2)
  nxt <- as_iterator(dl)
  n <- 0
  while (!identical(b <- nxt(), as.symbol(".__exhausted__."))) n <- n + 1
  expect_equal(n, 3)
  expect_warning(batches <- enumerate(dl), class = "deprecated")
  expect_length(batches, 3)
  if (requireNamespace("coro", quietly = TRUE)) {
    m <- 0
    coro::loop(for (b in dl) m <- m + 1)
    expect_equal(m, 3)
  }
})

test_that("bad input: clear errors, and the loader still works afterwards", {
  expect_error(dataloader(numbers(5), batch_size = 0), "`batch_size` must be a whole number >= 1")
  expect_error(dataloader(numbers(5), batch_size = 1.5), "`batch_size` must be a whole number")
  expect_error(dataloader(1:5), "`dataset` must be a dataset")
  expect_error(dataloader(numbers(5), num_workers = -1), "`num_workers`")
  expect_error(dataloader(numbers(5), generator = 1), "only NULL is supported")
  expect_error(dataloader(numbers(5), sampler = 1:5), "must be a sampler")
  dl <- dataloader(numbers(6, fail_at = 5L), batch_size = 2)
  it <- dataloader_make_iter(dl)
  expect_equal(as_array(dataloader_next(it)$y), 1:2)
  expect_equal(as_array(dataloader_next(it)$y), 3:4)
  expect_error(dataloader_next(it), "dataset .getitem\\(5\\) failed: no item here")
  # the failed batch is skipped; a new pass starts afresh
  expect_error(all_batches(dl), "getitem\\(5\\)")
  ok <- dataloader(numbers(4, fail_at = 5L), batch_size = 2)
  expect_equal(all_batches(ok), list(1:2, 3:4))
  ragged <- dataset(.getitem = function(i) torch_ones(if (i == 3) 2 else 3),
                    .length = function() 4)()
  expect_error(all_batches(dataloader(ragged, batch_size = 4), 1),
               "item 1 of the batch has shape \\[3\\] and item 3 has shape \\[2\\]")
  # a sampler that gives indices beyond the dataset, or a number other than its length
  wrong <- sampler(initialize = function(data_source) NULL,
                   .iter = function() {
                     i <- 0
                     function() {
                       i <<- i + 1
                       if (i > 3) as.symbol(".__exhausted__.") else i + 10
                     }
                   },
                   .length = function() 3)
  expect_error(all_batches(dataloader(numbers(5), sampler = wrong(NULL))),
               "the sampler gave index 11, out of range for a dataset of 5 items")
  short <- sampler(initialize = function(data_source) NULL,
                   .iter = function() {
                     done <- FALSE
                     function() {
                       if (done) return(as.symbol(".__exhausted__."))
                       done <<- TRUE
                       1L
                     }
                   },
                   .length = function() 4)
  expect_error(all_batches(dataloader(numbers(5), sampler = short(NULL), batch_size = 2)),
               "the sampler gave 1 indices, but its length is 4")
})

test_that("a loader over R closures iterated many times does not leak", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  ds <- numbers(8)
  tds <- tensor_dataset(torch_randn(8, 2), torch_arange(1, 8))
  run <- function(n) {
    for (k in seq_len(n)) {
      for (dl in list(dataloader(ds, batch_size = 3, shuffle = TRUE),
                      dataloader(tds, batch_size = 3, shuffle = TRUE))) {
        it <- dataloader_make_iter(dl)
        while (!is.null(b <- dataloader_next(it))) NULL
      }
    }
  }
  run(5)
  before <- live()
  run(150)
  grown <- live() - before
  expect_true(all(grown < 40), info = paste(grown, collapse = ", "))
})
