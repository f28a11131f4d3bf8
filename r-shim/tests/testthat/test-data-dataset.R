# Datasets, samplers and collation (R torch's dataset(), tensor_dataset(), dataset_subset(),
# iterable_dataset(), random_split(), sampler(), utils_data_default_collate()).
skip_if_no_python()

squares <- dataset(
  name = "squares",
  initialize = function(n = 10) {
    self$n <- n
  },
  .getitem = function(i) list(x = torch_tensor(c(i, i^2)), y = i),
  .length = function() self$n
)

test_that("dataset() makes a generator of R6 datasets with [, [[ and length()", {
  expect_s3_class(squares, "dataset_generator")
  expect_identical(names(formals(squares)), "n")
  ds <- squares(5)
  expect_s3_class(ds, c("squares", "dataset", "R6"))
  expect_true(is_dataset(ds))
  expect_equal(length(ds), 5)
  expect_equal(ds[[3]]$y, 3L)
  expect_equal(as_array(ds[3]$x), c(3, 9))
  out <- capture.output(print(squares))
  expect_equal(out[[1]], "<dataset_generator>")
  expect_true(any(grepl("squares", out)))
})

test_that("dataset() supports inherit, private, active and .getbatch", {
  base <- dataset(initialize = function() self$k <- 2, .getitem = function(i) i * self$k,
                  .length = function() 4)
  child <- dataset("child", inherit = base,
                   .getitem = function(i) super$.getitem(i) + private$offset(),
                   private = list(offset = function() 100),
                   active = list(twice = function() 2 * length(self)))
  ds <- child()
  expect_equal(ds[[3]], 106)
  expect_equal(ds$twice, 8)
  batched <- dataset(.getitem = function(i) stop("not this one"),
                     .getbatch = function(i) i * 10, .length = function() 3)()
  expect_equal(batched[2:3], c(20L, 30L))
  expect_error(dataset(inherit = 3), "`inherit` must be a dataset generator")
})

test_that("tensor_dataset() gives rows, and a batch in one call", {
  x <- torch_randn(6, 3)
  y <- torch_arange(1, 6)
  ds <- tensor_dataset(x, y)
  expect_equal(length(ds), 6)
  expect_equal(as_array(ds[[2]][[1]]), as_array(x[2, ]))
  b <- ds[c(5, 1)]
  expect_equal(as_array(b[[1]]), as_array(x[c(5, 1), ]))
  expect_equal(as_array(b[[2]]), c(5, 1))
  expect_false(is.null(ds$.getbatch))
  expect_error(tensor_dataset(torch_ones(3), torch_ones(4)), "same size in the first dimension")
  expect_error(tensor_dataset(1:3), "must be a tensor")
  expect_error(ds[7], "index 7 is out of bounds")
  # the rows are copies: writing to a batch leaves the dataset alone
  b[[1]]$zero_()
  expect_equal(as_array(ds[5][[1]]), as_array(x[5, , drop = FALSE]))
})

test_that("dataset_subset() and random_split()", {
  ds <- squares(10)
  sub <- dataset_subset(ds, c(2, 4, 6))
  expect_equal(length(sub), 3)
  expect_equal(sub[[2]]$y, 4L)
  expect_error(dataset_subset(ds, 11), "index 11 is out of range")
  tds <- tensor_dataset(torch_arange(1, 10))
  expect_false(is.null(dataset_subset(tds, 1:3)$.getbatch))
  torch_manual_seed(3)
  parts <- random_split(ds, c(7, 3))
  torch_manual_seed(3)
  again <- random_split(ds, c(0.7, 0.3))
  expect_equal(lengths(list(parts[[1]]$indices, parts[[2]]$indices)), c(7, 3))
  expect_equal(sort(c(parts[[1]]$indices, parts[[2]]$indices)), 1:10)
  expect_equal(parts[[1]]$indices, again[[1]]$indices)
  expect_error(random_split(ds, c(5, 4)), "sum to 9, but the dataset has 10")
})

test_that("iterable_dataset() gives items until its iterator is exhausted", {
  counter <- iterable_dataset(
    "counter",
    initialize = function(n) self$n <- n,
    .iter = function() {
      i <- 0
      function() {
        i <<- i + 1
        if (i > self$n) coro_exhausted() else i
      }
    }
  )
  coro_exhausted <- function() as.symbol(".__exhausted__.")
  ds <- counter(7)
  expect_s3_class(ds, "iterable_dataset")
  expect_true(is.na(length(ds)))
  dl <- dataloader(ds, batch_size = 3)
  batches <- list()
  it <- dataloader_make_iter(dl)
  while (!is.null(b <- dataloader_next(it))) batches[[length(batches) + 1]] <- as_array(b)
  expect_equal(batches, list(c(1, 2, 3), c(4, 5, 6), 7))
  # the stream ends early: drop_last drops the short batch
  dl <- dataloader(ds, batch_size = 3, drop_last = TRUE)
  it <- dataloader_make_iter(dl)
  n <- 0
  while (!is.null(b <- dataloader_next(it))) n <- n + 1
  expect_equal(n, 2)
  expect_error(dataloader(ds, shuffle = TRUE), "iterable_dataset gives its items")
  expect_error(dataloader(ds, num_workers = 1), "not supported for an iterable_dataset")
})

test_that("the built-in samplers and sampler()", {
  ds <- squares(5)
  expect_equal(.epoch(sampler_sequential(ds)), 1:5)
  torch_manual_seed(1)
  a <- .epoch(sampler_random(ds))
  torch_manual_seed(1)
  expect_equal(.epoch(sampler_random(ds)), a)
  expect_equal(sort(a), 1:5)
  r <- sampler_random(ds, replacement = TRUE, num_samples = 20)
  expect_equal(length(r), 20)
  expect_true(all(.epoch(r) %in% 1:5))
  expect_equal(length(sampler_batch(sampler_sequential(ds), 2)), 3)
  expect_equal(length(sampler_batch(sampler_sequential(ds), 2, drop_last = TRUE)), 2)
  expect_error(sampler_batch(sampler_sequential(ds), 0), "`batch_size` must be a whole number >= 1")
  evens <- sampler(
    "evens",
    initialize = function(data_source) self$n <- length(data_source),
    .iter = function() {
      v <- seq(2, self$n, by = 2)
      i <- 0
      function() {
        i <<- i + 1
        if (i > length(v)) as.symbol(".__exhausted__.") else v[[i]]
      }
    },
    .length = function() self$n %/% 2
  )
  expect_s3_class(evens, "sampler_generator")
  dl <- dataloader(squares(9), batch_size = 3, sampler = evens(squares(9)))
  expect_equal(length(dl), 2)
  it <- dataloader_make_iter(dl)
  expect_equal(as_array(dataloader_next(it)$y), c(2, 4, 6))
  expect_equal(as_array(dataloader_next(it)$y), 8)
  expect_null(dataloader_next(it))
})

test_that("default collation: tensors stacked, numbers as R torch's dtypes, lists recursively", {
  b <- utils_data_default_collate(list(
    list(t = torch_ones(2), i = 1L, d = 0.5, l = TRUE, s = "a", v = c(1, 2), m = matrix(1:4, 2),
         nested = list(a = 1L, b = list(torch_zeros(3)))),
    list(t = torch_zeros(2), i = 2L, d = 1.5, l = FALSE, s = "b", v = c(3, 4), m = matrix(5:8, 2),
         nested = list(a = 2L, b = list(torch_ones(3))))
  ))
  expect_equal(names(b), c("t", "i", "d", "l", "s", "v", "m", "nested"))
  expect_equal(b$t$shape, c(2, 2))
  expect_equal(b$i$dtype, torch_long())
  expect_equal(b$d$dtype, torch_float())
  expect_equal(b$l$dtype, torch_bool())
  expect_equal(b$s, c("a", "b"))
  expect_equal(b$v$shape, c(2, 2))
  expect_equal(b$m$shape, c(2, 2, 2))
  expect_equal(b$m$dtype, torch_long())
  expect_equal(as_array(b$nested$a), c(1, 2))
  expect_equal(b$nested$b[[1]]$shape, c(2, 3))
  expect_error(utils_data_default_collate(list(torch_ones(3), torch_ones(2))),
               "item 1 of the batch has shape \\[3\\] and item 2 has shape \\[2\\]")
  expect_error(utils_data_default_collate(list(list(1, 2), list(1))),
               "item 1 of the batch has 2 elements and item 2 has 1")
  expect_error(utils_data_default_collate(list(environment())), "cannot collate")
})
