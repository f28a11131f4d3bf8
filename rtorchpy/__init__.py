"""rtorchpy: define-by-run, reverse-mode autograd on NumPy, with R torch's names.

    >>> from rtorchpy import torch_ones
    >>> x = torch_ones(2, 2, requires_grad=True)
    >>> out = ((x + 2) * (x + 2) * 3).mean()
    >>> out.backward()
    >>> x.grad.tolist()
    [[4.5, 4.5], [4.5, 4.5]]

Every op exists as a function ``torch_<name>(x, ...)`` and as a method ``x.<name>(...)``; both
come from one registration in the op registry. Dims and indices are 0-based in Python.
"""
import warnings as _warnings

from . import _ops, _ops_inplace, _ops_linalg, _ops_reduce, _ops_shape  # noqa: F401  (registers ops)
from . import _ops_linalg_decomp, _ops_linalg_norm, _ops_linalg_solve  # noqa: F401
from ._ops import OPS, namespace_name
from ._tensor import Tensor
from .autograd.api import autograd_backward, autograd_grad
from .autograd.function import AutogradContext, autograd_function
from .autograd.gradcheck import (autograd_gradcheck, autograd_gradgradcheck, autograd_hessian,
                                 autograd_jacobian, autograd_jvp, autograd_vjp)
from .autograd.grad_mode import (autograd_set_detect_anomaly, autograd_set_grad_mode,
                                 is_anomaly_enabled, is_grad_enabled, set_grad_enabled,
                                 with_detect_anomaly, with_enable_grad, with_no_grad)
from .creation import *  # noqa: F401,F403
from .creation import __all__ as _creation_names
from .dtypes import *  # noqa: F401,F403
from .dtypes import __all__ as _dtype_names
from .nnf import *  # noqa: F401,F403
from .nnf import __all__ as _nnf_names

__version__ = "0.1.0.dev0"

# NumPy warns about inf/nan results (log(0), 0/0, ...); libtorch does not, and a per-op
# np.errstate would cost more than the op itself. Silence those warnings for rtorchpy's own
# modules only, where they are raised; the user's NumPy code keeps its settings.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"rtorchpy(\.|$)")


def _export_namespace_forms():
    """``torch_<op>`` for every registered op that has a namespace form (``linalg_<op>`` for the
    linear-algebra ops, which R torch names so)."""
    names = []
    for key, info in OPS.items():
        if info.namespace and not key.startswith("_"):
            globals()[namespace_name(key)] = info.fn
            names.append(namespace_name(key))
    return names


def is_torch_tensor(x):
    """Whether ``x`` is a rtorchpy Tensor."""
    return isinstance(x, Tensor)


__all__ = sorted(set(
    _export_namespace_forms() + list(_creation_names) + list(_dtype_names) + list(_nnf_names) + [
        "Tensor", "is_torch_tensor", "autograd_backward", "autograd_grad", "with_no_grad",
        "with_enable_grad", "set_grad_enabled", "autograd_set_grad_mode", "is_grad_enabled",
        "with_detect_anomaly", "autograd_set_detect_anomaly", "is_anomaly_enabled",
        "autograd_gradcheck", "autograd_gradgradcheck", "autograd_jacobian", "autograd_hessian",
        "autograd_vjp", "autograd_jvp", "autograd_function", "AutogradContext",
    ]))
