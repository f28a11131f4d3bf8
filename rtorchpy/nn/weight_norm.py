"""Weight normalisation (``nn_utils_weight_norm``, ``nn_utils_remove_weight_norm``): a
module's parameter ``w`` is replaced by a magnitude ``g`` (``<name>_g``) and a direction ``v``
(``<name>_v``), and ``w = g * v / ||v||`` is recomputed before every forward by a forward
pre-hook. The norm is taken over every dim but ``dim`` (``dim = None``: over the whole
tensor). As in libtorch, ``dim`` 0 or the last dim of a float32/float64 weight is one
``WeightNormInterfaceBackward0`` node; other dims (and float16) compose recorded ops."""
from __future__ import annotations

import numpy as np

from ..ops.arith import div, mul
from ..ops.nnf_more import weight_norm_interface
from ..tensor import Tensor
from .module import nn_module, nn_parameter

__all__ = ["nn_utils_weight_norm", "nn_utils_remove_weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim``, keeping ``dim`` (others of size 1);
    ``dim = -1``: the norm of the whole tensor (libtorch's ``norm_except_dim``)."""
    if dim == -1:
        return v.norm()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return (v * v).sum(dim=others, keepdim=True).sqrt() if others else v.abs()


def weight_norm_weight(v, g, dim):
    """``v * (g / ||v||)``, the norm over every dim but ``dim`` (-1: the whole tensor), with
    libtorch's choice of graph: its fused node where its CPU kernel takes the case."""
    if 0 <= dim and dim in (0, v.dim() - 1) and v._data.dtype in (np.float32, np.float64) \
            and g._data.dtype == v._data.dtype and g.dim() == v.dim():
        return weight_norm_interface(v, g, dim)
    return mul(v, div(g, _norm_except_dim(v, dim)))


def _weight(module, name, dim):
    return weight_norm_weight(getattr(module, name + "_v"), getattr(module, name + "_g"), dim)


class _WeightNormHook:
    """The forward pre-hook: recomputes the weight from its two parameters."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def __call__(self, module, args):
        object.__setattr__(module, self.name, _weight(module, self.name, self.dim))


def nn_utils_weight_norm(module, name="weight", dim=0):
    """Reparameterise ``module``'s parameter ``name`` as ``name_g * name_v / ||name_v||``
    (norm over every dim but ``dim``; ``None``: over the whole tensor) and return the module;
    the weight is recomputed before each forward."""
    if not isinstance(module, nn_module):
        raise TypeError(f"nn_utils_weight_norm(): `module` must be an nn_module, got "
                        f"{type(module).__name__}")
    hooks = module.__dict__.setdefault("_forward_pre_hooks", {})
    if any(isinstance(h, _WeightNormHook) and h.name == name for h in hooks.values()):
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                           f"{name}")
    weight = module.__dict__["_parameters"].get(name)
    if not isinstance(weight, Tensor):
        raise ValueError(f"nn_utils_weight_norm(): the module has no parameter '{name}'")
    nd = max(weight.dim(), 1)
    if dim is None:
        dim = -1
    elif not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                         f"{nd - 1}], but got {dim})")
    elif dim < -1:
        dim += nd
    data = weight.detach()
    delattr(module, name)
    setattr(module, name + "_g", nn_parameter(_norm_except_dim(data, dim).clone()))
    setattr(module, name + "_v", nn_parameter(data.clone()))
    hook = _WeightNormHook(name, dim)
    hook(module, ())
    hooks[id(hook)] = hook
    return module


def nn_utils_remove_weight_norm(module, name="weight"):
    """Undo ``nn_utils_weight_norm``: ``name`` becomes a plain parameter again, holding the
    current weight."""
    hooks = module.__dict__.get("_forward_pre_hooks", {})
    for key, hook in list(hooks.items()):
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            weight = _weight(module, name, hook.dim).detach()
            del hooks[key]
            object.__getattribute__(module, "__dict__").pop(name, None)
            delattr(module, name + "_g")
            delattr(module, name + "_v")
            setattr(module, name, nn_parameter(weight))
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {type(module).__name__}")
