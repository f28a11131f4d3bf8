"""Probability distributions with differentiable ``log_prob`` (PyTorch's
``torch.distributions``), under R torch's names: ``distr_normal(loc, scale)`` and the others
return the distribution objects."""
from __future__ import annotations

from .base import Distribution
from .continuous import Beta, Chi2, Exponential, Gamma, Laplace, LogNormal, Normal, Uniform
from .discrete import Bernoulli, Categorical, Poisson
from .more import Binomial, Dirichlet, HalfNormal, NegativeBinomial, StudentT
from .circular import VonMises
from .multivariate import MixtureSameFamily, MultivariateNormal

__all__ = ["Distribution", "distr_normal", "distr_bernoulli", "distr_categorical",
           "distr_poisson", "distr_gamma", "distr_chi2", "distr_multivariate_normal",
           "distr_mixture_same_family", "distr_uniform", "distr_exponential", "distr_beta",
           "distr_laplace", "distr_log_normal", "distr_half_normal", "distr_student_t",
           "distr_dirichlet", "distr_binomial", "distr_negative_binomial", "distr_von_mises"]


def distr_normal(loc, scale, validate_args=None):
    """Normal(loc, scale)."""
    return Normal(loc, scale, validate_args)


def distr_bernoulli(probs=None, logits=None, validate_args=None):
    """Bernoulli(probs) or Bernoulli(logits = log-odds)."""
    return Bernoulli(probs, logits, validate_args)


def distr_categorical(probs=None, logits=None, validate_args=None):
    """Categorical over the last dim of probs or logits (0-based values; 1-based in R)."""
    return Categorical(probs, logits, validate_args)


def distr_poisson(rate, validate_args=None):
    """Poisson(rate)."""
    return Poisson(rate, validate_args)


def distr_gamma(concentration, rate, validate_args=None):
    """Gamma(concentration, rate)."""
    return Gamma(concentration, rate, validate_args)


def distr_chi2(df, validate_args=None):
    """Chi-squared(df)."""
    return Chi2(df, validate_args)


def distr_multivariate_normal(loc, covariance_matrix=None, precision_matrix=None,
                              scale_tril=None, validate_args=None):
    """Multivariate normal(loc, one of covariance_matrix, precision_matrix, scale_tril)."""
    return MultivariateNormal(loc, covariance_matrix, precision_matrix, scale_tril,
                              validate_args)


def distr_mixture_same_family(mixture_distribution, component_distribution,
                              validate_args=None):
    """A mixture of component_distribution's last batch dim weighted by
    mixture_distribution (a categorical)."""
    return MixtureSameFamily(mixture_distribution, component_distribution, validate_args)


def distr_uniform(low, high, validate_args=None):
    """Uniform on [low, high)."""
    return Uniform(low, high, validate_args)


def distr_exponential(rate, validate_args=None):
    """Exponential(rate)."""
    return Exponential(rate, validate_args)


def distr_beta(concentration1, concentration0, validate_args=None):
    """Beta(concentration1 = alpha, concentration0 = beta)."""
    return Beta(concentration1, concentration0, validate_args)


def distr_laplace(loc, scale, validate_args=None):
    """Laplace(loc, scale)."""
    return Laplace(loc, scale, validate_args)


def distr_log_normal(loc, scale, validate_args=None):
    """exp of Normal(loc, scale)."""
    return LogNormal(loc, scale, validate_args)


def distr_half_normal(scale, validate_args=None):
    """|X| for X ~ Normal(0, scale)."""
    return HalfNormal(scale, validate_args)


def distr_student_t(df, loc=0.0, scale=1.0, validate_args=None):
    """Student's t(df) with location and scale."""
    return StudentT(df, loc, scale, validate_args)


def distr_dirichlet(concentration, validate_args=None):
    """Dirichlet over the last dim of concentration."""
    return Dirichlet(concentration, validate_args)


def distr_binomial(total_count=1, probs=None, logits=None, validate_args=None):
    """Binomial(total_count, probs or logits)."""
    return Binomial(total_count, probs, logits, validate_args)


def distr_negative_binomial(total_count, probs=None, logits=None, validate_args=None):
    """Negative binomial: failures before total_count successes (PyTorch's form)."""
    return NegativeBinomial(total_count, probs, logits, validate_args)


def distr_von_mises(loc, concentration, validate_args=None):
    """Von Mises on the circle: mean direction loc (radians), concentration kappa."""
    return VonMises(loc, concentration, validate_args)
