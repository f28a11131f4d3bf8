"""cProfile of rtorchpy alone on a workload: the evidence behind the README's explanations.

    python benchmarks/profile_rtorchpy.py W1 [W2 W3 W4 W5] [--top 25]

Runs rtorchpy's side of each workload many times under cProfile (1 thread) and prints the top
functions by tottime (own time) and cumtime; also written to
benchmarks/results/profile-<W>.txt.
"""
from __future__ import annotations

import _common  # noqa: F401  (first: pins the thread count before numpy is loaded)

import cProfile
import io
import os
import pstats
import sys

import numpy as np


def w1():
    import rtorchpy as rt
    from w1_per_op import chain
    x = rt.torch_tensor(np.full((4, 4), 0.3, np.float32), requires_grad=True)
    b = rt.torch_tensor(np.full((4, 4), 0.05, np.float32))

    def run():
        for _ in range(300):
            x.grad = None
            chain(x, b).sum().backward()
    return run


def w2():
    from w2_mlp import make_data, rtorchpy_engine
    step, _, _ = rtorchpy_engine(*make_data())

    def run():
        for _ in range(40):
            step()
    return run


def w3():
    import rtorchpy as rt
    from w3_deep_graph import chain

    def run():
        x = rt.torch_tensor(np.array([0.3], np.float32), requires_grad=True)
        chain(x, 10**5).sum().backward()
    return run


def w4():
    import rtorchpy as rt
    x = rt.torch_tensor(np.random.default_rng(0).uniform(-1, 1, (2000, 2000)).astype(np.float32),
                        requires_grad=True)

    def run():
        for _ in range(30):
            x.grad = None
            (x * x + 3 * x + 2).sum().backward()
    return run


def w5():
    import rtorchpy as rt
    from w5_custom_function import linear_backward, linear_forward
    linear = rt.autograd_function(linear_forward, linear_backward)
    rng = np.random.default_rng(0)
    ps = [rt.torch_tensor(rng.standard_normal(s, dtype=np.float32), requires_grad=True)
          for s in ((8, 16), (4, 16), (4,))]

    def run():
        for _ in range(3000):
            for p in ps:
                p.grad = None
            linear(*ps).sum().backward()
    return run


WORKLOADS = {"W1": w1, "W2": w2, "W3": w3, "W4": w4, "W5": w5}


def profile(name, top):
    run = WORKLOADS[name]()
    run()  # warm-up
    _common.freeze()
    prof = cProfile.Profile()
    prof.enable()
    run()
    prof.disable()
    out = io.StringIO()
    st = pstats.Stats(prof, stream=out).strip_dirs()
    out.write(f"==== {name}: top {top} by tottime ====\n")
    st.sort_stats("tottime").print_stats(top)
    out.write(f"==== {name}: top {top} by cumtime ====\n")
    st.sort_stats("cumulative").print_stats(top)
    text = out.getvalue()
    os.makedirs(os.path.join(_common.HERE, "results"), exist_ok=True)
    with open(os.path.join(_common.HERE, "results", f"profile-{name}.txt"), "w") as f:
        f.write(text)
    return text


def main():
    p = _common.parser(__doc__.splitlines()[0])
    p.add_argument("workloads", nargs="*", default=list(WORKLOADS))
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    for name in args.workloads:
        print(profile(name.upper(), args.top))


if __name__ == "__main__":
    sys.exit(main())
