# A hook whose closure captures its own tensor (the usual idiom: defined in the same frame) is
# freed with that frame; a hook on an intermediate dropped before backward still fires.
# (tests/test_rbridge_safety.py runs this file in every bridge mode.)

test_that("hooks capturing their tensor are freed (objects and memory)", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  rss_mb <- function() {
    if (!file.exists("/proc/self/status")) return(NA_real_)
    # raw RSS (no malloc_trim): R is asked to collect once the dead tensors' bytes pass a low
    # floor (rtorchpy/_r/handles.py), so the heap never grows far
    status <- readLines("/proc/self/status")
    as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmRSS", status, value = TRUE))) / 1024
  }
  step <- function() {
    x <- torch_randn(20000, requires_grad = TRUE)
    h <- x$register_hook(function(g) g * 2)
    (x * x)$sum()$backward()
    invisible(NULL)
  }
  for (i in 1:20) step()
  before <- live()
  rss0 <- rss_mb()
  for (i in 1:1000) step()
  rss1 <- rss_mb()
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))  # (was 2 per step)
  if (!is.na(rss0)) expect_lt(rss1 - rss0, 40)  # (was ~290 MB; ~20 MB after malloc_trim)
})

test_that("the hook still runs, with the values it captured", {
  x <- torch_ones(3, requires_grad = TRUE)
  h <- x$register_hook(function(g) g * x$sum())  # captures x itself
  (x * 2)$sum()$backward()
  expect_equal(as_array(x$grad), rep(6, 3))
  h$remove()
  # a hook on an intermediate whose R variable is gone before backward
  fired <- 0
  make <- function() {
    y <- x * 2
    y$register_hook(function(g) {
      fired <<- fired + 1
      g * 10
    })
    y$sum()
  }
  x$grad$zero_()
  s <- make()
  invisible(gc())
  invisible(gc())
  s$backward()
  expect_equal(fired, 1)
  expect_equal(as_array(x$grad), rep(20, 3))
  # removing it still works
  x$grad$zero_()
  y <- x * 1
  hk <- y$register_hook(function(g) stop("removed hooks do not run"))
  hk$remove()
  y$sum()$backward()
  expect_equal(as_array(x$grad), rep(1, 3))
})
