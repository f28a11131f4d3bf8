# Loss modules (R torch's arguments and defaults), calling the nnf_* wrappers.

#' @include nn-base.R
NULL

.check_reduction <- function(reduction) {
  if (!is.character(reduction) || length(reduction) != 1L ||
      !reduction %in% c("mean", "sum", "none")) {
    .nn_error("`reduction` must be one of \"mean\", \"sum\" or \"none\", got ",
              paste(format(reduction), collapse = " "))
  }
  reduction
}

#' Loss modules
#'
#' Modules computing `nnf_mse_loss()`, `nnf_l1_loss()`, `nnf_smooth_l1_loss()`,
#' `nnf_huber_loss()`, `nnf_cross_entropy()`, `nnf_nll_loss()`, `nnf_binary_cross_entropy()`
#' and `nnf_binary_cross_entropy_with_logits()`, called as `loss(input, target)`. Class
#' targets are 1-based, as in R torch.
#'
#' @param reduction `"mean"`, `"sum"` or `"none"`.
#' @param beta,delta The smooth L1 loss' and Huber loss' thresholds.
#' @param weight A manual rescaling weight (per class, or per element for the BCE losses),
#'   kept as a buffer.
#' @param ignore_index A target value that does not contribute.
#' @param pos_weight A weight of positive examples (per class).
#' @return A module.
#' @name nn_losses
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   loss <- nn_mse_loss()
#'   loss(torch_tensor(c(1, 2)), torch_tensor(c(1, 3)))
#'   nn_cross_entropy_loss()(torch_randn(3, 4), torch_tensor(c(1L, 4L, 2L)))
#' }
NULL

#' @rdname nn_losses
#' @export
nn_mse_loss <- nn_module(
  "nn_mse_loss",
  initialize = function(reduction = "mean") self$reduction <- .check_reduction(reduction),
  forward = function(input, target) nnf_mse_loss(input, target, reduction = self$reduction)
)

#' @rdname nn_losses
#' @export
nn_l1_loss <- nn_module(
  "nn_l1_loss",
  initialize = function(reduction = "mean") self$reduction <- .check_reduction(reduction),
  forward = function(input, target) nnf_l1_loss(input, target, reduction = self$reduction)
)

#' @rdname nn_losses
#' @export
nn_smooth_l1_loss <- nn_module(
  "nn_smooth_l1_loss",
  initialize = function(reduction = "mean", beta = 1) {
    self$reduction <- .check_reduction(reduction)
    self$beta <- beta
  },
  forward = function(input, target) {
    nnf_smooth_l1_loss(input, target, reduction = self$reduction, beta = self$beta)
  }
)

#' @rdname nn_losses
#' @export
nn_huber_loss <- nn_module(
  "nn_huber_loss",
  initialize = function(reduction = "mean", delta = 1) {
    self$reduction <- .check_reduction(reduction)
    self$delta <- delta
  },
  forward = function(input, target) {
    nnf_huber_loss(input, target, reduction = self$reduction, delta = self$delta)
  }
)

.weighted_loss_init <- function(self, weight, reduction) {
  self$reduction <- .check_reduction(reduction)
  if (!is.null(weight)) {
    if (!is_torch_tensor(weight)) weight <- torch_tensor(weight)
    self$weight <- nn_buffer(weight)
  } else {
    self$weight <- NULL
  }
}

#' @rdname nn_losses
#' @export
nn_cross_entropy_loss <- nn_module(
  "nn_cross_entropy_loss",
  initialize = function(weight = NULL, ignore_index = -100, reduction = "mean") {
    .weighted_loss_init(self, weight, reduction)
    self$ignore_index <- ignore_index
  },
  forward = function(input, target) {
    nnf_cross_entropy(input, target, weight = self$weight, ignore_index = self$ignore_index,
                      reduction = self$reduction)
  }
)

#' @rdname nn_losses
#' @export
nn_nll_loss <- nn_module(
  "nn_nll_loss",
  initialize = function(weight = NULL, ignore_index = -100, reduction = "mean") {
    .weighted_loss_init(self, weight, reduction)
    self$ignore_index <- ignore_index
  },
  forward = function(input, target) {
    nnf_nll_loss(input, target, weight = self$weight, ignore_index = self$ignore_index,
                 reduction = self$reduction)
  }
)

#' @rdname nn_losses
#' @export
nn_bce_loss <- nn_module(
  "nn_bce_loss",
  initialize = function(weight = NULL, reduction = "mean") {
    .weighted_loss_init(self, weight, reduction)
  },
  forward = function(input, target) {
    nnf_binary_cross_entropy(input, target, weight = self$weight, reduction = self$reduction)
  }
)

#' @rdname nn_losses
#' @export
nn_bce_with_logits_loss <- nn_module(
  "nn_bce_with_logits_loss",
  initialize = function(weight = NULL, reduction = "mean", pos_weight = NULL) {
    .weighted_loss_init(self, weight, reduction)
    if (!is.null(pos_weight)) {
      if (!is_torch_tensor(pos_weight)) pos_weight <- torch_tensor(pos_weight)
      self$pos_weight <- nn_buffer(pos_weight)
    } else {
      self$pos_weight <- NULL
    }
  },
  forward = function(input, target) {
    nnf_binary_cross_entropy_with_logits(input, target, weight = self$weight,
                                         reduction = self$reduction,
                                         pos_weight = self$pos_weight)
  }
)
