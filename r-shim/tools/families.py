"""What the R help page of each generated function says besides its arguments: its family, its
title and description (from the op registry's docstrings, rewritten for R), and its example.

Used by generate.py. One page per function, as R torch has them (`?torch_abs`). The families
also name the site's R reference pages (scripts/build_docs.py).
"""
from __future__ import annotations

import inspect
import re

# The families, in the order the site lists them.
FAMILIES = ("pointwise math", "comparison", "reductions", "sorting and quantiles", "indexing",
            "shape", "matrix products", "linear algebra", "signal processing", "random numbers",
            "tensor properties",
            "activations", "losses", "convolution", "pooling", "normalization", "dropout",
            "neural network functions")

OTHER = "other functions"

# The family of a registry op, by the Python module that defines it ...
_MODULE_FAMILY = {
    "elementwise": "pointwise math", "arith": "pointwise math", "special": "pointwise math",
    "composites": "pointwise math", "everyday": "indexing", "linalg": "matrix products",
    "reduce": "reductions", "sorting": "sorting and quantiles", "sampling": "random numbers",
    "matrix": "matrix products", "shape": "shape", "unflatten": "shape",
    "legacy": "linear algebra", "linalg_solve": "linear algebra",
    "linalg_decomp": "linear algebra", "linalg_norm": "linear algebra", "index": "indexing",
    "selection": "indexing",
    # nnf modules
    "nnf_losses": "losses", "nnf_margin_losses": "losses", "conv": "convolution",
    "pool": "pooling", "pool_adaptive": "pooling", "pool_fractional": "pooling",
    "nnf_activations": "activations", "nnf_composite": "neural network functions",
    "fold": "neural network functions", "interpolate": "neural network functions",
    "grid_sample": "neural network functions", "attention": "neural network functions",
    "nnf_bag": "neural network functions", "pad": "neural network functions",
    "legacy_lu": "linear algebra", "ctc": "losses", "nnf_more": "activations",
    "fft": "signal processing", "seq_extras": "shape",
}
# ... unless named here (R names).
_OVERRIDE = {
    "comparison": "torch_allclose torch_eq torch_equal torch_ge torch_greater "
                  "torch_greater_equal torch_gt torch_isclose torch_isfinite torch_isinf "
                  "torch_isnan torch_le torch_less torch_less_equal torch_lt torch_ne "
                  "torch_not_equal torch_logical_and torch_logical_not torch_logical_or "
                  "torch_logical_xor torch_isneginf torch_isposinf torch_signbit "
                  "torch_maximum torch_minimum",
    "reductions": "torch_count_nonzero torch_nansum torch_dist torch_trace torch_cumprod "
                  "torch_diff torch_std_mean torch_var_mean torch_median",
    "sorting and quantiles": "torch_kthvalue torch_cummax torch_cummin",
    "indexing": "torch_where torch_take torch_index_add torch_index_copy torch_index_fill "
                "torch_scatter torch_tril_indices torch_triu_indices torch_select "
                "torch_narrow",
    "matrix products": "torch_addbmm torch_addmv torch_addr torch_baddbmm torch_vdot",
    "shape": "torch_diag torch_diag_embed torch_diagflat torch_tril torch_triu "
             "torch_repeat_interleave torch_tile torch_reshape_as torch_view_as",
    "tensor properties": "torch_is_complex torch_is_nonzero torch_is_same_size "
                         "torch_is_signed",
    "pointwise math": "torch_nan_to_num torch_addcdiv torch_addcmul",
    "activations": "torch_relu torch_sigmoid torch_softmax torch_log_softmax nnf_relu "
                   "nnf_sigmoid nnf_tanh nnf_softmax nnf_log_softmax nnf_gelu nnf_silu "
                   "nnf_elu nnf_leaky_relu nnf_relu6 nnf_hardtanh nnf_softplus "
                   "nnf_logsigmoid",
    "losses": "nnf_multilabel_margin_loss "
              "nnf_mse_loss nnf_nll_loss nnf_cross_entropy nnf_binary_cross_entropy "
              "nnf_l1_loss nnf_smooth_l1_loss nnf_huber_loss "
              "nnf_binary_cross_entropy_with_logits",
    "neural network functions": "nnf_linear nnf_one_hot nnf_bilinear nnf_embedding "
                             "torch_pixel_shuffle torch_pixel_unshuffle torch_channel_shuffle "
                             "torch_constant_pad_nd torch_embedding",
    "normalization": "nnf_layer_norm nnf_batch_norm nnf_group_norm nnf_instance_norm "
                     "nnf_local_response_norm torch_batch_norm torch_instance_norm "
                     "torch_layer_norm torch_group_norm",
    "dropout": "nnf_dropout nnf_dropout2d nnf_dropout3d nnf_alpha_dropout "
               "nnf_feature_alpha_dropout",
    "convolution": "torch_conv1d torch_conv2d torch_conv3d torch_conv_transpose1d "
                   "torch_conv_transpose2d torch_conv_transpose3d torch_conv_tbc nnf_conv_tbc",
    "pooling": "torch_max_pool1d torch_max_pool2d torch_max_pool3d torch_avg_pool1d "
               "torch_adaptive_avg_pool1d torch_adaptive_max_pool1d nnf_lp_pool1d "
               "nnf_lp_pool2d",
}
_OVERRIDE["reductions"] += " torch_bincount"
_OVERRIDE["indexing"] += " torch_index torch_index_put_"
_OVERRIDE["matrix products"] += " torch_cross torch_vander"
_OVERRIDE["tensor properties"] += " torch_result_type"
_OVERRIDE["pointwise math"] += " torch_conj torch_real torch_imag"

_BY_NAME = {n: fam for fam, names in _OVERRIDE.items() for n in names.split()}


def family(r_name, fn):
    """The family of the R function `r_name` whose Python function is `fn`."""
    if r_name in _BY_NAME:
        return _BY_NAME[r_name]
    # (an op of a new module: "other functions" until it is given a family here; the tests
    # list it, through `generate.py --missing`)
    return _MODULE_FAMILY.get(fn.__module__.rsplit(".", 1)[-1], OTHER)


# ------------------------------------------------------------------------------ descriptions
# Descriptions written for R where the docstring's first sentences do not read right in R
# (Python syntax, 0-based dims) or the op has no docstring.
DESCRIPTIONS = {
    "torch_broadcast_to": "`self` broadcast to the shape `size` (a view, no copy).",
    "torch_contiguous": "`self` itself: every tensor here is contiguous.",
    "torch_isclose": "Elementwise, whether `self` and `other` are close: "
                     "`abs(self - other) <= atol + rtol * abs(other)`; a bool tensor.",
    "torch_allclose": "`TRUE` if every element of `self` is close to `other`'s "
                      "(see `torch_isclose()`): an R logical.",
    "torch_equal": "`TRUE` if both tensors have the same shape and values: an R logical.",
    "torch_expand_as": "`self` broadcast to the shape of `other` (a view).",
    "torch_gather": "The values of `self` at `index` along `dim`: for `dim = 1`, "
                    "`out[i, j] = self[index[i, j], j]`. Indices are 1-based.",
    "torch_permute": "Reorder the dims: `torch_permute(x, c(3, 1, 2))` puts the last dim "
                     "first (1-based dims).",
    "linalg_tensorinv": "The inverse of `A` for `torch_tensordot()` over its first `ind - 1` "
                        "dims (R torch's convention): `A` reshaped to a square matrix, "
                        "inverted and reshaped back.",
    "linalg_tensorsolve": "The `X` with `torch_tensordot(A, X, X$dim()) == B`; `dims` "
                          "(optional) are dims of `A` moved to the end first.",
    "torch_addmm": "`beta * self + alpha * (mat1 %*% mat2)` (`self` broadcasts).",
    "torch_bmm": "Batched matrix product of two 3-d tensors: `out[b, , ] = self[b, , ] %*% "
                 "mat2[b, , ]`.",
    "torch_nonzero": "The indices (1-based) of the non-zero elements, one row per element in "
                     "row-major order: a long tensor of shape `(count, ndim)`; "
                     "`as_list = TRUE` gives one index tensor per dim.",
    "torch_multinomial": "`num_samples` category indices (1-based, long) per row of `self`, "
                         "drawn with probability proportional to the row's non-negative "
                         "weights.",
    "torch_tril_indices": "The (row, column) indices (1-based) of the lower triangle of a "
                          "`row` x `col` matrix, as a 2 x N long tensor in row-major order.",
    "torch_triu_indices": "The (row, column) indices (1-based) of the upper triangle of a "
                          "`row` x `col` matrix, as a 2 x N long tensor in row-major order.",
    "torch_unbind": "The slices along `dim`, as a list of tensors with that dim removed.",
    "torch_tile": "Repeat the tensor `dims[i]` times along dim i (`dims` are repetition "
                  "counts, not dimensions); fewer counts than dims count as leading 1s.",
    "torch_repeat": "Tile the tensor `repeats[i]` times along dim i (copies).",
    "torch_mT": "Swap the last two dims (a batch of matrix transposes); also `x$mT()`.",
    "torch_tensordot": "Contract `dims` dims: a number n (the last n of `a` with the first n "
                       "of `b`) or a list of two vectors of (1-based) dims.",
    "torch_where": "`torch_where(condition, self, other)`: `self` where `condition` is "
                   "`TRUE`, else `other`.",
    "nnf_sigmoid": "The logistic sigmoid `1 / (1 + exp(-input))`, elementwise.",
    "nnf_tanh": "The hyperbolic tangent, elementwise.",
    "nnf_softmax": "`exp(input) / sum(exp(input))` along `dim`, computed without overflow.",
    "nnf_log_softmax": "`log(softmax(input))` along `dim`, computed stably.",
    "nnf_one_hot": "Class values (a long tensor of any shape, 1-based) as one-hot rows: a "
                   "long tensor with one more dim of size `num_classes`, 1 at each value's "
                   "class.",
    "nnf_linear": "`input %*% t(weight) + bias`: the affine map of a linear layer.",
    "nnf_prelu": "`x` where positive, `weight * x` elsewhere; a weight of several values is "
                 "one per channel (dim 2).",
    "nnf_multi_margin_loss": "Per sample: the mean over classes `i != y` of "
                             "`max(0, margin - x[y] + x[i])^p` (times `weight[y]` when given); "
                             "`target` holds 1-based class indices.",
    "torch_diff": "The n-th forward difference along `dim` (`x[-1] - x[-n]` for a vector, n "
                  "times), after putting `prepend` and `append` before and after `self`.",
    "torch_geqrf": "The QR factorisation in compact form: a list of `R` (on and above the "
                   "diagonal) with the Householder vectors below it, and their scales `tau`.",
    "torch_matmul": "The matrix product with broadcasting: 1-d operands are vectors, extra "
                    "leading dims are batches.",
    "nnf_batch_norm": "Batch normalization over dim 2 (the channels) of an input "
                      "`(N, C, ...)`, with the batch's statistics (`training = TRUE`) or the "
                      "running ones.",
    "nnf_embedding": "The rows of `weight` (num_embeddings, embedding_dim) picked by the "
                     "1-based integer `input`: one more dim, of size embedding_dim.",
    "nnf_local_response_norm": "Divide each element by `(k + alpha * m)^beta`, `m` the mean "
                               "of the squares over `size` neighbouring channels (dim 2).",
    "torch_batch_norm": "`nnf_batch_norm()` with libtorch's argument order (as R torch "
                        "exports it).",
    "torch_instance_norm": "`nnf_instance_norm()` with libtorch's argument order (as R torch "
                           "exports it).",
    "torch_embedding": "`nnf_embedding()` with libtorch's argument order: rows of `weight` "
                       "picked by the 1-based `indices`.",
    "nnf_conv_tbc": "`torch_conv_tbc()` under its `nnf_` name: a 1-d convolution of `input` "
                    "(time, batch, channels) with `weight` (kernel, in, out) and `bias` (out).",
    "nnf_pixel_shuffle": "Rearrange `(*, C r^2, H, W)` into `(*, C, H r, W r)`: each group "
                         "of r^2 channels becomes an r x r block of pixels (r is "
                         "`upscale_factor`).",
    "nnf_multi_head_attention_forward": "Multi-head attention on `(L, N, E)` query and "
                                        "`(S, N, E_k)` key and value; returns a list "
                                        "(output, weights).",
}

_SKIP_WORDS = r"libtorch|Backward|Python|PyTorch|grad_fn|LAPACK|NumPy"
_SKIP = re.compile(_SKIP_WORDS, re.I)
_R_VALUES = {"None": "NULL", "True": "TRUE", "False": "FALSE"}


def _r_code(code):
    """Python spelled in R inside a code span."""
    code = re.sub(r"\b(None|True|False)\b", lambda m: _R_VALUES[m.group(1)], code)
    code = re.sub(r"(\w)=(\w)", r"\1 = \2", code).replace("**", "^").replace("@", "%*%")
    code = re.sub(r"\bx\.(\w+)\(", r"x$\1(", code)
    return code.replace("len(", "length(")


def _r_words(text):
    """A docstring sentence in R's words: code in backticks, R values, Rd-safe."""
    parts = text.replace("``", "`").split("`")
    for i, part in enumerate(parts):
        if i % 2:
            # (roxygen would run a code span that starts with "r " as inline R code)
            parts[i] = _r_code(part) if not part.startswith("r ") else "(" + part + ")"
            continue
        part = re.sub(r"\b(None|True|False)\b", lambda m: f"`{_R_VALUES[m.group(1)]}`", part)
        part = part.replace("`NULL`/`NULL`", "`NULL`").replace("(a Python bool)", "(an R logical)")
        part = re.sub(r"\bint64\b", "long", part).replace("tuple", "list")
        part = _r_code(part) if "**" in part or "x." in part else part
        # square brackets outside code would be markdown links
        parts[i] = part.replace("[", "\\[").replace("]", "\\]")
    return "`".join(parts).replace("%", "\\%")


def _trim(sentence):
    """A sentence without its clauses about libtorch's or Python's internals ('' if all is)."""
    sentence = re.sub(r"\s*\([^()]*(" + _SKIP_WORDS + r")[^()]*\)", "", sentence)
    m = _SKIP.search(sentence)
    if not m:
        return sentence
    cut = max(sentence.rfind(sep, 0, m.start()) for sep in ("; ", ", ", ": "))
    return sentence[:cut].rstrip(" ,;:") + "." if cut > 15 else ""


def description(r_name, fn):
    """One or two sentences about `r_name` for its R help page."""
    if DESCRIPTIONS.get(r_name):
        return DESCRIPTIONS[r_name].replace("%", "\\%")
    doc = (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
    sentences = [s for s in re.split(r"(?<=[^.]\.) (?=[A-Z(`])", doc) if s]
    kept = []
    for s in sentences:
        s = _trim(s)
        if not s or (kept and len(" ".join(kept + [s])) > 260):
            break
        kept.append(s)
    text = " ".join(kept) or f"R torch's `{r_name}()`."
    if not text.endswith("."):
        text += "."
    return _r_words(text)


def title(r_name, desc):
    """The page title: the description when short and plain, else the name in words."""
    first = desc.split(". ")[0].rstrip(".")
    if len(first) <= 60 and "`" not in first and "\\" not in first and first[:1].isupper():
        return first
    prefix, words = r_name.split("_", 1)
    words = words.replace("_", " ")
    # (torch_svd and linalg_svd, torch_softmax and nnf_softmax: titles that tell them apart)
    return words[:1].upper() + words[1:] + ("" if prefix == "torch" else f" ({prefix})")
