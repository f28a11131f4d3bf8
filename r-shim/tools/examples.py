"""The `@examples` of the generated R help pages (used by generate.py).

A family's template gives the inputs (`x`, `y`, ...) and the value of each required argument by
name; the call is then the function with its required arguments (and a second call with
`dim = 1` for functions that take a `dim`). Functions that need particular inputs have their
lines written out in EXAMPLES. Every example runs in tests/test_r_examples.py.
"""
from __future__ import annotations

import re

# family -> (setup lines, {argument: R expression})
_TEMPLATES = {
    "pointwise math": ("x <- torch_tensor(c(0.2, 0.5, 0.8))\ny <- torch_tensor(c(2, 1, 0.5))",
                       {"self": "x", "other": "y", "exponent": "2", "tensor1": "y",
                        "tensor2": "y", "end": "y", "weight": "0.5", "min": "0.3",
                        "max": "0.6", "values": "y", "input": "x"}),
    "comparison": ("x <- torch_tensor(c(1, 2, 3))\ny <- torch_tensor(c(3, 2, 1))",
                   {"self": "x", "other": "y"}),
    "reductions": ("x <- torch_tensor(matrix(c(1, 5, 2, 4, 3, 6), nrow = 2))",
                   {"self": "x", "dim": "1", "other": "x"}),
    "sorting and quantiles": ("x <- torch_tensor(matrix(c(1, 5, 2, 4, 3, 6), nrow = 2))",
                              {"self": "x", "dim": "1", "k": "1", "q": "0.5",
                               "repeats": "2"}),
    "indexing": ("x <- torch_tensor(matrix(c(1, 2, 3, 4, 5, 6), nrow = 2))",
                 {"self": "x", "dim": "1", "index": "torch_tensor(c(2L, 1L))",
                  "mask": "x > 3", "value": "0", "source": "torch_zeros(2, 3)",
                  "src": "torch_ones(2, 3)"}),
    "shape": ("x <- torch_tensor(matrix(c(1, 2, 3, 4, 5, 6), nrow = 2))",
              {"self": "x", "dim": "1", "dim0": "1", "dim1": "2", "...": "c(3, 2)",
               "tensors": "list(x, x)", "other": "x"}),
    "matrix products": ("a <- torch_tensor(matrix(c(1, 2, 3, 4), nrow = 2))\n"
                        "b <- torch_tensor(matrix(c(0, 1, 1, 0), nrow = 2))",
                        {"self": "a", "mat2": "b", "other": "b"}),
    "linear algebra": ("A <- torch_tensor(matrix(c(4, 1, 1, 3), nrow = 2))\n"
                       "B <- torch_tensor(matrix(c(1, 2), nrow = 2))",
                       {"A": "A", "B": "B", "self": "A", "n": "2"}),
    "tensor properties": ("x <- torch_tensor(c(1, 2, 3))", {"self": "x", "other": "x"}),
    "activations": ("x <- torch_tensor(rbind(c(-2, -0.5, 0.5, 2), c(-1, 0, 1, 3)))",
                    {"self": "x", "input": "x", "dim": "2", "weight": "torch_tensor(0.25)",
                     "threshold": "0.5", "value": "0"}),
    "losses": ("input <- torch_tensor(rbind(c(0.2, 0.7, 0.1), c(0.6, 0.3, 0.1)))\n"
               "target <- torch_tensor(rbind(c(0, 1, 0), c(1, 0, 0)))",
               {"input": "input", "target": "target"}),
}


def _rand(name):
    """An input batch of one sample and 2 channels with the function's spatial dims."""
    if "1d" in name:
        return "torch_randn(1, 2, 8)"
    if "3d" in name:
        return "torch_randn(1, 2, 4, 4, 4)"
    return "torch_randn(1, 2, 8, 8)"


# Lines written out for the functions the templates do not fit (R names).
EXAMPLES = {
    # sequences and signals (issue 33)
    "torch_atleast_1d": "torch_atleast_1d(torch_tensor(3))",
    "torch_atleast_2d": "torch_atleast_2d(torch_tensor(c(1, 2, 3)))",
    "torch_atleast_3d": "torch_atleast_3d(torch_tensor(c(1, 2, 3)))",
    "torch_bincount": "torch_bincount(torch_tensor(c(0L, 1L, 1L, 3L)))",
    "torch_cross": "torch_cross(torch_tensor(c(1, 0, 0)), torch_tensor(c(0, 1, 0)))",
    "torch_cummax": "torch_cummax(torch_tensor(c(1, 3, 2, 5, 4)), dim = 1)",
    "torch_cummin": "torch_cummin(torch_tensor(c(5, 3, 4, 1, 2)), dim = 1)",
    "torch_vander": "torch_vander(torch_tensor(c(1, 2, 3)), N = 3)",
    "torch_index": "x <- torch_tensor(matrix(1:6, nrow = 2))\n"
                   "torch_index(x, list(torch_tensor(c(2L, 1L), dtype = torch_long())))",
    "torch_index_put_": "x <- torch_zeros(3)\n"
                        "torch_index_put_(x, list(torch_tensor(2L, dtype = torch_long())), "
                        "torch_tensor(5))\nx",
    "torch_narrow_copy": "torch_narrow_copy(torch_tensor(c(1, 2, 3, 4)), 1, 2, 2)",
    "torch_result_type": "torch_result_type(torch_tensor(1L), 2.5)",
    "torch_fft_fft": "torch_fft_fft(torch_tensor(c(1, 2, 3, 4)))",
    "torch_fft_ifft": "torch_fft_ifft(torch_fft_fft(torch_tensor(c(1, 2, 3, 4))))",
    "torch_fft_rfft": "torch_fft_rfft(torch_tensor(c(1, 2, 3, 4)))",
    "torch_fft_irfft": "torch_fft_irfft(torch_fft_rfft(torch_tensor(c(1, 2, 3, 4))))",
    "torch_fft_fftn": "torch_fft_fftn(torch_tensor(rbind(c(1, 2, 3), c(4, 5, 6))))",
    "torch_fft_ifftn": "x <- torch_tensor(rbind(c(1, 2, 3), c(4, 5, 6)))\n"
                       "torch_fft_ifftn(torch_fft_fftn(x, s = c(2, 4)))",
    "torch_fft_rfftn": "torch_fft_rfftn(torch_tensor(rbind(c(1, 2, 3, 4), c(5, 6, 7, 8))))",
    "torch_fft_irfftn": "x <- torch_tensor(rbind(c(1, 2, 3, 4), c(5, 6, 7, 8)))\n"
                        "torch_fft_irfftn(torch_fft_rfftn(x), s = c(2, 4))",
    "torch_real": "z <- torch_fft_fft(torch_tensor(c(1, 2, 3, 4)))\ntorch_real(z)",
    "torch_imag": "z <- torch_fft_fft(torch_tensor(c(1, 2, 3, 4)))\ntorch_imag(z)",
    "torch_conj": "z <- torch_fft_fft(torch_tensor(c(1, 2, 3, 4)))\ntorch_conj(z)",
    "torch_view_as_real": "z <- torch_fft_fft(torch_tensor(c(1, 2, 3, 4)))\n"
                          "torch_view_as_real(z)",
    "torch_view_as_complex": "torch_view_as_complex(torch_tensor(rbind(c(1, 2), c(3, 4))))",
    # LU and QR factors in LAPACK's form (issue 29)
    "torch_lu": "A <- torch_tensor(rbind(c(4, 3), c(6, 3)))\nf <- torch_lu(A)\nf[[1]]\nf[[2]]",
    "torch_lu_solve": "A <- torch_tensor(rbind(c(4, 3), c(6, 3)))\nf <- torch_lu(A)\n"
                      "torch_lu_solve(torch_tensor(rbind(1, 2)), f[[1]], f[[2]])",
    "torch_lu_unpack": "A <- torch_tensor(rbind(c(4, 3), c(6, 3)))\nf <- torch_lu(A)\n"
                       "torch_lu_unpack(f[[1]], f[[2]])",
    "torch_orgqr": "A <- torch_tensor(rbind(c(2, 1), c(1, 3), c(0, 1)))\nqr <- torch_geqrf(A)\n"
                   "torch_orgqr(qr[[1]], qr[[2]])",
    "torch_ormqr": "A <- torch_tensor(rbind(c(2, 1), c(1, 3), c(0, 1)))\nqr <- torch_geqrf(A)\n"
                   "torch_ormqr(qr[[1]], qr[[2]], torch_eye(3))",
    "torch_chain_matmul": "torch_chain_matmul(list(torch_randn(2, 3), torch_randn(3, 4), "
                          "torch_randn(4, 2)))",
    "nnf_mish": "nnf_mish(torch_tensor(c(-2, 0, 2)))",
    "nnf_rrelu": "nnf_rrelu(torch_tensor(c(-2, 0, 2)))\n"
                 "nnf_rrelu(torch_tensor(c(-2, 0, 2)), training = TRUE)",
    "nnf_rrelu_": "x <- torch_tensor(c(-2, 0, 2))\nnnf_rrelu_(x)\nx",
    "nnf_contrib_sparsemax": "nnf_contrib_sparsemax(torch_tensor(rbind(c(1, 2, 0.5), "
                             "c(3, 0, 0))), dim = 2)",
    "nnf_multilabel_margin_loss": "x <- torch_tensor(rbind(c(0.1, 0.2, 0.4, 0.8)))\n"
                                  "y <- torch_tensor(rbind(c(4L, 1L, -1L, -1L)),\n"
                                  "                  dtype = torch_long())\n"
                                  "nnf_multilabel_margin_loss(x, y)",
    "nnf_ctc_loss": "log_probs <- nnf_log_softmax(torch_randn(5, 2, 4), dim = 3)\n"
                    "targets <- torch_tensor(rbind(c(1L, 2L), c(3L, 1L)), dtype = torch_long())\n"
                    "nnf_ctc_loss(log_probs, targets, c(5L, 5L), c(2L, 2L))",
    "torch_acosh": "torch_acosh(torch_tensor(c(1, 2, 3)))",
    "torch_arccosh": "torch_arccosh(torch_tensor(c(1, 2, 3)))",
    "torch_bitwise_and": "torch_bitwise_and(torch_tensor(c(12L, 10L)), torch_tensor(c(10L, 6L)))",
    "torch_bitwise_or": "torch_bitwise_or(torch_tensor(c(12L, 10L)), torch_tensor(c(10L, 6L)))",
    "torch_bitwise_xor": "torch_bitwise_xor(torch_tensor(c(12L, 10L)), torch_tensor(c(10L, 6L)))",
    "torch_bitwise_not": "torch_bitwise_not(torch_tensor(c(0L, 5L)))",
    "torch_polygamma": "torch_polygamma(1, torch_tensor(c(0.5, 1, 2)))",
    "torch_where": "x <- torch_tensor(c(-1, 2, -3))\ntorch_where(x > 0, x, torch_zeros(3))",
    "torch_clamp": "torch_clamp(torch_tensor(c(-2, 0.5, 3)), min = 0, max = 1)",
    "torch_clip": "torch_clip(torch_tensor(c(-2, 0.5, 3)), min = 0, max = 1)",
    "torch_gather": "x <- torch_tensor(rbind(c(1, 2), c(3, 4)))\n"
                    "torch_gather(x, 2, torch_tensor(rbind(c(1L, 1L), c(2L, 1L))))",
    "torch_scatter": "x <- torch_zeros(2, 3)\n"
                     "torch_scatter(x, 2, torch_tensor(rbind(c(1L), c(3L))), 1)",
    "torch_select": "x <- torch_tensor(matrix(c(1, 2, 3, 4, 5, 6), nrow = 2))\n"
                    "torch_select(x, 1, 2)",
    "torch_is_nonzero": "torch_is_nonzero(torch_tensor(1))",
    "linalg_matrix_norm": "A <- torch_tensor(matrix(c(4, 1, 1, 3), nrow = 2))\n"
                          "linalg_matrix_norm(A)\nlinalg_matrix_norm(A, ord = 1)",
    "nnf_kl_div": "logp <- nnf_log_softmax(torch_randn(2, 3), dim = 2)\n"
                  "q <- nnf_softmax(torch_randn(2, 3), dim = 2)\n"
                  "nnf_kl_div(logp, q, reduction = \"batchmean\")",
    # matrix products
    "torch_addmm": "m <- torch_ones(2, 2)\ntorch_addmm(m, torch_eye(2), torch_randn(2, 2))",
    "torch_addmv": "torch_addmv(torch_ones(2), torch_eye(2), torch_tensor(c(1, 2)))",
    "torch_addr": "torch_addr(torch_zeros(2, 3), torch_tensor(c(1, 2)), torch_tensor(c(1, 2, 3)))",
    "torch_addbmm": "torch_addbmm(torch_zeros(2, 2), torch_randn(3, 2, 4), torch_randn(3, 4, 2))",
    "torch_baddbmm": "torch_baddbmm(torch_zeros(3, 2, 2), torch_randn(3, 2, 4), "
                     "torch_randn(3, 4, 2))",
    "torch_bmm": "torch_bmm(torch_randn(3, 2, 4), torch_randn(3, 4, 2))",
    "torch_cdist": "torch_cdist(torch_randn(3, 2), torch_randn(4, 2))",
    "torch_einsum": "a <- torch_randn(2, 3)\nb <- torch_randn(3, 4)\n"
                    "torch_einsum(\"ij,jk->ik\", list(a, b))",
    "torch_dot": "torch_dot(torch_tensor(c(1, 2, 3)), torch_tensor(c(4, 5, 6)))",
    "torch_vdot": "torch_vdot(torch_tensor(c(1, 2, 3)), torch_tensor(c(4, 5, 6)))",
    "torch_ger": "torch_ger(torch_tensor(c(1, 2)), torch_tensor(c(1, 2, 3)))",
    "torch_outer": "torch_outer(torch_tensor(c(1, 2)), torch_tensor(c(1, 2, 3)))",
    "torch_mv": "torch_mv(torch_eye(2), torch_tensor(c(1, 2)))",
    "torch_tensordot": "a <- torch_randn(2, 3)\nb <- torch_randn(3, 4)\n"
                       "torch_tensordot(a, b, dims = 1)",
    "torch_kron": "torch_kron(torch_eye(2), torch_ones(2, 2))",
    "torch_diag": "torch_diag(torch_tensor(c(1, 2, 3)))",
    "torch_diag_embed": "torch_diag_embed(torch_tensor(rbind(c(1, 2), c(3, 4))))",
    "torch_diagflat": "torch_diagflat(torch_tensor(c(1, 2, 3)))",
    "torch_tril_indices": "torch_tril_indices(3, 3)",
    "torch_triu_indices": "torch_triu_indices(3, 3)",
    # shape
    "torch_broadcast_to": "torch_broadcast_to(torch_tensor(c(1, 2, 3)), c(2, 3))",
    "torch_chunk": "torch_chunk(torch_arange(1, 6), chunks = 3)",
    "torch_expand": "x <- torch_tensor(c(1, 2, 3))\ntorch_expand(x, c(2, 3))",
    "torch_flip": "x <- torch_tensor(matrix(1:6, nrow = 2))\ntorch_flip(x, dims = 1)",
    "torch_movedim": "x <- torch_zeros(2, 3, 4)\ntorch_movedim(x, 1, 3)$shape",
    "torch_permute": "x <- torch_zeros(2, 3, 4)\ntorch_permute(x, c(3, 1, 2))$shape",
    "torch_repeat_interleave": "torch_repeat_interleave(torch_tensor(c(1, 2, 3)), 2)",
    "torch_roll": "torch_roll(torch_tensor(c(1, 2, 3, 4)), shifts = 1)",
    "torch_split": "torch_split(torch_arange(1, 5), 2)",
    "torch_tile": "torch_tile(torch_tensor(c(1, 2)), c(2, 2))",
    "torch_unflatten": "x <- torch_zeros(2, 6)\ntorch_unflatten(x, 2, c(2, 3))$shape",
    "torch_narrow": "x <- torch_tensor(matrix(1:6, nrow = 2))\ntorch_narrow(x, 2, 2, 2)",
    "torch_index_put": "x <- torch_zeros(3)\n"
                       "torch_index_put(x, list(torch_tensor(c(1L, 3L))), torch_tensor(1))",
    # linear algebra
    "torch_cholesky_solve": "A <- torch_tensor(matrix(c(4, 1, 1, 3), nrow = 2))\n"
                            "L <- linalg_cholesky(A)\n"
                            "torch_cholesky_solve(torch_tensor(matrix(c(1, 2), 2)), L)",
    "linalg_householder_product": "A <- torch_randn(3, 2)\nqr <- torch_geqrf(A)\n"
                                  "linalg_householder_product(qr[[1]], qr[[2]])",
    "linalg_multi_dot": "linalg_multi_dot(list(torch_randn(2, 3), torch_randn(3, 4), "
                        "torch_randn(4, 2)))",
    "linalg_solve_triangular": "A <- torch_tensor(matrix(c(2, 0, 1, 3), nrow = 2))\n"
                               "linalg_solve_triangular(A, torch_eye(2), upper = TRUE)",
    "linalg_eig": "# complex results are not available: this is an error\n"
                  "try(linalg_eig(torch_eye(2)))",
    "linalg_eigvals": "# complex results are not available: this is an error\n"
                      "try(linalg_eigvals(torch_eye(2)))",
    "linalg_tensorinv": "A <- torch_eye(4)$reshape(c(4, 2, 2))\nlinalg_tensorinv(A, ind = 2)",
    "linalg_tensorsolve": "A <- torch_eye(6)$reshape(c(2, 3, 6))\n"
                          "linalg_tensorsolve(A, torch_ones(2, 3))",
    # random sampling
    "torch_bernoulli": "torch_manual_seed(1)\ntorch_bernoulli(torch_tensor(c(0.1, 0.5, 0.9)))",
    "torch_multinomial": "torch_manual_seed(1)\n"
                         "torch_multinomial(torch_tensor(c(0.2, 0.3, 0.5)), 2)",
    "torch_normal": "torch_manual_seed(1)\ntorch_normal(0, 1, size = c(2, 3))",
    "torch_poisson": "torch_manual_seed(1)\ntorch_poisson(torch_tensor(c(1, 5, 10)))",
    # neural network functions
    "nnf_linear": "x <- torch_randn(4, 3)\nw <- torch_randn(2, 3)\n"
                  "nnf_linear(x, w, bias = torch_zeros(2))",
    "nnf_bilinear": "nnf_bilinear(torch_randn(4, 3), torch_randn(4, 2), torch_randn(5, 3, 2))",
    "nnf_one_hot": "nnf_one_hot(torch_tensor(c(1L, 3L, 2L)), num_classes = 3)",
    "nnf_embedding": "w <- torch_randn(10, 3)\nnnf_embedding(torch_tensor(c(1L, 5L, 10L)), w)",
    "torch_embedding": "w <- torch_randn(10, 3)\ntorch_embedding(w, torch_tensor(c(1L, 5L, 10L)))",
    "nnf_embedding_bag": "w <- torch_randn(10, 3)\n"
                         "nnf_embedding_bag(torch_tensor(rbind(c(1L, 2L), c(3L, 4L))), w)",
    "nnf_pad": "nnf_pad(torch_ones(2, 2), c(1, 1))",
    "torch_constant_pad_nd": "torch_constant_pad_nd(torch_ones(2, 2), c(1, 1))",
    "nnf_unfold": "nnf_unfold(torch_randn(1, 2, 4, 4), kernel_size = 2)$shape",
    "nnf_fold": "cols <- torch_randn(1, 8, 9)\n"
                "nnf_fold(cols, output_size = c(4, 4), kernel_size = 2)$shape",
    "nnf_pixel_shuffle": "nnf_pixel_shuffle(torch_randn(1, 4, 2, 2), 2)$shape",
    "nnf_pixel_unshuffle": "nnf_pixel_unshuffle(torch_randn(1, 1, 4, 4), 2)$shape",
    "torch_pixel_shuffle": "torch_pixel_shuffle(torch_randn(1, 4, 2, 2), 2)$shape",
    "torch_pixel_unshuffle": "torch_pixel_unshuffle(torch_randn(1, 1, 4, 4), 2)$shape",
    "torch_channel_shuffle": "torch_channel_shuffle(torch_randn(1, 4, 2, 2), 2)$shape",
    "nnf_interpolate": "x <- torch_randn(1, 1, 2, 2)\n"
                       "nnf_interpolate(x, scale_factor = 2, mode = \"nearest\")$shape",
    "nnf_upsample": "x <- torch_randn(1, 1, 2, 2)\n"
                    "nnf_upsample(x, scale_factor = 2, mode = \"nearest\")$shape",
    "nnf_normalize": "nnf_normalize(torch_tensor(rbind(c(3, 4), c(1, 0))))",
    "nnf_affine_grid": "theta <- torch_tensor(array(c(1, 0, 0, 1, 0, 0), c(1, 2, 3)))\n"
                       "nnf_affine_grid(theta, c(1, 1, 2, 2))$shape",
    "nnf_grid_sample": "x <- torch_randn(1, 1, 4, 4)\ngrid <- torch_zeros(1, 2, 2, 2)\n"
                       "nnf_grid_sample(x, grid, align_corners = FALSE)",
    "nnf_scaled_dot_product_attention": "q <- torch_randn(2, 5, 8)\n"
                                        "nnf_scaled_dot_product_attention(q, q, q)$shape",
    "nnf_multi_head_attention_forward": (
        "E <- 4\nx <- torch_randn(3, 1, E)\n"
        "out <- nnf_multi_head_attention_forward(x, x, x, E, 2, torch_randn(3 * E, E),\n"
        "  torch_zeros(3 * E), NULL, NULL, FALSE, 0, torch_randn(E, E), torch_zeros(E))\n"
        "out[[1]]$shape"),
    # normalization
    "nnf_layer_norm": "nnf_layer_norm(torch_randn(2, 3), normalized_shape = 3)",
    "torch_layer_norm": "torch_layer_norm(torch_randn(2, 3), normalized_shape = 3)",
    "nnf_batch_norm": "x <- torch_randn(4, 3)\n"
                      "nnf_batch_norm(x, torch_zeros(3), torch_ones(3), training = TRUE)",
    "torch_batch_norm": "x <- torch_randn(4, 3)\n"
                        "torch_batch_norm(x, torch_ones(3), torch_zeros(3), torch_zeros(3),\n"
                        "  torch_ones(3), TRUE, 0.1, 1e-5, FALSE)",
    "torch_instance_norm": "x <- torch_randn(2, 3, 4)\n"
                           "torch_instance_norm(x, NULL, NULL, NULL, NULL, TRUE, 0.1, 1e-5, "
                           "FALSE)",
    "nnf_instance_norm": "nnf_instance_norm(torch_randn(2, 3, 4))",
    "nnf_group_norm": "nnf_group_norm(torch_randn(2, 4, 3), num_groups = 2)",
    "torch_group_norm": "torch_group_norm(torch_randn(2, 4, 3), num_groups = 2)",
    "nnf_local_response_norm": "nnf_local_response_norm(torch_randn(1, 4, 3, 3), size = 2)",
    # losses
    "nnf_nll_loss": "logp <- nnf_log_softmax(torch_randn(3, 4), dim = 2)\n"
                    "nnf_nll_loss(logp, torch_tensor(c(1L, 4L, 2L)))",
    "nnf_cross_entropy": "nnf_cross_entropy(torch_randn(3, 4), torch_tensor(c(1L, 4L, 2L)))",
    "nnf_multi_margin_loss": "nnf_multi_margin_loss(torch_randn(3, 4), "
                             "torch_tensor(c(1L, 4L, 2L)))",
    "nnf_gaussian_nll_loss": "nnf_gaussian_nll_loss(torch_randn(3), torch_randn(3), "
                             "torch_ones(3))",
    "nnf_cosine_embedding_loss": "nnf_cosine_embedding_loss(torch_randn(3, 2), "
                                 "torch_randn(3, 2), torch_tensor(c(1, -1, 1)))",
    "nnf_margin_ranking_loss": "nnf_margin_ranking_loss(torch_randn(3), torch_randn(3), "
                               "torch_tensor(c(1, -1, 1)))",
    "nnf_triplet_margin_loss": "nnf_triplet_margin_loss(torch_randn(3, 2), torch_randn(3, 2), "
                               "torch_randn(3, 2))",
    "nnf_hinge_embedding_loss": "nnf_hinge_embedding_loss(torch_randn(3), "
                                "torch_tensor(c(1, -1, 1)))",
    "nnf_soft_margin_loss": "nnf_soft_margin_loss(torch_randn(3), torch_tensor(c(1, -1, 1)))",
    # convolution
    "torch_conv_tbc": "torch_conv_tbc(torch_randn(5, 1, 2), torch_randn(3, 2, 4), "
                      "torch_zeros(4))$shape",
    "nnf_conv_tbc": "nnf_conv_tbc(torch_randn(5, 1, 2), torch_randn(3, 2, 4), "
                    "torch_zeros(4))$shape",
    # pooling
    "nnf_max_unpool1d": "p <- nnf_max_pool1d(torch_randn(1, 1, 4), 2, return_indices = TRUE)\n"
                        "nnf_max_unpool1d(p[[1]], p[[2]], 2)",
    "nnf_max_unpool2d": "p <- nnf_max_pool2d(torch_randn(1, 1, 4, 4), 2, "
                        "return_indices = TRUE)\nnnf_max_unpool2d(p[[1]], p[[2]], 2)",
    "nnf_max_unpool3d": "p <- nnf_max_pool3d(torch_randn(1, 1, 2, 4, 4), 2, "
                        "return_indices = TRUE)\nnnf_max_unpool3d(p[[1]], p[[2]], 2)",
    "nnf_lp_pool1d": "nnf_lp_pool1d(torch_randn(1, 2, 8), norm_type = 2, kernel_size = 2)",
    "nnf_lp_pool2d": "nnf_lp_pool2d(torch_randn(1, 2, 4, 4), norm_type = 2, "
                     "kernel_size = 2)",
    "nnf_fractional_max_pool2d": "torch_manual_seed(1)\n"
                                 "nnf_fractional_max_pool2d(torch_randn(1, 1, 8, 8), 2, "
                                 "output_size = c(4, 4))$shape",
    "nnf_fractional_max_pool3d": "torch_manual_seed(1)\n"
                                 "nnf_fractional_max_pool3d(torch_randn(1, 1, 6, 6, 6), 2, "
                                 "output_size = c(3, 3, 3))$shape",
}

# Conv weights (out = 3 channels, in = 2, kernel 3) by the number of spatial dims.
_CONV_W = {"1d": "torch_randn(3, 2, 3)", "2d": "torch_randn(3, 2, 3, 3)",
           "3d": "torch_randn(3, 2, 3, 3, 3)"}
_CONVT_W = {"1d": "torch_randn(2, 3, 3)", "2d": "torch_randn(2, 3, 3, 3)",
            "3d": "torch_randn(2, 3, 3, 3, 3)"}


def _spatial(r_name):
    return "1d" if "1d" in r_name else "3d" if "3d" in r_name else "2d"


def _layer_example(r_name, fam, required):
    """Convolution, pooling and dropout: an input batch of the function's spatial dims."""
    x = _rand(r_name)
    if fam == "convolution":
        w = (_CONVT_W if "transpose" in r_name else _CONV_W)[_spatial(r_name)]
        return f"x <- {x}\nw <- {w}\n{r_name}(x, w)$shape"
    if fam == "pooling":
        arg = "kernel_size = 2" if "kernel_size" in required else "output_size = 2"
        return f"x <- {x}\n{r_name}(x, {arg})"
    if fam == "dropout":
        return f"torch_manual_seed(1)\nx <- {x}\n{r_name}(x, p = 0.5)$shape"
    return None


def example(r_name, fam, required, optional):
    """The example lines of `r_name`, or None when there is no template for its family."""
    if r_name in EXAMPLES:
        return EXAMPLES[r_name]
    if fam in ("convolution", "pooling", "dropout"):
        return _layer_example(r_name, fam, required)
    if fam not in _TEMPLATES:
        return None
    setup, values = _TEMPLATES[fam]
    args = []
    for name in required:
        if name not in values:
            return None
        args.append(values[name])
    # only the inputs the call uses (`x <- ...` lines of the template)
    used = [x for x in setup.split("\n")
            if any(x.split(" <- ")[0] in re.findall(r"\w+", a) for a in args)]
    lines = used + [f"{r_name}({', '.join(args)})"]
    if "dim" in optional and "dim" not in required:
        lines.append(f"{r_name}({', '.join(args + [values.get('dim', '1').join(['dim = ', ''])])})")
    return "\n".join(lines)


def wrap(lines):
    """An `@examples` block that runs only where the package's Python can start."""
    body = "\n".join("#'   " + x if x else "#'" for x in lines.split("\n"))
    return "#' @examples\n#' if (rtorchpy_available()) {\n" + body + "\n#' }"
