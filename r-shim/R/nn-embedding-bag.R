# nn_embedding_bag in R, on the generated nnf_embedding_bag() (indices and padding_idx 1-based;
# offsets as R torch passes them, 0-based starts).

#' @include nn-base.R
NULL

#' Embedding bags
#'
#' Sums, means or maxima (`mode`) of bags of rows of a table of `num_embeddings` vectors of
#' size `embedding_dim`, initialized N(0, 1). The forward is `(input, offsets = NULL,
#' per_sample_weights = NULL)`: a 2-d `input` is one bag per row; a 1-d `input` is cut into
#' bags at `offsets` (the bags' 0-based starts, as R torch passes them to libtorch). Indices
#' and `padding_idx` are 1-based; `padding_idx` entries are left out of their bags.
#'
#' @param num_embeddings,embedding_dim Sizes of the table.
#' @param max_norm,norm_type Rows used with a larger `norm_type`-norm are rescaled to it.
#' @param scale_grad_by_freq Divide gradients by the indices' frequencies in the batch.
#' @param mode `"sum"`, `"mean"` or `"max"`.
#' @param sparse Must be `FALSE` (no sparse gradients).
#' @param .weight A tensor to use as the table instead of drawing one.
#' @param include_last_offset Whether `offsets` has one more element, the end of the last bag.
#' @param padding_idx A row that is left out of the bags (and starts at zero).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   bag <- nn_embedding_bag(10, 3, mode = "sum")
#'   bag(torch_tensor(rbind(c(1L, 2L), c(3L, 4L))))$shape
#' }
nn_embedding_bag <- nn_module(
  "nn_embedding_bag",
  initialize = function(num_embeddings, embedding_dim, max_norm = NULL, norm_type = 2,
                        scale_grad_by_freq = FALSE, mode = "mean", sparse = FALSE,
                        .weight = NULL, include_last_offset = FALSE, padding_idx = NULL) {
    self$num_embeddings <- num_embeddings
    self$embedding_dim <- embedding_dim
    if (!is.null(padding_idx)) {
      if (padding_idx == 0 || abs(padding_idx) > num_embeddings) {
        .nn_error("padding_idx must be within num_embeddings")
      }
      if (padding_idx < 0) padding_idx <- num_embeddings + 1 + padding_idx
    }
    self$padding_idx <- padding_idx
    self$max_norm <- max_norm
    self$norm_type <- norm_type
    self$scale_grad_by_freq <- scale_grad_by_freq
    self$mode <- mode
    self$sparse <- sparse
    self$include_last_offset <- include_last_offset
    if (is.null(.weight)) {
      self$weight <- nn_parameter(torch_empty(num_embeddings, embedding_dim))
      nn_init_normal_(self$weight)
      if (!is.null(padding_idx)) with_no_grad(self$weight[padding_idx, ]$fill_(0))
    } else {
      if (!identical(as.integer(.weight$shape), as.integer(c(num_embeddings, embedding_dim)))) {
        .nn_error("Shape of weight does not match num_embeddings and embedding_dim")
      }
      self$weight <- nn_parameter(.weight)
    }
  },
  forward = function(input, offsets = NULL, per_sample_weights = NULL) {
    nnf_embedding_bag(input, self$weight, offsets, self$max_norm, self$norm_type,
                      self$scale_grad_by_freq, self$mode, self$sparse, per_sample_weights,
                      self$include_last_offset, self$padding_idx)
  }
)
