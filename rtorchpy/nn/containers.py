"""Containers (``nn_sequential``, ``nn_module_list``, ``nn_module_dict``), the shape layers
(``nn_identity``, ``nn_flatten``, ``nn_unflatten``) and ``nn_prune_head``.

Submodules of a sequence are named "0", "1", ... (as in R torch and PyTorch); in Python they
are indexed from 0 (``model[0]`` is the first layer).
"""
from __future__ import annotations

import collections
import operator

from ..numerics.args import int64
from ..numerics.dims import normalize_dim
from ..ops import shape as _ops_shape
from .module import is_nn_module, nn_module

__all__ = ["nn_sequential", "nn_module_list", "nn_module_dict", "nn_identity", "nn_flatten",
           "nn_unflatten", "nn_prune_head"]


def _check_module(m, where):
    if not isinstance(m, nn_module):
        raise TypeError(f"{where}: {type(m).__name__} is not an nn_module")
    return m


class _IndexedModules(nn_module):
    """What nn_sequential and nn_module_list share: children "0", "1", ... indexed from 0."""

    def _items(self):
        return list(self.__dict__["_modules"].values())

    def _reset(self, modules):
        self.__dict__["_modules"] = collections.OrderedDict(
            (str(i), m) for i, m in enumerate(modules))

    def __len__(self):
        return len(self.__dict__["_modules"])

    def __iter__(self):
        return iter(self._items())

    def _index(self, i):
        n = len(self)
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for a {type(self).__name__} of "
                             f"length {n}")
        return i % n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return type(self)(*self._items()[i]) if isinstance(self, nn_sequential) else \
                type(self)(self._items()[i])
        return self._items()[self._index(i)]

    def __setitem__(self, i, module):
        items = self._items()
        items[self._index(i)] = _check_module(module, type(self).__name__)
        self._reset(items)

    def __delitem__(self, i):
        items = self._items()
        if isinstance(i, slice):
            del items[i]
        else:
            del items[self._index(i)]
        self._reset(items)

    def append(self, module):
        """Add ``module`` at the end; returns the container."""
        self.register_module(str(len(self)), _check_module(module, type(self).__name__))
        return self

    def extend(self, modules):
        """Add ``modules`` at the end (all checked first: on error nothing is added)."""
        modules = [_check_module(m, type(self).__name__) for m in modules]
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index`` (0-based); the names are renumbered."""
        items = self._items()
        items.insert(index, _check_module(module, type(self).__name__))
        self._reset(items)
        return self


class nn_sequential(_IndexedModules):
    """Modules applied one after the other: ``nn_sequential(nn_linear(4, 8), nn_relu(),
    nn_linear(8, 1))``. Its forward passes the input through each module in order."""

    def __init__(self, *modules):
        if len(modules) == 1 and isinstance(modules[0], (dict, collections.OrderedDict)):
            for name, m in modules[0].items():
                self.register_module(str(name), _check_module(m, "nn_sequential"))
            return
        for i, m in enumerate(modules):
            self.register_module(str(i), _check_module(m, "nn_sequential"))

    def forward(self, input):
        for m in self._items():
            input = m(input)
        return input


class nn_module_list(_IndexedModules):
    """A list of modules, registered as submodules (their parameters are the container's). It
    has no forward: use it inside a module's forward."""

    def __init__(self, modules=None):
        if modules is not None:
            self.extend(modules)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("nn_module_list has no forward(): iterate over its modules")


class nn_module_dict(nn_module):
    """A dict of modules by name, registered as submodules. It has no forward."""

    def __init__(self, modules=None):
        if modules is not None:
            for name, m in dict(modules).items():
                self[name] = m

    def __getitem__(self, name):
        return self.__dict__["_modules"][name]

    def __setitem__(self, name, module):
        self.register_module(name, _check_module(module, "nn_module_dict"))

    def __delitem__(self, name):
        del self.__dict__["_modules"][name]

    def __len__(self):
        return len(self.__dict__["_modules"])

    def __iter__(self):
        return iter(self.__dict__["_modules"])

    def __contains__(self, name):
        return name in self.__dict__["_modules"]

    def keys(self):
        """The names, in insertion order."""
        return list(self.__dict__["_modules"].keys())

    def values(self):
        return list(self.__dict__["_modules"].values())

    def items(self):
        return list(self.__dict__["_modules"].items())

    def forward(self, *args, **kwargs):
        raise NotImplementedError("nn_module_dict has no forward(): call its modules")


class nn_identity(nn_module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs):
        pass

    def forward(self, input):
        return input


class nn_flatten(nn_module):
    """Flattens dims ``start_dim`` to ``end_dim`` (0-based in Python; by default all but the
    batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return _ops_shape.flatten(input, self.start_dim, self.end_dim)


class nn_unflatten(nn_module):
    """Expands dim ``dim`` (0-based in Python) into the sizes ``unflattened_size``."""

    def __init__(self, dim, unflattened_size):
        self.dim = dim
        self.unflattened_size = tuple(int64(s, "unflattened_size", "nn_unflatten")
                                      for s in unflattened_size)

    def forward(self, input):
        d = normalize_dim(self.dim, input.ndim)
        shape = input.shape[:d] + self.unflattened_size + input.shape[d + 1:]
        known = 1
        for s in self.unflattened_size:
            known *= s if s != -1 else 1
        if -1 not in self.unflattened_size and known != input.shape[d]:
            raise RuntimeError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't "
                               f"multiply up to the size of dim {self.dim} "
                               f"({input.shape[d]}) in the input tensor")
        return input.view(*shape)


def nn_prune_head(x, head_size=1):
    """The network without its last ``head_size`` child modules, as an ``nn_sequential`` (for
    an ``nn_sequential``: its first ``len - head_size`` modules; for any other module, the
    sequence of its children). The modules are shared with ``x``, not copied."""
    if not is_nn_module(x):
        raise TypeError(f"nn_prune_head() expects an nn_module, got {type(x).__name__}")
    head_size = int(head_size)
    children = x.named_children()
    if head_size < 0 or head_size > len(children):
        raise ValueError(f"head_size must be between 0 and the number of child modules "
                         f"({len(children)}), got {head_size}")
    kept = children[:len(children) - head_size]
    return nn_sequential(collections.OrderedDict(kept))
