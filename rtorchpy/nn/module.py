"""``nn_module``: the base class of every layer and model, with R torch's names and PyTorch's
semantics.

Subclass it and define ``__init__`` (assigning parameters, buffers and submodules as attributes)
and ``forward``; calling the module calls ``forward``::

    class Net(nn_module):
        def __init__(self):
            self.fc1 = nn_linear(4, 8)        # a submodule
            self.fc2 = nn_linear(8, 1)
            self.scale = nn_parameter(torch_ones(1))          # a parameter
            self.register_buffer("calls", torch_zeros(1))     # a buffer

        def forward(self, x):
            return self.fc2(nnf_relu(self.fc1(x))) * self.scale

Calling ``super().__init__()`` is allowed but not needed: the registries exist before
``__init__`` runs. Attribute assignment decides what a value is: a tensor made by
:func:`nn_parameter` is a parameter, one made by :func:`nn_buffer` a buffer, an ``nn_module`` a
submodule; anything else is a plain attribute.

``model.parameters`` is R torch's named list of parameters: an ordered, read-only dict from
nested names (``fc1.weight``) to tensors, each tensor once even when shared.
"""
from __future__ import annotations

import collections
import collections.abc
import copy
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import with_no_grad
from ..autograd.graph import bump_version
from ..numerics import bfloat16
from ..numerics.format import type_word_for
from ..ops.batching import module_call
from ..ops.boundary import VMAP, VMAP_LOCAL, _any_batched
from ..tensor import Tensor

M = TypeVar("M", bound="nn_module")  # the methods that return the module return its own class

__all__ = ["nn_module", "nn_parameter", "nn_buffer", "is_nn_module", "is_nn_parameter",
           "is_nn_buffer"]

PARAMETERS_READ_ONLY = (
    "It's not possible to modify the parameters list.\n You can modify the parameter in-place "
    "or use `module.parameter_name = new_value`.")


# ------------------------------------------------------------------------------ markers

def nn_parameter(x: Tensor, requires_grad: bool = True) -> Tensor:
    """Mark tensor ``x`` as a parameter: assigned as a module attribute, it is registered in the
    module's ``parameters``. A leaf is marked itself (its ``requires_grad`` set); a tensor with
    history is detached first, as PyTorch's ``Parameter`` does."""
    if not isinstance(x, Tensor):
        raise TypeError(f"`x` must be a tensor, got {type(x).__name__}")
    p = x if x.is_leaf else x.detach()
    p.requires_grad_(requires_grad)
    p._nn_role = "parameter"
    return p


def nn_buffer(x: Tensor, persistent: bool = True) -> Tensor:
    """Mark tensor ``x`` as a buffer: assigned as a module attribute, it is registered in the
    module's ``buffers`` (and, when ``persistent``, in its ``state_dict()``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"`x` must be a tensor, got {type(x).__name__}")
    x._nn_role = "buffer" if persistent else "buffer-nonpersistent"
    return x


def is_nn_parameter(x: object) -> bool:
    """Whether ``x`` is a tensor marked by :func:`nn_parameter`."""
    return isinstance(x, Tensor) and getattr(x, "_nn_role", None) == "parameter"


def is_nn_buffer(x: object) -> bool:
    """Whether ``x`` is a tensor marked by :func:`nn_buffer`."""
    return isinstance(x, Tensor) and getattr(x, "_nn_role", "").startswith("buffer")


def is_nn_module(x: object) -> bool:
    """Whether ``x`` is an ``nn_module``."""
    return isinstance(x, nn_module)


class _ReadOnlyDict(collections.OrderedDict):
    """The ordered dict ``model.parameters`` returns: modifying it is an error (modify the
    module instead), as modifying R torch's parameter list is."""

    def _refuse(self, *args, **kwargs):
        raise RuntimeError(PARAMETERS_READ_ONLY)

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse
    move_to_end = _refuse

    def __init__(self, items=()):
        for k, v in items:
            collections.OrderedDict.__setitem__(self, k, v)

    def copy(self):
        return collections.OrderedDict(self)

    def __reduce__(self):
        return (collections.OrderedDict, (list(self.items()),))


IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _count_text(n):
    return f"{n:,}"


def _dims_text(shape):
    return ", ".join(f"1:{s}" for s in shape)


def _rule(title, width=80):
    return f"── {title} " + "─" * max(width - len(title) - 4, 3)


# ------------------------------------------------------------------------------ the base class

class nn_module:
    """Base class of layers and models (R torch's ``nn_module``). See the module docstring.

    As in R torch, ``nn_module("Net", initialize=..., forward=...)`` (a class name first) defines
    a new module class instead: ``initialize`` becomes its ``__init__``, the other keyword
    arguments its methods and attributes, ``inherit`` its base class (default ``nn_module``)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # (a module, or a new class)
        if cls is nn_module and args and isinstance(args[0], str):
            return _define(*args, **kwargs)
        self = super().__new__(cls)
        d = self.__dict__
        d["_parameters"] = collections.OrderedDict()
        d["_buffers"] = collections.OrderedDict()
        d["_non_persistent"] = set()
        d["_modules"] = collections.OrderedDict()
        d["training"] = True
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no forward() method")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        hooks = self.__dict__.get("_forward_pre_hooks")
        if hooks:  # e.g. nn_utils_weight_norm's recomputation of the weight
            for hook in list(hooks.values()):
                hook(self, args)
        # (inside vmap: ops/batching.py)
        if VMAP[0] and VMAP_LOCAL.depth and _any_batched(args, kwargs):
            return module_call(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # -- attributes ---------------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        params, buffers, modules = d["_parameters"], d["_buffers"], d["_modules"]
        if name in ("parameters", "buffers", "children", "modules"):
            raise RuntimeError(PARAMETERS_READ_ONLY if name == "parameters" else
                               f"`{name}` is read-only: register or assign {name} one by one")
        if isinstance(value, Tensor) and getattr(value, "_nn_role", None) is not None:
            role = value._nn_role
            self._forget(name)
            if role == "parameter":
                params[name] = value
            else:
                buffers[name] = value
                if role == "buffer-nonpersistent":
                    d["_non_persistent"].add(name)
            return
        if isinstance(value, nn_module):
            self._forget(name)
            modules[name] = value
            return
        if name in params:
            if value is None:
                params[name] = None
                return
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                            "(nn_parameter() or None expected)")
        if name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(a tensor or None expected)")
            buffers[name] = value
            return
        if name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (an nn_module or None expected)")
            modules[name] = None
            return
        object.__setattr__(self, name, value)

    def _forget(self, name):
        d = self.__dict__
        for reg in (d["_parameters"], d["_buffers"], d["_modules"]):
            reg.pop(name, None)
        d["_non_persistent"].discard(name)
        d.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: parameters, buffers and submodules
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        if name in d["_parameters"] or name in d["_buffers"] or name in d["_modules"]:
            self._forget(name)
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        d = self.__dict__
        return sorted(set(super().__dir__()) | set(d["_parameters"]) | set(d["_buffers"]) |
                      set(d["_modules"]))

    # -- registration -------------------------------------------------------------------------
    @staticmethod
    def _check_name(name, registry_owner, what):
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f"{what} name can't be empty or contain \".\", got: {name!r}")
        if hasattr(type(registry_owner), name):
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self: M, name: str, param: Tensor | None) -> M:
        """Register ``param`` (a tensor, marked as a parameter, or None) under ``name``."""
        self._check_name(name, self, "parameter")
        if param is None:
            self._forget(name)
            self.__dict__["_parameters"][name] = None
            return self
        if not isinstance(param, Tensor):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (a tensor or None required)")
        if not is_nn_parameter(param):
            param = nn_parameter(param, param.requires_grad or param.is_leaf)
        self._forget(name)
        self.__dict__["_parameters"][name] = param
        return self

    def register_buffer(self: M, name: str, tensor: Tensor | None, persistent: bool = True) -> M:
        """Register ``tensor`` (or None) as a buffer under ``name``: part of the module's state
        (moved by ``to()``, saved by ``state_dict()`` when ``persistent``), not a parameter."""
        self._check_name(name, self, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (a tensor or None required)")
        self._forget(name)
        if tensor is not None:
            nn_buffer(tensor, persistent)
        self.__dict__["_buffers"][name] = tensor
        if not persistent:
            self.__dict__["_non_persistent"].add(name)
        return self

    def register_module(self: M, name: str, module: nn_module | None) -> M:
        """Register ``module`` (an nn_module or None) as a submodule under ``name``."""
        if isinstance(name, int):
            name = str(name)
        self._check_name(name, self, "module")
        if module is not None and not isinstance(module, nn_module):
            raise TypeError(f"{type(module).__name__} is not an nn_module")
        self._forget(name)
        self.__dict__["_modules"][name] = module
        return self

    add_module = register_module

    # -- what the module holds ----------------------------------------------------------------
    def _named_members(self, get, recurse=True):
        seen = set()
        for prefix, module in (self._walk() if recurse else [("", self)]):
            for name, t in get(module):
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (prefix + "." + name if prefix else name), t

    def _walk(self, prefix="", seen=None):
        """(qualified name, module) for this module and every submodule, each once."""
        seen = set() if seen is None else seen
        if id(self) in seen:
            return
        seen.add(id(self))
        yield prefix, self
        for name, m in self.__dict__["_modules"].items():
            if m is not None:
                yield from m._walk(prefix + "." + name if prefix else name, seen)

    def named_parameters(self, recurse: bool = True) -> list[tuple[str, Tensor]]:
        """``(name, parameter)`` pairs, nested names joined by dots (``fc1.weight``); a shared
        parameter appears once."""
        return list(self._named_members(lambda m: m.__dict__["_parameters"].items(), recurse))

    @property
    def parameters(self) -> dict[str, Tensor]:
        """R torch's named list of parameters: a read-only ordered dict name -> tensor."""
        return _ReadOnlyDict(self.named_parameters())

    def named_buffers(self, recurse: bool = True) -> list[tuple[str, Tensor]]:
        """``(name, buffer)`` pairs, nested names joined by dots."""
        return list(self._named_members(lambda m: m.__dict__["_buffers"].items(), recurse))

    @property
    def buffers(self) -> dict[str, Tensor]:
        """The buffers: a read-only ordered dict name -> tensor."""
        return _ReadOnlyDict(self.named_buffers())

    def named_children(self) -> list[tuple[str, nn_module]]:
        """``(name, module)`` pairs of the direct submodules."""
        seen, out = set(), []
        for name, m in self.__dict__["_modules"].items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                out.append((name, m))
        return out

    @property
    def children(self) -> dict[str, nn_module]:
        """The direct submodules: a read-only ordered dict name -> module."""
        return _ReadOnlyDict(self.named_children())

    def named_modules(self) -> list[tuple[str, nn_module]]:
        """``(name, module)`` for this module (name "") and every submodule, each once."""
        return list(self._walk())

    @property
    def modules(self) -> list[nn_module]:
        """This module and all its submodules (depth first, each once), as a list."""
        return [m for _, m in self._walk()]

    # -- modes and gradients ------------------------------------------------------------------
    def train(self: M, mode: bool = True) -> M:
        """Set training mode (``mode = False``: evaluation) here and in every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules:
            m.__dict__["training"] = mode
        return self

    def eval(self: M) -> M:
        """Evaluation mode (dropout off, batch norm by its running statistics)."""
        return self.train(False)

    def zero_grad(self: M, set_to_none: bool = True) -> M:
        """Reset the parameters' gradients: to None (``set_to_none``, PyTorch's default) or to
        zeros in place."""
        for p in self.parameters.values():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    p.grad = g.detach()
                    g = p.grad
                g._data[...] = 0
                bump_version(g)
        return self

    def requires_grad_(self: M, requires_grad: bool = True) -> M:
        """Set ``requires_grad`` of every parameter."""
        for p in self.parameters.values():
            p.requires_grad_(requires_grad)
        return self

    # -- dtype and device ---------------------------------------------------------------------
    def to(self: M, dtype: Any = None, device: str = "cpu", tensor: Tensor | None = None) -> M:
        """Cast floating-point parameters and buffers (and their gradients) to ``dtype``, in
        place: the tensors stay the same objects, as in PyTorch. ``device`` may only be
        "cpu"; ``tensor``: take the dtype from that tensor."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"to(): tensor must be a Tensor, not {type(tensor).__name__}")
        if isinstance(dtype, str) and dtype.lower() == "cpu":
            dtype, device = None, dtype
        if device is not None and str(device).lower() != "cpu":
            raise RuntimeError(f"rtorchpy computes on the CPU only; got device {device!r}")
        if tensor is not None:
            dtype = tensor.dtype
        if dtype is None:
            return self
        want = _dt.as_dtype(dtype)
        if not want.is_floating_point:
            raise TypeError(f"nn_module.to only accepts floating point dtypes, but got "
                            f"{want!r}")
        bf16 = want == _dt.torch_bfloat16()  # (float32 storage rounded, and tagged)

        def cast(a):
            return bfloat16.to_grid(a) if bf16 else a.astype(want.numpy)
        with with_no_grad():
            for t in list(self.parameters.values()) + list(self.buffers.values()):
                if t._data.dtype.kind == "f" and t.dtype != want:
                    t._data = cast(t._data)
                    t._bf16 = bf16
                    bump_version(t)
                    if t.grad is not None:
                        t._grad = Tensor._make(cast(t.grad._data))
                        t._grad._bf16 = bf16
        return self

    def cpu(self: M) -> M:
        """The module itself (rtorchpy computes on the CPU)."""
        return self

    def double(self: M) -> M:
        """``to(dtype = torch_float64())``."""
        return self.to(_dt.torch_float64())

    def float(self: M) -> M:
        """``to(dtype = torch_float32())``."""
        return self.to(_dt.torch_float32())

    # -- state --------------------------------------------------------------------------------
    def state_dict(self, prefix: str = "", keep_vars: bool = False) -> dict[str, Tensor]:
        """The module's state: an ordered dict from nested names to tensors (parameters and
        persistent buffers, each module's own before its submodules'), detached unless
        ``keep_vars`` (they share memory with the module's tensors)."""
        if not isinstance(prefix, str):
            raise TypeError(f"state_dict(): prefix must be a string, not {type(prefix).__name__}")
        out = collections.OrderedDict()
        for path, m in self._walk():
            d = m.__dict__
            pre = prefix + (path + "." if path else "")
            for name, p in d["_parameters"].items():
                if p is not None:
                    out[pre + name] = p if keep_vars else p.detach()
            for name, b in d["_buffers"].items():
                if b is not None and name not in d["_non_persistent"]:
                    out[pre + name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict: collections.abc.Mapping[str, Any],
                        strict: bool = True) -> Any:  # (missing and unexpected keys)
        """Copy ``state_dict``'s tensors into the module's parameters and buffers (in place, cast
        to their dtype). Every entry is checked first: with ``strict``, missing and unexpected
        keys are errors; a shape that differs is always an error. On error nothing changes.
        Returns the missing and unexpected keys."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError("Expected state_dict to be dict-like, got "
                            f"{type(state_dict).__name__}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.append("Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        for k, target in own.items():
            if k not in state_dict:
                continue
            value = state_dict[k]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{k}", expected a tensor '
                              f"from checkpoint but received {type(value).__name__}")
            elif value.shape != target.shape:
                errors.append(f"size mismatch for {k}: copying a param with shape "
                              f"{list(value.shape)} from checkpoint, the shape in current model "
                              f"is {list(target.shape)}.")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" +
                               "\n\t".join(errors))
        with with_no_grad():
            for k, target in own.items():
                if k in state_dict:
                    src = state_dict[k]._data
                    if src is not target._data:
                        target._data[...] = src.astype(target._data.dtype, copy=False)
                        bump_version(target)
        return IncompatibleKeys(missing, unexpected)

    def apply(self: M, fn: Callable[[nn_module], Any]) -> M:
        """Call ``fn(module)`` on every submodule (children first), then on this module."""
        for _, m in self.named_children():
            m.apply(fn)
        fn(self)
        return self

    def clone(self: M, deep: bool = True) -> M:
        """A copy of the module. ``deep``: parameters and buffers are new tensors with the same
        values (``requires_grad`` kept, no history, shared ones still shared); otherwise the
        copy shares them with this module."""
        if not deep:
            new = copy.copy(self)
            d = new.__dict__
            for key in ("_parameters", "_buffers", "_modules"):
                d[key] = collections.OrderedDict(d[key])
            d["_non_persistent"] = set(d["_non_persistent"])
            return new
        memo = {}
        for m in self.modules:
            for reg in ("_parameters", "_buffers"):
                for t in m.__dict__[reg].values():
                    if t is not None and id(t) not in memo:
                        memo[id(t)] = _copy_tensor(t)
            for v in m.__dict__.values():  # plain tensor attributes
                if isinstance(v, Tensor) and id(v) not in memo:
                    memo[id(v)] = _copy_tensor(v)
        return copy.deepcopy(self, memo)

    # -- printing -----------------------------------------------------------------------------
    def __repr__(self):
        n = sum(p.numel() for p in self.parameters.values())
        lines = [f"An `nn_module` containing {_count_text(n)} parameters."]
        children = self.named_children()
        if children:
            lines += ["", _rule("Modules")]
            for name, m in children:
                count = sum(p.numel() for p in m.parameters.values())
                lines.append(f"• {name}: <{type(m).__name__}> #{_count_text(count)} parameters")
        own = [(k, p) for k, p in self.__dict__["_parameters"].items() if p is not None]
        if own:
            lines += ["", _rule("Parameters")]
            for name, p in own:
                lines.append(f"• {name}: {type_word_for(p._data.dtype)} [{_dims_text(p.shape)}]")
        bufs = [(k, b) for k, b in self.__dict__["_buffers"].items() if b is not None]
        if bufs:
            lines += ["", _rule("Buffers")]
            for name, b in bufs:
                lines.append(f"• {name}: {type_word_for(b._data.dtype)} [{_dims_text(b.shape)}]")
        return "\n".join(lines)


def _define(classname, inherit=None, initialize=None, forward=None, **members):
    """``nn_module("Net", initialize=..., forward=...)``: a new subclass of ``inherit``."""
    base = nn_module if inherit is None else inherit
    if not (isinstance(base, type) and issubclass(base, nn_module)):
        raise TypeError(f"inherit must be an nn_module class, got {base!r}")
    body = dict(members)
    if initialize is not None:
        if not callable(initialize):
            raise TypeError("initialize must be a function")
        body["__init__"] = initialize
    if forward is not None:
        if not callable(forward):
            raise TypeError("forward must be a function")
        body["forward"] = forward
    return type(classname, (base,), body)


def _copy_tensor(t):
    """A new leaf with ``t``'s values, dtype, requires_grad and nn role; no history, no grad."""
    new = Tensor._make(np.array(t._data, copy=True))
    if t._requires_grad and t._data.dtype.kind == "f":
        new.requires_grad_(True)
    role = getattr(t, "_nn_role", None)
    if role is not None:
        new._nn_role = role
    return new

