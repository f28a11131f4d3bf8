# Random careless calls of the R package's exported functions (driven by tests/test_r_bad_input.py,
# or run by hand: see scripts/bad-input-full.sh).
#
#   Rscript tests/r_bad_input.R SEED N LOG [FIRST]
#
# Calls N functions with bad values, drawn with SEED (call FIRST+1 .. FIRST+N of that draw),
# in a temporary working directory. Before each call it writes the call to LOG (so a crash or
# a hang names the call that caused it); after each it checks that the call ended in an R
# error condition or a value (never a Python internal in the message) and that grad mode and
# the default dtype are as they were. It prints one line per finding and, last,
# "BAD-INPUT calls=N errors=E findings=F".
suppressPackageStartupMessages(library(rtorchpy))
args <- commandArgs(TRUE)
seed <- as.integer(args[[1]])
n <- as.integer(args[[2]])
log_path <- args[[3]]
first <- if (length(args) >= 4) as.integer(args[[4]]) else 0L
setwd(tempdir())

# never called: they install, start or stop things, or evaluate code arguments as code
skip <- c("install_rtorchpy", "rtorchpy_config", "rtorchpy_available",
          "with_no_grad", "with_enable_grad", "with_detect_anomaly", "local_no_grad",
          "local_enable_grad", "autograd_set_grad_mode", "torch_set_default_dtype",
          "torch_manual_seed", "torch_set_num_threads", "cuda_is_available", "backends_mps_is_available")
exports <- sort(getNamespaceExports("rtorchpy"))
fns <- Filter(function(nm) {
  f <- get0(nm, envir = asNamespace("rtorchpy"))
  is.function(f) && !nm %in% skip && !startsWith(nm, "%") && !grepl("<-", nm, fixed = TRUE)
}, exports)

freed <- local({
  t <- torch_ones(2)
  unserialize(serialize(t, NULL))  # a handle whose pointer did not survive
})
bad_values <- list(
  "NULL" = NULL, "NA" = NA, "NA_integer_" = NA_integer_, "NA_real_" = NA_real_,
  "NaN" = NaN, "Inf" = Inf, "-Inf" = -Inf, "1e300" = 1e300, "-1" = -1, "0" = 0,
  "-2147483647L" = -2147483647L, "2^31" = 2^31, "2^62" = 2^62, "1.5" = 1.5,
  "'a'" = "a", "character(0)" = character(0), "list()" = list(), "list(1, 'a')" = list(1, "a"),
  "1+2i" = 1 + 2i, "1-7.25i" = 1 - 7.25i, "TRUE" = TRUE, "c(1, 2, 3)" = c(1, 2, 3),
  "new.env()" = new.env(), "function() 1" = function() 1, "freed handle" = freed,
  "matrix" = matrix(1:4, 2), "factor" = factor("a"), "-1e9" = -1e9
)
tensors <- list("torch_randn(3, 3)" = function() torch_randn(3, 3),
                "torch_tensor(1:3)" = function() torch_tensor(1:3),
                "torch_ones(2, requires_grad = TRUE)" = function() torch_ones(2, requires_grad = TRUE))

# a Python internal in a message an R user sees
internal <- "has no attribute|NoneType|Traceback|unhashable|positional argument|__\\w+__|(^|[^A-Za-z0-9])_data\\b|numpy\\.|np\\.|object is not (callable|subscriptable|iterable)|invalid literal for int"

set.seed(seed)
draws <- lapply(seq_len(first + n), function(i) {
  list(fn = sample(fns, 1L), bad = sample(length(bad_values), 1L),
       pos = sample(0:3, 1L), tensor = sample(length(tensors), 1L))
})[first + seq_len(n)]

state <- function() list(rtorchpy:::.set_grad_mode(TRUE), format(torch_get_default_dtype()))
invisible(rtorchpy:::.set_grad_mode(TRUE))
start <- state()
con <- file(log_path, open = "w")
errors <- 0L
findings <- 0L
report <- function(...) {
  findings <<- findings + 1L
  cat("FINDING ", ..., "\n", sep = "")
}
for (d in draws) {
  f <- get(d$fn, envir = asNamespace("rtorchpy"))
  fmls <- names(formals(f))
  bad <- bad_values[d$bad]
  # the bad value as the first argument, or after a tensor, or by the name of a formal
  call_args <- switch(as.character(d$pos),
    "0" = unname(bad),
    "1" = c(list(tensors[[d$tensor]]()), unname(bad)),
    "2" = if (length(fmls) >= 2 && fmls[[2]] != "...") {
      a <- list(tensors[[d$tensor]]())
      a[fmls[[2]]] <- unname(bad)
      a
    } else c(list(tensors[[d$tensor]]()), unname(bad)),
    "3" = {
      named <- setdiff(fmls, c("...", fmls[1]))
      a <- list(tensors[[d$tensor]]())
      if (length(named)) a[sample(named, 1L)] <- unname(bad)
      a
    })
  desc <- paste0(d$fn, "(", paste(vapply(seq_along(call_args), function(i) {
    nm <- names(call_args)[i]
    txt <- if (is_torch_tensor(call_args[[i]])) names(tensors)[d$tensor] else names(bad)
    if (!is.null(nm) && nzchar(nm)) paste0(nm, " = ", txt) else txt
  }, ""), collapse = ", "), ")")
  writeLines(desc, con)
  flush(con)
  msg <- NULL
  res <- tryCatch(withCallingHandlers(
    { do.call(f, call_args); "ok" },
    warning = function(w) invokeRestart("muffleWarning")),
    error = function(e) {
      msg <<- conditionMessage(e)
      "error"
    })
  if (identical(res, "error")) {
    errors <- errors + 1L
    if (length(msg) != 1L) {
      report("message of length ", length(msg), ": ", desc)
      msg <- paste(msg, collapse = " ")
    }
    if (grepl(internal, msg)) report("internal message: ", desc, " -> ", gsub("\n", " ", msg))
  }
  now <- state()
  if (!identical(now, start)) {
    report("state changed: ", desc, " -> grad mode ", now[[1]], ", default dtype ", now[[2]])
    invisible(rtorchpy:::.set_grad_mode(start[[1]]))
    torch_set_default_dtype(torch_float32())
  }
}
close(con)
cat("BAD-INPUT calls=", length(draws), " errors=", errors, " findings=", findings, "\n", sep = "")
