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
from types import FunctionType as _FunctionType

# The layers, bottom up (each imports only from those below it; docs/internals/index.md):
# numerics (NumPy helpers) < tensor + autograd < derivatives < ops < nn, optim, serialization <
# these public names < the R bridge (_r, which R imports; the package never does). Importing ops
# registers every op and completes the autograd layer.
from . import ops as _ops  # noqa: F401
from .autograd.api import autograd_backward, autograd_grad
from .autograd.function import AutogradContext, autograd_function
from .autograd.gradcheck import (autograd_gradcheck, autograd_gradgradcheck, autograd_hessian,
                                 autograd_jacobian, autograd_jvp, autograd_vjp)
from .autograd.grad_mode import (autograd_set_detect_anomaly, autograd_set_grad_mode,
                                 is_anomaly_enabled, is_grad_enabled, set_grad_enabled,
                                 with_detect_anomaly, with_enable_grad, with_no_grad)
from .dtypes import *  # noqa: F401,F403
from .dtypes import __all__ as _dtype_names
from .ops.creation import *  # noqa: F401,F403
from .ops.creation import __all__ as _creation_names
from .ops.nnf import *  # noqa: F401,F403
from .ops.nnf import __all__ as _nnf_names
from .ops.boundary import boundary as _boundary
from .ops.random_state import *  # noqa: F401,F403
from .ops.random_state import __all__ as _random_names
from .ops.registry import OPS, namespace_name
from .optim import *  # noqa: F401,F403
from .optim import __all__ as _optim_names
from .backends import *  # noqa: F401,F403
from .backends import __all__ as _backend_names
from .data import *  # noqa: F401,F403
from .data import __all__ as _data_names
from .nn import *  # noqa: F401,F403
from .nn import __all__ as _nn_names
from .distributions import *  # noqa: F401,F403
from .distributions import __all__ as _distr_names
from .serialization import torch_load, torch_save
from .tensor import Tensor

__version__ = "0.1.0.dev0"

# NumPy warns about inf/nan results (log(0), 0/0, ...); libtorch does not. The ops, the public
# functions and backward switch those warnings off while they run (numerics/fpquiet.py) instead
# of a process-wide warnings filter: importing the package changes no global state (issue 28).


def _export_namespace_forms():
    """``torch_<op>`` for every registered op that has a namespace form (``linalg_<op>`` for the
    linear-algebra ops, which R torch names so)."""
    names = []
    for key, info in OPS.items():
        if info.namespace and not key.startswith("_"):
            globals()[namespace_name(key)] = _boundary(info.fn, namespace_name(key))
            names.append(namespace_name(key))
    return names


def is_torch_tensor(x):
    """Whether ``x`` is a rtorchpy Tensor."""
    return isinstance(x, Tensor)


def _checked_functions(names):
    """The plain public functions (creation, ``nnf_*``, ``nn_init_*``, ``optim_*`` helpers) with
    their flags checked and internal errors translated, as the ops' forms are."""
    for name in names:
        f = globals().get(name)
        if isinstance(f, _FunctionType):
            globals()[name] = _boundary(f, name)


_checked_functions(list(_creation_names) + list(_nnf_names) + list(_nn_names) +
                   list(_optim_names) + list(_random_names) + list(_distr_names) +
                   list(_data_names) +
                   ["torch_save", "torch_load", "autograd_backward",
                                         "autograd_grad", "autograd_gradcheck",
                                         "autograd_gradgradcheck", "autograd_jacobian",
                                         "autograd_hessian", "autograd_vjp", "autograd_jvp",
                                         "autograd_function"])

__all__ = sorted(set(
    _export_namespace_forms() + list(_creation_names) + list(_dtype_names) + list(_nnf_names) +
    list(_random_names) + list(_distr_names) + list(_optim_names) + list(_nn_names) +
    list(_data_names) + list(_backend_names) + ["torch_save", "torch_load"] + [
        "Tensor", "is_torch_tensor", "autograd_backward", "autograd_grad", "with_no_grad",
        "with_enable_grad", "set_grad_enabled", "autograd_set_grad_mode", "is_grad_enabled",
        "with_detect_anomaly", "autograd_set_detect_anomaly", "is_anomaly_enabled",
        "autograd_gradcheck", "autograd_gradgradcheck", "autograd_jacobian", "autograd_hessian",
        "autograd_vjp", "autograd_jvp", "autograd_function", "AutogradContext",
    ]))

# forward-mode AD and function transforms (issue 35)
from .autograd import forward_ad as _forward_ad  # noqa: E402
from .autograd.forward_ad import __all__ as _forward_ad_names  # noqa: E402
from .autograd.forward_ad import *  # noqa: E402,F401,F403

__all__ = sorted(set(__all__) | set(_forward_ad_names))
from .ops.transforms import __all__ as _transform_names  # noqa: E402
from .ops.transforms import *  # noqa: E402,F401,F403

__all__ = sorted(set(__all__) | set(_transform_names))

from .ops.signal import __all__ as _signal_names  # noqa: E402
from .ops.signal import *  # noqa: E402,F401,F403

_checked_functions(list(_signal_names))
__all__ = sorted(set(__all__) | set(_signal_names))

# For type checkers only (rtorchpy ships py.typed). Some public names are made at import time
# (every op's torch_<name> form) or gathered through an __all__ that is computed (nn, data,
# nnf), which a type checker cannot follow: the modules with the everyday names are star-imported
# here with their signatures, and any other public name is Any to a type checker.
from typing import TYPE_CHECKING as _TYPE_CHECKING  # noqa: E402

if _TYPE_CHECKING:
    from typing import Any as _Any

    from .data.collate import *  # noqa: F401,F403
    from .data.dataloader import *  # noqa: F401,F403
    from .data.dataset import *  # noqa: F401,F403
    from .data.sampler import *  # noqa: F401,F403
    from .nn.activation import *  # noqa: F401,F403
    from .nn.containers import *  # noqa: F401,F403
    from .nn.conv import *  # noqa: F401,F403
    from .nn.dropout import *  # noqa: F401,F403
    from .nn.embedding import *  # noqa: F401,F403
    from .nn.init import *  # noqa: F401,F403
    from .nn.linear import *  # noqa: F401,F403
    from .nn.loss import *  # noqa: F401,F403
    from .nn.module import *  # noqa: F401,F403
    from .nn.normalization import *  # noqa: F401,F403
    from .nn.rnn import *  # noqa: F401,F403
    from .nn.utils import *  # noqa: F401,F403

    def __getattr__(name: str) -> _Any: ...  # an op's torch_<name>, an nnf_ function, ...
