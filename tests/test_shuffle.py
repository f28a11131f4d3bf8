"""``torch_randperm``'s shuffles computed without a loop per element (``numerics/shuffle.py``)
against the step-by-step shuffles written plainly here, on random and worst-case targets (long
chains of swaps), for both of libtorch's algorithms; libtorch's own values are in
``test_rng_torch.py`` (recorded, and live against PyTorch)."""
from __future__ import annotations

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.numerics import shuffle


def _fisher_yates_steps(t):
    r = list(range(len(t) + 1))
    for i, j in enumerate(t.tolist()):
        r[i], r[j] = r[j], r[i]
    return np.array(r)


def _inside_out_steps(z):
    r = [0] * len(z)
    for i, zi in enumerate(z.tolist()):
        r[i] = r[zi]
        r[zi] = i
    return np.array(r)


def _targets(n, rng):
    yield rng.integers(np.arange(n - 1), n).astype(np.int64)      # Fisher-Yates: t[i] >= i
    yield np.arange(n - 1, dtype=np.int64)                        # nothing moves
    yield np.full(n - 1, n - 1, np.int64)                         # everything through the end
    yield np.minimum(np.arange(1, n), n - 1).astype(np.int64)     # one long chain


def _sources(n, rng):
    yield rng.integers(0, np.arange(1, n + 1)).astype(np.int64)   # inside-out: z[i] <= i
    yield np.zeros(n, np.int64)
    yield np.arange(n, dtype=np.int64)
    yield np.maximum(np.arange(n) - 1, 0).astype(np.int64)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 17, 64, 1000, 4099])
def test_vectorised_shuffles_equal_the_steps(n):
    rng = np.random.default_rng(n)
    for _ in range(20 if n < 100 else 3):
        for t in _targets(n, rng):
            np.testing.assert_array_equal(shuffle.fisher_yates(t), _fisher_yates_steps(t))
        for z in _sources(n, rng):
            np.testing.assert_array_equal(shuffle.inside_out(z), _inside_out_steps(z))


def test_randperm_is_a_permutation_for_every_small_n():
    rt.torch_manual_seed(3)
    for n in range(0, 70):
        p = rt.torch_randperm(n).numpy()
        assert p.dtype == np.int64 and np.array_equal(np.sort(p), np.arange(n))


@pytest.mark.parametrize("n", [1, 2, 3, 31, 1000, 65537, 1000003])
def test_live_randperm_against_pytorch(n):
    torch = pytest.importorskip("torch")
    for seed in (0, 5):
        torch.manual_seed(seed)
        rt.torch_manual_seed(seed)
        np.testing.assert_array_equal(rt.torch_randperm(n).numpy(), torch.randperm(n).numpy())
        np.testing.assert_array_equal(rt.torch_get_rng_state().numpy(),
                                      torch.get_rng_state().numpy())
