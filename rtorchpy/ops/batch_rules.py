"""Batching rules, by family (see ``ops/batching.py`` for how vmap dispatches to them).

A rule gets the public function, the level to batch at, and the call's arguments; it calls the
function once on the arguments' values (batch dim 0) and wraps the result at that level. Rules
return ``NotImplemented`` for a form they do not handle; the op then runs by the per-example
loop. Families:

* elementwise: the operands' logical ranks are aligned by inserting size-1 dims after the batch
  dim, then ordinary broadcasting does the rest (unbatched operands broadcast as they are);
* dims: every dimension argument is shifted past the batch dim (a negative dim counts from the
  end, so it stays); a full reduction (``dim=None``) reduces the flattened example;
* views: the batch size is prepended to the requested shape;
* matmul: 1-D operands become matrices (and back), ranks are aligned, one batched product;
* nn functionals and losses: linear decomposes into matmul and add; convolutions and pooling
  merge the batch with the examples' N dim; layer norm and embedding run as they are; a loss
  runs with ``reduction="none"`` on the whole batch and is reduced per example.
"""
from __future__ import annotations


from typing import Any

import functools
import inspect
import string

import numpy as np

from ..dtypes import from_numpy_dtype
from ..tensor import Tensor
from . import nnf as _nnf
from .batching import (MODULE_RULES, RANDOM, RULES, BatchedTensor, captured_inplace_error,
                       frame, inplace_error, is_batched, public, value_of, wrap)
from .boundary import boundary
from .registry import OPS, promote

_SIGS: dict[str, Any] = {}


def _bind(call, args, kwargs):
    sig = _SIGS.get(call)
    if sig is None:
        sig = _SIGS[call] = inspect.signature(call)
    b = sig.bind(*args, **kwargs)
    return sig, b


def _wrap_out(res, level):
    if isinstance(res, Tensor):
        return wrap(res, level)
    if isinstance(res, (tuple, list)):
        out = [_wrap_out(r, level) for r in res]
        return tuple(out) if isinstance(res, tuple) else out
    return res


def _size(level):
    return frame(level).size


def _align(x, level, rank):
    """``x``'s value with size-1 dims after the batch dim up to logical ``rank``."""
    v = x._value
    r = x.dim()
    if r < rank:
        v = v.reshape(v.shape[0], *([1] * (rank - r)), *x.shape)
    return v


# ------------------------------------------------------------------------------ elementwise

def elementwise(call, level, args, kwargs, as_0d=True):
    items = list(args) + list(kwargs.values())
    tensors = [t for t in items if isinstance(t, Tensor)]
    rank = max(t.dim() for t in tensors)
    target = _logical_dtype(level, tensors) if as_0d else None

    def conv(x):
        if not is_batched(x, level):
            return x
        v = _align(x, level, rank)
        # a 0-d example's value has the batch dim: cast it so that it does not promote as a
        # dimensioned tensor would
        return v.to(target) if target is not None and x.dim() == 0 and x.dtype != target \
            else v
    return _wrap_out(call(*[conv(a) for a in args], **{k: conv(v) for k, v in kwargs.items()}),
                     level)


def elementwise_as_is(call, level, args, kwargs):
    """The ops of :data:`AS_IS`: their operands go in uncast (a batched 0-d example promotes
    as a dimensioned tensor, as PyTorch's rules for them do, or the op keeps one operand's
    dtype)."""
    return elementwise(call, level, args, kwargs, as_0d=False)


def type_as(call, level, args, kwargs):
    """``x.type_as(other)`` is ``x.to(other.dtype)``: batched like ``x`` only."""
    b = _bind(call, args, kwargs)[1]
    x, other = b.args[0], (b.args[1] if len(b.args) > 1 else b.kwargs["other"])
    return x.to(other.dtype)


def masked_fill(call, level, args, kwargs):
    value = args[2] if len(args) > 2 else kwargs.get("value")
    if is_batched(value, level):
        return NotImplemented   # (one value per example: the op takes a 0-d value only)
    return elementwise(call, level, args, kwargs, as_0d=False)


def _logical_dtype(level, tensors):
    """The result dtype of the op on one example, where a batched 0-d example is 0-d for type
    promotion (as in PyTorch); None when no batched operand is 0-d or the dtypes agree."""
    if not any(t.dim() == 0 and is_batched(t, level) for t in tensors) or \
            len({t.dtype for t in tensors}) < 2:
        return None
    acc = None
    for t in tensors:   # (pairwise, keeping whether the result so far is dimensioned)
        p = Tensor._make(np.zeros((1,) * min(t.dim(), 1), dtype=t.dtype.numpy))
        if acc is not None:
            dt = promote(acc, p)
            p = Tensor._make(np.zeros((1,) * max(acc.ndim, p.ndim), dtype=dt))
        acc = p
    return from_numpy_dtype(acc._data.dtype)


def elementwise_inplace(call, level, args, kwargs, name=None):
    if not is_batched(args[0], level):
        raise captured_inplace_error(name, level, args[0],
                                     list(args[1:]) + list(kwargs.values()))
    self = args[0]
    rank = self.dim()
    for x in list(args[1:]) + list(kwargs.values()):
        if is_batched(x, level) and x.dim() > rank:
            return NotImplemented
    rest = [_align(a, level, rank) if is_batched(a, level) else a for a in args[1:]]
    kw = {k: _align(v, level, rank) if is_batched(v, level) else v for k, v in kwargs.items()}
    call(self._value, *rest, **kw)
    return self


# ------------------------------------------------------------------------------ dims

def _shift(d):
    if isinstance(d, bool) or d is None:
        return d
    if isinstance(d, int):
        return d + 1 if d >= 0 else d
    if isinstance(d, (tuple, list)):
        return type(d)(_shift(v) for v in d)
    return d


def dims_rule(name, dim_names, expand_all=False, reduction=False):
    """Shift ``dim_names``; tensors other than the first must be unbatched unless
    ``expand_all`` (then every tensor operand is batched, unbatched ones by expanding). A
    ``reduction`` over all dims (``dim`` None or ()) reduces the flattened example."""
    def rule(call, level, args, kwargs):
        sig, b = _bind(call, args, kwargs)
        arguments = b.arguments
        first = next(iter(sig.parameters))
        size = _size(level)
        for key, value in list(arguments.items()):
            if key == first:
                if isinstance(value, (list, tuple)):   # cat / stack: a list of tensors
                    if not expand_all:
                        return NotImplemented
                    arguments[key] = [value_of(v, level, size) for v in value]
                elif isinstance(value, Tensor):
                    arguments[key] = value_of(value, level, size)
            elif isinstance(value, BatchedTensor) and value._level == level:
                if not expand_all:
                    return NotImplemented
                arguments[key] = value._value
            elif isinstance(value, Tensor) and expand_all:
                arguments[key] = value_of(value, level, size)
        if reduction and arguments.get("other") is not None:
            return NotImplemented
        for key in dim_names:
            if key not in sig.parameters:   # (tril/triu: the last two dims, no argument)
                continue
            d = arguments.get(key, sig.parameters[key].default)
            if d is None or (isinstance(d, tuple) and not d):
                if not (reduction and key == "dim") or arguments.get("keepdim"):
                    return NotImplemented
                v = arguments[first]
                arguments[first] = v.reshape(v.shape[0], -1)
                arguments[key] = 1
                res = call(*b.args, **b.kwargs)
                if isinstance(res, tuple):  # max(dim) gives (values, indices); max() values
                    res = res[0]
                return _wrap_out(res, level)
            arguments[key] = _shift(d)
        return _wrap_out(call(*b.args, **b.kwargs), level)
    return rule


def permute(call, level, args, kwargs):
    x = args[0]
    dims = args[1:] if len(args) > 1 else kwargs.get("dims", ())
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    r = x.dim()
    if len(dims) != r:
        return NotImplemented
    return wrap(x._value.permute(0, *[d % r + 1 for d in dims]), level)


def squeeze(call, level, args, kwargs):
    sig, b = _bind(call, args, kwargs)
    x = b.arguments[list(sig.parameters)[0]]
    dim = b.arguments.get("dim")
    v = x._value
    if dim is None:
        for d in reversed([i for i, s in enumerate(x.shape) if s == 1]):
            v = v.squeeze(d + 1)
        return wrap(v, level)
    return wrap(v.squeeze(_shift(dim)), level)


def t_rule(call, level, args, kwargs):
    x = args[0]
    if x.dim() < 2:
        return x
    return wrap(x._value.transpose(1, 2), level)


def _shape_args(args):
    shape = args[1:]
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(shape)


def view_rule(call, level, args, kwargs):
    if kwargs or not is_batched(args[0], level):
        return NotImplemented
    v = args[0]._value
    return wrap(call(v, (v.shape[0],) + _shape_args(args)), level)


def expand_rule(call, level, args, kwargs):
    if kwargs or not is_batched(args[0], level):
        return NotImplemented
    x = args[0]
    size = _shape_args(args)
    v = _align(x, level, len(size))
    return wrap(v.expand(v.shape[0], *size), level)


def as_rule(target):
    def rule(call, level, args, kwargs):
        if kwargs or len(args) != 2 or not is_batched(args[0], level) or \
                is_batched(args[1], level):
            return NotImplemented
        return public(target)(args[0], *args[1].shape)
    return rule


def getitem(call, level, args, kwargs):
    x, idx = args
    if not is_batched(x, level):
        return NotImplemented
    idx = idx if isinstance(idx, tuple) else (idx,)
    advanced = [i for i, k in enumerate(idx) if isinstance(k, (Tensor, list))]
    for i in advanced:
        k = idx[i]
        if isinstance(k, BatchedTensor) or (isinstance(k, Tensor) and k.dtype.is_floating_point)\
                or (isinstance(k, Tensor) and str(k.dtype).endswith("bool")) or \
                isinstance(k, list):
            return NotImplemented
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        return NotImplemented   # separated advanced indices move to the front
    return wrap(call(x._value, (slice(None),) + idx), level)


def setitem(call, level, args, kwargs):
    x, idx, value = args
    if not is_batched(x, level):
        raise inplace_error()
    if isinstance(value, BatchedTensor):
        return NotImplemented
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(isinstance(k, (Tensor, list)) for k in idx):
        return NotImplemented
    call(x._value, (slice(None),) + idx, value)
    return None


# ------------------------------------------------------------------------------ matmul

def matmul(call, level, args, kwargs):
    if kwargs or len(args) != 2:
        return NotImplemented
    a, b = args
    ba, bb = is_batched(a, level), is_batched(b, level)
    ra, rb = a.dim(), b.dim()
    if ra == 0 or rb == 0:
        return NotImplemented
    va = a._value if ba else a
    vb = b._value if bb else b
    if ra == 1:
        va = va.unsqueeze(-2)
    if rb == 1:
        vb = vb.unsqueeze(-1)
    la, lb = max(ra, 2), max(rb, 2)
    if ba and bb and la != lb:   # align the batch dims of the product after the vmap's
        if la < lb:
            va = va.reshape(va.shape[0], *([1] * (lb - la)), *va.shape[1:])
        else:
            vb = vb.reshape(vb.shape[0], *([1] * (la - lb)), *vb.shape[1:])
    elif ba and not bb and lb > la:
        va = va.reshape(va.shape[0], *([1] * (lb - la)), *va.shape[1:])
    elif bb and not ba and la > lb:
        vb = vb.reshape(vb.shape[0], *([1] * (la - lb)), *vb.shape[1:])
    out = public("matmul")(va, vb)
    if rb == 1:
        out = out.squeeze(-1)
    if ra == 1:
        out = out.squeeze(-1 if rb == 1 else -2)
    return wrap(out, level)


def dot(call, level, args, kwargs):
    a, b = args
    return (a * b).sum()


def einsum(call, level, args, kwargs):
    if kwargs or not isinstance(args[0], str) or "->" not in args[0]:
        return NotImplemented
    eq = args[0].replace(" ", "")
    ops = args[1:]
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    free = [c for c in string.ascii_letters if c not in eq]
    letter = free[0]
    lhs, rhs = eq.split("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        return NotImplemented
    vals, new = [], []
    for term, x in zip(terms, ops):
        if is_batched(x, level):
            term, x = letter + term, x._value
        new.append(term)
        vals.append(x)
    out = public("einsum")(",".join(new) + "->" + letter + rhs, *vals)
    return wrap(out, level)


def linear(call, level, args, kwargs):
    sig, b = _bind(call, args, kwargs)
    x, w, bias = b.arguments["input"], b.arguments["weight"], b.arguments.get("bias")
    if not is_batched(w, level) and not is_batched(bias, level):
        out = call(x._value, w, bias)   # the whole batch through one product
        return wrap(out, level)
    # one example's vector through its own weight: W @ x (a batched matrix-vector product),
    # so that the weight's gradient g x^T comes out in the weight's own (row-major) layout
    out = w.matmul(x) if x.dim() == 1 and w.dim() == 2 else x.matmul(w.transpose(-2, -1))
    return out if bias is None else out + bias


# ------------------------------------------------------------------------------ losses

def _reduce_example(loss, level, reduction, denom=None):
    if reduction == "none":
        return loss
    v = loss._value if is_batched(loss, level) else loss
    flat = v.reshape(v.shape[0], -1)
    if reduction == "sum" or denom is not None:
        s = flat.sum(1)
        return wrap(s if denom is None else s / denom, level)
    return wrap(flat.mean(1), level)


def pointwise_loss(call, level, args, kwargs):
    """Losses that are a mean or sum of elementwise terms (mse, l1, bce, huber, ...)."""
    sig, b = _bind(call, args, kwargs)
    reduction = b.arguments.get("reduction", sig.parameters["reduction"].default)
    if reduction not in ("none", "mean", "sum"):
        return NotImplemented
    size = _size(level)
    names = [n for n, v in b.arguments.items() if isinstance(v, Tensor)]
    rank = max(b.arguments[n].dim() for n in names)
    for n in names:
        v = b.arguments[n]
        if v.dim() != rank and n in ("input", "target"):
            return NotImplemented   # (the loss broadcasts with a warning: keep its rules)
        b.arguments[n] = _align(v, level, rank) if is_batched(v, level) else \
            value_of(v, level, size) if n in ("input", "target") else v
    b.arguments["reduction"] = "none"
    loss = wrap(call(*b.args, **b.kwargs), level)
    return _reduce_example(loss, level, reduction)


def class_loss(call, level, args, kwargs):
    """cross_entropy and nll_loss with class-index targets: the examples' N dims merge with the
    batch, the terms come back per example, and the mean divides by the non-ignored count."""
    sig, b = _bind(call, args, kwargs)
    arguments = b.arguments
    reduction = arguments.get("reduction", "mean")
    x, target = arguments["input"], arguments["target"]
    if arguments.get("weight") is not None or reduction not in ("none", "mean", "sum") or \
            not isinstance(target, Tensor) or target.dtype.is_floating_point or \
            any(k not in ("input", "target", "weight", "ignore_index", "reduction")
                for k in arguments):
        return NotImplemented
    size = _size(level)
    vx, vt = value_of(x, level, size), value_of(target, level, size)
    if x.dim() == 1:
        arguments.update(input=vx, target=vt, reduction="none")
        return wrap(call(*b.args, **b.kwargs), level)
    if x.dim() < 2 or target.dim() != x.dim() - 1:
        return NotImplemented
    arguments.update(input=vx.flatten(0, 1), target=vt.flatten(0, 1), reduction="none")
    loss = wrap(call(*b.args, **b.kwargs).reshape(*vt.shape), level)
    if reduction != "mean":
        return _reduce_example(loss, level, reduction)
    ignore = arguments.get("ignore_index", -100)
    count = (vt != ignore).reshape(size, -1).sum(1).to(dtype=loss.dtype)
    return _reduce_example(loss, level, "mean", denom=count)


# ------------------------------------------------------------------------------ layers

def _only_first_batched(level, args, kwargs):
    return is_batched(args[0], level) and not any(
        isinstance(a, BatchedTensor) and a._level == level
        for a in list(args[1:]) + list(kwargs.values()))


def merge_n(spatial):
    """Convolutions and pooling with an unbatched weight: the examples' N dims merge with the
    batch (an example without one is N = 1), one call, then apart again."""
    def rule(call, level, args, kwargs):
        if not args or not _only_first_batched(level, args, kwargs):
            return NotImplemented
        x = args[0]
        v = x._value
        if x.dim() == spatial + 1:
            out = call(v, *args[1:], **kwargs)
        elif x.dim() == spatial + 2:
            out = call(v.flatten(0, 1), *args[1:], **kwargs)
            if not isinstance(out, Tensor):
                return NotImplemented   # (pooling's indices: their meaning is per example)
            out = out.reshape(v.shape[0], x.shape[0], *out.shape[1:])
        else:
            return NotImplemented
        return _wrap_out(out, level) if isinstance(out, Tensor) else NotImplemented
    return rule


def trailing(call, level, args, kwargs):
    """Ops that act on the trailing dims only (layer norm, embedding lookup) with their other
    tensors unbatched: the same call on the whole batch."""
    if not args or not _only_first_batched(level, args, kwargs):
        return NotImplemented
    return _wrap_out(call(args[0]._value, *args[1:], **kwargs), level)


def layer_norm(call, level, args, kwargs):
    sig, b = _bind(call, args, kwargs)
    w, bias = b.arguments.get("weight"), b.arguments.get("bias")
    if not is_batched(w, level) and not is_batched(bias, level):
        return trailing(call, level, args, kwargs)
    # per-example affine parameters (per-sample gradients): normalize, then scale and shift
    out = call(b.arguments["input"], b.arguments["normalized_shape"],
               eps=b.arguments.get("eps", 1e-5))
    out = out if w is None else out * w
    return out if bias is None else out + bias


# ------------------------------------------------------------------------------ the table

UNARY = """abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh atan arctan
atanh arctanh bitwise_not ceil clamp clip cos cosh deg2rad digamma erf erfc erfinv exp exp2 expm1
fix floor frac lgamma log log10 log1p log2 logit i0 isnan isinf isfinite isposinf isneginf
isreal nan_to_num neg negative positive rad2deg reciprocal relu round rsqrt sigmoid sign sgn
signbit sin sinc sinh sqrt square tan tanh trunc logical_not conj real imag mvlgamma polygamma
clone contiguous detach to type_as float double half long int bool type zeros_like ones_like
full_like empty_like rand_like randn_like randint_like bernoulli relu6 hardtanh""".split()
BINARY = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow
float_power atan2 arctan2 hypot logaddexp logaddexp2 maximum minimum fmax fmin eq ne lt le gt ge
greater greater_equal less less_equal not_equal equal_ rsub copysign nextafter xlogy
logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor lerp addcmul addcdiv
where masked_fill isclose heaviside ldexp""".split()
NNF_UNARY = """nnf_relu nnf_relu6 nnf_elu nnf_selu nnf_celu nnf_gelu nnf_silu nnf_mish
nnf_sigmoid nnf_tanh nnf_softplus nnf_softsign nnf_tanhshrink nnf_hardtanh nnf_hardsigmoid
nnf_hardswish nnf_leaky_relu nnf_logsigmoid nnf_softshrink nnf_hardshrink nnf_threshold
nnf_dropout nnf_alpha_dropout nnf_rrelu nnf_prelu""".split()
# elementwise ops whose operands go in uncast: PyTorch's rules for where, clamp, addcmul and
# addcdiv promote a batched 0-d example as a dimensioned tensor; masked_fill keeps self's
# dtype; float_power computes in double anyway
AS_IS = ("where", "clamp", "clip", "addcmul", "addcdiv", "masked_fill", "float_power")
REDUCE = ("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "logsumexp",
          "norm", "var", "std", "all", "any", "count_nonzero", "nansum", "nanmean", "median",
          "nanmedian")
DIM = ("softmax", "log_softmax", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
       "sort", "argsort", "topk", "kthvalue", "mode", "transpose", "swapaxes", "swapdims",
       "movedim", "moveaxis", "unsqueeze", "flatten", "select", "narrow", "unbind", "split",
       "chunk", "flip", "roll", "diagonal", "diff", "tril", "triu", "index_select", "unflatten",
       "renorm", "nnf_softmax", "nnf_log_softmax", "nnf_normalize", "nnf_softmin",
       "var_mean", "std_mean")
DIM_EXPAND = ("cat", "concat", "concatenate", "stack", "gather", "take_along_dim")
RANDOM_OPS = ("dropout", "nnf_dropout", "nnf_alpha_dropout", "nnf_feature_alpha_dropout",
              "nnf_dropout1d", "nnf_dropout2d", "nnf_dropout3d", "nnf_rrelu", "rand_like",
              "randn_like", "randint_like", "bernoulli", "multinomial", "normal", "poisson",
              "bernoulli_", "uniform_", "normal_", "exponential_", "random_", "geometric_",
              "cauchy_", "log_normal_")
POINTWISE_LOSSES = ("nnf_mse_loss", "nnf_l1_loss", "nnf_smooth_l1_loss", "nnf_huber_loss",
                    "nnf_binary_cross_entropy", "nnf_binary_cross_entropy_with_logits",
                    "nnf_soft_margin_loss", "nnf_kl_div", "nnf_poisson_nll_loss")


def _dim_names(name):
    info = OPS.get(name)
    if info is not None and info.dim_args:
        return tuple(info.dim_args)
    return ("dim",)


def _module_rules():
    """rtorchpy's layers whose forward is one nnf function: that function's public form."""
    def nnf_of(fn_name, *attrs):
        public_fn = boundary(getattr(_nnf, fn_name), fn_name)
        return lambda m, level, args, kwargs: public_fn(
            *args, *[getattr(m, a) for a in attrs], **kwargs)
    MODULE_RULES.update(
        nn_linear=nnf_of("nnf_linear", "weight", "bias"), nn_relu=nnf_of("nnf_relu"),
        nn_layer_norm=nnf_of("nnf_layer_norm", "normalized_shape", "weight", "bias", "eps"),
        nn_tanh=nnf_of("nnf_tanh"), nn_sigmoid=nnf_of("nnf_sigmoid"),
        nn_identity=lambda m, level, args, kwargs: args[0])
    for k in (1, 2, 3):
        MODULE_RULES[f"nn_conv{k}d"] = _conv_module


def _conv_module(m, level, args, kwargs):
    if m.padding_mode != "zeros" or kwargs or len(args) != 1:
        return NotImplemented
    fn = boundary(m._fn, m._fn.__name__)
    return fn(args[0], m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups)


def _install():
    for n in UNARY + BINARY + NNF_UNARY:
        RULES[n] = elementwise
    for n in list(OPS):
        if n.endswith("_") and not n.endswith("__") and n[:-1] in RULES and \
                RULES[n[:-1]] is elementwise:
            RULES[n] = functools.partial(elementwise_inplace, name=n)
    for n in REDUCE:
        RULES[n] = dims_rule(n, _dim_names(n), reduction=True)
    for n in DIM:
        RULES[n] = dims_rule(n, _dim_names(n))
    for n in DIM_EXPAND:
        RULES[n] = dims_rule(n, _dim_names(n), expand_all=True)
    RULES.update(permute=permute, squeeze=squeeze, t=t_rule, view=view_rule,
                 reshape=view_rule, expand=expand_rule, expand_as=as_rule("expand"),
                 view_as=as_rule("view"), reshape_as=as_rule("reshape"), __getitem__=getitem,
                 __setitem__=setitem, matmul=matmul, mm=matmul, mv=matmul, bmm=matmul,
                 dot=dot, inner=dot, vdot=dot, einsum=einsum, nnf_linear=linear,
                 nnf_cross_entropy=class_loss, nnf_nll_loss=class_loss)
    for k in (1, 2, 3):
        for n in (f"nnf_conv{k}d", f"nnf_conv_transpose{k}d", f"nnf_max_pool{k}d",
                  f"nnf_avg_pool{k}d", f"nnf_adaptive_avg_pool{k}d"):
            if hasattr(_nnf, n):
                RULES[n] = merge_n(k)
    RULES.update(nnf_layer_norm=layer_norm, nnf_embedding=trailing)
    for n in POINTWISE_LOSSES:
        if hasattr(_nnf, n):
            RULES[n] = pointwise_loss
    for n in AS_IS:
        if n in RULES:
            RULES[n] = elementwise_as_is
    RULES.update(masked_fill=masked_fill, type_as=type_as)
    RANDOM.update(RANDOM_OPS)
    _module_rules()


_install()
