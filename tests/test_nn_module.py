"""nn_module and the layers: registration and nesting, modes, state_dict, clone, printing,
containers, errors; every layer against PyTorch 2.13's (weights copied across) when it is
installed."""
from __future__ import annotations

import collections
import math

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy import nn_module, nn_parameter


class Net(nn_module):
    def __init__(self, hidden=8):
        self.fc1 = rt.nn_linear(4, hidden)
        self.bn = rt.nn_batch_norm1d(hidden)
        self.drop = rt.nn_dropout(0.5)
        self.fc2 = rt.nn_linear(hidden, 1)
        self.scale = nn_parameter(rt.torch_ones(1))
        self.register_buffer("calls", rt.torch_zeros(1))
        self.register_buffer("cache", rt.torch_zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.fc2(self.drop(rt.nnf_relu(self.bn(self.fc1(x))))) * self.scale


def test_registration_and_nesting():
    m = Net()
    assert list(m.parameters) == ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                  "fc2.weight", "fc2.bias", "scale"] or \
        list(m.parameters) == ["scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                               "fc2.weight", "fc2.bias"]
    # a module's own parameters come first, then its children's (as PyTorch)
    assert list(m.parameters)[0] == "scale"
    assert isinstance(m.parameters, collections.OrderedDict)
    assert m.parameters["fc1.weight"] is m.fc1.weight
    assert [n for n, _ in m.named_parameters()] == list(m.parameters)
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert list(m.buffers) == ["calls", "cache", "bn.running_mean", "bn.running_var",
                               "bn.num_batches_tracked"]
    assert list(m.children) == ["fc1", "bn", "drop", "fc2"]
    assert m.modules[0] is m and len(m.modules) == 5
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "bn", "drop", "fc2"]
    assert m.note == "plain attribute" and "note" not in m.parameters
    assert all(p.requires_grad and p.is_leaf for p in m.parameters.values())
    assert rt.is_nn_module(m) and rt.is_nn_module(m.fc1) and not rt.is_nn_module(3)


def test_shared_parameters_appear_once_and_reassignment_moves_entries():
    m = nn_module()
    m.a = rt.nn_linear(2, 2)
    m.b = m.a
    assert list(m.parameters) == ["a.weight", "a.bias"]
    m.a = None  # a registered module may be set to None
    assert list(m.parameters) == ["b.weight", "b.bias"]
    m.b = nn_parameter(rt.torch_ones(2))  # a module name now holds a parameter
    assert list(m.parameters) == ["b"] and list(m.children) == []
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'b'"):
        m.b = 3  # as PyTorch: a parameter name takes a parameter or None
    del m.b
    assert list(m.parameters) == []
    m.b = 3
    assert m.b == 3 and list(m.parameters) == []
    del m.b
    with pytest.raises(AttributeError):
        m.b


def test_parameter_list_is_read_only():
    m = rt.nn_linear(2, 3)
    with pytest.raises(RuntimeError, match="It's not possible to modify the parameters list"):
        m.parameters["weight"] = rt.torch_ones(3, 2)
    with pytest.raises(RuntimeError, match="It's not possible to modify the parameters list"):
        del m.parameters["bias"]
    with pytest.raises(RuntimeError, match="It's not possible to modify the parameters list"):
        m.parameters = {}
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        m.weight = rt.torch_ones(3, 2)
    assert list(m.parameters) == ["weight", "bias"]


def test_register_functions_and_their_errors():
    m = nn_module()
    m.register_parameter("w", rt.torch_zeros(2))
    assert m.w.requires_grad and list(m.parameters) == ["w"]
    m.register_module("sub", rt.nn_relu())
    m.add_module("sub2", rt.nn_tanh())
    assert list(m.children) == ["sub", "sub2"]
    with pytest.raises(KeyError, match="be empty or contain"):
        m.register_parameter("a.b", rt.torch_zeros(1))
    with pytest.raises(TypeError, match="is not an nn_module"):
        m.register_module("x", 3)
    with pytest.raises(TypeError, match="to buffer"):
        m.register_buffer("b", [1, 2])
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("forward", rt.torch_zeros(1))
    with pytest.raises(TypeError, match="must be a tensor"):
        nn_parameter([1.0])


def test_nn_parameter_of_a_tensor_with_history_is_a_new_leaf():
    x = rt.torch_ones(2, requires_grad=True)
    p = nn_parameter(x * 2)
    assert p.is_leaf and p.requires_grad and p.tolist() == [2.0, 2.0]
    q = nn_parameter(rt.torch_ones(2), requires_grad=False)
    assert not q.requires_grad and rt.is_nn_parameter(q)


def test_forward_backward_zero_grad():
    rt.torch_manual_seed(0)
    m = Net()
    y = m(rt.torch_randn(6, 4))
    assert y.shape == (6, 1)
    y.sum().backward()
    assert all(p.grad is not None for p in m.parameters.values())
    m.zero_grad(set_to_none=False)
    assert all((p.grad.numpy() == 0).all() for p in m.parameters.values())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters.values())


def test_train_eval_switches_dropout_and_batch_norm():
    rt.torch_manual_seed(1)
    m = Net()
    assert m.training and m.drop.training
    x = rt.torch_randn(16, 4)
    with rt.with_no_grad():
        a, b = m(x), m(x)
    assert not np.allclose(a.numpy(), b.numpy())  # dropout differs between calls
    assert m.bn.num_batches_tracked.item() == 2
    assert m.eval() is m and not m.training and not m.bn.training and not m.drop.training
    stats = m.bn.running_mean.numpy().copy()
    with rt.with_no_grad():
        c, d = m(x), m(x)
    np.testing.assert_array_equal(c.numpy(), d.numpy())
    np.testing.assert_array_equal(m.bn.running_mean.numpy(), stats)  # not updated in eval
    assert m.bn.num_batches_tracked.item() == 2
    m.train()
    assert m.training and m.bn.training
    with pytest.raises(ValueError, match="boolean"):
        m.train("yes")


def test_batch_norm1d_matches_its_definition():
    bn = rt.nn_batch_norm1d(3, momentum=None)  # cumulative average
    xs = [rt.torch_randn(5, 3, dtype=rt.torch_float64()) for _ in range(3)]
    bn.to(dtype=rt.torch_float64())
    for x in xs:
        bn(x)
    means = [x.numpy().mean(0) for x in xs]
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean(means, 0), rtol=1e-12)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        bn(rt.torch_randn(2, 3, 2, 2))
    nostats = rt.nn_batch_norm1d(3, track_running_stats=False, affine=False)
    assert list(nostats.parameters) == [] and list(nostats.buffers) == []
    nostats.eval()
    out = nostats(xs[0]).numpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-6)


def test_state_dict_round_trip_and_non_persistent_buffers():
    rt.torch_manual_seed(2)
    a, b = Net(), Net()
    sd = a.state_dict()
    assert "cache" not in sd and "calls" in sd and "bn.num_batches_tracked" in sd
    assert list(sd)[:2] == ["scale", "calls"]
    assert all(not t.requires_grad and t.grad_fn is None for t in sd.values())
    # detached, sharing memory with the module
    sd["scale"]._data[0] = 7.0
    assert a.scale.item() == 7.0
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    for k, v in a.state_dict().items():
        np.testing.assert_array_equal(b.state_dict()[k].numpy(), v.numpy())
    # loaded values are copies, and the parameters stay the same objects
    w = b.fc1.weight
    b.load_state_dict(a.state_dict())
    assert b.fc1.weight is w and b.fc1.weight._data is not a.fc1.weight._data


def test_load_state_dict_errors_leave_the_model_unchanged():
    rt.torch_manual_seed(3)
    m = rt.nn_linear(3, 2)
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    good = {"weight": rt.torch_zeros(2, 3), "bias": rt.torch_zeros(2)}

    def unchanged():
        for k, v in m.state_dict().items():  # (state_dict tensors are detached)
            np.testing.assert_array_equal(v.numpy(), before[k])

    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        m.load_state_dict({"weight": rt.torch_zeros(2, 3)})
    unchanged()
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "extra"'):
        m.load_state_dict({**good, "extra": rt.torch_zeros(1)})
    unchanged()
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with "
                                           r"shape \[3, 2\] from checkpoint, the shape in "
                                           r"current model is \[2, 3\]"):
        m.load_state_dict({"weight": rt.torch_zeros(3, 2), "bias": rt.torch_zeros(2)})
    unchanged()
    with pytest.raises(RuntimeError, match="expected a tensor"):
        m.load_state_dict({"weight": [[0.0] * 3] * 2, "bias": rt.torch_zeros(2)})
    unchanged()
    with pytest.raises(TypeError, match="dict-like"):
        m.load_state_dict([1, 2])
    with pytest.raises(RuntimeError, match="size mismatch"):  # strict=False still checks shapes
        m.load_state_dict({"weight": rt.torch_zeros(3, 2)}, strict=False)
    unchanged()
    res = m.load_state_dict({"weight": rt.torch_zeros(2, 3, dtype=rt.torch_float64())},
                            strict=False)
    assert res.missing_keys == ["bias"] and m.weight.dtype == rt.torch_float32()
    assert (m.weight.detach().numpy() == 0).all()


def test_to_dtype_keeps_tensor_identity_and_refuses_other_devices():
    m = Net()
    w = m.fc1.weight
    (m(rt.torch_randn(3, 4)).sum()).backward()
    assert m.to(dtype=rt.torch_float64()) is m
    assert m.fc1.weight is w and w.dtype == rt.torch_float64()
    assert w.grad.dtype == rt.torch_float64()
    assert m.bn.running_mean.dtype == rt.torch_float64()
    assert m.bn.num_batches_tracked.dtype == rt.torch_long()  # integer buffers stay
    m.eval()
    assert m(rt.torch_randn(3, 4, dtype=rt.torch_float64())).dtype == rt.torch_float64()
    assert m.cpu() is m and m.to(device="cpu") is m
    with pytest.raises(RuntimeError, match="CPU only"):
        m.to(device="cuda")
    with pytest.raises(TypeError, match="floating point"):
        m.to(dtype=rt.torch_long())


def test_apply_and_clone():
    rt.torch_manual_seed(4)
    m = Net()
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["nn_linear", "nn_batch_norm1d", "nn_dropout", "nn_linear", "Net"]
    m.apply(lambda mod: rt.nn_init_zeros_(mod.bias) if isinstance(mod, rt.nn_linear) else None)
    assert (m.fc1.bias.detach().numpy() == 0).all()
    y = m.fc1(rt.torch_randn(1, 4)).sum()
    y.backward()
    c = m.clone()
    assert c is not m and c.fc1 is not m.fc1 and c.fc1.weight is not m.fc1.weight
    for (k, p), (k2, q) in zip(m.parameters.items(), c.parameters.items()):
        assert k == k2 and q.requires_grad == p.requires_grad and q.grad_fn is None
        assert q.grad is None and q._data is not p._data
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    assert c.note == m.note and list(c.buffers) == list(m.buffers)
    with rt.with_no_grad():
        c.fc1.weight.add_(1.0)
    assert not np.allclose(c.fc1.weight.detach().numpy(), m.fc1.weight.detach().numpy())
    c.eval()
    assert m.training  # independent
    # shared parameters stay shared in the copy
    s = nn_module()
    s.a = rt.nn_linear(2, 2)
    s.b = s.a
    s2 = s.clone()
    assert s2.a is s2.b and s2.a is not s.a
    shallow = m.clone(deep=False)
    assert shallow.fc1 is m.fc1


def test_repr_as_r_torch_prints_it():
    m = Net()
    text = repr(m)
    n = sum(p.numel() for p in m.parameters.values())
    assert text.splitlines()[0] == f"An `nn_module` containing {n} parameters."
    assert "── Modules " in text and "• fc1: <nn_linear> #40 parameters" in text
    assert "• scale: Float [1:1]" in text and "── Buffers " in text
    assert "• bn: <nn_batch_norm1d> #16 parameters" in text
    assert all(len(line) == 80 for line in text.splitlines() if line.startswith("──"))
    assert repr(rt.nn_linear(1000, 1000)).splitlines()[0] == \
        "An `nn_module` containing 1,001,000 parameters."
    assert repr(rt.nn_linear(3, 2)).splitlines()[3] == "• weight: Float [1:2, 1:3]"
    assert repr(rt.nn_relu()) == "An `nn_module` containing 0 parameters."


def test_containers():
    seq = rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_relu(), rt.nn_linear(4, 2))
    assert len(seq) == 3 and list(seq.children) == ["0", "1", "2"]
    assert isinstance(seq[1], rt.nn_relu) and isinstance(seq[-1], rt.nn_linear)
    assert seq(rt.torch_randn(5, 3)).shape == (5, 2)
    head = seq[:2]
    assert isinstance(head, rt.nn_sequential) and len(head) == 2 and head[0] is seq[0]
    with pytest.raises(IndexError):
        seq[3]
    with pytest.raises(TypeError, match="is not an nn_module"):
        rt.nn_sequential(rt.nn_relu(), 3)
    ml = rt.nn_module_list([rt.nn_linear(2, 2) for _ in range(3)])
    ml.append(rt.nn_linear(2, 1))
    assert len(ml) == 4 and len(ml.parameters) == 8 and list(ml.parameters)[-1] == "3.bias"
    ml.insert(0, rt.nn_tanh())
    assert isinstance(ml[0], rt.nn_tanh) and list(ml.children)[-1] == "4"
    del ml[0]
    assert len(ml) == 4
    with pytest.raises(TypeError, match="is not an nn_module"):
        ml.extend([rt.nn_relu(), "not a module"])
    assert len(ml) == 4  # nothing added
    md = rt.nn_module_dict({"enc": rt.nn_linear(2, 3), "dec": rt.nn_linear(3, 2)})
    assert list(md.keys()) == ["enc", "dec"] and "enc" in md and len(md) == 2
    assert list(md.parameters) == ["enc.weight", "enc.bias", "dec.weight", "dec.bias"]
    with pytest.raises(NotImplementedError):
        md(1)


def test_prune_head():
    seq = rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_relu(), rt.nn_linear(4, 2))
    p = rt.nn_prune_head(seq, 1)
    assert isinstance(p, rt.nn_sequential) and len(p) == 2 and p[0] is seq[0]
    assert p(rt.torch_randn(2, 3)).shape == (2, 4)
    net = Net()
    q = rt.nn_prune_head(net, 2)
    assert list(q.children) == ["fc1", "bn"]
    with pytest.raises(ValueError, match="head_size"):
        rt.nn_prune_head(seq, 4)
    with pytest.raises(TypeError):
        rt.nn_prune_head(3)


def test_shape_layers():
    x = rt.torch_randn(2, 3, 4)
    assert rt.nn_identity(54, unused=1)(x) is x
    assert rt.nn_flatten()(x).shape == (2, 12)
    assert rt.nn_flatten(0, 1)(x).shape == (6, 4)
    assert rt.nn_unflatten(1, (3, 1))(x).shape == (2, 3, 1, 4)
    assert rt.nn_unflatten(-1, (2, -1))(x).shape == (2, 3, 2, 2)
    with pytest.raises(RuntimeError, match="don't multiply up"):
        rt.nn_unflatten(1, (2, 2))(x)


def test_linear_default_init_bounds():
    rt.torch_manual_seed(5)
    m = rt.nn_linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.var() - bound ** 2 / 3) < 0.02 * bound ** 2
    assert np.abs(b).max() <= bound
    assert rt.nn_linear(3, 2, bias=False).bias is None
    assert list(rt.nn_linear(3, 2, bias=False).parameters) == ["weight"]
    m64 = rt.nn_linear(3, 2, dtype=rt.torch_float64())
    assert m64.weight.dtype == rt.torch_float64()


def test_embedding_layer():
    rt.torch_manual_seed(6)
    e = rt.nn_embedding(10, 3, padding_idx=0)
    assert (e.weight.detach().numpy()[0] == 0).all()
    out = e(rt.torch_tensor([[0, 1], [2, 0]]))
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    assert (e.weight.grad.numpy()[0] == 0).all() and (e.weight.grad.numpy()[1] == 1).all()
    with pytest.raises(ValueError, match="Padding_idx"):
        rt.nn_embedding(3, 2, padding_idx=3)


def test_a_small_model_learns():
    rt.torch_manual_seed(7)
    x = rt.torch_randn(64, 3)
    y = (x * rt.torch_tensor([1.0, -2.0, 0.5])).sum(1, keepdim=True)
    m = rt.nn_sequential(rt.nn_linear(3, 16), rt.nn_gelu(), rt.nn_layer_norm(16),
                         rt.nn_linear(16, 1))
    loss_fn = rt.nn_mse_loss()
    first = None
    for _ in range(200):
        m.zero_grad()
        loss = loss_fn(m(x), y)
        first = first if first is not None else loss.item()
        loss.backward()
        with rt.with_no_grad():
            for p in m.parameters.values():
                p.sub_(p.grad * 0.05)
    assert loss.item() < 0.1 * first


def test_loss_module_arguments():
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        rt.nn_l1_loss(reduction="avg")
    w = rt.torch_tensor([1.0, 2.0, 3.0])
    ce = rt.nn_cross_entropy_loss(weight=w, ignore_index=1)
    assert list(ce.buffers) == ["weight"] and list(ce.parameters) == []
    assert list(rt.nn_bce_with_logits_loss().buffers) == []


# ------------------------------------------------------------------------ against PyTorch

def _layer_pairs(torch):
    nn = torch.nn
    return [
        ("linear", lambda: rt.nn_linear(3, 4), lambda: nn.Linear(3, 4), [(5, 3)]),
        ("linear_nobias", lambda: rt.nn_linear(3, 4, bias=False),
         lambda: nn.Linear(3, 4, bias=False), [(2, 5, 3)]),
        ("bilinear", lambda: rt.nn_bilinear(3, 2, 4), lambda: nn.Bilinear(3, 2, 4),
         [(5, 3), (5, 2)]),
        ("layer_norm", lambda: rt.nn_layer_norm(4), lambda: nn.LayerNorm(4), [(3, 4)]),
        ("batch_norm1d", lambda: rt.nn_batch_norm1d(3), lambda: nn.BatchNorm1d(3), [(5, 3)]),
        ("batch_norm1d_3d", lambda: rt.nn_batch_norm1d(3, momentum=None),
         lambda: nn.BatchNorm1d(3, momentum=None), [(4, 3, 2)]),
        ("relu", rt.nn_relu, nn.ReLU, [(3, 4)]),
        ("relu6", rt.nn_relu6, nn.ReLU6, [(3, 4)]),
        ("leaky_relu", lambda: rt.nn_leaky_relu(0.2), lambda: nn.LeakyReLU(0.2), [(3, 4)]),
        ("elu", lambda: rt.nn_elu(0.5), lambda: nn.ELU(0.5), [(3, 4)]),
        ("gelu", rt.nn_gelu, nn.GELU, [(3, 4)]),
        ("gelu_tanh", lambda: rt.nn_gelu("tanh"), lambda: nn.GELU("tanh"), [(3, 4)]),
        ("silu", rt.nn_silu, nn.SiLU, [(3, 4)]),
        ("sigmoid", rt.nn_sigmoid, nn.Sigmoid, [(3, 4)]),
        ("tanh", rt.nn_tanh, nn.Tanh, [(3, 4)]),
        ("softmax", lambda: rt.nn_softmax(1), lambda: nn.Softmax(1), [(3, 4)]),
        ("log_softmax", lambda: rt.nn_log_softmax(0), lambda: nn.LogSoftmax(0), [(3, 4)]),
        ("softplus", lambda: rt.nn_softplus(2, 1), lambda: nn.Softplus(2, 1), [(3, 4)]),
        ("flatten", rt.nn_flatten, nn.Flatten, [(2, 3, 2)]),
        ("identity", rt.nn_identity, nn.Identity, [(2, 3)]),
        ("sequential", lambda: rt.nn_sequential(rt.nn_linear(3, 4), rt.nn_relu(),
                                                rt.nn_linear(4, 2)),
         lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), [(5, 3)]),
    ]


def _copy_weights(ours, theirs, torch):
    """PyTorch module's state into ours (same names)."""
    sd = {k: rt.torch_tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(sd)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("index", range(21))
def test_layers_against_torch(index, train, dtype):
    torch = pytest.importorskip("torch")
    name, make_ours, make_theirs, shapes = _layer_pairs(torch)[index]
    torch.manual_seed(index)
    theirs = make_theirs().to(getattr(torch, dtype))
    ours = make_ours().to(dtype=getattr(rt, "torch_" + dtype)())
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_weights(ours, theirs, torch)
    ours.train(train)
    theirs.train(train)
    rng = np.random.default_rng(index)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    xs = [rt.torch_tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for _ in range(2):  # twice: running statistics update in between
        y, ty = ours(*xs), theirs(*ts)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol)
        v = rng.standard_normal(y.shape).astype(dtype)
        (y * rt.torch_tensor(v)).sum().backward()
        (ty * torch.tensor(v)).sum().backward()
        for x, t in zip(xs, ts):
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), **tol)
        tparams = dict(theirs.named_parameters())
        for k, p in ours.parameters.items():
            np.testing.assert_allclose(p.grad.numpy(), tparams[k].grad.numpy(), **tol)
        for k, b in theirs.named_buffers():
            np.testing.assert_allclose(ours.buffers[k].numpy(), b.numpy(), **tol)
    assert sum(p.numel() for p in ours.parameters.values()) == \
        sum(p.numel() for p in theirs.parameters())


@pytest.mark.parametrize("name,ours,theirs,kind", [
    ("mse", rt.nn_mse_loss, "MSELoss", "float"),
    ("l1", rt.nn_l1_loss, "L1Loss", "float"),
    ("smooth_l1", lambda **k: rt.nn_smooth_l1_loss(beta=0.5, **k), "SmoothL1Loss", "float"),
    ("huber", lambda **k: rt.nn_huber_loss(delta=0.5, **k), "HuberLoss", "float"),
    ("cross_entropy", rt.nn_cross_entropy_loss, "CrossEntropyLoss", "class"),
    ("nll", rt.nn_nll_loss, "NLLLoss", "class"),
    ("bce", rt.nn_bce_loss, "BCELoss", "prob"),
    ("bce_logits", rt.nn_bce_with_logits_loss, "BCEWithLogitsLoss", "logit"),
])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_modules_against_torch(name, ours, theirs, kind, reduction):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    if kind == "class":
        t = rng.integers(0, 3, 4)
    else:
        t = rng.standard_normal((4, 3)) if kind == "float" else rng.uniform(0, 1, (4, 3))
    if kind == "prob":
        x = rng.uniform(0.05, 0.95, (4, 3))
    kw = {"reduction": reduction}
    if theirs == "HuberLoss":
        their = torch.nn.HuberLoss(delta=0.5, **kw)
    elif theirs == "SmoothL1Loss":
        their = torch.nn.SmoothL1Loss(beta=0.5, **kw)
    else:
        their = getattr(torch.nn, theirs)(**kw)
    a = rt.torch_tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    out = ours(**kw)(a, rt.torch_tensor(t))
    tout = their(b, torch.tensor(t))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 1}, {"max_norm": 0.5},
                                {"scale_grad_by_freq": True}])
def test_embedding_module_against_torch(kw):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.Embedding(6, 3, **kw).double()
    ours = rt.nn_embedding(6, 3, dtype=rt.torch_float64(), **kw)
    _copy_weights(ours, theirs, torch)
    idx = np.array([[1, 2, 1], [5, 0, 1]])
    y, ty = ours(rt.torch_tensor(idx)), theirs(torch.tensor(idx))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    v = np.random.default_rng(0).standard_normal(y.shape)
    (y * rt.torch_tensor(v)).sum().backward()
    (ty * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               rtol=1e-12)


def test_layer_norm_without_affine_and_dropout_module_modes():
    ln = rt.nn_layer_norm((2, 3), elementwise_affine=False)
    assert list(ln.parameters) == []
    x = rt.torch_randn(4, 2, 3, dtype=rt.torch_float64())
    out = ln(x).numpy().reshape(4, 6)
    np.testing.assert_allclose(out.mean(1), 0, atol=1e-12)
    # the variance after normalising is var / (var + eps), not 1 (eps = 1e-5)
    var = x.numpy().reshape(4, 6).var(1)
    np.testing.assert_allclose(out.var(1), var / (var + 1e-5), rtol=1e-10)
    d = rt.nn_dropout(0.5)
    x = rt.torch_ones(100)
    assert (d(x).numpy() == 0).any()
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError, match="dropout probability"):
        rt.nn_dropout(2)


def test_r_style_definition():
    def initialize(self, n_in, n_out):
        self.fc = rt.nn_linear(n_in, n_out)

    def forward(self, x):
        return self.fc(x) * self.scale_by

    Net2 = nn_module("Net2", initialize=initialize, forward=forward, scale_by=2.0)
    assert isinstance(Net2, type) and issubclass(Net2, nn_module) and Net2.__name__ == "Net2"
    m = Net2(3, 1)
    assert list(m.parameters) == ["fc.weight", "fc.bias"]
    x = rt.torch_randn(2, 3)
    np.testing.assert_allclose(m(x).detach().numpy(), m.fc(x).detach().numpy() * 2, rtol=1e-6)
    Child = nn_module("Child", inherit=Net2, forward=lambda self, x: -Net2.forward(self, x))
    c = Child(3, 1)
    assert isinstance(c, Net2) and "<Child>" in repr(nn_module_with(c))
    with pytest.raises(TypeError, match="inherit must be an nn_module class"):
        nn_module("Bad", inherit=int)
    assert isinstance(nn_module(), nn_module)


def nn_module_with(child):
    holder = nn_module()
    holder.child = child
    return holder
