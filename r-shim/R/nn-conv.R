# Convolution layers as R nn_modules calling the nnf_conv* wrappers (R torch's arguments and
# defaults; the computation is rtorchpy's, see rtorchpy/ops/conv.py).

#' @include nn-base.R
NULL

.conv_tuple <- function(x, n) {
  if (is.character(x)) return(x)
  x <- as.integer(unlist(x))
  if (length(x) == 1L) rep(x, n) else x
}

.conv_pads <- function(self) {
  # nnf_pad's amounts (before, after), last dim first, for a padding_mode other than "zeros"
  pads <- integer(0)
  for (i in rev(seq_len(self$.nd))) {
    if (identical(self$padding, "same")) {
      total <- self$dilation[[i]] * (self$kernel_size[[i]] - 1L)
      pads <- c(pads, total %/% 2L, total - total %/% 2L)
    } else if (identical(self$padding, "valid")) {
      pads <- c(pads, 0L, 0L)
    } else {
      pads <- c(pads, rep(self$padding[[i]], 2L))
    }
  }
  pads
}

.conv_init <- function(self, nd, transposed, in_channels, out_channels, kernel_size, stride,
                       padding, dilation, groups, bias, padding_mode, output_padding) {
  if (groups <= 0) .nn_error("groups must be a positive integer")
  if (in_channels %% groups != 0) .nn_error("in_channels must be divisible by groups")
  if (out_channels %% groups != 0) .nn_error("out_channels must be divisible by groups")
  if (!padding_mode %in% c("zeros", "reflect", "replicate", "circular")) {
    .nn_error("padding_mode must be one of [zeros, reflect, replicate, circular], but got ",
              "padding_mode='", padding_mode, "'")
  }
  if (transposed && padding_mode != "zeros") {
    .nn_error('Only "zeros" padding mode is supported for ', class(self)[[1]])
  }
  if (is.character(padding) && !padding %in% c("same", "valid")) {
    .nn_error("Invalid padding string '", padding, "', should be one of ['valid', 'same']")
  }
  self$.nd <- nd
  self$in_channels <- in_channels
  self$out_channels <- out_channels
  self$kernel_size <- .conv_tuple(kernel_size, nd)
  self$stride <- .conv_tuple(stride, nd)
  self$padding <- .conv_tuple(padding, nd)
  self$dilation <- .conv_tuple(dilation, nd)
  self$output_padding <- .conv_tuple(output_padding, nd)
  self$groups <- groups
  self$padding_mode <- padding_mode
  if (transposed) {
    shape <- c(in_channels, out_channels %/% groups, self$kernel_size)
  } else {
    shape <- c(out_channels, in_channels %/% groups, self$kernel_size)
  }
  self$weight <- nn_parameter(do.call(torch_empty, as.list(shape)))
  if (bias) {
    self$bias <- nn_parameter(torch_empty(out_channels))
  } else {
    self$bias <- NULL
  }
  self$reset_parameters()
}

.conv_reset <- function(self) {
  nn_init_kaiming_uniform_(self$weight, a = sqrt(5))
  if (!is.null(self$bias)) {
    fan_in <- self$weight$shape[[2]] * prod(self$kernel_size)
    bound <- if (fan_in > 0) 1 / sqrt(fan_in) else 0
    nn_init_uniform_(self$bias, -bound, bound)
  }
}

.conv_forward <- function(self, input, fn) {
  if (self$padding_mode != "zeros") {
    return(fn(nnf_pad(input, .conv_pads(self), mode = self$padding_mode), self$weight,
              self$bias, self$stride, 0L, self$dilation, self$groups))
  }
  fn(input, self$weight, self$bias, self$stride, self$padding, self$dilation, self$groups)
}

.conv_module <- function(name, nd, fn) {
  nn_module(
    name,
    initialize = function(in_channels, out_channels, kernel_size, stride = 1, padding = 0,
                          dilation = 1, groups = 1, bias = TRUE, padding_mode = "zeros") {
      .conv_init(self, nd, FALSE, in_channels, out_channels, kernel_size, stride, padding,
                 dilation, groups, bias, padding_mode, 0)
    },
    reset_parameters = function() .conv_reset(self),
    forward = function(input) .conv_forward(self, input, fn)
  )
}

.conv_transpose_module <- function(name, nd, fn) {
  nn_module(
    name,
    initialize = function(in_channels, out_channels, kernel_size, stride = 1, padding = 0,
                          output_padding = 0, groups = 1, bias = TRUE, dilation = 1,
                          padding_mode = "zeros") {
      .conv_init(self, nd, TRUE, in_channels, out_channels, kernel_size, stride, padding,
                 dilation, groups, bias, padding_mode, output_padding)
    },
    reset_parameters = function() .conv_reset(self),
    forward = function(input, output_size = NULL) {
      output_padding <- if (is.null(output_size)) self$output_padding else
        .conv_output_padding(self, input, output_size)
      fn(input, self$weight, self$bias, self$stride, self$padding, output_padding,
         self$groups, self$dilation)
    }
  )
}

# The output_padding giving a transposed convolution the requested output_size (spatial, or
# the whole size), among the sizes a strided convolution maps back to its input's.
.conv_output_padding <- function(self, input, output_size) {
  nd <- self$.nd
  lead <- if (input$dim() == nd + 2L) 2L else 1L
  size <- as.integer(unlist(output_size))
  if (length(size) == lead + nd) size <- size[-seq_len(lead)]
  if (length(size) != nd) {
    .nn_value_error("ConvTranspose", nd, "D: for ", input$dim(), "D input, output_size must ",
                    "have ", nd, " or ", lead + nd, " elements (got ", length(size), ")")
  }
  spatial <- as.integer(input$shape)[-seq_len(lead)]
  smallest <- (spatial - 1L) * self$stride - 2L * self$padding +
    self$dilation * (self$kernel_size - 1L) + 1L
  largest <- smallest + self$stride - 1L
  if (any(size < smallest | size > largest)) {
    .nn_value_error("requested an output size of ", .nn_shape_str(size),
                    ", but valid sizes range from ", .nn_shape_str(smallest), " to ",
                    .nn_shape_str(largest), " (for an input of ", .nn_shape_str(spatial), ")")
  }
  size - smallest
}

#' Convolution layers
#'
#' `nn_conv1d()`, `nn_conv2d()`, `nn_conv3d()`: convolution (cross-correlation) of an input
#' `(N, in_channels, *)` with a learned weight `(out_channels, in_channels / groups, *kernel)`
#' plus a bias. `nn_conv_transpose1d()` and friends: the transposed convolution, weight
#' `(in_channels, out_channels / groups, *kernel)`. Weights are initialized kaiming-uniform with
#' `a = sqrt(5)`, biases uniform in `+-1/sqrt(fan_in)` (R torch's defaults).
#'
#' @param in_channels,out_channels Numbers of channels.
#' @param kernel_size,stride,dilation A number or one per spatial dim.
#' @param padding A number, one per spatial dim, or `"same"` / `"valid"` (not transposed).
#' @param output_padding Added to one side of a transposed convolution's output.
#' @param groups Split the channels into that many groups (`in_channels`: depthwise).
#' @param bias Whether to learn an additive bias.
#' @param padding_mode `"zeros"`, `"reflect"`, `"replicate"` or `"circular"`.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   conv <- nn_conv1d(in_channels = 2, out_channels = 4, kernel_size = 3)
#'   conv(torch_randn(1, 2, 10))$shape
#' }
nn_conv1d <- .conv_module("nn_conv1d", 1L, function(...) nnf_conv1d(...))

#' @rdname nn_conv1d
#' @export
nn_conv2d <- .conv_module("nn_conv2d", 2L, function(...) nnf_conv2d(...))

#' @rdname nn_conv1d
#' @export
nn_conv3d <- .conv_module("nn_conv3d", 3L, function(...) nnf_conv3d(...))

#' @rdname nn_conv1d
#' @export
nn_conv_transpose1d <- .conv_transpose_module("nn_conv_transpose1d", 1L,
                                              function(...) nnf_conv_transpose1d(...))

#' @rdname nn_conv1d
#' @export
nn_conv_transpose2d <- .conv_transpose_module("nn_conv_transpose2d", 2L,
                                              function(...) nnf_conv_transpose2d(...))

#' @rdname nn_conv1d
#' @export
nn_conv_transpose3d <- .conv_transpose_module("nn_conv_transpose3d", 3L,
                                              function(...) nnf_conv_transpose3d(...))
