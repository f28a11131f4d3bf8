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
cuda_is_available <- function() FALSE

#' @rdname cuda_is_available
#' @export
cuda_device_count <- function() 0L

#' @rdname cuda_is_available
#' @export
backends_mps_is_available <- function() FALSE
