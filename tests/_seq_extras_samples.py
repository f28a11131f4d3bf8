"""Samples and forward cases of issue 33's ops around sequences (``rtorchpy/ops/seq_extras.py``):
gradient-check samples for ``tests/test_derivatives.py`` and forward cases for
``tests/test_ops.py``. Values against PyTorch are in ``tests/test_seq_extras.py``."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import rtorchpy as rt

f32, i64 = np.float32, np.int64


def add_seq_samples(builder, Case, shape, anyv, distinct):
    """Register the derivative table samples with the table test's ``builder`` decorator."""

    @builder("LinalgCrossBackward0")
    def _cross(draw, rng, name):
        s = list(shape(draw, min_dims=1, max_side=3))
        d = draw(st.integers(0, len(s) - 1))
        s[d] = 3
        other = list(s)
        if len(s) > 1 and draw(st.booleans()):  # broadcasting along another dim
            other[(d + 1) % len(s)] = 1
        dim = d if draw(st.booleans()) else d - len(s)
        return Case(lambda a, b: rt.torch_cross(a, b, dim=dim), anyv(rng, tuple(s)),
                    anyv(rng, tuple(other)))

    @builder("CummaxBackward0", "CumminBackward0")
    def _running(draw, rng, name):
        s = shape(draw, max_side=4)
        dim = draw(st.integers(-max(len(s), 1), max(len(s), 1) - 1))
        fn = rt.torch_cummax if name == "CummaxBackward0" else rt.torch_cummin
        return Case(lambda x: fn(x, dim)[0], distinct(rng, s))

    @builder("PutBackward0")
    def _put(draw, rng, name):
        s = tuple(shape(draw, min_dims=1))
        n = int(np.prod(s))
        accumulate = draw(st.booleans())
        k = int(rng.integers(1, n + 1))
        # repeated positions only when they add up (otherwise which write wins is unspecified)
        idx = rng.integers(0, n, k) if accumulate else rng.permutation(n)[:k]
        idx = np.where(rng.random(k) < 0.3, idx - n, idx)  # some counted from the end
        index = rt.torch_tensor(idx.reshape(-1, 1) if k > 1 and draw(st.booleans()) else idx,
                                dtype=rt.torch_long())
        src_shape = tuple(index.shape)

        def fn(a, b):
            return (a * 1).put_(index, b, accumulate=accumulate)
        return Case(fn, anyv(rng, s), anyv(rng, src_shape))


def _cummax_np(a, axis, better):
    """(values, indices) by a plain loop: the reference for the vectorised op."""
    a = np.moveaxis(np.asarray(a), axis, -1)
    vals, idx = np.empty_like(a), np.zeros(a.shape, i64)
    for pos in np.ndindex(a.shape[:-1]):
        best, at = None, 0
        for k, v in enumerate(a[pos]):
            if best is None or np.isnan(v) or (not np.isnan(best) and better(v, best)):
                best, at = v, k
            vals[pos + (k,)], idx[pos + (k,)] = best, at
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def seq_forward_cases(Case, inplace):
    """Forward cases (values and dtypes) of every op the module registers."""
    x = np.array([[1.0, 3.0, 2.0, 3.0], [4.0, np.nan, 0.5, 9.0]])
    ints = np.array([[2, 2, 1], [0, 5, 5]])
    a, b = np.array([[1.0, 0, 0], [0, 2, 0]]), np.array([[0.0, 1, 0], [0, 0, 3]])
    ge, lt = (lambda u, v: u >= v), (lambda u, v: u <= v)
    m = np.arange(12.0).reshape(3, 4)
    diag = np.zeros((3, 3))
    np.fill_diagonal(diag, 5.0)
    tall = np.zeros((7, 3))
    np.fill_diagonal(tall, 1.0, wrap=True)
    put = np.zeros((2, 3))
    put.reshape(-1)[[0, 5]] = [9.0, 8.0]
    return {
        "cross": [Case(a, b, expected=np.cross(a, b)),
                  Case(a, b, dim=-1, expected=np.cross(a, b)),
                  Case(a.T.copy(), b.T.copy(), 0, expected=np.cross(a, b).T),
                  Case(np.ones((2, 4)), np.ones((2, 4)), expected=None,
                       raises="no dimension of size 3")],
        "cummax": [Case(x, 1, expected=_cummax_np(x, 1, ge)),
                   Case(ints, 0, expected=_cummax_np(ints, 0, ge)),
                   Case(np.array(2.5), 0, expected=(np.array(2.5), np.array(0)))],
        "cummin": [Case(x, -1, expected=_cummax_np(x, 1, lt)),
                   Case(ints, 1, expected=_cummax_np(ints, 1, lt))],
        "bincount": [Case(np.array([0, 1, 1, 3]), expected=np.array([1, 2, 0, 1])),
                     Case(np.array([0, 1, 1, 3]), np.array([0.5, 1, 1, 2], f32), minlength=6,
                          expected=np.array([0.5, 2, 0, 2, 0, 0], f32)),
                     Case(np.array([2, 0]), np.array([1, 2]),
                          expected=np.array([2.0, 0.0, 1.0])),
                     Case(np.array([-1, 2]), expected=None,
                          raises="non-negative integral")],
        "vander": [Case(np.array([1, 2, 3]), expected=np.vander([1, 2, 3]).astype(i64)),
                   Case(np.array([1.5, -2.0]), 3, True,
                        expected=np.vander([1.5, -2.0], 3, increasing=True)),
                   Case(np.array([2.0]), 0, expected=np.zeros((1, 0)))],
        "atleast_1d": [Case(np.array(3.0), expected=np.array([3.0])),
                       Case(m, expected=m)],
        "atleast_2d": [Case(np.array([1.0, 2.0]), expected=np.array([[1.0, 2.0]])),
                       Case(np.array(3.0), expected=np.array([[3.0]]))],
        "atleast_3d": [Case(np.array([1.0, 2.0]), expected=np.array([1.0, 2.0])[None, :, None]),
                       Case(m, expected=m[:, :, None]), Case(np.array(1.0),
                                                            expected=np.ones((1, 1, 1)))],
        "index": [Case(m, [rt.torch_tensor([0, 2]), rt.torch_tensor([1, 3])],
                       expected=m[[0, 2], [1, 3]]),
                  Case(m, [None, rt.torch_tensor([3])], expected=m[:, [3]])],
        "result_type": [Case(np.array([1, 2]), 1.5, expected=lambda r, args: r ==
                             rt.torch_float32()),
                        Case(np.array([1.0]), np.array([1], np.int32),
                             expected=lambda r, args: r == rt.torch_float64())],
        "fill_diagonal_": [Case(np.zeros((3, 3)), 5.0, expected=inplace(diag)),
                           Case(np.zeros((7, 3)), 1.0, True, expected=inplace(tall))],
        "put_": [Case(np.zeros((2, 3)), np.array([0, -1]), np.array([9.0, 8.0]),
                      expected=inplace(put))],
        "resize_": [Case(np.arange(6.0), 2, 3, expected=inplace(np.arange(6.0).reshape(2, 3))),
                    Case(np.arange(3.0), 4,
                         expected=lambda r, args: r.shape == (4,) and
                         r.numpy()[:3].tolist() == [0.0, 1.0, 2.0])],
        "narrow_copy": [Case(m, 1, 1, 2, expected=m[:, 1:3])],
    }


def add_fft_samples(builder, Case, shape, anyv):
    """The Fourier transforms' rows, on real float64 inputs: complex values enter through
    ``view_as_complex`` and leave through ``view_as_real`` (or ``irfft``'s real output)."""
    def options(draw, m):
        n = draw(st.sampled_from([None, max(m - 1, 1), m + 2]))
        return n, draw(st.sampled_from([None, "forward", "ortho"]))

    @builder("FftC2CBackward0", "ViewAsRealBackward0", "ViewAsComplexBackward0")
    def _c2c(draw, rng, name):
        m = draw(st.integers(1, 5))
        n, norm = options(draw, m)
        k = draw(st.integers(1, 2))
        if draw(st.booleans()):  # the n-dimensional forms, over both dims in either order
            fn = rt.torch_fft_fftn if draw(st.booleans()) else rt.torch_fft_ifftn
            s = (n or m, draw(st.sampled_from([k, k + 1])))
            dims = draw(st.sampled_from([(0, 1), (1, 0)]))
            s = s if dims == (0, 1) else s[::-1]
            return Case(lambda x: rt.torch_view_as_real(fn(rt.torch_view_as_complex(x), s, dims,
                                                           norm)), anyv(rng, (m, k, 2)))
        fn = rt.torch_fft_fft if draw(st.booleans()) else rt.torch_fft_ifft
        return Case(lambda x: rt.torch_view_as_real(fn(rt.torch_view_as_complex(x), n, 0, norm)),
                    anyv(rng, (m, k, 2)))

    @builder("FftR2CBackward0")
    def _r2c(draw, rng, name):
        m = draw(st.integers(1, 5))
        n, norm = options(draw, m)
        if draw(st.booleans()):  # rfftn over both dims (the one-sided one drawn)
            dims = draw(st.sampled_from([(0, 1), (1, 0)]))
            s = (2, n or m) if dims == (0, 1) else (n or m, 2)
            return Case(lambda x: rt.torch_view_as_real(rt.torch_fft_rfftn(x, s, dims, norm)),
                        anyv(rng, (2, m)))
        fn = draw(st.sampled_from([rt.torch_fft_fft, rt.torch_fft_rfft, rt.torch_fft_ifft]))
        return Case(lambda x: rt.torch_view_as_real(fn(x, n, -1, norm)), anyv(rng, (2, m)))

    @builder("ConjBackward0")
    def _conj(draw, rng, name):
        m = draw(st.integers(1, 4))
        return Case(lambda x: rt.torch_view_as_real(rt.torch_view_as_complex(x).conj() *
                                                    rt.torch_view_as_complex(x * 2.0)),
                    anyv(rng, (m, 2)))

    @builder("FftC2RBackward0")
    def _c2r(draw, rng, name):
        m = draw(st.integers(2, 5))
        n, norm = options(draw, m)
        if draw(st.booleans()):  # irfftn, dim 0 the one-sided one
            s = (draw(st.integers(1, 3)), n or 2 * (m - 1))
            return Case(lambda x: rt.torch_fft_irfftn(rt.torch_view_as_complex(x), s, (1, 0),
                                                      norm), anyv(rng, (m, 2, 2)))
        return Case(lambda x: rt.torch_fft_irfft(rt.torch_view_as_complex(x), n, 0, norm),
                    anyv(rng, (m, 2)))


def fft_forward_cases(Case):
    """Forward cases of ``ops/fft.py`` against NumPy's transforms."""
    x = np.array([[1.0, 2.0, -1.0, 0.5], [0.0, 3.0, 1.0, -2.0]])
    z = (x + 1j * x[::-1]).astype(np.complex128)
    z32 = z.astype(np.complex64)
    pairs = np.stack([x.real, x[::-1]], -1)
    return {
        "fft_fft": [Case(x, expected=np.fft.fft(x)), Case(z, 3, 0, "ortho",
                                                          expected=np.fft.fft(z, 3, 0, "ortho")),
                    Case(x.astype(np.float32), expected=lambda r, a: r.dtype ==
                         rt.torch_cfloat())],
        "fft_ifft": [Case(z, expected=np.fft.ifft(z)),
                     Case(x, 6, norm="forward", expected=np.fft.ifft(x, 6, norm="forward"))],
        "fft_rfft": [Case(x, expected=np.fft.rfft(x)),
                     Case(z, expected=None, raises="real input")],
        "fft_irfft": [Case(np.fft.rfft(x), 4, expected=x),
                      Case(z, expected=np.fft.irfft(z))],
        "fft_fftn": [Case(x, expected=np.fft.fftn(x)),
                     Case(z, (3, 5), (1, 0), "ortho",
                          expected=np.fft.fftn(z, (3, 5), (1, 0), "ortho")),
                     Case(x, (1, 1, 1), expected=None, raises="only has 2 dimensions")],
        "fft_ifftn": [Case(z, expected=np.fft.ifftn(z)),
                      Case(x, (6,), norm="forward",
                           expected=np.fft.ifftn(x, (6,), (1,), norm="forward"))],
        "fft_rfftn": [Case(x, expected=np.fft.rfftn(x)),
                      Case(x, None, (1, 0), expected=np.fft.rfftn(x, axes=(1, 0))),
                      Case(z, expected=None, raises="real-valued input")],
        "fft_irfftn": [Case(np.fft.rfftn(x), (2, 4), expected=x),
                       Case(z, None, (1, 0), expected=np.fft.irfftn(z, axes=(1, 0)))],
        "view_as_real": [Case(z, expected=np.stack([z.real, z.imag], -1)),
                         Case(z32, expected=np.stack([z32.real, z32.imag], -1))],
        "view_as_complex": [Case(pairs, expected=pairs[..., 0] + 1j * pairs[..., 1])],
        "real": [Case(z, expected=z.real), Case(x, expected=x)],
        "imag": [Case(z, expected=z.imag), Case(x, expected=None, raises="non-complex")],
        "conj": [Case(z, expected=np.conj(z)), Case(x, expected=x)],
    }
