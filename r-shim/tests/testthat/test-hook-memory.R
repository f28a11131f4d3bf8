# A hook whose closure captures its own tensor (the usual idiom: defined in the same frame) is
# freed with that frame; a hook on an intermediate dropped before backward still fires.
# (tests/test_rbridge_safety.py runs this file in every bridge mode.)

test_that("hooks capturing their tensor are freed (objects)", {
  live <- function() unlist(rtorchpy:::.bridge_counts())
  step <- function() {
    x <- torch_randn(20000, requires_grad = TRUE)
    h <- x$register_hook(function(g) g * 2)
    (x * x)$sum()$backward()
    invisible(NULL)
  }
  for (i in 1:20) step()
  before <- live()
  for (i in 1:1000) step()
  grown <- live() - before
  expect_true(all(grown < 20), info = paste(grown, collapse = ", "))  # (was 2 per step)
})

# The issue's loop and its memory, in a fresh R session (in this one, other files' tensors
# set how much R lets dead tensors hold before it collects: twice the live bytes): raw RSS, no
# malloc_trim; the same bridge mode as this session.
test_that("the hook loop keeps raw RSS within 40 MB over 2,000 iterations", {
  skip_if_not(file.exists("/proc/self/status"), "no /proc here to read RSS from")
  rscript <- file.path(R.home("bin"), "Rscript")
  direct <- if (isTRUE(rtorchpy:::.rt$direct)) "" else "0"
  out <- suppressWarnings(system2(
    rscript, c("--vanilla", shQuote(test_path("fixtures", "hook-memory-child.R"))),
    env = paste0("RTORCHPY_DIRECT=", direct), stdout = TRUE, stderr = TRUE))
  res <- grep("^RSS-GROWTH-MB ", out, value = TRUE)
  expect_length(res, 1L)
  if (length(res) == 1L) {
    grown <- as.numeric(sub("^RSS-GROWTH-MB ", "", res))
    expect_lt(grown, 40, label = paste(out, collapse = "\n"))  # (was ~290 MB)
  }
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
