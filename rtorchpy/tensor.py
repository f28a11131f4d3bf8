"""Tensor: an ndarray plus what autograd needs (requires_grad, grad, grad_fn, version counter).

Only the tensor's own state and autograd attributes live here, and the conversion of Python data
to its array (``as_array``). Math, shape and indexing methods (``x.exp()``, ``x + y``, ``x[0]``)
are attached by the op registry (``rtorchpy/ops/registry.py``), so the method and namespace forms
of an op are one function.

This module sits below the autograd layer, which needs ``Tensor``; the two things a tensor asks
of that layer are reached through two names the layer fills in when it is imported
(``rtorchpy/__init__`` imports it before any tensor exists): ``regenerate_view`` (from
``autograd/views.py``) and ``run_backward`` (from ``autograd/api.py``).
"""
from __future__ import annotations

import copy
import numbers
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, Union

import numpy as np

from . import dtypes as _dt
from .autograd.grad_mode import STATE
from .numerics.args import flag
from .numerics.bfloat16 import round_in_place
from .numerics.dims import normalize_dim
from .numerics.format import format_tensor, type_word_for

if TYPE_CHECKING:  # (the operators and op methods the op layer installs: see _typing.py)
    from ._typing import TensorOperators
else:
    TensorOperators = object


def _autograd_layer_missing(*args: Any, **kwargs: Any) -> None:
    raise RuntimeError("rtorchpy's autograd layer is not loaded: import rtorchpy, not "
                       "rtorchpy.tensor alone")


# filled in by the autograd layer (see the module docstring)
regenerate_view: Callable[[Tensor], None] = _autograd_layer_missing  # a stale view's new grad_fn
run_backward: Callable[..., None] = _autograd_layer_missing  # autograd_backward (autograd/api.py)

# What the public signatures accept (Union, not |: these are evaluated, and Python 3.9 is
# supported). Data is anything torch_tensor converts.
Number = Union[bool, int, float]  # (NumPy's float64 is a float; other NumPy scalars convert)
Size = Union[SupportsIndex, Sequence[SupportsIndex]]  # torch_ones(2, 3) or torch_ones((2, 3))
TensorLike = Union["Tensor", Number, np.ndarray]

LEAF_INPLACE_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
NON_LEAF_REQUIRES_GRAD_ERROR = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
INTEGER_GRAD_ERROR = "Only Tensors of floating point and complex dtype can require gradients"
NO_GRAD_VIEW_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
_MULTI_TAIL = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one.")
def view_error(view: Tensor) -> RuntimeError | None:
    """The RuntimeError libtorch raises for an in-place op that records history on ``view``
    (given its creation metadata), or None when it is allowed."""
    meta = view._view_meta
    if meta == "no_grad":
        return RuntimeError(NO_GRAD_VIEW_ERROR)
    if meta == "multi_no_grad":
        return RuntimeError("A view was created in no_grad mode and is being modified inplace "
                            "with grad mode enabled. " + _MULTI_TAIL)
    if meta == "multi":
        fn = view._grad_fn
        name = fn.name if fn is not None else "Node"
        if name.endswith("Backward0"):
            name = name[:-len("Backward0")]
        return RuntimeError(f"Output {view._output_nr} of {name} is a view and is being modified "
                            f"inplace. " + _MULTI_TAIL)
    return None


_new = object.__new__

DEEPCOPY_ERROR = ("Only Tensors created explicitly by the user (graph leaves) support the "
                  "deepcopy protocol at the moment.")
# what a tensor keeps in its __dict__ for autograd: never carried over by copy/deepcopy
_AUTOGRAD_ATTRIBUTES = frozenset({"_grad", "_hooks", "_retains_grad", "_accumulator", "_view_fn",
                                  "_view_meta"})


def _copy_user_attributes(src: Tensor, dst: Tensor, memo: dict | None) -> None:
    """Attributes a user set on ``src`` (``x.foo = 1``), onto ``dst``: deep copies when
    ``memo`` is given."""
    extra = {k: v for k, v in src.__dict__.items() if k not in _AUTOGRAD_ATTRIBUTES}
    if extra:
        dst.__dict__.update(copy.deepcopy(extra, memo) if memo is not None else extra)


def _owner(a: np.ndarray) -> np.ndarray:
    """The ndarray that owns ``a``'s memory (``a`` itself unless it is a view)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _deepcopy_array(a: np.ndarray, memo: dict) -> np.ndarray:
    """A copy of ``a`` with its own memory; arrays sharing an owner within one deepcopy share
    the owner's copy, so views stay views of each other (as PyTorch's deepcopy keeps storages
    shared)."""
    owner = _owner(a)
    if owner is a or not owner.flags.c_contiguous or a.dtype != owner.dtype:
        if owner is a:
            key = ("rtorchpy-array", id(a))
            if key in memo:
                return memo[key]
            memo[key] = out = a.copy()
            memo.setdefault(("rtorchpy-keep", id(a)), []).append(a)  # keep ids alive
            return out
        return a.copy()
    key = ("rtorchpy-array", id(owner))
    new_owner = memo.get(key)
    if new_owner is None:
        memo[key] = new_owner = owner.copy()
        memo.setdefault(("rtorchpy-keep", id(owner)), []).append(owner)
    offset = a.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    view = np.ndarray(a.shape, a.dtype, buffer=new_owner, offset=offset, strides=a.strides)
    view.flags.writeable = a.flags.writeable
    return view


class Tensor(TensorOperators):
    """A multi-dimensional array that can record the operations applied to it."""

    # _base / _view_fn: for a view, the tensor whose storage it shares and that tensor's grad_fn
    # when the view was taken (when the base's history is rewritten by an in-place op, the view
    # gets a new grad_fn from it: see autograd/views.py).
    # What every op reads is a slot; what few tensors ever set (a leaf's gradient and hooks, a
    # view's origin) defaults on the class and lands in the instance dict only when set: every
    # op's result is then five attribute writes cheaper to make.
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_version", "_base",
                 "__dict__", "__weakref__")
    _data: np.ndarray
    _requires_grad: bool
    _grad_fn: Any  # a Node (autograd/graph.py, which imports this module), or None
    _output_nr: int
    _version: list[int]
    _base: Tensor | None
    _grad: Tensor | None = None
    _hooks: list | None = None
    _retains_grad = False
    _accumulator: Any = None
    _view_fn: Any = None
    # forward AD: (level, tangent) while a dual level is open (autograd/forward_ad.py)
    _fw: tuple | None = None
    # how a view was made, when libtorch restricts in-place ops on it (_views)
    _view_meta: str | None = None
    _nn_role: str  # (in the instance dict) marked by nn_parameter() or nn_buffer()
    # bfloat16: float32 values on the bfloat16 grid, tagged (ops/bf16.py keeps both true)
    _bf16 = False
    # numpy must defer to our reflected operators (ndarray * Tensor -> Tensor.__rmul__)
    __array_priority__ = 1000

    def __new__(cls, data: Any, dtype: _dt.DTypeLike | None = None,
                requires_grad: bool = False) -> Tensor:
        """Prefer :func:`torch_tensor`; ``Tensor(data)`` follows the same inference rules.
        (There is no ``__init__``: every tensor, a user's or an op's result, is made by
        ``_make``.)"""
        t = cls._make(as_array(data, dtype))
        if dtype is not None and _dt.as_dtype(dtype) is _dt._BFLOAT16:
            round_in_place(t._data)  # (a fresh float32 array)
            t._bf16 = True
        if flag(requires_grad, "requires_grad", "Tensor"):
            t.requires_grad_(True)
        return t

    @classmethod
    def _make(cls, data: np.ndarray, grad_fn: Any = None, output_nr: int = 0,
              version: list[int] | None = None) -> Tensor:
        """Wrap an ndarray without copying or inference: the one constructor (every op's result
        goes through here)."""
        t = _new(cls)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._output_nr = output_nr
        t._version = [0] if version is None else version
        t._base = None
        return t

    # -- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def dtype(self) -> _dt.dtype:
        if self._bf16:
            return _dt._BFLOAT16
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def device(self) -> str:
        return "cpu"

    @property
    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def size(self, dim: int | None = None) -> Any:  # (a tuple, or one int for a dim)
        if dim is None:
            return self._data.shape
        return self._data.shape[normalize_dim(dim, self._data.ndim)]

    def stride(self, dim: int | None = None) -> Any:  # (a tuple, or one int for a dim)
        """Steps between neighbours along each dim, in elements (libtorch's strides: 0 along an
        expanded dim)."""
        a = self._data
        steps = tuple(s // a.itemsize for s in a.strides)
        return steps if dim is None else steps[normalize_dim(dim, a.ndim)]

    def is_contiguous(self) -> bool:
        """Whether the elements lie in memory in row-major order with no gaps (dims of size 1
        are ignored, as in libtorch): what ``view`` needs."""
        return self._data.flags.c_contiguous

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # -- values ---------------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as an ndarray (a copy: changing it does not change the tensor). Refused
        for a tensor that requires grad, as in PyTorch: the array would leave the graph unseen.
        A bfloat16 tensor gives a float32 array (NumPy has no bfloat16)."""
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data.copy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self) -> Any:  # (float, int or bool, by dtype)
        """The single value as a Python number (float, int or bool)."""
        if self._data.size != 1:
            raise ValueError(f"a Tensor with {self._data.size} elements cannot be converted to "
                             "Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:  # (nested lists; a number for a 0-d tensor)
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self._data.size} values is "
                               "ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return self.format()

    def format(self, n: int = 30) -> str:
        """The text R torch prints for this tensor (``print(x, n = n)``), without a final
        newline."""
        self._fresh_view()
        return format_tensor(self._data, "BFloat16" if self._bf16 else
                             type_word_for(self._data.dtype),
                             grad_fn_name=self._grad_fn.name if self._grad_fn is not None else None,
                             requires_grad=self._requires_grad, n=n)

    # -- autograd attributes --------------------------------------------------------------------
    def _fresh_view(self) -> None:
        """A view whose base's history was rewritten gets its grad_fn from the base's current
        history now (libtorch does it when the grad_fn is asked for)."""
        base = self._base
        if base is not None and base._grad_fn is not self._view_fn:
            regenerate_view(self)

    @property
    def requires_grad(self) -> bool:
        self._fresh_view()
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf in place; returns the tensor itself."""
        requires_grad = flag(requires_grad, "requires_grad", "requires_grad_")
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(NON_LEAF_REQUIRES_GRAD_ERROR)
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(INTEGER_GRAD_ERROR)
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self) -> Any:  # (a Node of autograd/graph.py, or None for a leaf)
        self._fresh_view()
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        self._fresh_view()
        return self._grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient, or None before any backward reached this tensor."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad must be a Tensor or None, got {type(value).__name__}")
        if value is not None and value.shape != self.shape:
            raise RuntimeError("assigned grad has data of a different size: expected "
                               f"{list(self.shape)}, got {list(value.shape)}")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep the gradient of a non-leaf in ``.grad`` after backward (no-op on leaves)."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return None
        if not self._retains_grad:
            extras = self._grad_fn.extras_()
            if extras.retained is None:
                extras.retained = {}
            extras.retained[self._output_nr] = weakref.ref(self)
            self._retains_grad = True
        return None

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a Tensor it returns
        replaces the gradient. Returns a handle whose ``remove()`` unregisters the hook."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            extras = self._grad_fn.extras_()
            if extras.pre_hooks is None:
                extras.pre_hooks = {}
            hooks = extras.pre_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False,
                 inputs: Tensor | Sequence[Tensor] | None = None) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves and add it into their
        ``.grad``. ``gradient`` is needed unless the tensor has exactly one element."""
        run_backward([self], None if gradient is None else [gradient], retain_graph,
                     create_graph, inputs=inputs)

    @property
    def data(self) -> Tensor:
        """The values as a tensor outside autograd: it shares this tensor's storage, does not
        require grad, and (unlike ``detach()``) has its own version counter, so in-place changes
        through it go unnoticed by the graph (PyTorch's ``x.data``)."""
        t = Tensor._make(self._data)
        if self._bf16:
            t._bf16 = True
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        """``x.data = t``: x now holds t's storage (shape and dtype included), keeping its
        autograd state."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = value._data
        if self._bf16 or value._bf16:
            self._bf16 = value._bf16

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's storage (and version counter), without history."""
        t = Tensor._make(self._data, version=self._version)
        if self._bf16:
            t._bf16 = True
        return t

    def detach_(self) -> Tensor:
        """Detach in place: this tensor becomes a leaf that does not require grad."""
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    # -- copy and deepcopy ---------------------------------------------------------------------
    def __copy__(self) -> Tensor:
        """``copy.copy(x)``: as in PyTorch, a new tensor over the same memory with the same
        ``requires_grad``, without history (a copied non-leaf is a leaf) or gradient."""
        t = Tensor._make(self._data)
        t.__class__ = type(self)
        t._requires_grad = self._requires_grad
        _copy_user_attributes(self, t, None)
        return t

    def __deepcopy__(self, memo: dict) -> Tensor:
        """``copy.deepcopy(x)``: as in PyTorch, graph leaves only; the copy has its own memory
        (shared among the tensors of one deepcopy that shared it: a base and its view stay a
        base and a view of each other's memory), ``requires_grad`` and a deep copy of
        ``grad``."""
        if self._grad_fn is not None:
            raise RuntimeError(DEEPCOPY_ERROR)
        if id(self) in memo:
            return memo[id(self)]
        t = Tensor._make(_deepcopy_array(self._data, memo))
        t.__class__ = type(self)
        memo[id(self)] = t
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        _copy_user_attributes(self, t, memo)
        return t

    # -- in-place support -----------------------------------------------------------------------
    def _check_inplace(self, others: Sequence[Any] = ()) -> None:
        """Refuse in-place changes that would silently corrupt gradients (libtorch's checks:
        they apply when grad mode is on and the op would record history)."""
        if STATE.grad_enabled and not STATE.fw_only:
            base = self._base
            if base is not None:
                self._fresh_view()
                if not (self._requires_grad or base._requires_grad or any(
                        isinstance(o, Tensor) and o._requires_grad for o in others)):
                    return
                error = view_error(self) if self._view_meta is not None else None
                if error is not None:
                    raise error
                if base._requires_grad and base._grad_fn is None:
                    raise RuntimeError("a view of a leaf Variable that requires grad is being "
                                       "used in an in-place operation.")
            elif self._grad_fn is None and self._requires_grad:
                raise RuntimeError(LEAF_INPLACE_ERROR)


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook (idempotent)."""

    __slots__ = ("_list_ref", "_hook")

    def __init__(self, hook_list: list, hook: Callable) -> None:
        self._list_ref: list | None = hook_list
        self._hook = hook

    def remove(self) -> None:
        lst = self._list_ref
        if lst is not None:
            try:
                lst.remove(self._hook)
            except ValueError:
                pass
            self._list_ref = None

    def __repr__(self) -> str:
        return "<torch_hook>"


def _infer(values: Any) -> np.dtype:
    """libtorch's dtype for Python data: any float -> default float, else any int -> int64,
    else bool."""
    flat = values.ravel() if isinstance(values, np.ndarray) else values
    kinds = set()
    for v in (flat.tolist() if isinstance(flat, np.ndarray) else flat):
        if isinstance(v, (bool, np.bool_)):
            kinds.add("b")
        elif isinstance(v, numbers.Integral):
            kinds.add("i")
        elif isinstance(v, numbers.Real):
            kinds.add("f")
        elif isinstance(v, complex):
            raise TypeError("complex tensors are not supported by rtorchpy")
        else:
            raise TypeError(f"can't convert an element of type {type(v).__name__} to a tensor")
    if "f" in kinds or not kinds:
        return _dt.torch_get_default_dtype().numpy
    if "i" in kinds:
        return np.dtype(np.int64)
    return np.dtype(np.bool_)


def as_array(data: Any, dtype: _dt.DTypeLike | None = None) -> np.ndarray:
    """``data`` as a fresh ndarray with the dtype libtorch would infer (or ``dtype``)."""
    target = _dt.as_dtype(dtype).numpy if dtype is not None else None
    if isinstance(data, Tensor):
        arr = data._data
        return np.array(arr, dtype=target or arr.dtype, copy=True)
    if isinstance(data, (np.ndarray, np.generic)):
        arr = np.asarray(data)
        if arr.dtype.kind not in "biufc":  # (complex: complex64 and complex128 arrays)
            raise TypeError(f"can't convert a NumPy array of dtype {arr.dtype} to a tensor")
        if target is None:
            arr = _supported(arr)
        return np.array(arr, dtype=target or arr.dtype, copy=True)
    if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _walk(data)):
        data = _unwrap_nested(data)
    try:
        arr = np.array(data, dtype=object if target is None else None)
    except ValueError as e:
        raise ValueError(f"can't make a tensor from ragged nested data: {e}") from None
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type int64 without overflow: "
                           f"{data!r}"[:200]) from None
    if arr.dtype == object:
        if arr.ndim and any(isinstance(v, (list, tuple)) for v in arr.ravel()):
            raise ValueError("can't make a tensor from ragged nested data (sequences of different "
                             "lengths)")
        inferred = target or _infer(arr)
        try:
            return arr.astype(inferred)
        except OverflowError:
            raise RuntimeError("value cannot be converted to type int64 without overflow") \
                from None
        except (TypeError, ValueError):
            raise TypeError(f"can't convert {data!r} to a tensor") from None
    if target is None:
        arr = _supported(arr)
    return arr.astype(target, copy=False)


def _supported(arr: np.ndarray) -> np.ndarray:
    """A NumPy array of a dtype rtorchpy lacks (uint16/32/64, long double) as the nearest one it
    has (int64, float64); an unsigned value beyond int64 is an error, never wrapped around."""
    if arr.dtype in _dt._BY_NUMPY:
        return arr
    if arr.dtype.kind in "ui":
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise RuntimeError(f"value cannot be converted to type int64 without overflow: "
                               f"{arr.max()}")
        return arr.astype(np.int64)
    return arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)


def _walk(seq: Sequence[Any]) -> Iterator[Any]:
    for v in seq:
        if isinstance(v, (list, tuple)):
            yield from _walk(v)
        else:
            yield v


def _unwrap_nested(seq: Sequence[Any]) -> list:
    return [_unwrap_nested(v) if isinstance(v, (list, tuple)) else
            (v.item() if isinstance(v, Tensor) else v) for v in seq]
