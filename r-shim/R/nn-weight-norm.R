# Weight normalisation as R torch has it: an R6 class whose apply() splits a module's
# parameter into a magnitude (<name>_g) and a direction (<name>_v), and whose recompute() (called
# by the user inside forward(), as in R torch) sets the weight g * v / ||v|| again. Pure R on
# recorded ops, but for the weight itself: rtorchpy/_r/nn_utils.py computes it as libtorch does
# (one WeightNormInterfaceBackward0 node for dim 1 or the last).

#' @include nn-base.R
NULL

# the 2-norm of v over every dim but `dim` (1-based), kept with size 1; -1: the whole tensor
.wn_norm <- function(v, dim) {
  if (identical(as.numeric(dim), -1)) return(v$norm())
  nd <- v$dim()
  d <- if (dim < 0) nd + dim + 1 else dim
  if (d < 1 || d > nd) {
    stop(.condition(sprintf("Dimension out of range (expected to be in range of [%d, %d], but got %s)",
                            -nd, nd, format(dim)), "index_error"))
  }
  others <- setdiff(seq_len(nd), d)
  if (!length(others)) return(v$abs())
  (v * v)$sum(dim = others, keepdim = TRUE)$sqrt()
}

#' Weight normalisation
#'
#' `nn_utils_weight_norm$new(name, dim)` makes R torch's weight-norm helper: `$apply(module)`
#' replaces the parameter `name` by `<name>_g` (its norm over every dim but `dim`, 1-based;
#' `NULL`: over the whole tensor) and `<name>_v` (its direction), and sets
#' `module[[name]] <- g * v / ||v||`; `$recompute(module)` (or `$call(module)`) sets the weight
#' again from the current parameters (call it at the start of `forward()`, as in R torch);
#' `$remove(module)` turns the weight back into a plain parameter; `$compute_weight(module)`
#' returns the weight.
#'
#' @format An R6 class generator.
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   lin <- nn_linear(3, 2)
#'   wn <- nn_utils_weight_norm$new(name = "weight", dim = 1)
#'   wn$apply(lin)
#'   names(lin$parameters)
#'   wn$recompute(lin)
#'   lin(torch_ones(1, 3))
#' }
#' @name nn_utils_weight_norm
#' @export nn_utils_weight_norm
NULL

nn_utils_weight_norm <- R6::R6Class(
  "WeightNorm",
  lock_objects = FALSE,
  public = list(
    name = NULL,
    dim = NULL,
    initialize = function(name, dim) {
      if (is.null(dim)) dim <- -1
      if (!is.character(name) || length(name) != 1L) {
        .value_error("nn_utils_weight_norm: `name` must be one string")
      }
      if (!is.numeric(dim) || length(dim) != 1L || is.na(dim) || dim != round(dim) || dim == 0) {
        .value_error("nn_utils_weight_norm: `dim` must be a 1-based dimension, -1 or NULL")
      }
      self$name <- name
      self$dim <- dim
    },
    compute_weight = function(module, name = NULL, dim = NULL) {
      name <- name %||% self$name
      dim <- dim %||% self$dim %||% -1
      g <- module[[paste0(name, "_g")]]
      v <- module[[paste0(name, "_v")]]
      .bridge("weight_norm", v, g, as.integer(dim))
    },
    apply = function(module, name = NULL, dim = NULL) {
      name <- name %||% self$name
      dim <- dim %||% self$dim
      weight <- module[[name]]
      if (!is_torch_tensor(weight)) {
        .value_error(sprintf("nn_utils_weight_norm: the module has no parameter '%s'", name))
      }
      w <- weight$detach()
      g <- .wn_norm(w, dim)$clone()
      module$register_parameter(name, NULL)
      module$register_parameter(paste0(name, "_g"), nn_parameter(g))
      module$register_parameter(paste0(name, "_v"), nn_parameter(w$clone()))
      module[[name]] <- self$compute_weight(module, name, dim)
      invisible(module)
    },
    call = function(module) {
      module[[self$name]] <- self$compute_weight(module)
      invisible(module)
    },
    recompute = function(module) {
      self$call(module)
    },
    remove = function(module, name = NULL) {
      name <- name %||% self$name
      weight <- self$compute_weight(module, name)$detach()
      module$register_parameter(paste0(name, "_g"), NULL)
      module$register_parameter(paste0(name, "_v"), NULL)
      module[[name]] <- nn_parameter(weight)
      invisible(module)
    }
  )
)
