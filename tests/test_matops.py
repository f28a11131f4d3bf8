"""Matrix, shape and sorting ops (``rtorchpy/ops/matrix.py``, ``sorting.py``, rows in
``rtorchpy/derivatives/matops.py``): values, dtypes, grad_fn names, gradients of first and second
order, ties, in-place triangles and errors.

Every case runs on rtorchpy and, when it is installed, on PyTorch 2.13 through one adapter;
without PyTorch the values and gradients recorded from it (``RECORDED``, at the end; regenerate
with ``python tests/test_matops.py``) are compared instead.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy import autograd_gradcheck, autograd_gradgradcheck, torch_tensor


def _values(shape, seed=0.0, scale=2.0):
    """Distinct, deterministic values (no ties unless asked for)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 1.37 + 0.3 + seed) * scale).reshape(shape)


class _Lib:
    """One face for both libraries: ``L.f("bmm")`` is ``torch_bmm`` or ``torch.bmm``."""

    def __init__(self, torch=None):
        self.torch = torch

    def f(self, name):
        if self.torch is not None:
            return getattr(self.torch, name)
        return getattr(rt, "torch_" + name)

    def tensor(self, a, requires_grad=False):
        if self.torch is not None:
            return self.torch.tensor(np.asarray(a), requires_grad=requires_grad)
        return torch_tensor(np.asarray(a), requires_grad=requires_grad)

    def grad_fn_name(self, t):
        if t.grad_fn is None:
            return None
        return t.grad_fn.name() if self.torch is not None else t.grad_fn.name


def _q(L, q, like):
    """A tensor of quantiles in the dtype of ``like``."""
    return L.tensor(np.asarray(q, dtype=like.detach().numpy().dtype))


_ZEROS = np.array([[1.5, 0.0, 2.0, 0.0, -3.0], [2.0, -0.5, 0.0, 4.0, 1.25],
                   [0.0, 1.1, 0.9, -1.2, 0.7]])

# id -> (input shapes or arrays, function of (L, *tensors) -> tensor or tuple, grad_fn name)
CASES = {
    "bmm": ([(2, 3, 4), (2, 4, 5)], lambda L, a, b: L.f("bmm")(a, b), "BmmBackward0"),
    "einsum_mm": ([(3, 4), (4, 5)], lambda L, a, b: L.f("einsum")("ij,jk->ik", a, b), None),
    "einsum_batch": ([(2, 3, 4), (2, 4, 2)],
                     lambda L, a, b: L.f("einsum")("bij,bjk->bik", a, b), None),
    "einsum_diag": ([(3, 3)], lambda L, a: L.f("einsum")("ii->i", a), None),
    "einsum_trace": ([(3, 3)], lambda L, a: L.f("einsum")("ii", a), None),
    "einsum_outer": ([(3,), (4,)], lambda L, a, b: L.f("einsum")("i,j->ij", a, b), None),
    "einsum_ellipsis": ([(2, 3, 4), (4, 5)],
                        lambda L, a, b: L.f("einsum")("...ij,...jk->...ik", a, b), None),
    "einsum_broadcast": ([(3, 4), (1, 4)], lambda L, a, b: L.f("einsum")("ij,ij->ij", a, b),
                         None),
    "einsum_sum_all": ([(2, 3, 4)], lambda L, a: L.f("einsum")("ijk->", a), None),
    "einsum_repeated": ([(3, 3, 2), (2, 4)],
                        lambda L, a, b: L.f("einsum")("iij,jk->ki", a, b), None),
    "einsum_implicit": ([(3, 4), (4, 2)], lambda L, a, b: L.f("einsum")("ij,jk", a, b), None),
    "einsum_three": ([(2, 3), (3, 4), (4, 2)],
                     lambda L, a, b, c: L.f("einsum")("ij,jk,kl->il", a, b, c), None),
    "einsum_only_here": ([(2, 3), (3,)], lambda L, a, b: L.f("einsum")("ij,j->j", a, b), None),
    "tensordot_1": ([(3, 4), (4, 5)], lambda L, a, b: L.f("tensordot")(a, b, dims=1),
                    "ViewBackward0"),
    "tensordot_lists": ([(2, 3, 4), (4, 2, 5)],
                        lambda L, a, b: L.f("tensordot")(a, b, dims=([0, 2], [1, 0])),
                        "ViewBackward0"),
    "tensordot_2": ([(2, 3, 4), (3, 4, 2)], lambda L, a, b: L.f("tensordot")(a, b),
                    "ViewBackward0"),
    "kron_mat": ([(2, 3), (3, 2)], lambda L, a, b: L.f("kron")(a, b), "UnsafeViewBackward0"),
    "kron_mixed": ([(3,), (2, 2)], lambda L, a, b: L.f("kron")(a, b), "UnsafeViewBackward0"),
    "tril": ([(3, 4)], lambda L, a: L.f("tril")(a), "TrilBackward0"),
    "tril_neg": ([(3, 4)], lambda L, a: a.tril(-1), "TrilBackward0"),
    "triu_batch": ([(2, 3, 4)], lambda L, a: L.f("triu")(a, 1), "TriuBackward0"),
    "diag_vec": ([(3,)], lambda L, a: L.f("diag")(a, 1), "DiagEmbedBackward0"),
    "diag_vec_neg": ([(3,)], lambda L, a: a.diag(-2), "DiagEmbedBackward0"),
    "diag_mat": ([(3, 4)], lambda L, a: L.f("diag")(a), "DiagonalBackward0_copy"),
    "diag_mat_off": ([(3, 4)], lambda L, a: L.f("diag")(a, 1), "DiagonalBackward0_copy"),
    "diag_embed": ([(2, 3)], lambda L, a: L.f("diag_embed")(a, 1, 0, 2), "DiagEmbedBackward0"),
    "diag_embed_default": ([(2, 3)], lambda L, a: a.diag_embed(), "DiagEmbedBackward0"),
    "trace": ([(3, 4)], lambda L, a: L.f("trace")(a), "TraceBackward0"),
    "cdist_2": ([(2, 3, 4), (2, 5, 4)], lambda L, a, b: L.f("cdist")(a, b), "CdistBackward0"),
    "cdist_1": ([(3, 4), (5, 4)], lambda L, a, b: L.f("cdist")(a, b, p=1.0), "CdistBackward0"),
    "cdist_0": ([(3, 4), (5, 4)], lambda L, a, b: L.f("cdist")(a, b, p=0.0), "CdistBackward0"),
    "cdist_inf": ([(3, 4), (5, 4)], lambda L, a, b: L.f("cdist")(a, b, p=math.inf),
                  "CdistBackward0"),
    "cdist_3": ([(3, 4), (5, 4)], lambda L, a, b: L.f("cdist")(a, b, p=3.0), "CdistBackward0"),
    "cdist_half": ([(3, 4), (5, 4)], lambda L, a, b: L.f("cdist")(a, b, p=0.5),
                   "CdistBackward0"),
    "cdist_mm": ([(30, 3), (4, 3)], lambda L, a, b: L.f("cdist")(a, b), "ViewBackward0"),
    "cdist_mm_forced": ([(2, 3, 2), (1, 4, 2)], lambda L, a, b: L.f("cdist")(
        a, b, compute_mode="use_mm_for_euclid_dist"), "ViewBackward0"),
    "cdist_mm_refused": ([(26, 2), (3, 2)], lambda L, a, b: L.f("cdist")(
        a, b, compute_mode="donot_use_mm_for_euclid_dist"), "CdistBackward0"),
    "cdist_bcast": ([(1, 3, 2), (2, 4, 2)], lambda L, a, b: L.f("cdist")(a, b), "CdistBackward0"),
    "repeat_interleave": ([(2, 3)], lambda L, a: L.f("repeat_interleave")(a, 2), "ViewBackward0"),
    "repeat_interleave_dim": ([(2, 3)], lambda L, a: a.repeat_interleave(3, dim=1),
                              "ViewBackward0"),
    "repeat_interleave_tensor": (
        [(3, 2)], lambda L, a: a.repeat_interleave(L.tensor(np.array([1, 0, 2])), dim=0),
        "IndexSelectBackward0"),
    "tile": ([(2, 3)], lambda L, a: L.f("tile")(a, (2,)), "RepeatBackward0"),
    "tile_more": ([(2, 3)], lambda L, a: a.tile((2, 1, 2)), "RepeatBackward0"),
    "diff": ([(3, 5)], lambda L, a: L.f("diff")(a), "SubBackward0"),
    "diff_n2_dim0": ([(4, 3)], lambda L, a: L.f("diff")(a, n=2, dim=0), "SubBackward0"),
    "diff_prepend_append": ([(3, 4), (3, 1), (3, 2)],
                            lambda L, a, p, q: L.f("diff")(a, 1, -1, p, q), "SubBackward0"),
    "cumprod": ([(3, 4)], lambda L, a: L.f("cumprod")(a, 1), "CumprodBackward0"),
    "cumprod_zeros": ([_ZEROS], lambda L, a: L.f("cumprod")(a, 1), "CumprodBackward0"),
    "cumprod_zeros_dim0": ([_ZEROS.T.copy()], lambda L, a: a.cumprod(0), "CumprodBackward0"),
    "sort": ([(3, 4)], lambda L, a: L.f("sort")(a), "SortBackward0"),
    "sort_desc_dim0": ([(3, 4)], lambda L, a: L.f("sort")(a, 0, True), "SortBackward0"),
    "sort_stable": ([(3, 4)], lambda L, a: a.sort(dim=-1, descending=True, stable=True),
                    "SortBackward1"),
    "topk": ([(3, 5)], lambda L, a: L.f("topk")(a, 2), "TopkBackward0"),
    "topk_smallest_dim0": ([(4, 3)], lambda L, a: a.topk(3, dim=0, largest=False),
                           "TopkBackward0"),
    "var_mean": ([(3, 4)], lambda L, a: L.f("var_mean")(a, 1), "VarMeanBackward0"),
    "var_mean_all": ([(3, 4)], lambda L, a: L.f("var_mean")(a), "VarMeanBackward0"),
    "var_mean_corr": ([(3, 4)], lambda L, a: L.f("var_mean")(a, 0, correction=0, keepdim=True),
                      "VarMeanBackward0"),
    "std_mean": ([(3, 4)], lambda L, a: L.f("std_mean")(a, 1), "StdMeanBackward0"),
    "std_mean_biased": ([(3, 4)], lambda L, a: L.f("std_mean")(a, unbiased=False),
                        "StdMeanBackward0"),
    "quantile": ([(3, 5)], lambda L, a: L.f("quantile")(a, 0.3, dim=1), "SqueezeBackward4"),
    "quantile_all": ([(3, 5)], lambda L, a: L.f("quantile")(a, 0.65), "SqueezeBackward4"),
    "quantile_q_dim0": ([(4, 3)],
                        lambda L, a: a.quantile(_q(L, [0.1, 0.5, 0.9], a), dim=0, keepdim=True),
                        "SqueezeBackward4"),
    "quantile_midpoint_dim0": ([(4, 3, 2)], lambda L, a: L.f("quantile")(
        a, 0.4, dim=1, interpolation="midpoint"), "SqueezeBackward4"),
    "quantile_lower": ([(6,)], lambda L, a: L.f("quantile")(a, 0.45, interpolation="lower"),
                       "SqueezeBackward4"),
    "quantile_higher": ([(6,)], lambda L, a: L.f("quantile")(a, 0.45, interpolation="higher"),
                        "SqueezeBackward4"),
    "quantile_nearest": ([(2, 6)], lambda L, a: L.f("quantile")(
        a, _q(L, [0.3, 0.7], a), dim=1, interpolation="nearest"), "SqueezeBackward4"),
    "nanquantile": ([(3, 5)], lambda L, a: L.f("nanquantile")(a, 0.3, dim=1),
                    "SqueezeBackward4"),
}

# cases whose forward has no second derivative in libtorch (_cdist_backward): ours does, and
# is gradgradchecked, but not compared with PyTorch's
NO_TORCH_DOUBLE_BACKWARD = {k for k in CASES if k.startswith("cdist") and CASES[k][2] ==
                            "CdistBackward0"}


def _inputs(L, specs, dtype=np.float64, requires_grad=True):
    out = []
    for i, s in enumerate(specs):
        a = s if isinstance(s, np.ndarray) else _values(s, seed=i)
        out.append(L.tensor(a.astype(dtype), requires_grad=requires_grad))
    return out


def _first(r):
    return r[0] if isinstance(r, tuple) else r


def _outputs(r):
    """The floating outputs of a case (values of sort/topk, both of var_mean)."""
    if not isinstance(r, tuple):
        return [r]
    return [t for t in r if t.dtype.is_floating_point] if hasattr(r[0].dtype, "is_floating_point") \
        else [t for t in r if t._data.dtype.kind == "f"]


def _weights(t):
    shape = tuple(t.shape)
    return np.cos(np.arange(int(np.prod(shape))) * 0.7 + 0.1).reshape(shape)


def run(L, key, dtype=np.float64):
    """Values, indices (if any), grad_fn name and input gradients of case ``key``."""
    specs, fn, _ = CASES[key]
    xs = _inputs(L, specs, dtype)
    r = fn(L, *xs)
    outs = _outputs(r)
    loss = None
    for o in outs:
        term = (o * L.tensor(_weights(o).astype(dtype))).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    indices = r[1].tolist() if isinstance(r, tuple) and not _is_float(r[1]) else None
    return {"values": [o.detach().numpy().tolist() for o in outs],
            "indices": indices,
            "grad_fn": L.grad_fn_name(_first(r)),
            "grads": [x.grad.numpy().tolist() if x.grad is not None else None for x in xs]}


def _is_float(t):
    d = t.dtype
    return d.is_floating_point if hasattr(d, "is_floating_point") else t._data.dtype.kind == "f"


def _close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=rtol, atol=atol, equal_nan=True)


def _compare(mine, ref, rtol=1e-10, atol=1e-12):
    assert len(mine["values"]) == len(ref["values"])
    for a, b in zip(mine["values"], ref["values"]):
        assert np.shape(a) == np.shape(b)
        _close(a, b, rtol, atol)
    assert mine["indices"] == ref["indices"]
    for a, b in zip(mine["grads"], ref["grads"]):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, rtol, atol)


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_recorded_pytorch(key):
    mine = run(_Lib(), key)
    ref = RECORDED[key]
    _compare(mine, ref)
    expected = CASES[key][2] or "EinsumBackward0"
    assert mine["grad_fn"] == expected


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_pytorch(key):
    torch = pytest.importorskip("torch")
    mine, ref = run(_Lib(), key), run(_Lib(torch), key)
    _compare(mine, ref)
    if CASES[key][2] is not None:  # einsum: libtorch's grad_fn is the last op it decomposes to
        assert mine["grad_fn"] == ref["grad_fn"] == CASES[key][2]


@pytest.mark.parametrize("key", sorted(CASES))
def test_float32_values_and_dtypes(key):
    torch = pytest.importorskip("torch")
    specs, fn, _ = CASES[key]
    mine = fn(_Lib(), *_inputs(_Lib(), specs, np.float32, False))
    ref = fn(_Lib(torch), *_inputs(_Lib(torch), specs, np.float32, False))
    mine = mine if isinstance(mine, tuple) else (mine,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    for a, b in zip(mine, ref):
        assert str(b.dtype).replace("torch.", "") == a._data.dtype.name
        assert tuple(a.shape) == tuple(b.shape)
        # cdist's matrix-product path cancels where points nearly coincide: its float32 bits
        # depend on the BLAS's order of summation (libtorch's differ between BLAS libraries)
        atol = 5e-5 if key == "cdist_mm" else 1e-6
        _close(a.numpy(), b.numpy(), rtol=3e-6, atol=atol)


@pytest.mark.parametrize("key", sorted(CASES))
def test_float32_gradients_match_pytorch(key):
    torch = pytest.importorskip("torch")
    mine, ref = run(_Lib(), key, np.float32), run(_Lib(torch), key, np.float32)
    tol = 2e-3 if key == "cdist_mm" else 2e-5  # see test_float32_values_and_dtypes
    _compare(mine, ref, rtol=tol, atol=tol)

@pytest.mark.parametrize("key", sorted(CASES))
def test_gradcheck_first_and_second_order(key):
    specs, fn, _ = CASES[key]
    xs = _inputs(_Lib(), specs)
    L = _Lib()

    def f(*args):
        r = fn(L, *args)
        return tuple(_outputs(r)) if isinstance(r, tuple) else r
    assert autograd_gradcheck(f, xs)
    assert autograd_gradgradcheck(f, xs)


@pytest.mark.parametrize("key", sorted(CASES))
def test_second_order_matches_pytorch(key):
    """The Hessian-vector product: ``grad(sum(grad(loss, x) * v), x)``."""
    torch = pytest.importorskip("torch")
    if key in NO_TORCH_DOUBLE_BACKWARD:
        pytest.skip("libtorch has no derivative for _cdist_backward")
    results = []
    for L in (_Lib(), _Lib(torch)):
        specs, fn, _ = CASES[key]
        xs = _inputs(L, specs)
        outs = _outputs(fn(L, *xs)) if isinstance(fn(L, *xs), tuple) else [fn(L, *xs)]
        loss = sum((o * o * L.tensor(_weights(o))).sum() for o in outs)
        grad = rt.autograd_grad if L.torch is None else torch.autograd.grad
        gs = grad(loss, xs, create_graph=True)
        total = sum((g * L.tensor(_weights(g) + 0.5)).sum() for g in gs)
        hs = grad(total, xs, allow_unused=True)
        results.append([None if h is None else h.detach().numpy() for h in hs])
    for a, b in zip(*results):
        if a is None or b is None:
            for h in (a, b):
                assert h is None or not np.any(h)
            continue
        _close(a, b, rtol=1e-9, atol=1e-11)


# ------------------------------------------------------------------------- specific behaviour

def test_einsum_second_order_is_einsum_again():
    a = torch_tensor(_values((3, 4)), requires_grad=True)
    b = torch_tensor(_values((4, 2), 1), requires_grad=True)
    (ga,) = rt.autograd_grad(rt.torch_einsum("ij,jk->ik", a, b).sum(), [a], create_graph=True)
    assert ga.grad_fn.name == "EinsumBackward0"
    np.testing.assert_allclose(ga.detach().numpy(), np.ones((3, 2)) @ _values((4, 2), 1).T)


def test_einsum_operands_as_a_list_and_ints():
    a, b = torch_tensor(np.arange(6).reshape(2, 3)), torch_tensor(np.arange(3))
    out = rt.torch_einsum("ij,j->i", [a, b])
    assert out.dtype == rt.torch_long()
    assert out.tolist() == [5, 14]


def test_cumprod_gradient_with_zeros_matches_libtorch_recorded():
    # x = [2, 0, 3, 0, 5]: libtorch's gradient of sum(cumprod(x)) is [1, 2+6+0+0, 0, 0, 0]
    # before the first zero: 1 + 0...; at it: 2 + 2*3 + 0 + 0 = 8; after it: 0
    x = torch_tensor([2.0, 0.0, 3.0, 0.0, 5.0], requires_grad=True)
    x.cumprod(0).sum().backward()
    assert x.grad.tolist() == [1.0, 8.0, 0.0, 0.0, 0.0]
    y = torch_tensor([0.0, 0.0, 2.0], requires_grad=True)
    y.cumprod(0).sum().backward()
    assert y.grad.tolist() == [1.0, 0.0, 0.0]


def test_cumprod_integers_and_dtype():
    x = torch_tensor(np.array([[1, 2, 3], [4, 0, 6]], dtype=np.int32))
    out = x.cumprod(1)
    assert out.dtype == rt.torch_long() and out.tolist() == [[1, 2, 6], [4, 0, 0]]
    assert rt.torch_cumprod(torch_tensor([True, True, False]), 0).tolist() == [1, 1, 0]
    assert rt.torch_cumprod(torch_tensor([1.0, 2.0]), 0, dtype=rt.torch_float64()).dtype == \
        rt.torch_float64()


SORT_TIES = np.array([[2.0, 1.0, 2.0, float("nan"), 1.0, 2.0],
                      [0.0, -0.0, 3.0, 3.0, float("nan"), 0.0]])


def test_sort_ties_and_nan_recorded():
    # recorded from PyTorch 2.13 (CPU): equal values keep their order, NaN sorts above all
    v, i = rt.torch_sort(torch_tensor(SORT_TIES))
    assert i.tolist() == [[1, 4, 0, 2, 5, 3], [0, 1, 5, 2, 3, 4]]
    v, i = rt.torch_sort(torch_tensor(SORT_TIES), descending=True)
    assert i.tolist() == [[3, 0, 2, 5, 1, 4], [4, 2, 3, 0, 1, 5]]
    np.testing.assert_array_equal(v.numpy()[0], [np.nan, 2, 2, 2, 1, 1])
    assert rt.torch_argsort(torch_tensor(SORT_TIES), dim=1, descending=True).tolist() == \
        i.tolist()
    v, i = rt.torch_topk(torch_tensor(SORT_TIES), 3)
    assert i.tolist() == [[3, 0, 2], [4, 2, 3]]
    v, i = rt.torch_topk(torch_tensor(SORT_TIES), 3, largest=False)
    assert i.tolist() == [[1, 4, 0], [0, 1, 5]]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_ties_match_pytorch(descending, dim):
    torch = pytest.importorskip("torch")
    x = np.round(_values((5, 7)) * 1.2) / 2  # many ties
    x[1, 3] = x[4, 0] = np.nan
    mine = rt.torch_sort(torch_tensor(x), dim, descending)
    ref = torch.sort(torch.tensor(x), dim, descending)
    np.testing.assert_array_equal(mine[0].numpy(), ref[0].numpy())
    assert mine[1].tolist() == ref[1].tolist()
    ref_stable = torch.sort(torch.tensor(x), dim=dim, descending=descending, stable=True)
    assert mine[1].tolist() == ref_stable[1].tolist()
    assert rt.torch_argsort(torch_tensor(x), dim, descending).tolist() == ref[1].tolist()


@pytest.mark.parametrize("largest", [False, True])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_topk_ties_match_pytorch(largest, k):
    torch = pytest.importorskip("torch")
    x = np.round(_values((4, 5)) * 1.2) / 2
    mine = rt.torch_topk(torch_tensor(x), k, largest=largest)
    ref = torch.topk(torch.tensor(x), k, largest=largest)
    np.testing.assert_array_equal(mine[0].numpy(), ref[0].numpy())
    # libtorch leaves the order among ties unspecified: the indices must point at the values
    np.testing.assert_array_equal(np.take_along_axis(x, np.array(mine[1].tolist()), 1),
                                  ref[0].numpy())


def test_sort_gradient_with_ties_goes_where_the_values_came_from():
    x = torch_tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
    v, i = x.sort(descending=True)
    (v * torch_tensor([10.0, 20.0, 30.0, 40.0])).sum().backward()
    assert i.tolist() == [0, 2, 3, 1]
    assert x.grad.tolist() == [10.0, 40.0, 20.0, 30.0]


def test_sort_and_topk_of_a_scalar():
    x = torch_tensor(3.0, requires_grad=True)
    v, i = x.sort()
    assert v.item() == 3.0 and i.item() == 0 and v.grad_fn.name == "SortBackward0"
    v.backward()
    assert x.grad.item() == 1.0
    v, i = rt.torch_topk(torch_tensor(3.0), 1)
    assert v.item() == 3.0 and i.item() == 0



EDGES = [  # (label, function of (L, *tensors), arrays): compared with PyTorch, values and dtypes
    ("sort 0d", lambda L, x: L.f("sort")(x), [np.array(2.5)]),
    ("sort empty", lambda L, x: L.f("sort")(x, 0), [np.zeros((0, 3))]),
    ("topk k=0", lambda L, x: L.f("topk")(x, 0), [np.array([3.0, 1.0])]),
    ("topk 0d", lambda L, x: L.f("topk")(x, 1), [np.array(2.5)]),
    ("argsort 0d", lambda L, x: L.f("argsort")(x), [np.array(2.5)]),
    ("topk NaN", lambda L, x: L.f("topk")(x, 2), [np.array([1.0, np.nan, 3.0])]),
    ("topk NaN smallest", lambda L, x: L.f("topk")(x, 2, largest=False),
     [np.array([1.0, np.nan, 3.0])]),
    ("sort int", lambda L, x: L.f("sort")(x), [np.array([3, 1, 2])]),
    ("sort bool", lambda L, x: L.f("sort")(x), [np.array([True, False, True])]),
    ("cumprod 0d", lambda L, x: L.f("cumprod")(x, 0), [np.array(2.5)]),
    ("cumprod empty", lambda L, x: L.f("cumprod")(x, 0), [np.zeros((0, 3))]),
    ("cumprod int32", lambda L, x: L.f("cumprod")(x, 0), [np.array([3, 1, 2], np.int32)]),
    ("quantile 0d", lambda L, x: L.f("quantile")(x, 0.5), [np.array(2.5)]),
    ("quantile 0d dim", lambda L, x: L.f("quantile")(x, 0.5, dim=0), [np.array(2.5)]),
    ("quantile keepdim all", lambda L, x: L.f("quantile")(x, 0.5, keepdim=True),
     [np.arange(12.0).reshape(3, 4) % 5]),
    ("quantile ties", lambda L, x: L.f("quantile")(x, 0.37), [np.array([1.0, 1.0, 1.0, 2.0])]),
    ("einsum empty", lambda L, x: L.f("einsum")("ij->j", x), [np.zeros((0, 3))]),
    ("einsum scalars", lambda L, x, y: L.f("einsum")(",->", x, y),
     [np.array(2.5), np.array(-1.5)]),
    ("einsum spaces", lambda L, x: L.f("einsum")(" i j -> j i ", x), [np.ones((2, 3))]),
    ("einsum leading ellipsis", lambda L, x: L.f("einsum")("i...->...", x),
     [_values((2, 3, 4))]),
    ("einsum int", lambda L, x: L.f("einsum")("i,i", x, x), [np.array([3, 1, 2])]),
    ("diag_embed 0d", lambda L, x: L.f("diag_embed")(x), [np.array(2.5)]),
    ("cdist same points", lambda L, x: L.f("cdist")(x, x), [np.arange(12.0).reshape(3, 4) % 5]),
    ("cdist same points p=3", lambda L, x: L.f("cdist")(x, x, p=3.0),
     [np.arange(12.0).reshape(3, 4) % 5]),
    ("cdist no columns", lambda L, x: L.f("cdist")(x, x), [np.zeros((2, 0))]),
    ("repeat_interleave 0d", lambda L, x: L.f("repeat_interleave")(x, 2), [np.array(2.5)]),
    ("repeat_interleave 0d dim", lambda L, x: L.f("repeat_interleave")(x, 2, dim=0),
     [np.array(2.5)]),
    ("repeat_interleave 0 times", lambda L, x: L.f("repeat_interleave")(x, 0, dim=1),
     [np.ones((2, 3))]),
    ("tile 0d", lambda L, x: L.f("tile")(x, (2, 2)), [np.array(2.5)]),
    ("diff of one element", lambda L, x: L.f("diff")(x), [np.array([1.0])]),
    ("kron 0d", lambda L, x: L.f("kron")(x, x), [np.array(2.5)]),
    ("kron bool", lambda L, x: L.f("kron")(x, x), [np.array([True, False])]),
    ("tensordot 0", lambda L, x: L.f("tensordot")(x, x, dims=0), [np.array([3.0, 1.0])]),
    ("bmm empty", lambda L, x, y: L.f("bmm")(x, y), [np.zeros((0, 2, 3)), np.zeros((0, 3, 1))]),
    ("diag past the corner", lambda L, x: L.f("diag")(x, 5), [np.ones((3, 4))]),
    ("tril_indices far below", lambda L: L.f("tril_indices")(3, 3, -10), []),
    ("triu_indices far above", lambda L: L.f("triu_indices")(3, 3, 10), []),
    ("std_mean of a constant", lambda L, x: L.f("std_mean")(x, 1), [np.ones((2, 3))]),
]


def _edge(L, fn, arrays):
    xs = [L.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    try:
        r = fn(L, *xs)
    except (RuntimeError, IndexError) as e:
        return ("error", type(e).__name__, str(e).split("\n")[0])
    rs = r if isinstance(r, tuple) else (r,)
    floats = [t for t in rs if _is_float(t) and t.requires_grad]
    if floats:
        sum((t * 1.5).sum() for t in floats).backward()
    return ([(t.detach().numpy(), t.detach().numpy().dtype) for t in rs],
            [None if x.grad is None else x.grad.numpy() for x in xs],
            L.grad_fn_name(rs[0]))


@pytest.mark.parametrize("label,fn,arrays", EDGES, ids=[e[0] for e in EDGES])
def test_edge_cases_match_pytorch(label, fn, arrays):
    torch = pytest.importorskip("torch")
    mine, ref = _edge(_Lib(), fn, arrays), _edge(_Lib(torch), fn, arrays)
    if ref[0] == "error" or mine[0] == "error":
        assert mine == ref
        return
    assert len(mine[0]) == len(ref[0])
    for (a, da), (b, db) in zip(mine[0], ref[0]):
        assert a.shape == b.shape and da == db, label
        _close(a, b)
    for a, b in zip(mine[1], ref[1]):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b)
    if ref[2] is not None and mine[2] != "EinsumBackward0":
        assert mine[2] == ref[2]


def test_diff_with_n_zero_is_a_copy():
    x = torch_tensor(_values((2, 3)), requires_grad=True)
    y = rt.torch_diff(x, n=0, prepend=x)  # libtorch ignores prepend and append when n == 0
    assert y.grad_fn.name == "CopyBackwards"  # libtorch 2.13: torch::autograd::CopyBackwards
    assert tuple(y.shape) == (2, 3) and not np.shares_memory(y._data, x._data)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, 0.5, math.inf])
def test_cdist_in_blocks_of_rows_gives_the_same_values_and_gradients(monkeypatch, p):
    """Large inputs are differenced a block of x1's rows at a time (forward and backward)."""
    from rtorchpy.derivatives import matops as _derivatives_matops
    from rtorchpy.ops import matrix as _ops_matops
    x1, x2 = _values((2, 7, 3)), _values((1, 4, 3), 1)

    def run_once():
        a, b = torch_tensor(x1, requires_grad=True), torch_tensor(x2, requires_grad=True)
        out = rt.torch_cdist(a, b, p=p)
        (out * torch_tensor(_weights(out))).sum().backward()
        return out.detach().numpy(), a.grad.numpy(), b.grad.numpy()
    whole = run_once()
    monkeypatch.setattr(_ops_matops, "_CDIST_BLOCK", 2 * 4 * 3 * 3)  # 3 rows at a time
    monkeypatch.setattr(_derivatives_matops, "_CDIST_BLOCK", 2 * 4 * 3 * 2)  # 2 rows
    blocks = run_once()
    for a, b in zip(whole, blocks):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
    f = lambda a, b: rt.torch_cdist(a, b, p=p)  # noqa: E731
    args = (torch_tensor(x1, requires_grad=True), torch_tensor(x2, requires_grad=True))
    assert autograd_gradcheck(f, args) and autograd_gradgradcheck(f, args)

def test_quantile_with_nan():
    x = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 5.0, 6.0, 7.0]])
    q = rt.torch_quantile(torch_tensor(x), 0.5, dim=1)
    assert np.isnan(q.tolist()[0]) and q.tolist()[1] == 5.5
    n = rt.torch_nanquantile(torch_tensor(x), 0.5, dim=1)
    assert n.tolist() == [2.0, 5.5]
    allnan = rt.torch_nanquantile(torch_tensor([np.nan, np.nan]), 0.3)
    assert np.isnan(allnan.item())


def test_quantile_nan_matches_pytorch():
    torch = pytest.importorskip("torch")
    x = _values((3, 6))
    x[0, 2] = x[2, 0] = x[2, 4] = np.nan
    for name in ("quantile", "nanquantile"):
        for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
            q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
            mine = getattr(rt, "torch_" + name)(torch_tensor(x), torch_tensor(q), dim=1,
                                               interpolation=interp)
            ref = getattr(torch, name)(torch.tensor(x), torch.tensor(q), dim=1,
                                       interpolation=interp)
            np.testing.assert_array_equal(mine.numpy(), ref.numpy())


def test_quantile_q_list_is_a_tensor_of_selfs_dtype():
    x = torch_tensor(np.arange(5, dtype=np.float32))
    out = rt.torch_quantile(x, [0.25, 0.5])
    assert out.dtype == rt.torch_float32() and out.tolist() == [1.0, 2.0]


def test_diff_bool_and_n_larger_than_size():
    b = torch_tensor([True, True, False, True])
    assert rt.torch_diff(b).tolist() == [False, True, True]
    x = torch_tensor([[1.0, 4.0, 9.0]])
    assert tuple(rt.torch_diff(x, n=10).shape) == (1, 0)
    assert rt.torch_diff(x, n=0).tolist() == [[1.0, 4.0, 9.0]]
    assert rt.torch_diff(torch_tensor([1, 4, 9]), prepend=torch_tensor([0]),
                         append=torch_tensor([5])).tolist() == [1, 3, 5, -4]


def test_tril_indices_and_triu_indices():
    assert rt.torch_tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert rt.torch_triu_indices(3, 4, 1).tolist() == [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    assert rt.torch_tril_indices(3, 4, -1).tolist() == [[1, 2, 2], [0, 0, 1]]
    assert tuple(rt.torch_tril_indices(0, 3).shape) == (2, 0)
    t = rt.torch_tril_indices(2, 2, dtype=rt.torch_int32())
    assert t.dtype == rt.torch_int32()
    assert rt.torch_tril_indices(3, 3).dtype == rt.torch_long()


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 2, 1), (2, 5, -1), (3, 3, 5),
                                            (3, 3, -5), (1, 1, 0)])
def test_triangle_indices_match_pytorch(row, col, offset):
    torch = pytest.importorskip("torch")
    for name in ("tril_indices", "triu_indices"):
        assert getattr(rt, "torch_" + name)(row, col, offset).tolist() == \
            getattr(torch, name)(row, col, offset).tolist()


def test_tril_and_triu_keep_dtype():
    x = torch_tensor(np.arange(9).reshape(3, 3))
    assert x.tril().dtype == rt.torch_long()
    assert x.triu(1).tolist() == [[0, 1, 2], [0, 0, 5], [0, 0, 0]]
    b = torch_tensor(np.ones((2, 2), dtype=bool))
    assert b.tril().tolist() == [[True, False], [True, True]]


def test_trace_of_integers_is_long():
    assert rt.torch_trace(torch_tensor(np.arange(6, dtype=np.int32).reshape(2, 3))).dtype == \
        rt.torch_long()


def test_var_mean_values_equal_var_and_mean():
    x = torch_tensor(_values((3, 4)))
    v, m = rt.torch_var_mean(x, 1)
    np.testing.assert_allclose(v.numpy(), x.var(1).numpy(), rtol=1e-15)
    np.testing.assert_allclose(m.numpy(), x.mean(1).numpy(), rtol=1e-15)
    s, m = rt.torch_std_mean(x, correction=0)
    np.testing.assert_allclose(s.numpy(), x.std(unbiased=False).numpy(), rtol=1e-15)


def test_var_mean_gradient_from_one_output_only():
    x = torch_tensor(_values((3, 4)), requires_grad=True)
    v, m = rt.torch_var_mean(x, 1)
    m.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 0.25))


# ------------------------------------------------------------------------- in-place triangles

def test_tril_inplace_values_version_and_history():
    a = torch_tensor(_values((3, 3)), requires_grad=True)
    y = a * 2
    v0 = y._version[0]
    out = y.tril_(-1)
    assert out is y and y._version[0] == v0 + 1
    assert y.grad_fn.name == "TrilBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), np.tril(_values((3, 3)) * 2, -1))
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.tril(np.full((3, 3), 2.0), -1))


def test_triu_inplace_through_a_view_rewrites_the_base():
    a = torch_tensor(_values((2, 3, 3)), requires_grad=True)
    y = a * 1.0
    y[1].triu_(1)
    assert y.grad_fn.name == "CopySlices"
    (y * torch_tensor(_values((2, 3, 3), 1))).sum().backward()
    expect = np.ones((2, 3, 3))
    expect[1] = np.triu(expect[1], 1)
    np.testing.assert_array_equal(a.grad.numpy(), expect * _values((2, 3, 3), 1))


def test_inplace_triangles_match_pytorch():
    torch = pytest.importorskip("torch")
    grads = []
    for L in (_Lib(), _Lib(torch)):
        a = L.tensor(_values((2, 3, 4)), requires_grad=True)
        y = a * 3
        y.triu_(-1)
        y[0].tril_(1)
        (y * L.tensor(_values((2, 3, 4), 2))).sum().backward()
        grads.append((y.detach().numpy(), a.grad.numpy(), L.grad_fn_name(y)))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert grads[0][2] == "CopySlices" and grads[1][2] == "torch::autograd::CopySlices"


def test_inplace_triangle_refusals():
    leaf = torch_tensor(_values((3, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.tril_()
    with rt.with_no_grad():
        leaf.tril_()  # allowed without grad: an update of the parameter
    np.testing.assert_array_equal(leaf.detach().numpy(), np.tril(_values((3, 3))))
    # a value saved for backward, then changed in place: libtorch's version error
    b = torch_tensor(_values((3, 3)), requires_grad=True)
    c = b * 1.0
    d = c * c
    c.triu_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        d.sum().backward()
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        torch_tensor([1.0, 2.0]).tril_()


# ------------------------------------------------------------------------- errors

def _m(*shape, dtype=np.float32):
    return torch_tensor(_values(shape).astype(dtype))


ERRORS = [
    (lambda: rt.torch_bmm(_m(3, 4), _m(3, 4)), "batch1 must be a 3D tensor"),
    (lambda: rt.torch_bmm(_m(2, 3, 4), _m(2, 3, 4)),
     r"Expected size for first two dimensions of batch2 tensor to be: \[2, 4\] but got: \[2, 3\]"),
    (lambda: rt.torch_bmm(_m(2, 3, 4), _m(2, 4, 5, dtype=np.float64)),
     "expected scalar type Float but found Double"),
    (lambda: rt.torch_einsum("ij,jk->ik", _m(3, 4)),
     "fewer operands were provided than specified in the equation"),
    (lambda: rt.torch_einsum("ij->ij", _m(3, 4), _m(3, 4)),
     "more operands were provided than specified in the equation"),
    (lambda: rt.torch_einsum("ij,jk->ik", _m(3, 4), _m(3, 4)),
     "subscript j has size 3 for operand 1 which does not broadcast with previously seen size 4"),
    (lambda: rt.torch_einsum("ij->k", _m(3, 4)),
     "output subscript k does not appear in the equation for any input operand"),
    (lambda: rt.torch_einsum("i1->i", _m(3, 4)),
     r"invalid subscript given at index 1 in the equation string, subscripts must be in "
     r"\[a-zA-Z\]"),
    (lambda: rt.torch_einsum("ijk->i", _m(3, 4)),
     r"the number of subscripts in the equation \(3\) does not match the number of dimensions "
     r"\(2\) for operand 0 and no ellipsis was given"),
    (lambda: rt.torch_einsum("ij->ii", _m(3, 4)), "output subscript i appears more than once"),
    (lambda: rt.torch_einsum("ii->i", _m(3, 4)),
     "subscript i is repeated for operand 0 but the sizes don't match, 3 != 4"),
    (lambda: rt.torch_einsum("i.j->ij", _m(3, 4)),
     "found '.' for operand 0 that is not part of any ellipsis"),
    (lambda: rt.torch_einsum("......->", _m(3, 4)),
     "found '.' for operand 0 for which an ellipsis was already found"),
    (lambda: rt.torch_einsum("ij->i.", _m(3, 4)),
     r"found '.' for output that is not part of any ellipsis \(...\)"),
    (lambda: rt.torch_einsum("ij->i->j", _m(3, 4)), "invalid subscript given at index 5"),
    (lambda: rt.torch_einsum("ij,jk", _m(3, 4), _m(4, 2, dtype=np.float64)),
     "expected scalar type Float but found Double"),
    (lambda: rt.torch_tensordot(_m(3, 4), _m(3, 4), dims=([0], [1])),
     "contracted dimensions need to match, but first has size 3 in dim 0 and second has size 4 "
     "in dim 1"),
    (lambda: rt.torch_tensordot(_m(3, 4), _m(3, 4), dims=3),
     "tensordot expects dims < ndim_a or ndim_b, but got dims=3"),
    (lambda: rt.torch_tensordot(_m(3, 4), _m(3, 4), dims=-1),
     "tensordot expects dims >= 0, but got dims=-1"),
    (lambda: rt.torch_tensordot(_m(3, 4), _m(4, 3, dtype=np.float64), dims=1),
     "both inputs should have same dtype"),
    (lambda: rt.torch_tensordot(_m(3, 4), _m(4, 3), dims=([0, 1], [1])),
     "both dimension lists should have same length"),
    (lambda: rt.torch_tril(_m(3)), "tril: input tensor must have at least 2 dimensions"),
    (lambda: rt.torch_triu(_m(3)), "triu: input tensor must have at least 2 dimensions"),
    (lambda: rt.torch_tril_indices(-1, 3), "row must be non-negative, got-1"),
    (lambda: rt.torch_triu_indices(3, -2), "col must be non-negative, got-2"),
    (lambda: rt.torch_tril_indices(3, 3, dtype=rt.torch_float32()),
     "\"tril_indices\" not implemented for 'Float'"),
    (lambda: rt.torch_diag(_m(2, 3, 4)), r"diag\(\): Supports 1D or 2D tensors. Got 3D"),
    (lambda: rt.torch_diag(torch_tensor(1.0)), r"diag\(\): Supports 1D or 2D tensors. Got 0D"),
    (lambda: rt.torch_diag_embed(_m(3, 4), dim1=0, dim2=0),
     "diagonal dimensions cannot be identical 0, 0"),
    (lambda: rt.torch_diag_embed(_m(3, 4), dim1=3),
     r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"),
    (lambda: rt.torch_trace(_m(2, 3, 4)), "trace: expected a matrix, but got tensor with dim 3"),
    (lambda: rt.torch_trace(torch_tensor(np.eye(2) > 0)), "\"trace\" not implemented for 'Bool'"),
    (lambda: rt.torch_cdist(_m(3), _m(3, 4)),
     "cdist only supports at least 2D tensors, X1 got: 1D"),
    (lambda: rt.torch_cdist(_m(3, 4), _m(3, 5)),
     "X1 and X2 must have the same number of columns. X1: 4 X2: 5"),
    (lambda: rt.torch_cdist(_m(3, 4), _m(3, 4), p=-1), "cdist only supports non-negative p values"),
    (lambda: rt.torch_cdist(torch_tensor(np.ones((2, 2), dtype=np.int64)), _m(2, 2)),
     "cdist only supports floating-point dtypes, X1 got: Long"),
    (lambda: rt.torch_repeat_interleave(_m(3, 4), -1), "Repeats must be non-negative"),
    (lambda: rt.torch_repeat_interleave(_m(3, 4), torch_tensor([1, 2]), dim=0),
     r"repeats must have the same size as input along dim, but got repeats.size\(0\) = 2 and "
     r"input.size\(0\) = 3"),
    (lambda: rt.torch_repeat_interleave(_m(3, 4), torch_tensor([1, -2, 3]), dim=0),
     "repeats can not be negative"),
    (lambda: rt.torch_repeat_interleave(_m(3, 4), 2, dim=2),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: rt.torch_diff(torch_tensor(1.0)), "diff expects input to be at least one-dimensional"),
    (lambda: rt.torch_diff(_m(3, 4), n=-1), "order must be non-negative but got -1"),
    (lambda: rt.torch_diff(_m(3, 4), prepend=_m(3)),
     "diff expects prepend or append to be the same dimension as input"),
    (lambda: rt.torch_diff(_m(3, 4), prepend=_m(2, 4)),
     r"diff expects the shape of tensor to prepend or append to match that of input except along "
     r"the differencing dimension; input.size\(0\) = 3, but got tensor.size\(0\) = 2"),
    (lambda: rt.torch_cumprod(_m(3, 4), 2),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: rt.torch_sort(_m(3, 4), 2),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: rt.torch_topk(_m(3, 4), 5), "selected index k out of range"),
    (lambda: rt.torch_topk(_m(3, 4), -1), "selected index k out of range"),
    (lambda: rt.torch_var_mean(torch_tensor([1, 2])),
     "var_mean only support floating point and complex dtypes"),
    (lambda: rt.torch_std_mean(torch_tensor([1, 2])),
     "std_mean only support floating point and complex dtypes"),
    (lambda: rt.torch_var_mean(_m(3, 4), 2),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda: rt.torch_quantile(_m(3, 4), 1.5), r"quantile\(\) q must be in the range \[0, 1\] "
                                               "but got 1.5"),
    (lambda: rt.torch_quantile(torch_tensor([1, 2]), 0.5),
     r"quantile\(\) input tensor must be either float or double dtype"),
    (lambda: rt.torch_quantile(_m(3, 4), torch_tensor(np.full((1, 1), 0.5, np.float32))),
     r"quantile\(\) q must be a scalar or 1D tensor"),
    (lambda: rt.torch_quantile(_m(0), 0.5), r"quantile\(\) input tensor must be non-empty"),
    (lambda: rt.torch_quantile(_m(3, 4), 0.5, interpolation="foo"),
     r"quantile\(\) interpolation must be one of linear, lower, higher, midpoint or nearest, "
     "but got foo"),
    (lambda: rt.torch_quantile(_m(3, 4), torch_tensor(np.array([0.5]))),
     r"quantile\(\) q tensor must be same dtype as the input tensor"),
    (lambda: rt.torch_nanquantile(_m(3, 4), torch_tensor(np.array([1.5], np.float32))),
     r"nanquantile\(\) q values must be in the range \[0, 1\]"),
    (lambda: rt.torch_quantile(_m(3, 4), 0.5, dim=3),
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)"),
]


@pytest.mark.parametrize("call,message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(call, message):
    with pytest.raises((RuntimeError, IndexError, TypeError), match=message):
        call()


# ------------------------------------------------------------------------- R face flags

def test_registry_flags_for_the_r_face():
    from rtorchpy.ops.registry import OPS
    for name in ("sort", "argsort", "topk", "tril_indices", "triu_indices"):
        assert OPS[name].returns_index, name
    for name in ("var_mean", "std_mean", "quantile", "cumprod", "diff"):
        assert not OPS[name].returns_index, name
    assert OPS["diag_embed"].dim_args == ("dim1", "dim2")
    assert OPS["tile"].dim_args == ()  # tile's dims are repetition counts
    assert not OPS["tril_"].namespace and OPS["tril_"].method


def test_r_bridge_converts_indices_and_tensordot_dims():
    from rtorchpy._r.ops import _PLANS as plans
    assert plans["tril_indices"].always_index and plans["triu_indices"].always_index
    conv = plans["tensordot"].conv["dims"]
    assert conv(2) == 2
    assert conv([[1, 3], [2, 1]]) == [[0, 2], [1, 0]]
    assert conv([2, 1]) == [1, 0]


# ------------------------------------------------------------------------- recorded values

def _record():  # pragma: no cover - run by hand with PyTorch installed
    import pprint
    import torch
    out = {k: {f: v for f, v in run(_Lib(torch), k).items() if f != "grad_fn"}
           for k in sorted(CASES)}
    print("RECORDED = " + pprint.pformat(out, width=100, compact=True))


# recorded from PyTorch 2.13.0 (CPU) by _record(): float64 values, indices and gradients
RECORDED = {'bmm': {'grads': [[[[2.416302559711104, 0.28779251916297466, -1.9307300450971812,
                      -3.5453804709456245],
                     [-2.8688204983957624, -0.9706254745442091, 1.2311509238233183,
                      3.047861712959431],
                     [2.95674972100815, 1.5301049138204792, -0.375108986259995,
                      -2.1630004951312563]],
                    [[2.2213204013611367, 2.7446302208197033, 2.4095053125417163,
                      1.3207622952516458],
                     [-0.8859677755777231, -1.7788310364880626, -2.115331431131883,
                      -1.7902221315510374],
                     [-0.5619795050333194, 0.5869662185396208, 1.5523272164980038,
                      2.0321686784022566]]],
                   [[[0.13144720150541778, 0.6941671925690832, 0.930409506305922, 0.729065691177524,
                      0.18483088952266624],
                     [0.700133916628666, 0.7823889151058491, 0.496674181644726,
                      -0.022634180192077663, -0.5312973334157269],
                     [0.14783582715963406, -0.3820726909101719, -0.7322864523944451,
                      -0.7380944530261615, -0.39676509935570947],
                     [-0.6411622876677956, -0.9347974983115005, -0.7887828388854768,
                      -0.2717912852597735, 0.3730279566795832]],
                    [[0.9877191713471208, 0.6911900376325335, 0.06958342907710913,
                      -0.5847493534443505, -0.9640653780802436],
                     [-0.00597296349567189, -0.3921110635972802, -0.5938332035847103,
                      -0.5162663090264912, -0.19589130244951203],
                     [-0.9901017831526008, -0.8476029221016163, -0.30646316262524786,
                      0.37881101085278246, 0.8859244468414273],
                     [-0.38897808532230116, 0.05400273093749097, 0.471585219021434,
                      0.6673738098772869, 0.5492860699444182]]]],
         'indices': None,
         'values': [[[[4.672828729315136, 3.506642202838655, -3.274031111326173,
                       -4.8126513862214155, 1.3542671588452855],
                      [2.8506892148678435, -1.4090100017540759, -3.412742518333126,
                       0.047668915517886656, 3.431757622133726],
                      [-0.7136879009170516, -5.46352652276773, -1.4657097803406742,
                       4.878855709263016, 3.4118826003405216]],
                     [[-1.7726841208575737, 6.006668933719222, 4.168741006767744,
                       -4.343760472297267, -5.901464635327706],
                      [1.245857043268905, 5.131742660424947, 0.8011922404372847, -4.81214752278367,
                       -2.720755202074011],
                      [3.502975680045288, 1.120481855554897, -3.056016093098758,
                       -2.3395249698201916, 2.122780888103788]]]]},
 'cdist_0': {'grads': [[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                       [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                        [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
             'indices': None,
             'values': [[[4.0, 4.0, 4.0, 4.0, 4.0], [4.0, 4.0, 4.0, 4.0, 4.0],
                         [4.0, 4.0, 4.0, 4.0, 4.0]]]},
 'cdist_1': {'grads': [[[-3.1804329553624244, 0.20298879388795832, 3.1804329553624244,
                         1.1904246248063728],
                        [2.84179310654825, 1.048276273879956, -0.8554232690318644,
                         -2.84179310654825],
                        [1.7275445897088901, -0.05083771554183325, 0.22214265309943682,
                         0.05083771554183325]],
                       [[0.7827924153866854, 0.5863009174989278, -0.7827924153866854,
                         1.2072159151693662],
                        [0.34986295782983984, -1.0435504608644912, -0.34986295782983984,
                         -0.34986295782983984],
                        [-0.3890869188892997, -0.3890869188892997, 0.3890869188892997,
                         0.3890869188892997],
                        [-1.2210552889879773, -1.2210552889879773, -0.7286319538203497,
                         1.2210552889879773],
                        [-0.9114179062339639, 0.8669643990167596, -1.0749519312824216,
                         -0.8669643990167596]]],
             'indices': None,
             'values': [[[4.561636594526828, 0.9119718918243491, 3.2137056222480718,
                          7.841413510241515, 10.297176100175724],
                         [7.280247489779583, 5.160515664175224, 1.189149282737488,
                          3.4385586052559547, 6.095158687409633],
                         [10.380817405273888, 9.492947269793948, 5.521580888356212,
                          0.924329978496578, 2.67255844307677]]]},
 'cdist_2': {'grads': [[[[-1.7434401395941717, -0.22031306011074037, 1.655557382851757,
                          0.8807139763212501],
                         [1.323029237969219, 0.9741116468060884, -0.9344566456172991,
                          -1.346865881311487],
                         [0.05022901568247179, 0.2460773949944014, 0.047931119868415695,
                          -0.22695769802468868]],
                        [[-1.4020041090203657, -1.0713392108775954, 0.9746474956137701,
                          1.4601255530198949],
                         [1.449384961181615, 1.2839012666801581, -0.9372374623260404,
                          -1.657764767418959],
                         [0.1495237231033095, -0.6553860884321636, -0.41095686807028675,
                          0.49145562307484497]]],
                       [[[0.3983993318087195, -0.21143387819639342, -0.4827401878401305,
                          0.018869086638333032],
                         [0.2249939851117993, -0.13311500320923028, -0.27809348561314573,
                          0.022183666975662115],
                         [-0.1530752262098234, -0.24061361131126724, 0.05709459092132227,
                          0.26338861177072503],
                         [-0.27148014198794745, -0.9207056483702798, -0.09578882738873597,
                          0.8824955385755446],
                         [0.17134393721973293, 0.5059921593974214, 0.03049605281781642,
                          -0.493827300945339]],
                        [[-0.45387632193067096, 0.09406884210813002, 0.4914003305567328,
                          0.1019504755471819],
                         [-0.700048330863405, -0.485399284548027, 0.5064228271123593,
                          0.6874110676967539],
                         [0.41602077373447754, 0.33415957757072806, -0.28272470470417665,
                          -0.44693830451546457],
                         [0.33222469321342113, 0.35204929399573215, -0.19179242628373808,
                          -0.42855518581921004],
                         [0.2087746105816184, 0.1479456035030377, -0.14975919189862036,
                          -0.20768446158504195]]]],
             'indices': None,
             'values': [[[[2.49413213328059, 0.5458326871400281, 1.7753605703897122,
                           3.983216476618596, 5.416137147598306],
                          [4.357367903567151, 2.8508448221359695, 0.6040542320555746,
                           1.80862255971351, 3.7060110307601453],
                          [5.734717511819408, 4.8221489566044, 2.904256377861168,
                           0.5620160642325183, 1.588463750865349]],
                         [[1.567548202530027, 3.6473059059428348, 5.36513663915798,
                           6.1420250591076915, 5.670692656637623],
                          [0.5531134401101723, 1.7915918480442408, 3.987069130707879,
                           5.375552440190623, 5.635826697992727],
                          [2.876908740998302, 0.6046384865194946, 1.7950700193334297,
                           3.658472643361476, 4.705266472808749]]]]},
 'cdist_3': {'grads': [[[-1.382295379578982, -0.2856537601446802, 1.4022549426313875,
                         0.8547759702728047],
                        [0.9515614306503353, 0.935966896677028, -0.7997386278729539,
                         -1.1037923485681518],
                        [-0.19970880066373822, 0.2233331707916707, 0.2144045827071901,
                         -0.3712840810970553]],
                       [[0.3244468634419829, -0.2233576609447579, -0.468519110243577,
                         -0.08423405470292739],
                        [0.1748015650877823, -0.017213714687788255, -0.27236786984129185,
                         0.038167648976548674],
                        [-0.07390572450165679, -0.21827158425418774, -0.0019145126607187854,
                         0.2590556412718459],
                        [-0.011834817087613234, -0.8728501175166105, -0.11736904239670229,
                         0.8428974860541452],
                        [0.21693486265188974, 0.45804677007932576, 0.04324963767666637,
                         -0.43558626220721003]]],
             'indices': None,
             'values': [[[2.097305783308205, 0.47795029973500547, 1.4969379932387277,
                          3.2078075382699556, 4.461519634779117],
                         [3.8154646004762616, 2.4037584242092644, 0.48646357296570314,
                          1.489845039401272, 3.222435609079152],
                         [4.835365089836107, 3.8834258354915288, 2.3923686755247355,
                          0.4886819178964812, 1.369791637984313]]]},
 'cdist_bcast': {'grads': [[[[-1.4837142040767635, -1.1797100843165245],
                             [-0.4642743870444743, -0.5579184353136801],
                             [-0.7555162879932837, -0.5278310379359947]]],
                           [[[1.0829795606108448, -1.6281518903195635],
                             [0.3221000860851403, -1.755683237949772],
                             [0.662890266976072, -0.2721194407649347],
                             [-0.1530282212339895, 0.468468036029204]],
                            [[0.5571093313337413, 0.4318076221021862],
                             [0.11674739548844776, 1.871547416683124],
                             [0.7462837175670919, 1.990674172933689],
                             [-0.6315772577128271, 1.1589168788522661]]]],
                 'indices': None,
                 'values': [[[[1.7189709017020862, 4.130144552444287, 0.3703413797800935,
                               4.054991629397192],
                              [3.3035612090321775, 1.8071619012596252, 3.895234522804923,
                               0.40097454379683545],
                              [2.9564254388498616, 3.115664719774936, 1.9566431365430323,
                               3.5977126493016365]],
                             [[1.2184974250332852, 3.296872245042369, 2.801818516678563,
                               2.2125042082073123],
                              [3.7452673497536555, 1.2911890566767277, 3.138869178864496,
                               2.8312234986314655],
                              [0.42489539355594025, 3.565774885098153, 1.30474003818511,
                               3.2112787767441295]]]]},
 'cdist_half': {'grads': [[[-11.435066559697072, 2.713228398601569, 12.747288342723934,
                            2.89098431863572],
                           [10.880223508258013, 1.5435785954106098, 6.603896229966875,
                            -11.89616310920497],
                           [16.92643999737618, -2.615299372101864, 9.114628657279273,
                            1.01991498636843]],
                          [[3.0631531819287967, 6.625822469513924, -2.7976166499380004,
                            9.526474799253679],
                           [0.9977115110865388, -7.055528357342012, -0.8901439655598401,
                            -2.9395599015707314],
                           [-1.6160009396730743, -1.3818908367776634, 2.4277125772307193,
                            1.2520179066812458],
                           [-5.760330453995924, -3.0501784708128645, -11.496184150321994,
                            3.3305716453744942],
                           [-13.056130245283459, 3.2202675735082997, -15.709581041380961,
                            -3.1842406455378653]]],
                'indices': None,
                'values': [[[17.130795178883442, 3.1992812011366043, 11.950157594311323,
                             31.105968268925768, 39.90877346234712],
                            [25.539777204185867, 19.18936663889802, 4.717215819257168,
                             13.326824274843887, 19.907731761330016],
                            [38.601047679038835, 37.657409109611066, 21.39999536607643,
                             3.0190047896334904, 8.904303179846101]]]},
 'cdist_inf': {'grads': [[[-0.5177639155876426, 0.0, 1.6917108746251914, 0.9709581651495905],
                          [0.11713698661675087, 0.9931849187581927, -0.896758416334147,
                           -0.8347127848391593],
                          [-0.7385020870054573, 0.08565246877880184, 0.0, -0.6020119026848222]],
                         [[0.6845466664428066, 0.0, -0.09824574894387883, 0.0],
                          [-0.34684375151732566, 0.0, -0.6967067093471655, 0.0],
                          [0.2129249837955225, 0.0, 0.0, 0.6020119026848222],
                          [0.5885011172553455, -0.9748436214041636, 0.0, 0.8347127848391593],
                          [0.0, -0.10399376613283096, 0.0, -0.9709581651495905]]],
               'indices': None,
               'values': [[[1.7675077870865092, 0.39299238128592917, 1.1942409114560428,
                            2.3820426788546327, 3.5294687039367334],
                           [3.137247784727162, 1.9176924257476622, 0.36123644535649935,
                            1.1786032273155103, 2.5575126500909304],
                           [3.8576018767583564, 2.8837409881817693, 1.8925816895931167,
                            0.387846442414437, 1.1601433819609288]]]},
 'cdist_mm': {'grads': [[[0.3277415854254415, 0.5457965219315588, -0.11002365738405058],
                         [0.9090898772746476, 0.9418434261450036, -0.5333890601386098],
                         [0.9128629050153663, -0.8993972187742564, -1.2716319537164038],
                         [-0.16941034038154526, -1.5896263247175115, -0.4646907135290674],
                         [-1.3681449524019387, -1.030745395990789, 0.9569811891021442],
                         [-1.1016499473670909, 0.4132413419619144, 1.266491688085024],
                         [-0.2317566874531442, 1.0258640129674148, 0.6409732697887485],
                         [0.609452763119309, 0.12706202220477092, -0.5587677933630498],
                         [0.07885905466089349, 0.32518263365943134, 0.0508561164523651],
                         [0.21902923493596949, 0.5194528623321295, -0.011819778008902215],
                         [0.5461170690302009, 1.0792216647452115, -0.11561614917426549],
                         [1.1908001750850912, -0.382419666112231, -1.3433471665052261],
                         [0.2687521361440144, -1.435753314023806, -0.8414733319508083],
                         [-1.0575274696482115, -1.4319811269183194, 0.48631099717289267],
                         [-1.305829576406496, -0.18872835305905822, 1.2305459416825615],
                         [-0.9951675821403718, 0.25767649826545025, 1.097954593513819],
                         [-0.3555541361385526, 0.35002305264718103, 0.4951781365252259],
                         [-0.10016894035888413, 0.27735224737715214, 0.2108045970740946],
                         [-0.4662804617807701, -0.5098100546962874, 0.26291751543890385],
                         [-0.21298180286546683, 0.9533992949394287, 0.5932922496153572],
                         [0.6177247775190231, 1.2121711769920256, -0.13419037141431922],
                         [1.504454422459269, 0.6400116050503146, -1.2491541503342807],
                         [0.7817339519127863, -1.1742085179335964, -1.250125074502427],
                         [-0.3638578436928128, -1.5457162777379156, -0.2527275169796353],
                         [-1.1493125189210858, -0.26347430486418477, 1.0442127657307056],
                         [-0.556372574306584, 0.2431477486034505, 0.6533640755468835],
                         [-0.1778233014797468, 0.3359173187721239, 0.3118205324944533],
                         [-0.2031040997753253, -0.5746995069070036, -0.026143212844763397],
                         [-0.44424564891313645, 0.7141288675676329, 0.7291112556984956],
                         [0.2871400103753176, 1.20542710131759, 0.19370418770610365]],
                        [[0.39102891147148755, 0.26278850064739145, -0.2862027252004675],
                         [0.0950033714434042, 0.5713249880784694, 0.13289784749890288],
                         [1.1311462341648335, -0.15431136164628612, -1.1927009502193222],
                         [0.3882514039940901, -0.8201614628243732, -0.7154133538610452]]],
              'indices': None,
              'values': [[[2.465551609338148, 2.917259652467058, 4.134326052295237,
                           1.9662416078219203],
                          [5.2696586670708205, 1.9925367559304419, 2.9209660064843144,
                           5.108041039392861],
                          [1.8763333047388344, 5.276353724383858, 2.4618182971178486,
                           2.3135940503962127],
                          [3.058330690422826, 2.3182466508331343, 4.179213505881635,
                           2.5832188479572453],
                          [5.0889136864743, 2.4223957669479246, 2.432567200291318,
                           4.982067454867834],
                          [1.4340937196593868, 5.339865158171226, 2.8877536637781644,
                           1.91702366064596],
                          [3.6187022501682717, 1.7095924000748466, 4.2081665212156505,
                           3.171068744852229],
                          [4.825106753580489, 2.851776441602347, 1.8773190713301438,
                           4.77766987125462],
                          [0.9764617591203545, 5.298493915452581, 3.2377155979705226,
                           1.4925163106370267],
                          [4.1270674467378425, 1.1086091540013323, 4.212437145818224,
                           3.709841429556166],
                          [4.4940193635895005, 3.2811233707816196, 1.2702672746418293,
                           4.510658998164793],
                          [0.49418564907075957, 5.149340241842881, 3.51341234164104,
                           1.0309076357270879],
                          [4.565094550516613, 0.5291717995027682, 4.179037183941768,
                           4.181056818779409],
                          [4.113083129109478, 3.704882369161768, 0.629728920341692,
                           4.198073667969702],
                          [0.019428663786329767, 4.894681463758208, 3.72175896799102,
                           0.5266296769076523],
                          [4.917047174939843, 0.019517165857838536, 4.093324023337248,
                           4.56899428492834],
                          [3.699641624946416, 4.1120280194106815, 0.023960127463790643,
                           3.856225884335611],
                          [0.5665295115815083, 4.541842066088343, 3.8738464864153914,
                           0.020793536403027484],
                          [5.170889746328034, 0.5337143491072718, 3.941588310870291,
                           4.861767275281204],
                          [3.2690279675277654, 4.487500508462003, 0.6698238987882074,
                           3.498591969154787],
                          [1.1437600886533383, 4.102705992671407, 3.983148924301714,
                           0.6062270437020664],
                          [5.319113478634545, 1.0152125349485914, 3.713171968954147,
                           5.052123215608231],
                          [2.832684555541885, 4.814086874329399, 1.2876693576023985,
                           3.1338929465910357],
                          [1.742272311302697, 3.5929039253928745, 4.063057953113538,
                           1.2192226745576622],
                          [5.35923841752455, 1.4704664780097156, 3.4019213919190303,
                           5.1379192400957185],
                          [2.3966883702245783, 5.074365525924111, 1.8594708951892556,
                           2.7648585942574515],
                          [2.3484772001694085, 3.0307200714314875, 4.124111500072245,
                           1.8448992409527607],
                          [5.293959077551708, 1.9086882447460922, 3.006969979358102,
                           5.122234115110056],
                          [1.961137993482994, 5.252473221860269, 2.3706313571242346,
                           2.3881713085867626],
                          [2.9452647316931864, 2.4357750595446186, 4.1715766814023025,
                           2.465187784123017]]]},
 'cdist_mm_forced': {'grads': [[[[-0.5922872747623442, 0.6575804394380043],
                                 [-0.015063806319146375, 1.464642883020407],
                                 [-1.307590611356578, 1.065263210546656]],
                                [[-1.3584322956151196, 1.0626660503868668],
                                 [-1.7449691715789795, 0.7619278891980392],
                                 [-1.6950421786647172, -0.28651814966700817]]],
                               [[[1.2527828804756171, -2.123087920948283],
                                 [1.9823060886003003, -2.062238138343123],
                                 [2.318377703921003, -1.3743703184528884],
                                 [1.1599186652999636, 0.8341340548213293]]]],
                     'indices': None,
                     'values': [[[[1.718970901702086, 4.130144552444288, 0.3703413797800924,
                                   4.054991629397193],
                                  [3.3035612090321775, 1.8071619012596252, 3.895234522804923,
                                   0.4009745437968363],
                                  [2.9564254388498616, 3.115664719774936, 1.9566431365430323,
                                   3.597712649301637]],
                                 [[1.8403279635990868, 3.2009691769147963, 2.877687160475625,
                                   2.0733701637957735],
                                  [3.9359545536777065, 1.6997618897504194, 3.39192868780908,
                                   2.7397735984504132],
                                  [0.2513692071093691, 4.170760924789613, 1.6183005620460373,
                                   3.4275268542345043]]]]},
 'cdist_mm_refused': {'grads': [[[-0.4789121449110416, 1.2350574042963351],
                                 [-0.4697257880942813, 1.584224507739889],
                                 [-0.37144399484919827, 0.02912482064798247],
                                 [0.49119372618789064, -0.891362206924449],
                                 [1.5557985446929776, -0.3643214215458145],
                                 [0.7079299807884818, -0.11761903728786827],
                                 [-1.2931212737155828, -0.031391594378623044],
                                 [-1.0416298553913486, -0.8911195158680361],
                                 [0.23678935786506344, -0.6385723545894815],
                                 [-0.7087101559429758, 1.002686497658006],
                                 [-0.8031376476093877, 1.4255257100559149],
                                 [-0.44821841548067115, -0.0008435591644859741],
                                 [0.6333615348379665, -0.728446607366987],
                                 [1.683078511675812, -0.022401432310506064],
                                 [1.1340216789354156, -0.5488375319268747],
                                 [-0.18799986804628827, -1.0129660693570715],
                                 [0.9272248475727016, -1.351194553923348],
                                 [0.40130368669509736, -0.6343596360029766],
                                 [-0.864372941030313, 0.7532886061779018],
                                 [-1.1193728425923606, 1.2120318284299305],
                                 [-0.5392452375414314, -0.06743543984132405],
                                 [0.17853204692905672, 1.3172197904931662],
                                 [0.35316882765883856, 1.7788936406600133],
                                 [-0.4147336452946388, 0.38899245554595374],
                                 [0.011524021708152529, -0.9105270350016791],
                                 [1.2059776305613863, -1.0790229080843445]],
                                [[-0.4064867439519405, -0.05257914395391777],
                                 [-0.14278149540639828, -0.27891904559057645],
                                 [-0.23001234625098332, -1.105126168586729]]],
                      'indices': None,
                      'values': [[[1.7189709017020862, 4.130144552444287, 0.3703413797800935],
                                  [3.3035612090321775, 1.8071619012596252, 3.895234522804923],
                                  [2.9564254388498616, 3.115664719774936, 1.9566431365430323],
                                  [1.8403279635990868, 3.2009691769147968, 2.877687160475625],
                                  [3.935954553677706, 1.6997618897504194, 3.39192868780908],
                                  [0.25136920710936733, 4.1707609247896125, 1.6183005620460373],
                                  [4.285938493519405, 0.23932230249372827, 4.214532906805307],
                                  [1.1777371048708385, 4.330919259869174, 0.24484315433549125],
                                  [3.7581664279114997, 1.2049059562348408, 4.157531961404425],
                                  [2.462929509508044, 3.607709149671643, 1.2980217399830472],
                                  [2.4838248987804263, 2.6532660336224145, 3.344328431890175],
                                  [3.5863206067101383, 2.302493323106201, 2.849875862958087],
                                  [0.8942837157473168, 3.852070770279538, 2.1497443274181274],
                                  [4.241321230477777, 0.8349563170227459, 3.9755143035550224],
                                  [0.6126905811319608, 4.377238691414896, 0.8280074925826166],
                                  [4.082453510879464, 0.6075915367896336, 4.28843563488691],
                                  [1.9465101361273045, 3.9996308970223455, 0.6448001706737518],
                                  [3.0744018318097277, 2.0657135460193734, 3.748124996004275],
                                  [3.157929002015016, 2.8810764418652295, 2.235010901006768],
                                  [1.5555888007800698, 3.416739827121611, 2.6640341691835734],
                                  [4.054794498740105, 1.4384004736071583, 3.594386595300459],
                                  [0.016112605452874195, 4.265615683488423, 1.3846866625466387],
                                  [4.258096741674291, 0.015510916659754848, 4.270269425408227],
                                  [1.4132403869441268, 4.262742280507537, 0.016068234176121056],
                                  [3.5769243236847186, 1.4640190507558994, 4.059311152524646],
                                  [2.679014036262448, 3.406222530802695, 1.5824735824126628]]]},
 'cumprod': {'grads': [[[2.863693196334587, 0.5549639321660407, 1.4048606123201017,
                         -0.1404102792938819],
                        [-3.9091897229774983, 1.8587475579839132, 0.9635228745954727,
                         -0.6558829837654279],
                        [1.1425101456502178, -4.6723654668539885, -0.17684403881276373,
                         -0.02624386548239101]]],
             'indices': None,
             'values': [[[0.5910404133226791, 1.17626894872465, 0.2385896562928004,
                          -0.45552862385594595],
                         [-0.9644369434898631, -1.4703248048554372, -2.3121974566132573,
                          2.074601844235959],
                         [-1.9304855059239703, -0.24550547222851873, -0.48639905330582683,
                          -0.3225470329858208]]]},
 'cumprod_zeros': {'grads': [[[0.9950041652780258, 1.257271669023857, 0.0, 0.0, 0.0],
                              [-0.6963588302941588, -0.8015983441599526, -8.588437918610826, 0.0,
                               0.0],
                              [2.0454714301551458, 0.0, 0.0, 0.0, 0.0]]],
                   'indices': None,
                   'values': [[[1.5, 0.0, 0.0, 0.0, -0.0], [2.0, -1.0, -0.0, -0.0, -0.0],
                               [0.0, 0.0, 0.0, -0.0, -0.0]]]},
 'cumprod_zeros_dim0': {'grads': [[[0.9950041652780258, 1.1821857919219607, 0.5860209235857309],
                                   [-2.0851491921229472, -1.941916330299181, 0.0],
                                   [0.0, 1.8523692557863658, 0.0], [0.0, 0.0, 0.0],
                                   [0.0, 0.0, 0.0]]],
                        'indices': None,
                        'values': [[[1.5, 2.0, 0.0], [0.0, -1.0, 0.0], [0.0, -0.0, 0.0],
                                    [0.0, -0.0, -0.0], [-0.0, -0.0, -0.0]]]},
 'diag_embed': {'grads': [[[0.6967067093471655, 0.6845466664428066, 0.6721930835534694],
                           [-0.896758416334147, -0.8891911526253617, -0.8813724903622346]]],
                'indices': None,
                'values': [[[[0.0, 0.5910404133226791, 0.0, 0.0],
                             [0.0, -1.9092555433204328, 0.0, 0.0]],
                            [[0.0, 0.0, 1.9901666996203604, 0.0],
                             [0.0, 0.0, -0.9644369434898631, 0.0]],
                            [[0.0, 0.0, 0.0, 0.20283597263320371],
                             [0.0, 0.0, 0.0, 1.5245421847228224]],
                            [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]},
 'diag_embed_default': {'grads': [[[0.9950041652780258, -0.9709581651495905, 0.8347127848391593],
                                   [0.9931849187581927, -0.9748436214041636, 0.8438539587324911]]],
                        'indices': None,
                        'values': [[[[0.5910404133226791, 0.0, 0.0], [0.0, 1.9901666996203604, 0.0],
                                     [0.0, 0.0, 0.20283597263320371]],
                                    [[-1.9092555433204328, 0.0, 0.0],
                                     [0.0, -0.9644369434898631, 0.0],
                                     [0.0, 0.0, 1.5245421847228224]]]]},
 'diag_mat': {'grads': [[[0.9950041652780258, 0.0, 0.0, 0.0], [0.0, 0.6967067093471655, 0.0, 0.0],
                         [0.0, 0.0, 0.0707372016677029, 0.0]]],
              'indices': None,
              'values': [[0.5910404133226791, 1.5245421847228224, 1.9812147113897411]]},
 'diag_mat_off': {'grads': [[[0.0, 0.9950041652780258, 0.0, 0.0],
                             [0.0, 0.0, 0.6967067093471655, 0.0],
                             [0.0, 0.0, 0.0, 0.0707372016677029]]],
                  'indices': None,
                  'values': [[1.9901666996203604, 1.5725759702738562, 0.6631325262531239]]},
 'diag_vec': {'grads': [[0.6967067093471655, -0.4007991720799763, 0.05395542056265064]],
              'indices': None,
              'values': [[[0.0, 0.5910404133226791, 0.0, 0.0], [0.0, 0.0, 1.9901666996203604, 0.0],
                          [0.0, 0.0, 0.0, 0.20283597263320371], [0.0, 0.0, 0.0, 0.0]]]},
 'diag_vec_neg': {'grads': [[0.6845466664428066, 0.2997453432770132, -0.9784534628188839]],
                  'indices': None,
                  'values': [[[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0],
                              [0.5910404133226791, 0.0, 0.0, 0.0, 0.0],
                              [0.0, 1.9901666996203604, 0.0, 0.0, 0.0],
                              [0.0, 0.0, 0.20283597263320371, 0.0, 0.0]]]},
 'diff': {'grads': [[[-0.9950041652780258, 0.2982974559308603, 0.6259695076794626,
                      0.6592383189230484, -0.5885011172553455],
                     [0.9709581651495905, -0.07419974881544356, -0.4959592442541707,
                      -0.6844613575432017, 0.2836621854632254],
                     [-0.8347127848391593, -0.15847213391903336, 0.3086382523153861,
                      0.6305912458801559, 0.05395542056265064]]],
          'indices': None,
          'values': [[[1.3991262862976814, -1.7873307269871568, -2.1120915159536366,
                       0.9448185998305697],
                      [0.04803378555103377, -2.4698184779594623, -1.0332429982383644,
                       2.0576584225167913],
                      [-1.3180821851366171, -2.3798240429516633, 0.36877170235657064,
                       2.526926869245293]]]},
 'diff_n2_dim0': {'grads': [[[0.9950041652780258, 0.6967067093471655, 0.0707372016677029],
                             [-2.5785094478113972, -2.364371583843922, -1.0382328196695527],
                             [2.172006399788717, 2.6386230396463466, 1.864254034335997],
                             [-0.5885011172553455, -0.9709581651495905, -0.896758416334147]]],
                  'indices': None,
                  'values': [[[5.982127470237401, 3.0217980789144807, -4.776733902736411],
                              [-4.927234567275324, 2.81126278327109, 6.048645722823887]]]},
 'diff_prepend_append': {'grads': [[[0.2982974559308603, 0.6259695076794626, 0.6592383189230484,
                                     0.38245704789424506],
                                    [-0.6844613575432017, -0.5510505993759339, -0.15847213391903336,
                                     0.3086382523153861],
                                    [0.3728317187193414, -0.08565246877880184, -0.5038529618535321,
                                     -0.6850835340488428]],
                                   [[-0.9950041652780258], [0.4007991720799763],
                                    [0.6020119026848222]],
                                   [[-0.07419974881544356, -0.896758416334147],
                                    [0.6305912458801559, 0.05395542056265064],
                                    [-0.544108615455478, 0.8438539587324911]]],
                         'indices': None,
                         'values': [[[-1.336075957511707, 1.3991262862976814, -1.7873307269871568,
                                      -2.1120915159536366, 3.4006659676738735,
                                      -2.4997275200606635],
                                     [-1.873048283150476, 2.4889791282126854, 0.04803378555103377,
                                      -2.4698184779594623, -0.996385043499612, 2.1465776733780233],
                                     [-0.36581369147066467, 2.0576584225167913, 1.8540417947969203,
                                      -1.3180821851366171, 1.3313966875274077,
                                      -1.4518627455532662]]]},
 'einsum_batch': {'grads': [[[[2.550524432486152, -2.6247377922501043, 2.2813008670486608,
                               -1.5748616030886942],
                              [-0.3983999691803032, 0.7913493211967726, -1.0583785639814276,
                               1.15699780019199],
                              [-2.685954241472392, 2.893744558569825, -2.641080028302227,
                               1.968164823969687]],
                             [[0.7376741303590579, -0.870017892486252, 0.8639237421504371,
                               -0.7203613852139973],
                              [1.2328344562044196, -0.13546321939998274, -0.9834630284809006,
                               1.945899887093744],
                              [-0.31859142997898243, 0.8239692997472838, -1.1982365443482696,
                               1.3818394735724464]]],
                            [[[2.3942867672161032, 2.7105331652717517],
                              [1.9645864219398517, 0.3753243300481512],
                              [-1.610614339753056, -2.5608164994483404],
                              [-2.607059583336729, -1.39683260273006]],
                             [[1.0531193458410484, -0.8789610961260419],
                              [-2.1065078033265183, -2.445025987055317],
                              [-1.8934041331464135, -0.09635840577395183],
                              [1.351229951143107, 2.4065886727605443]]]],
                  'indices': None,
                  'values': [[[[-1.4185424043908634, 1.671859875406148],
                               [-2.574307330935167, 1.5797963829451436],
                               [-2.1567492147702225, 0.5222187802580662]],
                              [[0.8008162212585197, -0.22521518199353108],
                               [2.006788476798771, 2.0115897995760346],
                               [1.9862845791425427, 3.018984234036539]]]]},
 'einsum_broadcast': {'grads': [[[1.9174888159556867, 0.6330356165304654, -0.1106805056827541,
                                  0.9020298268795267],
                                 [-1.8711493754550932, -0.814804866017299, 0.6271191678097592,
                                  -0.43478549920006504],
                                 [1.6085886726083043, 0.9024190795635985, -1.071090874661028,
                                  -0.0827006053893736]],
                                [[-0.08688533458432235, 0.14572267997265445, 0.740294828372287,
                                  0.9048648440921928]]],
                      'indices': None,
                      'values': [[[1.1390036563388568, 1.8082880310899963, -0.3173717293363959,
                                   2.9264268099305184],
                                  [-1.8585822224367927, 1.3852163168301213, -2.460565296774062,
                                   1.3752556794644692],
                                  [-3.720270222124585, 0.11555075411395038, -3.0999508172917687,
                                   -1.0164217200538463]]]},
 'einsum_diag': {'grads': [[[0.9950041652780258, 0.0, 0.0], [0.0, 0.6967067093471655, 0.0],
                            [0.0, 0.0, 0.0707372016677029]]],
                 'indices': None,
                 'values': [[0.5910404133226791, -0.9644369434898631, -1.9304855059239703]]},
 'einsum_ellipsis': {'grads': [[[[2.416302559711104, 0.28779251916297466, -1.9307300450971812,
                                  -3.5453804709456245],
                                 [-2.8688204983957624, -0.9706254745442091, 1.2311509238233183,
                                  3.047861712959431],
                                 [2.95674972100815, 1.5301049138204792, -0.375108986259995,
                                  -2.1630004951312563]],
                                [[-2.668915599370796, -1.8951284830631836, -0.5286042865312324,
                                  1.0032508435985055],
                                 [2.041898000682861, 2.0193065686590828, 1.3651390243655004,
                                  0.2839985720953495],
                                 [-1.1553824756395439, -1.886857796758872, -2.0281828503661785,
                                  -1.5351555676379622]]],
                               [[1.1191663728525385, 1.3853572302016168, 0.9999929353830312,
                                 0.14431633773317343, -0.7792344885575774],
                                [0.6941609531329942, 0.39027785150856875, -0.09715902193998427,
                                 -0.5389004892185689, -0.727188635865239],
                                [-0.8422659559929667, -1.229675613011788, -1.0387496150196929,
                                 -0.35928344217337915, 0.4891593474857179],
                                [-1.0301403729900969, -0.8807947673740095, -0.31719761986404293,
                                 0.3955825246175134, 0.9223140266240013]]],
                     'indices': None,
                     'values': [[[[4.672828729315136, 3.506642202838655, -3.274031111326173,
                                   -4.8126513862214155, 1.3542671588452855],
                                  [2.8506892148678435, -1.4090100017540759, -3.412742518333126,
                                   0.047668915517886656, 3.431757622133726],
                                  [-0.7136879009170516, -5.46352652276773, -1.4657097803406742,
                                   4.878855709263016, 3.4118826003405216]],
                                 [[-3.8418849202844525, -6.178934278705928, 1.3771114843839831,
                                   6.728263281391813, 1.3067889841596405],
                                  [-4.622061561554669, -3.1180020602936027, 3.37829227956384,
                                   4.465600965508131, -1.596966546249662],
                                  [-2.5774022276373643, 1.8485396514859378, 3.314783663121008,
                                   -0.5262742979323465, -3.5247141869026084]]]]},
 'einsum_implicit': {'grads': [[[2.550524432486152, -2.6247377922501043, 2.2813008670486608,
                                 -1.5748616030886942],
                                [-0.3983999691803032, 0.7913493211967726, -1.0583785639814276,
                                 1.15699780019199],
                                [-2.685954241472392, 2.893744558569825, -2.641080028302227,
                                 1.968164823969687]],
                               [[2.3942867672161032, 2.7105331652717517],
                                [1.9645864219398517, 0.3753243300481512],
                                [-1.610614339753056, -2.5608164994483404],
                                [-2.607059583336729, -1.39683260273006]]],
                     'indices': None,
                     'values': [[[-1.4185424043908634, 1.671859875406148],
                                 [-2.574307330935167, 1.5797963829451436],
                                 [-2.1567492147702225, 0.5222187802580662]]]},
 'einsum_mm': {'grads': [[[2.416302559711104, 0.28779251916297466, -1.9307300450971812,
                           -3.5453804709456245],
                          [-2.8688204983957624, -0.9706254745442091, 1.2311509238233183,
                           3.047861712959431],
                          [2.95674972100815, 1.5301049138204792, -0.375108986259995,
                           -2.1630004951312563]],
                         [[0.13144720150541778, 0.6941671925690832, 0.930409506305922,
                           0.729065691177524, 0.18483088952266624],
                          [0.700133916628666, 0.7823889151058491, 0.496674181644726,
                           -0.022634180192077663, -0.5312973334157269],
                          [0.14783582715963406, -0.3820726909101719, -0.7322864523944451,
                           -0.7380944530261615, -0.39676509935570947],
                          [-0.6411622876677956, -0.9347974983115005, -0.7887828388854768,
                           -0.2717912852597735, 0.3730279566795832]]],
               'indices': None,
               'values': [[[4.672828729315136, 3.506642202838655, -3.274031111326173,
                            -4.8126513862214155, 1.3542671588452855],
                           [2.8506892148678435, -1.4090100017540759, -3.412742518333126,
                            0.047668915517886656, 3.431757622133726],
                           [-0.7136879009170516, -5.46352652276773, -1.4657097803406742,
                            4.878855709263016, 3.4118826003405216]]]},
 'einsum_only_here': {'grads': [[[1.9174888159556867, 0.6330356165304654, -0.1106805056827541],
                                 [1.9174888159556867, 0.6330356165304654, -0.1106805056827541]],
                                [-1.3116295450802793, 0.7146328030731495, 0.12218989707327826]],
                      'indices': None,
                      'values': [[-2.5403539573002494, 0.931989687847485, -2.702779915717261]]},
 'einsum_outer': {'grads': [[3.3418737536829246, -2.4936205728626977, 1.3572162721215013],
                            [-1.174971154319269, -1.1714632873343305, -0.6169979316972666,
                             0.2276511920756469]],
                  'indices': None,
                  'values': [[[1.1390036563388568, 0.5370260217426818, -0.924784275928828,
                               -0.9059219533765762],
                              [3.8352828275278363, 1.8082880310899963, -3.113957740959536,
                               -3.05044403635522],
                              [0.39088852345556235, 0.18429906482561864, -0.3173717293363959,
                               -0.3108984705629414]]]},
 'einsum_repeated': {'grads': [[[[0.4875770125303558, -2.076411628711052], [0.0, 0.0], [0.0, 0.0]],
                                [[0.0, 0.0], [-1.0326713362436202, -2.6087249799136467],
                                 [0.0, 0.0]],
                                [[0.0, 0.0], [0.0, 0.0],
                                 [-2.067238219647488, -1.9141142106106221]]],
                               [[-0.7889892791186324, 1.9334682358698707, -1.1632185353742917,
                                 -0.7589755431057451],
                                [1.9274076494101202, 0.49811614269824345, -2.430351637969151,
                                 1.9557909717749715]]],
                     'indices': None,
                     'values': [[[3.036140973358876, -3.599041942187765, -2.780128273940531],
                                 [4.3442370752453545, -1.5107778164362922, -4.236770056738731],
                                 [-1.303227228148883, 2.996393514232683, 1.090083062445713],
                                 [-4.864093689346824, 2.706037517261583, 4.671603582076684]]]},
 'einsum_sum_all': {'grads': [[[[0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258],
                                [0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258],
                                [0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258]],
                               [[0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258],
                                [0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258],
                                [0.9950041652780258, 0.9950041652780258, 0.9950041652780258,
                                 0.9950041652780258]]]],
                    'indices': None,
                    'values': [0.7186225697670316]},
 'einsum_three': {'grads': [[[0.3059874662907669, 2.28175965319898, 2.8630033014349645],
                             [0.43232336994988296, -1.0560720431602324, -1.899034620688341]],
                            [[-0.8724936882130035, -0.4694996329711175, 1.736785813472269,
                              -2.727713306998173],
                             [0.881193150359057, -3.1263221592253383, 4.873988395029343,
                              -5.846101869672792],
                             [1.224001144181176, -0.7775885318409295, 0.20744543759575274,
                              0.39570653333891714]],
                            [[2.5088830952140246, 5.277592924611617],
                             [4.610682839285256, 3.8118843486741185],
                             [-0.6696842834065446, -3.7570343849754835],
                             [-4.877819526249046, -5.310563268397416]]],
                  'indices': None,
                  'values': [[[2.4666905711152545, 4.088213397769369],
                              [-1.5007491716595105, 4.411037487847385]]]},
 'einsum_trace': {'grads': [[[0.9950041652780258, 0.0, 0.0], [0.0, 0.9950041652780258, 0.0],
                             [0.0, 0.0, 0.9950041652780258]]],
                  'indices': None,
                  'values': [-2.3038820360911543]},
 'kron_mat': {'grads': [[[0.3041002535014936, -4.811546309524515, -1.9397098118256533],
                         [0.13799724404784142, -4.847104624728922, -1.7856942928552828]],
                        [[-2.8878435318477447, -2.974937615525686],
                         [2.4523953723533527, 0.6298504122537651],
                         [0.4832167928435753, 2.3573556546590657]]],
              'indices': None,
              'values': [[[1.1390036563388568, 0.5370260217426818, 3.8352828275278363,
                           1.8082880310899963, 0.39088852345556235, 0.18429906482561864],
                          [-0.924784275928828, -0.9059219533765762, -3.113957740959536,
                           -3.05044403635522, -0.3173717293363959, -0.3108984705629414],
                          [0.5634125142357593, 1.1306668909183026, 1.8971373170200188,
                           3.807211053502673, 0.19335450291169431, 0.38802747388166503],
                          [-3.679357613639106, -1.73477123697083, -1.8585822224367927,
                           -0.8762983432425113, 2.9379702022069716, 1.3852163168301213],
                          [2.9873583352222135, 2.9264268099305184, 1.5090273022960843,
                           1.4782484920838594, -2.3854081863808654, -2.336754311308101],
                          [-1.8200083137012952, -3.652427110692491, -0.9193548036736671,
                           -1.844978610264842, 1.4532781955203127, 2.9164661725648657]]]},
 'kron_mixed': {'grads': [[2.7428581010958464, -3.2267637194759056, -3.8397457215227933],
                          [[0.5319212524728358, -0.9413283703878814],
                           [1.5631797687094768, 2.155203467426566]]],
                'indices': None,
                'values': [[[1.1390036563388568, 0.5370260217426818, 3.8352828275278363,
                             1.8082880310899963, 0.39088852345556235, 0.18429906482561864],
                            [-0.924784275928828, -0.9059219533765762, -3.113957740959536,
                             -3.05044403635522, -0.3173717293363959, -0.3108984705629414]]]},
 'nanquantile': {'grads': [[[0.0, 0.0, 0.19900083305560512, 0.0, 0.7960033322224207],
                            [0.0, 0.0, 0.5573653674777325, 0.0, 0.13934134186943306],
                            [0.0, 0.014147440333540578, 0.0, 0.056589761334162325, 0.0]]],
                 'indices': None,
                 'values': [[-0.7309823602652498, -0.6923594228299206, -0.9457093462229502]]},
 'quantile': {'grads': [[[0.0, 0.0, 0.19900083305560512, 0.0, 0.7960033322224207],
                         [0.0, 0.0, 0.5573653674777325, 0.0, 0.13934134186943306],
                         [0.0, 0.014147440333540578, 0.0, 0.056589761334162325, 0.0]]],
              'indices': None,
              'values': [[-0.7309823602652498, -0.6923594228299206, -0.9457093462229502]]},
 'quantile_all': {'grads': [[[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0],
                             [0.0, 0.8955037487502235, 0.0, 0.0, 0.09950041652780223]]],
                  'indices': None,
                  'values': [0.7147199791181438]},
 'quantile_higher': {'grads': [[0.9950041652780258, 0.0, 0.0, 0.0, 0.0, 0.0]],
                     'indices': None,
                     'values': [0.5910404133226791]},
 'quantile_lower': {'grads': [[0.0, 0.0, 0.9950041652780258, 0.0, 0.0, 0.0]],
                    'indices': None,
                    'values': [0.20283597263320371]},
 'quantile_midpoint_dim0': {'grads': [[[[0.0, 0.0], [0.4975020826390129, 0.34835335467358275],
                                        [0.4975020826390129, 0.34835335467358275]],
                                       [[0.03536860083385145, -0.29425055862767274],
                                        [0.03536860083385145, -0.29425055862767274], [0.0, 0.0]],
                                       [[-0.4854790825747953, -0.4483792081670735], [0.0, 0.0],
                                        [-0.4854790825747953, -0.4483792081670735]],
                                       [[-0.20039958603998814, 0.0], [0.0, 0.1418310927316127],
                                        [-0.20039958603998814, 0.1418310927316127]]]],
                            'indices': None,
                            'values': [[[-0.38080048542832967, -0.19235667929880518],
                                        [-0.17895476782505715, -0.3850347955463924],
                                        [-1.0852048027487498, -1.6735663887191126],
                                        [-1.0001048984659628, -0.3303770842901863]]]},
 'quantile_nearest': {'grads': [[[0.0, 0.0, 0.9950041652780258, 0.0, 0.0, 0.0707372016677029],
                                 [-0.5885011172553455, 0.0, 0.0, 0.6967067093471655, 0.0, 0.0]]],
                      'indices': None,
                      'values': [[[0.20283597263320371, 0.1271729165928209],
                                  [1.5245421847228224, 1.5725759702738562]]]},
 'quantile_q_dim0': {'grads': [[[-0.41449031025166555, 0.19856352982425785, -0.42715804766676263],
                                [0.6965029156946181, 0.48769469654301584, 0.5842989493874117],
                                [-0.2805594204559835, -0.2764670697706456, 0.049516041167392034],
                                [0.004250690955735048, -0.4003804269358277, -0.19796537271532583]]],
                     'indices': None,
                     'values': [[[[-1.2983270053464566, -0.9442786127485859, -1.290489062356818]],
                                 [[0.35910666495775, 0.5419861018520675, 0.4329842494431638]],
                                 [[1.2781153031885033, 1.9874811031511745, 1.2661192871819131]]]]},
 'repeat_interleave': {'grads': [[[1.6917108746251914, -0.5177639155876426, -1.8677165814837375],
                                  [-0.11713698661675087, 1.827897703597352, 0.7385020870054573]]],
                       'indices': None,
                       'values': [[0.5910404133226791, 0.5910404133226791, 1.9901666996203604,
                                   1.9901666996203604, 0.20283597263320371, 0.20283597263320371,
                                   -1.9092555433204328, -1.9092555433204328, -0.9644369434898631,
                                   -0.9644369434898631, 1.5245421847228224, 1.5245421847228224]]},
 'repeat_interleave_dim': {'grads': [[[1.7624480762928942, -2.456217698739083, 0.7175757982224085],
                                      [1.73168700576365, -2.466046676714347, 0.7582611112376747]]],
                           'indices': None,
                           'values': [[[0.5910404133226791, 0.5910404133226791, 0.5910404133226791,
                                        1.9901666996203604, 1.9901666996203604, 1.9901666996203604,
                                        0.20283597263320371, 0.20283597263320371,
                                        0.20283597263320371],
                                       [-1.9092555433204328, -1.9092555433204328,
                                        -1.9092555433204328, -0.9644369434898631,
                                        -0.9644369434898631, -0.9644369434898631,
                                        1.5245421847228224, 1.5245421847228224,
                                        1.5245421847228224]]]},
 'repeat_interleave_tensor': {'grads': [[[0.9950041652780258, 0.6967067093471655], [0.0, 0.0],
                                         [-0.9002209634818876, -1.4852595335894925]]],
                              'indices': None,
                              'values': [[[0.5910404133226791, 1.9901666996203604],
                                          [-0.9644369434898631, 1.5245421847228224],
                                          [-0.9644369434898631, 1.5245421847228224]]]},
 'sort': {'grads': [[[0.0707372016677029, -0.5885011172553455, 0.6967067093471655,
                      0.9950041652780258],
                     [-0.9709581651495905, -0.4007991720799763, 0.2836621854632254,
                      -0.896758416334147],
                     [0.8347127848391593, 0.9931849187581927, 0.05395542056265064,
                      0.6845466664428066]]],
          'indices': [[3, 2, 0, 1], [0, 3, 1, 2], [0, 1, 3, 2]],
          'values': [[[-1.9092555433204328, 0.20283597263320371, 0.5910404133226791,
                       1.9901666996203604],
                      [-0.9644369434898631, -0.8972425076856059, 1.5245421847228224,
                       1.5725759702738562],
                      [-1.9304855059239703, 0.1271729165928209, 0.6631325262531239,
                       1.9812147113897411]]]},
 'sort_desc_dim0': {'grads': [[[0.9950041652780258, 0.6967067093471655, 0.6845466664428066,
                                0.05395542056265064],
                               [-0.9709581651495905, -0.896758416334147, -0.4007991720799763,
                                0.2836621854632254],
                               [0.8347127848391593, 0.9931849187581927, 0.0707372016677029,
                                -0.5885011172553455]]],
                    'indices': [[0, 0, 2, 2], [1, 1, 1, 1], [2, 2, 0, 0]],
                    'values': [[[0.5910404133226791, 1.9901666996203604, 1.9812147113897411,
                                 0.6631325262531239],
                                [-0.9644369434898631, 1.5245421847228224, 1.5725759702738562,
                                 -0.8972425076856059],
                                [-1.9304855059239703, 0.1271729165928209, 0.20283597263320371,
                                 -1.9092555433204328]]]},
 'sort_stable': {'grads': [[[0.6967067093471655, 0.9950041652780258, 0.0707372016677029,
                             -0.5885011172553455],
                            [0.2836621854632254, -0.896758416334147, -0.9709581651495905,
                             -0.4007991720799763],
                            [0.05395542056265064, 0.6845466664428066, 0.8347127848391593,
                             0.9931849187581927]]],
                 'indices': [[1, 0, 2, 3], [2, 1, 3, 0], [2, 3, 1, 0]],
                 'values': [[[1.9901666996203604, 0.5910404133226791, 0.20283597263320371,
                              -1.9092555433204328],
                             [1.5725759702738562, 1.5245421847228224, -0.8972425076856059,
                              -0.9644369434898631],
                             [1.9812147113897411, 0.6631325262531239, 0.1271729165928209,
                              -1.9304855059239703]]]},
 'std_mean': {'grads': [[[0.3253136410139389, 0.6130069612780686, 0.24548966402415018,
                          -0.18880610103813186],
                         [-0.032338561504310526, 0.37134751704456626, 0.37913808881238925,
                          -0.021440335005479483],
                         [-0.01336030585077171, 0.016479409008789466, 0.04336631982403566,
                          0.024251778685649497]]],
              'indices': None,
              'values': [[1.6129866824135912, 1.4318786718996555, 1.625942690603827],
                         [0.21869688556395261, 0.3088596759553024, 0.21025866207792904]]},
 'std_mean_biased': {'grads': [[[0.10409335477377915, 0.18994731932065617, 0.08027213819433213,
                                 -0.04933119490455212],
                                [0.008645288967915998, 0.16137540913236836, 0.16432288496935177,
                                 0.012768511271566349],
                                [-0.05063391966538752, 0.07562925971051149, 0.18939800244504418,
                                 0.10851711106243984]]],
                     'indices': None,
                     'values': [1.351264023317224, 0.245938407865728]},
 'tensordot_1': {'grads': [[[2.416302559711104, 0.2877925191629749, -1.9307300450971812,
                             -3.5453804709456245],
                            [-2.868820498395762, -0.9706254745442089, 1.2311509238233183,
                             3.047861712959431],
                            [2.9567497210081495, 1.5301049138204792, -0.375108986259995,
                             -2.1630004951312563]],
                           [[0.13144720150541778, 0.6941671925690832, 0.930409506305922,
                             0.729065691177524, 0.18483088952266624],
                            [0.700133916628666, 0.7823889151058491, 0.496674181644726,
                             -0.022634180192077663, -0.5312973334157269],
                            [0.14783582715963406, -0.3820726909101719, -0.7322864523944451,
                             -0.7380944530261615, -0.39676509935570947],
                            [-0.6411622876677956, -0.9347974983115005, -0.7887828388854768,
                             -0.2717912852597735, 0.3730279566795832]]],
                 'indices': None,
                 'values': [[[4.672828729315136, 3.506642202838655, -3.274031111326173,
                              -4.8126513862214155, 1.3542671588452855],
                             [2.8506892148678435, -1.4090100017540759, -3.412742518333126,
                              0.047668915517886656, 3.431757622133726],
                             [-0.7136879009170516, -5.46352652276773, -1.4657097803406742,
                              4.878855709263016, 3.4118826003405216]]]},
 'tensordot_2': {'grads': [[[[2.550524432486152, -2.6247377922501043, 2.2813008670486608,
                              -1.5748616030886942],
                             [0.6178291563532425, 0.43751273827172976, -1.4232372713626413,
                              2.1824952013082566],
                             [-2.5944728255969025, 2.593615949561391, -2.1800609199718397,
                              1.419612929433371]],
                            [[-0.3983999691803032, 0.7913493211967726, -1.0583785639814276,
                              1.15699780019199],
                             [-1.071514661536274, 0.8155312904167332, -0.4297799566281497,
                              -0.024358292565150763],
                             [0.47462063161567314, -0.8493609727622442, 1.0889503463111956,
                              -1.155265107899709]]],
                           [[[0.46665371908577236, 1.4220566970170962],
                             [1.88487607998088, 2.1798148090556766],
                             [0.2852222974485983, -0.5525297860320296],
                             [-1.7711010646840604, -2.400218632389552]],
                            [[-0.9917135238680785, -0.40491608709451266],
                             [1.3755070933940439, 2.2386978311926926],
                             [1.5404025358833267, 1.297931402753018],
                             [-0.7610413813822772, -1.7209537188865358]],
                            [[-1.8439815182519321, -1.9844188809163306],
                             [0.025478182702223073, 0.9293701346043834],
                             [1.8541447511148987, 2.3551441090169734],
                             [0.7141391238957416, 0.010095536300645358]]]],
                 'indices': None,
                 'values': [[[-1.2414076044875118, -1.6879815586091567],
                             [-1.1598265739123155, 2.461330050098665]]]},
 'tensordot_lists': {'grads': [[[[2.416302559711104, -1.9307300450971812, -4.051146466311565,
                                  -1.499574534257974],
                                 [-2.868820498395762, 1.2311509238233183, 3.9112964214431867,
                                  2.080735757456731],
                                 [2.9567497210081495, -0.375108986259995, -3.2743729133625017,
                                  -2.3974632948528987]],
                                [[0.2877925191629749, -3.5453804709456245, -3.2898402027447466,
                                  0.7597112766405427],
                                 [-0.9706254745442089, 3.047861712959431, 3.551399603089849,
                                  -0.040717334718551434],
                                 [1.5301049138204792, -2.1630004951312563, -3.361623612365991,
                                  -0.6834512358688529]]],
                               [[[0.13144720150541778, 0.6941671925690832, 0.930409506305922,
                                  0.729065691177524, 0.18483088952266624],
                                 [-0.5574445981741507, -0.955555328785139, -0.9042534573045978,
                                  -0.42766705550368145, 0.25005784498269445]],
                                [[0.700133916628666, 0.7823889151058491, 0.496674181644726,
                                  -0.022634180192077663, -0.5312973334157269],
                                 [-0.5263591080624962, -0.21490582025030713, 0.19762103282167098,
                                  0.5172036262438012, 0.5935372727138855]],
                                [[0.14783582715963406, -0.3820726909101719, -0.7322864523944451,
                                  -0.7380944530261615, -0.39676509935570947],
                                 [0.3474802436789508, 0.8698295170057786, 0.9830843770236685,
                                  0.633979293410206, -0.013296158093796917]],
                                [[-0.6411622876677956, -0.9347974983115005, -0.7887828388854768,
                                  -0.2717912852597735, 0.3730279566795832],
                                 [0.6649687833703707, 0.5618803292148223, 0.19453077660721674,
                                  -0.264309639865995, -0.5988411027581834]]]],
                     'indices': None,
                     'values': [[[-1.3497738641216372, 0.9710406731256924, 1.7371214467860576,
                                  -0.27810389732492186, -1.8480569362456496],
                                 [-3.3994477763896356, 0.1906024635795318, 3.4754789927543914,
                                  1.1957641672960586, -2.9984893336622034],
                                 [-3.371502806557154, -0.7063250416863734, 3.089750141561244,
                                  1.9388246490595813, -2.3163540709249366]]]},
 'tile': {'grads': [[[0.40650304802268034, -0.27425145580242505, -0.8260212146664441],
                     [0.5923857466782164, 0.968208851906032, 0.88866820540181]]],
          'indices': None,
          'values': [[[0.5910404133226791, 1.9901666996203604, 0.20283597263320371,
                       0.5910404133226791, 1.9901666996203604, 0.20283597263320371],
                      [-1.9092555433204328, -0.9644369434898631, 1.5245421847228224,
                       -1.9092555433204328, -0.9644369434898631, 1.5245421847228224]]]},
 'tile_more': {'grads': [[[-0.5808470454339715, -0.9493497339295754, -0.8713584085593147],
                          [0.9681181355377503, 0.6619484726406175, 0.04445409983040183]]],
               'indices': None,
               'values': [[[[0.5910404133226791, 1.9901666996203604, 0.20283597263320371,
                             0.5910404133226791, 1.9901666996203604, 0.20283597263320371],
                            [-1.9092555433204328, -0.9644369434898631, 1.5245421847228224,
                             -1.9092555433204328, -0.9644369434898631, 1.5245421847228224]],
                           [[0.5910404133226791, 1.9901666996203604, 0.20283597263320371,
                             0.5910404133226791, 1.9901666996203604, 0.20283597263320371],
                            [-1.9092555433204328, -0.9644369434898631, 1.5245421847228224,
                             -1.9092555433204328, -0.9644369434898631, 1.5245421847228224]]]]},
 'topk': {'grads': [[[0.6967067093471655, 0.9950041652780258, 0.0, 0.0, 0.0],
                     [-0.5885011172553455, 0.0707372016677029, 0.0, 0.0, 0.0],
                     [-0.9709581651495905, 0.0, 0.0, 0.0, -0.896758416334147]]],
          'indices': [[1, 0], [1, 0], [0, 4]],
          'values': [[[1.9901666996203604, 0.5910404133226791],
                      [1.5725759702738562, 1.5245421847228224],
                      [1.9812147113897411, 1.1790070549033242]]]},
 'topk_smallest_dim0': {'grads': [[[-0.4007991720799763, 0.0, -0.896758416334147],
                                   [0.9950041652780258, 0.6967067093471655, 0.0],
                                   [0.0, -0.9709581651495905, 0.0707372016677029],
                                   [-0.5885011172553455, 0.2836621854632254, 0.8347127848391593]]],
                        'indices': [[1, 1, 2], [3, 2, 0], [0, 3, 3]],
                        'values': [[[-1.9092555433204328, -0.9644369434898631, -1.9304855059239703],
                                    [0.1271729165928209, -0.8972425076856059, 0.20283597263320371],
                                    [0.5910404133226791, 1.9812147113897411, 0.6631325262531239]]]},
 'trace': {'grads': [[[0.9950041652780258, 0.0, 0.0, 0.0], [0.0, 0.9950041652780258, 0.0, 0.0],
                      [0.0, 0.0, 0.9950041652780258, 0.0]]],
           'indices': None,
           'values': [4.096797309435242]},
 'tril': {'grads': [[[0.9950041652780258, 0.0, 0.0, 0.0],
                     [-0.9709581651495905, -0.896758416334147, 0.0, 0.0],
                     [0.8347127848391593, 0.9931849187581927, 0.6845466664428066, 0.0]]],
          'indices': None,
          'values': [[[0.5910404133226791, 0.0, 0.0, 0.0],
                      [-0.9644369434898631, 1.5245421847228224, 0.0, 0.0],
                      [-1.9304855059239703, 0.1271729165928209, 1.9812147113897411, 0.0]]]},
 'tril_neg': {'grads': [[[0.0, 0.0, 0.0, 0.0], [-0.9709581651495905, 0.0, 0.0, 0.0],
                         [0.8347127848391593, 0.9931849187581927, 0.0, 0.0]]],
              'indices': None,
              'values': [[[0.0, 0.0, 0.0, 0.0], [-0.9644369434898631, 0.0, 0.0, 0.0],
                          [-1.9304855059239703, 0.1271729165928209, 0.0, 0.0]]]},
 'triu_batch': {'grads': [[[[0.0, 0.6967067093471655, 0.0707372016677029, -0.5885011172553455],
                            [0.0, 0.0, -0.4007991720799763, 0.2836621854632254],
                            [0.0, 0.0, 0.0, 0.05395542056265064]],
                           [[0.0, -0.9748436214041636, -0.8891911526253617, -0.3853381907718296],
                            [0.0, 0.0, 0.9910848718142532, 0.6721930835534694],
                            [0.0, 0.0, 0.0, -0.8813724903622346]]]],
                'indices': None,
                'values': [[[[0.0, 1.9901666996203604, 0.20283597263320371, -1.9092555433204328],
                             [0.0, 0.0, 1.5725759702738562, -0.8972425076856059],
                             [0.0, 0.0, 0.0, 0.6631325262531239]],
                            [[0.0, -1.3479198143419686, 1.1790070549033242, 1.818225070651248],
                             [0.0, 0.0, -0.34376684660959494, 1.8620845598072562],
                             [0.0, 0.0, 0.0, 0.7679056686143217]]]]},
 'var_mean': {'grads': [[[0.49573994867567117, 1.4238309370864501, 0.238229925032035,
                          -1.1627966455161305],
                         [-0.4172328545008828, 0.7388261175330084, 0.7611364246455072,
                          -0.3860229783304672],
                         [-0.08326920087034707, 0.013766131660864713, 0.10119928388679778,
                          0.0390409869903875]]],
              'indices': None,
              'values': [[2.6017260376436036, 2.050276531041121, 2.643689633128012],
                         [0.21869688556395261, 0.3088596759553024, 0.21025866207792904]]},
 'var_mean_all': {'grads': [[[0.1453493652050718, 0.39846508931710245, 0.07511935875680736,
                              -0.3069787968472377],
                             [-0.13605180734477065, 0.31422902899371874, 0.3229188138477823,
                              -0.12389567216136288],
                             [-0.31081950615982257, 0.06143116677174453, 0.3968455864849232,
                              0.15839153841406933]]],
                  'indices': None,
                  'values': [1.991906684412492, 0.245938407865728]},
 'var_mean_corr': {'grads': [[[1.233142553210687, 0.5927609012652725, -0.025907401650855044,
                               0.27259386204964675],
                              [0.20133825386126464, 0.37649175222151654, 0.03868698131276212,
                               -0.12445333938239947],
                              [-0.43947664179392576, -0.27254594413962374, 0.057957622005795836,
                               -0.7366416399225928]]],
                   'indices': None,
                   'values': [[[1.0789836215522441, 0.6266880995541119, 0.5784226911487425,
                                1.119569001257609]],
                              [[-0.7679606786970514, 1.2139606003120011, 1.2522088847656003,
                                -0.7144551749176383]]]}}


if __name__ == "__main__":  # pragma: no cover
    _record()
