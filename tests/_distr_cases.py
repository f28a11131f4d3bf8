"""Distribution cases shared by the recorder and the tests: (name, rtorchpy constructor,
PyTorch constructor name and kwargs builder, parameters, values). Float64 throughout."""
from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(11)
_A = _rng.normal(size=(3, 3))
_COV = _A @ _A.T + np.eye(3)

CASES = {
    "normal": ("distr_normal", "Normal",
               {"loc": _rng.normal(size=4), "scale": _rng.random(4) + .5},
               _rng.normal(size=(2, 4))),
    "log_normal": ("distr_log_normal", "LogNormal", {"loc": _rng.normal(size=4),
                   "scale": _rng.random(4) + .5}, _rng.random((2, 4)) + .1),
    "uniform": ("distr_uniform", "Uniform", {"low": _rng.random(4) - 1, "high": _rng.random(4) + 1},
                _rng.random((2, 4))),
    "exponential": ("distr_exponential", "Exponential", {"rate": _rng.random(4) + .5},
                    _rng.random((2, 4))),
    "laplace": ("distr_laplace", "Laplace", {"loc": _rng.normal(size=4),
                                             "scale": _rng.random(4) + .5},
                _rng.normal(size=(2, 4))),
    "gamma": ("distr_gamma", "Gamma", {"concentration": _rng.random(4) + .5,
              "rate": _rng.random(4) + .5}, _rng.random((2, 4)) + .1),
    "chi2": ("distr_chi2", "Chi2", {"df": _rng.random(4) + 1.5}, _rng.random((2, 4)) + .1),
    "beta": ("distr_beta", "Beta", {"concentration1": _rng.random(4) + .5,
             "concentration0": _rng.random(4) + .5}, _rng.random((2, 4)) * .8 + .1),
    "poisson": ("distr_poisson", "Poisson", {"rate": _rng.random(4) * 4 + .5},
                np.array([[1.0, 2, 3, 7], [4, 1, 2, 5]])),
    "bernoulli_probs": ("distr_bernoulli", "Bernoulli", {"probs": _rng.random(4) * .8 + .1},
                        np.array([[0.0, 1, 1, 0], [1, 1, 0, 0]])),
    "bernoulli_logits": ("distr_bernoulli", "Bernoulli", {"logits": _rng.normal(size=4)},
                         np.array([[0.0, 1, 1, 0], [1, 1, 0, 0]])),
    "categorical_probs": ("distr_categorical", "Categorical", {"probs": _rng.random((3, 4)) + .1},
                          np.array([[0.0, 3, 2], [1, 1, 0]])),
    "categorical_logits": ("distr_categorical", "Categorical", {"logits": _rng.normal(size=(3, 4))},
                           np.array([[0.0, 3, 2], [1, 1, 0]])),
    "mvn_cov": ("distr_multivariate_normal", "MultivariateNormal",
                {"loc": _rng.normal(size=3), "covariance_matrix": _COV}, _rng.normal(size=(4, 3))),
    "mvn_tril": ("distr_multivariate_normal", "MultivariateNormal",
                 {"loc": _rng.normal(size=(2, 3)), "scale_tril": np.linalg.cholesky(_COV)},
                 _rng.normal(size=(4, 2, 3))),
    "mvn_precision": ("distr_multivariate_normal", "MultivariateNormal",
                      {"loc": _rng.normal(size=3), "precision_matrix": _COV},
                      _rng.normal(size=(4, 3))),
    "half_normal": ("distr_half_normal", "HalfNormal", {"scale": _rng.random(4) + .5},
                    _rng.random((2, 4)) + .1),
    "student_t": ("distr_student_t", "StudentT", {"df": _rng.random(4) + 2.5,
                  "loc": _rng.normal(size=4), "scale": _rng.random(4) + .5},
                  _rng.normal(size=(2, 4))),
    "dirichlet": ("distr_dirichlet", "Dirichlet", {"concentration": _rng.random((2, 3)) + .5},
                  np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])),
    "binomial": ("distr_binomial", "Binomial", {"total_count": np.array([5.0, 7, 3, 10]),
                 "probs": _rng.random(4) * .8 + .1}, np.array([[1.0, 2, 3, 4], [0, 7, 1, 10]])),
    "negative_binomial": ("distr_negative_binomial", "NegativeBinomial",
                          {"total_count": _rng.random(4) * 3 + .5, "logits": _rng.normal(size=4)},
                          np.array([[1.0, 2, 3, 4], [0, 7, 1, 10]])),
}
HAS_ENTROPY = {k for k in CASES if k not in ("poisson", "binomial", "negative_binomial")}
HAS_CDF = {"normal", "log_normal", "uniform", "exponential", "laplace", "half_normal"}
