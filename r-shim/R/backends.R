# Devices other than the CPU: there are none (rtorchpy computes with NumPy). R torch programs
# usually ask before choosing a device, so the questions are answered instead of failing.

#' Accelerators: none
#'
#' rtorchpy computes on the CPU only: `cuda_is_available()` and `backends_mps_is_available()`
#' are `FALSE` and `cuda_device_count()` is 0, so the usual
#' `device <- if (cuda_is_available()) "cuda" else "cpu"` picks the CPU.
#' @return `FALSE`, or 0 for `cuda_device_count()`.
#' @examples
#' device <- if (cuda_is_available()) "cuda" else "cpu"
#' @export
#' @family package and backends
cuda_is_available <- function() FALSE

#' @rdname cuda_is_available
#' @export
cuda_device_count <- function() 0L

#' @rdname cuda_is_available
#' @export
backends_mps_is_available <- function() FALSE

#' R torch's CPU allocator settings: accepted, nothing to do
#'
#' R torch keeps a cache of freed CPU blocks in libtorch's allocator; rtorchpy's memory is
#' NumPy's (and the bridge's own buffer pool), so these calls check their arguments and return.
#' @param threshold_call_gc,cache_max_size_mb,cache_min_block_size Sizes (numbers).
#' @param cache_enabled `TRUE` or `FALSE`.
#' @return `NULL`, invisibly.
#' @export
#' @family package and backends
#' @examples
#' if (rtorchpy_available()) {
#'   cpu_cache_flush()
#' }
set_cpu_allocator_config <- function(threshold_call_gc = 4000L, cache_enabled = TRUE,
                                     cache_max_size_mb = threshold_call_gc,
                                     cache_min_block_size = 1024L) {
  for (nm in c("threshold_call_gc", "cache_max_size_mb", "cache_min_block_size")) {
    v <- get(nm)
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0) {
      .value_error(sprintf("`%s` must be one non-negative number", nm))
    }
  }
  .flag(cache_enabled, "cache_enabled")
  invisible()
}

#' @rdname set_cpu_allocator_config
#' @export
cpu_cache_flush <- function() invisible()
