"""Piecewise gradients select (as libtorch's ``where``), so inf or NaN from the branch not taken
never leaks, at first and second order; NaN incoming gradients land where libtorch puts them.

Each case runs in rtorchpy and, when installed, in PyTorch; without PyTorch it is compared with
the values PyTorch 2.13 gave (``EXPECTED``, recorded by ``_record_expected`` below)."""
import math

import numpy as np
import pytest

import rtorchpy as rt

nan, inf = math.nan, math.inf
X = [-0.5, 0.0, 0.5, nan, inf, -inf]
X8 = X + [1.0, 2.0]
PAIR = [[1.0, 2.0, 3.0, nan, 1.0, nan], [2.0, 2.0, 1.0, 1.0, nan, nan]]


def _maximum(m, a, b):
    return m.maximum(a, b) if m is not rt else rt.torch_maximum(a, b)


def _minimum(m, a, b):
    return m.minimum(a, b) if m is not rt else rt.torch_minimum(a, b)


def _where_pos(m, x):
    if m is rt:
        return rt.torch_where(x > 0, x, rt.torch_zeros_like(x))
    return m.where(x > 0, x, m.zeros_like(x))


def _max_dim(m, x):
    return x.max(1)[0] if m is not rt else x.max(dim=1)[0]


# name -> (function of (module, *inputs), inputs)
CASES = {
    "relu": (lambda m, x: x.relu(), [X]),
    "relu_sqrt": (lambda m, x: x.relu().sqrt(), [X]),
    "relu_pow": (lambda m, x: x.relu() ** 1.5, [X]),
    "sqrt_relu": (lambda m, x: x.sqrt().relu(), [X]),
    "clamp_min_sqrt": (lambda m, x: x.clamp(min=0).sqrt(), [X]),
    "clamp_min_fn_sqrt": (lambda m, x: x.clamp_min(0).sqrt(), [X]),
    "clamp_max_sqrt": (lambda m, x: (x.clamp_max(1) + 1).sqrt(), [[-2.0, 1.0, 2.0, nan, inf]]),
    "clamp01_log": (lambda m, x: x.clamp(0, 1).log(), [X8]),
    "clamp01_pow": (lambda m, x: x.clamp(0, 1) ** 1.5, [X8]),
    "clamp_tensor": (lambda m, x, lo, hi: x.clamp(lo, hi).sqrt(),
                     [X, [0.0] * 6, [1.0, 1.0, 1.0, 1.0, 1.0, -1.0]]),
    "abs": (lambda m, x: x.abs(), [X]),
    "abs_sqrt": (lambda m, x: x.abs().sqrt(), [X]),
    "sign": (lambda m, x: x.sign(), [X]),
    "max_all": (lambda m, x: x.max(), [[1.0, 3.0, 3.0, -1.0]]),
    "max_all_nan": (lambda m, x: x.max(), [[1.0, nan, 3.0, nan]]),
    "max_all_sqrt": (lambda m, x: (x.max() - 3).sqrt(), [[1.0, 3.0, 2.0]]),
    "min_all_nan": (lambda m, x: x.min(), [[1.0, -3.0, -3.0, nan]]),
    "min_all": (lambda m, x: x.min(), [[1.0, -3.0, -3.0, 2.0]]),
    "max_dim": (_max_dim, [[[1.0, 3.0, 3.0], [nan, 1.0, 2.0]]]),
    "amax": (lambda m, x: x.amax(1), [[[1.0, 3.0, 3.0], [nan, 1.0, 2.0]]]),
    "amin": (lambda m, x: x.amin(1), [[[1.0, -3.0, -3.0], [nan, 1.0, 2.0]]]),
    "maximum": (_maximum, PAIR),
    "minimum": (_minimum, PAIR),
    "maximum_sqrt": (lambda m, a, b: _maximum(m, a, b).sqrt(), [[0.0, -1.0], [-1.0, 0.0]]),
    "prod": (lambda m, x: x.prod(), [[1.0, 2.0, 3.0]]),
    "prod_one_zero": (lambda m, x: x.prod(), [[1.0, 0.0, 3.0]]),
    "prod_two_zeros": (lambda m, x: x.prod(), [[1.0, 0.0, 0.0]]),
    "prod_nan_zero": (lambda m, x: x.prod(), [[1.0, nan, 0.0]]),
    "prod_inf": (lambda m, x: x.prod(), [[1.0, inf, 2.0]]),
    "prod_dim_zeros": (lambda m, x: x.prod(1), [[[1.0, 0.0, 0.0], [1.0, 2.0, 3.0]]]),
    "prod_dim_inf": (lambda m, x: x.prod(1), [[[1.0, 0.0, 2.0], [1.0, inf, 3.0]]]),
    "where_sqrt": (lambda m, x: _where_pos(m, x).sqrt(), [X]),
    "masked_fill_sqrt": (lambda m, x: x.masked_fill(x < 0, 0.0).sqrt(), [X]),
    "std_zero": (lambda m, x: x.std(), [[1.0, 1.0]]),
    "pow_tensor": (lambda m, x, e: x ** e, [[0.0, 0.0, 2.0, 0.0], [0.0, 2.0, 0.0, -1.0]]),
    "pow_zero_base": (lambda m, e: 0.0 ** e, [[0.0, 2.0, -1.0]]),
    "pow_zero_exponent": (lambda m, x: x ** 0, [[0.0, 2.0]]),
}
for _p in (1, 2, 1.5, 3, 0.5, inf):
    for _label, _x in (("zero", [0.0, 0.0]), ("part", [0.0, 3.0, -4.0]),
                       ("nan", [nan, 3.0, -4.0])):
        CASES[f"norm{_p}_{_label}"] = ((lambda p: lambda m, x: x.norm(p))(_p), [_x])

# where rtorchpy deliberately differs from PyTorch: the second order at a point where
# libtorch's own formula divides 0 by 0 (norm at 0, |x|^p for p < 1 at 0, pow's log(0)
# branch). rtorchpy makes the denominator safe before it divides and gives the finite limit.
NAN_FREE_SECOND_ORDER = {"norm2_zero", "norm0.5_part", "pow_tensor"}
# second order of prod with inf or NaN among its inputs or in the incoming gradient: libtorch
# differentiates its cumprod formula, rtorchpy its own product of the others (same first
# order); inf * 0 then turns up in different places. Not matched.
SKIP = {("prod_nan_zero", 2, None), ("prod_one_zero", 2, inf), ("prod_two_zeros", 2, inf),
        ("prod_dim_zeros", 2, inf), ("prod_dim_inf", 2, inf), ("prod_dim_inf", 2, None)}

ORDERS_AND_GRADS = [(1, None), (1, nan), (1, inf), (2, None), (2, nan), (2, inf)]


def _grads(m, case, g, order):
    """The gradients of every input (first or second order), as nested lists."""
    fn, inputs = CASES[case]
    if m is rt:
        xs = [rt.torch_tensor(x, dtype=rt.torch_float64(), requires_grad=True) for x in inputs]
        y = fn(rt, *xs)
        seed = (rt.torch_ones_like(y) if g is None
                else rt.torch_tensor(g, dtype=rt.torch_float64()).expand(*y.shape))
        grads = rt.autograd_grad(y, xs, seed, create_graph=order > 1, allow_unused=True)
        if order > 1:
            live = [gr.sum() for gr in grads if gr is not None and gr.requires_grad]
            if not live:
                return [None] * len(xs)
            grads = rt.autograd_grad(sum(live[1:], live[0]), xs, allow_unused=True)
        return [None if gr is None else np.asarray(gr).tolist() for gr in grads]
    torch = m
    xs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in inputs]
    y = fn(torch, *xs)
    seed = torch.ones_like(y) if g is None else torch.full_like(y, g)
    grads = torch.autograd.grad(y, xs, seed, create_graph=order > 1, allow_unused=True)
    if order > 1:
        live = [gr.sum() for gr in grads if gr is not None and gr.requires_grad]
        if not live:
            return [None] * len(xs)
        grads = torch.autograd.grad(sum(live[1:], live[0]), xs, allow_unused=True)
    # a ZeroTensor (libtorch's known-zero gradient) only converts once densified
    return [None if gr is None else (torch.zeros(gr.shape, dtype=gr.dtype) + gr.detach()).tolist()
            for gr in grads]


def _same(ours, theirs):
    if (ours is None) != (theirs is None):
        # libtorch returns no gradient where a formula is identically zero at second order
        present = ours if theirs is None else theirs
        return np.all(np.asarray(present, float) == 0)
    if ours is None:
        return True
    a, b = np.asarray(ours, float), np.asarray(theirs, float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-12, equal_nan=True) \
        and np.array_equal(np.isnan(a), np.isnan(b))


def _params():
    for case in CASES:
        for order, g in ORDERS_AND_GRADS:
            if (case, order, g) in SKIP or (order == 2 and case in NAN_FREE_SECOND_ORDER):
                continue
            yield pytest.param(case, order, g, id=f"{case}-o{order}-g{g}")


@pytest.mark.parametrize("case,order,g", list(_params()))
def test_matches_pytorch(case, order, g):
    ours = _grads(rt, case, g, order)
    try:
        import torch
    except ImportError:
        theirs = EXPECTED[f"{case}|{order}|{g}"]
    else:
        theirs = _grads(torch, case, g, order)
    assert len(ours) == len(theirs)
    assert all(_same(a, b) for a, b in zip(ours, theirs)), (ours, theirs)


def test_expected_values_are_pytorchs():
    """The recorded values are still what PyTorch gives (when it is installed)."""
    torch = pytest.importorskip("torch")
    for case, order, g in (p.values for p in _params()):
        recorded = EXPECTED[f"{case}|{order}|{g}"]
        assert all(_same(a, b) for a, b in zip(recorded, _grads(torch, case, g, order))), case


def test_second_order_is_nan_free_where_libtorch_divides_zero_by_zero():
    assert _grads(rt, "norm2_zero", None, 2) == [[0.0, 0.0]]
    assert _grads(rt, "norm0.5_part", None, 2)[0][0] == 0.0
    # d2/dx2 x^2 = 2 at x = 0 (PyTorch: NaN, from its log(0) branch for the exponent)
    ours = _grads(rt, "pow_tensor", None, 2)
    assert ours[0][1] == 2.0 and ours[1][1] == 0.0


def test_relu_backward_selects_on_large_inputs():
    """Above the size where the bit-mask select takes over from np.where: same values as
    np.where, +0 (not -0) where dropped, NaN/inf of g kept only where result > 0."""
    rng = np.random.default_rng(0)
    for dtype in (np.float16, np.float32, np.float64):
        x = rng.standard_normal((40, 30)).astype(dtype)
        x[0, :4] = [nan, inf, -inf, 0.0]
        g = rng.standard_normal((40, 30)).astype(dtype)
        g[1, :3] = [nan, inf, -inf]
        t = rt.torch_tensor(x, requires_grad=True)
        t.relu().backward(rt.torch_tensor(g))
        r = np.maximum(x, 0)
        want = np.where(r <= 0, dtype(0), g)
        got = np.asarray(t.grad)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
        assert not np.signbit(got[r <= 0]).any()


def _record_expected():
    """Print EXPECTED from PyTorch (run by hand: python tests/test_piecewise_grads.py)."""
    import torch
    print("EXPECTED = {")
    for case, order, g in (p.values for p in _params()):
        print(f"    {f'{case}|{order}|{g}'!r}: {_grads(torch, case, g, order)!r},")
    print("}")


# recorded from PyTorch 2.13 CPU by _record_expected
EXPECTED = {
    'relu|1|None': [[0.0, 0.0, 1.0, 1.0, 1.0, 0.0]],
    'relu|1|nan': [[0.0, 0.0, nan, nan, nan, 0.0]],
    'relu|1|inf': [[0.0, 0.0, inf, inf, inf, 0.0]],
    'relu|2|None': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'relu|2|nan': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'relu|2|inf': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'relu_sqrt|1|None': [[0.0, 0.0, 0.7071067811865475, nan, 0.0, 0.0]],
    'relu_sqrt|1|nan': [[0.0, 0.0, nan, nan, nan, 0.0]],
    'relu_sqrt|1|inf': [[0.0, 0.0, inf, nan, nan, 0.0]],
    'relu_sqrt|2|None': [[0.0, 0.0, -0.7071067811865474, nan, 0.0, 0.0]],
    'relu_sqrt|2|nan': [[0.0, 0.0, nan, nan, nan, 0.0]],
    'relu_sqrt|2|inf': [[0.0, 0.0, -inf, nan, nan, 0.0]],
    'relu_pow|1|None': [[0.0, 0.0, 1.0606601717798214, nan, inf, 0.0]],
    'relu_pow|1|nan': [[0.0, 0.0, nan, nan, nan, 0.0]],
    'relu_pow|1|inf': [[0.0, 0.0, inf, nan, inf, 0.0]],
    'relu_pow|2|None': [[0.0, 0.0, 1.0606601717798212, nan, 0.0, 0.0]],
    'relu_pow|2|nan': [[0.0, 0.0, nan, nan, nan, 0.0]],
    'relu_pow|2|inf': [[0.0, 0.0, inf, nan, nan, 0.0]],
    'sqrt_relu|1|None': [[nan, nan, 0.7071067811865475, nan, 0.0, nan]],
    'sqrt_relu|1|nan': [[nan, nan, nan, nan, nan, nan]],
    'sqrt_relu|1|inf': [[nan, nan, inf, nan, nan, nan]],
    'sqrt_relu|2|None': [[nan, nan, -0.7071067811865474, nan, 0.0, nan]],
    'sqrt_relu|2|nan': [[nan, nan, nan, nan, nan, nan]],
    'sqrt_relu|2|inf': [[nan, nan, -inf, nan, nan, nan]],
    'clamp_min_sqrt|1|None': [[0.0, inf, 0.7071067811865475, 0.0, 0.0, 0.0]],
    'clamp_min_sqrt|1|nan': [[0.0, nan, nan, 0.0, nan, 0.0]],
    'clamp_min_sqrt|1|inf': [[0.0, inf, inf, 0.0, nan, 0.0]],
    'clamp_min_sqrt|2|None': [[0.0, -inf, -0.7071067811865474, 0.0, 0.0, 0.0]],
    'clamp_min_sqrt|2|nan': [[0.0, nan, nan, 0.0, nan, 0.0]],
    'clamp_min_sqrt|2|inf': [[0.0, -inf, -inf, 0.0, nan, 0.0]],
    'clamp_min_fn_sqrt|1|None': [[0.0, inf, 0.7071067811865475, 0.0, 0.0, 0.0]],
    'clamp_min_fn_sqrt|1|nan': [[0.0, nan, nan, 0.0, nan, 0.0]],
    'clamp_min_fn_sqrt|1|inf': [[0.0, inf, inf, 0.0, nan, 0.0]],
    'clamp_min_fn_sqrt|2|None': [[0.0, -inf, -0.7071067811865474, 0.0, 0.0, 0.0]],
    'clamp_min_fn_sqrt|2|nan': [[0.0, nan, nan, 0.0, nan, 0.0]],
    'clamp_min_fn_sqrt|2|inf': [[0.0, -inf, -inf, 0.0, nan, 0.0]],
    'clamp_max_sqrt|1|None': [[nan, 0.35355339059327373, 0.0, 0.0, 0.0]],
    'clamp_max_sqrt|1|nan': [[nan, nan, 0.0, 0.0, 0.0]],
    'clamp_max_sqrt|1|inf': [[nan, inf, 0.0, 0.0, 0.0]],
    'clamp_max_sqrt|2|None': [[nan, -0.08838834764831842, 0.0, 0.0, 0.0]],
    'clamp_max_sqrt|2|nan': [[nan, nan, 0.0, 0.0, 0.0]],
    'clamp_max_sqrt|2|inf': [[nan, -inf, 0.0, 0.0, 0.0]],
    'clamp01_log|1|None': [[0.0, inf, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0]],
    'clamp01_log|1|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0, nan, 0.0]],
    'clamp01_log|1|inf': [[0.0, inf, inf, 0.0, 0.0, 0.0, inf, 0.0]],
    'clamp01_log|2|None': [[0.0, -inf, -4.0, 0.0, 0.0, 0.0, -1.0, 0.0]],
    'clamp01_log|2|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0, nan, 0.0]],
    'clamp01_log|2|inf': [[0.0, -inf, -inf, 0.0, 0.0, 0.0, -inf, 0.0]],
    'clamp01_pow|1|None': [[0.0, 0.0, 1.0606601717798214, 0.0, 0.0, 0.0, 1.5, 0.0]],
    'clamp01_pow|1|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0, nan, 0.0]],
    'clamp01_pow|1|inf': [[0.0, nan, inf, 0.0, 0.0, 0.0, inf, 0.0]],
    'clamp01_pow|2|None': [[0.0, inf, 1.0606601717798212, 0.0, 0.0, 0.0, 0.75, 0.0]],
    'clamp01_pow|2|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0, nan, 0.0]],
    'clamp01_pow|2|inf': [[0.0, inf, inf, 0.0, 0.0, 0.0, inf, 0.0]],
    'clamp_tensor|1|None': [[0.0, inf, 0.7071067811865475, 0.0, 0.0, 0.0],
                            [inf, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.5, nan]],
    'clamp_tensor|1|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0],
                           [nan, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, nan, nan]],
    'clamp_tensor|1|inf': [[0.0, inf, inf, 0.0, 0.0, 0.0],
                           [inf, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, inf, nan]],
    'clamp_tensor|2|None': [[0.0, -inf, -0.7071067811865474, 0.0, 0.0, 0.0],
                            [-inf, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -0.25, nan]],
    'clamp_tensor|2|nan': [[0.0, nan, nan, 0.0, 0.0, 0.0],
                           [nan, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, nan, nan]],
    'clamp_tensor|2|inf': [[0.0, -inf, -inf, 0.0, 0.0, 0.0],
                           [-inf, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -inf, nan]],
    'abs|1|None': [[-1.0, 0.0, 1.0, 0.0, 1.0, -1.0]],
    'abs|1|nan': [[nan, nan, nan, nan, nan, nan]],
    'abs|1|inf': [[-inf, nan, inf, nan, inf, -inf]],
    'abs|2|None': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'abs|2|nan': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'abs|2|inf': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'abs_sqrt|1|None': [[-0.7071067811865475, nan, 0.7071067811865475, nan, 0.0, 0.0]],
    'abs_sqrt|1|nan': [[nan, nan, nan, nan, nan, nan]],
    'abs_sqrt|1|inf': [[-inf, nan, inf, nan, nan, nan]],
    'abs_sqrt|2|None': [[-0.7071067811865474, nan, -0.7071067811865474, nan, 0.0, 0.0]],
    'abs_sqrt|2|nan': [[nan, nan, nan, nan, nan, nan]],
    'abs_sqrt|2|inf': [[-inf, nan, -inf, nan, nan, nan]],
    'sign|1|None': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'sign|1|nan': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'sign|1|inf': [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    'sign|2|None': [None],
    'sign|2|nan': [None],
    'sign|2|inf': [None],
    'max_all|1|None': [[0.0, 0.5, 0.5, 0.0]],
    'max_all|1|nan': [[0.0, nan, nan, 0.0]],
    'max_all|1|inf': [[0.0, inf, inf, 0.0]],
    'max_all|2|None': [None],
    'max_all|2|nan': [None],
    'max_all|2|inf': [None],
    'max_all_nan|1|None': [[0.0, 0.5, 0.0, 0.5]],
    'max_all_nan|1|nan': [[0.0, nan, 0.0, nan]],
    'max_all_nan|1|inf': [[0.0, inf, 0.0, inf]],
    'max_all_nan|2|None': [None],
    'max_all_nan|2|nan': [None],
    'max_all_nan|2|inf': [None],
    'max_all_sqrt|1|None': [[0.0, inf, 0.0]],
    'max_all_sqrt|1|nan': [[0.0, nan, 0.0]],
    'max_all_sqrt|1|inf': [[0.0, inf, 0.0]],
    'max_all_sqrt|2|None': [[0.0, -inf, 0.0]],
    'max_all_sqrt|2|nan': [[0.0, nan, 0.0]],
    'max_all_sqrt|2|inf': [[0.0, -inf, 0.0]],
    'min_all_nan|1|None': [[0.0, 0.0, 0.0, 1.0]],
    'min_all_nan|1|nan': [[0.0, 0.0, 0.0, nan]],
    'min_all_nan|1|inf': [[0.0, 0.0, 0.0, inf]],
    'min_all_nan|2|None': [None],
    'min_all_nan|2|nan': [None],
    'min_all_nan|2|inf': [None],
    'min_all|1|None': [[0.0, 0.5, 0.5, 0.0]],
    'min_all|1|nan': [[0.0, nan, nan, 0.0]],
    'min_all|1|inf': [[0.0, inf, inf, 0.0]],
    'min_all|2|None': [None],
    'min_all|2|nan': [None],
    'min_all|2|inf': [None],
    'max_dim|1|None': [[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]],
    'max_dim|1|nan': [[[0.0, nan, 0.0], [nan, 0.0, 0.0]]],
    'max_dim|1|inf': [[[0.0, inf, 0.0], [inf, 0.0, 0.0]]],
    'max_dim|2|None': [None],
    'max_dim|2|nan': [None],
    'max_dim|2|inf': [None],
    'amax|1|None': [[[0.0, 0.5, 0.5], [nan, nan, nan]]],
    'amax|1|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'amax|1|inf': [[[nan, inf, inf], [nan, nan, nan]]],
    'amax|2|None': [None],
    'amax|2|nan': [None],
    'amax|2|inf': [None],
    'amin|1|None': [[[0.0, 0.5, 0.5], [nan, nan, nan]]],
    'amin|1|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'amin|1|inf': [[[nan, inf, inf], [nan, nan, nan]]],
    'amin|2|None': [None],
    'amin|2|nan': [None],
    'amin|2|inf': [None],
    'maximum|1|None': [[0.0, 0.5, 1.0, 1.0, 1.0, 1.0], [1.0, 0.5, 0.0, 1.0, 1.0, 1.0]],
    'maximum|1|nan': [[0.0, nan, nan, nan, nan, nan], [nan, nan, 0.0, nan, nan, nan]],
    'maximum|1|inf': [[0.0, inf, inf, inf, inf, inf], [inf, inf, 0.0, inf, inf, inf]],
    'maximum|2|None': [None, None],
    'maximum|2|nan': [None, None],
    'maximum|2|inf': [None, None],
    'minimum|1|None': [[1.0, 0.5, 0.0, 1.0, 1.0, 1.0], [0.0, 0.5, 1.0, 1.0, 1.0, 1.0]],
    'minimum|1|nan': [[nan, nan, 0.0, nan, nan, nan], [0.0, nan, nan, nan, nan, nan]],
    'minimum|1|inf': [[inf, inf, 0.0, inf, inf, inf], [0.0, inf, inf, inf, inf, inf]],
    'minimum|2|None': [None, None],
    'minimum|2|nan': [None, None],
    'minimum|2|inf': [None, None],
    'maximum_sqrt|1|None': [[inf, 0.0], [0.0, inf]],
    'maximum_sqrt|1|nan': [[nan, 0.0], [0.0, nan]],
    'maximum_sqrt|1|inf': [[inf, 0.0], [0.0, inf]],
    'maximum_sqrt|2|None': [[-inf, 0.0], [0.0, -inf]],
    'maximum_sqrt|2|nan': [[nan, 0.0], [0.0, nan]],
    'maximum_sqrt|2|inf': [[-inf, 0.0], [0.0, -inf]],
    'prod|1|None': [[6.0, 3.0, 2.0]],
    'prod|1|nan': [[nan, nan, nan]],
    'prod|1|inf': [[inf, inf, inf]],
    'prod|2|None': [[5.0, 4.0, 3.0]],
    'prod|2|nan': [[nan, nan, nan]],
    'prod|2|inf': [[nan, nan, nan]],
    'prod_one_zero|1|None': [[0.0, 3.0, 0.0]],
    'prod_one_zero|1|nan': [[nan, nan, nan]],
    'prod_one_zero|1|inf': [[nan, inf, nan]],
    'prod_one_zero|2|None': [[3.0, 4.0, 1.0]],
    'prod_one_zero|2|nan': [[nan, nan, nan]],
    'prod_two_zeros|1|None': [[0.0, 0.0, 0.0]],
    'prod_two_zeros|1|nan': [[0.0, 0.0, 0.0]],
    'prod_two_zeros|1|inf': [[0.0, 0.0, 0.0]],
    'prod_two_zeros|2|None': [[0.0, 1.0, 1.0]],
    'prod_two_zeros|2|nan': [[nan, nan, nan]],
    'prod_nan_zero|1|None': [[nan, 0.0, nan]],
    'prod_nan_zero|1|nan': [[nan, nan, nan]],
    'prod_nan_zero|1|inf': [[nan, nan, nan]],
    'prod_nan_zero|2|nan': [[nan, nan, nan]],
    'prod_nan_zero|2|inf': [[nan, nan, nan]],
    'prod_inf|1|None': [[inf, nan, inf]],
    'prod_inf|1|nan': [[nan, nan, nan]],
    'prod_inf|1|inf': [[inf, nan, inf]],
    'prod_inf|2|None': [[nan, nan, nan]],
    'prod_inf|2|nan': [[nan, nan, nan]],
    'prod_inf|2|inf': [[nan, nan, nan]],
    'prod_dim_zeros|1|None': [[[0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]],
    'prod_dim_zeros|1|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'prod_dim_zeros|1|inf': [[[nan, nan, nan], [inf, inf, inf]]],
    'prod_dim_zeros|2|None': [[[0.0, 1.0, 1.0], [5.0, 4.0, 3.0]]],
    'prod_dim_zeros|2|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'prod_dim_inf|1|None': [[[0.0, 2.0, 0.0], [inf, 3.0, inf]]],
    'prod_dim_inf|1|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'prod_dim_inf|1|inf': [[[nan, inf, nan], [inf, inf, inf]]],
    'prod_dim_inf|2|nan': [[[nan, nan, nan], [nan, nan, nan]]],
    'where_sqrt|1|None': [[0.0, 0.0, 0.7071067811865475, 0.0, 0.0, 0.0]],
    'where_sqrt|1|nan': [[0.0, 0.0, nan, 0.0, nan, 0.0]],
    'where_sqrt|1|inf': [[0.0, 0.0, inf, 0.0, nan, 0.0]],
    'where_sqrt|2|None': [[0.0, 0.0, -0.7071067811865474, 0.0, 0.0, 0.0]],
    'where_sqrt|2|nan': [[0.0, 0.0, nan, 0.0, nan, 0.0]],
    'where_sqrt|2|inf': [[0.0, 0.0, -inf, 0.0, nan, 0.0]],
    'masked_fill_sqrt|1|None': [[0.0, inf, 0.7071067811865475, nan, 0.0, 0.0]],
    'masked_fill_sqrt|1|nan': [[0.0, nan, nan, nan, nan, 0.0]],
    'masked_fill_sqrt|1|inf': [[0.0, inf, inf, nan, nan, 0.0]],
    'masked_fill_sqrt|2|None': [[0.0, -inf, -0.7071067811865474, nan, 0.0, 0.0]],
    'masked_fill_sqrt|2|nan': [[0.0, nan, nan, nan, nan, 0.0]],
    'masked_fill_sqrt|2|inf': [[0.0, -inf, -inf, nan, nan, 0.0]],
    'std_zero|1|None': [[0.0, 0.0]],
    'std_zero|1|nan': [[0.0, 0.0]],
    'std_zero|1|inf': [[0.0, 0.0]],
    'std_zero|2|None': [[0.0, 0.0]],
    'std_zero|2|nan': [[0.0, 0.0]],
    'std_zero|2|inf': [[0.0, 0.0]],
    'pow_tensor|1|None': [[0.0, 0.0, 0.0, -inf], [0.0, 0.0, 0.6931471805599453, -inf]],
    'pow_tensor|1|nan': [[0.0, nan, 0.0, nan], [nan, nan, nan, nan]],
    'pow_tensor|1|inf': [[0.0, nan, 0.0, -inf], [nan, nan, inf, -inf]],
    'pow_zero_base|1|None': [[0.0, 0.0, -inf]],
    'pow_zero_base|1|nan': [[nan, nan, nan]],
    'pow_zero_base|1|inf': [[nan, nan, -inf]],
    'pow_zero_base|2|None': [[nan, nan, inf]],
    'pow_zero_base|2|nan': [[nan, nan, nan]],
    'pow_zero_base|2|inf': [[nan, nan, inf]],
    'pow_zero_exponent|1|None': [[0.0, 0.0]],
    'pow_zero_exponent|1|nan': [[0.0, 0.0]],
    'pow_zero_exponent|1|inf': [[0.0, 0.0]],
    'pow_zero_exponent|2|None': [None],
    'pow_zero_exponent|2|nan': [None],
    'pow_zero_exponent|2|inf': [None],
    'norm1_zero|1|None': [[0.0, 0.0]],
    'norm1_zero|1|nan': [[nan, nan]],
    'norm1_zero|1|inf': [[nan, nan]],
    'norm1_zero|2|None': [[0.0, 0.0]],
    'norm1_zero|2|nan': [[0.0, 0.0]],
    'norm1_zero|2|inf': [[0.0, 0.0]],
    'norm1_part|1|None': [[0.0, 1.0, -1.0]],
    'norm1_part|1|nan': [[nan, nan, nan]],
    'norm1_part|1|inf': [[nan, inf, -inf]],
    'norm1_part|2|None': [[0.0, 0.0, 0.0]],
    'norm1_part|2|nan': [[0.0, 0.0, 0.0]],
    'norm1_part|2|inf': [[0.0, 0.0, 0.0]],
    'norm1_nan|1|None': [[0.0, 1.0, -1.0]],
    'norm1_nan|1|nan': [[nan, nan, nan]],
    'norm1_nan|1|inf': [[nan, inf, -inf]],
    'norm1_nan|2|None': [[0.0, 0.0, 0.0]],
    'norm1_nan|2|nan': [[0.0, 0.0, 0.0]],
    'norm1_nan|2|inf': [[0.0, 0.0, 0.0]],
    'norm2_zero|1|None': [[0.0, 0.0]],
    'norm2_zero|1|nan': [[nan, nan]],
    'norm2_zero|1|inf': [[nan, nan]],
    'norm2_part|1|None': [[0.0, 0.6, -0.8]],
    'norm2_part|1|nan': [[nan, nan, nan]],
    'norm2_part|1|inf': [[nan, inf, -inf]],
    'norm2_part|2|None': [[0.2, 0.224, 0.168]],
    'norm2_part|2|nan': [[nan, nan, nan]],
    'norm2_part|2|inf': [[nan, nan, nan]],
    'norm2_nan|1|None': [[nan, nan, nan]],
    'norm2_nan|1|nan': [[nan, nan, nan]],
    'norm2_nan|1|inf': [[nan, nan, nan]],
    'norm2_nan|2|None': [[nan, nan, nan]],
    'norm2_nan|2|nan': [[nan, nan, nan]],
    'norm2_nan|2|inf': [[nan, nan, nan]],
    'norm1.5_zero|1|None': [[0.0, 0.0]],
    'norm1.5_zero|1|nan': [[0.0, 0.0]],
    'norm1.5_zero|1|inf': [[0.0, 0.0]],
    'norm1.5_zero|2|None': [[nan, nan]],
    'norm1.5_zero|2|nan': [[nan, nan]],
    'norm1.5_zero|2|inf': [[nan, nan]],
    'norm1.5_part|1|None': [[0.0, 0.7329564758289748, -0.8463452372482761]],
    'norm1.5_part|1|nan': [[nan, nan, nan]],
    'norm1.5_part|1|inf': [[nan, inf, -inf]],
    'norm1.5_part|2|None': [[nan, 0.12960078984776482, 0.09720059238582361]],
    'norm1.5_part|2|nan': [[nan, nan, nan]],
    'norm1.5_part|2|inf': [[nan, inf, nan]],
    'norm1.5_nan|1|None': [[nan, nan, nan]],
    'norm1.5_nan|1|nan': [[nan, nan, nan]],
    'norm1.5_nan|1|inf': [[nan, nan, nan]],
    'norm1.5_nan|2|None': [[nan, nan, nan]],
    'norm1.5_nan|2|nan': [[nan, nan, nan]],
    'norm1.5_nan|2|inf': [[nan, nan, nan]],
    'norm3_zero|1|None': [[0.0, 0.0]],
    'norm3_zero|1|nan': [[0.0, 0.0]],
    'norm3_zero|1|inf': [[0.0, 0.0]],
    'norm3_zero|2|None': [[0.0, 0.0]],
    'norm3_zero|2|nan': [[0.0, 0.0]],
    'norm3_zero|2|inf': [[0.0, 0.0]],
    'norm3_part|1|None': [[0.0, 0.4448513517305356, -0.7908468475209521]],
    'norm3_part|1|nan': [[nan, nan, nan]],
    'norm3_part|1|inf': [[nan, inf, -inf]],
    'norm3_part|2|None': [[0.0, 0.3650062373173625, 0.2737546779880219]],
    'norm3_part|2|nan': [[nan, nan, nan]],
    'norm3_part|2|inf': [[nan, inf, nan]],
    'norm3_nan|1|None': [[nan, nan, nan]],
    'norm3_nan|1|nan': [[nan, nan, nan]],
    'norm3_nan|1|inf': [[nan, nan, nan]],
    'norm3_nan|2|None': [[nan, nan, nan]],
    'norm3_nan|2|nan': [[nan, nan, nan]],
    'norm3_nan|2|inf': [[nan, nan, nan]],
    'norm0.5_zero|1|None': [[0.0, 0.0]],
    'norm0.5_zero|1|nan': [[nan, nan]],
    'norm0.5_zero|1|inf': [[nan, nan]],
    'norm0.5_zero|2|None': [[nan, nan]],
    'norm0.5_zero|2|nan': [[nan, nan]],
    'norm0.5_zero|2|inf': [[nan, nan]],
    'norm0.5_part|1|None': [[0.0, 2.154700538379252, -1.8660254037844386]],
    'norm0.5_part|1|nan': [[nan, nan, nan]],
    'norm0.5_part|1|inf': [[nan, inf, -inf]],
    'norm0.5_nan|1|None': [[nan, nan, nan]],
    'norm0.5_nan|1|nan': [[nan, nan, nan]],
    'norm0.5_nan|1|inf': [[nan, nan, nan]],
    'norm0.5_nan|2|None': [[nan, nan, nan]],
    'norm0.5_nan|2|nan': [[nan, nan, nan]],
    'norm0.5_nan|2|inf': [[nan, nan, nan]],
    'norminf_zero|1|None': [[0.0, 0.0]],
    'norminf_zero|1|nan': [[nan, nan]],
    'norminf_zero|1|inf': [[nan, nan]],
    'norminf_zero|2|None': [[0.0, 0.0]],
    'norminf_zero|2|nan': [[0.0, 0.0]],
    'norminf_zero|2|inf': [[0.0, 0.0]],
    'norminf_part|1|None': [[0.0, 0.0, -1.0]],
    'norminf_part|1|nan': [[nan, nan, nan]],
    'norminf_part|1|inf': [[nan, nan, -inf]],
    'norminf_part|2|None': [[0.0, 0.0, 0.0]],
    'norminf_part|2|nan': [[0.0, 0.0, 0.0]],
    'norminf_part|2|inf': [[0.0, 0.0, 0.0]],
    'norminf_nan|1|None': [[0.0, 0.0, 0.0]],
    'norminf_nan|1|nan': [[nan, nan, nan]],
    'norminf_nan|1|inf': [[nan, nan, nan]],
    'norminf_nan|2|None': [[0.0, 0.0, 0.0]],
    'norminf_nan|2|nan': [[0.0, 0.0, 0.0]],
    'norminf_nan|2|inf': [[0.0, 0.0, 0.0]],
}

if __name__ == "__main__":
    _record_expected()
