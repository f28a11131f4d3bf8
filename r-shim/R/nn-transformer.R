# Attention modules in R (R torch's names and arguments), on the generated
# nnf_multi_head_attention_forward(): one crossing per op of the attention, as any module.

#' @include nn-base.R
NULL

#' Scaled dot-product attention
#'
#' `softmax(query key^T * scale + mask) value` over the last two dims; `scale` defaults to
#' `1/sqrt(E)`. A logical `attn_mask` marks the positions that take part (`TRUE` = attend),
#' a float mask is added; `is_causal = TRUE` lets position i see positions up to i only.
#' `torch_scaled_dot_product_attention()` is R torch's name, the same function.
#'
#' @param query,key,value Tensors `(..., L, E)`, `(..., S, E)`, `(..., S, Ev)`.
#' @param attn_mask A logical or float mask broadcasting to `(..., L, S)`, or `NULL`.
#' @param dropout_p Dropout probability on the attention weights.
#' @param is_causal Whether to mask the future.
#' @param scale The factor of the scores (`NULL`: `1/sqrt(E)`).
#' @return A tensor `(..., L, Ev)`.
#' @export
#' @family neural network functions
#' @examples
#' if (rtorchpy_available()) {
#'   q <- torch_randn(1, 3, 4)
#'   torch_scaled_dot_product_attention(q, q, q)$shape
#' }
torch_scaled_dot_product_attention <- function(query, key, value, attn_mask = NULL,
                                               dropout_p = 0, is_causal = FALSE,
                                               scale = NULL) {
  nnf_scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)
}

.undefined_null <- function(x) if (is.null(x) || is_undefined_tensor(x)) NULL else x

#' Multi-head attention
#'
#' Attention from `num_heads` heads of size `embed_dim / num_heads`, as R torch's and
#' PyTorch's: the forward `(query, key, value, key_padding_mask = NULL, need_weights = TRUE,
#' attn_mask = NULL, avg_weights = TRUE)` returns `list(output, weights)`, the weights
#' `(N, L, S)` averaged over heads, `(N, H, L, S)` with `avg_weights = FALSE`, `NULL` with
#' `need_weights = FALSE`. Logical masks mark what is left out (`TRUE` = ignore). Inputs are
#' `(L, N, E)` (`(N, L, E)` with `batch_first = TRUE`) or `(L, E)` without a batch.
#' Parameters are drawn in PyTorch's order (a seed gives its weights).
#'
#' @param embed_dim Size of the model.
#' @param num_heads Number of heads (dividing `embed_dim`).
#' @param dropout Dropout on the attention weights.
#' @param bias Whether the projections have biases.
#' @param add_bias_kv Whether to add learnt biases to the keys and values (one position).
#' @param add_zero_attn Whether to add a zero key and value position.
#' @param kdim,vdim Sizes of keys and values (default `embed_dim`).
#' @param batch_first Whether inputs are `(batch, seq, feature)`.
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   attn <- nn_multihead_attention(embed_dim = 4, num_heads = 2)
#'   x <- torch_randn(3, 1, 4)
#'   out <- attn(x, x, x)
#'   out[[1]]$shape
#' }
nn_multihead_attention <- nn_module(
  "nn_multihead_attention",
  initialize = function(embed_dim, num_heads, dropout = 0, bias = TRUE, add_bias_kv = FALSE,
                        add_zero_attn = FALSE, kdim = NULL, vdim = NULL,
                        batch_first = FALSE) {
    if (num_heads <= 0 || embed_dim %% num_heads != 0) {
      .nn_error("embed_dim must be divisible by num_heads")
    }
    self$embed_dim <- embed_dim
    self$kdim <- if (is.null(kdim)) embed_dim else kdim
    self$vdim <- if (is.null(vdim)) embed_dim else vdim
    self$qkv_same_embed_dim_ <- self$kdim == embed_dim && self$vdim == embed_dim
    self$num_heads <- num_heads
    self$dropout <- dropout
    self$batch_first <- .flag(batch_first)
    self$head_dim <- embed_dim %/% num_heads
    if (self$qkv_same_embed_dim_) {
      self$in_proj_weight <- nn_parameter(torch_empty(3 * embed_dim, embed_dim))
    } else {
      self$q_proj_weight <- nn_parameter(torch_empty(embed_dim, embed_dim))
      self$k_proj_weight <- nn_parameter(torch_empty(embed_dim, self$kdim))
      self$v_proj_weight <- nn_parameter(torch_empty(embed_dim, self$vdim))
    }
    if (bias) self$in_proj_bias <- nn_parameter(torch_empty(3 * embed_dim))
    self$out_proj <- nn_linear(embed_dim, embed_dim, bias = bias)
    if (add_bias_kv) {
      self$bias_k <- nn_parameter(torch_empty(1, 1, embed_dim))
      self$bias_v <- nn_parameter(torch_empty(1, 1, embed_dim))
    }
    self$add_zero_attn <- .flag(add_zero_attn)
    self$reset_parameters()
  },
  reset_parameters = function() {
    if (self$qkv_same_embed_dim_) {
      nn_init_xavier_uniform_(self$in_proj_weight)
    } else {
      nn_init_xavier_uniform_(self$q_proj_weight)
      nn_init_xavier_uniform_(self$k_proj_weight)
      nn_init_xavier_uniform_(self$v_proj_weight)
    }
    if (!is.null(self$in_proj_bias)) {
      nn_init_constant_(self$in_proj_bias, 0)
      nn_init_constant_(self$out_proj$bias, 0)
    }
    if (!is.null(self$bias_k)) {
      nn_init_xavier_normal_(self$bias_k)
      nn_init_xavier_normal_(self$bias_v)
    }
  },
  forward = function(query, key, value, key_padding_mask = NULL, need_weights = TRUE,
                     attn_mask = NULL, avg_weights = TRUE) {
    sep <- !self$qkv_same_embed_dim_
    r <- nnf_multi_head_attention_forward(
      query, key, value, self$embed_dim, self$num_heads, self$in_proj_weight,
      self$in_proj_bias, self$bias_k, self$bias_v, self$add_zero_attn, self$dropout,
      self$out_proj$weight, self$out_proj$bias, training = self$training,
      key_padding_mask = key_padding_mask, need_weights = need_weights,
      attn_mask = attn_mask, avg_weights = avg_weights, use_separate_proj_weight = sep,
      q_proj_weight = self$q_proj_weight, k_proj_weight = self$k_proj_weight,
      v_proj_weight = self$v_proj_weight, batch_first = self$batch_first)
    list(r[[1]], .undefined_null(r[[2]]))
  }
)

#' Transformer encoder
#'
#' `nn_transformer_encoder_layer()`: self-attention then a feed-forward network
#' (`linear1`, activation, `linear2`), each with dropout, a residual connection and a layer
#' norm (after each part, or before with `norm_first = TRUE`); its forward is
#' `(src, src_mask = NULL, src_key_padding_mask = NULL, is_causal = FALSE)`.
#' `nn_transformer_encoder()`: `num_layers` deep copies of a layer applied in turn, then
#' `norm`; forward `(src, mask = NULL, src_key_padding_mask = NULL, is_causal = FALSE)`.
#'
#' @param d_model Size of the model.
#' @param nhead Number of attention heads.
#' @param dim_feedforward Width of the feed-forward network.
#' @param dropout Dropout probability.
#' @param activation `"relu"`, `"gelu"` or a function.
#' @param layer_norm_eps The layer norms' epsilon.
#' @param batch_first Whether inputs are `(batch, seq, feature)`.
#' @param norm_first Whether the layer norms come before each part.
#' @param bias Whether the linear layers and layer norms have biases.
#' @param encoder_layer A layer to copy.
#' @param num_layers How many copies.
#' @param norm A module applied to the output, or `NULL`.
#' @param enable_nested_tensor,mask_check Accepted (they choose PyTorch's inference path).
#' @return A module.
#' @export
#' @family neural network modules
#' @examples
#' if (rtorchpy_available()) {
#'   layer <- nn_transformer_encoder_layer(d_model = 4, nhead = 2, dim_feedforward = 8)
#'   layer$eval()
#'   layer(torch_randn(3, 1, 4))$shape
#' }
nn_transformer_encoder_layer <- nn_module(
  "nn_transformer_encoder_layer",
  initialize = function(d_model, nhead, dim_feedforward = 2048, dropout = 0.1,
                        activation = "relu", layer_norm_eps = 1e-5, batch_first = FALSE,
                        norm_first = FALSE, bias = TRUE) {
    self$self_attn <- nn_multihead_attention(d_model, nhead, dropout = dropout, bias = bias,
                                             batch_first = batch_first)
    self$linear1 <- nn_linear(d_model, dim_feedforward, bias = bias)
    self$dropout <- nn_dropout(dropout)
    self$linear2 <- nn_linear(dim_feedforward, d_model, bias = bias)
    self$norm_first <- .flag(norm_first)
    self$norm1 <- nn_layer_norm(d_model, eps = layer_norm_eps, elementwise_affine = bias)
    self$norm2 <- nn_layer_norm(d_model, eps = layer_norm_eps, elementwise_affine = bias)
    self$dropout1 <- nn_dropout(dropout)
    self$dropout2 <- nn_dropout(dropout)
    self$batch_first <- .flag(batch_first)
    if (is.function(activation)) {
      self$activation <- activation
    } else if (identical(activation, "relu")) {
      self$activation <- nnf_relu
    } else if (identical(activation, "gelu")) {
      self$activation <- nnf_gelu
    } else {
      .nn_error("activation should be relu/gelu, not ", format(activation))
    }
  },
  forward = function(src, src_mask = NULL, src_key_padding_mask = NULL, is_causal = FALSE) {
    if (isTRUE(is_causal)) {
      if (!is.null(src_mask)) {
        .nn_error("Explicit src_mask should not be set when is_causal=TRUE. ",
                  "Use one or the other.")
      }
      n <- if (self$batch_first && src$dim() == 3) src$size(2) else src$size(1)
      src_mask <- torch_ones(n, n)$triu(diagonal = 1)$to(dtype = torch_bool())
    }
    sa <- function(x) {
      self$dropout1(self$self_attn(x, x, x, attn_mask = src_mask,
                                   key_padding_mask = src_key_padding_mask,
                                   need_weights = FALSE)[[1]])
    }
    ff <- function(x) self$dropout2(self$linear2(self$dropout(self$activation(self$linear1(x)))))
    if (self$norm_first) {
      x <- src + sa(self$norm1(src))
      return(x + ff(self$norm2(x)))
    }
    x <- self$norm1(src + sa(src))
    self$norm2(x + ff(x))
  }
)

#' @rdname nn_transformer_encoder_layer
#' @export
nn_transformer_encoder <- nn_module(
  "nn_transformer_encoder",
  initialize = function(encoder_layer, num_layers, norm = NULL, enable_nested_tensor = TRUE,
                        mask_check = TRUE) {
    if (!is_nn_module(encoder_layer)) .nn_error("encoder_layer must be an nn_module")
    self$num_layers <- num_layers
    self$layers <- nn_module_list(lapply(seq_len(num_layers),
                                         function(i) encoder_layer$clone(deep = TRUE)))
    self$norm <- norm
  },
  forward = function(src, mask = NULL, src_key_padding_mask = NULL, is_causal = FALSE) {
    out <- src
    for (i in seq_len(self$num_layers)) {
      out <- self$layers[[i]](out, src_mask = mask, src_key_padding_mask = src_key_padding_mask,
                              is_causal = isTRUE(is_causal) && is.null(mask))
    }
    if (!is.null(self$norm)) out <- self$norm(out)
    out
  }
)
