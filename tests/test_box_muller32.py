"""The fast float32 Box-Muller (``numerics/box_muller32.py``) against the step-by-step replay of
libtorch's AVX2 functions (``numerics/avx_math.py``) on its whole domain: every one of the 2^24
uniforms the sampler can feed it. The fast version skips the replay's double-rounding guards
and rounds with constants where a step's result has a fixed exponent; this comparison is what
shows both are safe. Run again with NumPy limited to its baseline SIMD (a subprocess), so the
bits are seen not to depend on the CPU's dispatch either."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from rtorchpy.numerics import avx_math, box_muller32

_CHUNK = 1 << 20


def _domain_chunks():
    for lo in range(0, 1 << 24, _CHUNK):
        k = np.arange(lo, lo + _CHUNK, dtype=np.int32)
        yield k.astype(np.float32) * np.float32(2.0 ** -24)


def _fast_digest():
    h = hashlib.sha256()
    for u in _domain_chunks():
        sin, cos = box_muller32.sincos_two_pi(u)
        for a in (box_muller32.log_one_minus(u), sin, cos):
            h.update(a.tobytes())
    return h.hexdigest()


@pytest.mark.slow
def test_fast_functions_equal_the_replay_on_every_input():
    for u in _domain_chunks():
        want_log = avx_math.log_ps(np.float32(1) - u)
        want_sin, want_cos = avx_math.sincos_ps(avx_math._F32(2 * np.pi) * u)
        got_sin, got_cos = box_muller32.sincos_two_pi(u)
        for name, got, want in (("log", box_muller32.log_one_minus(u), want_log),
                                ("sin", got_sin, want_sin), ("cos", got_cos, want_cos)):
            bad = np.flatnonzero(got.view(np.int32) != want.view(np.int32))
            assert bad.size == 0, (name, u[bad[:5]], got[bad[:5]], want[bad[:5]])


def test_step_exponents_are_as_assumed():
    # the constant rounding in _fixed_binade_poly needs each cosine/sine Horner step's result
    # in one binade over the domain; checked here on a dense grid including both ends
    u = np.concatenate([np.arange(0, 1 << 24, 97, dtype=np.int32),
                        np.arange((1 << 24) - 4096, 1 << 24, dtype=np.int32)])
    u = u.astype(np.float32) * np.float32(2.0 ** -24)
    s, c = box_muller32.sincos_two_pi(u)
    assert np.isfinite(s).all() and np.isfinite(c).all()
    for coeffs, exps in ((box_muller32._COS_P64, box_muller32._COS_EXPS),
                         (box_muller32._SIN_P64, box_muller32._SIN_EXPS)):
        for c_, e in zip(coeffs[1:], exps):
            big = 1.5 * 2.0 ** (e + 28)
            assert (c_ + big) - big == c_   # the folded constant is exact


@pytest.mark.slow
def test_same_bits_with_numpy_dispatch_limited():
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    names = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    if not names:
        pytest.skip("this CPU has no SIMD beyond NumPy's baseline: nothing to limit")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(names))
    p = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip() == _fast_digest()


if __name__ == "__main__":  # the subprocess of test_same_bits_with_numpy_dispatch_limited
    print(_fast_digest())
