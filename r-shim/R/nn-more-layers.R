# Modules for mish, sparsemax, the multilabel margin loss and the CTC loss (R torch's names
# and defaults), on the generated nnf_* functions.

#' @include nn-base.R
NULL

#' Mish, sparsemax, multilabel margin and CTC layers
#'
#' `nn_mish()` applies `nnf_mish()` (`x * tanh(softplus(x))`), `nn_contrib_sparsemax()`
#' applies `nnf_contrib_sparsemax()` along `dim`, `nn_multilabel_margin_loss()` applies
#' `nnf_multilabel_margin_loss()` (targets: 1-based class indices, ended by the first -1; a 0
#' is an error, as in R torch) and `nn_ctc_loss()` applies `nnf_ctc_loss()` (its `forward()` takes `log_probs`,
#' `targets`, `input_lengths` and `target_lengths`; `blank` and the targets are class numbers
#' as stored, 0 being the first class, as in R torch).
#'
#' @param inplace Whether to modify the input.
#' @param dim The dim to apply along (1-based; negative from the end).
#' @param blank The blank class (0: the first class).
#' @param reduction `"mean"`, `"sum"` or `"none"`.
#' @param zero_infinity Whether infinite losses (and their gradients) become zero.
#' @return A module.
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   nn_mish()(torch_tensor(c(-1, 0, 1)))
#'   nn_contrib_sparsemax(dim = 1)(torch_tensor(c(1, 2, 0.5)))
#'   loss <- nn_multilabel_margin_loss()
#'   loss(torch_tensor(rbind(c(0.1, 0.2, 0.4, 0.8))),
#'        torch_tensor(rbind(c(4L, 1L, -1L, -1L)), dtype = torch_long()))
#' }
#' @name nn_layers_mish_ctc
NULL

#' @rdname nn_layers_mish_ctc
#' @export
nn_mish <- nn_module(
  "nn_mish",
  initialize = function(inplace = FALSE) self$inplace <- inplace,
  forward = function(input) nnf_mish(input, self$inplace)
)

#' @rdname nn_layers_mish_ctc
#' @export
nn_contrib_sparsemax <- nn_module(
  "nn_contrib_sparsemax",
  initialize = function(dim = -1) self$dim <- dim,
  forward = function(input) nnf_contrib_sparsemax(input, self$dim)
)

#' @rdname nn_layers_mish_ctc
#' @export
nn_multilabel_margin_loss <- nn_module(
  "nn_multilabel_margin_loss",
  initialize = function(reduction = "mean") self$reduction <- reduction,
  forward = function(input, target) {
    nnf_multilabel_margin_loss(input, target, reduction = self$reduction)
  }
)

#' @rdname nn_layers_mish_ctc
#' @export
nn_ctc_loss <- nn_module(
  "nn_ctc_loss",
  initialize = function(blank = 0, reduction = "mean", zero_infinity = FALSE) {
    self$blank <- blank
    self$reduction <- reduction
    self$zero_infinity <- zero_infinity
  },
  forward = function(log_probs, targets, input_lengths, target_lengths) {
    nnf_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank = self$blank,
                 reduction = self$reduction, zero_infinity = self$zero_infinity)
  }
)
