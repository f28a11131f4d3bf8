#!/usr/bin/env bash
# Run R torch's own testthat files against the installed rtorchpy (an oracle for the R face;
# their code is R torch's and is not part of this repository).
#
#   scripts/run-rtorch-tests.sh TESTTHAT_DIR [FILE ...]
#
# TESTTHAT_DIR: the tests/testthat folder of a checkout of https://github.com/mlverse/torch
# (or any folder holding copies of its test files). FILEs: which test files to run (default:
# the convolution, pooling, padding, upsampling, fold and normalization ones). Each file runs
# with `library(rtorchpy)` in place of `library(torch)` and this script's own versions of the
# expectation helpers R torch's tests use (expect_tensor_shape, expect_equal_to_tensor, ...).
# Prints PASS/FAIL per test_that block (with the first lines of each failure) and the totals.
# Needs `make r` first (the package in .rlib).
set -uo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/run-rtorch-tests.sh TESTTHAT_DIR [FILE ...]}
shift
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(test-nn-conv.R test-nn-batchnorm.R test-nn-normalization.R test-nn-upsampling.R
         test-nn-flatten.R test-nnf-fold.R test-nnf-normalization.R test-nnf-padding.R
         test-nnf-pooling.R test-nnf-upsampling.R test-nnf-embedding.R test-nnf-dropout.R)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "${files[@]}"; do
  if [ -f "$src/$f" ]; then
    sed -e 's/library(torch)/library(rtorchpy)/' "$src/$f" > "$work/$f"
  else
    echo "missing: $src/$f" >&2
  fi
done
cat > "$work/helpers.R" <<'RCODE'
# expectation helpers with the names and meaning R torch's tests give them
expect_tensor <- function(object) {
  expect_true(is_torch_tensor(object))
  expect_error(as_array(object), NA)
}
expect_tensor_shape <- function(object, expected) {
  expect_tensor(object)
  expect_equal(object$shape, expected)
}
expect_equal_to_tensor <- function(object, expected, ...)
  expect_equal(as_array(object), as_array(expected), ...)
expect_not_equal_to_tensor <- function(object, expected)
  expect_false(isTRUE(all.equal(as_array(object), as_array(expected))))
expect_equal_to_r <- function(object, expected, ...) expect_equal(as_array(object), expected, ...)
expect_no_error <- function(object, ...) expect_error(object, NA, ...)
expect_undefined_tensor <- function(object) invisible(object)
skip_if_cuda_not_available <- function() skip("rtorchpy has no CUDA")
skip_if_not_test_examples <- function() skip("examples are not run here")
RCODE
cat > "$work/run.R" <<'RCODE'
args <- commandArgs(TRUE)
suppressMessages({library(testthat); library(rtorchpy)})
helpers <- new.env(parent = globalenv())
sys.source(file.path(args[[1]], "helpers.R"), envir = helpers)
counts <- c(PASS = 0, FAIL = 0, SKIP = 0)
for (f in sort(list.files(args[[1]], "^test-.*[.]R$", full.names = TRUE))) {
  res <- test_file(f, env = new.env(parent = helpers), reporter = "silent",
                   stop_on_failure = FALSE)
  for (t in res) {
    bad <- Filter(function(e) inherits(e, c("expectation_failure", "expectation_error")),
                  t$results)
    skipped <- any(vapply(t$results, inherits, TRUE, "expectation_skip"))
    status <- if (length(bad)) "FAIL" else if (skipped) "SKIP" else "PASS"
    counts[[status]] <- counts[[status]] + 1
    cat(sprintf("%s %s :: %s\n", status, basename(f), t$test))
    for (b in bad) cat("    ", substr(gsub("\n", " ", conditionMessage(b)), 1, 300), "\n")
  }
}
cat(sprintf("\ntest_that blocks: %d  passed: %d  failed: %d  skipped: %d\n", sum(counts),
            counts[["PASS"]], counts[["FAIL"]], counts[["SKIP"]]))
RCODE
env -u LD_LIBRARY_PATH R_LIBS="$PWD/.rlib" RETICULATE_PYTHON="$PWD/.venv/bin/python" \
  Rscript --vanilla "$work/run.R" "$work"
