"""Gradient-check samples for the rows of the convolutional layers (``derivatives/conv.py``,
padding and pooling), registered into ``tests/test_derivatives.py``'s table of samples by
:func:`add_samples`: every row is checked at first and second order on drawn arguments."""
from __future__ import annotations

from hypothesis import strategies as st

import rtorchpy as rt

_CONV = {(1, False): rt.nnf_conv1d, (2, False): rt.nnf_conv2d, (3, False): rt.nnf_conv3d,
         (1, True): rt.nnf_conv_transpose1d, (2, True): rt.nnf_conv_transpose2d,
         (3, True): rt.nnf_conv_transpose3d}


def add_samples(builder, Case, anyv):
    """Register the samples with ``builder`` (test_derivatives' decorator)."""

    @builder("ConvolutionBackward0")
    def _convolution(draw, rng, name):
        nd = draw(st.integers(1, 3))
        transposed = draw(st.booleans())
        groups = draw(st.sampled_from([1, 2]))
        cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))

        def ints(lo, hi):
            return tuple(draw(st.integers(lo, hi)) for _ in range(nd))
        kernel, stride, dilation, padding = ints(1, 2), ints(1, 2), ints(1, 2), ints(0, 1)
        size = ints(3, 4 if nd < 3 else 3)
        n = draw(st.integers(1, 2))
        bias = draw(st.booleans())
        fn = _CONV[(nd, transposed)]
        if transposed:
            out_pad = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
            weight = anyv(rng, (cin, cout // groups) + kernel)

            def conv(x, w, *b):
                return fn(x, w, b[0] if b else None, stride, padding, out_pad, groups, dilation)
        else:
            weight = anyv(rng, (cout, cin // groups) + kernel)

            def conv(x, w, *b):
                return fn(x, w, b[0] if b else None, stride, padding, dilation, groups)
        inputs = [anyv(rng, (n, cin) + size), weight] + ([anyv(rng, (cout,))] if bias else [])
        return Case(conv, *inputs)

    @builder("ConstantPadNdBackward0")
    def _constant_pad(draw, rng, name):
        nd = draw(st.integers(1, 3))
        shape = tuple(draw(st.integers(2, 3)) for _ in range(nd))
        pads = [draw(st.integers(-1, 2)) for _ in range(2 * draw(st.integers(1, nd)))]
        return Case(lambda a: rt.nnf_pad(a, pads, value=0.5), anyv(rng, shape))

    modes = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}
    gathers = [f"{kind}Pad{k}D" for kind in modes for k in (1, 2, 3)]

    def _gather_args(draw, name):
        kind, k = name[:name.index("Pad")], int(name[name.index("Pad") + 3])
        batched = draw(st.booleans())
        shape = ((2,) if batched else ()) + (2,) + tuple(draw(st.integers(2, 3))
                                                         for _ in range(k))
        pads = [draw(st.integers(0, 1)) for _ in range(2 * k)]
        return shape, pads, modes[kind]

    @builder(*[g + "Backward0" for g in gathers])
    def _gather_pad(draw, rng, name):
        shape, pads, mode = _gather_args(draw, name)
        return Case(lambda a: rt.nnf_pad(a, pads, mode), anyv(rng, shape))

    @builder(*[g + "BackwardBackward0" for g in gathers])
    def _gather_pad_backward(draw, rng, name):
        shape, pads, mode = _gather_args(draw, name)
        x = rt.torch_tensor(anyv(rng, shape), requires_grad=True)
        out_shape = tuple(rt.nnf_pad(x.detach(), pads, mode).shape)

        def grad_of_pad(g):
            y = rt.nnf_pad(x, pads, mode)
            return rt.autograd_grad([y], [x], [g], create_graph=True)[0]
        return Case(grad_of_pad, anyv(rng, out_shape))

    @builder("MaxPool2DWithIndicesBackward0", "MaxPool3DWithIndicesBackward0",
             "AvgPool2DBackward0", "AvgPool3DBackward0")
    def _pool(draw, rng, name):
        nd = 3 if "3D" in name else 2
        kernel = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        stride = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
        ceil_mode = draw(st.booleans())
        shape = (draw(st.integers(1, 2)), 2) + tuple(draw(st.integers(2, 4)) for _ in range(nd))
        if name.startswith("Max"):
            fn = rt.nnf_max_pool2d if nd == 2 else rt.nnf_max_pool3d
            # distinct values: a tie would move the maximum under a finite difference
            values = rng.permutation(int(np_prod(shape))).reshape(shape) * 0.1
            return Case(lambda a: fn(a, kernel, stride, padding, ceil_mode=ceil_mode), values)
        fn = rt.nnf_avg_pool2d if nd == 2 else rt.nnf_avg_pool3d
        include = draw(st.booleans())
        return Case(lambda a: fn(a, kernel, stride, padding, ceil_mode, include), anyv(rng, shape))


def np_prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def add_adaptive_samples(builder, Case, anyv):
    """Samples for the adaptive pooling and unpooling rows."""

    def plane(draw, nd):
        return (draw(st.integers(1, 2)), 2) + tuple(draw(st.integers(1, 5)) for _ in range(nd))

    @builder("AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0",
             "AdaptiveMaxPool2DBackward0", "AdaptiveMaxPool3DBackward0")
    def _adaptive(draw, rng, name):
        nd = 3 if "3D" in name else 2
        shape = plane(draw, nd)
        out = [draw(st.integers(1, 4)) for _ in range(nd)]
        out[0] = max(out[0], 2)  # all ones would be a mean (MeanBackward1), as in libtorch
        fn = getattr(rt, f"nnf_adaptive_{'avg' if 'Avg' in name else 'max'}_pool{nd}d")
        values = rng.permutation(np_prod(shape)).reshape(shape) * 0.1  # no ties for max
        return Case(lambda a: fn(a, out), values if "Max" in name else anyv(rng, shape))

    @builder("FractionalMaxPool2DBackward0", "FractionalMaxPool3DBackward0")
    def _fractional(draw, rng, name):
        nd = 3 if "3D" in name else 2
        kernel = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        shape = (draw(st.integers(1, 2)), 2) + tuple(k + draw(st.integers(1, 3)) for k in kernel)
        out = [draw(st.integers(1, s - k)) for s, k in zip(shape[2:], kernel)]
        fn = getattr(rt, f"nnf_fractional_max_pool{nd}d")
        samples = rt.torch_tensor(rng.random(shape[:2] + (nd,)))
        values = rng.permutation(np_prod(shape)).reshape(shape) * 0.1  # no ties for max
        return Case(lambda a: fn(a, kernel, out, _random_samples=samples), values)

    @builder("AdaptiveAvgPool2DBackwardBackward0", "AdaptiveAvgPool3DBackwardBackward0")
    def _adaptive_backward(draw, rng, name):
        nd = 3 if "3D" in name else 2
        shape = plane(draw, nd)
        out = [draw(st.integers(1, 4)) for _ in range(nd)]
        out[0] = max(out[0], 2)
        fn = getattr(rt, f"nnf_adaptive_avg_pool{nd}d")
        x = rt.torch_tensor(anyv(rng, shape), requires_grad=True)

        def grad_of_pool(g):
            return rt.autograd_grad([fn(x, out)], [x], [g], create_graph=True)[0]
        return Case(grad_of_pool, anyv(rng, shape[:2] + tuple(out)))

    @builder("MaxUnpool2DBackward0", "MaxUnpool3DBackward0")
    def _unpool(draw, rng, name):
        nd = 3 if "3D" in name else 2
        shape = (2, 2) + tuple(2 * draw(st.integers(1, 2)) for _ in range(nd))
        pool = getattr(rt, f"nnf_max_pool{nd}d")
        unpool = getattr(rt, f"nnf_max_unpool{nd}d")
        values, indices = pool(rt.torch_tensor(anyv(rng, shape)), 2, return_indices=True)
        return Case(lambda a: unpool(a, indices, 2), values._data)

    @builder("NativeGroupNormBackward0")
    def _group_norm(draw, rng, name):
        groups = draw(st.integers(1, 2))
        c = groups * draw(st.integers(1, 2))
        shape = (draw(st.integers(1, 2)), c) + tuple(draw(st.integers(1, 3))
                                                     for _ in range(draw(st.integers(1, 2))))
        if shape[1] // groups * int(np_prod(shape[2:])) < 2:
            shape = shape[:2] + (2,) + shape[3:]
        which = draw(st.sampled_from(["none", "weight", "both"]))
        extra = [anyv(rng, (c,)) for _ in range({"none": 0, "weight": 1, "both": 2}[which])]
        return Case(lambda a, *wb: rt.nnf_group_norm(a, groups, *wb), anyv(rng, shape), *extra)

    @builder("Im2ColBackward0", "Col2ImBackward0")
    def _fold(draw, rng, name):
        kernel = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        dilation = (draw(st.integers(1, 2)), 1)
        padding = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
        stride = (1, draw(st.integers(1, 2)))
        sizes = (draw(st.integers(3, 4)), draw(st.integers(3, 4)))
        if name == "Im2ColBackward0":
            return Case(lambda a: rt.nnf_unfold(a, kernel, dilation, padding, stride),
                        anyv(rng, (2, 2) + sizes))
        blocks = [(s + 2 * p - d * (k - 1) - 1) // st_ + 1 for s, p, d, k, st_ in
                  zip(sizes, padding, dilation, kernel, stride)]
        return Case(lambda a: rt.nnf_fold(a, sizes, kernel, dilation, padding, stride),
                    anyv(rng, (2, 2 * kernel[0] * kernel[1], blocks[0] * blocks[1])))

    @builder("PixelShuffleBackward0", "PixelUnshuffleBackward0")
    def _shuffle(draw, rng, name):
        r = draw(st.integers(1, 2))
        if name == "PixelShuffleBackward0":
            return Case(lambda a: rt.nnf_pixel_shuffle(a, r), anyv(rng, (2, 2 * r * r, 2, 3)))
        return Case(lambda a: rt.nnf_pixel_unshuffle(a, r), anyv(rng, (2, 2, 2 * r, 3 * r)))


_UPSAMPLE = {"UpsampleNearest1D": ("nearest", 1), "UpsampleNearest2D": ("nearest", 2),
             "UpsampleNearest3D": ("nearest", 3),
             "UpsampleNearestExact1D": ("nearest-exact", 1),
             "UpsampleNearestExact2D": ("nearest-exact", 2),
             "UpsampleNearestExact3D": ("nearest-exact", 3),
             "UpsampleLinear1D": ("linear", 1), "UpsampleBilinear2D": ("bilinear", 2),
             "UpsampleBicubic2D": ("bicubic", 2), "UpsampleTrilinear3D": ("trilinear", 3)}


def add_interpolate_samples(builder, Case, anyv):
    """Samples for the interpolation rows and their double-backward partners."""

    def args(draw, name):
        mode, nd = _UPSAMPLE[name[:name.index("Backward")]]
        shape = (2, 2) + tuple(draw(st.integers(2, 3)) for _ in range(nd))
        size = [draw(st.integers(1, 5)) for _ in range(nd)]
        if all(s == n for s, n in zip(size, shape[2:])):
            size[0] += 1  # (a kept size is a copy for linear modes, still this node)
        kw = {"size": size, "mode": mode}
        if mode not in ("nearest", "nearest-exact"):
            kw["align_corners"] = draw(st.booleans())
        return shape, kw

    names = list(_UPSAMPLE)

    @builder(*[n + "Backward0" for n in names])
    def _upsample(draw, rng, name):
        shape, kw = args(draw, name)
        return Case(lambda a: rt.nnf_interpolate(a, **kw), anyv(rng, shape))

    @builder(*[n + "BackwardBackward0" for n in names])
    def _upsample_backward(draw, rng, name):
        shape, kw = args(draw, name)
        x = rt.torch_tensor(anyv(rng, shape), requires_grad=True)
        out_shape = tuple(rt.nnf_interpolate(x.detach(), **kw).shape)

        def grad_of(g):
            return rt.autograd_grad([rt.nnf_interpolate(x, **kw)], [x], [g],
                                    create_graph=True)[0]
        return Case(grad_of, anyv(rng, out_shape))
