"""The multivariate normal (from a covariance, precision or lower Cholesky factor) and
mixtures of one family (``MixtureSameFamily``)."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.grad_mode import with_no_grad
from ..ops.creation import torch_randn
from ..ops.registry import OPS
from ..tensor import Tensor
from . import constraints
from .base import Distribution, as_shape
from .discrete import Categorical

_cholesky = OPS["linalg_cholesky"].fn
_solve_triangular = OPS["linalg_solve_triangular"].fn
_inv = OPS["linalg_inv"].fn if "linalg_inv" in OPS else None


def _eye_like(L):
    return Tensor._make(np.eye(L.shape[-1], dtype=L._data.dtype))


def _expand_to(t, batch, tail):
    shape = tuple(batch) + tuple(tail)
    return t if t.shape == shape else t.expand(*shape)


class MultivariateNormal(Distribution):
    """Multivariate normal with mean ``loc`` and one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` (lower triangular, positive diagonal)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        m = covariance_matrix if given[0] else precision_matrix if given[1] else scale_tril
        if m.dim() < 2:
            raise ValueError("scale_tril matrix must be at least two-dimensional, with "
                             "optional leading batch dimensions" if given[2] else
                             "covariance_matrix must be at least two-dimensional, with "
                             "optional leading batch dimensions")
        k = loc.shape[-1]
        if m.shape[-2:] != (k, k):
            raise ValueError(f"The matrix's last two dims must be ({k}, {k}) to match loc, "
                             f"got {list(m.shape)}")
        batch = np.broadcast_shapes(m.shape[:-2], loc.shape[:-1])
        self.loc = _expand_to(loc, batch, (k,))
        if given[0]:
            self.covariance_matrix = covariance_matrix
        elif given[1]:
            self.precision_matrix = precision_matrix
        else:
            self.scale_tril = scale_tril
        super().__init__(batch, (k,), validate_args)
        if given[0]:
            self._tril = self._factor(covariance_matrix)
        elif given[1]:
            # L L^T = P^-1: the Cholesky factor of the inverse
            self._tril = self._factor(_inv(precision_matrix))
        else:
            self._tril = scale_tril

    def _factor(self, cov):
        try:
            return _cholesky(cov)
        except RuntimeError as e:
            raise ValueError("The parameter covariance_matrix has invalid values (it is not "
                             f"positive-definite: {e})") from None

    def _expand_params(self):
        return ["loc"]

    def expand(self, batch_shape):
        new = super().expand(batch_shape)
        k = self._event_shape[0]
        new._tril = self._tril if self._tril.dim() == 2 else \
            _expand_to(self._tril, new._batch_shape, (k, k))
        return new

    @property
    def scale_tril_(self):
        return _expand_to(self._tril, self._batch_shape, self._event_shape * 2)

    def __getattr__(self, name):
        d = self.__dict__
        if name == "scale_tril" and "_tril" in d:
            return self.scale_tril_
        if name == "covariance_matrix" and "_tril" in d:
            L = self._tril
            return _expand_to(L.matmul(L.transpose(-1, -2)), self._batch_shape,
                              self._event_shape * 2)
        if name == "precision_matrix" and "_tril" in d:
            return _inv(self.covariance_matrix)
        raise AttributeError(name)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _expand_to((self._tril ** 2).sum(-1), self._batch_shape, self._event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = torch_randn(shape, dtype=self.loc.dtype)
        if self._tril.dim() == 2:
            return self.loc + eps.matmul(self._tril.t())
        return self.loc + self._tril.matmul(eps.unsqueeze(-1)).squeeze(-1)

    def _mahalanobis(self, diff):
        L = self._tril
        k = self._event_shape[0]
        if L.dim() == 2:
            # one factor for every point: invert it once (a k x k triangular solve) and
            # multiply all the points at once; LAPACK's general solver with many right-hand
            # sides would cost far more than the product
            eye = L.new_zeros((k, k)) + _eye_like(L)
            flat = diff.reshape(-1, k)
            sol = flat.matmul(_solve_triangular(L, eye, upper=False).t())
            return (sol ** 2).sum(-1).reshape(*diff.shape[:-1])
        shape = np.broadcast_shapes(diff.shape[:-1], L.shape[:-2])
        Lb = L.expand(*(shape + (k, k)))
        sol = _solve_triangular(Lb, diff.expand(*(shape + (k,))).unsqueeze(-1), upper=False)
        return (sol.squeeze(-1) ** 2).sum(-1)

    def log_prob(self, value):
        value = self._value(value, self.loc)
        diff = value - self.loc
        M = self._mahalanobis(diff)
        half_log_det = self._tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        k = self._event_shape[0]
        half_log_det = self._tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h if tuple(h.shape) == self._batch_shape else h.expand(*self._batch_shape)


class MixtureSameFamily(Distribution):
    """A mixture of the components of ``component_distribution`` (its rightmost batch dim)
    with weights from ``mixture_distribution`` (a Categorical over that dim)."""
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({list(mdbs)}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({list(cdbs)})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dims(self, x):
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = x.shape
        return x.reshape(*(xs[:-1] + (1,) * pad_ndims + xs[-1:] +
                           (1,) * self._event_ndims))

    @property
    def mean(self):
        probs = self._pad_mixture_dims(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dims(self._mixture_distribution.probs)
        d = -1 - self._event_ndims
        mean_cond_var = (probs * self._component_distribution.variance).sum(d)
        var_cond_mean = (probs * (self._component_distribution.mean -
                                  self._pad(self.mean)) ** 2).sum(d)
        return mean_cond_var + var_cond_mean

    def expand(self, batch_shape):
        batch_shape = as_shape(batch_shape)
        comp = self._component_distribution.expand(batch_shape + (self._num_component,))
        mix = self._mixture_distribution.expand(batch_shape)
        return MixtureSameFamily(mix, comp, validate_args=False)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        x = self._pad(value)
        log_prob_x = self._component_distribution.log_prob(x)
        log_mix_prob = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def cdf(self, value):
        x = self._pad(value)
        cdf_x = self._component_distribution.cdf(x)
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=()):
        sample_shape = as_shape(sample_shape)
        with with_no_grad():
            gather_dim = len(sample_shape) + len(self._batch_shape)
            es = self._event_shape
            mix_sample = self._mixture_distribution.sample(sample_shape)
            mix_shape = mix_sample.shape
            comp_samples = self._component_distribution.sample(sample_shape)
            idx = mix_sample.reshape(*(mix_shape + (1,) * (len(es) + 1)))
            idx = idx.repeat(*((1,) * len(mix_shape) + (1,) + es))
            return comp_samples.gather(gather_dim, idx).squeeze(gather_dim)
