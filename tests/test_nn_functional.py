"""The nn functions of ``rtorchpy/ops/nnf_layers.py`` against PyTorch 2.13: values, gradients and
grad_fn names, in float64 and float32. With PyTorch installed each case runs on both; without
it, the float64 results are compared with values recorded from PyTorch 2.13
(``tests/nn_recorded.json``; rewrite it with ``python tests/test_nn_functional.py --record``).
"""
from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as rt

RECORDED = Path(__file__).with_name("nn_recorded.json")


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


class Case:
    """``rt_fn`` and ``torch_fn`` take one tensor per input array (inputs whose ``grad`` flag
    is set require grad) and return a tensor or a tuple of tensors (the first one is
    backpropagated with a fixed cotangent; all are compared)."""

    def __init__(self, name, rt_fn, torch_fn, inputs, grad=None, float32=True):
        self.name, self.rt_fn, self.torch_fn = name, rt_fn, torch_fn
        self.inputs = [np.asarray(a) for a in inputs]
        self.grad = grad if grad is not None else [a.dtype.kind == "f" for a in self.inputs]
        self.float32 = float32


def _rng(seed):
    return np.random.default_rng(seed)


def _x(seed, *shape, scale=1.5):
    return _rng(seed).standard_normal(shape) * scale


def _spread(lo, hi, n, seed=0):
    """``n`` values spread over [lo, hi], none closer than 0.01 to an integer or half."""
    v = np.linspace(lo, hi, n) + 0.0173
    return v + _rng(seed).uniform(-0.001, 0.001, n)


IDX = np.array([[0, 2, 4], [2, 2, 1]])


def _cases():
    import functools
    c = []

    def add(name, rt_fn, th, inputs, **kw):
        c.append(Case(name, rt_fn, th, inputs, **kw))

    T = "F"  # torch.nn.functional (looked up when torch is imported)
    F = functools.partial
    x23 = _x(1, 2, 3)
    wide = _spread(-6, 8, 12).reshape(3, 4)
    add("gelu", lambda a: rt.nnf_gelu(a), (T, "gelu", {}), [wide])
    add("gelu_tanh", lambda a: rt.nnf_gelu(a, approximate="tanh"),
        (T, "gelu", {"approximate": "tanh"}), [wide])
    add("silu", rt.nnf_silu, (T, "silu", {}), [wide])
    add("elu", lambda a: rt.nnf_elu(a, alpha=0.7), (T, "elu", {"alpha": 0.7}), [wide])
    add("leaky_relu", lambda a: rt.nnf_leaky_relu(a, 0.1), (T, "leaky_relu",
                                                            {"negative_slope": 0.1}), [wide])
    add("relu6", rt.nnf_relu6, (T, "relu6", {}), [wide])
    add("hardtanh", lambda a: rt.nnf_hardtanh(a, -2.0, 3.0),
        (T, "hardtanh", {"min_val": -2.0, "max_val": 3.0}), [wide])
    add("softplus", lambda a: rt.nnf_softplus(a, beta=2, threshold=3),
        (T, "softplus", {"beta": 2, "threshold": 3}), [wide])
    add("softplus_default", rt.nnf_softplus, (T, "softplus", {}), [wide * 5])
    add("logsigmoid", rt.nnf_logsigmoid, (T, "logsigmoid", {}), [wide * 10])
    add("erf", rt.torch_erf, ("torch", "erf", {}), [wide / 3])
    y23 = _x(2, 2, 3)
    for red in ("mean", "sum", "none"):
        add(f"l1_loss_{red}", F(rt.nnf_l1_loss, reduction=red),
            (T, "l1_loss", {"reduction": red}), [x23, y23])
        add(f"smooth_l1_loss_{red}", F(rt.nnf_smooth_l1_loss, reduction=red, beta=0.5),
            (T, "smooth_l1_loss", {"reduction": red, "beta": 0.5}), [x23, y23])
        add(f"huber_loss_{red}", F(rt.nnf_huber_loss, reduction=red, delta=0.7),
            (T, "huber_loss", {"reduction": red, "delta": 0.7}), [x23, y23])
        add(f"bce_logits_{red}", F(rt.nnf_binary_cross_entropy_with_logits, reduction=red),
            (T, "binary_cross_entropy_with_logits", {"reduction": red}),
            [x23 * 3, _rng(3).uniform(0, 1, (2, 3))])
    add("smooth_l1_loss_beta0", F(rt.nnf_smooth_l1_loss, beta=0.0),
        (T, "smooth_l1_loss", {"beta": 0.0}), [x23, y23])
    add("bce_logits_weights",
        lambda a, b, w, pw: rt.nnf_binary_cross_entropy_with_logits(a, b, weight=w,
                                                                    pos_weight=pw),
        (T, "binary_cross_entropy_with_logits", {}, ("weight", "pos_weight")),
        [x23 * 3, _rng(3).uniform(0, 1, (2, 3)), _rng(4).uniform(0.5, 2, (2, 3)),
         _rng(5).uniform(0.5, 3, (3,))], grad=[True, True, False, False])
    x34 = _x(6, 3, 4)
    add("layer_norm_affine", lambda a, w, b: rt.nnf_layer_norm(a, (4,), w, b),
        (T, "layer_norm", {"normalized_shape": (4,)}, ("weight", "bias")),
        [x34, _x(7, 4), _x(8, 4)])
    add("layer_norm_2d", lambda a: rt.nnf_layer_norm(a, (2, 3), eps=1e-3),
        (T, "layer_norm", {"normalized_shape": (2, 3), "eps": 1e-3}), [_x(9, 2, 2, 3)])
    rm, rv = _x(10, 3, scale=0.3), _rng(11).uniform(0.5, 2, 3)
    for training in (True, False):
        for shape in ((4, 3), (2, 3, 2)):
            add(f"batch_norm_{'train' if training else 'eval'}_{len(shape)}d",
                lambda a, w, b, m, v, tr=training: _with_stats(
                    rt.nnf_batch_norm(a, m, v, w, b, training=tr, momentum=0.3), m, v),
                ("batch_norm", training), [_x(12, *shape), _x(13, 3), _x(14, 3), rm, rv],
                grad=[True, True, True, False, False])
    add("embedding", lambda i, w: rt.nnf_embedding(i, w), (T, "embedding", {}),
        [IDX, _x(15, 5, 3)], grad=[False, True])
    add("embedding_padding_freq",
        lambda i, w: rt.nnf_embedding(i, w, padding_idx=2, scale_grad_by_freq=True),
        (T, "embedding", {"padding_idx": 2, "scale_grad_by_freq": True}),
        [IDX, _x(15, 5, 3)], grad=[False, True])
    add("embedding_max_norm",
        lambda i, w: _with_weight(rt.nnf_embedding(i, w, max_norm=1.0), w),
        ("embedding_max_norm",), [IDX, _x(16, 5, 3)], grad=[False, True])
    add("bilinear", lambda a, b, w, bias: rt.nnf_bilinear(a, b, w, bias),
        (T, "bilinear", {}), [_x(17, 4, 3), _x(18, 4, 2), _x(19, 5, 3, 2), _x(20, 5)])
    add("bilinear_3d", lambda a, b, w: rt.nnf_bilinear(a, b, w),
        (T, "bilinear", {}), [_x(21, 2, 2, 3), _x(22, 2, 2, 2), _x(23, 1, 3, 2)])
    add("linear", lambda a, w, b: rt.nnf_linear(a, w, b), (T, "linear", {}),
        [_x(24, 4, 3), _x(25, 2, 3), _x(26, 2)])
    return c


def _with_stats(out, m, v):
    return out, m.detach().clone(), v.detach().clone()


def _with_weight(out, w):
    return out, w.detach().clone()


def _torch_fn(spec, torch):
    """The PyTorch side of a case from its spec (kept as data so the cases build without
    PyTorch)."""
    import torch.nn.functional as TF
    if spec[0] == "torch":
        fn, kw = getattr(torch, spec[1]), spec[2]
        return lambda *a: fn(*a, **kw)
    if spec[0] == "batch_norm":
        training = spec[1]

        def bn(a, w, b, m, v):
            out = TF.batch_norm(a, m, v, w, b, training=training, momentum=0.3)
            return out, m.detach().clone(), v.detach().clone()
        return bn
    if spec[0] == "embedding_max_norm":
        def emb(i, w):
            out = TF.embedding(i, w, max_norm=1.0)
            return out, w.detach().clone()
        return emb
    fn, kw = getattr(TF, spec[1]), dict(spec[2])
    keyword = spec[3] if len(spec) > 3 else ()
    if fn is TF.embedding:
        return lambda i, w: fn(i, w, **kw)

    def call(*a):
        n = len(a) - len(keyword)
        return fn(*a[:n], **kw, **dict(zip(keyword, a[n:])))
    return call


CASES = _cases()
IDS = [c.name for c in CASES]


def _inputs(case, make, dtype):
    out = []
    for a, g in zip(case.inputs, case.grad):
        arr = a.astype(dtype) if a.dtype.kind == "f" else a
        out.append(make(arr, g and arr.dtype.kind == "f"))
    return out


def _as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def run_rt(case, dtype):
    """Outputs, gradients (of sum(out0 * cotangent)) and grad_fn name, on rtorchpy."""
    xs = _inputs(case, lambda a, g: rt.torch_tensor(a, requires_grad=g), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = _as_tuple(case.rt_fn(*xs))
    name = outs[0].grad_fn.name if outs[0].grad_fn is not None else None
    v = _rng(99).standard_normal(outs[0].shape).astype(dtype)
    wrt = [x for x, g in zip(xs, case.grad) if g]
    grads = rt.autograd_grad((outs[0] * rt.torch_tensor(v)).sum(), wrt)
    return ([o.detach().numpy() for o in outs], [g.numpy() for g in grads], name)


def run_torch(case, torch, dtype):
    fn = _torch_fn(case.torch_fn, torch)
    xs = _inputs(case, lambda a, g: torch.tensor(a, requires_grad=g), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = _as_tuple(fn(*xs))
    name = outs[0].grad_fn.name() if outs[0].grad_fn is not None else None
    v = _rng(99).standard_normal(tuple(outs[0].shape)).astype(dtype)
    wrt = [x for x, g in zip(xs, case.grad) if g]
    grads = torch.autograd.grad((outs[0] * torch.tensor(v)).sum(), wrt)
    return ([o.detach().numpy() for o in outs], [g.numpy() for g in grads], name)


def _compare(ours, theirs, rtol, atol, what):
    (o1, g1, n1), (o2, g2, n2) = ours, theirs
    assert n1 == n2, f"{what}: grad_fn {n1} != {n2}"
    assert len(o1) == len(o2) and len(g1) == len(g2)
    for i, (a, b) in enumerate(zip(o1, o2)):
        b = np.asarray(b)
        assert a.shape == b.shape, f"{what}: output {i} shape {a.shape} != {b.shape}"
        assert a.dtype == b.dtype, f"{what}: output {i} dtype {a.dtype} != {b.dtype}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{what} output {i}")
    for i, (a, b) in enumerate(zip(g1, g2)):
        b = np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: grad {i}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{what} grad {i}")


def _load_recorded():
    if not RECORDED.exists():
        return {}
    return json.loads(RECORDED.read_text())


def _decode(x):
    return np.array(x, dtype=np.float64)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_against_recorded_values(case):
    recorded = _load_recorded().get(case.name)
    assert recorded is not None, f"no recorded values for {case.name}: run --record"
    outs, grads, name = run_rt(case, np.float64)
    theirs = ([_decode(o) for o in recorded["outputs"]],
              [_decode(g) for g in recorded["grads"]], recorded["grad_fn"])
    _compare((outs, grads, name), theirs, 1e-10, 1e-12, case.name)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_against_torch(case, dtype):
    torch = pytest.importorskip("torch")
    tol = (1e-10, 1e-12) if dtype == np.float64 else (2e-5, 2e-6)
    _compare(run_rt(case, dtype), run_torch(case, torch, dtype), *tol,
             f"{case.name} {np.dtype(dtype).name}")


def record():
    torch = _torch()
    assert torch is not None and torch.__version__.startswith("2.13"), "needs PyTorch 2.13"
    out = {}
    for case in CASES:
        outs, grads, name = run_torch(case, torch, np.float64)
        out[case.name] = {"outputs": [o.tolist() for o in outs],
                          "grads": [g.tolist() for g in grads], "grad_fn": name}
    RECORDED.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"wrote {RECORDED} ({len(out)} cases)")


# ------------------------------------------------------------------------ behaviour and errors

def test_dropout_train_and_eval():
    rt.torch_manual_seed(0)
    x = rt.torch_ones(200, 50, dtype=rt.torch_float64(), requires_grad=True)
    y = rt.nnf_dropout(x, p=0.3)
    assert y.grad_fn.name == "MulBackward0"
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.7)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.7)
    assert rt.nnf_dropout(x, p=0.3, training=False) is x
    assert rt.nnf_dropout(x, p=0.0) is x
    assert (rt.nnf_dropout(x, p=1.0).detach().numpy() == 0).all()
    rt.torch_manual_seed(5)
    a = rt.nnf_dropout(rt.torch_ones(10, 10)).numpy()
    rt.torch_manual_seed(5)
    b = rt.nnf_dropout(rt.torch_ones(10, 10)).numpy()
    np.testing.assert_array_equal(a, b)
    z = rt.torch_ones(4, 4)
    assert rt.nnf_dropout(z, 0.5, inplace=True) is z
    assert set(np.unique(z.numpy())) <= {0.0, 2.0}


def test_errors():
    x = rt.torch_randn(2, 3)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        rt.nnf_dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        rt.nnf_gelu(x, approximate="fast")
    with pytest.raises(RuntimeError, match='"nnf_gelu" not implemented for \'Long\''):
        rt.nnf_gelu(rt.torch_tensor([1, 2]))
    with pytest.raises(RuntimeError, match="negative values for beta"):
        rt.nnf_smooth_l1_loss(x, x, beta=-1)
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        rt.nnf_huber_loss(x, x, delta=0)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        rt.nnf_huber_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match=r"Target size \(torch.Size\(\[3\]\)\) must be the same"):
        rt.nnf_binary_cross_entropy_with_logits(x, rt.torch_rand(3))
    w = rt.torch_ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="the derivative for 'weight' is not implemented"):
        rt.nnf_binary_cross_entropy_with_logits(x.requires_grad_(), rt.torch_rand(2, 3),
                                                weight=w)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with "
                                           r"shape \[\*, 4\], but got input of size\[2, 3\]"):
        rt.nnf_layer_norm(rt.torch_randn(2, 3), (4,))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        rt.nnf_layer_norm(rt.torch_randn(2, 3), (3,), weight=rt.torch_ones(2))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        rt.nnf_batch_norm(rt.torch_randn(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        rt.nnf_batch_norm(rt.torch_randn(2, 3), rt.torch_zeros(4), rt.torch_ones(3))
    with pytest.raises(RuntimeError, match="must be defined in evaluation mode"):
        rt.nnf_batch_norm(rt.torch_randn(2, 3), None, None, training=False)
    with pytest.raises(IndexError, match="index out of range in self"):
        rt.nnf_embedding(rt.torch_tensor([5]), rt.torch_randn(5, 2))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar"):
        rt.nnf_embedding(rt.torch_tensor([1.0]), rt.torch_randn(5, 2))
    with pytest.raises(ValueError, match="Padding_idx must be within num_embeddings"):
        rt.nnf_embedding(rt.torch_tensor([1]), rt.torch_randn(5, 2), padding_idx=5)
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input1 size does not match weight"):
        rt.nnf_bilinear(rt.torch_randn(2, 3), rt.torch_randn(2, 2), rt.torch_randn(4, 2, 2))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): input batch dimensions do not match"):
        rt.nnf_bilinear(rt.torch_randn(2, 3), rt.torch_randn(3, 2), rt.torch_randn(4, 3, 2))
    with pytest.raises(RuntimeError, match="bilinear\\(\\): bias size does not match"):
        rt.nnf_bilinear(rt.torch_randn(2, 3), rt.torch_randn(2, 2), rt.torch_randn(4, 3, 2),
                        rt.torch_randn(3))


def test_loss_shape_mismatch_warns_and_broadcasts():
    with pytest.warns(UserWarning, match="Using a target size"):
        out = rt.nnf_l1_loss(rt.torch_zeros(2, 3), rt.torch_ones(3))
    assert out.item() == 1.0


def test_inplace_activations_rebase_history():
    x = rt.torch_randn(5, dtype=rt.torch_float64(), requires_grad=True)
    y = x * 1.0
    out = rt.nnf_elu(y, inplace=True)
    assert out is y and y.grad_fn.name == "EluBackward1"
    y.sum().backward()
    xv = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.where(xv > 0, 1.0, np.exp(xv)))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        rt.nnf_leaky_relu(x, inplace=True)
    y = x * 1.0
    rt.nnf_leaky_relu(y, -0.1, inplace=True)
    assert y.grad_fn.name == "LeakyReluBackward1"
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is "
                                           "triggered with a negative slope"):
        y.sum().backward()


@pytest.mark.parametrize("name,kw", [("elu", {"alpha": 0.5}), ("leaky_relu", {}),
                                     ("relu6", {}), ("hardtanh", {}), ("silu", {}),
                                     ("relu", {})])
def test_inplace_activations_against_torch(name, kw):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    a = _spread(-8, 8, 10)
    x = rt.torch_tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    y, ty = x * 2.0, t * 2.0
    getattr(rt, "nnf_" + name)(y, inplace=True, **kw)
    getattr(TF, name)(ty, inplace=True, **kw)
    assert y.grad_fn.name == ty.grad_fn.name()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_batch_norm_updates_running_stats_in_place_and_bumps_versions():
    rm, rv = rt.torch_zeros(3), rt.torch_ones(3)
    v0 = rm._version[0]
    x = rt.torch_randn(8, 3)
    rt.nnf_batch_norm(x, rm, rv, training=True, momentum=0.5)
    xv = x.numpy().astype(np.float64)
    np.testing.assert_allclose(rm.numpy(), 0.5 * xv.mean(0), rtol=1e-6)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * xv.var(0, ddof=1), rtol=1e-6)
    assert rm._version[0] > v0


def test_erf_and_gelu_float32_are_correctly_rounded_results():
    x = np.linspace(-4, 4, 101).astype(np.float32)
    got = rt.torch_erf(rt.torch_tensor(x)).numpy()
    want = np.array([math.erf(float(v)) for v in x]).astype(np.float32)
    np.testing.assert_array_equal(got, want)


if __name__ == "__main__":
    if "--record" in sys.argv:
        record()


# not derivatives (the padding row and the frequency scaling are conventions, the max_norm
# renormalization writes into the weight at each call): checked against PyTorch above only
_NOT_DERIVATIVES = {"embedding_padding_freq", "embedding_max_norm"}
GRAD_CASES = [c for c in CASES if c.name not in _NOT_DERIVATIVES]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.name for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(case):
    xs = _inputs(case, lambda a, g: rt.torch_tensor(a, requires_grad=g), np.float64)

    def fn(*a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _as_tuple(case.rt_fn(*a))[0]
    assert rt.autograd_gradcheck(fn, xs)
    assert rt.autograd_gradgradcheck(fn, xs)


def _edges(fn):
    return [None if n is None else "edge" for n, _ in fn.next_functions]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_grad_fn_edges_match_torch(case):
    """The recorded node has libtorch's edges: one per input, None where no gradient flows
    (layer_norm without weight has three edges, the last two None)."""
    torch = pytest.importorskip("torch")
    xs = _inputs(case, lambda a, g: rt.torch_tensor(a, requires_grad=g), np.float64)
    ts = _inputs(case, lambda a, g: torch.tensor(a, requires_grad=g), np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _as_tuple(case.rt_fn(*xs))[0].grad_fn
        theirs = _as_tuple(_torch_fn(case.torch_fn, torch)(*ts))[0].grad_fn
    assert _edges(ours) == [None if n is None else "edge" for n, _ in theirs.next_functions]
