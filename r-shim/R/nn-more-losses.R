# More loss modules in R (R torch's names and defaults), on the generated nnf_* losses.

#' @include nn-base.R
NULL

#' More losses
#'
#' `nn_kl_div_loss()`, `nn_hinge_embedding_loss()`, `nn_soft_margin_loss()`,
#' `nn_multilabel_soft_margin_loss()`, `nn_cosine_embedding_loss()`,
#' `nn_margin_ranking_loss()`, `nn_triplet_margin_loss()` and `nn_multi_margin_loss()`, each
#' applying the `nnf_*` loss of the same name. Class targets are 1-based.
#'
#' @param reduction `"mean"`, `"sum"` or `"none"` (`nn_kl_div_loss()`: also `"batchmean"`).
#' @param log_target Whether the KL target is given as log-probabilities.
#' @param margin The margin.
#' @param weight Class weights, or `NULL`.
#' @param p The norm's degree (triplet) or the hinge's power, 1 or 2 (multi margin).
#' @param eps Added to differences before the norm (triplet).
#' @param swap Whether to use the distance from positive to negative when smaller.
#' @return A module.
#' @name nn_losses_more
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   loss <- nn_soft_margin_loss()
#'   loss(torch_randn(3), torch_tensor(c(1, -1, 1)))
#' }
NULL

#' @rdname nn_losses_more
#' @export
nn_kl_div_loss <- nn_module(
  "nn_kl_div_loss",
  initialize = function(reduction = "mean", log_target = FALSE) {
    self$reduction <- reduction
    self$log_target <- log_target
  },
  forward = function(input, target) {
    nnf_kl_div(input, target, reduction = self$reduction, log_target = self$log_target)
  }
)

#' @rdname nn_losses_more
#' @export
nn_hinge_embedding_loss <- nn_module(
  "nn_hinge_embedding_loss",
  initialize = function(margin = 1, reduction = "mean") {
    self$margin <- margin
    self$reduction <- reduction
  },
  forward = function(input, target) {
    nnf_hinge_embedding_loss(input, target, self$margin, self$reduction)
  }
)

#' @rdname nn_losses_more
#' @export
nn_soft_margin_loss <- nn_module(
  "nn_soft_margin_loss",
  initialize = function(reduction = "mean") self$reduction <- reduction,
  forward = function(input, target) nnf_soft_margin_loss(input, target, self$reduction)
)

#' @rdname nn_losses_more
#' @export
nn_multilabel_soft_margin_loss <- nn_module(
  "nn_multilabel_soft_margin_loss",
  initialize = function(weight = NULL, reduction = "mean") {
    self$weight <- weight
    self$reduction <- reduction
  },
  forward = function(input, target) {
    nnf_multilabel_soft_margin_loss(input, target, self$weight, self$reduction)
  }
)

#' @rdname nn_losses_more
#' @export
nn_cosine_embedding_loss <- nn_module(
  "nn_cosine_embedding_loss",
  initialize = function(margin = 0, reduction = "mean") {
    self$margin <- margin
    self$reduction <- reduction
  },
  forward = function(input1, input2, target) {
    nnf_cosine_embedding_loss(input1, input2, target, self$margin, self$reduction)
  }
)

#' @rdname nn_losses_more
#' @export
nn_margin_ranking_loss <- nn_module(
  "nn_margin_ranking_loss",
  initialize = function(margin = 0, reduction = "mean") {
    self$margin <- margin
    self$reduction <- reduction
  },
  forward = function(input1, input2, target) {
    nnf_margin_ranking_loss(input1, input2, target, self$margin, self$reduction)
  }
)

#' @rdname nn_losses_more
#' @export
nn_triplet_margin_loss <- nn_module(
  "nn_triplet_margin_loss",
  initialize = function(margin = 1, p = 2, eps = 1e-6, swap = FALSE, reduction = "mean") {
    self$margin <- margin
    self$p <- p
    self$eps <- eps
    self$swap <- swap
    self$reduction <- reduction
  },
  forward = function(anchor, positive, negative) {
    nnf_triplet_margin_loss(anchor, positive, negative, self$margin, self$p, self$eps,
                            self$swap, self$reduction)
  }
)

#' @rdname nn_losses_more
#' @export
nn_multi_margin_loss <- nn_module(
  "nn_multi_margin_loss",
  initialize = function(p = 1, margin = 1, weight = NULL, reduction = "mean") {
    self$p <- p
    self$margin <- margin
    self$weight <- weight
    self$reduction <- reduction
  },
  forward = function(input, target) {
    nnf_multi_margin_loss(input, target, self$p, self$margin, self$weight, self$reduction)
  }
)
