"""Advanced indexing places its dims as libtorch does (integers select first; index tensors
separated by a slice go first, adjacent ones stay in place), for reading, assignment and their
gradients; 0-dim tensors take masks and index_select. Compared with PyTorch when installed, and
always with values recorded from PyTorch 2.13 (tests/_advidx_cases.py has the keys).

x is arange(n) reshaped, so a result's values are the flat positions it read; those positions
also give the expected gradients and the expected effect of an assignment."""
import math

import numpy as np
import pytest

import rtorchpy as rt
from _advidx_cases import CASES, ERROR_CASES, build_key

# recorded with PyTorch 2.13: result shape, values (= flat positions read), the result's grad_fn
# and its next function, and the grad_fn of a clone after `clone[key] = 0`
EXPECTED = [
    ([4, 2], [1, 2, 6, 7, 11, 12, 16, 17], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 5],
     [20, 21, 22, 23, 24, 40, 41, 42, 43, 44],
     ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 5],
     [5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
     ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 4], [20, 25, 30, 35, 40, 45, 50, 55], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2], [25, 48], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2], [25, 48], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([4, 2], [21, 22, 26, 27, 31, 32, 36, 37], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([4, 2], [44, 43, 49, 48, 54, 53, 59, 58], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 1, 5],
     [30, 31, 32, 33, 34, 40, 41, 42, 43, 44],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([1, 2, 5],
     [30, 31, 32, 33, 34, 40, 41, 42, 43, 44],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([2, 4],
     [24, 29, 34, 39, 40, 45, 50, 55],
     ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([3, 2], [14, 10, 34, 30, 54, 50], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 3], [34, 30, 31, 54, 50, 51], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([3, 2], [9, 10, 29, 30, 49, 50], ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([3, 2, 2],
     [1, 2, 3, 4, 21, 22, 23, 24, 41, 42, 43, 44],
     ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 3, 4],
     [1, 6, 11, 16, 3, 8, 13, 18, 4, 9, 14, 19, 41, 46, 51, 56, 43, 48, 53, 58, 44, 49, 54, 59],
     ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([2, 4, 5],
     [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
     43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([2, 4, 5],
     [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
     43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([2, 4, 5],
     [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
     43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([2, 4, 5],
     [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
     43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([1, 3, 4, 5],
     [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
     26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
     50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
     ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([0, 3, 4, 5], [], ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([4, 5],
     [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39],
     ['SelectBackward0', 'AccumulateGrad'], 'CopySlices'),
    ([2], [1, 44], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 5],
     [20, 21, 22, 23, 24, 30, 31, 32, 33, 34],
     ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([12],
     [0, 2, 4, 5, 7, 9, 10, 12, 14, 15, 17, 19],
     ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([6], [3, 18, 23, 38, 43, 58], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([2, 4],
     [1, 6, 11, 16, 42, 47, 52, 57],
     ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([0, 2], [], ['IndexBackward0', 'SliceBackward0'], 'CopySlices'),
    ([3, 0], [], ['IndexBackward0', 'SelectBackward0'], 'CopySlices'),
    ([3, 3],
     [3, 4, 5, 0, 1, 2, 3, 4, 5],
     ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([2, 3], [2, 2, 0, 5, 5, 3], ['IndexBackward0', 'AccumulateGrad'], 'IndexPutBackward0'),
    ([1], [0], ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([0], [], ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
    ([1, 1], [0], ['IndexBackward0', 'UnsqueezeBackward0'], 'CopySlices'),
]
EXPECTED_ERRORS = [
    (IndexError, 'shape mismatch: indexing tensors could not be broadcast together with shapes '
                 '[0], [2]'),
    (IndexError, 'shape mismatch: indexing tensors could not be broadcast together with shapes '
                 '[2], [0]'),
    (IndexError, 'The shape of the mask [4, 5] at index 0 does not match the shape of the indexed'
                 ' tensor [3, 4, 5] at index 0'),
    (IndexError, 'index 5 is out of bounds for dimension 0 with size 5'),
]


def _long(v):
    return rt.torch_tensor(v, dtype=rt.torch_long())


def _bool(v):
    return rt.torch_tensor(v, dtype=rt.torch_bool())


def _key(key):
    return build_key(key, _long, _bool)


def _x(shape):
    return rt.torch_tensor(np.arange(float(math.prod(shape))).reshape(shape), requires_grad=True)


def _node_name(fn):
    return None if fn is None else fn.name.replace("torch::autograd::", "")


def _positions(k):
    return np.asarray(EXPECTED[k][1], dtype=np.int64)


def _weights(shape):
    return np.arange(1.0, math.prod(shape) + 1.0).reshape(shape)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_read_places_dims_as_libtorch(k):
    shape, key = CASES[k]
    shape_out, values, nodes, _ = EXPECTED[k]
    x = _x(shape)
    r = x[_key(key)]
    assert list(r.shape) == shape_out
    assert r.detach().numpy().reshape(-1).tolist() == values
    assert [_node_name(r.grad_fn), _node_name(r.grad_fn.next_functions[0][0])] == nodes


@pytest.mark.parametrize("k", range(len(CASES)))
def test_read_gradient_goes_back_to_the_positions_read(k):
    shape, key = CASES[k]
    x = _x(shape)
    r = x[_key(key)]
    w = _weights(tuple(r.shape))
    (r * rt.torch_tensor(w)).sum().backward()
    expected = np.zeros(math.prod(shape))
    np.add.at(expected, _positions(k), w.reshape(-1))
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), expected)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_assignment_writes_where_reading_reads(k):
    shape, key = CASES[k]
    positions = _positions(k)
    if len(set(positions.tolist())) < positions.size:
        pytest.skip("repeated positions: which write wins is unspecified")
    shape_out, _, _, put_node = EXPECTED[k]
    x = _x(shape)
    v = rt.torch_tensor(-_weights(tuple(shape_out)), requires_grad=True)
    y = x.clone()
    y[_key(key)] = v
    assert _node_name(y.grad_fn) == put_node
    expected = np.arange(float(math.prod(shape)))
    expected[positions] = v.detach().numpy().reshape(-1)
    np.testing.assert_array_equal(y.detach().numpy().reshape(-1), expected)
    g = _weights(shape)
    (y * rt.torch_tensor(g)).sum().backward()
    gx = g.reshape(-1).copy()
    gx[positions] = 0.0
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), gx)
    np.testing.assert_array_equal(v.grad.numpy().reshape(-1), g.reshape(-1)[positions])


@pytest.mark.parametrize("k", range(len(CASES)))
def test_index_put_and_accumulate_place_dims_as_libtorch(k):
    shape, key = CASES[k]
    shape_out = EXPECTED[k][0]
    x = _x(shape)
    v = rt.torch_tensor(_weights(tuple(shape_out)))
    out = x.index_put(_key(key), v, accumulate=True)
    expected = np.arange(float(math.prod(shape)))
    np.add.at(expected, _positions(k), v.numpy().reshape(-1))
    np.testing.assert_array_equal(out.detach().numpy().reshape(-1), expected)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_second_order_through_indexing(k):
    shape, key = CASES[k]
    x = _x(shape)
    r = x[_key(key)]
    (gx,) = rt.autograd_grad((r * r).sum(), x, create_graph=True)
    (ggx,) = rt.autograd_grad((gx * gx).sum(), x)
    counts = np.zeros(math.prod(shape))
    np.add.at(counts, _positions(k), 1.0)
    xs = np.arange(float(math.prod(shape)))
    # gx = 2 c x, so d/dx sum(gx^2) = 8 c^2 x
    np.testing.assert_array_equal(ggx.numpy().reshape(-1), 8 * counts ** 2 * xs)


@pytest.mark.parametrize("k", range(len(ERROR_CASES)))
def test_errors_say_what_libtorch_says(k):
    shape, key = ERROR_CASES[k]
    kind, message = EXPECTED_ERRORS[k]
    x = _x(shape)
    with pytest.raises(kind) as info:
        x[_key(key)]
    assert str(info.value) == message
    if "broadcast" not in message:  # assignment checks the index the same way
        with pytest.raises(kind) as info:
            x.detach().clone()[_key(key)] = 1.0
        assert str(info.value) == message


def test_python_and_numpy_disagree_on_the_motivating_case():
    """The issue's example: NumPy would give (2, 4) and transpose the values."""
    x = _x((3, 4, 5))
    r = x[0, :, [1, 2]]
    assert list(r.shape) == [4, 2]
    assert np.asarray(x.detach().numpy()[0, :, [1, 2]]).shape == (2, 4)
    r.sum().backward()  # used to fail: the gradient's shape did not match
    assert x.grad.numpy()[0, :, 1:3].sum() == 8


def test_value_that_does_not_broadcast():
    x = rt.torch_zeros(3, 4, 5)
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be "
                                           r"broadcast to indexing result of shape \[4, 2\]"):
        x[0, :, [1, 2]] = rt.torch_ones(3)


# ---------------------------------------------------------------- 0-dim tensors

def test_mask_on_a_0dim_tensor():
    t = rt.torch_tensor(2.0, requires_grad=True)
    y = t[t > 0]
    assert list(y.shape) == [1] and y.item() == 2.0
    assert list(t[t < 0].shape) == [0]
    (y * 3).sum().backward()
    assert t.grad.item() == 3.0


def test_mask_assignment_on_a_0dim_tensor():
    t = rt.torch_tensor(2.0, requires_grad=True)
    u = t.clone()
    u[u > 0] = 7.0
    assert u.item() == 7.0 and _node_name(u.grad_fn) == "CopySlices"
    u.backward()
    assert t.grad.item() == 0.0
    w = t.detach().clone()
    w[w < 0] = rt.torch_tensor([7.0])[:0]
    assert w.item() == 2.0


def test_index_select_on_a_0dim_tensor():
    t = rt.torch_tensor(2.0, requires_grad=True)
    for index in ([0], 0):
        r = t.index_select(0, _long(index))
        assert list(r.shape) == [] and r.item() == 2.0
        assert _node_name(r.grad_fn) == "IndexSelectBackward0"
    r = t.index_select(-1, _long([0]))
    (r * 3).backward()
    assert t.grad.item() == 3.0
    with pytest.raises(RuntimeError, match=r"^index_select\(\): Index to scalar can have only 1 "
                                           r"value, got 2 value\(s\)$"):
        t.index_select(0, _long([0, 0]))
    with pytest.raises(RuntimeError, match="got 0 value"):
        t.index_select(0, _long([]))
    for index in ([1], [-1]):  # PyTorch 2.13 takes no -1 here
        with pytest.raises(IndexError, match="index out of range in self"):
            t.index_select(0, _long(index))


def test_index_select_errors():
    x = rt.torch_zeros(2, 3)
    with pytest.raises(IndexError, match=r"^index_select\(\): Index is supposed to be a vector$"):
        x.index_select(1, _long([[0]]))
    with pytest.raises(RuntimeError, match=r"Expected dtype int32 or int64 for index"):
        x.index_select(1, rt.torch_tensor([0.0]))


# ---------------------------------------------------------------- against PyTorch itself

def test_cases_against_pytorch():
    torch = pytest.importorskip("torch")

    def tkey(key):
        return build_key(key, lambda v: torch.tensor(v, dtype=torch.long),
                         lambda v: torch.tensor(v, dtype=torch.bool))
    for (shape, key), expected in zip(CASES, EXPECTED):
        xt = torch.arange(float(math.prod(shape))).reshape(shape).requires_grad_()
        rt_ = xt[tkey(key)]
        x = _x(shape)
        r = x[_key(key)]
        np.testing.assert_array_equal(r.detach().numpy(), rt_.detach().numpy())
        assert [list(rt_.shape), rt_.detach().reshape(-1).long().tolist()] == list(expected[:2])
        w = _weights(tuple(r.shape))
        (rt_ * torch.tensor(w)).sum().backward()
        (r * rt.torch_tensor(w)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    for (shape, key), (kind, message) in zip(ERROR_CASES, EXPECTED_ERRORS):
        with pytest.raises(kind) as info:
            torch.zeros(shape)[tkey(key)]
        assert str(info.value) == message


def test_byte_tensor_is_a_mask_with_a_warning():
    x = rt.torch_tensor(np.arange(6.0).reshape(3, 2))
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        r = x[rt.torch_tensor([1, 0, 1], dtype=rt.torch_uint8())]
    np.testing.assert_array_equal(r.numpy(), [[0.0, 1.0], [4.0, 5.0]])  # PyTorch 2.13's result


@pytest.mark.parametrize("k", range(len(CASES)))
def test_gradcheck_read_and_assign(k):
    """First and second derivatives of reading and of assignment (numerical check)."""
    shape, key = CASES[k]
    rng = np.random.default_rng(k)
    x = rt.torch_tensor(rng.random(shape), dtype=rt.torch_float64(), requires_grad=True)
    v = rt.torch_tensor(rng.random(EXPECTED[k][0]), dtype=rt.torch_float64(), requires_grad=True)

    def read(x):
        return x[_key(key)] ** 2

    def assign(x, v):
        y = x * 1.0
        y[_key(key)] = v * v
        return y * y
    assert rt.autograd_gradcheck(read, (x,)) and rt.autograd_gradgradcheck(read, (x,))
    positions = EXPECTED[k][1]
    if len(set(positions)) == len(positions):
        assert rt.autograd_gradcheck(assign, (x, v)) and rt.autograd_gradgradcheck(assign, (x, v))


def test_0dim_cases_against_pytorch():
    torch = pytest.importorskip("torch")
    for value in (2.0, -2.0):
        tt = torch.tensor(value, requires_grad=True)
        t = rt.torch_tensor(value, requires_grad=True)
        rt_, r = tt[tt > 0], t[t > 0]
        assert list(r.shape) == list(rt_.shape)
        (rt_ * 3).sum().backward()
        (r * 3).sum().backward()
        assert t.grad.item() == tt.grad.item()
        ut, u = tt.detach().clone(), t.detach().clone()
        ut[ut > 0] = 7.0
        u[u > 0] = 7.0
        assert u.item() == ut.item()
        for index in ([0], 0):
            assert (t.index_select(0, _long(index)).item()
                    == tt.index_select(0, torch.tensor(index)).item())
        for index in ([0, 0], [], [1], [-1]):
            with pytest.raises(Exception) as expected:
                tt.index_select(0, torch.tensor(index, dtype=torch.long))
            with pytest.raises(type(expected.value)) as got:
                t.index_select(0, _long(index))
            assert str(got.value) == str(expected.value)


def _random_key(rng, shape):
    """Entries for ``shape``: ints (some out of range), slices, None, bools, long tensors of 0,
    1 and 2 dims, masks, and an Ellipsis now and then; as (kind, value) pairs."""
    key, d = [], 0
    while d < len(shape) and len(key) < 4:
        n = shape[d]
        kind = rng.integers(9)
        entry = [("int", int(rng.integers(-n - 1, n + 1))), ("slice", int(rng.integers(n))),
                 ("none", None), ("bool", bool(rng.random() < 0.7)),
                 ("long", rng.integers(-n - 1, n + 1, size=int(rng.choice([1, 2, 2]))).tolist()),
                 ("long", rng.integers(n, size=(2, 1)).tolist()),
                 ("mask", (rng.random(n) < 0.5).tolist()), ("long", int(rng.integers(n))),
                 ("full", None)][kind]
        key.append(entry)
        d += entry[0] not in ("none", "bool")
    if rng.random() < 0.2:
        key.insert(int(rng.integers(len(key) + 1)), ("ellipsis", None))
    return key


def _build(key, long_tensor, bool_tensor):
    simple = {"none": lambda v: None, "bool": lambda v: v, "full": lambda v: slice(None),
              "ellipsis": lambda v: Ellipsis, "int": lambda v: v, "slice": lambda v: slice(v, None),
              "long": long_tensor, "mask": bool_tensor}
    return tuple(simple[kind](v) for kind, v in key)


def test_random_keys_against_pytorch():
    """Values, errors, gradients and assignment for random mixes of every kind of entry."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for _ in range(600):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(1, 4))))
        key = _random_key(rng, shape)
        tkey = _build(key, lambda v: torch.tensor(v, dtype=torch.long),
                      lambda v: torch.tensor(v, dtype=torch.bool))
        xt = torch.arange(float(math.prod(shape))).reshape(shape).requires_grad_()
        x = _x(shape)
        try:
            expected = xt[tkey]
        except IndexError as e:
            with pytest.raises(IndexError) as got:
                x[_build(key, _long, _bool)]
            if "out of bounds" in str(e):  # a select's dim is counted as the basic path does
                assert str(got.value).split(" for ")[0] == str(e).split(" for ")[0], key
            else:
                assert str(got.value) == str(e), key
            continue
        r = x[_build(key, _long, _bool)]
        np.testing.assert_array_equal(r.detach().numpy(), expected.detach().numpy(), str(key))
        w = _weights(tuple(expected.shape))
        (expected * torch.tensor(w)).sum().backward()
        (r * rt.torch_tensor(w)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy(), str(key))
        positions = expected.detach().reshape(-1).long().tolist()
        if len(set(positions)) == len(positions):
            yt, y = xt.detach().clone(), x.detach().clone()
            yt[tkey] = -torch.tensor(w, dtype=torch.float32)
            y[_build(key, _long, _bool)] = rt.torch_tensor(-w)
            np.testing.assert_array_equal(y.numpy(), yt.numpy(), str(key))


# ---------------------------------------------------------------- index_put, index_put_

INDEX_PUT_CASES = [  # (indices as markers, accumulate); x is arange(12) as 3 x 4, values 100+
    ((("L", [0, 2]), ("L", [1, 1])), True),
    ((("L", [0, 2]), ("L", [3, 1])), False),
    ((("B", [True, False, True]),), True),
]
# recorded with PyTorch 2.13: x.index_put(indices, values, accumulate) flattened
INDEX_PUT_EXPECTED = [
    [0, 101, 2, 3, 4, 5, 6, 7, 8, 110, 10, 11],
    [0, 1, 2, 100, 4, 5, 6, 7, 8, 101, 10, 11],
    [100, 102, 104, 106, 4, 5, 6, 7, 112, 114, 116, 118],
]


@pytest.mark.parametrize("k", range(len(INDEX_PUT_CASES)))
def test_index_put_takes_one_index_per_dim(k):
    key, accumulate = INDEX_PUT_CASES[k]
    indices = list(_key(key))
    shape_out = (2,) if k < 2 else (2, 4)
    v = rt.torch_tensor(100.0 + np.arange(math.prod(shape_out)).reshape(shape_out),
                        requires_grad=True)
    x = _x((3, 4))
    out = x.index_put(indices, v, accumulate=accumulate)
    assert out.detach().numpy().reshape(-1).tolist() == INDEX_PUT_EXPECTED[k]
    assert _node_name(out.grad_fn) == "IndexPutBackward0"
    y = x * 1.0
    assert y.index_put_(tuple(indices), v, accumulate=accumulate) is y
    assert y.detach().numpy().reshape(-1).tolist() == INDEX_PUT_EXPECTED[k]
    assert _node_name(y.grad_fn) == "IndexPutBackward0"
    (y * rt.torch_tensor(_weights((3, 4)))).sum().backward()
    assert v.grad is not None and x.grad is not None


def test_index_put_against_pytorch():
    torch = pytest.importorskip("torch")
    for (key, accumulate), expected in zip(INDEX_PUT_CASES, INDEX_PUT_EXPECTED):
        tkey = build_key(key, lambda v: torch.tensor(v, dtype=torch.long),
                         lambda v: torch.tensor(v, dtype=torch.bool))
        xt = torch.arange(12.0).reshape(3, 4).requires_grad_()
        n = xt[tkey].numel()
        vt = (100.0 + torch.arange(float(n))).reshape(xt[tkey].shape).requires_grad_()
        yt = xt * 1.0
        yt.index_put_(tkey, vt, accumulate=accumulate)
        assert yt.detach().reshape(-1).long().tolist() == expected
        x = _x((3, 4))
        v = rt.torch_tensor(vt.detach().numpy(), requires_grad=True)
        y = x * 1.0
        y.index_put_(list(_key(key)), v, accumulate=accumulate)
        w = _weights((3, 4))
        (yt * torch.tensor(w, dtype=torch.float32)).sum().backward()
        (y * rt.torch_tensor(w)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
        np.testing.assert_array_equal(v.grad.numpy(), vt.grad.numpy())
