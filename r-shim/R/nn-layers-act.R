# Activation modules (R torch's arguments and defaults), calling the nnf_* wrappers.

#' @include nn-base.R
NULL

#' Activation modules
#'
#' Modules applying `nnf_relu()`, `nnf_relu6()`, `nnf_leaky_relu()`, `nnf_elu()`,
#' `nnf_gelu()`, `nnf_silu()`, `nnf_sigmoid()`, `nnf_tanh()`, `nnf_softmax()`,
#' `nnf_log_softmax()` and `nnf_softplus()` with the arguments given at construction.
#'
#' @param inplace Whether to change the input in place.
#' @param negative_slope Slope for negative inputs.
#' @param alpha The ELU's alpha.
#' @param approximate `"none"` or `"tanh"`.
#' @param dim The dim (1-based) the softmax is taken along.
#' @param beta,threshold The softplus' beta, and the input above which it is linear.
#' @return A module.
#' @name nn_activations
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(-1, 0, 2))
#'   nn_relu()(x)
#'   nn_leaky_relu(0.1)(x)
#'   nn_softmax(dim = 1)(x)
#' }
NULL

#' @rdname nn_activations
#' @export
nn_relu <- nn_module(
  "nn_relu",
  initialize = function(inplace = FALSE) self$inplace <- inplace,
  forward = function(input) nnf_relu(input, self$inplace)
)

#' @rdname nn_activations
#' @export
nn_relu6 <- nn_module(
  "nn_relu6",
  initialize = function(inplace = FALSE) self$inplace <- inplace,
  forward = function(input) nnf_relu6(input, self$inplace)
)

#' @rdname nn_activations
#' @export
nn_leaky_relu <- nn_module(
  "nn_leaky_relu",
  initialize = function(negative_slope = 0.01, inplace = FALSE) {
    self$negative_slope <- negative_slope
    self$inplace <- inplace
  },
  forward = function(input) nnf_leaky_relu(input, self$negative_slope, self$inplace)
)

#' @rdname nn_activations
#' @export
nn_elu <- nn_module(
  "nn_elu",
  initialize = function(alpha = 1, inplace = FALSE) {
    self$alpha <- alpha
    self$inplace <- inplace
  },
  forward = function(input) nnf_elu(input, self$alpha, self$inplace)
)

#' @rdname nn_activations
#' @export
nn_gelu <- nn_module(
  "nn_gelu",
  initialize = function(approximate = "none") self$approximate <- approximate,
  forward = function(input) nnf_gelu(input, self$approximate)
)

#' @rdname nn_activations
#' @export
nn_silu <- nn_module(
  "nn_silu",
  initialize = function(inplace = FALSE) self$inplace <- inplace,
  forward = function(input) nnf_silu(input, self$inplace)
)

#' @rdname nn_activations
#' @export
nn_sigmoid <- nn_module(
  "nn_sigmoid",
  initialize = function() {},
  forward = function(input) nnf_sigmoid(input)
)

#' @rdname nn_activations
#' @export
nn_tanh <- nn_module(
  "nn_tanh",
  initialize = function() {},
  forward = function(input) nnf_tanh(input)
)

#' @rdname nn_activations
#' @export
nn_softmax <- nn_module(
  "nn_softmax",
  initialize = function(dim) self$dim <- dim,
  forward = function(input) nnf_softmax(input, self$dim)
)

#' @rdname nn_activations
#' @export
nn_log_softmax <- nn_module(
  "nn_log_softmax",
  initialize = function(dim) self$dim <- dim,
  forward = function(input) nnf_log_softmax(input, self$dim)
)

#' @rdname nn_activations
#' @export
nn_softplus <- nn_module(
  "nn_softplus",
  initialize = function(beta = 1, threshold = 20) {
    self$beta <- beta
    self$threshold <- threshold
  },
  forward = function(input) nnf_softplus(input, self$beta, self$threshold)
)
