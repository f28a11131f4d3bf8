# Forward-mode AD and function transforms (issue 35): R faces of rtorchpy/_r/transforms.py.
# A transformed function is an R closure; each call is one bridge call that builds the
# transform around the user's function and applies it, so Python keeps no R function after
# the call. Positions are 1-based here (argnums, in_dims, out_dims) and 0-based in Python.

.dim0 <- function(d, what) {
  if (is.null(d)) return(NULL)
  if (!is.numeric(d) || length(d) != 1L || is.na(d) || d != round(d))
    .value_error(sprintf("%s must be whole numbers (or NULL), got %s", what, deparse(d)))
  if (d == 0) .value_error(sprintf("%s are 1-based: 0 is not a dimension", what))
  as.integer(if (d > 0) d - 1 else d)
}

.dims0 <- function(d, what) {
  if (is.list(d)) return(lapply(d, .dim0, what = what))
  if (is.numeric(d) && length(d) > 1L) return(lapply(as.list(d), .dim0, what = what))
  .dim0(d, what)
}

.argnums0 <- function(argnums) {
  if (length(argnums) > 1L || is.list(argnums))
    return(lapply(as.list(argnums), .dim0, what = "argnums"))
  .dim0(argnums, "argnums")
}

.transformed <- function(what, func, opts) {
  force(func)
  force(opts)
  function(...) {
    .bridge("transform", what, .r_fn(func), unname(lapply(list(...), .a)), opts)
  }
}

#' Function transforms: gradients, Jacobians, Hessians and vmap of R functions
#'
#' These take an R function of tensors and return an R function, as PyTorch's `torch.func`
#' does (R torch has no equivalent). They compose: `autograd_jacfwd(autograd_jacrev(f))` is a
#' Hessian, `autograd_vmap(autograd_grad_fn(loss), in_dims = list(NULL, 1, 1))` gives
#' per-observation gradients.
#'
#' * `autograd_grad_fn(f)`: the gradient of `f` (which returns one element) with respect to
#'   argument `argnums`; several `argnums` give a list. `autograd_grad_and_value()` returns
#'   `list(gradient, value)`.
#' * `autograd_jacrev(f)` / `autograd_jacfwd(f)`: the Jacobian by reverse mode (one backward
#'   pass per output element) or forward mode (one forward pass per input element), of shape
#'   `c(output$shape, input$shape)`.
#' * `autograd_hessian_fn(f)`: `autograd_jacfwd(autograd_jacrev(f))`, forward-over-reverse.
#' * `autograd_vmap(f, in_dims, out_dims)`: `f` mapped over dimension `in_dims` of its
#'   arguments (one number for all, or a list with one entry per argument, `NULL` for an
#'   argument not mapped); the mapped dimension of the result is `out_dims`. `randomness` is
#'   `"error"` (random ops refused), `"different"` or `"same"`. `f` runs once, on batched
#'   tensors: each op applies its batching rule to the whole batch; an op without a rule runs
#'   once per example (correct, slower), and `autograd_vmap_fallback_ops()` lists those ops.
#'   The transforms are batched under vmap too (`autograd_vmap(autograd_hessian_fn(f))` is one
#'   forward-over-reverse pass for all examples).
#'   `chunk_size` runs the batch in chunks of that many examples (less memory).
#' * `autograd_jvp_fn(f, primals, tangents)`: `list(output, jvp)`, one forward-mode pass.
#'
#' @param func An R function of tensors returning a tensor (or a list of tensors).
#' @param argnums Which argument(s) to differentiate with respect to (1-based).
#' @param has_aux `func` returns `list(output, aux)`; the transform returns `aux` alongside.
#' @param in_dims,out_dims Mapped dimensions (1-based; `NULL` for none).
#' @param chunk_size `NULL` (all examples at once) or a positive whole number: how many
#'   examples `autograd_vmap()` maps in one go, to bound memory.
#' @param randomness `"error"`, `"different"` or `"same"`.
#' @param primals,tangents Lists of tensors (or single tensors) of the same shapes.
#' @return A function (the transforms); `autograd_jvp_fn()`: a list; `autograd_vmap_fallback_ops()`:
#'   a character vector.
#' @examples
#' if (rtorchpy_available()) {
#'   f <- function(x) (x^3)$sum()
#'   autograd_grad_fn(f)(torch_tensor(c(1, 2)))
#'   autograd_hessian_fn(f)(torch_tensor(c(1, 2)))
#' }
#' @name autograd_transforms
#' @export
#' @family autograd
autograd_grad_fn <- function(func, argnums = 1, has_aux = FALSE) {
  .transformed("grad", func, list(argnums = .argnums0(argnums), has_aux = has_aux))
}

#' @rdname autograd_transforms
#' @export
autograd_grad_and_value <- function(func, argnums = 1, has_aux = FALSE) {
  .transformed("grad_and_value", func, list(argnums = .argnums0(argnums), has_aux = has_aux))
}

#' @rdname autograd_transforms
#' @export
autograd_jacrev <- function(func, argnums = 1, has_aux = FALSE) {
  .transformed("jacrev", func, list(argnums = .argnums0(argnums), has_aux = has_aux))
}

#' @rdname autograd_transforms
#' @export
autograd_jacfwd <- function(func, argnums = 1, has_aux = FALSE) {
  .transformed("jacfwd", func, list(argnums = .argnums0(argnums), has_aux = has_aux))
}

#' @rdname autograd_transforms
#' @export
autograd_hessian_fn <- function(func, argnums = 1) {
  .transformed("hessian", func, list(argnums = .argnums0(argnums)))
}

#' @rdname autograd_transforms
#' @export
autograd_vmap <- function(func, in_dims = 1, out_dims = 1,
                          randomness = c("error", "different", "same"), chunk_size = NULL) {
  randomness <- match.arg(randomness)
  .transformed("vmap", func, list(in_dims = .dims0(in_dims, "in_dims"),
                                  out_dims = .dims0(out_dims, "out_dims"),
                                  randomness = randomness,
                                  chunk_size = .chunk_size(chunk_size),
                                  # the values as the user wrote them, for Python's errors
                                  r_in_dims = .deparse1(in_dims),
                                  r_out_dims = .deparse1(out_dims)))
}

.deparse1 <- function(x) paste(deparse(x, width.cutoff = 500L), collapse = " ")

# vmap's chunk_size: NULL or a positive whole number (PyTorch's rule, in R's words).
.chunk_size <- function(chunk_size) {
  if (is.null(chunk_size)) return(NULL)
  if (!is.numeric(chunk_size) || length(chunk_size) != 1L || is.na(chunk_size) ||
      chunk_size != round(chunk_size)) {
    .value_error("autograd_vmap(): chunk_size must be NULL or a whole number greater than 0, ",
                 "got ", .deparse1(chunk_size))
  }
  if (chunk_size <= 0) {
    .value_error("autograd_vmap(): chunk_size should be NULL or greater than 0. (got ",
                 .deparse1(chunk_size), ")")
  }
  as.integer(chunk_size)
}

#' @rdname autograd_transforms
#' @export
autograd_vmap_fallback_ops <- function() {
  unlist(.bridge("vmap_fallback_ops"))
}

#' @rdname autograd_transforms
#' @export
autograd_jvp_fn <- function(func, primals, tangents, has_aux = FALSE) {
  if (is_torch_tensor(primals)) primals <- list(primals)
  if (is_torch_tensor(tangents)) tangents <- list(tangents)
  .bridge("jvp_fn", .r_fn(func), .tensor_list(primals), .tensor_list(tangents), has_aux)
}

#' Forward-mode automatic differentiation: dual tensors
#'
#' `with_dual_level(code)` evaluates `code` with a dual level open (PyTorch's
#' `forward_ad.dual_level`; one at a time). Inside, `autograd_make_dual(tensor, tangent)`
#' returns a view of `tensor` carrying `tangent`; every op on dual tensors computes its
#' result's tangent (the Jacobian-vector product), which `autograd_unpack_dual()` returns as
#' `list(primal = , tangent = )` (`tangent` is `NULL` for a tensor without one). Tangents are
#' forgotten when the level closes.
#'
#' @param code Code to evaluate (in the calling environment).
#' @param tensor,tangent Tensors of the same shape and floating dtype.
#' @return `with_dual_level()`: the value of `code`; `autograd_make_dual()`: a tensor;
#'   `autograd_unpack_dual()`: a list.
#' @examples
#' if (rtorchpy_available()) {
#'   with_dual_level({
#'     x <- autograd_make_dual(torch_tensor(c(1, 2)), torch_tensor(c(1, 0)))
#'     autograd_unpack_dual(x$sin())$tangent
#'   })
#' }
#' @export
#' @family autograd
with_dual_level <- function(code) {
  .bridge("dual_level", TRUE)
  on.exit(.bridge("dual_level", FALSE))
  code
}

#' @rdname with_dual_level
#' @export
autograd_make_dual <- function(tensor, tangent) {
  .bridge("make_dual", .a(tensor), .a(tangent))
}

#' @rdname with_dual_level
#' @export
autograd_unpack_dual <- function(tensor) {
  r <- .bridge("unpack_dual", .a(tensor))
  list(primal = r[[1L]], tangent = r[[2L]])
}
