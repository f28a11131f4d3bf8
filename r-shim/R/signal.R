# Window functions, the sample frequencies of a Fourier transform, dtype limits, and
# torch_empty_strided() (issue 33): R torch's names and arguments.

.window <- function(name, window_length, periodic, extra, dtype, device, requires_grad) {
  .check_device(device)
  .fn(name, c(list(window_length, .flag(periodic)), extra),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' Window functions
#'
#' Windows for spectral analysis and filter design, as 1-d tensors of length `window_length`.
#' With `periodic = TRUE` (the default) a window is the symmetric window of length
#' `window_length + 1` without its last value, as spectral analysis wants it.
#'
#' * Hann: \eqn{0.5 - 0.5 \cos(2 \pi k / (N - 1))};
#' * Hamming: \eqn{\alpha - \beta \cos(2 \pi k / (N - 1))};
#' * Blackman: \eqn{0.42 - 0.5 \cos(2 \pi k / (N - 1)) + 0.08 \cos(4 \pi k / (N - 1))};
#' * Bartlett (triangular): \eqn{1 - |2 k / (N - 1) - 1|};
#' * Kaiser: \eqn{I_0(\beta \sqrt{1 - ((k - m) / m)^2}) / I_0(\beta)}, \eqn{m = (N - 1) / 2}.
#' @param window_length The number of values.
#' @param periodic `TRUE` for a periodic window, `FALSE` for a symmetric one.
#' @param alpha,beta The coefficients of the Hamming window; `beta` is the shape parameter of
#'   the Kaiser window.
#' @param dtype A floating point dtype, or `NULL` for the default dtype.
#' @param layout Ignored.
#' @param device `NULL` or `"cpu"`.
#' @param requires_grad Track operations on the result for automatic differentiation.
#' @return A 1-d tensor.
#' @family signal processing
#' @examples
#' if (rtorchpy_available()) {
#'   torch_hann_window(8)
#'   torch_kaiser_window(8, beta = 5)
#' }
#' @name window_functions
NULL

#' @rdname window_functions
#' @export
torch_hann_window <- function(window_length, periodic = TRUE, dtype = NULL, layout = NULL,
                              device = NULL, requires_grad = FALSE) {
  .window("torch_hann_window", window_length, periodic, list(), dtype, device, requires_grad)
}

#' @rdname window_functions
#' @export
torch_hamming_window <- function(window_length, periodic = TRUE, alpha = 0.54, beta = 0.46,
                                 dtype = NULL, layout = NULL, device = NULL,
                                 requires_grad = FALSE) {
  .window("torch_hamming_window", window_length, periodic, list(alpha, beta), dtype, device,
          requires_grad)
}

#' @rdname window_functions
#' @export
torch_blackman_window <- function(window_length, periodic = TRUE, dtype = NULL, layout = NULL,
                                  device = NULL, requires_grad = FALSE) {
  .window("torch_blackman_window", window_length, periodic, list(), dtype, device,
          requires_grad)
}

#' @rdname window_functions
#' @export
torch_bartlett_window <- function(window_length, periodic = TRUE, dtype = NULL, layout = NULL,
                                  device = NULL, requires_grad = FALSE) {
  .window("torch_bartlett_window", window_length, periodic, list(), dtype, device,
          requires_grad)
}

#' @rdname window_functions
#' @export
torch_kaiser_window <- function(window_length, periodic = TRUE, beta = 12, dtype = NULL,
                                layout = NULL, device = NULL, requires_grad = FALSE) {
  .window("torch_kaiser_window", window_length, periodic, list(beta), dtype, device,
          requires_grad)
}

#' Sample frequencies of a discrete Fourier transform
#'
#' `torch_fft_fftfreq(n, d)` gives the frequencies of the `n` values of a length-`n` transform
#' with sample spacing `d`: `c(0, 1, ..., ceiling(n / 2) - 1, -floor(n / 2), ..., -1) / (d * n)`.
#' @param n The length of the transform.
#' @param d The sample spacing (the inverse of the sampling rate).
#' @inheritParams window_functions
#' @return A 1-d tensor.
#' @family signal processing
#' @examples
#' if (rtorchpy_available()) torch_fft_fftfreq(5, d = 0.1)
#' @export
torch_fft_fftfreq <- function(n, d = 1, dtype = NULL, layout = NULL, device = NULL,
                              requires_grad = FALSE) {
  .check_device(device)
  .fn("torch_fft_fftfreq", list(n, d),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' A tensor with given strides
#'
#' An uninitialised tensor (here filled with zeros) of shape `size` whose elements lie
#' `stride` elements apart along each dim, in a buffer just large enough.
#' @param size The shape, a vector of whole numbers.
#' @param stride The strides, one per dim, in elements.
#' @param pin_memory Ignored.
#' @inheritParams window_functions
#' @return A tensor.
#' @family tensors
#' @examples
#' if (rtorchpy_available()) torch_empty_strided(c(2, 3), c(1, 2))$stride()
#' @export
torch_empty_strided <- function(size, stride, dtype = NULL, layout = NULL, device = NULL,
                                requires_grad = FALSE, pin_memory = FALSE) {
  .check_device(device)
  .fn("torch_empty_strided", list(.size_args(size), .size_args(stride)),
      list(dtype = .a(dtype), requires_grad = .flag(requires_grad)))
}

#' Numerical limits of a dtype
#'
#' `torch_finfo()` gives a floating point dtype's `bits`, `max`, `min`, `eps` (the difference
#' between 1 and the next value), `tiny` (the smallest normal number, also `smallest_normal`)
#' and `resolution`; `torch_iinfo()` an integer dtype's `bits`, `max` and `min` (as doubles
#' where R's integers cannot hold them: int64's are rounded).
#' @param dtype A dtype, such as `torch_float32()` or `torch_int32()`.
#' @return A named list.
#' @family tensor properties
#' @examples
#' torch_finfo(torch_float32())$eps
#' torch_iinfo(torch_int16())$max
#' @export
torch_finfo <- function(dtype) {
  if (!inherits(dtype, "torch_dtype") || !isTRUE(dtype$is_floating_point)) {
    .value_error("torch_finfo(): `dtype` must be a floating point dtype, got ",
                 if (inherits(dtype, "torch_dtype")) paste0("torch_", dtype$word) else .what(dtype))
  }
  # the IEEE 754 formats' limits (fixed; no crossing needed)
  info <- switch(dtype$name,
    float32 = list(bits = 32L, max = 3.4028234663852886e+38, eps = 1.1920928955078125e-07,
                   tiny = 1.1754943508222875e-38, resolution = 1e-06),
    float64 = list(bits = 64L, max = .Machine$double.xmax, eps = .Machine$double.eps,
                   tiny = .Machine$double.xmin, resolution = 1e-15),
    float16 = list(bits = 16L, max = 65504, eps = 0.0009765625, tiny = 6.103515625e-05,
                   resolution = 0.001),
    # bfloat16: float32's exponent range with 7 fraction bits
    bfloat16 = list(bits = 16L, max = 3.3895313892515355e+38, eps = 0.0078125,
                    tiny = 1.1754943508222875e-38, resolution = 0.01))
  list(bits = info$bits, max = info$max, min = -info$max, eps = info$eps, tiny = info$tiny,
       smallest_normal = info$tiny, resolution = info$resolution)
}

#' @rdname torch_finfo
#' @export
torch_iinfo <- function(dtype) {
  ints <- list(uint8 = c(8, 0, 255), int8 = c(8, -128, 127), int16 = c(16, -32768, 32767),
               int32 = c(32, -2147483648, 2147483647),
               int64 = c(64, -9223372036854775808, 9223372036854775807))
  if (!inherits(dtype, "torch_dtype") || !dtype$name %in% names(ints)) {
    .value_error("torch_iinfo(): `dtype` must be an integer dtype, got ",
                 if (inherits(dtype, "torch_dtype")) paste0("torch_", dtype$word) else .what(dtype))
  }
  v <- ints[[dtype$name]]
  small <- dtype$name %in% c("uint8", "int8", "int16")
  list(bits = as.integer(v[[1]]), max = if (small) as.integer(v[[3]]) else v[[3]],
       min = if (small) as.integer(v[[2]]) else v[[2]])
}
