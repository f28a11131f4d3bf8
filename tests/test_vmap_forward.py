"""Forward mode under vmap (``vmap`` of ``jacfwd``, ``jvp``, ``hessian``: one batched forward
pass, not a loop over the examples), indexed assignment on captured tensors, type promotion of
batched 0-d examples and per-thread vmap state. Values against PyTorch 2.13's ``torch.func``
(recorded by ``record_vmap_forward.py`` into ``fixtures/vmap_forward_torch.json``, and live
when PyTorch is installed)."""
from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.ops import batching
from rtorchpy.ops.boundary import VMAP
from _func_suite import BATCH, rtorchpy_suite
from _vmap_forward_suite import BATCH_TANGENTS, promotion_cases

F64 = rt.torch_float64()
SUITE = rtorchpy_suite()
with open(os.path.join(os.path.dirname(__file__), "fixtures", "vmap_forward_torch.json")) as fh:
    RECORDED = json.load(fh)
# functions of the suite whose every op has a batching rule: nothing may run per example
ALL_RULED = ("elementwise_chain", "matmul_tanh_mlp", "scalar_logistic", "softmax_logsoftmax",
             "pow_sqrt_sigmoid")


def _t(a):
    return rt.torch_tensor(np.asarray(a, dtype=np.float64), dtype=F64)


def _close(actual, expected, what, tol=1e-9):
    np.testing.assert_allclose(actual.numpy(), np.asarray(expected), rtol=tol, atol=tol,
                               err_msg=what)


def _jvp_of(f):
    return lambda x, t: rt.autograd_jvp_fn(f, (x,), (t,))[1]


@pytest.mark.parametrize("name", sorted(SUITE))
def test_vmap_of_forward_transforms_equals_recorded_torch_func(name):
    f, rec = SUITE[name], RECORDED["suite"][name]
    xs, ts = _t(BATCH), _t(BATCH_TANGENTS)
    batching.FALLBACK_SEEN.clear()
    _close(rt.autograd_vmap(rt.autograd_jacfwd(f))(xs), rec["vmap_jacfwd"], "vmap(jacfwd)")
    _close(rt.autograd_vmap(_jvp_of(f))(xs, ts), rec["vmap_jvp"], "vmap(jvp)")
    _close(rt.autograd_vmap(rt.autograd_hessian_fn(f))(xs), rec["vmap_hessian"],
           "vmap(hessian)")
    # the transforms themselves never loop; only ops without a batching rule may
    assert not {"jacfwd", "jvp", "hessian"} & batching.FALLBACK_SEEN
    assert batching.FALLBACK_SEEN <= set(rt.autograd_vmap_fallback_ops()) | {"__getitem__"}
    if name in ALL_RULED:
        assert not batching.FALLBACK_SEEN, batching.FALLBACK_SEEN


def test_vmap_of_forward_transforms_equals_the_loop():
    f = SUITE["linalg_solve_det"]       # linalg_det and solve run per example, with tangents
    xs = _t(BATCH)
    looped = rt.torch_stack([rt.autograd_jacfwd(f)(xs[i]) for i in range(xs.shape[0])])
    _close(rt.autograd_vmap(rt.autograd_jacfwd(f))(xs), looped.numpy(), "loop")


def test_per_example_hessians_with_unmapped_arguments_and_argnums():
    rng = np.random.default_rng(7)
    X, w = _t(rng.standard_normal((5, 3))), _t(rng.standard_normal(3))
    y = _t((rng.random(5) > 0.5) * 1.0)

    def loglik(w, x, y):
        z = (x * w).sum()
        return y * z - rt.nnf_softplus(z)
    batching.FALLBACK_SEEN.clear()
    H = rt.autograd_vmap(rt.autograd_hessian_fn(loglik), in_dims=(None, 0, 0))(w, X, y)
    p = 1 / (1 + np.exp(-X.numpy() @ w.numpy()))
    expected = -(p * (1 - p))[:, None, None] * np.einsum("bi,bj->bij", X.numpy(), X.numpy())
    _close(H, expected, "logistic Hessians", tol=1e-12)
    assert not batching.FALLBACK_SEEN
    # two argnums, two outputs, has_aux
    def g(a, b):
        return ((a * b).sin(), a.sum() * b), a * 2
    J, aux = rt.autograd_vmap(rt.autograd_jacfwd(g, argnums=(0, 1), has_aux=True))(X, X)
    _close(aux, 2 * X.numpy(), "aux")
    for i in range(5):
        Ji, _ = rt.autograd_jacfwd(g, argnums=(0, 1), has_aux=True)(X[i], X[i])
        for p_ in range(2):
            for q in range(2):
                _close(J[p_][q][i], Ji[p_][q].numpy(), f"block {p_}{q}")


def test_transforms_of_unbatched_arguments_with_captured_batched_tensors():
    # per-example Hessians with respect to w, the examples captured (not arguments)
    rng = np.random.default_rng(12)
    X, w = _t(rng.standard_normal((5, 3))), _t(rng.standard_normal(3))
    y = _t((rng.random(5) > 0.5) * 1.0)

    def loglik(w, x, y):
        z = (x * w).sum()
        return y * z - rt.nnf_softplus(z)
    want = rt.autograd_vmap(rt.autograd_hessian_fn(loglik), in_dims=(None, 0, 0))(w, X, y)
    got = rt.autograd_vmap(
        lambda xi, yi: rt.autograd_hessian_fn(lambda v: loglik(v, xi, yi))(w))(X, y)
    _close(got, want.numpy(), "captured Hessian", tol=1e-12)
    grads = rt.autograd_vmap(
        lambda xi, yi: rt.autograd_grad_fn(lambda v: loglik(v, xi, yi))(w))(X, y)
    p = 1 / (1 + np.exp(-X.numpy() @ w.numpy()))
    _close(grads, (y.numpy() - p)[:, None] * X.numpy(), "captured grad", tol=1e-12)
    for jac in (rt.autograd_jacrev, rt.autograd_jacfwd):
        j = rt.autograd_vmap(lambda xi: jac(lambda v: v * xi)(w))(X)
        _close(j, np.stack([np.diag(r) for r in X.numpy()]), jac.__name__)


def test_nested_vmaps_and_captured_batched_tensors():
    rng = np.random.default_rng(8)
    Y = _t(rng.standard_normal((2, 4, 3)))

    def g(a):
        return (a.exp() * a).sum()
    nested = rt.autograd_vmap(rt.autograd_vmap(rt.autograd_hessian_fn(g)))(Y)
    for i in range(2):
        _close(nested[i], rt.autograd_vmap(rt.autograd_hessian_fn(g))(Y[i]).numpy(), "nested")
    # a tensor batched by the enclosing vmap, used inside jacfwd: its level stays on the result
    X, C = _t(rng.standard_normal((5, 3))), _t(rng.standard_normal((2, 3)))
    r = rt.autograd_vmap(lambda c: rt.autograd_vmap(rt.autograd_jacfwd(lambda a: a * c))(X))(C)
    assert tuple(r.shape) == (2, 5, 3, 3)
    _close(r[1, 2], np.diag(C.numpy()[1]), "captured")
    # jvp with a tangent that is not batched
    ones = rt.torch_ones(3, dtype=F64)
    t = rt.autograd_vmap(lambda a: rt.autograd_jvp_fn(lambda z: z.sin(), (a,), (ones,))[1])(X)
    _close(t, np.cos(X.numpy()), "unbatched tangent")


def test_results_stay_differentiable():
    X = _t(np.random.default_rng(9).standard_normal((4, 3))).requires_grad_(True)
    J = rt.autograd_vmap(rt.autograd_jacfwd(lambda a: a.sin()))(X)
    assert J.requires_grad
    J.sum().backward()
    _close(X.grad, -np.sin(X.detach().numpy()), "d/dx sum of diag cos")
    plain = rt.autograd_vmap(rt.autograd_jacfwd(lambda a: a.sin()))(X.detach())
    assert not plain.requires_grad


def test_live_against_torch_func():
    torch = pytest.importorskip("torch")
    from _func_suite import torch_suite
    from torch.func import hessian, jacfwd, vmap
    xs = np.random.default_rng(10).uniform(0.2, 1.2, (4, BATCH.shape[1]))
    for name in ("matmul_tanh_mlp", "scalar_logistic", "reductions"):
        f, ft = SUITE[name], torch_suite()[name]
        _close(rt.autograd_vmap(rt.autograd_jacfwd(f))(_t(xs)),
               vmap(jacfwd(ft))(torch.tensor(xs)).numpy(), name)
        _close(rt.autograd_vmap(rt.autograd_hessian_fn(f))(_t(xs)),
               vmap(hessian(ft))(torch.tensor(xs)).numpy(), name)
    w = xs[0]   # a Hessian with respect to an unbatched argument, the batch captured
    mine = rt.autograd_vmap(lambda xi: rt.autograd_hessian_fn(
        lambda v: (v.sin() * xi * v.sum()).sum())(_t(w)))(_t(xs))
    theirs = vmap(lambda xi: hessian(lambda v: (v.sin() * xi * v.sum()).sum())(
        torch.tensor(w)))(torch.tensor(xs))
    _close(mine, theirs.numpy(), "captured")


# ------------------------------------------------------------------------------ x[i] = batched

INPLACE = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists "
           "a Tensor `other` in extra_args that has more elements than `self`. This happened "
           "due to `other` being vmapped over but `self` not being vmapped over in a vmap. "
           "Please try to use out-of-place operators instead of inplace arithmetic. If said "
           "operator is being called inside the PyTorch framework, please file a bug report "
           "instead.")


def test_indexed_assignment_on_a_captured_tensor_raises_pytorchs_error():
    captured = rt.torch_zeros(3, 3)
    xs = rt.torch_ones(2, 3)

    def row(a):
        captured[0] = a
        return a

    def col(a):
        captured[:, 1] = a
        return a

    def one(a):
        captured[0] = a[0]
        return a
    for f in (row, col):
        with pytest.raises(RuntimeError) as info:
            rt.autograd_vmap(f)(xs)
        assert str(info.value) == INPLACE
    with pytest.raises(RuntimeError) as info:
        rt.autograd_vmap(one)(xs)
    assert str(info.value) == INPLACE.replace("inplace arithmetic", "fill_")
    assert not captured.numpy().any()          # nothing written
    # assignment into the batched argument, or of a captured value, is fine
    out = rt.autograd_vmap(lambda a: a.clone().index_fill_(0, rt.torch_tensor([0]), 5.0))(xs)
    assert out.numpy()[:, 0].tolist() == [5.0, 5.0]

    def into_batched(a):
        b = a.clone()
        b[0] = captured[0, 0]
        return b
    assert rt.autograd_vmap(into_batched)(xs).numpy()[:, 0].tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------------ promotion

class _NS:
    float32, float64, int64, int32, float16 = (rt.torch_float32(), rt.torch_float64(),
                                               rt.torch_int64(), rt.torch_int32(),
                                               rt.torch_float16())
    ones = staticmethod(lambda *s, dtype=None: rt.torch_ones(*s, dtype=dtype))
    tensor = staticmethod(lambda v, dtype=None: rt.torch_tensor(v, dtype=dtype))
    maximum = staticmethod(rt.torch_maximum)
    where = staticmethod(rt.torch_where)
    clamp = staticmethod(rt.torch_clamp)
    addcmul = staticmethod(rt.torch_addcmul)


@pytest.mark.parametrize("name", sorted(RECORDED["promotion"]))
def test_batched_0d_example_promotes_as_in_pytorch(name):
    x, f = promotion_cases(_NS)[name]
    rec = RECORDED["promotion"][name]
    r = rt.autograd_vmap(f)(x)
    assert str(r.dtype) == "torch_" + {"float32": "Float", "float64": "Double",
                                       "int64": "Long", "int32": "Int",
                                       "float16": "Half"}[rec["dtype"]], name
    np.testing.assert_allclose(r.to(rt.torch_float64()).numpy(), rec["value"], rtol=1e-6)


# ------------------------------------------------------------------------------ threads

def test_vmap_state_is_per_thread():
    inside, release, seen = threading.Event(), threading.Event(), {}

    def hold(a):
        inside.set()
        release.wait(10)
        return a * 2

    def other():
        inside.wait(10)
        # the first thread is inside a vmap: this thread sees no open frame
        seen["frames"] = list(batching.frames())
        seen["out"] = rt.autograd_vmap(lambda a: a.sum())(rt.torch_ones(3, 2)).numpy().tolist()
        seen["plain"] = (rt.torch_ones(2) + 1).numpy().tolist()
        release.set()

    t1 = threading.Thread(target=lambda: seen.setdefault(
        "first", rt.autograd_vmap(hold)(rt.torch_ones(4, 2)).numpy().tolist()))
    t2 = threading.Thread(target=other)
    t1.start()
    t2.start()
    t1.join(20)
    t2.join(20)
    assert seen["frames"] == []
    assert seen["out"] == [2.0, 2.0, 2.0]
    assert seen["plain"] == [2.0, 2.0]
    assert seen["first"] == [[2.0, 2.0]] * 4
    assert batching.frames() == []
    assert VMAP[0] == 0       # (the count of frames open in any thread)


# ------------------------------------------------------------------------------ fallback list

def test_fallback_list_names_what_loops_and_not_the_transforms():
    listed = set(rt.autograd_vmap_fallback_ops())
    x = _t(np.random.default_rng(11).standard_normal((3, 2, 4)))
    w = _t(np.ones((2, 2, 3)))
    loops = {
        "nnf_pad": lambda a: rt.nnf_pad(a, (1, 1)),
        "conv1d": lambda a: rt.torch_conv1d(a.unsqueeze(0), w),
        "nnf_glu": lambda a: rt.nnf_glu(a),
        "autograd_jacobian": lambda a: rt.autograd_jacobian(lambda z: z.sin(), a),
        "linalg_det": lambda a: rt.linalg_det(a[:, :2]),
    }
    for name, f in loops.items():
        batching.FALLBACK_SEEN.clear()
        rt.autograd_vmap(f)(x)
        assert batching.FALLBACK_SEEN == {name}, (name, batching.FALLBACK_SEEN)
        assert name in listed, name
    for transform in ("jacfwd", "jvp", "hessian", "grad", "jacrev", "vjp"):
        assert transform not in listed
    for ruled in ("nnf_relu", "nnf_linear", "nnf_conv2d", "exp", "matmul"):
        assert ruled not in listed
