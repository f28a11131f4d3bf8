# Layers as R nn_modules calling the nnf_*/torch_* wrappers (R torch's arguments and defaults).

#' @include nn-base.R
NULL

.fan_in <- function(w) {
  s <- w$shape
  if (length(s) < 2L) {
    .nn_error("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
  }
  s[[2L]] * prod(s[-(1:2)])
}

#' Linear and bilinear layers
#'
#' `nn_linear()`: `y = x W^T + b`, `W` of shape `(out_features, in_features)` initialized
#' kaiming-uniform with `a = sqrt(5)`, `b` uniform in `+-1/sqrt(in_features)` (R torch's
#' defaults). `nn_bilinear()`: `y = x1^T A x2 + b`, `A` of shape `(out, in1, in2)`, all
#' uniform in `+-1/sqrt(in1_features)`.
#'
#' @param in_features,in1_features,in2_features,out_features Sizes.
#' @param bias Whether to learn an additive bias.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   lin <- nn_linear(3, 2)
#'   lin(torch_randn(4, 3))$shape
#' }
nn_linear <- nn_module(
  "nn_linear",
  initialize = function(in_features, out_features, bias = TRUE) {
    self$in_features <- in_features
    self$out_features <- out_features
    self$weight <- nn_parameter(torch_empty(out_features, in_features))
    if (bias) {
      self$bias <- nn_parameter(torch_empty(out_features))
    } else {
      self$bias <- NULL
    }
    self$reset_parameters()
  },
  reset_parameters = function() {
    nn_init_kaiming_uniform_(self$weight, a = sqrt(5))
    if (!is.null(self$bias)) {
      bound <- 1 / sqrt(.fan_in(self$weight))
      nn_init_uniform_(self$bias, -bound, bound)
    }
  },
  forward = function(input) nnf_linear(input, self$weight, self$bias)
)

#' @rdname nn_linear
#' @export
nn_bilinear <- nn_module(
  "nn_bilinear",
  initialize = function(in1_features, in2_features, out_features, bias = TRUE) {
    self$in1_features <- in1_features
    self$in2_features <- in2_features
    self$out_features <- out_features
    self$weight <- nn_parameter(torch_empty(out_features, in1_features, in2_features))
    if (bias) {
      self$bias <- nn_parameter(torch_empty(out_features))
    } else {
      self$bias <- NULL
    }
    self$reset_parameters()
  },
  reset_parameters = function() {
    bound <- 1 / sqrt(self$weight$size(2))
    nn_init_uniform_(self$weight, -bound, bound)
    if (!is.null(self$bias)) nn_init_uniform_(self$bias, -bound, bound)
  },
  forward = function(input1, input2) nnf_bilinear(input1, input2, self$weight, self$bias)
)

#' Identity, flatten and unflatten
#'
#' @param start_dim,end_dim The dims to flatten (1-based; negative from the end).
#' @param dim The dim to unflatten (1-based).
#' @param unflattened_size The sizes it becomes.
#' @param ... Ignored (`nn_identity()` accepts any arguments).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   x <- torch_randn(2, 3, 4)
#'   nn_identity()(x)$shape
#'   nn_flatten()(x)$shape
#' }
nn_identity <- nn_module(
  "nn_identity",
  initialize = function(...) {},
  forward = function(input) input
)

#' @rdname nn_identity
#' @export
nn_flatten <- nn_module(
  "nn_flatten",
  initialize = function(start_dim = 2, end_dim = -1) {
    self$start_dim <- start_dim
    self$end_dim <- end_dim
  },
  forward = function(input) torch_flatten(input, start_dim = self$start_dim,
                                          end_dim = self$end_dim)
)

#' @rdname nn_identity
#' @export
nn_unflatten <- nn_module(
  "nn_unflatten",
  initialize = function(dim, unflattened_size) {
    self$dim <- dim
    self$unflattened_size <- unflattened_size
  },
  forward = function(input) {
    s <- input$shape
    d <- self$dim
    if (d < 0) d <- length(s) + 1 + d
    if (d < 1 || d > length(s)) .nn_error("nn_unflatten(): dim ", self$dim, " out of range")
    input$view(c(s[seq_len(d - 1)], self$unflattened_size, s[-seq_len(d)]))
  }
)

#' Embedding layer
#'
#' A lookup table of `num_embeddings` vectors of size `embedding_dim`, initialized N(0, 1).
#' Indices are 1-based, as in R torch; `padding_idx` (1-based, negative from the end) is a row
#' kept at zero that gets no gradient.
#'
#' @param num_embeddings,embedding_dim Sizes of the table.
#' @param padding_idx A row that gets no gradient (starts at zero).
#' @param max_norm,norm_type Rows used with a larger `norm_type`-norm are rescaled to it.
#' @param scale_grad_by_freq,sparse As in R torch (`sparse` gradients are not supported).
#' @param .weight A tensor to use as the table instead of drawing one.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   emb <- nn_embedding(10, 3)
#'   emb(torch_tensor(c(1L, 5L)))$shape
#' }
nn_embedding <- nn_module(
  "nn_embedding",
  initialize = function(num_embeddings, embedding_dim, padding_idx = NULL, max_norm = NULL,
                        norm_type = 2, scale_grad_by_freq = FALSE, sparse = FALSE,
                        .weight = NULL) {
    self$num_embeddings <- num_embeddings
    self$embedding_dim <- embedding_dim
    if (!is.null(padding_idx)) {
      if (padding_idx == 0 || abs(padding_idx) > num_embeddings) {
        .nn_error("Padding_idx must be within num_embeddings")
      }
      if (padding_idx < 0) padding_idx <- num_embeddings + 1 + padding_idx
    }
    self$padding_idx <- padding_idx
    self$max_norm <- max_norm
    self$norm_type <- norm_type
    self$scale_grad_by_freq <- scale_grad_by_freq
    self$sparse <- sparse
    if (is.null(.weight)) {
      self$weight <- nn_parameter(torch_empty(num_embeddings, embedding_dim))
      self$reset_parameters()
    } else {
      if (!identical(as.integer(.weight$shape), as.integer(c(num_embeddings, embedding_dim)))) {
        .nn_error("Shape of weight does not match num_embeddings and embedding_dim")
      }
      self$weight <- nn_parameter(.weight)
    }
  },
  reset_parameters = function() {
    nn_init_normal_(self$weight)
    if (!is.null(self$padding_idx)) {
      w <- self$weight
      with_no_grad(w[self$padding_idx, ] <- 0)
    }
  },
  forward = function(input) {
    nnf_embedding(input, self$weight, self$padding_idx, self$max_norm, self$norm_type,
                  self$scale_grad_by_freq, self$sparse)
  }
)

#' Dropout
#'
#' Zeroes elements with probability `p` and scales the others by `1 / (1 - p)` in training
#' mode; the identity after `$eval()`.
#'
#' @param p Probability of an element to be zeroed.
#' @param inplace Whether to change the input in place.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   torch_manual_seed(1)
#'   drop <- nn_dropout(p = 0.5)
#'   drop(torch_ones(6))
#'   drop$eval()
#'   drop(torch_ones(6))
#' }
nn_dropout <- nn_module(
  "nn_dropout",
  initialize = function(p = 0.5, inplace = FALSE) {
    if (p < 0 || p > 1) {
      .nn_error("dropout probability has to be between 0 and 1, but got ", p)
    }
    self$p <- p
    self$inplace <- inplace
  },
  forward = function(input) nnf_dropout(input, self$p, self$training, self$inplace)
)

#' Layer normalization
#'
#' @param normalized_shape The trailing shape normalized over.
#' @param eps Added to the variance.
#' @param elementwise_affine Whether to learn a per-element `weight` (ones) and `bias`
#'   (zeros).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   ln <- nn_layer_norm(3)
#'   ln(torch_randn(2, 3))
#' }
nn_layer_norm <- nn_module(
  "nn_layer_norm",
  initialize = function(normalized_shape, eps = 1e-5, elementwise_affine = TRUE) {
    self$normalized_shape <- as.integer(normalized_shape)
    self$eps <- eps
    self$elementwise_affine <- elementwise_affine
    if (elementwise_affine) {
      self$weight <- nn_parameter(torch_ones(self$normalized_shape))
      self$bias <- nn_parameter(torch_zeros(self$normalized_shape))
    } else {
      self$weight <- NULL
      self$bias <- NULL
    }
  },
  forward = function(input) {
    nnf_layer_norm(input, self$normalized_shape, self$weight, self$bias, self$eps)
  }
)

#' Batch normalization over a 2-d or 3-d input
#'
#' Normalizes each of the `num_features` channels (dim 2) by the batch's statistics in
#' training mode, updating the running mean and variance buffers; by the running statistics
#' after `$eval()`.
#'
#' @param num_features Number of channels.
#' @param eps Added to the variance.
#' @param momentum Weight of the batch in the running statistics (`NULL`: cumulative
#'   average).
#' @param affine Whether to learn a per-channel `weight` and `bias`.
#' @param track_running_stats Whether to keep running statistics.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   bn <- nn_batch_norm1d(3)
#'   bn(torch_randn(4, 3))$shape
#' }
nn_batch_norm1d <- nn_module(
  "nn_batch_norm1d",
  initialize = function(num_features, eps = 1e-5, momentum = 0.1, affine = TRUE,
                        track_running_stats = TRUE) {
    self$num_features <- num_features
    self$eps <- eps
    self$momentum <- momentum
    self$affine <- affine
    self$track_running_stats <- track_running_stats
    if (affine) {
      self$weight <- nn_parameter(torch_ones(num_features))
      self$bias <- nn_parameter(torch_zeros(num_features))
    } else {
      self$weight <- NULL
      self$bias <- NULL
    }
    if (track_running_stats) {
      self$running_mean <- nn_buffer(torch_zeros(num_features))
      self$running_var <- nn_buffer(torch_ones(num_features))
      self$num_batches_tracked <- nn_buffer(torch_tensor(0L, dtype = torch_long()))
    } else {
      self$running_mean <- NULL
      self$running_var <- NULL
      self$num_batches_tracked <- NULL
    }
  },
  forward = function(input) {
    nd <- input$dim()
    if (nd != 2 && nd != 3) {
      .nn_error("expected 2D or 3D input (got ", nd, "D input)")
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
