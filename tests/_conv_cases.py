"""Random convolution, padding and pooling cases, shared by the live comparison with PyTorch
(``tests/test_conv_layers.py``) and the recorder of ``tests/fixtures/conv_recorded.json``.
Each case is drawn from a seed, so the fixture only stores the seed and PyTorch's answers."""
from __future__ import annotations

import numpy as np


def conv_case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    transposed = bool(rng.random() < 0.4)
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))

    def ints(lo, hi):
        return [int(v) for v in rng.integers(lo, hi, nd)]
    args = {"stride": ints(1, 3), "padding": ints(0, 3), "dilation": ints(1, 3),
            "groups": groups}
    kernel = ints(1, 4)
    size = ints(3, 8 if nd < 3 else 5)
    if transposed:
        args["output_padding"] = [int(rng.integers(0, max(s, d))) for s, d in
                                  zip(args["stride"], args["dilation"])]
        wshape = [cin, cout // groups] + kernel
    else:
        if rng.random() < 0.2 and all(s == 1 for s in args["stride"]):
            args["padding"] = str(rng.choice(["same", "valid"]))
        wshape = [cout, cin // groups] + kernel
    fn = ("conv_transpose" if transposed else "conv") + f"{nd}d"
    shapes = [[int(rng.integers(1, 3)), cin] + size, wshape]
    if rng.random() < 0.5:
        shapes.append([cout])
    return fn, args, shapes


def pad_case(seed):
    rng = np.random.default_rng(seed)
    mode = str(rng.choice(["constant", "reflect", "replicate", "circular"]))
    k = int(rng.integers(1, 4))
    batched = bool(rng.random() < 0.7)
    lead = [int(rng.integers(1, 4)) for _ in range(2 if batched else 1)]
    shape = lead + [int(v) for v in rng.integers(2, 6, k)]
    low = -1 if mode == "constant" else 0
    pads = [int(v) for v in rng.integers(low, 2 if mode == "circular" else 4, 2 * k)]
    args = {"pad": pads, "mode": mode}
    if mode == "constant":
        args["value"] = 1.5
    return "pad", args, [shape]


def pool_case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    kind = str(rng.choice(["max", "avg"]))
    kernel = [int(v) for v in rng.integers(1, 4, nd)]
    args = {"kernel_size": kernel, "stride": [int(v) for v in rng.integers(1, 3, nd)],
            "padding": [int(rng.integers(0, k // 2 + 1)) for k in kernel],
            "ceil_mode": bool(rng.random() < 0.5)}
    if kind == "max":
        args["dilation"] = [int(v) for v in rng.integers(1, 3, nd)]
    else:
        args["count_include_pad"] = bool(rng.random() < 0.5)
        if nd > 1 and rng.random() < 0.3:
            args["divisor_override"] = 3
    batched = bool(rng.random() < 0.8)
    shape = ([2] if batched else []) + [2] + [int(v) for v in
                                             rng.integers(3, 7 if nd < 3 else 5, nd)]
    return f"{kind}_pool{nd}d", args, [shape]


def inputs(seed, shapes):
    """The case's float64 inputs, and a gradient for the output and one for each input."""
    rng = np.random.default_rng(seed + 10_000)
    return [rng.standard_normal(s) for s in shapes], rng


def adaptive_case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    kind = str(rng.choice(["avg", "max"]))
    batched = bool(rng.random() < 0.8)
    shape = ([2] if batched else []) + [2] + [int(v) for v in rng.integers(1, 8 if nd < 3 else 6,
                                                                           nd)]
    out = [int(v) for v in rng.integers(1, 6, nd)]
    if nd > 1 and rng.random() < 0.3:
        out[0] = None
    args = {"output_size": out if nd > 1 else out[0]}
    return f"adaptive_{kind}_pool{nd}d", args, [shape]


def fold_case(seed):
    rng = np.random.default_rng(seed)
    kind = str(rng.choice(["unfold", "fold", "pixel_shuffle", "pixel_unshuffle"]))
    batched = bool(rng.random() < 0.8)
    lead = [2] if batched else []
    if kind.startswith("pixel"):
        r = int(rng.integers(1, 4))
        c, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        if kind == "pixel_shuffle":
            return kind, {"upscale_factor": r}, [lead + [c * r * r, h, w]]
        return kind, {"downscale_factor": r}, [lead + [c, h * r, w * r]]
    kernel = [int(v) for v in rng.integers(1, 4, 2)]
    args = {"kernel_size": kernel, "dilation": [int(v) for v in rng.integers(1, 3, 2)],
            "padding": [int(v) for v in rng.integers(0, 3, 2)],
            "stride": [int(v) for v in rng.integers(1, 3, 2)]}
    sizes = [int(v) for v in rng.integers(3, 8, 2)]
    if kind == "unfold":
        return kind, args, [lead + [2] + sizes]
    blocks = [max((s + 2 * p - d * (k - 1) - 1) // st + 1, 1) for s, p, d, k, st in
              zip(sizes, args["padding"], args["dilation"], kernel, args["stride"])]
    args["output_size"] = sizes
    return kind, args, [lead + [2 * kernel[0] * kernel[1], blocks[0] * blocks[1]]]


def interp_case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    modes = {1: ["nearest", "nearest-exact", "linear", "area"],
             2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
             3: ["nearest", "nearest-exact", "trilinear", "area"]}[nd]
    mode = str(rng.choice(modes))
    shape = [2, 2] + [int(v) for v in rng.integers(1, 7 if nd < 3 else 5, nd)]
    args = {"mode": mode}
    if rng.random() < 0.5:
        args["size"] = [int(v) for v in rng.integers(1, 9 if nd < 3 else 6, nd)]
    else:
        args["scale_factor"] = [float(rng.choice([0.5, 0.7, 1.0, 1.5, 2.0, 2.3]))
                                for _ in range(nd)]
        if rng.random() < 0.3:
            args["recompute_scale_factor"] = True
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        args["align_corners"] = bool(rng.random() < 0.5)
    return "interpolate", args, [shape]


def grid_sample_case(seed):
    """2-d or 3-d sampling, every mode but nearest (whose grid gets no gradient here, a zero
    one in libtorch: the live test covers it), every padding mode."""
    rng = np.random.default_rng(seed)
    nd = int(rng.choice([2, 3]))
    args = {"mode": str(rng.choice(["bilinear", "bicubic"] if nd == 2 else ["bilinear"])),
            "padding_mode": str(rng.choice(["zeros", "border", "reflection"])),
            "align_corners": bool(rng.random() < 0.5)}
    spatial = [int(v) for v in rng.integers(1, 5, nd)]
    out = [int(v) for v in rng.integers(1, 4, nd)]
    return "grid_sample", args, [[2, int(rng.integers(1, 3))] + spatial, [2] + out + [nd]]


def affine_grid_case(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.choice([2, 3]))
    args = {"size": [2, 1] + [int(v) for v in rng.integers(1, 5, nd)],
            "align_corners": bool(rng.random() < 0.5)}
    return "affine_grid", args, [[2, nd, nd + 1]]
