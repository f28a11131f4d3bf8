"""libtorch's random numbers for a seed: rtorchpy's draws against values recorded from PyTorch
2.13 (``fixtures/rng_torch.json``: a SHA-256 of each result's bytes and its first values, so
CI without PyTorch still checks every bit), and against live PyTorch when it is installed."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import rtorchpy as rt

CASES = json.loads((Path(__file__).parent / "fixtures" / "rng_torch.json").read_text())
F64 = rt.torch_float64()


def _ours(name):
    kind, _, n = name.rpartition("_")
    sized = {"randn_f32": lambda n: rt.torch_randn(n),
             "randn_f64": lambda n: rt.torch_randn(n, dtype=F64),
             "rand_f32": lambda n: rt.torch_rand(n),
             "rand_f64": lambda n: rt.torch_rand(n, dtype=F64)}
    if kind in sized:
        return sized[kind](int(float(n)))
    return {
        "normal_f32_2_3_1001": lambda: rt.torch_empty(1001).normal_(2, 3),
        "normal_f64_2_3_1001": lambda: rt.torch_empty(1001, dtype=F64).normal_(2, 3),
        "uniform_f32_m2_5_999": lambda: rt.torch_empty(999).uniform_(-2, 5),
        "uniform_f64_m2_5_999": lambda: rt.torch_empty(999, dtype=F64).uniform_(-2, 5),
        "randint_m5_9_500": lambda: rt.torch_randint(-5, 9, (500,)),
        "randint_big_50": lambda: rt.torch_randint(0, 2 ** 40, (50,)),
        "randperm_1000": lambda: rt.torch_randperm(1000),
        "randperm_100003": lambda: rt.torch_randperm(100003),
        "exponential_f64_300": lambda: rt.torch_empty(300, dtype=F64).exponential_(2.5),
        "bernoulli_p03_200": lambda: rt.torch_bernoulli(rt.torch_empty(200), 0.3),
        "random_f32_100": lambda: rt.torch_empty(100).random_(),
        "random_i64_100": lambda: rt.torch_empty(100, dtype=rt.torch_int64()).random_(),
        "dropout_03_500": lambda: rt.nnf_dropout(rt.torch_ones(500), 0.3),
        "multinomial_repl": lambda: rt.torch_multinomial(
            rt.torch_arange(1.0, 8.0).repeat(3, 1), 10, True),
        "multinomial_norepl": lambda: rt.torch_multinomial(
            rt.torch_arange(1.0, 8.0).repeat(3, 1), 4),
        "linear_weight_20_7": lambda: rt.nn_linear(20, 7).weight,
        "trunc_normal_50_7": lambda: rt.nn_init_trunc_normal_(rt.torch_empty(50, 7), 0.5, 2),
        "kaiming_normal_64_33": lambda: rt.nn_init_kaiming_normal_(rt.torch_empty(64, 33)),
        "state_after_randn3": lambda: (rt.torch_randn(3), rt.torch_get_rng_state())[1],
    }[name]()


@pytest.mark.parametrize("key", sorted(CASES))
def test_recorded_bits(key):
    name, seed = key.rsplit("|", 1)
    want = CASES[key]
    rt.torch_manual_seed(int(seed))
    got = np.ascontiguousarray(_ours(name).detach().numpy())
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"]
    np.testing.assert_array_equal(got.reshape(-1)[:6], np.array(want["head"], got.dtype))
    assert hashlib.sha256(got.tobytes()).hexdigest() == want["sha"]


def test_the_issue_example():
    rt.torch_manual_seed(1)
    np.testing.assert_allclose(rt.torch_randn(3).numpy(), [0.6614, 0.2669, 0.0617], atol=1e-4)


def test_normal_cache_carries_over_and_seeding_clears_it():
    # an odd count of one-at-a-time normals leaves the pair's second value for the next draw
    rt.torch_manual_seed(3)
    a = np.concatenate([rt.torch_randn(3, dtype=F64).numpy(), rt.torch_randn(1, dtype=F64)
                        .numpy()])
    rt.torch_manual_seed(3)
    b = rt.torch_randn(4, dtype=F64).numpy()
    np.testing.assert_array_equal(a, b)


def test_generator_objects_state_and_with_seed():
    g = rt.torch_generator()
    g.set_current_seed(5)
    assert g.current_seed() == 5
    rt.torch_manual_seed(5)
    default = rt.torch_rand(10).numpy()
    rt.torch_manual_seed(99)
    np.testing.assert_array_equal(rt.torch_rand(10, generator=g).numpy(), default)
    s = rt.torch_get_rng_state()
    assert s.dtype == rt.torch_uint8() and s.shape == (5056,)
    x = rt.torch_randn(20).numpy()
    rt.torch_set_rng_state(s)
    np.testing.assert_array_equal(rt.torch_randn(20).numpy(), x)
    before = rt.torch_get_rng_state().numpy()
    with rt.with_torch_manual_seed(1):
        np.testing.assert_allclose(rt.torch_randn(1).numpy(), [0.6614], atol=1e-4)
    np.testing.assert_array_equal(rt.torch_get_rng_state().numpy(), before)
    with pytest.raises(RuntimeError, match="size"):
        rt.torch_set_rng_state(rt.torch_zeros(10, dtype=rt.torch_uint8()))
    with pytest.raises(TypeError, match="generator"):
        rt.torch_rand(3, generator=5)


def test_transposed_view_fills_in_memory_order():
    rt.torch_manual_seed(0)
    base = rt.torch_empty(4, 6)
    base.t().uniform_()
    rt.torch_manual_seed(0)
    np.testing.assert_array_equal(base.numpy(), rt.torch_rand(4, 6).numpy())


# --- live comparison ---------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 7, 123456789])
@pytest.mark.parametrize("n", [1, 2, 15, 16, 31, 4097])
def test_live_against_pytorch(seed, n):
    torch = pytest.importorskip("torch")
    pairs = [
        (lambda: torch.randn(n), lambda: rt.torch_randn(n)),
        (lambda: torch.randn(n, 3).t().normal_(1, 2),
         lambda: rt.torch_randn(n, 3).t().normal_(1, 2)),
        (lambda: torch.randn(n, dtype=torch.float64), lambda: rt.torch_randn(n, dtype=F64)),
        (lambda: torch.empty(n).uniform_(-1, 3), lambda: rt.torch_empty(n).uniform_(-1, 3)),
        (lambda: torch.randint(0, 7, (n,)), lambda: rt.torch_randint(0, 7, (n,))),
        (lambda: torch.randperm(n), lambda: rt.torch_randperm(n)),
        (lambda: torch.normal(torch.arange(float(n)), 2.0),
         lambda: rt.torch_normal(rt.torch_arange(float(n)), 2.0)),
        (lambda: torch.bernoulli(torch.full((n,), 0.4)),
         lambda: rt.torch_bernoulli(rt.torch_full((n,), 0.4))),
        (lambda: torch.empty(n).exponential_(), lambda: rt.torch_empty(n).exponential_()),
    ]
    for theirs, ours in pairs:
        torch.manual_seed(seed)
        rt.torch_manual_seed(seed)
        np.testing.assert_array_equal(ours().numpy(), theirs().numpy())
        np.testing.assert_array_equal(rt.torch_get_rng_state().numpy(),
                                      torch.get_rng_state().numpy())
