"""W5 custom function: the seeds' ``linear`` as an ``autograd_function`` against the same maths
from built-in ops (``input.mm(weight.t()) + bias``), forward+backward of ``.sum()``.

Two sizes: a small one (8x16 input, 4x16 weight), where per-call overhead dominates, and an MLP
layer (256x784 input, 512x784 weight). Peers: the same pair in PyTorch (``torch.autograd.Function``
against built-in ops) and NumPy by hand. The target is the custom path no slower than rtorchpy's
built-in ops.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import numpy as np

SEED_OPS_NOTE = ("built-in, seed's ops: the seed's forward written op for op with built-in ops "
                 "(mm, t, unsqueeze, expand_as, +); custom fn ÷ it is what the custom-function "
                 "path itself costs. The target compares with `+ bias`, two ops fewer")
SIZES = {"small 8x16 -> 4": (8, 16, 4), "MLP layer 256x784 -> 512": (256, 784, 512)}


# ---- the seeds' linear, as in tests/test_seeds_extending.py (Python spelling, 0-based dims)
def linear_forward(ctx, input, weight, bias=None):
    ctx.save_for_backward(input=input, weight=weight, bias=bias)
    output = input.mm(weight.t())
    if bias is not None:
        output = output + bias.unsqueeze(0).expand_as(output)
    return output


def linear_backward(ctx, grad_output):
    s = ctx.saved_variables
    grads = {"input": None, "weight": None, "bias": None}
    if ctx.needs_input_grad.input:
        grads["input"] = grad_output.mm(s.weight)
    if ctx.needs_input_grad.weight:
        grads["weight"] = grad_output.t().mm(s.input)
    if s.bias is not None and ctx.needs_input_grad.bias:
        grads["bias"] = grad_output.sum(dim=0)
    return grads


def load_autograd_function():
    try:
        import rtorchpy
        return rtorchpy.autograd_function, None
    except (ImportError, AttributeError) as exc:
        try:
            from rtorchpy.autograd.function import autograd_function
            return autograd_function, None
        except ImportError:
            return None, f"rtorchpy.autograd_function not importable ({exc}); W5 skipped"


def torch_linear_function(torch):
    class Linear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output = output + bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            gi = gw = gb = None
            if ctx.needs_input_grad[0]:
                gi = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                gw = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                gb = grad_output.sum(0)
            return gi, gw, gb
    return Linear.apply


def main():
    args = _common.parser(__doc__.splitlines()[0]).parse_args()
    autograd_function, skip = load_autograd_function()
    if autograd_function is None:
        _common.emit(args, "W5", [], [_common.target(
            "W5 custom function ≤ 1.0× built-in ops", None, 1.0, skip)], [skip],
            description="seeds' linear as autograd_function vs built-in ops")
        return
    import rtorchpy as rt
    torch, note = _common.load_torch()
    notes = [note] if note else []
    linear = autograd_function(linear_forward, linear_backward)
    t_linear = torch_linear_function(torch) if torch is not None else None
    repeat = 5 if args.quick else 15
    rows, targets = [], []
    rng = np.random.default_rng(0)
    for label, (n, k, m) in SIZES.items():
        number = 200 if n < 64 else 5
        if args.quick:
            number = max(1, number // 4)
        x0 = rng.standard_normal((n, k), dtype=np.float32)
        w0 = rng.standard_normal((m, k), dtype=np.float32) / np.float32(np.sqrt(k))
        b0 = rng.standard_normal(m, dtype=np.float32)
        x, w, b = (rt.torch_tensor(a, requires_grad=True) for a in (x0, w0, b0))
        params = (x, w, b)

        def custom():
            for p in params:
                p.grad = None
            linear(x, w, b).sum().backward()

        def builtin():
            for p in params:
                p.grad = None
            (x.mm(w.t()) + b).sum().backward()

        def builtin_seed_ops():
            # the seed's forward written with built-in ops, op for op (unsqueeze + expand_as
            # where ``+ bias`` would broadcast): what the custom-function path costs by itself
            for p in params:
                p.grad = None
            out = x.mm(w.t())
            (out + b.unsqueeze(0).expand_as(out)).sum().backward()

        def by_hand():
            out = x0 @ w0.T + b0
            out.sum()
            g = np.ones_like(out)
            return g @ w0, g.T @ x0, g.sum(axis=0)

        fns = {"rtorchpy custom": custom, "rtorchpy built-in": builtin,
               "rtorchpy built-in, seed's ops": builtin_seed_ops, "numpy": by_hand}
        custom()
        grads_custom = [p.grad._data.copy() for p in params]
        builtin()
        ref = by_hand()
        for gc_, gb_, gr in zip(grads_custom, [p.grad._data for p in params], ref):
            assert gc_.dtype == np.float32 and gb_.dtype == np.float32
            np.testing.assert_allclose(gc_, gb_, rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(gc_, gr, rtol=1e-5, atol=1e-4)
        if torch is not None:
            tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x0, w0, b0))
            tparams = (tx, tw, tb)

            def t_custom():
                for p in tparams:
                    p.grad = None
                t_linear(tx, tw, tb).sum().backward()

            def t_builtin():
                for p in tparams:
                    p.grad = None
                (tx.mm(tw.t()) + tb).sum().backward()

            fns["torch custom"] = t_custom
            fns["torch built-in"] = t_builtin
        res = _common.timeit(fns, repeat=repeat, number=number, warmup=2)
        for e, r in res.items():
            rows.append(_common.row(f"{label}, forward+backward", e, r["median"] * 1e6,
                                    "µs/call", min=r["min"] * 1e6, max=r["max"] * 1e6))
        ratio = res["rtorchpy custom"]["median"] / res["rtorchpy built-in"]["median"]
        targets.append(_common.target(
            f"W5 {label}: custom function ≤ 1.0× built-in ops", ratio, 1.0,
            f"{res['rtorchpy custom']['median'] * 1e6:.1f} vs "
            f"{res['rtorchpy built-in']['median'] * 1e6:.1f} µs/call"))
    notes.append(SEED_OPS_NOTE)
    _common.emit(args, "W5", rows, targets, notes,
                 description="seeds' linear as autograd_function vs input.mm(weight.t()) + bias")


if __name__ == "__main__":
    main()
