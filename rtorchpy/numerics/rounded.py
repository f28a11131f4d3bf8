"""float32 and float16 math computed in float64 and rounded once: the one place where every
transcendental elementwise function of rtorchpy (forward ops, derivative formulas, losses,
softmax) gets its values for those dtypes.

Why not NumPy's float32 kernels: NumPy picks them per CPU at import (AVX-512, AVX2 or its
baseline), they give different bits on different machines, and the AVX-512 ones are 2-3 ULP
off the true value where libtorch is within 1 (``log10(100)`` came out as 2.0000002).

Why float64 works: NumPy's float64 kernels are accurate to a few float64 ULP (about 2^-50
relative), so rounding their result to float32 (2^-24) gives the correctly rounded float32
unless the float64 value lies within those few ULP of a float32 rounding midpoint: about one
value in 2^28. The float64 kernels differ between CPUs too, but only in those last bits, so the
float32 result is the same on every CPU unless the float64 value straddles a midpoint: none did
in ~4e6 float32 inputs per function between NumPy's AVX-512, AVX2 and baseline kernels, and
tests/test_rounded_math.py compares every op's bits at two dispatch levels in each run.
Exact results (``log10(1000) == 3``, ``exp(0) == 1``, signed zeros, inf, nan) stay exact.

The LSTM kernels (``lstm.py``) do this arithmetic inline, on buffers reused at every time step.

float64 arrays (and everything else) go to the NumPy function directly: their bits may differ
between CPUs in the last place (docs/differences.md).
"""
from __future__ import annotations

import numpy as np

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)

# Arrays up to this many elements are widened in one piece (two casts and the float64 kernel:
# the cheapest way for a small array). Larger ones never exist whole in float64: a float64 copy
# of a big array costs page faults and memory bandwidth (exp of 10^6 float32 values: 4.2 ms
# whole) and would double peak memory. A ufunc then runs its float64 loop with NumPy's own
# buffered casting, which works through the array in cache-sized chunks (1.25 ms); other
# functions (sigmoid) go through float64 in slices of this size.
_SLICE = 16384


def _narrow(dt):
    """Whether ``dt`` is a float narrower than float64 (computed in float64 here)."""
    return dt is _F32 or dt is _F16 or (dt.kind == "f" and dt.itemsize < 8)


def in_float64(fn, direct=None):
    """``fn(x)`` (an elementwise NumPy function) for float32/float16 ``x`` computed on a
    float64 copy and rounded once to ``x``'s dtype; other dtypes call ``direct`` (default
    ``fn``) unchanged. Like a ufunc, a 0-d input may give a NumPy scalar."""
    direct = direct or fn
    is_ufunc = isinstance(fn, np.ufunc)

    def evaluate(x):
        dt = x.dtype
        # (the dtype test written out: a call to _narrow would cost as much as a cast)
        if dt is _F32 or dt is _F16 or (dt is not _F64 and dt.kind == "f" and dt.itemsize < 8):
            if x.size <= _SLICE:
                return fn(x.astype(_F64)).astype(dt)
            if is_ufunc:
                return fn(x, out=np.empty(x.shape, dt), dtype=_F64)
            return _sliced(fn, x, dt)
        return direct(x)

    evaluate.__name__ = getattr(fn, "__name__", "evaluate")
    evaluate.__doc__ = f"{evaluate.__name__}, float32/float16 computed in float64."
    return evaluate


def _sliced(fn, x, dt):
    out = np.empty(x.shape, dt)
    src, dst = x.reshape(-1), out.reshape(-1)  # src is a copy only if x is not contiguous
    for i in range(0, src.size, _SLICE):
        dst[i:i + _SLICE] = fn(src[i:i + _SLICE].astype(_F64))
    return out


def power(base, exponent):
    """``np.power(base, exponent)``, computed in float64 when the result would be float32 or
    float16 (NumPy's own float32 pow is CPU-dependent too). Either side may be a Python number;
    the result has the dtype NumPy gives (the callers fix libtorch's dtype afterwards)."""
    r = np.result_type(base, exponent)
    if r.kind != "f" or not _narrow(r):
        return np.power(base, exponent)
    wide = [b.astype(_F64) if isinstance(b, (np.ndarray, np.generic)) else b
            for b in (base, exponent)]
    out = np.power(*wide)
    return out.astype(r) if isinstance(out, np.ndarray) else r.type(out)


def _sigmoid_f64(x):
    """1 / (1 + exp(-x)) on a float64 array it may overwrite. Inputs below -200 become -200
    first: float64 exp would overflow (with a warning) from -710 on, and sigmoid is far below
    the smallest float32 there anyway."""
    t = np.maximum(x, -200.0, out=x)
    np.negative(t, out=t)
    np.exp(t, out=t)
    t += 1.0
    return np.reciprocal(t, out=t)


def _sigmoid_split(x):
    """sigmoid for float64 (and any other float) arrays: split by sign so exp never
    overflows."""
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1 + e)
    return out


exp = in_float64(np.exp)
expm1 = in_float64(np.expm1)
log = in_float64(np.log)
log1p = in_float64(np.log1p)
log2 = in_float64(np.log2)
log10 = in_float64(np.log10)
sin = in_float64(np.sin)
cos = in_float64(np.cos)
tan = in_float64(np.tan)
tanh = in_float64(np.tanh)
asin = in_float64(np.arcsin)
acos = in_float64(np.arccos)
atan = in_float64(np.arctan)
sinh = in_float64(np.sinh)
cosh = in_float64(np.cosh)
asinh = in_float64(np.arcsinh)
acosh = in_float64(np.arccosh)
atanh = in_float64(np.arctanh)
sigmoid = in_float64(_sigmoid_f64, _sigmoid_split)
sigmoid.__name__ = "sigmoid"




def gates(a, lo, hi, out, addend=None):
    """A recurrent cell's gate activations in one pass: ``sigmoid`` of every column of the 2-d
    ``a`` (plus ``addend``, added in float64) except ``[lo:hi]``, ``tanh`` of those, computed
    in float64 and rounded once into ``out`` (the dtype of ``out``). One widening per step
    instead of one per gate: a recurrent layer calls this once per time step."""
    w = a.astype(_F64) if addend is None else np.add(a, addend, dtype=_F64)
    t = np.tanh(w[:, lo:hi]) if hi > lo else None
    np.negative(w, out=w)
    with np.errstate(over="ignore"):  # exp(-x) = inf for x < -709: sigmoid is 0 there
        np.exp(w, out=w)
    w += 1.0
    np.reciprocal(w, out=w)
    if t is not None:
        w[:, lo:hi] = t
    out[...] = w
    return out
