"""vmap's batching rules: every family of ``_vmap_suite.py`` against PyTorch 2.13's
``torch.func.vmap`` (recorded in ``fixtures/vmap_torch.json`` by ``record_vmap.py``; live when
PyTorch is installed) and against the per-example loop; per-sample gradients, nesting,
``chunk_size``, ``in_dims``/``out_dims`` structures, randomness and the in-place error."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import rtorchpy as rt
from _vmap_suite import B, CASES, inputs, mlp_inputs, mlp_loss, rtorchpy_ns
from rtorchpy.ops import batching

T = rtorchpy_ns()
with open(os.path.join(os.path.dirname(__file__), "fixtures", "vmap_torch.json")) as fh:
    RECORDED = json.load(fh)


def _t(a):
    return rt.torch_tensor(a)


def _flat(res):
    """The outputs as a list of arrays (a recorded entry already is one list per output)."""
    outs = res if isinstance(res, (tuple, list)) else (res,)
    return [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in outs]


def _check(actual, expected, what, tol=1e-10):
    a, e = _flat(actual), _flat(expected)
    assert len(a) == len(e), what
    for k, (u, w) in enumerate(zip(a, e)):
        np.testing.assert_allclose(u, np.asarray(w, dtype=u.dtype), rtol=tol, atol=tol,
                                   err_msg=f"{what} [{k}]")


def _looped(f, xs, in_dims):
    """The per-example reference: f on each example's slices, stacked."""
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(xs)
    rows = [f(*[x if d is None else x.select(d, b) for x, d in zip(xs, dims)])
            for b in range(B)]
    first = rows[0]
    if isinstance(first, tuple):
        return tuple(rt.torch_stack([r[k] for r in rows]) for k in range(len(first)))
    return rt.torch_stack(rows)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_equal_torch_func_and_the_loop(name):
    f, _, in_dims = CASES[name]
    xs = [_t(a) for a in inputs(name)]
    batching.FALLBACK_SEEN.clear()
    out = rt.autograd_vmap(lambda *a: f(T, *a), in_dims=in_dims)(*xs)
    _check(out, RECORDED["cases"][name], f"{name} vs torch.func.vmap", tol=1e-9)
    _check(out, _looped(lambda *a: f(T, *a), xs, in_dims), f"{name} vs the loop")
    if name != "linalg_fallback":   # every other family runs by rules, not by the loop
        assert not batching.FALLBACK_SEEN, (name, batching.FALLBACK_SEEN)
    else:
        assert {"linalg_det", "linalg_inv"} <= batching.FALLBACK_SEEN


def test_live_torch_when_installed():
    torch = pytest.importorskip("torch")
    from _vmap_suite import torch_ns
    from torch.func import vmap
    tn = torch_ns()
    for name, (f, _, in_dims) in CASES.items():
        arrays = inputs(name)
        mine = rt.autograd_vmap(lambda *a, f=f: f(T, *a), in_dims=in_dims)(
            *[_t(a) for a in arrays])
        theirs = vmap(lambda *a, f=f: f(tn, *a), in_dims=in_dims)(
            *[torch.tensor(a) for a in arrays])
        outs = theirs if isinstance(theirs, tuple) else (theirs,)
        _check(mine, [t.detach().numpy() for t in outs], name, tol=1e-9)


def test_per_sample_gradients_and_jacobians():
    ps = [_t(a) for a in mlp_inputs()]
    g = rt.autograd_vmap(rt.autograd_grad_fn(lambda *a: mlp_loss(T, *a), argnums=(0, 1, 2)),
                         in_dims=(None, None, None, 0, 0))(*ps)
    _check(g, RECORDED["vmap_grad"], "vmap(grad)")
    assert [tuple(x.shape) for x in g] == [(B, 4, 3), (B, 4), (B, 4)]
    looped = [rt.autograd_grad_fn(lambda *a: mlp_loss(T, *a), argnums=(0, 1, 2))(
        *ps[:3], ps[3][b], ps[4][b]) for b in range(B)]
    for k in range(3):
        _check(g[k], rt.torch_stack([r[k] for r in looped]), "vmap(grad) vs loop")
    j = rt.autograd_vmap(rt.autograd_jacrev(lambda x: (x.sin() * x.sum()).tanh()))(ps[3])
    _check(j, RECORDED["vmap_jacrev"], "vmap(jacrev)")
    # grad_and_value gives the per-example values too
    gv, value = rt.autograd_vmap(rt.autograd_grad_and_value(lambda *a: mlp_loss(T, *a)),
                                 in_dims=(None, None, None, 0, 0))(*ps)
    assert tuple(gv.shape) == (B, 4, 3) and tuple(value.shape) == (B,)


def test_nested_vmap_and_hessian_under_vmap():
    a, b = _t(mlp_inputs()[0]), _t(mlp_inputs()[2])
    inner = rt.autograd_vmap(lambda u, v: (u * v).sum() + u.exp(), in_dims=(0, None))
    out = rt.autograd_vmap(inner, in_dims=(0, None))(a, b)
    _check(out, RECORDED["nested"], "nested vmap")
    x = _t(mlp_inputs()[3])
    h = rt.autograd_vmap(rt.autograd_hessian_fn(lambda v: (v ** 3).sum()))(x)
    expected = np.stack([np.diag(6 * r) for r in x.numpy()])
    _check(h, expected, "vmap(hessian)")
    # per-sample gradients inside an outer vmap (nested levels with grad)
    w = _t(np.ones(3))
    xs = _t(np.arange(24.0).reshape(2, 4, 3))
    per = rt.autograd_vmap(rt.autograd_vmap(rt.autograd_grad_fn(lambda w, x: (w * x).sum() ** 2),
                                            in_dims=(None, 0)), in_dims=(None, 0))(w, xs)
    expected = 2 * (xs.numpy() @ np.ones(3))[..., None] * xs.numpy()
    _check(per, expected, "vmap(vmap(grad))")


def test_chunk_size_in_dims_structures_and_out_dims():
    x = _t(np.arange(12.0).reshape(4, 3))
    f = rt.autograd_vmap(lambda a: (a.exp().sum(), a * 2), out_dims=(0, 1))
    g = rt.autograd_vmap(lambda a: (a.exp().sum(), a * 2), out_dims=(0, 1), chunk_size=3)
    _check(g(x), f(x), "chunk_size")
    pair = rt.autograd_vmap(lambda p, c: p[0] * p[1] + c, in_dims=((0, 1), None))
    out = pair((x, x.t()), 1.0)
    _check(out, x.numpy() ** 2 + 1, "nested in_dims")
    d = rt.autograd_vmap(lambda p: {"s": p["a"].sum()}, in_dims=({"a": 0},))({"a": x})
    _check(d["s"], x.numpy().sum(1), "dict in_dims")
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        rt.autograd_vmap(lambda a: a, chunk_size=0)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        rt.autograd_vmap(lambda a: a * 2, out_dims=None)(x)
    unbatched = rt.autograd_vmap(lambda a: rt.torch_ones(2), out_dims=0)(x)
    assert tuple(unbatched.shape) == (4, 2)


def test_randomness_modes_and_inplace_on_captured():
    x = _t(np.zeros((4, 3)))
    rt.torch_manual_seed(0)
    same = rt.autograd_vmap(lambda a: rt.nnf_dropout(a + 1, 0.5), randomness="same")(x)
    assert np.allclose(same.numpy(), same.numpy()[0])
    diff = rt.autograd_vmap(lambda a: rt.nnf_dropout(a + 1, 0.5), randomness="different")(
        _t(np.zeros((64, 8))))
    assert not np.allclose(diff.numpy(), diff.numpy()[0])
    with pytest.raises(RuntimeError, match="randomness error mode"):
        rt.autograd_vmap(lambda a: rt.nnf_dropout(a, 0.5))(x)
    captured = _t(np.zeros(3))
    with pytest.raises(RuntimeError, match=r"vmap: inplace arithmetic\(self, \*extra_args\) "
                                           "is not possible"):
        rt.autograd_vmap(lambda a: captured.mul_(a))(x)
    # (add_ is refused by PyTorch's broadcast check instead: tests/test_vmap_inplace_errors.py)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the "
                                           r"broadcast shape \[4, 3\]"):
        rt.autograd_vmap(lambda a: captured.add_(a))(x)
    # in place on the batched tensor itself is fine
    y = x.clone()
    rt.autograd_vmap(lambda a: a.mul_(2).add_(1))(y)
    _check(y, np.ones((4, 3)), "in-place on the batched input")


def test_fallback_list_and_data_dependent_errors():
    listed = rt.autograd_vmap_fallback_ops()
    assert "linalg_det" in listed
    for ruled in ("exp", "add", "matmul", "sum", "softmax", "reshape", "cat"):
        assert ruled not in listed
    x = _t(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling \.item\(\)"):
        rt.autograd_vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        rt.autograd_vmap(lambda a: a * 2 if a.sum() > 0 else a)(x)


def test_vjp_and_jvp_under_vmap_equal_the_loop():
    x = _t(mlp_inputs()[3])
    v = _t(np.arange(float(x.numel())).reshape(tuple(x.shape)))

    def f(a):
        return (a.sin() * a.sum()).tanh()

    def vjp_of(a, u):
        return rt.autograd_vjp_fn(f, a)[1](u)[0]

    def jvp_of(a, u):
        return rt.autograd_jvp_fn(f, (a,), (u,))[1]
    for g in (vjp_of, jvp_of):
        _check(rt.autograd_vmap(g)(x, v), _looped(g, [x, v], 0), g.__name__)


def test_modules_under_vmap():
    rt.torch_manual_seed(0)
    model = rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_relu(), rt.nn_layer_norm(4),
                             rt.nn_linear(4, 2))
    conv = rt.nn_conv2d(2, 3, 3)
    x, images = rt.torch_randn(5, 3), rt.torch_randn(4, 2, 6, 6)
    batching.FALLBACK_SEEN.clear()
    with rt.with_no_grad():
        _check(rt.autograd_vmap(model)(x), model(x), "nn_sequential")
        _check(rt.autograd_vmap(conv)(images), conv(images), "nn_conv2d", tol=1e-6)
    # every layer here by its rule; an embedding once per example (no rule for its module)
    assert not batching.FALLBACK_SEEN, batching.FALLBACK_SEEN
    emb = rt.nn_embedding(10, 3)
    idx = rt.torch_tensor(np.array([[1, 2], [3, 4], [5, 6]]))
    with rt.with_no_grad():
        _check(rt.autograd_vmap(emb)(idx), emb(idx), "nn_embedding")
    assert batching.FALLBACK_SEEN == {"nn_embedding"}


SWEEP = {  # more ops of the dims family, against the per-example loop
    "tril": lambda a: a.tril(), "triu": lambda a: a.triu(1), "diff": lambda a: a.diff(),
    "flip": lambda a: a.flip(0), "roll": lambda a: a.roll(1, 0),
    "diagonal": lambda a: a.diagonal(), "unbind": lambda a: a.unbind()[1],
    "split": lambda a: a.split(2)[0], "chunk": lambda a: a.chunk(2, 1)[1],
    "argsort": lambda a: a.argsort(0), "kthvalue": lambda a: a.kthvalue(2, 0)[0],
    "unflatten": lambda a: a.unflatten(1, (2, 2)), "all": lambda a: (a > 0).all(),
    "any": lambda a: (a > 0).any(1), "count_nonzero": lambda a: a.count_nonzero(),
    "median": lambda a: a.median(), "prod": lambda a: a.prod(1), "std": lambda a: a.std(),
    "min": lambda a: a.min(0)[1], "swapaxes": lambda a: a.swapaxes(0, 1),
    "movedim": lambda a: a.movedim(0, -1), "softmin": lambda a: rt.nnf_softmin(a, 1),
    "norm": lambda a: a.norm(dim=1), "var_mean": lambda a: a.var_mean(1)[0],
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_dims_family_sweep_equals_the_loop(name):
    x = _t(np.random.default_rng(5).standard_normal((B, 4, 4)))
    batching.FALLBACK_SEEN.clear()
    _check(rt.autograd_vmap(SWEEP[name])(x), _looped(SWEEP[name], [x], 0), name)
    assert not batching.FALLBACK_SEEN
