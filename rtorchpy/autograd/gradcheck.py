"""Checking gradients numerically, and Jacobians/Hessians/vector products built on the engine.

``autograd_gradcheck`` compares, element by element, the Jacobian the backward pass computes (one
vector-Jacobian product per output element) with central differences taken in float64. The other
functions follow ``torch.autograd.functional``: ``autograd_jacobian``, ``autograd_hessian``,
``autograd_vjp`` and ``autograd_jvp`` (the latter through the double-vjp trick, since the engine
is reverse mode only).

Inputs may be a Tensor, a tuple/list (positional arguments) or a dict (keyword arguments).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..tensor import Tensor
from .api import autograd_grad
from .grad_mode import with_enable_grad
from .forward_ad import (autograd_dual_level, autograd_make_dual, autograd_unpack_dual,
                         batched_dual_level)
from .graph import FORMULA_OPS

__all__ = ["autograd_gradcheck", "autograd_gradgradcheck", "autograd_jacobian",
           "autograd_hessian", "autograd_vjp", "autograd_jvp", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`autograd_gradcheck` when the analytical and numerical Jacobians differ."""


# ------------------------------------------------------------------------ argument plumbing
class _Args:
    """The inputs as one list of values plus how to call ``fn`` with them (positional index or
    keyword name per value) and a label per value for messages."""

    def __init__(self, fn, inputs):
        if isinstance(inputs, Tensor):
            keys, values = [0], [inputs]
        elif isinstance(inputs, dict):
            keys, values = list(inputs), list(inputs.values())
        elif isinstance(inputs, (tuple, list)):
            keys, values = list(range(len(inputs))), list(inputs)
        else:
            raise TypeError("inputs must be a Tensor, a tuple/list of arguments or a dict of "
                            f"keyword arguments, got {type(inputs).__name__}")
        self.fn, self.keys, self.values = fn, keys, values
        self.labels = [_label(k, n) for k, n in zip(keys, _param_names(fn, keys))]

    def call(self, values):
        pos = [v for k, v in zip(self.keys, values) if type(k) is int]
        kw = {k: v for k, v in zip(self.keys, values) if type(k) is not int}
        return self.fn(*pos, **kw)


def _param_names(fn, keys):
    """Parameter names for the positional keys, when ``fn``'s signature tells them."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [k if type(k) is not int else (params[k].name if k < len(params) else None)
            for k in keys]


def _label(key, name):
    if type(key) is not int:
        return f"input '{key}'"
    return f"input {key} ('{name}')" if name else f"input {key}"


def _float64_leaf(v):
    """A float64 copy of a floating tensor (same requires_grad); other values unchanged."""
    if isinstance(v, Tensor) and v._data.dtype.kind == "f":
        t = Tensor._make(np.array(v._data, dtype=np.float64, copy=True))
        t._requires_grad = v._requires_grad
        return t
    return v


def _flat_outputs(out, who):
    """The Tensors among fn's outputs, in order."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, Tensor)]
    raise TypeError(f"{who}: the function must return a Tensor or a tuple/list/dict of Tensors, "
                    f"got {type(out).__name__}")


# ------------------------------------------------------------------------ gradcheck
def autograd_gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Check the gradients computed by the backward pass against finite differences.

    Floating tensors in ``inputs`` are copied to float64 (keeping ``requires_grad``); those that
    require grad are checked. For every floating output and every checked input, the numerical
    Jacobian (central differences with step ``eps``) is compared element by element with the
    analytical one (one backward per output element): they agree where
    ``|analytical - numerical| <= atol + rtol * |numerical|``.

    Args:
        fn: a function of the inputs returning a Tensor or a tuple/list/dict of Tensors.
        inputs: a Tensor, a tuple/list of positional arguments or a dict of keyword arguments;
            non-tensor entries are passed through unchanged.
        eps, atol, rtol: finite-difference step and tolerances.
        raise_exception: raise :class:`GradcheckError` on a mismatch (default) or return False.

    Returns:
        True when all Jacobians agree (False on mismatch if ``raise_exception=False``).

    The error message names the input (index and parameter name), the output, the worst
    element's indices, and the numerical and analytical values there.

    Examples:
        >>> from rtorchpy import autograd_gradcheck, torch_randn
        >>> x = torch_randn(3, requires_grad=True)
        >>> autograd_gradcheck(lambda a: (a * a).sum(), x)
        True
    """
    args = _Args(fn, inputs)
    args.values = [_float64_leaf(v) for v in args.values]
    return _check(args, eps, atol, rtol, raise_exception)


def _check(args, eps, atol, rtol, raise_exception):
    checked = [i for i, v in enumerate(args.values) if isinstance(v, Tensor) and v._requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    analytical, out_shapes = _analytical(args, checked)
    numerical = _numerical(args, checked, out_shapes, eps)
    for k in range(len(out_shapes)):
        for n, i in enumerate(checked):
            msg = _compare(numerical[k][n], analytical[k][n], atol, rtol)
            if msg is None:
                continue
            in_shape = args.values[i].shape
            text = (f"Jacobian mismatch for output {k} with respect to {args.labels[i]}:\n"
                    + msg(out_shapes[k], in_shape)
                    + "\nnumerical Jacobian (rows: output elements, columns: input elements):\n"
                    + _matrix(numerical[k][n]) + "\nanalytical Jacobian:\n"
                    + _matrix(analytical[k][n]))
            if raise_exception:
                raise GradcheckError(text)
            return False
    return True


def _differentiable(outs):
    return [o for o in outs if o._data.dtype.kind == "f"]


def _analytical(args, checked):
    """J[k][n]: (numel of output k) x (numel of checked input n), one vjp per output row."""
    with with_enable_grad():
        outs = _differentiable(_flat_outputs(args.call(args.values), "gradcheck"))
    if not outs:
        raise ValueError("gradcheck: the function returned no floating-point Tensor output")
    ins = [args.values[i] for i in checked]
    jac = []
    for o in outs:
        rows = [np.zeros((o._data.size, t._data.size)) for t in ins]
        if o._requires_grad:
            for m in range(o._data.size):
                v = np.zeros(o._data.shape, dtype=o._data.dtype)
                v.reshape(-1)[m] = 1
                grads = autograd_grad([o], ins, [Tensor._make(v)], retain_graph=True,
                                      allow_unused=True)
                for n, g in enumerate(grads):
                    if g is not None:
                        rows[n][m, :] = g._data.reshape(-1)
        jac.append(rows)
    return jac, [o.shape for o in outs]


def _evaluate(args):
    """The outputs' values as flat float64 copies: an output may be a view of an input (``x[0]``,
    ``x.t()``), whose values would change again when that input is perturbed back."""
    outs = _differentiable(_flat_outputs(args.call(args.values), "gradcheck"))
    return [np.array(o._data, dtype=np.float64).reshape(-1) for o in outs]


def _numerical(args, checked, out_shapes, eps):
    """Central differences, perturbing each checked input's storage in place and restoring it
    (bit-exact, so graphs built earlier from the same tensors stay valid)."""
    jac = [[None] * len(checked) for _ in out_shapes]
    for n, i in enumerate(checked):
        flat = args.values[i]._data.reshape(-1)  # a view: the copies are contiguous
        cols = [np.zeros((int(np.prod(s, dtype=np.int64)), flat.size)) for s in out_shapes]
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + eps
            plus = _evaluate(args)
            flat[j] = orig - eps
            minus = _evaluate(args)
            flat[j] = orig
            if len(plus) != len(out_shapes) or len(minus) != len(out_shapes):
                raise RuntimeError("gradcheck: the function returned a different number of "
                                   "outputs when an input was perturbed")
            for k in range(len(out_shapes)):
                cols[k][:, j] = (plus[k] - minus[k]) / (2 * eps)
        for k in range(len(out_shapes)):
            jac[k][n] = cols[k]
    return jac


def _compare(num, ana, atol, rtol):
    """None if the Jacobians agree, else a function (out_shape, in_shape) -> description."""
    diff = np.abs(ana - num)
    tol = atol + rtol * np.abs(num)
    both_nan = np.isnan(ana) & np.isnan(num)
    bad = ~((diff <= tol) | both_nan)
    if not bad.any():
        return None
    excess = np.where(bad, np.nan_to_num(diff - tol, nan=np.inf), -np.inf)
    r, c = np.unravel_index(int(np.argmax(excess)), excess.shape)

    def describe(out_shape, in_shape):
        oi = _index(r, out_shape)
        ii = _index(c, in_shape)
        return (f"worst element: d output{oi} / d input{ii}: numerical {num[r, c]:.8g} vs "
                f"analytical {ana[r, c]:.8g} (|difference| {diff[r, c]:.3g} exceeds "
                f"atol {atol:g} + rtol {rtol:g} * |numerical|); "
                f"{int(bad.sum())} of {bad.size} elements differ")
    return describe


def _index(flat_index, shape):
    if len(shape) == 0:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat_index, shape)) + "]"


def _matrix(a):
    return np.array2string(a, precision=6, threshold=200, suppress_small=True)


def autograd_gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                           raise_exception=True):
    """Check second-order gradients: the gradient function itself passes gradcheck.

    Builds ``g(inputs, grad_outputs) = autograd_grad(fn(inputs), inputs, grad_outputs,
    create_graph=True)`` and runs :func:`autograd_gradcheck` on it, w.r.t. the inputs that
    require grad and the ``grad_outputs``. ``grad_outputs`` defaults to random float64 tensors
    (a fixed seed, so the check is reproducible) shaped like the differentiable outputs.
    Arguments and return value as for :func:`autograd_gradcheck`.
    """
    args = _Args(fn, inputs)
    args.values = [_float64_leaf(v) for v in args.values]
    checked = [i for i, v in enumerate(args.values) if isinstance(v, Tensor) and v._requires_grad]
    if not checked:
        raise ValueError("gradgradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    with with_enable_grad():
        outs = [o for o in _differentiable(_flat_outputs(args.call(args.values), "gradgradcheck"))
                if o._requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [Tensor._make(rng.standard_normal(o.shape)) for o in outs]
        for g in grad_outputs:
            g._requires_grad = True
    else:
        grad_outputs = [_float64_leaf(g) for g in _flat_outputs(grad_outputs, "gradgradcheck")]
    if len(grad_outputs) != len(outs):
        raise ValueError(f"gradgradcheck: got {len(grad_outputs)} grad_outputs for {len(outs)} "
                         "outputs that require grad")
    n_in = len(checked)

    def first_derivative(*flat):
        values = list(args.values)
        for i, t in zip(checked, flat[:n_in]):
            values[i] = t
        outs = [o for o in _differentiable(_flat_outputs(args.call(values), "gradgradcheck"))
                if o._requires_grad]
        grads = autograd_grad(outs, list(flat[:n_in]), list(flat[n_in:]), create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    inner = _Args(first_derivative, [args.values[i] for i in checked] + list(grad_outputs))
    inner.labels = ([args.labels[i] for i in checked]
                    + [f"grad_outputs[{k}]" for k in range(len(grad_outputs))])
    return _check(inner, eps, atol, rtol, raise_exception)


# ------------------------------------------------------------------------ torch.autograd.functional
def _as_tuple(x, what):
    if isinstance(x, Tensor):
        return False, (x,)
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return True, tuple(x)
    raise TypeError(f"{what} must be a Tensor or a tuple of Tensors, got {type(x).__name__}")


def _prepare(inputs, create_graph):
    """Inputs to differentiate w.r.t.: connected aliases under create_graph (so the result can
    be differentiated again w.r.t. the originals), detached leaves otherwise."""
    out = []
    for t in inputs:
        if t._data.dtype.kind != "f":
            raise TypeError("inputs to differentiate must be floating-point Tensors")
        if create_graph and t._requires_grad:
            out.append(t.view(*t.shape))
        else:
            a = Tensor._make(t._data, version=t._version)
            a._requires_grad = True
            if t._fw is not None:  # forward-over-reverse: the tangent goes along
                a._fw = t._fw
            out.append(a)
    return tuple(out)


def _finish(t, create_graph):
    if create_graph or t is None:
        return t
    return t.detach() if t._requires_grad else t


def _grads(outs, ins, gos, create_graph):
    """vjp of ``outs`` with ``gos``; zeros for inputs the outputs do not reach."""
    pairs = [(o, g) for o, g in zip(outs, gos) if o._requires_grad]
    grads = [None] * len(ins)
    if pairs:
        grads = autograd_grad([p[0] for p in pairs], list(ins), [p[1] for p in pairs],
                              retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [g if g is not None else Tensor._make(np.zeros(t._data.shape, t._data.dtype))
            for g, t in zip(grads, ins)]


def _post(res, out_tuple, in_tuple):
    """torch.autograd.functional's shape of results: res[k][i] reduced to what was a tuple."""
    if out_tuple and in_tuple:
        return tuple(tuple(r) for r in res)
    if out_tuple:
        return tuple(r[0] for r in res)
    if in_tuple:
        return tuple(res[0])
    return res[0][0]


STRATEGIES = ("forward-mode", "reverse-mode")


def autograd_jacobian(fn, inputs, create_graph=False, strict=False, vectorize=False,
                      strategy="reverse-mode"):
    """The Jacobian of ``fn`` at ``inputs`` (as ``torch.autograd.functional.jacobian``).

    ``inputs`` is a Tensor or a tuple of Tensors; ``fn`` returns a Tensor or a tuple of Tensors.
    Entry ``[k][i]`` has shape ``outputs[k].shape + inputs[i].shape``; the nesting is dropped
    where the inputs or outputs were a single Tensor. With ``create_graph=True`` the result is
    itself differentiable. Outputs that do not depend on an input give zeros.
    ``strategy="forward-mode"`` (which needs ``vectorize=True``, as in PyTorch) computes it with
    one forward-mode pass per input element instead of one backward pass per output element:
    the better choice when there are more outputs than inputs. ``strict`` is accepted for
    PyTorch's signature and refused where PyTorch refuses it.
    """
    if strategy not in STRATEGIES:
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         'Hint: If your function has more outputs than inputs, "forward-mode" '
                         'tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    if strict and (vectorize or strategy == "forward-mode"):
        raise RuntimeError("autograd_jacobian: `strict=True` and `vectorize=True` or "
                           '`strategy="forward-mode"` are not supported together.')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('autograd_jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together '
                                      '(yet). Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian is only implemented for "
                                      "`vectorize=True`.")
        return _jacobian_forward(fn, inputs)
    in_tuple, ins = _as_tuple(inputs, "inputs")
    ins = _prepare(ins, create_graph)
    with with_enable_grad():
        out_tuple, outs = _as_tuple(fn(*ins), "outputs of the function")
        res = [[_jacobian_block(o, t, k, ins, create_graph) for t in ins]
               for k, o in enumerate(outs)]
    return _post(res, out_tuple, in_tuple)


def _jacobian_block(o, t, k, ins, create_graph):
    shape = tuple(o.shape) + tuple(t.shape)
    n = o._data.size
    if not o._requires_grad or n == 0:
        return Tensor._make(np.zeros(shape, dtype=t._data.dtype))
    rows = []
    for m in range(n):
        v = np.zeros(o._data.shape, dtype=o._data.dtype)
        v.reshape(-1)[m] = 1
        g = autograd_grad([o], [t], [Tensor._make(v)], retain_graph=True,
                          create_graph=create_graph, allow_unused=True)[0]
        rows.append(g if g is not None else Tensor._make(np.zeros(t._data.shape, t._data.dtype)))
    if create_graph:
        return FORMULA_OPS[1].stack(rows, 0).reshape(*shape)  # recorded: stack is an op
    return Tensor._make(np.stack([r._data for r in rows]).reshape(shape))


def _jacobian_forward(fn, inputs):
    """The Jacobian by forward mode: one pass per input, its tangent every basis direction at
    once (a leading batch dimension of the input's size)."""
    in_tuple, ins = _as_tuple(inputs, "inputs")
    ins = [x.detach() for x in ins]
    blocks, out_tuple, outs = [], False, ()
    for i, x in enumerate(ins):
        n = x._data.size
        basis = Tensor._make(np.eye(n, dtype=x._data.dtype).reshape((n,) + tuple(x.shape)))
        with with_enable_grad(), batched_dual_level(n):
            args = list(ins)
            args[i] = autograd_make_dual(x, basis)
            out_tuple, outs = _as_tuple(fn(*args), "outputs of the function")
            tans = [autograd_unpack_dual(o).tangent for o in outs]
        blocks.append([None if t is None else t.detach()._data for t in tans])
    res = []
    for k, o in enumerate(outs):
        row = []
        for i, x in enumerate(ins):
            t = blocks[i][k]
            shape = tuple(o.shape) + tuple(x.shape)
            if t is None:
                row.append(Tensor._make(np.zeros(shape, dtype=x._data.dtype)))
            else:  # (n, *out) -> out.shape + x.shape
                row.append(Tensor._make(np.ascontiguousarray(
                    np.moveaxis(t, 0, -1)).reshape(shape)))
        res.append(row)
    return _post(res, out_tuple, in_tuple)


def autograd_hessian(fn, inputs, create_graph=False, strict=False, vectorize=False,
                     outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function returning one element (as ``torch.autograd.functional.hessian``).

    For a single input Tensor the result has shape ``inputs.shape + inputs.shape``; for a tuple
    of inputs it is a tuple of tuples, entry ``[i][j]`` of shape ``in[i].shape + in[j].shape``.
    ``vectorize=True`` with ``outer_jacobian_strategy="forward-mode"`` is forward-over-reverse
    (the outer Jacobian by forward mode, through backward's formulas).
    """
    if outer_jacobian_strategy not in STRATEGIES:
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, ins = _as_tuple(inputs, "inputs")

    def scalar_fn(*xs):
        out = fn(*xs)
        if not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.reshape(())

    def gradient(*xs):
        return autograd_jacobian(scalar_fn, xs, create_graph=True)

    res = autograd_jacobian(gradient, ins, create_graph=create_graph, strict=strict,
                            vectorize=vectorize, strategy=outer_jacobian_strategy)
    return res if in_tuple else res[0][0]


def autograd_vjp(fn, inputs, v=None, create_graph=False):
    """Vector-Jacobian product: returns ``(outputs, vjp)`` (as ``torch.autograd.functional.vjp``).

    ``v`` has the shape of the outputs (a tuple for a tuple of outputs); it may be None only if
    ``fn`` returns a single one-element Tensor. ``vjp`` has the shape of ``inputs`` (a tuple for
    a tuple of inputs). Outputs are detached unless ``create_graph``.
    """
    in_tuple, ins = _as_tuple(inputs, "inputs")
    ins = _prepare(ins, create_graph)
    with with_enable_grad():
        out_tuple, outs = _as_tuple(fn(*ins), "outputs of the function")
        vs = _vectors(v, outs, "outputs", "vjp")
        res = _grads(outs, ins, vs, create_graph)
    outs = tuple(_finish(o, create_graph) for o in outs)
    res = tuple(_finish(r, create_graph) for r in res)
    return (outs if out_tuple else outs[0]), (res if in_tuple else res[0])


def autograd_jvp(fn, inputs, v=None, create_graph=False):
    """Jacobian-vector product: returns ``(outputs, jvp)`` (as ``torch.autograd.functional.jvp``).

    ``v`` has the shape of the inputs; it may be None only for a single one-element input. One
    forward pass with forward-mode AD: each input is made a dual tensor with its entry of ``v``
    as tangent, and the outputs' tangents are the product.
    """
    in_tuple, ins = _as_tuple(inputs, "inputs")
    ins = _prepare(ins, create_graph)
    vs = _vectors(v, ins, "inputs", "jvp")
    with with_enable_grad(), autograd_dual_level():
        duals = [autograd_make_dual(x, vi.to(x.dtype)) for x, vi in zip(ins, vs)]
        out_tuple, outs = _as_tuple(fn(*duals), "outputs of the function")
        pairs = [autograd_unpack_dual(o) for o in outs]
    res = [_finish(t, create_graph) if t is not None
           else Tensor._make(np.zeros(o._data.shape, dtype=o._data.dtype))
           for (_, t), o in zip(pairs, outs)]
    outs = tuple(_finish(p, create_graph) for p, _ in pairs)
    return (outs if out_tuple else outs[0]), (tuple(res) if out_tuple else res[0])


def _vectors(v, like, what, fn_name):
    if v is None:
        if len(like) != 1 or like[0]._data.size != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} of {fn_name} "
                               "is a single Tensor with a single element.")
        return [Tensor._make(np.ones(like[0]._data.shape, dtype=like[0]._data.dtype))]
    _, vs = _as_tuple(v, "v")
    if len(vs) != len(like):
        raise RuntimeError(f"v has {len(vs)} Tensors but the {what} have {len(like)}")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Mismatch in shape: entry {i} of v has shape {list(a.shape)} but "
                               f"{what}[{i}] has shape {list(b.shape)}")
    return list(vs)
