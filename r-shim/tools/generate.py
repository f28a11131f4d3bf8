"""Generate r-shim/R/gen-ops.R from the Python op registry (and nnf, dtypes).

    python r-shim/tools/generate.py            # rewrite r-shim/R/gen-ops.R
    python r-shim/tools/generate.py --check    # exit 1 if the committed file is stale

Every registered op becomes an R function with the Python signature in R form (1-based dim
defaults): ``torch_<name>`` when the op has a namespace form, and an entry of the method table
(``x$<name>(...)``) when it has a method form. Dims, index arguments and index results are
converted on the Python side (rtorchpy/_r/ops.py), from the same registry.
"""
from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from rtorchpy import dtypes
from rtorchpy.ops import nnf
from rtorchpy._r.ops import _NNF_DIMS, R_ARG_NAMES
from rtorchpy.ops.registry import OPS, namespace_name

sys.path.insert(0, str(Path(__file__).resolve().parent))
import examples  # noqa: E402  (r-shim/tools/examples.py)
import families  # noqa: E402  (r-shim/tools/families.py)

OUT = Path(__file__).resolve().parents[1] / "R" / "gen-ops.R"

PARAM_DOCS = {
    "self": "A tensor (or, for some ops, an R value converted as R torch does).",
    "other": "A tensor or an R number (a length-1 number selects the Scalar overload).",
    "dim": "Dimension(s), 1-based; negative values count from the end.",
    "dims": "Dimensions, 1-based; negative values count from the end.",
    "dim0": "First dimension (1-based).",
    "dim1": "Second dimension of `transpose`; first dimension of `diagonal`'s planes (1-based).",
    "dim2": "Second dimension of `diagonal`'s planes (1-based).",
    "offset": "Which diagonal: 0 the main one, above it when positive, below when negative.",
    "start_dim": "First dimension to flatten (1-based).",
    "end_dim": "Last dimension to flatten (1-based, -1 is the last).",
    "keepdim": "Keep reduced dimensions with size 1.",
    "dtype": "A dtype such as `torch_float64()`, or `NULL`.",
    "index": "Indices, 1-based (an integer tensor or R vector).",
    "indices": "A list of index tensors, one per dimension: long (1-based) or bool masks.",
    "...": "Sizes or dimensions, as separate numbers or one vector.",
    "tensors": "A list of tensors.",
    "LU_data": "The packed LU factors, as `torch_lu` returns them, shape `(*, m, n)`.",
    "LU_pivots": "The pivots of `torch_lu` (LAPACK's 1-based row interchanges, int32).",
    "unpack_data": "`TRUE`: return `L` and `U`; `FALSE`: empty tensors in their place.",
    "unpack_pivots": "`TRUE`: return the permutation matrix `P`; `FALSE`: an empty tensor.",
    "pivot": "Partial pivoting; `FALSE` (no pivoting) is not available on the CPU, as in "
             "libtorch.",
    "get_infos": "`TRUE`: also return `infos`, the 1-based index of the first zero pivot of "
                 "each matrix (0: none).",
    "input3": "The matrix `C` that the Householder product multiplies (`torch_ormqr`).",
    "matrices": "A list of 2-d tensors to multiply in order (`torch_chain_matmul`).",
    "condition": "A bool tensor.",
    "input": "A tensor.",
    "target": "A tensor of targets; class indices are 1-based.",
    "n": "`torch_polygamma`: the order of the derivative of digamma (0, 1, 2, ...); "
         "`torch_diff`: how many times to difference; `*_matrix_power`: the power (negative: "
         "of the inverse); `torch_fft_*`: the signal length (the "
         "input trimmed or zero-padded to it along `dim`; `NULL`: unchanged).",
    "eps": "A small number: `torch_logit` clamps to \\[eps, 1 - eps\\]; the losses use it to keep "
           "logs and variances away from 0.",
    "mean": "The mean of the normal draws: a number or a tensor.",
    "std": "The standard deviation of the normal draws: a number or a tensor.",
    "size": "The shape of the draws when `mean` and `std` are numbers.",
    "num_samples": "How many categories to draw per row.",
    "replacement": "Whether a category may be drawn more than once.",
    "p": "A probability in \\[0, 1\\] used for every element instead of `self`'s values.",
    "log_target": "Whether `target` holds log-probabilities.",
    "log_input": "Whether `input` holds the log of the rate.",
    "full": "Whether to add the constant terms (Stirling's approximation, log(2 pi) / 2).",
    "var": "The variances: a tensor (input's shape, or one dim of size 1 or missing) or a "
           "number.",
    "A": "A tensor of matrices, shape `(*, m, n)` (leading dims are a batch).",
    "B": "A tensor: the right-hand side (matrices, or vectors where noted).",
    "ord": "The order of the norm: a number (`Inf`, `-Inf` included) or \"fro\" / \"nuc\".",
    "upper": "Use (or return) the upper triangle instead of the lower one.",
    "UPLO": "\"L\" or \"U\": which triangle of the symmetric matrix is read.",
    "ind": "How many leading dims form the rows (1-based, as R torch: `ind = 3` is the first "
           "two dims).",
    "as_list": "`TRUE`: a list of index tensors, one per dimension, instead of one matrix with "
               "a row per element (`torch_nonzero`); the indices are 1-based either way.",
    "sizes": "The sizes a dimension is split into (`torch_unflatten`); one may be -1 (inferred).",
    "tensor": "Class values, 1-based as in R torch: an integer (long) tensor (`nnf_one_hot`).",
    "k": "`torch_topk`: how many elements; `torch_kthvalue`: which one in increasing order "
         "(1 is the smallest, in R as in PyTorch).",
    "num_classes": "The number of classes; -1 (the default) takes the largest class value.",
    # -- arguments of particular ops (R terms: 1-based dims and indices, R values) ------------
    "a": "`tensordot`: the first tensor; `x$uniform_()`: the lower bound of the draws.",
    "b": "`tensordot`: the second tensor; `x$uniform_()`: the upper bound of the draws.",
    "accumulate": "`TRUE`: add `values` at the indices (repeated indices add up); `FALSE`: "
                  "write them.",
    "align_corners": "`TRUE`: the corner pixels' centres are the grid's extremes (-1 and 1, "
                     "or the input's first and last samples); `FALSE`: their outer edges are. "
                     "`NULL` takes `FALSE`.",
    "alpha": "A number: the multiplier of `other` (`torch_add`, `torch_sub`) or of the product "
             "(`torch_addmm`); the ELU's scale; LRN's scaling.",
    "append": "Values put after `self` along `dim` before differencing (`torch_diff`).",
    "approximate": "\"none\" for the exact GELU, \"tanh\" for its tanh approximation.",
    "atol": "The absolute tolerance: a number (`torch_isclose`, `torch_allclose`) or, for "
            "`linalg_matrix_rank`/`linalg_pinv`, the singular value below which one counts as "
            "zero (a number or a tensor, `NULL` for the default).",
    "beta": "A number: the multiplier of `self` (`torch_addmm`); the softplus' sharpness; the "
            "smooth L1 loss' switch point; LRN's exponent.",
    "bias": "An optional tensor added to the output (`NULL`: none): one value per output "
            "channel or feature.",
    "cudnn_enable": "Accepted for R torch's sake (there is no cuDNN on the CPU).",
    "cudnn_enabled": "Accepted for R torch's sake (there is no cuDNN on the CPU).",
    "out": "An optional tensor the result is written into (`nnf_normalize`), or `NULL`.",
    "output_ratio": "The output's size as a fraction of the input's, per spatial dimension "
                    "(give this or `output_size`).",
    "random_samples": "Optional: the uniform draws in \\[0, 1) that place the pooling "
                      "windows, shape `(N, C, 2)` (or 3 for 3-d); `NULL` draws them from the "
                      "default generator.",
    "query": "The queries, shape `(L, N, E)` (or `(N, L, E)` with `batch_first`); for "
             "`nnf_scaled_dot_product_attention`, `(..., L, E)`.",
    "key": "The keys, shape `(S, N, E_k)` (or `(..., S, E)` for scaled dot-product attention).",
    "attn_mask": "An optional mask added to (float) or blocking (bool, `TRUE` = masked) the "
                 "attention scores, shape `(L, S)` or `(N * num_heads, L, S)`; `NULL`: none.",
    "key_padding_mask": "An optional `(N, S)` mask of keys to ignore (bool `TRUE` or float "
                        "added), for padded sequences.",
    "is_causal": "`TRUE`: each position attends only to itself and earlier positions.",
    "dropout_p": "The dropout probability applied to the attention weights (0: none).",
    "scale": "The factor applied to the scores before the softmax (`NULL`: 1 / sqrt(E)).",
    "need_weights": "`TRUE`: also return the attention weights.",
    "avg_weights": "`TRUE`: the weights averaged over the heads; `FALSE`: one set per head.",
    "batch_first": "`TRUE`: the batch is the first dim of the inputs and outputs.",
    "num_heads": "The number of attention heads; `embed_dim` must be divisible by it.",
    "embed_dim_to_check": "The model's embedding size, checked against the query's last dim.",
    "in_proj_weight": "The stacked query/key/value projection weights, shape `(3E, E)`.",
    "in_proj_bias": "The stacked projection biases, length `3E`, or `NULL`.",
    "bias_k": "An optional bias row appended to the keys (`add_bias_kv`).",
    "bias_v": "An optional bias row appended to the values (`add_bias_kv`).",
    "add_zero_attn": "`TRUE`: append a row of zeros to the keys and values.",
    "out_proj_weight": "The output projection's weight, shape `(E, E)`.",
    "out_proj_bias": "The output projection's bias, or `NULL`.",
    "use_separate_proj_weight": "`TRUE`: the query, key and value projections are given "
                                "separately (`q_proj_weight`, ...), as when `kdim`/`vdim` "
                                "differ from `embed_dim`.",
    "q_proj_weight": "The query projection's weight (with `use_separate_proj_weight`).",
    "k_proj_weight": "The key projection's weight (with `use_separate_proj_weight`).",
    "v_proj_weight": "The value projection's weight (with `use_separate_proj_weight`).",
    "static_k": "Not supported here (must be `NULL`).",
    "static_v": "Not supported here (must be `NULL`).",
    "offsets": "For 1-d `input`: where each bag starts (0-based positions, as R torch takes "
               "them).",
    "include_last_offset": "`TRUE`: `offsets` has one more element, the end of the last bag.",
    "per_sample_weights": "Optional weights, one per index of `input` (mode \"sum\" only).",
    "margin": "The margin of the loss (a number).",
    "anchor": "The anchor embeddings, shape `(N, D)`.",
    "positive": "The positive examples' embeddings, shape `(N, D)`.",
    "negative": "The negative examples' embeddings, shape `(N, D)`.",
    "swap": "`TRUE`: use the distance between positive and negative when it is smaller "
            "(the distance swap).",
    "lower": "The lower bound of the random slope (`nnf_rrelu`).",
    "batch1": "The first batch of matrices, shape `(b, n, m)`.",
    "batch2": "The second batch of matrices, shape `(b, m, p)`.",
    "compute_uv": "`TRUE`: also compute U and V (`torch_svd`).",
    "end": "The other end: the values interpolated towards (`torch_lerp`).",
    "mat": "A matrix.",
    "memory_format": "Accepted for R torch's sake (tensors here are always contiguous).",
    "non_blocking": "Accepted for R torch's sake (copies here are always synchronous).",
    "some": "`TRUE`: the reduced decomposition; `FALSE`: the full one (R torch's older "
            "`torch_svd`/`torch_qr`).",
    "tensor1": "The first factor of the elementwise product or quotient.",
    "tensor2": "The second factor of the elementwise product or quotient.",
    "transpose": "`TRUE`: solve with the matrix transposed (`torch_triangular_solve`); "
                 "multiply by `Q^T` (`torch_ormqr`).",
    "vec1": "The first vector of the outer product (`torch_addr`).",
    "count_include_pad": "`TRUE`: the padding's zeros count in each window's average.",
    "ceil_mode": "`TRUE`: the output size is rounded up, so a last partial window counts.",
    "check_errors": "`TRUE`: an error when the matrix is not invertible / positive definite, "
                    "instead of reporting it in `info`.",
    "chunks": "How many pieces (`torch_chunk`); the last may be smaller.",
    "col": "The number of columns of the matrix whose triangle is indexed (`NULL`: `row`).",
    "compute_mode": "How `torch_cdist` computes Euclidean distances: "
                    "\"use_mm_for_euclid_dist_if_necessary\" (the default), "
                    "\"use_mm_for_euclid_dist\" or \"donot_use_mm_for_euclid_dist\".",
    "copy": "`TRUE`: always a new tensor, even when nothing changes.",
    "correction": "The difference between the sample size and the divisor: 1 (the default) "
                  "for the unbiased estimate, 0 for the population one.",
    "decimals": "How many decimal places to round to (negative: to tens, hundreds, ...).",
    "delta": "The Huber loss' switch point between the squared and the absolute part.",
    "descending": "`TRUE`: from the largest to the smallest.",
    "destination": "Where the moved dims go (1-based; one number or a vector like `source`).",
    "device": "A device: only \"cpu\" (or `NULL`) here.",
    "diagonal": "Which diagonal: 0 the main one, above it when positive, below when negative.",
    "dilation": "The spacing between the kernel's elements (a number, or one per spatial "
                "dimension).",
    "divisor_override": "If given, every window's sum is divided by this number instead of its "
                        "size.",
    "downscale_factor": "The factor by which the height and width shrink (channels grow by its "
                        "square).",
    "driver": "The LAPACK routine: `NULL` or \"gelsd\"; \"gels\", \"gelsy\", \"gelss\" "
              "are accepted as in R torch.",
    "equal_nan": "`TRUE`: two NaNs count as equal.",
    "equation": "The Einstein summation as a string, e.g. \"ij,jk->ik\".",
    "exponent": "A tensor or an R number: the power.",
    "full_matrices": "`TRUE`: U and V are square; `FALSE`: the reduced SVD.",
    "generator": "A generator made by `torch_generator()`, or `NULL` for the default one.",
    "grid": "A tensor of sampling locations in \\[-1, 1\\]: shape `(N, H_out, W_out, 2)` "
            "(x, y) for 4-d input.",
    "groups": "How many groups the input channels (and the output channels) split into; "
              "both must be divisible by it. `groups` = input channels is a depthwise "
              "convolution.",
    "hermitian": "`TRUE`: the matrices are symmetric, so a faster eigen-decomposition is used.",
    "ignore_index": "A target value (1-based class) that contributes nothing to the loss or "
                    "its mean.",
    "inplace": "`TRUE`: overwrite the input (it must not need its old values for a gradient).",
    "input1": "The first input of the bilinear form, shape `(*, in1_features)`.",
    "input2": "The second input: of the bilinear form (`nnf_bilinear`), the Cholesky factor "
              "(`torch_cholesky_solve`), or the Householder scales (`torch_orgqr`, "
              "`torch_ormqr`).",
    "interpolation": "Between two data points: \"linear\" (the default), \"lower\", "
                     "\"higher\", \"midpoint\" or \"nearest\".",
    "kernel_size": "The window's size: a number, or one per spatial dimension.",
    "largest": "`TRUE`: the k largest elements; `FALSE`: the k smallest.",
    "left": "`TRUE`: solve `A X = B`; `FALSE`: solve `X A = B` (`torch_ormqr`: `Q C` or "
            "`C Q`).",
    "length": "How many elements the slice keeps (`torch_narrow`).",
    "mask": "A bool tensor broadcastable to `self`: where it is `TRUE` the value is written.",
    "mat1": "The first matrix of the product.",
    "mat2": "The second matrix of the product.",
    "max": "The upper bound: a number, a tensor, or `NULL` for none.",
    "max_norm": "If given, rows of `weight` looked up with a larger norm are rescaled to it "
                "(in place).",
    "max_val": "The upper end of the linear region (`nnf_hardtanh`).",
    "min": "The lower bound: a number, a tensor, or `NULL` for none.",
    "min_val": "The lower end of the linear region (`nnf_hardtanh`).",
    "mode": "`nnf_interpolate`/`nnf_upsample`: \"nearest\", \"linear\", \"bilinear\", "
            "\"bicubic\" or \"trilinear\"; `nnf_grid_sample`: \"bilinear\" or \"nearest\"; "
            "`nnf_pad`: \"constant\", \"reflect\", \"replicate\" or \"circular\"; "
            "`linalg_qr`: \"reduced\", \"complete\" or \"r\".",
    "momentum": "The weight of the current batch in the running statistics' update "
                "(`NULL`: a cumulative average).",
    "nan": "The value NaNs become (0 by default).",
    "negative_slope": "The slope for negative inputs.",
    "neginf": "The value -Inf becomes (`NULL`: the dtype's lowest finite value).",
    "norm_type": "The p of the p-norm (2 by default).",
    "normalized_shape": "The trailing shape normalized over (an integer vector).",
    "num_groups": "How many groups the channels are split into; the channels must be divisible "
                  "by it.",
    "output_padding": "Extra size added to one side of each output dimension of a transposed "
                      "convolution (smaller than `stride` or `dilation`), to choose among the "
                      "output sizes the same input can come from.",
    "output_size": "The size of the output: a number or one per spatial dimension "
                   "(`nnf_adaptive_*`, `nnf_fold`, `nnf_max_unpool*`); for "
                   "`torch_repeat_interleave`, the total length if known.",
    "pad": "The padding sizes, last dimension first: `c(left, right)`, then `c(top, bottom)`, "
           "and so on.",
    "padding": "Zeros added on both sides of each spatial dimension: a number, one per "
               "dimension, or (for convolutions) \"same\" or \"valid\".",
    "padding_idx": "A row of `weight` (1-based) whose lookups get no gradient (a padding "
                   "token).",
    "padding_mode": "What `nnf_grid_sample` reads outside the input: \"zeros\", \"border\" "
                    "or \"reflection\".",
    "pos_weight": "A weight for the positive examples, one per class (broadcast over the "
                  "batch).",
    "posinf": "The value Inf becomes (`NULL`: the dtype's largest finite value).",
    "prepend": "Values put before `self` along `dim` before differencing (`torch_diff`).",
    "q": "The probabilities of the quantiles, in \\[0, 1\\]: a number, a vector or a tensor.",
    "rcond": "Singular values below `rcond` times the largest count as zero (`NULL`: the "
             "dtype's machine precision times the larger dimension).",
    "recompute_scale_factor": "`TRUE`: compute the output size from `scale_factor` and then "
                              "interpolate from that size alone.",
    "reduction": "\"mean\" (the default), \"sum\" or \"none\" (one value per element).",
    "repeats": "How many times to repeat: a number, or one count per element along `dim` "
               "(`torch_repeat_interleave`); one count per dimension (`x$repeat()`).",
    "requires_grad": "`TRUE`: the new tensor records operations for autograd.",
    "return_indices": "`TRUE`: also return where each maximum was (1-based flat positions), "
                      "as `nnf_max_unpool*` takes them.",
    "rounding_mode": "`NULL` for true division, \"trunc\" to round towards zero, "
                     "\"floor\" to round down.",
    "row": "The number of rows of the matrix whose triangle is indexed.",
    "rtol": "The relative tolerance: a number (`torch_isclose`, `torch_allclose`) or, for "
            "`linalg_matrix_rank`/`linalg_pinv`, relative to the largest singular value.",
    "running_mean": "The running means (updated in place when `training = TRUE`), or `NULL`.",
    "running_var": "The running variances (updated in place when `training = TRUE`), or "
                   "`NULL`.",
    "scale_factor": "The factor by which each spatial size grows: a number or one per "
                    "dimension (give this or `size`).",
    "scale_grad_by_freq": "`TRUE`: each row's gradient is divided by how often it was looked "
                          "up in the batch.",
    "shifts": "By how many places to roll: a number, or one per dim in `dims`.",
    "sorted": "`TRUE`: the k values come sorted.",
    "source": "The dims to move (1-based: one number or a vector).",
    "sparse": "Accepted for R torch's sake; the gradient of `weight` is always dense here.",
    "split_size_or_sections": "The size of each piece (the last may be smaller), or a vector "
                              "of the pieces' sizes.",
    "src": "The tensor whose values are copied (`x$copy_()`) or added (`torch_scatter_add`).",
    "stable": "`TRUE`: equal elements keep their order.",
    "start": "Where the slice starts (1-based; `torch_narrow`).",
    "stride": "The step of the window: a number, or one per spatial dimension (`NULL` in "
              "pooling: the kernel size).",
    "tau": "The scalar factors of the Householder reflectors, as `torch_geqrf` returns them.",
    "theta": "A batch of affine matrices, shape `(N, 2, 3)` for 2-d (or `(N, 3, 4)` for 3-d).",
    "threshold": "Above `input * beta` = `threshold` the softplus is linear.",
    "tol": "Singular values at or below `tol` count as zero (`NULL`: chosen from the dtype).",
    "training": "`TRUE`: apply dropout / use the batch's statistics; `FALSE`: the identity / "
                "the running statistics.",
    "unbiased": "`TRUE`: divide by n - 1 (Bessel's correction); `FALSE`: by n.",
    "unitriangular": "`TRUE`: the diagonal is taken to be all ones (not read).",
    "upscale_factor": "The factor by which height and width grow (channels shrink by its "
                      "square).",
    "use_input_stats": "`TRUE`: normalize with the input's own statistics.",
    "value": "A number: written where `mask` is `TRUE` (`x$masked_fill()`), into every "
             "element (`x$fill_()`), or into the padding (`nnf_pad`).",
    "values": "The values written (or added) at `indices`.",
    "vec": "A vector (1-d tensor) to multiply by.",
    "vec2": "The second vector of the outer product.",
    "weight": "The layer's weight tensor (convolutions: `(out, in / groups, *kernel)`; "
              "embeddings: one row per index; norms: one value per channel), or, in losses, "
              "a weight per class or element (`NULL`: all 1).",
    "x1": "The first set of points, shape `(*, P, M)`.",
    "x2": "The second set of points, shape `(*, R, M)`.",
    "log_probs": "Log-probabilities (T, N, C) (e.g. from `nnf_log_softmax()`), or (T, C).",
    "targets": "CTC targets: (N, S) padded, or all targets concatenated; class numbers as "
               "stored (the blank class is `blank`).",
    "input_lengths": "Each sample's input length (a tensor or numbers).",
    "target_lengths": "Each sample's target length (a tensor or numbers).",
    "blank": "The blank class, as stored in `log_probs` (0: the first class, as R torch).",
    "zero_infinity": "Whether infinite losses (and their gradients) become zero.",
    "weights": "`torch_bincount()`: a 1-d tensor of one weight per input element (`NULL`: "
               "count each once).",
    "minlength": "`torch_bincount()`: the least number of bins.",
    "N": "`torch_vander()`: the number of columns (`NULL`: the length of `x`).",
    "increasing": "`torch_vander()`: `TRUE` for powers increasing from the left.",
    "fill_value": "`x$fill_diagonal_()`: the value written on the diagonal.",
    "wrap": "`x$fill_diagonal_()`: for a tall matrix, start the diagonal again every "
            "`ncol + 1` rows.",
    "x": "`torch_vander()`: a 1-d tensor.",
    "norm": "`torch_fft_*`: the scaling, `\"backward\"` (`NULL`, the default: none forward, "
            "one over the signal size inverse), `\"forward\"` (the other way round) or "
            "`\"ortho\"` (one over its square root both ways).",
    "s": "`torch_fft_*n`: the signal size along each of `dim` (the input trimmed or "
         "zero-padded to it; -1: unchanged; `NULL`: the input's sizes).",
}
# The list results R torch names (the others are unnamed lists, as in R torch).
RESULT_NAMES = {
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_cholesky_ex": ("L", "info"),
    "linalg_inv_ex": ("inverse", "info"),
}
DEFAULT_DOC = "See the Python documentation of the op of the same name (R conventions apply)."


def _r_default(value, is_dim):
    if value is None or value == ():
        return "NULL"
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return "c(" + ", ".join(_r_default(v, is_dim) for v in value) + ")"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if is_dim and value >= 0:
            value += 1
        return f"{value}L"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value + '"'
    return "NULL"


def _signature(fn, key):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if [p.kind for p in params[1:]] == [inspect.Parameter.VAR_POSITIONAL,
                                       inspect.Parameter.VAR_KEYWORD] and key.endswith("_") \
            and key[:-1] in OPS:
        params = [params[0]] + list(inspect.signature(OPS[key[:-1]].fn).parameters.values())[1:]
    return params


def _function(r_name, caller, key, params, dims, names=None):
    formals, args, dots = [], [], False
    r_names = R_ARG_NAMES.get(key.removesuffix(".method"), {})
    # Keyword-only parameters (after *size) come after `...` in R and are passed right after
    # the positional ones; the bridge's _Plan (rtorchpy/_r/ops.py) makes them keywords again.
    for p in params:
        name = r_names.get(p.name, p.name)  # (passed by position: Python's name is not needed)
        if p.kind is p.VAR_POSITIONAL:
            formals.append("...")
            dots = True
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif p.default is p.empty:
            formals.append(name)
            args.append(name if caller in (".op", ".nnf") else f".a({name})")
        else:
            formals.append(f"{name} = {_r_default(p.default, p.name in dims)}")
            # flags and strings never hold tensors or dtypes: passed as they are
            plain = isinstance(p.default, (bool, str))
            # (.op converts arguments itself when the direct call cannot pass them as they are)
            args.append(name if plain or caller in (".op", ".nnf") else f".a({name})")
    arglist = "list(" + ", ".join(args) + ")"
    if dots:
        arglist = f"c({arglist}, .dots(...))"
    if names:
        quoted = ", ".join(f'"{n}"' for n in names)
        body = (f'{{ .args <- {arglist}; .r <- {caller}("{key}", .args); names(.r) <- c({quoted}); '
                ".r }")
    elif any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
             for p in params):
        # the argument list is built in the wrapper's own frame, so a missing argument is
        # reported against the user's call (`x$transpose(1)`), not the bridge's internals
        body = f'{{ .args <- {arglist}; {caller}("{key}", .args) }}'
    else:
        body = f'{caller}("{key}", {arglist})'
    entry = {".op": ("rtp_op", ".op_reply"), ".nnf": ("rtp_fn", ".fn_reply")}.get(caller)
    if entry and not names:
        # the C entry point directly (the callable cached in C, a tensor reply wrapped in C);
        # any other reply (an error, a list, Python not started yet) goes through .op_reply
        # (.fn_reply for the nnf_* functions). Without `...`, the arguments go to .External as
        # they are: no R list per call (fewer R allocations, see rtp_opx in src/names.c).
        routine, reply = entry
        if dots:
            body = (f'{{ .args <- {arglist}; .r <- .Call({routine}, "{key}", .args); '
                    f'if (is.object(.r)) .r else {reply}("{key}", .args, .r, sys.call()) }}')
        else:
            passed = "".join(", " + a for a in args)
            body = (f'{{ .r <- .External({routine}x, "{key}"{passed}); '
                    f'if (is.object(.r)) .r else {reply}("{key}", {arglist}, .r, sys.call()) }}')
    return f"{r_name} <- function({', '.join(formals)}) {body}", \
        [r_names.get(p.name, p.name) if p.kind is not p.VAR_POSITIONAL else "..." for p in params
         if p.kind is not p.VAR_KEYWORD]


def _returns(r_name, fn):
    """The page's `@return`, from the docstring's opening (a pair, a logical, or a tensor)."""
    if r_name in RESULT_NAMES:
        return "A named list of tensors: " + ", ".join(f"`{n}`" for n in RESULT_NAMES[r_name]) + "."
    doc = inspect.getdoc(fn) or ""
    if doc.startswith("``(") or doc.startswith("(") or "a pair" in doc or "tuple" in doc[:200]:
        return "A tensor, or a list of tensors (see the description)."
    if "Python bool" in doc or "R logical" in doc or r_name.startswith("torch_is_") \
            or r_name == "torch_equal":
        return "An R logical (`TRUE` or `FALSE`)."
    return "A tensor."


def _page(r_name, fn, names, params, missing):
    """The roxygen block of one function's own help page."""
    fam = families.family(r_name, fn)
    desc = families.description(r_name, fn)
    lines = [families.title(r_name, desc), "", desc, ""]
    for n in names:
        lines.append(f"@param {n} {PARAM_DOCS.get(n, DEFAULT_DOC)}")
    # (one link to the family's page, not roxygen's @family list of every other member on each
    # page: with ~80 members that list was half of the installed help)
    lines += [f"@return {_returns(r_name, fn)}",
              f"@seealso Other {fam}: [{family_page(fam)}]", f"@concept {fam}"]
    sig = [p for p in params if p.kind is not p.VAR_KEYWORD]
    required = [n for n, p in zip(names, sig) if p.default is p.empty]
    ex = examples.example(r_name, fam, required, names)
    block = "\n".join("#' " + x if x else "#'" for x in lines)
    if fam == families.OTHER:
        missing.append(f"{r_name} (no family: add it to r-shim/tools/families.py)")
    if ex is None:
        missing.append(f"{r_name} (no example: add one to r-shim/tools/examples.py)")
    else:
        block += "\n" + examples.wrap(ex)
    return block + "\n#' @export\n"


def family_page(fam):
    """The help page of a family (`?family_pointwise_math`), generated below."""
    return "family_" + re.sub(r"[^a-z0-9]+", "_", fam.lower()).strip("_")


def _family_pages(members):
    """A help page per family: its generated functions, linked; its @family tag makes roxygen
    add the hand-written members (and link this page from theirs)."""
    out = []
    for fam in [f for f in families.FAMILIES if f in members] + \
            sorted(f for f in members if f not in families.FAMILIES):
        names = sorted(members[fam])
        out.append("\n".join([
            f"#' Family: {fam}", "#'",
            f"#' The family \"{fam}\". Each function has its own page: "
            + ", ".join(f"[{n}()]" for n in names) + ".",
            f"#' @family {fam}", f"#' @name {family_page(fam)}", "NULL", ""]))
    return out


def _methods_page(methods, fams):
    """The generated part of the `tensor_methods` help page (tensor.R writes the rest): the op
    methods of `.OP_METHODS`, grouped by family, each linked to its function's page."""
    groups = {}
    for key in sorted(methods):
        base = key[:-1] if key.endswith("_") and key[:-1] in methods else key
        fam = fams.get(base, "methods without a function form")
        link = f"[{namespace_name(base)}()]" if base in fams else ""
        groups.setdefault(fam, {}).setdefault(base, [link])
        groups[fam][base].append(f"`x${key}()`")
    order = [f for f in families.FAMILIES if f in groups] + \
        sorted(f for f in groups if f not in families.FAMILIES)
    out = ["#' @name tensor_methods", "#' @rdname tensor_methods", "#' @order 2"]
    for fam in order:
        out += [f"#' @section Methods ({fam}):", "#'"]
        for link, *forms in groups[fam].values():
            out.append(f"#' * {', '.join(forms)}" + (f": see {link}." if link else "."))
    return "\n".join(out) + "\nNULL\n"


def generate(missing=None):
    missing = [] if missing is None else missing
    out = ["# Generated by r-shim/tools/generate.py from the rtorchpy op registry: do not edit.",
           "# Regenerate with: .venv/bin/python r-shim/tools/generate.py", ""]
    methods, fams, members = {}, {}, {}
    blocks, linalg_blocks = [], []
    for key in sorted(OPS):
        info = OPS[key]
        if key.startswith("_"):
            continue
        params = _signature(info.fn, key)
        if info.namespace:
            r_name = namespace_name(key)
            fams[key] = families.family(r_name, info.fn)
            code, names = _function(r_name, ".op", key, params, info.dim_args,
                                    RESULT_NAMES.get(key))
            page = _page(r_name, info.fn, names, params, missing) + code
            members.setdefault(fams[key], []).append(r_name)
            (linalg_blocks if key.startswith("linalg_") else blocks).append(page)
        else:
            r_name = ".m_" + key
            code, _ = _function(f"`{r_name}`", ".op", key, params, info.dim_args)
            blocks.append(code)
        if info.method and info.method_fn is not None:
            # the method orders its arguments differently (x$where(condition, other)):
            # a wrapper of its own, calling the method plan of the bridge
            m_name = ".m_" + key
            code, _ = _function(f"`{m_name}`", ".op", key + ".method",
                                _signature(info.method_fn, key), info.dim_args)
            blocks.append(code)
            methods[key] = m_name
        elif info.method:
            methods[key] = r_name
    nnf_blocks = []
    for name in nnf.__all__:
        fn = getattr(nnf, name)
        params = list(inspect.signature(fn).parameters.values())
        code, names = _function(name, ".nnf", name, params, _NNF_DIMS.get(name, ()))
        nnf_blocks.append(_page(name, fn, names, params, missing) + code)
        members.setdefault(families.family(name, fn), []).append(name)
    dtype_blocks = []
    for name in dtypes.__all__:
        obj = getattr(dtypes, name)
        if not name.startswith("torch_") or name in ("torch_get_default_dtype",
                                                     "torch_set_default_dtype",
                                                     "torch_finfo", "torch_iinfo"):
            continue
        d = obj()
        dtype_blocks.append(f"#' @rdname torch_dtype\n#' @export\n"
                            f'{name} <- function() .dtype("{d.name}", "{d.word}")')

    out.extend(b + "\n" for b in blocks)
    out.append("# Method table: x$<name>(...) calls the function named here.")
    out.append(".OP_METHODS <- c(\n" + ",\n".join(
        f'  `{k}` = "{v}"' for k, v in sorted(methods.items())) + "\n)\n")
    out.append(_methods_page(methods, fams))
    out.extend(b + "\n" for b in linalg_blocks)
    out.extend(b + "\n" for b in nnf_blocks)
    out.append("#' Data types\n#'\n#' `torch_float32()`, `torch_long()`, ...: dtype objects "
               "printed as R torch prints them\n#' (`torch_Float`). `torch_bfloat16()` tensors "
               "hold float32 values rounded to bfloat16;\n#' `as_array()` gives doubles.\n"
               "#' @return A `torch_dtype`.\n"
               "#' @examples\n#' if (rtorchpy_available()) {\n#'   torch_float64()\n"
               "#'   torch_ones(2, dtype = torch_long())\n#' }\n"
               "#' @family tensors\n#' @name torch_dtype\nNULL\n")
    out.extend(b + "\n" for b in dtype_blocks)
    out.extend(_family_pages(members))
    return "\n".join(out)


def main(argv):
    missing = []
    text = generate(missing)
    if "--missing" in argv:
        print("\n".join(missing))
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run .venv/bin/python r-shim/tools/generate.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
