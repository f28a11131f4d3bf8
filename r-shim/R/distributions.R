# Probability distributions (R torch's distr_*): thin wrappers over the Python objects of
# rtorchpy/distributions (their bridge: rtorchpy/_r/distributions.py). A distribution is an
# R6-like environment holding the Python object's handle (`$ptr`), with R torch's methods
# (`$sample()`, `$rsample()`, `$log_prob()`, `$cdf()`, `$icdf()`, `$entropy()`, `$expand()`)
# and fields (`$mean`, `$variance`, `$stddev`, `$batch_shape`, `$event_shape`, and the
# parameters, e.g. `$loc`). Categorical values are 1-based, as in R torch.

.distr_error <- function(e) {
  # invalid parameters or values: R torch's condition class as well
  if (!inherits(e, "value_error") &&
      grepl("invalid values|within the support|must be specified|must match event_shape",
            conditionMessage(e)))
    class(e) <- c("value_error", class(e))
  stop(e)
}

.distr_call <- function(...) {
  withCallingHandlers(.bridge(...), rtorchpy_error = function(e) .distr_error(e))
}

.distr_arg <- function(v) {
  if (inherits(v, "torch_Distribution")) return(v$ptr)
  if (is.numeric(v) && length(v) > 1L) return(.a(torch_tensor(v)))
  .a(v)
}

.distr_value <- function(v) if (is_torch_tensor(v)) v else torch_tensor(v)

.distr_new <- function(name, ...) {
  kw <- lapply(list(...), .distr_arg)
  .wrap_distr(.distr_call("distr_new", name, kw))
}

.wrap_distr <- function(ptr) {
  cls <- .bridge("distr_get", ptr, "class")
  self <- new.env(parent = emptyenv())
  self$ptr <- ptr
  categorical <- identical(cls, "Categorical")
  out <- function(x) if (categorical) x + 1L else x   # 1-based category values in R
  inp <- function(x) if (categorical) .distr_value(x) - 1L else .distr_value(x)
  call <- function(method, arg = NULL) .distr_call("distr_call", ptr, method, arg)
  self$sample <- function(sample_shape = NULL) out(call("sample", .a(sample_shape)))
  self$rsample <- function(sample_shape = NULL) call("rsample", .a(sample_shape))
  self$log_prob <- function(value) call("log_prob", inp(value))
  self$cdf <- function(value) call("cdf", .distr_value(value))
  self$icdf <- function(value) call("icdf", .distr_value(value))
  self$entropy <- function() call("entropy")
  self$perplexity <- function() call("perplexity")
  self$expand <- function(batch_shape) .wrap_distr(call("expand", .a(batch_shape)))
  get <- function(name) {
    force(name)
    function() .distr_call("distr_get", ptr, name)
  }
  for (f in c("mean", "variance", "stddev", "mode"))
    makeActiveBinding(f, get(f), self)
  for (f in c("batch_shape", "event_shape"))
    makeActiveBinding(f, local({
      g <- get(f)
      function() as.integer(unlist(g()))
    }), self)
  makeActiveBinding("has_rsample", get("has_rsample"), self)
  makeActiveBinding("support", function()
    .wrap_constraint(.bridge("distr_get", ptr, "support"), shift = categorical), self)
  for (p in unlist(.bridge("distr_get", ptr, "params")))
    makeActiveBinding(p, get(p), self)
  if (cls == "MixtureSameFamily") {
    makeActiveBinding("mixture_distribution", function()
      .wrap_distr(.bridge("distr_get", ptr, "mixture_distribution")), self)
    makeActiveBinding("component_distribution", function()
      .wrap_distr(.bridge("distr_get", ptr, "component_distribution")), self)
  }
  class(self) <- c(paste0("torch_", cls), "torch_Distribution", "R6")
  self
}

# A distribution's support, as R torch's constraint objects: `$check(value)` (a bool tensor:
# which elements, or events, lie in it), `$lower_bound`/`$upper_bound` where it has them,
# `$event_dim`, `$is_discrete`; class `torch_<Name>` (torch_Real, torch_GreaterThan, ...).
# `shift`: the categorical's, whose values are 1-based in R.
.wrap_constraint <- function(ptr, shift = FALSE) {
  get <- function(name) .bridge("constraint_get", ptr, name)
  self <- new.env(parent = emptyenv())
  self$ptr <- ptr
  off <- if (shift) 1L else 0L
  self$check <- function(value) {
    v <- .distr_value(value)
    .distr_call("constraint_check", ptr, if (shift) v - 1L else v)
  }
  for (b in c("lower_bound", "upper_bound")) {
    v <- get(b)
    if (!is.null(v)) assign(b, v + off, envir = self)
  }
  self$event_dim <- get("event_dim")
  self$is_discrete <- get("is_discrete")
  class(self) <- c(paste0("torch_", get("class")), "torch_Constraint", "R6")
  self
}

#' @export
print.torch_Constraint <- function(x, ...) {
  show <- function(v) {
    v <- if (is_torch_tensor(v)) as_array(v) else v
    if (length(v) == 1L) format(v) else paste0("(", paste(format(v), collapse = ", "), ")")
  }
  bounds <- c(if (!is.null(x$lower_bound)) paste0("lower_bound=", show(x$lower_bound)),
              if (!is.null(x$upper_bound)) paste0("upper_bound=", show(x$upper_bound)))
  cat(class(x)[[1L]], if (length(bounds)) paste0(": (", paste(bounds, collapse = ", "), ")"),
      "\n", sep = "")
  invisible(x)
}

#' @export
print.torch_Distribution <- function(x, ...) {
  cat("<", class(x)[[1L]], "> batch_shape: (", paste(x$batch_shape, collapse = ", "),
      "), event_shape: (", paste(x$event_shape, collapse = ", "), ")\n", sep = "")
  invisible(x)
}

#' Probability distributions
#'
#' R torch's distributions, with PyTorch's semantics: `d$sample(sample_shape)` (no
#' gradient), `d$rsample(sample_shape)` (reparameterised: differentiable in the parameters,
#' where the distribution has it), `d$log_prob(value)` (differentiable in the parameters and
#' the value, to any order), `d$cdf()`, `d$icdf()`, `d$entropy()`, `d$expand(batch_shape)`,
#' and the fields `d$mean`, `d$variance`, `d$stddev`, `d$batch_shape`, `d$event_shape`, the
#' parameters and `d$support` (a constraint object, class `torch_Real`, `torch_GreaterThan`,
#' ...: `$check(value)`, `$lower_bound`/`$upper_bound` where it has them). After
#' `torch_manual_seed()` the samples of the normal, half-normal, uniform, exponential, laplace,
#' log-normal, bernoulli, categorical, multivariate normal, mixture and von Mises (PyTorch's
#' rejection sampler; circular mean and variance) distributions are R torch's and PyTorch's; gamma, chi2, beta, dirichlet, student_t,
#' poisson, binomial and negative binomial samples are reproducible by seed but drawn by
#' another sampler. With `validate_args` (the default), invalid parameters
#' or values are errors of class `value_error`.
#'
#' @param loc,scale Location and scale (numbers or tensors, broadcast together).
#' @param probs,logits Probabilities, or log-odds (bernoulli) / unnormalised
#'   log-probabilities over the last dim (categorical): give one.
#' @param rate Rate.
#' @param concentration,df Gamma shape (von Mises: its concentration kappa); chi-squared
#'   degrees of freedom.
#' @param covariance_matrix,precision_matrix,scale_tril The multivariate normal's
#'   covariance, its inverse, or its lower Cholesky factor: give one.
#' @param mixture_distribution,component_distribution A categorical over the components
#'   and the components (a distribution whose last batch dim indexes them).
#' @param low,high Bounds of the uniform.
#' @param concentration1,concentration0 The beta's alpha and beta.
#' @param validate_args Whether to check parameters and values (default `TRUE`).
#' @return A distribution object (class `torch_<Name>`, `torch_Distribution`).
#' @examples
#' d <- distr_normal(0, 1)
#' d$log_prob(torch_tensor(c(-1, 0, 1)))
#' @name distributions
#' @family distributions
NULL

#' @rdname distributions
#' @export
distr_normal <- function(loc, scale, validate_args = NULL)
  .distr_new("distr_normal", loc = loc, scale = scale, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_bernoulli <- function(probs = NULL, logits = NULL, validate_args = NULL)
  .distr_new("distr_bernoulli", probs = probs, logits = logits, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_categorical <- function(probs = NULL, logits = NULL, validate_args = NULL)
  .distr_new("distr_categorical", probs = probs, logits = logits,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_poisson <- function(rate, validate_args = NULL)
  .distr_new("distr_poisson", rate = rate, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_gamma <- function(concentration, rate, validate_args = NULL)
  .distr_new("distr_gamma", concentration = concentration, rate = rate,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_chi2 <- function(df, validate_args = NULL)
  .distr_new("distr_chi2", df = df, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_multivariate_normal <- function(loc, covariance_matrix = NULL, precision_matrix = NULL,
                                      scale_tril = NULL, validate_args = NULL)
  .distr_new("distr_multivariate_normal", loc = loc, covariance_matrix = covariance_matrix,
             precision_matrix = precision_matrix, scale_tril = scale_tril,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_mixture_same_family <- function(mixture_distribution, component_distribution,
                                      validate_args = NULL)
  .distr_new("distr_mixture_same_family", mixture_distribution = mixture_distribution,
             component_distribution = component_distribution, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_uniform <- function(low, high, validate_args = NULL)
  .distr_new("distr_uniform", low = low, high = high, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_exponential <- function(rate, validate_args = NULL)
  .distr_new("distr_exponential", rate = rate, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_beta <- function(concentration1, concentration0, validate_args = NULL)
  .distr_new("distr_beta", concentration1 = concentration1, concentration0 = concentration0,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_laplace <- function(loc, scale, validate_args = NULL)
  .distr_new("distr_laplace", loc = loc, scale = scale, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_log_normal <- function(loc, scale, validate_args = NULL)
  .distr_new("distr_log_normal", loc = loc, scale = scale, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_half_normal <- function(scale, validate_args = NULL)
  .distr_new("distr_half_normal", scale = scale, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_student_t <- function(df, loc = 0, scale = 1, validate_args = NULL)
  .distr_new("distr_student_t", df = df, loc = loc, scale = scale,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_dirichlet <- function(concentration, validate_args = NULL)
  .distr_new("distr_dirichlet", concentration = concentration, validate_args = validate_args)

#' @rdname distributions
#' @param total_count Number of trials (binomial) or of successes (negative binomial).
#' @export
distr_binomial <- function(total_count = 1, probs = NULL, logits = NULL,
                           validate_args = NULL)
  .distr_new("distr_binomial", total_count = total_count, probs = probs, logits = logits,
             validate_args = validate_args)

#' @rdname distributions
#' @export
distr_negative_binomial <- function(total_count, probs = NULL, logits = NULL,
                                    validate_args = NULL)
  .distr_new("distr_negative_binomial", total_count = total_count, probs = probs,
             logits = logits, validate_args = validate_args)

#' @rdname distributions
#' @export
distr_von_mises <- function(loc, concentration, validate_args = NULL)
  .distr_new("distr_von_mises", loc = loc, concentration = concentration,
             validate_args = validate_args)
