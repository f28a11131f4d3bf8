# Pooling, image normalization and channel dropout layers as R nn_modules calling the nnf_*
# wrappers (R torch's arguments and defaults).

#' @include nn-base.R nn-layers.R
NULL

.pool_module <- function(name, fn) {
  nn_module(
    name,
    initialize = function(kernel_size, stride = NULL, padding = 0, dilation = 1,
                          return_indices = FALSE, ceil_mode = FALSE) {
      self$kernel_size <- kernel_size
      self$stride <- if (is.null(stride)) kernel_size else stride
      self$padding <- padding
      self$dilation <- dilation
      self$return_indices <- return_indices
      self$ceil_mode <- ceil_mode
    },
    forward = function(input) {
      fn(input, self$kernel_size, self$stride, self$padding, self$dilation, self$ceil_mode,
         self$return_indices)
    }
  )
}

.avg_pool_module <- function(name, fn, override = TRUE) {
  nn_module(
    name,
    initialize = function(kernel_size, stride = NULL, padding = 0, ceil_mode = FALSE,
                          count_include_pad = TRUE, divisor_override = NULL) {
      self$kernel_size <- kernel_size
      self$stride <- if (is.null(stride)) kernel_size else stride
      self$padding <- padding
      self$ceil_mode <- ceil_mode
      self$count_include_pad <- count_include_pad
      self$divisor_override <- divisor_override
    },
    forward = function(input) {
      if (override) {
        fn(input, self$kernel_size, self$stride, self$padding, self$ceil_mode,
           self$count_include_pad, self$divisor_override)
      } else {
        fn(input, self$kernel_size, self$stride, self$padding, self$ceil_mode,
           self$count_include_pad)
      }
    }
  )
}

.adaptive_module <- function(name, fn, indices) {
  nn_module(
    name,
    initialize = function(output_size, return_indices = FALSE) {
      self$output_size <- output_size
      self$return_indices <- return_indices
    },
    forward = function(input) {
      if (indices) fn(input, self$output_size, self$return_indices)
      else fn(input, self$output_size)
    }
  )
}

.unpool_module <- function(name, fn) {
  nn_module(
    name,
    initialize = function(kernel_size, stride = NULL, padding = 0) {
      self$kernel_size <- kernel_size
      self$stride <- if (is.null(stride)) kernel_size else stride
      self$padding <- padding
    },
    forward = function(input, indices, output_size = NULL) {
      fn(input, indices, self$kernel_size, self$stride, self$padding, output_size)
    }
  )
}

#' Pooling layers
#'
#' `nn_max_pool*()`: the maximum of each window (`return_indices = TRUE`: also its 1-based
#' flat index in the input plane, for `nn_max_unpool*()`); `nn_avg_pool*()`: the mean;
#' `nn_adaptive_avg_pool*()` / `nn_adaptive_max_pool*()`: pooled to `output_size` whatever the
#' input's size; `nn_max_unpool*()`: zeros with each value put back at its index.
#'
#' @param kernel_size,stride,padding,dilation A number or one per spatial dim (`stride`
#'   defaults to `kernel_size`).
#' @param return_indices Whether to return the indices of the maxima too.
#' @param ceil_mode Whether to keep a last, partial window.
#' @param count_include_pad Whether the padding counts in an average's divisor.
#' @param divisor_override Divide every window's sum by this instead.
#' @param output_size The output's spatial size (`NULL` in a dim: that dim's size).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   pool <- nn_max_pool1d(kernel_size = 2)
#'   pool(torch_randn(1, 2, 8))$shape
#' }
nn_max_pool1d <- .pool_module("nn_max_pool1d", function(...) nnf_max_pool1d(...))
#' @rdname nn_max_pool1d
#' @export
nn_max_pool2d <- .pool_module("nn_max_pool2d", function(...) nnf_max_pool2d(...))
#' @rdname nn_max_pool1d
#' @export
nn_max_pool3d <- .pool_module("nn_max_pool3d", function(...) nnf_max_pool3d(...))
#' @rdname nn_max_pool1d
#' @export
nn_avg_pool1d <- .avg_pool_module("nn_avg_pool1d", function(...) nnf_avg_pool1d(...), FALSE)
#' @rdname nn_max_pool1d
#' @export
nn_avg_pool2d <- .avg_pool_module("nn_avg_pool2d", function(...) nnf_avg_pool2d(...))
#' @rdname nn_max_pool1d
#' @export
nn_avg_pool3d <- .avg_pool_module("nn_avg_pool3d", function(...) nnf_avg_pool3d(...))
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_avg_pool1d <- .adaptive_module("nn_adaptive_avg_pool1d",
                                           function(...) nnf_adaptive_avg_pool1d(...), FALSE)
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_avg_pool2d <- .adaptive_module("nn_adaptive_avg_pool2d",
                                           function(...) nnf_adaptive_avg_pool2d(...), FALSE)
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_avg_pool3d <- .adaptive_module("nn_adaptive_avg_pool3d",
                                           function(...) nnf_adaptive_avg_pool3d(...), FALSE)
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_max_pool1d <- .adaptive_module("nn_adaptive_max_pool1d",
                                           function(...) nnf_adaptive_max_pool1d(...), TRUE)
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_max_pool2d <- .adaptive_module("nn_adaptive_max_pool2d",
                                           function(...) nnf_adaptive_max_pool2d(...), TRUE)
#' @rdname nn_max_pool1d
#' @export
nn_adaptive_max_pool3d <- .adaptive_module("nn_adaptive_max_pool3d",
                                           function(...) nnf_adaptive_max_pool3d(...), TRUE)
#' @rdname nn_max_pool1d
#' @export
nn_max_unpool1d <- .unpool_module("nn_max_unpool1d", function(...) nnf_max_unpool1d(...))
#' @rdname nn_max_pool1d
#' @export
nn_max_unpool2d <- .unpool_module("nn_max_unpool2d", function(...) nnf_max_unpool2d(...))
#' @rdname nn_max_pool1d
#' @export
nn_max_unpool3d <- .unpool_module("nn_max_unpool3d", function(...) nnf_max_unpool3d(...))

.batch_norm_nd <- function(name, dims) {
  nn_module(
    name,
    inherit = nn_batch_norm1d,
    forward = function(input) {
      nd <- input$dim()
      if (!nd %in% dims) {
        .nn_error("expected ", paste0(dims, "D", collapse = " or "), " input (got ", nd,
                  "D input)")
      }
      factor <- if (is.null(self$momentum)) 0 else self$momentum
      if (self$training && self$track_running_stats) {
        nbt <- self$num_batches_tracked
        nbt$add_(1L)
        if (is.null(self$momentum)) factor <- 1 / nbt$item()
      }
      use_batch <- self$training || is.null(self$running_mean)
      stats <- !self$training || self$track_running_stats
      nnf_batch_norm(input, if (stats) self$running_mean, if (stats) self$running_var,
                     self$weight, self$bias, use_batch, factor, self$eps)
    }
  )
}

#' Normalization layers for images
#'
#' `nn_batch_norm2d()` / `nn_batch_norm3d()`: as [nn_batch_norm1d()] for 4-d and 5-d inputs.
#' `nn_group_norm()`: normalizes each group of channels of each sample. `nn_instance_norm*()`:
#' each channel of each sample over its spatial dims (no affine parameters and no running
#' statistics by default).
#'
#' @param num_features,num_channels Number of channels.
#' @param num_groups Number of groups the channels are split into.
#' @param eps Added to the variance.
#' @param momentum Weight of the batch in the running statistics.
#' @param affine Whether to learn a per-channel `weight` and `bias`.
#' @param track_running_stats Whether to keep running statistics.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   bn <- nn_batch_norm2d(2)
#'   bn(torch_randn(1, 2, 3, 3))$shape
#' }
nn_batch_norm2d <- .batch_norm_nd("nn_batch_norm2d", 4L)

#' @rdname nn_batch_norm2d
#' @export
nn_batch_norm3d <- .batch_norm_nd("nn_batch_norm3d", 5L)

#' @rdname nn_batch_norm2d
#' @export
nn_group_norm <- nn_module(
  "nn_group_norm",
  initialize = function(num_groups, num_channels, eps = 1e-5, affine = TRUE) {
    if (num_channels %% num_groups != 0) {
      .nn_error("num_channels must be divisible by num_groups")
    }
    self$num_groups <- num_groups
    self$num_channels <- num_channels
    self$eps <- eps
    self$affine <- affine
    if (affine) {
      self$weight <- nn_parameter(torch_ones(num_channels))
      self$bias <- nn_parameter(torch_zeros(num_channels))
    } else {
      self$weight <- NULL
      self$bias <- NULL
    }
  },
  forward = function(input) {
    nnf_group_norm(input, self$num_groups, self$weight, self$bias, self$eps)
  }
)

.instance_norm_nd <- function(name, nd) {
  nn_module(
    name,
    inherit = nn_batch_norm1d,
    initialize = function(num_features, eps = 1e-5, momentum = 0.1, affine = FALSE,
                          track_running_stats = FALSE) {
      super$initialize(num_features, eps, momentum, affine, track_running_stats)
    },
    forward = function(input) {
      d <- input$dim()
      if (d != nd + 1 && d != nd + 2) {
        .nn_error("expected ", nd + 1, "D or ", nd + 2, "D input (got ", d, "D input)")
      }
      unbatched <- d == nd + 1
      if (unbatched) input <- input$unsqueeze(1)
      use_stats <- self$training || !self$track_running_stats
      out <- nnf_instance_norm(input, self$running_mean, self$running_var, self$weight,
                               self$bias, use_stats,
                               if (is.null(self$momentum)) 0.1 else self$momentum, self$eps)
      if (unbatched) out$squeeze(1) else out
    }
  )
}

#' @rdname nn_batch_norm2d
#' @export
nn_instance_norm1d <- .instance_norm_nd("nn_instance_norm1d", 1L)

#' @rdname nn_batch_norm2d
#' @export
nn_instance_norm2d <- .instance_norm_nd("nn_instance_norm2d", 2L)

#' @rdname nn_batch_norm2d
#' @export
nn_instance_norm3d <- .instance_norm_nd("nn_instance_norm3d", 3L)

#' Channel dropout
#'
#' During training, zero whole channels with probability `p` and scale the others by
#' `1 / (1 - p)`; the identity after `$eval()`.
#'
#' @param p Probability of a channel being zeroed.
#' @param inplace Whether to modify the input.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(1)
#'   nn_dropout2d(p = 0.5)(torch_ones(1, 4, 2, 2))$shape
#' }
nn_dropout2d <- nn_module(
  "nn_dropout2d",
  inherit = nn_dropout,
  forward = function(input) nnf_dropout2d(input, self$p, self$training, self$inplace)
)

#' @rdname nn_dropout2d
#' @export
nn_dropout3d <- nn_module(
  "nn_dropout3d",
  inherit = nn_dropout,
  forward = function(input) nnf_dropout3d(input, self$p, self$training, self$inplace)
)

#' Upsampling layer
#'
#' Resizes its input by `size` or `scale_factor` with [nnf_interpolate()].
#'
#' @param size Output spatial size (a number or one per spatial dim).
#' @param scale_factor Multiplier of the spatial size.
#' @param mode `"nearest"`, `"linear"`, `"bilinear"`, `"bicubic"` or `"trilinear"`.
#' @param align_corners Whether the corner pixels' centres map onto each other
#'   (interpolating modes only).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   up <- nn_upsample(scale_factor = 2, mode = "nearest")
#'   up(torch_randn(1, 1, 2, 2))$shape
#' }
nn_upsample <- nn_module(
  "nn_upsample",
  initialize = function(size = NULL, scale_factor = NULL, mode = "nearest",
                        align_corners = NULL) {
    self$size <- size
    self$scale_factor <- scale_factor
    self$mode <- mode
    self$align_corners <- align_corners
  },
  forward = function(input) {
    nnf_interpolate(input, self$size, self$scale_factor, self$mode, self$align_corners)
  }
)

#' More image layers
#'
#' Modules over [nnf_lp_pool1d()], [nnf_lp_pool2d()], [nnf_local_response_norm()],
#' [nnf_pixel_shuffle()], [nnf_pixel_unshuffle()], [nnf_unfold()], [nnf_fold()] and
#' [nnf_alpha_dropout()], with R torch's arguments.
#'
#' @param norm_type The power of the power average.
#' @param kernel_size,stride,dilation,padding As in the functions.
#' @param ceil_mode Whether to keep a last, partial window.
#' @param size,alpha,beta,k Local response normalization's window and constants.
#' @param upscale_factor,downscale_factor The pixel shuffle's factor.
#' @param output_size The folded image's spatial size.
#' @param p,inplace Alpha dropout's probability and whether to modify the input.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   pool <- nn_lp_pool1d(norm_type = 2, kernel_size = 2)
#'   pool(torch_randn(1, 2, 8))$shape
#' }
nn_lp_pool1d <- nn_module(
  "nn_lp_pool1d",
  initialize = function(norm_type, kernel_size, stride = NULL, ceil_mode = FALSE) {
    self$norm_type <- norm_type
    self$kernel_size <- kernel_size
    self$stride <- stride
    self$ceil_mode <- ceil_mode
  },
  forward = function(input) {
    nnf_lp_pool1d(input, self$norm_type, self$kernel_size, self$stride, self$ceil_mode)
  }
)

#' @rdname nn_lp_pool1d
#' @export
nn_lp_pool2d <- nn_module(
  "nn_lp_pool2d",
  inherit = nn_lp_pool1d,
  forward = function(input) {
    nnf_lp_pool2d(input, self$norm_type, self$kernel_size, self$stride, self$ceil_mode)
  }
)

#' @rdname nn_lp_pool1d
#' @export
nn_local_response_norm <- nn_module(
  "nn_local_response_norm",
  initialize = function(size, alpha = 1e-4, beta = 0.75, k = 1) {
    self$size <- size
    self$alpha <- alpha
    self$beta <- beta
    self$k <- k
  },
  forward = function(input) {
    nnf_local_response_norm(input, self$size, self$alpha, self$beta, self$k)
  }
)

#' @rdname nn_lp_pool1d
#' @export
nn_pixel_shuffle <- nn_module(
  "nn_pixel_shuffle",
  initialize = function(upscale_factor) self$upscale_factor <- upscale_factor,
  forward = function(input) nnf_pixel_shuffle(input, self$upscale_factor)
)

#' @rdname nn_lp_pool1d
#' @export
nn_pixel_unshuffle <- nn_module(
  "nn_pixel_unshuffle",
  initialize = function(downscale_factor) self$downscale_factor <- downscale_factor,
  forward = function(input) nnf_pixel_unshuffle(input, self$downscale_factor)
)

#' @rdname nn_lp_pool1d
#' @export
nn_unfold <- nn_module(
  "nn_unfold",
  initialize = function(kernel_size, dilation = 1, padding = 0, stride = 1) {
    self$kernel_size <- kernel_size
    self$dilation <- dilation
    self$padding <- padding
    self$stride <- stride
  },
  forward = function(input) {
    nnf_unfold(input, self$kernel_size, self$dilation, self$padding, self$stride)
  }
)

#' @rdname nn_lp_pool1d
#' @export
nn_fold <- nn_module(
  "nn_fold",
  initialize = function(output_size, kernel_size, dilation = 1, padding = 0, stride = 1) {
    self$output_size <- output_size
    self$kernel_size <- kernel_size
    self$dilation <- dilation
    self$padding <- padding
    self$stride <- stride
  },
  forward = function(input) {
    nnf_fold(input, self$output_size, self$kernel_size, self$dilation, self$padding,
             self$stride)
  }
)

#' @rdname nn_lp_pool1d
#' @export
nn_alpha_dropout <- nn_module(
  "nn_alpha_dropout",
  inherit = nn_dropout,
  forward = function(input) nnf_alpha_dropout(input, self$p, self$training, self$inplace)
)

.fractional_module <- function(name, fn) {
  nn_module(
    name,
    initialize = function(kernel_size, output_size = NULL, output_ratio = NULL,
                          return_indices = FALSE) {
      if (is.null(output_size) && is.null(output_ratio)) {
        .nn_value_error(name, " requires specifying either an output size, or a pooling ratio")
      }
      if (!is.null(output_size) && !is.null(output_ratio)) {
        .nn_value_error("only one of output_size and output_ratio may be specified")
      }
      if (!is.null(output_ratio) && any(output_ratio <= 0 | output_ratio >= 1)) {
        .nn_value_error("output_ratio must be between 0 and 1 (got ",
                        paste(output_ratio, collapse = ", "), ")")
      }
      self$kernel_size <- kernel_size
      self$output_size <- output_size
      self$output_ratio <- output_ratio
      self$return_indices <- return_indices
    },
    forward = function(input) {
      fn(input, self$kernel_size, self$output_size, self$output_ratio, self$return_indices)
    }
  )
}

#' Fractional max pooling layers
#'
#' Max pooling over windows of `kernel_size` whose starts advance by pseudo-random steps, so
#' that the output has `output_size` (or `output_ratio` times the input's size). The windows
#' are drawn afresh at each call from the global generator ([torch_manual_seed()] fixes
#' them), as [nnf_fractional_max_pool2d()] does without `random_samples`.
#'
#' @param kernel_size The window's size: a number or one per spatial dim.
#' @param output_size The output's spatial size.
#' @param output_ratio The output's size as a fraction (in (0, 1)) of the input's.
#' @param return_indices Whether to return the 1-based flat index of each maximum in its plane
#'   too (for [nn_max_unpool2d()]).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(1)
#'   pool <- nn_fractional_max_pool2d(2, output_size = c(4, 4))
#'   pool(torch_randn(1, 1, 8, 8))$shape
#' }
nn_fractional_max_pool2d <- .fractional_module("nn_fractional_max_pool2d",
                                               function(...) nnf_fractional_max_pool2d(...))

#' @rdname nn_fractional_max_pool2d
#' @export
nn_fractional_max_pool3d <- .fractional_module("nn_fractional_max_pool3d",
                                               function(...) nnf_fractional_max_pool3d(...))
