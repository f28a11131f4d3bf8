"""The engine's fast paths give the same answers as the general ones: version checks skipped
while no in-place op happened, a chain run without the heap, gradients the engine owns added
into in place or handed to ``.grad``, and a full reduction's gradient kept as a repeated value.

Large tensors (more than 4096 elements) are what switch the ownership and zero-stride paths
on, so several tests run at both sizes.
"""
import warnings

import numpy as np
import pytest

from rtorchpy import torch_tensor, with_no_grad
from rtorchpy.autograd import graph

SIZES = [(3, 4), (100, 100)]  # below and above the engine's ownership threshold


def leaf(arr):
    return torch_tensor(arr.astype(np.float32), requires_grad=True)


def rand(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def test_saved_tensor_modified_after_an_unrelated_in_place_op_is_still_caught():
    x = leaf(np.array([0.5, 1.0]))
    y = x.exp()                      # saves its output
    other = torch_tensor([1.0])
    other.add_(1)                    # moves the in-place epoch: checks now run
    z = y * 1.0
    y.mul_(2)                        # the saved output itself changes
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        z.sum().backward()


def test_in_place_op_elsewhere_does_not_raise_a_false_version_error():
    x = leaf(np.array([0.5, 1.0]))
    y = x.sin()                      # saves x
    unrelated = torch_tensor([1.0, 2.0])
    unrelated.mul_(3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.0]), rtol=1e-6)


def test_in_place_under_no_grad_before_recording_is_not_an_error():
    w = leaf(np.array([1.0, 2.0]))
    with with_no_grad():
        w.sub_(0.5)
    epoch = graph.INPLACE_EPOCH[0]
    (w.exp() * w).sum().backward()
    assert graph.INPLACE_EPOCH[0] == epoch
    v = np.array([0.5, 1.5])
    np.testing.assert_allclose(w.grad.numpy(), np.exp(v) * (1 + v), rtol=1e-6)


@pytest.mark.parametrize("shape", SIZES)
def test_gradients_meeting_at_a_leaf_add_up(shape):
    a = rand(shape)
    x = leaf(a)
    (x * x + 3 * x + (x.exp() * 2)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * a + 3 + 2 * np.exp(a), rtol=1e-5)


@pytest.mark.parametrize("shape", SIZES)
def test_leaf_grads_share_memory_with_nothing(shape):
    a, b = leaf(rand(shape, 1)), leaf(rand(shape, 2))
    (a * b).sum().backward()
    for g in (a.grad._data, b.grad._data):
        assert g.flags.writeable
        for other in (a._data, b._data):
            assert not np.shares_memory(g, other)
    assert not np.shares_memory(a.grad._data, b.grad._data)
    before = b._data.copy()
    a.grad.add_(1)                   # writing .grad must not reach b
    np.testing.assert_array_equal(b._data, before)


@pytest.mark.parametrize("shape", SIZES)
def test_gradient_of_a_sum_is_writeable_in_grad(shape):
    x = leaf(rand(shape))
    (x * 3).sum().backward()         # a repeated value all the way down to the leaf
    assert x.grad._data.flags.writeable
    x.grad.add_(1)
    assert np.all(x.grad.numpy() == 4)


@pytest.mark.parametrize("shape", SIZES)
def test_hook_keeps_the_gradient_it_saw(shape):
    a = rand(shape)
    x = leaf(a)
    seen = []
    h = x * 2
    h.register_hook(lambda g: seen.append(g))
    (h.exp() + h.sin()).sum().backward()
    # exp and cos correctly rounded to float32, as rtorchpy computes them: exp(2a) + cos(2a)
    # cancels to ~3e-4 for some a, where NumPy's own float32 kernels are off by more than rtol
    h64 = (2 * a).astype(np.float64)
    expected = np.exp(h64).astype(np.float32) + np.cos(h64).astype(np.float32)
    np.testing.assert_allclose(seen[0].numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected, rtol=1e-5)
    x.grad.add_(1)                   # the hook's tensor is not .grad's storage
    np.testing.assert_allclose(seen[0].numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("shape", SIZES)
def test_second_backward_adds_into_existing_grad(shape):
    a = rand(shape)
    x = leaf(a)
    for _ in range(2):
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * a, rtol=1e-6)


def test_chain_with_a_branch_that_rejoins():
    # the chain's nodes run without the heap; the branch from x must still wait for them
    x = leaf(np.array([0.3, -0.2]))
    y = x
    for _ in range(50):
        y = (y * 1.01).sin()
    z = (y + x * 3).sum()
    z.backward()
    eps, a = 1e-3, np.array([0.3, -0.2], np.float64)

    def f(v):
        y = v
        for _ in range(50):
            y = np.sin(y * 1.01)
        return (y + v * 3).sum()
    numeric = [(f(a + eps * e) - f(a - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-3)


def test_retain_graph_runs_the_fast_path_twice():
    x = leaf(np.array([0.1, 0.2]))
    y = x.tanh().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - np.tanh([0.1, 0.2]) ** 2), rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_large_fresh_gradients_reach_grad_without_a_copy(monkeypatch):
    # the point of the ownership bookkeeping: a product made for one leaf becomes its .grad
    from rtorchpy.autograd import engine
    steals = []
    real = engine.accumulate_into_leaf

    def spy(leaf_, g, as_tensors, **kw):
        steals.append(kw.get("steal"))
        return real(leaf_, g, as_tensors, **kw)
    monkeypatch.setattr(engine, "accumulate_into_leaf", spy)
    a, b = leaf(rand((100, 100), 1)), leaf(rand((100, 100), 2))
    (a * b).sum().backward()
    assert steals == [True, True]
    steals.clear()
    c = leaf(rand((3, 4)))          # small: copied, no bookkeeping
    (c * c).sum().backward()
    assert steals == [False]


def test_chain_stops_where_a_node_still_waits_for_another_gradient():
    a0 = np.array([0.4, -0.7])
    x = leaf(a0)
    a = x.sin()                      # a feeds two chains: exp -> mul and cos
    y = (a.exp() * 2.0 + a.cos().tanh()).sum()
    y.backward()
    s = np.sin(a0)
    da = 2 * np.exp(s) - np.sin(s) * (1 - np.tanh(np.cos(s)) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), da * np.cos(a0), rtol=1e-5)


def test_chain_stops_at_a_node_with_a_hook():
    a0 = np.array([0.1, 0.5])
    x = leaf(a0)
    h = x.exp()
    h.register_hook(lambda g: g * 10)
    (h.sin() * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10 * 3 * np.cos(np.exp(a0)) * np.exp(a0),
                               rtol=1e-5)


@pytest.mark.parametrize("constant_first", [False, True])
def test_chain_runs_through_a_sum_with_a_constant_at_either_position(constant_first):
    # the inner chain loop follows the one input of h + c that needs a gradient; with
    # broadcasting and promotion, that input's own shape and dtype must be used (the reshape
    # below fails if the gradient reaching it still has c's shape)
    x = torch_tensor(np.array([0.3, -0.6], dtype=np.float32), requires_grad=True)
    cv = np.array([[0.1, 0.2], [-0.4, 0.5], [0.0, 0.3]])
    c = torch_tensor(cv)                                     # float64, shape (3, 2)
    h = x.sin().reshape(1, 2)
    y = (c + h) if constant_first else (h + c)               # float64, shape (3, 2)
    (y.exp() * 2.0).sum().backward()
    assert x.grad.shape == (2,) and x.grad.numpy().dtype == np.float32
    s = np.sin(np.array([0.3, -0.6], dtype=np.float32)).astype(np.float64)
    expected = np.cos([0.3, -0.6]) * np.sum(2 * np.exp(s + cv), axis=0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_chain_through_a_sum_of_two_gradient_inputs_still_reaches_both():
    x = leaf(np.array([0.5, -0.25]))
    w = leaf(np.array([0.2, -0.3]))
    (x.sin() + w.exp()).tanh().sum().backward()
    t = 1 - np.tanh(np.sin([0.5, -0.25]) + np.exp([0.2, -0.3])) ** 2
    np.testing.assert_allclose(x.grad.numpy(), t * np.cos([0.5, -0.25]), rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), t * np.exp([0.2, -0.3]), rtol=1e-5)


@pytest.mark.parametrize("create_graph", [False, True])
def test_bias_gradient_drops_leading_dims(create_graph):
    # sum_to_shape's leading-dims-only case: (8, 4) -> (4,) and (2, 3) -> ()
    x, b, s = leaf(rand((8, 4))), leaf(rand((4,), 1)), leaf(np.array(0.5))
    ((x + b) * (x * s)).sum().backward(create_graph=create_graph)
    xv = x.detach().numpy()
    np.testing.assert_allclose(b.grad.detach().numpy(), (xv * 0.5).sum(0), rtol=1e-5)
    np.testing.assert_allclose(s.grad.detach().numpy(), ((xv + b.detach().numpy()) * xv).sum(),
                               rtol=1e-5)
    assert b.grad.shape == (4,) and s.grad.shape == ()
    assert b.grad.detach().numpy().dtype == np.float32
    assert s.grad.detach().numpy().dtype == np.float32


def test_backward_from_one_output_of_a_multi_output_node():
    # a single root that is output 1 of a two-output node: the other output gets no gradient
    from rtorchpy import autograd_function

    def forward(ctx, x):
        ctx.save_for_backward(x=x)
        return x * 2, x * 3

    def backward(ctx, g2, g3):
        assert float(g2.sum()) == 0.0          # materialized zeros for the unused output
        return {"x": g2 * 2 + g3 * 3}

    f = autograd_function(forward, backward)
    x = leaf(np.array([1.0, 2.0]))
    f(x)[1].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_edges_to_a_second_output_keep_its_output_number():
    # recording takes a shortcut for inputs that are output 0 of their node; output 1 of a
    # two-output node must still be wired to output 1, through one- and two-input ops alike
    from rtorchpy import autograd_function

    def forward(ctx, x):
        return x * 2, x * 3

    def backward(ctx, g2, g3):
        return {"x": g2 * 2 + g3 * 3}

    f = autograd_function(forward, backward)
    x = leaf(np.array([0.5, -1.0]))
    a, b = f(x)
    y = b.exp()                                   # one input, output_nr 1
    z = a + b                                     # two inputs, output_nr 0 and 1
    assert y.grad_fn.next_functions == ((a.grad_fn, 1),)
    assert z.grad_fn.next_functions == ((a.grad_fn, 0), (a.grad_fn, 1))
    (y.sum() + z.sum()).backward()
    xv = np.array([0.5, -1.0])
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * xv) + 2 + 3, rtol=1e-6)


def test_a_gradient_is_freed_once_its_leaf_has_taken_it():
    # leaves' accumulators run last; by the time the second one runs, the gradient the first one
    # copied into .grad must be gone (the engine once kept the last buffer it made, and the
    # zip over a node's outputs its last item, alive: +1 MiB at the peak of an MLP step)
    import weakref
    a, b = leaf(rand((50, 50))), leaf(rand((50, 50), 1))
    arrived = {}

    def on_b(t):
        arrived["b"] = weakref.ref(t._data)

    def on_a(t):
        arrived["b_alive_when_a_runs"] = arrived["b"]() is not None

    b.register_hook(on_b)
    a.register_hook(on_a)
    (b * 3.0 + a * 2.0).sum().backward()   # b's accumulator is made first, so it runs first
    assert arrived["b_alive_when_a_runs"] is False
    np.testing.assert_allclose(b.grad.numpy(), np.full((50, 50), 3.0))


# -- in-place writes that record nothing (zero_, fill_, copy_) and mean -------------------------
# zero_(), fill_() and copy_() write straight into the tensor's memory when no node is needed
# (the optimizers' zero_grad(), updates under with_no_grad); the general path stays for the
# rest. These pin that both give the same values, versions and errors.

def test_zero_and_fill_without_recording_write_in_place_and_bump_the_version():
    x = torch_tensor([1.0, 2.0, 3.0])
    v = x[1:]
    assert v.zero_() is v
    assert x.tolist() == [1.0, 0.0, 0.0] and x._version[0] == 1
    x.fill_(2.5)
    assert x.tolist() == [2.5, 2.5, 2.5] and x._version[0] == 2
    assert x.fill_(torch_tensor(4.0)).tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize("values, fill, expected", [
    ([1, 2, 3], 2.7, [2, 2, 2]),          # NumPy's unsafe cast, as np.full does
    ([1, 2, 3], -1, [-1, -1, -1]),
    ([True, False], 2, [True, True]),
])
def test_fill_casts_to_the_tensor_dtype(values, fill, expected):
    t = torch_tensor(values)
    dtype = t._data.dtype
    assert t.fill_(fill).tolist() == expected and t._data.dtype == dtype


def test_zero_under_no_grad_is_seen_by_the_version_check_of_saved_values():
    x = leaf(np.array([1.0, 2.0]))
    y = x.exp()
    z = y * 1.0
    with with_no_grad():
        y.zero_()
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        z.sum().backward()


def test_writes_that_need_the_general_path_still_take_it():
    x = leaf(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.zero_()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0:1].fill_(1.0)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.copy_(torch_tensor([3.0, 4.0]))
    y = x * 2
    y[0:1].zero_()                       # recorded: the zeroed element passes no gradient
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0]
    x.grad = None
    out = torch_tensor([0.0, 0.0])
    out.copy_(x)                         # recorded: gradient flows through the copy
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    e = torch_tensor([1.0]).expand(3)    # expanded memory: a uniform write is allowed
    assert e.zero_().tolist() == [0.0, 0.0, 0.0]


def test_copy_without_recording_casts_broadcasts_and_handles_overlap():
    t = torch_tensor([1, 2])
    assert t.copy_(torch_tensor([1.7, -2.7])).tolist() == [1, -2] and t._version[0] == 1
    assert torch_tensor([[1.0, 2.0], [3.0, 4.0]]).copy_(torch_tensor([5.0, 6.0])).tolist() == \
        [[5.0, 6.0], [5.0, 6.0]]
    x = torch_tensor([1.0, 2.0, 3.0, 4.0])
    x[1:].copy_(x[:3])                   # source and target share memory
    assert x.tolist() == [1.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="must match the size"):
        torch_tensor([1.0, 2.0]).copy_(torch_tensor([1.0, 2.0, 3.0]))


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape, dims", [
    ((), None), ((7,), None), ((100, 3), None), ((100, 3), (0,)), ((100, 3), (1,)),
    ((2, 3, 4), (0, 2)), ((4097, 3), (0,)), ((3, 100000), None),
])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean_gives_numpys_mean_bit_for_bit(dtype, shape, dims, keepdim):
    # mean divides NumPy's sum itself (numerics.arrays.mean_of: ndarray.mean's Python-level
    # steps cost more than the sum on a small tensor); the result must stay NumPy's, on every
    # CPU NumPy dispatches for
    scale = 1.0 if dtype == np.float16 else 1e3  # (float16 sums stay below its 65504)
    a = (np.random.default_rng(3).standard_normal(shape) * scale).astype(dtype)
    expected = np.asarray(a.mean(axis=dims, keepdims=keepdim, dtype=dtype))
    all_dims = tuple(range(a.ndim))
    t = torch_tensor(a)
    got = t.mean(dim=dims or all_dims, keepdim=keepdim) if dims or keepdim else t.mean()
    assert got._data.dtype == expected.dtype and got._data.shape == expected.shape
    assert got._data.tobytes() == expected.tobytes()


def test_mean_of_an_empty_dim_is_nan_with_numpys_warning():
    with warnings.catch_warnings(record=True) as seen:  # (NumPy's, then its 0/0 one)
        warnings.simplefilter("always")
        got = torch_tensor(np.zeros((5, 0), np.float32)).mean(dim=1)
    assert "Mean of empty slice" in str(seen[0].message)
    assert got.shape == (5,) and np.isnan(got._data).all()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_losses_take_numpys_mean_bit_for_bit(dtype):
    from rtorchpy import nnf_mse_loss
    rng = np.random.default_rng(4)
    x, y = (rng.standard_normal((37, 5)).astype(dtype) for _ in range(2))
    expected = ((x - y) ** 2).mean()
    assert nnf_mse_loss(torch_tensor(x), torch_tensor(y))._data.tobytes() == \
        np.asarray(expected, dtype=dtype).tobytes()


@pytest.mark.parametrize("i", [0, 2, -1, -3])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_integer_index_matches_the_general_key_path(i, requires_grad):
    # x[i] takes a shortcut to select(0, i); x[(i,)] still runs the general loop
    base = torch_tensor(rand((3, 4)), requires_grad=requires_grad)
    x = base * 1.0 if requires_grad else base
    fast, general = x[i], x[(i,)]
    np.testing.assert_array_equal(fast._data, general._data)
    assert type(fast.grad_fn) is type(general.grad_fn)  # SelectBackward0, or both None
    assert np.shares_memory(fast._data, x._data)  # a view, as x[(i,)]
    for key in (3, -4):
        with pytest.raises(IndexError, match=f"index {key} is out of bounds for dimension 0 "
                                             "with size 3"):
            x[key]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        torch_tensor(1.0)[0]
