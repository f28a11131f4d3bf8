# W6's workloads on the R side, and the Python module with the same work (w6_workloads.py),
# imported into the Python that reticulate started here. Sourced by w6_from_r.R (wall clock)
# and by the script r_instructions.py writes (callgrind), so both measure one definition of
# each workload. Expects library(rtorchpy) attached and `w6_dir`, this file's folder.
#
# Defines r_chain(), r_sgd(), r_mul(), r_method(), r_function(), r_method_floor(),
# r_model_fwd(), r_opt_step(),
# r_opt_step_only(), r_custom() and r_builtin(); `w6py`, the Python module (convert = FALSE),
# whose model has R's weights and data.

invisible(torch_tensor(0))  # (first: the package starts Python and imports its own rtorchpy)
w6py <- reticulate::import_from_path("w6_workloads", path = w6_dir, convert = FALSE)

# the 100-op chain on 4 elements, forward and backward
chain4 <- function(y) {
  for (i in 1:25) {
    y <- y * 1.01
    y <- y + 0.1
    y <- torch_sin(y)
    y <- torch_tanh(y)
  }
  y
}
cx <- torch_tensor(c(0.1, -0.2, 0.3, 0.4), requires_grad = TRUE)
chain4(cx)$sum()$backward()
r_chain <- function() {
  cx$grad$zero_()
  chain4(cx)$sum()$backward()
}

# one manual-SGD step of a 100x3 linear regression
invisible(torch_manual_seed(0))
X <- torch_randn(100, 3)
Y <- X$matmul(torch_tensor(matrix(c(1, -2, 0.5), 3, 1))) + 0.3
w <- torch_zeros(3, 1, requires_grad = TRUE)
b <- torch_zeros(1, requires_grad = TRUE)
r_sgd <- function() {
  loss <- ((X$matmul(w) + b - Y)^2)$mean()
  loss$backward()
  with_no_grad({
    w$sub_(w$grad * 0.01)
    b$sub_(b$grad * 0.01)
    w$grad$zero_()
    b$grad$zero_()
  })
}
invisible(r_sgd())

mx <- torch_tensor(c(1, 2, 3, 4))
my <- torch_tensor(c(0.5, 0.25, 2, -1))
r_mul <- function() mx * my
r_method <- function() mx$sin()
r_function <- function() torch_sin(mx)
# The least x$sin() can cost beyond torch_sin(x) in R: `$` on an S3 object dispatches (R's own
# work, whatever the method; here the do-nothing builtin list()), and the function it returns
# is then called (here an empty closure). So r_method_floor() / r_function() bounds
# r_method() / r_function() from below, for any package whose tensors are S3 objects.
floor_obj <- structure(new.env(), class = "w6_floor")
registerS3method("$", "w6_floor", base::list)
floor_call <- function() NULL
r_method_floor <- function() {
  torch_sin(mx)
  floor_obj$sin
  floor_call()
}

# a small model and its training step; the Python model gets R's weights and data
model <- nn_sequential(nn_linear(3, 8), nn_relu(), nn_linear(8, 1))
opt <- optim_sgd(model$parameters, lr = 0.01)
x16 <- torch_randn(16, 3)
y16 <- torch_randn(16, 1)
flat <- function(t) as.numeric(as_array(t))
py_out <- reticulate::py_to_r(w6py$model_init(unname(lapply(model$parameters, flat)), flat(x16),
                                              flat(y16)))
if (max(abs(flat(model(x16)) - unlist(py_out))) > 1e-5) stop("the R and Python models differ")
r_model_fwd <- function() model(x16)
r_opt_step <- function() {
  opt$zero_grad()
  loss <- nnf_mse_loss(model(x16), y16)
  loss$backward()
  opt$step()
}
invisible(r_opt_step())
# opt$step() alone steps with the gradients of one backward (left in place: SGD without
# momentum moves the weights by the same step each call); call w6_step_only_setup() first
r_opt_step_only <- function() opt$step()
w6_step_only_setup <- function() {
  opt$zero_grad()
  nnf_mse_loss(model(x16), y16)$backward()
  invisible(w6py$backward_once())
}

# the seeds' linear as a custom autograd function (R closures Python calls back; R torch
# spelling: 1-based dims), against the same work in built-in ops
linear <- autograd_function(
  forward = function(ctx, input, weight, bias = NULL) {
    ctx$save_for_backward(input = input, weight = weight, bias = bias)
    output <- input$mm(weight$t())
    if (!is.null(bias)) output <- output + bias$unsqueeze(1)$expand_as(output)
    output
  },
  backward = function(ctx, grad_output) {
    s <- ctx$saved_variables
    grads <- list(input = NULL, weight = NULL, bias = NULL)
    if (ctx$needs_input_grad$input) grads$input <- grad_output$mm(s$weight)
    if (ctx$needs_input_grad$weight) grads$weight <- grad_output$t()$mm(s$input)
    if (!is.null(s$bias) && ctx$needs_input_grad$bias) grads$bias <- grad_output$sum(dim = 1)
    grads
  }
)
xi <- torch_tensor(matrix(rnorm(8 * 16), 8, 16), requires_grad = TRUE)
wi <- torch_tensor(matrix(rnorm(4 * 16), 4, 16) / 4, requires_grad = TRUE)
bi <- torch_tensor(rnorm(4), requires_grad = TRUE)
# zero the leaves' gradients in place, as R torch code does between steps (x$grad of a leaf
# that never had a backward is an undefined tensor, so a first backward runs before timing)
reset_grad <- function(...) for (t in list(...)) t$grad$zero_()
r_custom <- function() {
  reset_grad(xi, wi, bi)
  linear(xi, wi, bi)$sum()$backward()
}
r_builtin <- function() {
  reset_grad(xi, wi, bi)
  (xi$mm(wi$t()) + bi)$sum()$backward()
}
linear(xi, wi, bi)$sum()$backward()
