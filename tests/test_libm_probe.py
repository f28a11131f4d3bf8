"""``numerics/libm.py`` uses NumPy's float64 ``log``/``sin``/``cos`` only where a one-time probe
shows they give the C library's bits. Checked here: the probe rejects a kernel that differs in
rare last bits, both routes (probe passed, probe failed) give ``math``'s bits on the samplers'
inputs, float64 normal draws do not depend on the route, and the same holds with NumPy's SIMD
dispatch limited to its baseline (a subprocess)."""
from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import rtorchpy as rt
from rtorchpy.numerics import libm

FUNCS = {"log": (libm.log, math.log), "sin": (libm.sin, math.sin), "cos": (libm.cos, math.cos)}


def _sampler_inputs(name, n=20000, seed=3):
    # what the float64 Box-Muller feeds: 1 - u for log, 2 pi u for sin/cos, u = k 2^-53
    u = np.random.default_rng(seed).integers(0, 1 << 53, n).astype(np.float64) * 2.0 ** -53
    return 1.0 - u if name == "log" else (2.0 * math.pi) * u


def _bits(a):
    return np.asarray(a, np.float64).view(np.int64)


@pytest.fixture
def probe_forced():
    """Set a function's probe verdict for one test, restoring the real one after."""
    saved = {k: dict(f.probe_state) for k, (f, _) in FUNCS.items()}

    def force(name, verdict):
        FUNCS[name][0].probe_state["exact"] = verdict
    yield force
    for k, (f, _) in FUNCS.items():
        f.probe_state.clear()
        f.probe_state.update(saved[k])


def test_probe_rejects_a_kernel_with_rare_last_bit_differences():
    def one_in_a_thousand_off(x):
        y = np.cos(x)
        y[::1000] = np.nextafter(y[::1000], np.inf)
        return y

    assert not libm.numpy_matches(one_in_a_thousand_off, math.cos, 2 * math.pi)
    assert libm.numpy_matches(lambda x: np.array([math.cos(v) for v in x]), math.cos,
                              2 * math.pi)


def test_probe_inputs_cover_the_domain_and_its_ends():
    x = libm._probe_inputs(2 * math.pi)
    assert x.size > 30000 and x.min() > 0 and x.max() == 2 * math.pi
    # every sixteenth of the domain holds many of them
    counts = np.histogram(x, bins=16, range=(0, 2 * math.pi))[0]
    assert counts.min() > 1000


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("verdict", [False, True])
def test_both_routes_give_the_libraries_bits(name, verdict, probe_forced):
    fn, ref = FUNCS[name]
    real = fn.numpy_is_exact()
    if verdict and not real:
        pytest.skip(f"NumPy's {name} differs from the C library on this machine")
    probe_forced(name, verdict)
    x = _sampler_inputs(name)
    want = np.fromiter(map(ref, x.tolist()), np.float64, count=x.size)
    np.testing.assert_array_equal(_bits(fn(x)), _bits(want))


def test_float64_normal_draws_do_not_depend_on_the_route(probe_forced):
    def draw():
        rt.torch_manual_seed(7)
        return rt.torch_randn(4099, dtype=rt.torch_float64()).numpy().copy()

    first = draw()
    for name in FUNCS:
        probe_forced(name, False)
    np.testing.assert_array_equal(_bits(draw()), _bits(first))


def test_x87_midpoint_bits_flag_every_value_the_generic_test_does():
    if not libm._X87:
        pytest.skip("long double is not x87 extended here")
    x = _sampler_inputs("log", n=200000, seed=11)
    with np.errstate(all="ignore"):
        ext = np.log(x.astype(np.longdouble))
    out = ext.astype(np.float64)
    fast, generic = libm._x87_doubt(ext, out), libm._generic_doubt(ext, out)
    assert np.setdiff1d(generic, fast).size == 0
    # and not many more: both are the 0.02 ULP band (4% of values), up to rounding of the margin
    assert fast.size <= generic.size * 1.05 + 10


def _digest():
    h = hashlib.sha256()
    for name, (fn, _) in sorted(FUNCS.items()):
        h.update(_bits(fn(_sampler_inputs(name, n=5000))).tobytes())
    return h.hexdigest()


@pytest.mark.slow
def test_same_bits_with_numpy_dispatch_limited():
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    names = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    if not names:
        pytest.skip("this CPU has no SIMD beyond NumPy's baseline: nothing to limit")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(names))
    p = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip() == _digest()


if __name__ == "__main__":  # the subprocess of test_same_bits_with_numpy_dispatch_limited
    print(_digest())
