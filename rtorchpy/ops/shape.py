"""Shape and view ops, joining and splitting, gathering, and ``x[...]`` indexing.

Ops that NumPy can answer with a view (reshape of contiguous data, transpose, slicing, expand)
return tensors that share storage and the version counter with their input, as libtorch views do:
an in-place change through one is seen, and version-checked, through the other.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE
from ..autograd.record import record, record1
from ..autograd.rows import NODES
from ..autograd.views import gained_grad, mark_multi_output, share_view
from ..numerics.args import int64
from ..numerics.arrays import broadcast_view, diagonal_view, insert_axis
from ..numerics.dims import normalize_dim, normalize_dims
from ..numerics.formula_arrays import ARRAY_OPS
from ..numerics.shape_errors import expand_error
from ..numerics.warn import warn
from ..tensor import Tensor
from .bf16 import tag
from .registry import as_tensor, op, promote, recording, wrap


def _view_of(self, data, node, params=(), view=False):
    """Wrap ``data`` (possibly a NumPy view of ``self``; ``view=True``: certainly one, no need to
    ask NumPy) and record ``node``."""
    out = Tensor._make(data)
    if view or np.may_share_memory(data, self._data):
        share_view(self, out)
        if not STATE.grad_enabled:
            out._view_meta = "no_grad"
            return out
    if STATE.grad_enabled and (self._requires_grad or gained_grad(self)):
        record1(node, self, out, params)
    return out


_UNSQUEEZE, _T, _EXPAND = NODES["UnsqueezeBackward0"], NODES["TBackward0"], NODES["ExpandBackward0"]


def _shape_arg(size):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, np.ndarray)):
        size = tuple(size[0])
    try:
        return tuple(int(s) for s in size)
    except (TypeError, ValueError):
        raise TypeError(f"a shape must be integers, got {size!r}") from None


def _infer_shape(shape, numel):
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    n = 1
    for s in shape:
        if s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        n *= s
    if n != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@op("reshape")
def reshape(self, *shape):
    """The same values in another shape (-1 infers one dim); a view when the data allow it."""
    shape = _infer_shape(_shape_arg(shape), self._data.size)
    data = self._data.reshape(shape)
    if np.may_share_memory(data, self._data) or self._data.size == 0:
        return _view_of(self, data, NODES["ViewBackward0"], (self._data.shape,))
    # libtorch copies a non-contiguous input first (CloneBackward0), then views the copy
    return _view_of(clone(self), data, NODES["UnsafeViewBackward0"], (self._data.shape,))


@op("view")
def view(self, *shape):
    """Like reshape, but the result always shares storage with ``self``."""
    shape = _infer_shape(_shape_arg(shape), self._data.size)
    data = self._data.view()
    try:
        data.shape = shape  # assigning .shape never copies: it fails instead
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return _view_of(self, data, NODES["ViewBackward0"], (self._data.shape,))


@op("flatten", dims=("start_dim", "end_dim"))
def flatten(self, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` (inclusive) into one."""
    shape = self._data.shape
    if not shape:
        return reshape(self, 1)
    s, e = normalize_dim(start_dim, len(shape)), normalize_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    n = 1
    for k in shape[s:e + 1]:
        n *= k
    return reshape(self, shape[:s] + (n,) + shape[e + 1:])


@op("squeeze", dims=("dim",))
def squeeze(self, dim=None):
    """Drop dims of size 1 (only ``dim`` if given, and only if its size is 1)."""
    shape = self._data.shape
    if dim is None:
        data = self._data.reshape(tuple(s for s in shape if s != 1))
        return _view_of(self, data, NODES["SqueezeBackward0"], (shape,))
    dims = normalize_dims(dim, len(shape))
    data = self._data.reshape(tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1)))
    return _view_of(self, data, NODES["SqueezeBackward1"], (shape,))


@op("unsqueeze", dims=("dim",))
def unsqueeze(self, dim):
    """Insert a dim of size 1 at ``dim`` (in ``[-ndim-1, ndim]``)."""
    d = normalize_dim(dim, self._data.ndim + 1)
    return _view_of(self, insert_axis(self._data, d), _UNSQUEEZE, (d,), view=True)


@op("t")
def t(self):
    """Transpose a 2-d tensor (tensors with fewer dims are returned as they are)."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _view_of(self, self._data.T, _T, view=True)


@op("transpose", dims=("dim0", "dim1"), aliases=("swapaxes",))
def transpose(self, dim0, dim1):
    """Swap two dims."""
    n = self._data.ndim
    a, b = normalize_dim(dim0, n), normalize_dim(dim1, n)
    return _view_of(self, self._data.swapaxes(a, b) if n else self._data,
                    NODES["TransposeBackward0"], (a, b))


@op("permute", dims=("dims",))
def permute(self, *dims):
    """Reorder the dims: ``x.permute(2, 0, 1)``."""
    dims = _shape_arg(dims)
    n = self._data.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = tuple(normalize_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_of(self, self._data.transpose(dims), NODES["PermuteBackward0"], (dims,))


@op("mT")
def mT(self):
    """Swap the last two dims (a batch of matrix transposes). In Python a property, as in
    PyTorch (``x.mT``); ``torch_mT(x)`` and the R face's ``x$mT()`` call this op."""
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _numpy_T(self):
    """``x.T``: the dims reversed (PermuteBackward0). Meant for matrices: other dims warn, as
    in PyTorch."""
    n = self._data.ndim
    if n == 0:
        warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
             "these cases.", UserWarning, stacklevel=2)
    elif n != 2:
        warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
             "shape is deprecated and it will throw an error in a future release. "
             "Consider `x.mT` to transpose batches of matrices or "
             "`x.permute(*range(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
             "tensor.", UserWarning, stacklevel=2)
    return permute(self, *range(n - 1, -1, -1))


def _adjoint(self):
    """``x.H``: the conjugate transpose of a matrix (dtypes are real here: the transpose)."""
    n = self._data.ndim
    if n != 2:
        hint = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D "
                           f"tensor.{hint}")
    return transpose(self, 0, 1)


def _batch_adjoint(self):
    """``x.mH``: the conjugate transpose of each matrix of a batch."""
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


# PyTorch's Tensor has these as properties (``x.mT``, not ``x.mT()``). The op registry keeps
# mT an op (torch_mT, and x$mT() in R torch, where it is a method); only the Python attribute
# becomes a property.
Tensor.mT = property(mT, doc=mT.__doc__)  # type: ignore[method-assign,assignment]  # (tensor.py)
Tensor.T = property(_numpy_T, doc=_numpy_T.__doc__)  # type: ignore[method-assign,assignment]  # (tensor.py)
Tensor.H = property(_adjoint, doc=_adjoint.__doc__)  # type: ignore[method-assign,assignment]  # (tensor.py)
Tensor.mH = property(_batch_adjoint, doc=_batch_adjoint.__doc__)  # type: ignore[method-assign,assignment]  # (tensor.py)


@op("expand")
def expand(self, *size):
    """Broadcast to ``size`` without copying; -1 keeps a dim's size."""
    if len(size) == 1 and type(size[0]) is tuple and all(type(s) is int for s in size[0]):
        size = size[0]  # already a shape (expand_as, the engine): no conversion
    else:
        size = _shape_arg(size)
    shape = self._data.shape
    lead = len(size) - len(shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(size)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(shape)})")
    target = size if -1 not in size else tuple(
        shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(size))
    if target[lead:] == shape and all(s == 1 for s in target[:lead]):
        # nothing repeats (only new size-1 dims): a plain writable view, as in libtorch, where
        # only memory that overlaps refuses in-place writes
        return _view_of(self, self._data.reshape(target), _EXPAND, view=True)
    try:
        data = broadcast_view(self._data, target)
    except ValueError as e:
        raise expand_error(target, shape) or e from None
    return _view_of(self, data, _EXPAND, view=True)


@op("expand_as")
def expand_as(self, other):
    """``self.expand(other.shape)``."""
    target = as_tensor(other)._data.shape
    if self._data.shape == target:  # nothing to broadcast: libtorch still records a view
        return _view_of(self, self._data.view(), _EXPAND, view=True)
    return expand(self, target)


@op("broadcast_to")
def broadcast_to(self, size):
    return expand(self, size)


@op("repeat")
def repeat(self, *repeats):
    """Tile the tensor ``repeats[i]`` times along dim i (copies)."""
    repeats = _shape_arg(repeats)
    if len(repeats) < self._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    if any(r < 0 for r in repeats):
        lead = (1,) * (len(repeats) - self._data.ndim) + self._data.shape
        sizes = [n * r for n, r in zip(lead, repeats)]
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(sizes)}: {sizes}")
    out = wrap(np.tile(self._data, repeats))
    if recording(self):
        record(NODES["RepeatBackward0"], (self,), (out,), (self._data.shape, repeats))
    return out


@op("flip", dims=("dims",))
def flip(self, dims):
    """Reverse the order of elements along ``dims``."""
    dims = normalize_dims(dims if isinstance(dims, (list, tuple)) else (dims,), self._data.ndim)
    if self._data.ndim == 0:
        dims = ()  # dim 0 / -1 of a 0-dim tensor: nothing to reverse
    out = wrap(np.flip(self._data, dims).copy())
    if recording(self):
        record(NODES["FlipBackward0"], (self,), (out,), (dims,))
    return out


def _ints(v, name):
    """An int or a sequence of ints (int64's range) as a tuple."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(int64(i, name) for i in v)
    return (int64(v, name),)


@op("roll", dims=("dims",))
def roll(self, shifts, dims=None):
    """Shift the elements by ``shifts`` along ``dims``, those that fall off one end coming back
    at the other; without ``dims``, along the flattened tensor (the shape is kept)."""
    shifts = _ints(shifts, "shifts")
    n = self._data.ndim
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        dims = None
    else:
        dims = tuple(normalize_dim(d, n) for d in _ints(dims, "dims"))
        if len(dims) != len(shifts):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
    out = wrap(ARRAY_OPS.roll(self._data, shifts, dims))  # (the backward's roll too)
    if recording(self):
        record(NODES["RollBackward0"], (self,), (out,), (shifts, dims))
    return out


@op("movedim", dims=("source", "destination"))
def movedim(self, source, destination):
    """Move dims ``source`` to positions ``destination`` (ints or sequences of the same length);
    the other dims keep their order. A view (``permute``)."""
    n = self._data.ndim
    src = tuple(normalize_dim(d, n) for d in _ints(source, "source"))
    dst = tuple(normalize_dim(d, n) for d in _ints(destination, "destination"))
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    for what, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(ds)})")
    order = np.empty(n, dtype=np.int64)
    order[list(dst)] = src
    rest = [d for d in range(n) if d not in src]
    order[[d for d in range(n) if d not in dst]] = rest
    return permute(self, *order.tolist())


@op("clone")
def clone(self, memory_format=None):
    """A copy with its own storage; gradients flow through it. (``memory_format`` is accepted
    for R torch's signature: every tensor here is contiguous, strided as NumPy lays it out.)"""
    out = wrap(self._data.copy())
    if recording(self):
        record(NODES["CloneBackward0"], (self,), (out,))
    return out


@op("contiguous")
def contiguous(self, memory_format=None):
    return self if self._data.flags.c_contiguous else clone(self)


@op("to")
def to(self, dtype=None, device=None, copy=False, other=None, non_blocking=False,
       memory_format=None):
    """Cast to ``dtype`` (``device`` may only be "cpu"), or to ``other``'s dtype; differentiable
    between float types. (``non_blocking`` and ``memory_format``: accepted, nothing to do.)"""
    if other is not None:
        if dtype is not None or device is not None:
            raise ValueError("to(): give other, or dtype and device, not both")
        if not isinstance(other, Tensor):
            raise TypeError(f"to(): other must be a Tensor, got {type(other).__name__}")
        dtype = other.dtype
    if isinstance(dtype, str) and dtype.lower() in ("cpu",) and device is None:
        dtype, device = None, dtype
    if device is not None and str(device) not in ("cpu", "CPU"):
        raise RuntimeError(f"rtorchpy computes on the CPU only; got device {device!r}")
    if dtype is None:
        return clone(self) if copy else self
    want = _dt.as_dtype(dtype)
    target = want.numpy
    if want == self.dtype and not copy:
        return self
    out = wrap(self._data.astype(target))
    if want is _dt._BFLOAT16:  # (float32 storage on the bfloat16 grid, tagged)
        tag(out)
    if recording(self) and target.kind == "f":
        record(NODES["ToCopyBackward0"], (self,), (out,))
    return out


def _cast_method(name, dtype_fn):
    def fn(self):
        return to(self, dtype_fn())
    fn.__name__ = name
    fn.__doc__ = f"``self.to({dtype_fn.__name__}())``."
    fn.__bf16_aware__ = True  # (to() decides the dtype: ops/bf16.py must not retag)
    return op(name, namespace=False)(fn)


def _install_casts():
    for name, f in (("float", _dt.torch_float32), ("double", _dt.torch_float64),
                    ("long", _dt.torch_int64), ("int", _dt.torch_int32), ("bool", _dt.torch_bool),
                    ("half", _dt.torch_float16), ("bfloat16", _dt.torch_bfloat16)):
        _cast_method(name, f)


_install_casts()


def type_as(self, other):
    return to(self, as_tensor(other).dtype)


type_as.__bf16_aware__ = True  # type: ignore[attr-defined]  # (to() decides the dtype)
type_as = op("type_as", namespace=False)(type_as)


# ------------------------------------------------------------------------------ join and split

def _tensor_list(tensors, what):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{what} expects a list of tensors, got {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{what} expects a non-empty list of tensors")
    return [as_tensor(t) for t in tensors]


def _common(tensors):
    dt = tensors[0]._data.dtype
    for t in tensors[1:]:
        dt = promote(Tensor._make(np.empty((1,), dt)), t)
    return dt


@op("cat", method=False, dims=("dim",), aliases=("concat", "concatenate"))
def cat(tensors, dim=0):
    """Join tensors along an existing dim."""
    tensors = _tensor_list(tensors, "cat()")
    parts = [t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)] or tensors[:1]
    d = normalize_dim(dim, parts[0]._data.ndim)
    dt = _common(parts)
    ref = parts[0]._data.shape
    for i, t in enumerate(parts):
        s = t._data.shape
        if len(s) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and "
                               f"{len(s)}")
        bad = [k for k in range(len(s)) if k != d and s[k] != ref[k]]
        if bad:
            k = bad[0]
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                               f"size {ref[k]} but got size {s[k]} for tensor number {i} in the "
                               "list.")
    out = wrap(np.concatenate([t._data.astype(dt, copy=False) for t in parts], axis=d))
    if recording(*parts):
        record(NODES["CatBackward0"], parts, (out,), (d, tuple(t._data.shape[d] for t in parts)))
    return out


@op("stack", method=False, dims=("dim",))
def stack(tensors, dim=0):
    """Join tensors of the same shape along a new dim."""
    tensors = _tensor_list(tensors, "stack()")
    d = normalize_dim(dim, tensors[0]._data.ndim + 1)
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t._data.shape)} at entry {i}")
    dt = _common(tensors)
    out = wrap(np.stack([t._data.astype(dt, copy=False) for t in tensors], axis=d))
    if recording(*tensors):
        record(NODES["StackBackward0"], tensors, (out,), (d,))
    return out


def _split_at(self, d, sizes, node="SplitBackward0"):
    data = self._data
    outs, start = [], 0
    for s in sizes:
        idx = (slice(None),) * d + (slice(start, start + s),)
        outs.append(Tensor._make(data[idx]))
        start += s
    for o in outs:
        share_view(self, o)
    recorded = recording(self)
    if recorded:
        record(NODES[node], (self,), tuple(outs), (d,))
    mark_multi_output(outs, recorded)
    return tuple(outs)


@op("split", dims=("dim",))
def split(self, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
    d = normalize_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
        return _split_at(self, d, sizes, "SplitWithSizesBackward0")
    else:
        step = int(split_size_or_sections)
        if step <= 0:
            raise RuntimeError("split expects split_size be non-negative, but got "
                               f"split_size={step}")
        sizes = [min(step, n - i) for i in range(0, n, step)] or [0]
    return _split_at(self, d, sizes)


@op("chunk", dims=("dim",))
def chunk(self, chunks, dim=0):
    """Split into ``chunks`` pieces of (nearly) equal size along ``dim``."""
    if int(chunks) <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = normalize_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    if n == 0:  # libtorch: `chunks` empty pieces
        return _split_at(self, d, [0] * int(chunks))
    return split(self, -(-n // int(chunks)), d)


@op("unbind", dims=("dim",))
def unbind(self, dim=0):
    """The slices along ``dim``, as a tuple of tensors with that dim removed."""
    d = normalize_dim(dim, self._data.ndim)
    data = self._data
    # ``...`` last: a 1-d tensor's pieces are 0-d views, not NumPy scalar copies
    outs = tuple(Tensor._make(data[(slice(None),) * d + (i, Ellipsis)])
                 for i in range(data.shape[d]))
    for o in outs:
        share_view(self, o)
    recorded = recording(self) and outs
    if recorded:
        record(NODES["UnbindBackward0"], (self,), outs, (d,))
    mark_multi_output(outs, recorded)
    return outs


@op("narrow", dims=("dim",))
def narrow(self, dim, start, length):
    """``length`` elements along ``dim`` from ``start`` (a negative start counts from the end)."""
    d = normalize_dim(dim, self._data.ndim)
    n = self._data.shape[d] if self._data.ndim else 1
    start, length = int(start), int(length)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    return _view_of(self, self._data[key], NODES["SliceBackward0"], (self._data.shape, key))


@op("select", dims=("dim",))
def select(self, dim, index):
    """The slice at ``index`` along ``dim`` (that dim removed)."""
    d = normalize_dim(dim, self._data.ndim)
    n = self._data.shape[d]
    i = int(index)
    if not -n <= i < n:
        raise IndexError(f"select(): index {i} out of range for tensor of size "
                         f"{list(self._data.shape)} at dimension {d}")
    key = (slice(None),) * d + (i + n if i < 0 else i,)
    # the last dim selected: ``...`` makes NumPy return a 0-d view, not a scalar copy
    data = self._data[key] if d + 1 < self._data.ndim else self._data[key + (Ellipsis,)]
    return _view_of(self, data, NODES["SelectBackward0"], (self._data.shape, key), view=True)


@op("diagonal", dims=("dim1", "dim2"))
def diagonal(self, offset=0, dim1=0, dim2=1):
    """The diagonal of each (dim1, dim2) plane as the last dim (``offset > 0``: above the main
    diagonal, ``< 0``: below): a view, so writes through it reach ``self``."""
    n = self._data.ndim
    a, b = normalize_dim(dim1, n), normalize_dim(dim2, n)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int64(offset, "offset", "diagonal")
    return _view_of(self, diagonal_view(self._data, offset, a, b), NODES["DiagonalBackward0"],
                    (self._data.shape, offset, a, b), view=True)


def diagonal_backward(g, shape, offset, dim1, dim2):
    """Zeros of ``shape`` with ``g`` on the diagonal (the gradient of ``diagonal``);
    differentiable (its own gradient reads the diagonal back)."""
    out = wrap(ARRAY_OPS.diagonal_backward(g._data, shape, offset, dim1, dim2))
    if recording(g):
        record1(NODES["DiagonalBackwardBackward0"], g, out, (offset, dim1, dim2))
    return out
