# More activation modules in R (R torch's names and defaults), on the generated nnf_*.

#' @include nn-base.R
NULL

#' More activation layers
#'
#' `nn_celu()`, `nn_softmin()`, `nn_glu()`, `nn_hardswish()`, `nn_prelu()` (learnt slopes,
#' one or one per channel), `nn_rrelu()` (training mode: random slopes drawn as libtorch draws them; evaluation mode: slope `(lower + upper) / 2`),
#' `nn_softsign()`, `nn_tanhshrink()`, `nn_threshold()` and `nn_log_sigmoid()`, each applying
#' the `nnf_*` function of the same name. Dims are 1-based.
#'
#' @param alpha The CELU's scale.
#' @param inplace Whether to modify the input.
#' @param dim The dim to apply along (1-based; negative from the end).
#' @param num_parameters,init How many slopes `nn_prelu()` learns, and their start.
#' @param lower,upper The range of `nn_rrelu()`'s slopes.
#' @param threshold,value `nn_threshold()`: values at or below `threshold` become `value`.
#' @return A module.
#' @name nn_activations_more
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_tensor(c(-1, 0, 2))
#'   nn_celu()(x)
#'   nn_hardswish()(x)
#' }
NULL

#' @rdname nn_activations_more
#' @export
nn_celu <- nn_module(
  "nn_celu",
  initialize = function(alpha = 1, inplace = FALSE) {
    self$alpha <- alpha
    self$inplace <- inplace
  },
  forward = function(input) nnf_celu(input, self$alpha, self$inplace)
)

#' @rdname nn_activations_more
#' @export
nn_softmin <- nn_module(
  "nn_softmin",
  initialize = function(dim) self$dim <- dim,
  forward = function(input) nnf_softmin(input, self$dim)
)

#' @rdname nn_activations_more
#' @export
nn_glu <- nn_module(
  "nn_glu",
  initialize = function(dim = -1) self$dim <- dim,
  forward = function(input) nnf_glu(input, self$dim)
)

#' @rdname nn_activations_more
#' @export
nn_hardswish <- nn_module(
  "nn_hardswish",
  initialize = function(inplace = FALSE) self$inplace <- inplace,
  forward = function(input) nnf_hardswish(input, self$inplace)
)

#' @rdname nn_activations_more
#' @export
nn_prelu <- nn_module(
  "nn_prelu",
  initialize = function(num_parameters = 1, init = 0.25) {
    self$num_parameters <- num_parameters
    self$weight <- nn_parameter(torch_empty(num_parameters)$fill_(init))
  },
  forward = function(input) nnf_prelu(input, self$weight)
)

#' @rdname nn_activations_more
#' @export
nn_rrelu <- nn_module(
  "nn_rrelu",
  initialize = function(lower = 1 / 8, upper = 1 / 3, inplace = FALSE) {
    self$lower <- lower
    self$upper <- upper
    self$inplace <- inplace
  },
  forward = function(input) nnf_rrelu(input, self$lower, self$upper, self$training, self$inplace)
)

#' @rdname nn_activations_more
#' @export
nn_softsign <- nn_module(
  "nn_softsign",
  initialize = function() {},
  forward = function(input) nnf_softsign(input)
)

#' @rdname nn_activations_more
#' @export
nn_tanhshrink <- nn_module(
  "nn_tanhshrink",
  initialize = function() {},
  forward = function(input) nnf_tanhshrink(input)
)

#' @rdname nn_activations_more
#' @export
nn_threshold <- nn_module(
  "nn_threshold",
  initialize = function(threshold, value, inplace = FALSE) {
    self$threshold <- threshold
    self$value <- value
    self$inplace <- inplace
  },
  forward = function(input) nnf_threshold(input, self$threshold, self$value, self$inplace)
)

#' @rdname nn_activations_more
#' @export
nn_log_sigmoid <- nn_module(
  "nn_log_sigmoid",
  initialize = function() {},
  forward = function(input) nnf_logsigmoid(input)
)
