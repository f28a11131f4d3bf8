# Recurrent modules (nn_rnn, nn_lstm, nn_gru) and packed sequences. The modules hold their
# parameters in R (R torch's names: weight_ih_l1, ..., 1-based layers); a forward is one
# crossing (rnn_forward in rtorchpy/_r/rnn.py), which runs each layer as one autograd node.

#' @include nn-base.R
NULL

.rnn_error <- function(e) .nn_error(conditionMessage(e))

.rnn_call <- function(name, ...) {
  withCallingHandlers(.bridge(name, ...), rtorchpy_error = function(e) .rnn_error(e))
}

.packed_parts <- function(x) {
  lapply(list(x$data, x$batch_sizes, x$sorted_indices, x$unsorted_indices),
         function(t) if (is.null(t)) NULL else .a(t))
}

.new_packed <- function(parts) {
  undef <- function(t) if (is.null(t) || is_undefined_tensor(t)) NULL else t
  structure(list(data = parts[[1]], batch_sizes = parts[[2]],
                 sorted_indices = undef(parts[[3]]), unsorted_indices = undef(parts[[4]])),
            class = "PackedSequence")
}

#' @export
print.PackedSequence <- function(x, ...) {
  cat("PackedSequence\n")
  cat("data: ", paste(x$data$shape, collapse = " x "), ", batch_sizes: ",
      paste(as_array(x$batch_sizes), collapse = " "), "\n", sep = "")
  invisible(x)
}

nn_rnn_base <- nn_module(
  "nn_rnn_base",
  initialize = function(mode, input_size, hidden_size, num_layers = 1, bias = TRUE,
                        batch_first = FALSE, dropout = 0, bidirectional = FALSE,
                        proj_size = 0) {
    self$mode <- mode
    self$input_size <- input_size
    self$hidden_size <- hidden_size
    self$num_layers <- num_layers
    self$bias <- .flag(bias)
    self$batch_first <- .flag(batch_first)
    self$dropout <- dropout
    self$bidirectional <- .flag(bidirectional)
    self$proj_size <- proj_size
    if (!is.numeric(dropout) || length(dropout) != 1L || is.na(dropout) ||
        dropout < 0 || dropout > 1) {
      .nn_error("dropout should be a number in range [0, 1] representing the probability ",
                "of an element being zeroed")
    }
    if (dropout > 0 && num_layers == 1) {
      warning("dropout option adds dropout after all but last recurrent layer, so non-zero ",
              "dropout expects num_layers greater than 1, but got dropout=", dropout,
              " and num_layers=", num_layers, call. = FALSE)
    }
    if (proj_size != 0 && mode != "LSTM") {
      .nn_error("proj_size argument is only supported for LSTM, not RNN or GRU")
    }
    if (proj_size >= hidden_size) .nn_error("proj_size has to be smaller than hidden_size")
    gate <- c(LSTM = 4, GRU = 3, RNN_TANH = 1, RNN_RELU = 1)[[mode]] * hidden_size
    D <- if (self$bidirectional) 2 else 1
    out_size <- if (proj_size > 0) proj_size else hidden_size
    names <- character()
    for (layer in seq_len(num_layers)) {
      for (d in seq_len(D)) {
        isz <- if (layer == 1) input_size else out_size * D
        suffix <- paste0("_l", layer, if (d == 2) "_reverse" else "")
        shapes <- list(weight_ih = c(gate, isz), weight_hh = c(gate, out_size))
        if (self$bias) shapes <- c(shapes, list(bias_ih = gate, bias_hh = gate))
        if (proj_size > 0) shapes <- c(shapes, list(weight_hr = c(proj_size, hidden_size)))
        for (p in names(shapes)) {
          self[[paste0(p, suffix)]] <- nn_parameter(torch_empty(shapes[[p]]))
          names <- c(names, paste0(p, suffix))
        }
      }
    }
    self$flat_weight_names_ <- names
    self$reset_parameters()
  },
  reset_parameters = function() {
    stdv <- 1 / sqrt(self$hidden_size)
    for (w in self$parameters) nn_init_uniform_(w, -stdv, stdv)
  },
  forward = function(input, hx = NULL) {
    packed <- inherits(input, "PackedSequence")
    cfg <- list(mode = self$mode, input_size = self$input_size,
                hidden_size = self$hidden_size, num_layers = self$num_layers,
                bias = self$bias, batch_first = self$batch_first, dropout = self$dropout,
                bidirectional = self$bidirectional, proj_size = self$proj_size,
                training = self$training, `_name` = class(self)[[1]],
                `_label` = c(LSTM = "LSTM", GRU = "GRU", RNN_TANH = "RNN",
                             RNN_RELU = "RNN")[[self$mode]])
    weights <- lapply(self$flat_weight_names_, function(n) .a(self[[n]]))
    x <- if (packed) .packed_parts(input) else .a(input)
    h <- if (is.null(hx)) NULL else if (is.list(hx)) lapply(hx, .a) else .a(hx)
    r <- .rnn_call("rnn_forward", cfg, weights, x, h, packed)
    out <- r[[1]]
    if (packed) {
      out <- .new_packed(list(out, input$batch_sizes, input$sorted_indices,
                              input$unsorted_indices))
    }
    hidden <- if (self$mode == "LSTM") list(r[[2]], r[[3]]) else r[[2]]
    list(out, hidden)
  }
)

#' Recurrent layers
#'
#' `nn_rnn()` (Elman, `tanh` or `relu`), `nn_lstm()` and `nn_gru()`: multi-layer recurrent
#' networks over a sequence, as in R torch. The input is `(seq_len, batch, input_size)`
#' (`(batch, seq_len, input_size)` with `batch_first = TRUE`), a `(seq_len, input_size)`
#' sequence without batch, or a packed sequence ([nn_utils_rnn_pack_padded_sequence()]).
#' The forward returns `list(output, h_n)`, for `nn_lstm()` `list(output, list(h_n, c_n))`;
#' the output is packed when the input was. Parameters are named `weight_ih_l1`,
#' `weight_hh_l1`, `bias_ih_l1`, `bias_hh_l1` (`weight_hr_l1` with `proj_size`), with
#' `_reverse` for the second direction, and drawn uniformly in `+-1/sqrt(hidden_size)`, in
#' that order (so a seed gives R torch's and PyTorch's weights). Each layer and direction is
#' one autograd node (for an LSTM, libtorch's `MkldnnRnnLayerBackward0`).
#'
#' @param input_size Features of the input.
#' @param hidden_size Features of the hidden state.
#' @param num_layers Stacked recurrent layers.
#' @param nonlinearity `"tanh"` or `"relu"` (`nn_rnn()`).
#' @param bias Whether the layers have the biases `b_ih` and `b_hh`.
#' @param batch_first Whether input and output are `(batch, seq, feature)`.
#' @param dropout Dropout probability on the outputs of every layer but the last.
#' @param bidirectional Whether to run a second pass backwards in time.
#' @param proj_size `nn_lstm()`: if above 0, the hidden state is projected to this size.
#' @param ... Ignored.
#' @return A module.
#' @examples
#' lstm <- nn_lstm(input_size = 3, hidden_size = 5, num_layers = 2)
#' out <- lstm(torch_randn(7, 2, 3))
#' out[[1]]$shape        # 7 2 5
#' out[[2]][[1]]$shape   # h_n: 2 2 5
#' @export
#' @family neural network modules
nn_rnn <- nn_module(
  "nn_rnn",
  inherit = nn_rnn_base,
  initialize = function(input_size, hidden_size, num_layers = 1, nonlinearity = NULL,
                        bias = TRUE, batch_first = FALSE, dropout = 0, bidirectional = FALSE,
                        ...) {
    self$nonlinearity <- if (is.null(nonlinearity)) "tanh" else nonlinearity
    mode <- switch(self$nonlinearity, tanh = "RNN_TANH", relu = "RNN_RELU",
                   .nn_error("Unknown nonlinearity '", self$nonlinearity, "'"))
    super$initialize(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     bidirectional)
  }
)

#' @rdname nn_rnn
#' @export
nn_lstm <- nn_module(
  "nn_lstm",
  inherit = nn_rnn_base,
  initialize = function(input_size, hidden_size, num_layers = 1, bias = TRUE,
                        batch_first = FALSE, dropout = 0, bidirectional = FALSE,
                        proj_size = 0, ...) {
    super$initialize("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     bidirectional, proj_size)
  }
)

#' @rdname nn_rnn
#' @export
nn_gru <- nn_module(
  "nn_gru",
  inherit = nn_rnn_base,
  initialize = function(input_size, hidden_size, num_layers = 1, bias = TRUE,
                        batch_first = FALSE, dropout = 0, bidirectional = FALSE, ...) {
    super$initialize("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     bidirectional)
  }
)

#' Packed sequences
#'
#' A batch of sequences of different lengths, stored step by step without padding, for the
#' recurrent layers. `nn_utils_rnn_pack_padded_sequence()` packs a padded `(T, B, *)` tensor
#' (`(B, T, *)` with `batch_first`) given the `lengths`; with `enforce_sorted = TRUE` they must
#' be decreasing, otherwise the batch is sorted first (and `$sorted_indices`,
#' `$unsorted_indices`, 1-based, record how). `nn_utils_rnn_pad_packed_sequence()` undoes it,
#' returning `list(padded, lengths)` in the original order. `nn_utils_rnn_pad_sequence()`
#' stacks a list of `(L_i, *)` tensors padded to the longest; `nn_utils_rnn_pack_sequence()`
#' packs such a list. Gradients flow through all of them.
#'
#' @param input A padded batch.
#' @param lengths The sequences' lengths (a vector or a tensor).
#' @param batch_first Whether the batch dimension comes first.
#' @param enforce_sorted Whether `lengths` must already be decreasing.
#' @param sequence A packed sequence.
#' @param padding_value The value of padded positions.
#' @param total_length Pad to this length instead of the longest.
#' @param sequences A list of tensors.
#' @return A `PackedSequence` (a list with `data`, `batch_sizes`, `sorted_indices`,
#'   `unsorted_indices`), a tensor, or `list(padded, lengths)`.
#' @examples
#' x <- torch_tensor(rbind(c(1, 2, 0), c(3, 0, 0), c(4, 5, 6)))
#' p <- nn_utils_rnn_pack_padded_sequence(x, c(2, 1, 3), batch_first = TRUE,
#'                                        enforce_sorted = FALSE)
#' p$batch_sizes
#' nn_utils_rnn_pad_packed_sequence(p, batch_first = TRUE)
#' @export
#' @family neural network modules
nn_utils_rnn_pack_padded_sequence <- function(input, lengths, batch_first = FALSE,
                                              enforce_sorted = TRUE) {
  if (!is_torch_tensor(lengths)) lengths <- torch_tensor(as.numeric(lengths), dtype = torch_long())
  .new_packed(.rnn_call("rnn_pack_padded", .a(input), .a(lengths), .flag(batch_first),
                        .flag(enforce_sorted)))
}

#' @rdname nn_utils_rnn_pack_padded_sequence
#' @export
nn_utils_rnn_pad_packed_sequence <- function(sequence, batch_first = FALSE, padding_value = 0,
                                             total_length = NULL) {
  if (!inherits(sequence, "PackedSequence")) {
    .nn_error("nn_utils_rnn_pad_packed_sequence(): 'sequence' must be a PackedSequence")
  }
  .rnn_call("rnn_pad_packed", .packed_parts(sequence), .flag(batch_first),
            as.numeric(padding_value), total_length)
}

#' @rdname nn_utils_rnn_pack_padded_sequence
#' @export
nn_utils_rnn_pad_sequence <- function(sequences, batch_first = FALSE, padding_value = 0) {
  if (!is.list(sequences)) .nn_error("nn_utils_rnn_pad_sequence(): 'sequences' must be a list")
  .rnn_call("rnn_pad_sequence", lapply(sequences, .a), .flag(batch_first),
            as.numeric(padding_value))
}

#' @rdname nn_utils_rnn_pack_padded_sequence
#' @export
nn_utils_rnn_pack_sequence <- function(sequences, enforce_sorted = TRUE) {
  if (!is.list(sequences)) .nn_error("nn_utils_rnn_pack_sequence(): 'sequences' must be a list")
  lengths <- vapply(sequences, function(s) as.numeric(s$size(1)), numeric(1))
  nn_utils_rnn_pack_padded_sequence(nn_utils_rnn_pad_sequence(sequences), lengths,
                                    enforce_sorted = enforce_sorted)
}
