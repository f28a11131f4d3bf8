# nn_init_* and nn_utils_clip_grad_*: one crossing each, to the Python functions.

.init_tensor <- function(tensor, fn) {
  if (!is_torch_tensor(tensor)) .nn_error(fn, "(): `tensor` must be a tensor, got ",
                                          .what(tensor))
  .a(tensor)
}

.init <- function(fn, tensor, ...) {
  .fn(fn, c(list(.init_tensor(tensor, fn)), list(...)))
  tensor
}

#' Initialize a tensor in place
#'
#' Fill `tensor` in place (without recording gradients, so parameters can be initialized)
#' and return it: `uniform_` U(a, b); `normal_` N(mean, std^2); `trunc_normal_` the same
#' truncated to `[a, b]`; `constant_` `val`; `zeros_`,
#' `ones_`; `eye_` the identity (2-d); `xavier_uniform_`/`xavier_normal_` (Glorot);
#' `kaiming_uniform_`/`kaiming_normal_` (He); `orthogonal_` a (semi-)orthogonal matrix.
#' `nn_init_calculate_gain()` is the recommended gain for a nonlinearity.
#'
#' @param tensor A tensor.
#' @param a,b Bounds (`uniform_`, `trunc_normal_`); `a` is the negative slope for
#'   `kaiming_*`.
#' @param mean,std Mean and standard deviation.
#' @param val The value.
#' @param gain A scaling factor.
#' @param mode `"fan_in"` or `"fan_out"`.
#' @param nonlinearity The nonlinearity the gain is for (`"relu"`, `"leaky_relu"`, ...).
#' @param param The negative slope of `"leaky_relu"`.
#' @return `tensor` (changed in place); a number for `nn_init_calculate_gain()`.
#' @name nn_init
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   w <- torch_empty(3, 2)
#'   nn_init_constant_(w, 0.5)
#'   nn_init_xavier_uniform_(w)$shape
#' }
NULL

#' @rdname nn_init
#' @export
nn_init_uniform_ <- function(tensor, a = 0, b = 1) {
  .init("nn_init_uniform_", tensor, as.numeric(a), as.numeric(b))
}

#' @rdname nn_init
#' @export
nn_init_normal_ <- function(tensor, mean = 0, std = 1) {
  .init("nn_init_normal_", tensor, as.numeric(mean), as.numeric(std))
}

#' @rdname nn_init
#' @export
nn_init_trunc_normal_ <- function(tensor, mean = 0, std = 1, a = -2, b = 2) {
  .init("nn_init_trunc_normal_", tensor, as.numeric(mean), as.numeric(std), as.numeric(a),
        as.numeric(b))
}

#' @rdname nn_init
#' @export
nn_init_constant_ <- function(tensor, val) .init("nn_init_constant_", tensor, .a(val))

#' @rdname nn_init
#' @export
nn_init_zeros_ <- function(tensor) .init("nn_init_zeros_", tensor)

#' @rdname nn_init
#' @export
nn_init_ones_ <- function(tensor) .init("nn_init_ones_", tensor)

#' @rdname nn_init
#' @export
nn_init_eye_ <- function(tensor) .init("nn_init_eye_", tensor)

#' @rdname nn_init
#' @export
nn_init_xavier_uniform_ <- function(tensor, gain = 1) {
  .init("nn_init_xavier_uniform_", tensor, as.numeric(gain))
}

#' @rdname nn_init
#' @export
nn_init_xavier_normal_ <- function(tensor, gain = 1) {
  .init("nn_init_xavier_normal_", tensor, as.numeric(gain))
}

#' @rdname nn_init
#' @export
nn_init_kaiming_uniform_ <- function(tensor, a = 0, mode = "fan_in",
                                     nonlinearity = "leaky_relu") {
  .init("nn_init_kaiming_uniform_", tensor, as.numeric(a), mode, nonlinearity)
}

#' @rdname nn_init
#' @export
nn_init_kaiming_normal_ <- function(tensor, a = 0, mode = "fan_in",
                                    nonlinearity = "leaky_relu") {
  .init("nn_init_kaiming_normal_", tensor, as.numeric(a), mode, nonlinearity)
}

#' @rdname nn_init
#' @export
nn_init_orthogonal_ <- function(tensor, gain = 1) {
  .init("nn_init_orthogonal_", tensor, as.numeric(gain))
}

#' @rdname nn_init
#' @export
nn_init_calculate_gain <- function(nonlinearity, param = NULL) {
  .fn("nn_init_calculate_gain", list(nonlinearity, if (!is.null(param)) as.numeric(param)))
}

.param_list <- function(parameters, fn) {
  if (is_torch_tensor(parameters)) return(list(.a(parameters)))
  if (!is.list(parameters) || !all(vapply(parameters, is_torch_tensor, TRUE))) {
    .nn_error(fn, "(): `parameters` must be a tensor or a list of tensors ",
              "(e.g. model$parameters)")
  }
  lapply(unname(parameters), .a)
}

#' Clip the gradients of parameters
#'
#' `nn_utils_clip_grad_norm_()` scales the gradients in place so that their total norm (all
#' gradients together) is at most `max_norm`; `nn_utils_clip_grad_value_()` clamps them in
#' place to `[-clip_value, clip_value]`. Parameters without a gradient are skipped.
#'
#' @param parameters A tensor or a list of tensors (e.g. `model$parameters`).
#' @param max_norm The largest total norm.
#' @param norm_type The norm's order (`Inf` for the largest absolute value).
#' @param error_if_nonfinite Whether a non-finite total norm is an error.
#' @param clip_value The largest absolute value.
#' @return `nn_utils_clip_grad_norm_()`: the total norm before clipping (a tensor).
#'   `nn_utils_clip_grad_value_()`: `NULL`, invisibly.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   lin <- nn_linear(2, 1)
#'   lin(torch_randn(4, 2))$sum()$backward()
#'   nn_utils_clip_grad_norm_(lin$parameters, max_norm = 0.1)
#' }
nn_utils_clip_grad_norm_ <- function(parameters, max_norm, norm_type = 2,
                                     error_if_nonfinite = FALSE) {
  .fn("nn_utils_clip_grad_norm_", list(.param_list(parameters, "nn_utils_clip_grad_norm_"),
                                       as.numeric(max_norm), as.numeric(norm_type),
                                       .flag(error_if_nonfinite)))
}

#' @rdname nn_utils_clip_grad_norm_
#' @export
nn_utils_clip_grad_value_ <- function(parameters, clip_value) {
  .fn("nn_utils_clip_grad_value_", list(.param_list(parameters, "nn_utils_clip_grad_value_"),
                                        as.numeric(clip_value)))
  invisible(NULL)
}
