"""Op calls from R: one caller per registered op (R conventions applied from the registry),
the nnf functions, and the R operators."""
from __future__ import annotations

import inspect

import numpy as np

import rtorchpy  # the public names: fn_caller looks creation and other functions up there

from ..ops import arith, elementwise, linalg, nnf
from ..ops.batching import BatchedTensor
from ..ops.boundary import VMAP, VMAP_LOCAL, boundary, translate
from ..ops.creation import torch_zeros_like
from ..ops.registry import OPS
from ..numerics.warn import warn
from ..tensor import Tensor
from .errors import ZERO_DIM, ZERO_INDEX, RIndexError, RNAError, _err, na_message
from .handles import (
    _OBJECTS,
    COMPLEX_VALUE,
    MAGIC,
    _dec,
    _enc,
    _get,
    _plus_one,
    _put,
    _r_int,
    has_na,
    na_argument_name,
    r_dim,
    r_index_arg,
    r_value_tensor,
)

# ----------------------------------------------------------------------------- op callers

# ops flagged returns_index whose single result is always an index tensor (max/min return
# values without dim, and (values, indices) with it)
_INDEX_RESULTS = {"argmax", "argmin", "argsort", "nonzero", "tril_indices", "triu_indices",
                  "multinomial"}


class _Plan:
    """How to call one function with R's arguments: which parameters are dims or indices."""

    def __init__(self, fn, dims=(), index_args=(), returns_index=False, name="", conv=None,
                 generated=False):
        self.fn, self.name = fn, name
        self.r_name = name if name.startswith(("nnf_", "torch_")) or not generated \
            else "torch_" + name
        params = list(inspect.signature(fn).parameters.values())
        self.names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                             p.POSITIONAL_OR_KEYWORD)]
        var = [p for p in params if p.kind is p.VAR_POSITIONAL]
        self.varpos = var[0].name if var else None
        self.varpos_at = len(self.names)
        # keyword-only parameters (after *size): a generated R wrapper passes them by position,
        # right after the positional ones and before the values of `...` (see
        # r-shim/tools/generate.py); hand-written R code passes them as keywords
        self.kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY] if generated else []
        self.conv = {d: r_dim for d in dims}
        self.conv.update({a: r_index_arg for a in index_args})
        self.conv.update(conv or {})
        self.returns_index = returns_index
        self.always_index = name in _INDEX_RESULTS
        self.simple = not self.conv and not returns_index and not self.kwonly
        # parameters that only take tensors: an R value there is converted as R torch's
        # torch_tensor() reads it (torch_mul(2, x), torch_stack(tapply(...)))
        self.tensor_args = [i for i, n in enumerate(self.names) if n in _TENSOR_ARGS] \
            if generated else []
        self.tensor_list = generated and self.names[:1] == ["tensors"]

    def convert(self, args, kwargs):
        for name, conv in self.conv.items():
            if name == self.varpos:
                args[self.varpos_at:] = [conv(a) for a in args[self.varpos_at:]]
            elif name in kwargs:
                kwargs[name] = conv(kwargs[name])
            elif name in self.names:
                i = self.names.index(name)
                if i < len(args):
                    args[i] = conv(args[i])
        return args, kwargs

    def keywords(self, args, kwargs):
        """The keyword-only arguments R passed by position, moved into ``kwargs``."""
        n, k = self.varpos_at, len(self.kwonly)
        given = dict(zip(self.kwonly, args[n:n + k]))
        given.update(kwargs)
        return args[:n] + args[n + k:], given

    def fix_result(self, r):
        if self.always_index:  # (nonzero(as_tuple = TRUE): a tuple of index tensors)
            return tuple(_plus_one(t) for t in r) if isinstance(r, tuple) else _plus_one(r)
        if isinstance(r, tuple) and len(r) == 2:
            return (r[0], _plus_one(r[1]))
        return r

    def __call__(self, *args, **kwargs):
        try:
            if self.simple and not kwargs:
                # the common case (positional arguments, no dim or index to convert); a
                # tensor alone is looked up here (no call per argument)
                if len(args) == 1:
                    a = args[0]
                    if type(a) is complex and a.imag == MAGIC and a.real in _OBJECTS:
                        r = self.fn(_OBJECTS[int(a.real)])
                    else:
                        r = self.fn(_dec(a))
                else:
                    args = [_dec(a) for a in args]
                    if self.tensor_args or self.tensor_list:
                        _r_tensors(self, args)
                    r = self.fn(*args)
                return _put(r) if type(r) is Tensor else _enc(r)
            args = [_dec(a) for a in args]
            if self.tensor_args or self.tensor_list:
                _r_tensors(self, args)
            if kwargs:
                kwargs = {k: _dec(v) for k, v in kwargs.items()}
                if self.varpos and self.varpos not in kwargs:
                    # R torch names the size arguments (x$reshape(shape = ), x$view(size = )):
                    # one keyword that is not a parameter is the variadic argument
                    extra = [k for k in kwargs if k not in self.names]
                    if len(extra) == 1 and len(args) == self.varpos_at:
                        args.append(kwargs.pop(extra[0]))
            if self.kwonly:
                args, kwargs = self.keywords(args, kwargs)
            if self.conv:
                args, kwargs = self.convert(args, kwargs)
            r = self.fn(*args, **kwargs)
            return _enc(self.fix_result(r) if self.returns_index else r)
        except RNAError:
            return _err(RNAError(na_message(self.na_name(args, kwargs))))
        except Exception as exc:  # noqa: BLE001
            # an internal error (NumPy's or Python's own text) as the public function gives it,
            # naming the argument (rtorchpy/ops/boundary.py)
            new = translate(exc, self.fn, self.r_name, args, kwargs) \
                if isinstance(exc, (AttributeError, MemoryError, OverflowError, TypeError,
                                    ValueError)) else None
            return _err(new if new is not None else exc)

    def na_name(self, args, kwargs):
        """Which argument held R's NA (the failed call's arguments, as R sent them)."""
        names = list(self.names)
        if self.varpos:
            names += [self.varpos] * max(0, len(args) - len(names))
        return na_argument_name(self.fn, args, kwargs, names)


# Parameters that take a tensor and nothing else (R torch converts an R value given there).
_TENSOR_ARGS = {"self", "input", "tensor1", "tensor2", "mat1", "mat2", "mat", "vec", "vec1",
                "vec2", "batch1", "batch2", "mask"}


def _is_r_value(v):
    t = type(v)
    return t is float or t is int or t is bool or (t is list and v and all(
        type(x) in (float, int, bool) for x in v))


def _r_tensors(plan, args):
    """Convert, in place, R values given for tensor parameters (positional ones)."""
    for i in plan.tensor_args:
        if i < len(args) and _is_r_value(args[i]):
            args[i] = r_value_tensor(args[i])
    if plan.tensor_list and args:
        seq = args[0]
        if isinstance(seq, dict):  # a named list (tapply(), split()): its values, in order
            seq = list(seq.values())
        if isinstance(seq, list):
            args[0] = [r_value_tensor(v) if _is_r_value(v) else v for v in seq]


def _where(condition, self=None, other=None):
    if not isinstance(condition, Tensor):
        condition = r_value_tensor(condition)  # an R value, as R torch's torch_tensor() reads it
    if self is None and other is None:
        return tuple(_plus_one(i) for i in arith.where(condition))
    return arith.where(condition, self, other)


def _r_pos(i):
    """A 1-based position argument (not a tensor of indices)."""
    i = _r_int(i)
    if isinstance(i, int) and not isinstance(i, bool):
        if i == 0:
            raise RIndexError(ZERO_INDEX)
        return i - 1 if i > 0 else i
    return i


# Position arguments (plain numbers) the registry does not flag: 1-based in R, like `[`.
def _r_tensordot_dims(dims):
    """tensordot's ``dims``: a count stays as it is; two lists of dims are 1-based."""
    if isinstance(dims, (list, tuple)):
        return [r_dim(d) for d in dims]
    return dims


def _r_data(v):
    """new_tensor's data from R as an array: an R value read as R torch's torch_tensor() reads
    it (a number has shape {1}; double -> float32, integer -> int64, logical -> bool). An R
    matrix arrives as a tensor, like a tensor argument: neither gets PyTorch's copy warning
    (R torch has no new_tensor to warn)."""
    if isinstance(v, np.ndarray):
        return v
    return r_value_tensor(v)._data


def _deprecated(message):
    """An argument R torch still takes but warns about (from R only: PyTorch does not warn)."""
    def conv(v):
        if v is not None:
            warn(message)
        return v
    return conv


_POSITIONS = {"select": {"index": _r_pos}, "narrow": {"start": _r_pos},
              "tensordot": {"dims": _r_tensordot_dims}, "new_tensor": {"data": _r_data},
              "linalg_pinv": {"rcond": _deprecated("`rcond` is deprecated in favor of `rtol`.")},
              "linalg_matrix_rank": {"tol": _deprecated(
                  "`tol` argument is deprecated in favor of `atol` and `rtol`.")},
              "narrow_copy": {"start": _r_pos}}

# R torch's names for arguments whose Python name differs (the wrappers pass them by position)
# (R torch names `from` as it is: Python needs `from_`; an R argument cannot begin with an
# underscore, so R torch's `random_samples` is Python's `_random_samples`)
R_ARG_NAMES = {"nonzero": {"as_tuple": "as_list"}, "uniform_": {"from_": "from"},
               "random_": {"from_": "from"},
               "nnf_fractional_max_pool2d": {"_random_samples": "random_samples"},
               "nnf_fractional_max_pool3d": {"_random_samples": "random_samples"},
               "lu": {"self": "A"}}


def _op_plans():
    plans = {}
    for key, info in OPS.items():
        if key.startswith("_"):
            continue
        fn = _where if key == "where" else boundary(info.fn, "torch_" + key)
        plans[key] = _Plan(fn, info.dim_args, info.index_args, info.returns_index, key,
                           conv=_POSITIONS.get(key), generated=True)
        if info.method_fn is not None:  # x$op(...) with its own argument order
            plans[key + ".method"] = _Plan(boundary(info.method_fn, key), info.dim_args,
                                           info.index_args, info.returns_index, key,
                                           conv=_POSITIONS.get(key), generated=True)
    return plans


_PLANS = _op_plans()


def op_caller(name):
    """The callable R uses for op ``name`` (one call = one op)."""
    return _PLANS[name]


def op_callers():
    return dict(_PLANS)


def method_names():
    """Names usable as ``x$name()``: every registered method."""
    return sorted(k for k, v in OPS.items() if v.method and not k.startswith("_"))


# nnf_* functions are not in the op registry; their R conventions are listed here.
_NNF_DIMS = {"nnf_softmax": ("dim",), "nnf_log_softmax": ("dim",), "nnf_normalize": ("dim",),
             "nnf_softmin": ("dim",), "nnf_glu": ("dim",), "nnf_contrib_sparsemax": ("dim",)}


def _nnf_classes(t):
    """nnf_one_hot's class values: 1-based in R, as R torch takes them (it shifts them before
    libtorch's one_hot). A tensor that is not int64 passes as it is, to get libtorch's error."""
    if isinstance(t, Tensor) and t._data.dtype != np.int64:
        return t
    return r_index_arg(t)


def _kind(t):
    """The NumPy kind of a tensor's elements (a batched tensor's: its value's)."""
    while isinstance(t, BatchedTensor):
        t = t._value
    return t._data.dtype.kind


def _nnf_target(t):
    if t is None or (isinstance(t, Tensor) and _kind(t) not in "iu"):
        return t  # class probabilities, not class indices
    return r_index_arg(t)


def _nnf_padding_idx(i):
    """nnf_embedding's ``padding_idx``: a 1-based row (negative: from the end); NULL none."""
    return None if i is None else _r_pos(i)


def _nnf_ignore_index(i):
    """The class ``ignore_index`` names, 1-based like the targets; negative (the default
    -100) stays as it is, matching no class."""
    i = _r_int(i)
    return i - 1 if isinstance(i, int) and not isinstance(i, bool) and i > 0 else i


# other 1-based arguments of nnf functions: class targets and the ignored class,
# nnf_embedding's indices and padding row
_CLASS_TARGETS = {"target": _nnf_target, "ignore_index": _nnf_ignore_index}
_NNF_CONV = {"nnf_nll_loss": _CLASS_TARGETS, "nnf_cross_entropy": _CLASS_TARGETS,
             "nnf_embedding": {"input": r_index_arg, "padding_idx": _nnf_padding_idx},
             "nnf_one_hot": {"tensor": _nnf_classes},
             "nnf_embedding_bag": {"input": r_index_arg, "padding_idx": _nnf_padding_idx},
             "nnf_multi_margin_loss": {"target": _nnf_target}}
# pooling's indices (R torch's are 1-based): returned by max pooling, taken by unpooling
_NNF_CONV.update({f"nnf_max_unpool{k}d": {"indices": r_index_arg} for k in (1, 2, 3)})
_NNF_RETURNS_INDEX = {f"nnf_{kind}max_pool{k}d" for kind in ("", "adaptive_") for k in (1, 2, 3)}
# the layer-level torch_* functions: torch_embedding's indices and padding row are 1-based
# (a negative padding_idx, the default -1, is none), torch_adaptive_max_pool1d's indices too
_NNF_CONV["torch_embedding"] = {"indices": r_index_arg, "padding_idx": _nnf_ignore_index}
_NNF_RETURNS_INDEX.update({"torch_adaptive_max_pool1d", "nnf_fractional_max_pool2d",
                           "nnf_fractional_max_pool3d"})

def _r_binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """R torch calls libtorch's kernel, which pairs input and target element by element once
    both are squeezed ([32, 1] with [32]), where PyTorch's Python function refuses other
    shapes: a target whose squeezed shape is the input's is viewed with the input's shape."""
    if isinstance(input, Tensor) and isinstance(target, Tensor) and \
            input.shape != target.shape and \
            tuple(s for s in input.shape if s != 1) == tuple(s for s in target.shape if s != 1):
        target = target.reshape(*input.shape)
    return nnf.nnf_binary_cross_entropy(input, target, weight, reduction)


def _nnf_label_targets(t):
    """nnf_multilabel_margin_loss's target, converted as R torch converts index tensors: a 0 is
    refused, positive 1-based classes are shifted down by one, negative values (the -1 that
    ends a row's labels) are kept."""
    if isinstance(t, Tensor) and t._data.dtype.kind in "iu":
        d = t._data.astype(np.int64)
        if np.any(d == 0):
            raise RIndexError(ZERO_DIM)
        return Tensor._make(np.where(d > 0, d - 1, d))
    return t


_NNF_CONV["nnf_multilabel_margin_loss"] = {"target": _nnf_label_targets}

_NNF_R_FORMS = {"nnf_binary_cross_entropy": _r_binary_cross_entropy}

_NNF = {name: _Plan(boundary(_NNF_R_FORMS.get(name, getattr(nnf, name)), name),
                    _NNF_DIMS.get(name, ()), name=name,
                    conv=_NNF_CONV.get(name), generated=True,
                    returns_index=name in _NNF_RETURNS_INDEX)
        for name in nnf.__all__}


def fn_caller(name):
    """A guarded caller for a non-op function of the package (creation, nnf, dtypes, ...)."""
    if name in _NNF:
        return _NNF[name]
    return _Plan(getattr(rtorchpy, name), name=name)


# ----------------------------------------------------------------------------- operators

def _unary_minus(x):
    if isinstance(x, BatchedTensor):
        return 0 - x
    return torch_zeros_like(x) - x   # R torch: SubBackward0, not NegBackward0


def _unary_plus(x):
    if isinstance(x, BatchedTensor):
        return x + 0
    return x + torch_zeros_like(x)


def _batched_aware(fn):
    """An operator's function, which inside vmap goes through the op's public form (that
    dispatches a batched tensor to its batching rule); outside, the function itself."""
    public = boundary(fn, fn.__name__.lstrip("_"))

    def call(a, b):
        if VMAP[0] and VMAP_LOCAL.depth:
            return public(a, b)
        return fn(a, b)
    return call


def _binary(fn):
    objects = _OBJECTS

    def call(e1, e2):
        try:
            a = objects[e1.real] if type(e1) is complex and e1.imag == MAGIC else \
                r_value_tensor(_dec(e1))
            b = e2
            if has_na(b):
                raise RNAError(na_message("e2"))
            if type(b) is complex:
                b = objects[b.real] if b.imag == MAGIC else _get(b)  # (KeyError: below)
            elif type(b) is list:
                b = r_value_tensor(_dec(b))
            r = fn(a, b)
            return _put(r) if type(r) is Tensor else _enc(r)
        except KeyError:
            # a handle that names no object: freed, or an R complex number (_get says which)
            try:
                for h in (e1, e2):
                    if type(h) is complex:
                        _get(h)
            except Exception as exc:  # noqa: BLE001
                return _err(exc)
            return _err(TypeError(COMPLEX_VALUE))
        except Exception as exc:  # noqa: BLE001
            return _err(exc)
    return call


def _unary(fn):
    def call(a):
        try:
            return _enc(fn(_get(a)))
        except Exception as exc:  # noqa: BLE001
            return _err(exc)
    return call


def _div_trunc(a, b):
    return arith.div(a, b, rounding_mode="trunc")


# R's binary operators and the op each one is; R calls them through _binary's callers, or
# (r-shim/src/direct.c) the functions themselves when both sides are a tensor and a number
BINARY_FNS = {
    "+": arith.add, "-": arith.sub, "*": arith.mul, "/": arith.div, "^": arith.pow,
    "%%": arith.fmod, "%/%": _div_trunc,
    "==": elementwise.eq, "!=": elementwise.ne, "<": elementwise.lt, "<=": elementwise.le,
    ">": elementwise.gt, ">=": elementwise.ge,
    "&": elementwise.logical_and, "|": elementwise.logical_or,
    "%*%": linalg.matmul,
}
BINARY_FNS = {op: _batched_aware(fn) for op, fn in BINARY_FNS.items()}
BINARY = {op: _binary(fn) for op, fn in BINARY_FNS.items()}
UNARY = {"-": _unary(_unary_minus), "+": _unary(_unary_plus), "!": _unary(elementwise.logical_not)}


def binary_callers():
    return dict(BINARY)


def unary_callers():
    return dict(UNARY)
