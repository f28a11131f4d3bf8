"""Channel and alpha dropout masks for a seed against PyTorch 2.13: SHA-256 prefixes of the
results' bytes recorded from PyTorch (so CI without it checks every bit), and live when PyTorch
is installed. dropout2d of a 3-D input is libtorch's feature dropout over (N, C, L), as in
PyTorch and R torch; dropout3d of a 4-D input is unbatched, as in PyTorch."""
from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

import rtorchpy as rt


def _x(shape):
    return np.random.default_rng(0).normal(size=shape).astype(np.float32)


CASES = {
    "dropout2d_4d": ((4, 6, 5, 3), "dropout2d", 0.4),
    "dropout2d_3d": ((6, 5, 3), "dropout2d", 0.4),
    "dropout3d_5d": ((3, 5, 2, 4, 3), "dropout3d", 0.3),
    "dropout3d_4d": ((5, 2, 4, 3), "dropout3d", 0.3),
    "alpha": ((4, 6, 5), "alpha_dropout", 0.2),
    "feature_alpha_4d": ((4, 6, 5, 3), "feature_alpha_dropout", 0.25),
    "feature_alpha_2d": ((7, 9), "feature_alpha_dropout", 0.5),
}
RECORDED = {
    "dropout2d_4d|0": "6de623c7ef326754", "dropout2d_4d|11": "9f3a3d0d8f2611e8",
    "dropout2d_3d|0": "fb3135ae070419ee", "dropout2d_3d|11": "95e0fda42825a004",
    "dropout3d_5d|0": "17b77aae3d782411", "dropout3d_5d|11": "057e5f7571c2ae3a",
    "dropout3d_4d|0": "ad8c1d93cbab3be8", "dropout3d_4d|11": "6fe4224dd09c1a51",
    "alpha|0": "225a775b8845f7bc", "alpha|11": "e32e410d29f32ac5",
    "feature_alpha_4d|0": "fa27986cb9fad597", "feature_alpha_4d|11": "91dade23e2e80614",
    "feature_alpha_2d|0": "832c7f17ada76bab", "feature_alpha_2d|11": "0b84675cef91c8c9",
}


def _ours(name):
    shape, fn, p = CASES[name]
    return getattr(rt, "nnf_" + fn)(rt.torch_tensor(_x(shape)), p, training=True)


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_recorded_masks(key):
    name, seed = key.split("|")
    rt.torch_manual_seed(int(seed))
    got = np.ascontiguousarray(_ours(name).numpy())
    assert hashlib.sha256(got.tobytes()).hexdigest()[:16] == RECORDED[key]


@pytest.mark.parametrize("name", sorted(CASES))
def test_live_masks_and_generator_state(name):
    torch = pytest.importorskip("torch")
    shape, fn, p = CASES[name]
    for seed in (0, 5, 123):
        rt.torch_manual_seed(seed)
        torch.manual_seed(seed)
        ours = _ours(name).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # PyTorch warns about dropout2d of 3-D input
            theirs = getattr(torch.nn.functional, fn)(torch.tensor(_x(shape)), p,
                                                      training=True).numpy()
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(rt.torch_get_rng_state().numpy(),
                                      torch.get_rng_state().numpy())


def test_feature_alpha_dropout_edges():
    x = rt.torch_ones(3, 4)
    assert rt.nnf_feature_alpha_dropout(x, 0.5) is x            # not training: the identity
    assert np.all(rt.nnf_feature_alpha_dropout(x, 1.0, training=True).numpy() == 0)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        rt.nnf_feature_alpha_dropout(rt.torch_ones(3), 0.5, training=True)
    with pytest.raises(ValueError, match="between 0 and 1"):
        rt.nnf_feature_alpha_dropout(x, 1.5, training=True)
    # one mask value per (N, C): constant along the other dims
    rt.torch_manual_seed(0)
    y = rt.nnf_feature_alpha_dropout(rt.torch_zeros(5, 6, 7), 0.5, training=True).numpy()
    assert np.all(y == y[:, :, :1])
