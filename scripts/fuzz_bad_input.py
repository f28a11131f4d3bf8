"""Every public function of rtorchpy called with careless and hostile values (issue 36).

Each public name in ``rtorchpy.__all__`` is called with a battery of bad values (None, NaN,
infinities, huge and negative integers, -2**31, 2**63, strings, lists, complex numbers,
bytearrays, NumPy's uint64 maximum, arbitrary objects) in each argument position and keyword,
the other arguments being ordinary tensors. The calls run in a child process (a crash guard:
``faulthandler`` on, address space limited so a giant allocation fails instead of swapping),
each with a time limit; a crash or a hang restarts the child. A call passes when it returns or
raises TypeError, ValueError, IndexError or RuntimeError whose message does not show rtorchpy's
internals, and leaves grad mode, anomaly mode and the default dtype as they were.

Usage (the full run; ``tests/test_bad_input_fuzz.py`` runs a seeded sample of it)::

    .venv/bin/python scripts/fuzz_bad_input.py            # every call, seed 0
    .venv/bin/python scripts/fuzz_bad_input.py --sample 2000 --seed 3
    .venv/bin/python scripts/fuzz_bad_input.py --only torch_diag,torch_sum

It prints one line per finding and exits non-zero when there is any.
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, Python expression): evaluated in the child, where `np` and `rt` are imported
BAD_VALUES = [
    ("None", "None"), ("nan", "float('nan')"), ("inf", "float('inf')"),
    ("-inf", "float('-inf')"), ("2**63", "2**63"), ("-2**31", "-2**31"),
    ("10**30", "10**30"), ("-1", "-1"), ("-10**9", "-10**9"), ("1.5", "1.5"),
    ("'abc'", "'abc'"), ("''", "''"), ("[1, 2]", "[1, 2]"), ("[[1], [2, 3]]", "[[1], [2, 3]]"),
    ("1+2j", "1+2j"), ("bytearray", "bytearray(b'ab')"), ("uint64max", "np.uint64(2**64-1)"),
    ("object()", "object()"), ("{}", "{}"), ("True", "True"),
    ("int tensor", "rt.torch_ones(2, dtype=rt.torch_int64())"),
    ("0-dim", "rt.torch_tensor(1.5)"), ("empty", "rt.torch_ones(0)"),
    ("-2**63", "np.int64(-2**63)"), ("2**64", "2**64"), ("1e308", "1e308"),
    ("leaf", "rt.torch_ones(2, 3, requires_grad=True)"), ("bool tensor", "rt.torch_ones(3) > 0"),
]
# what the arguments before the bad one hold: a float tensor, then (second pattern) integers
GOOD = "rt.torch_randn(2, 3)"
FILLERS = ([GOOD] * 4, [GOOD, "1", "1", "1"])
ALLOWED = ("TypeError", "ValueError", "IndexError", "RuntimeError", "NotImplementedError",
           "FileNotFoundError", "IsADirectoryError", "PermissionError", "UserWarning")
# messages that show internals instead of the user's mistake
INTERNAL = ("._data", "'_data'", "object has no attribute", "unhashable type", "Tensor.__new__",
            "maximum recursion depth", "did not contain a loop", "invalid literal for int()",
            "unsupported operand type")
CALL_SECONDS = 10.0


def public_names():
    """Every public function and class of ``rtorchpy.__all__``, then every public method of
    Tensor as ``"Tensor.<name>"`` (called on a float tensor)."""
    import rtorchpy as rt
    out = []
    for name in rt.__all__:
        f = getattr(rt, name)
        if callable(f) and not name.startswith("_"):
            out.append(name)
    for name in sorted(dir(rt.Tensor)):
        if not name.startswith("_") and callable(getattr(rt.Tensor, name, None)):
            out.append("Tensor." + name)
    for kind, expr in INSTANCES.items():
        obj = eval(expr, {"rt": rt})
        for name in sorted(dir(obj)):
            if not name.startswith("_") and callable(getattr(obj, name, None)) and \
                    not isinstance(getattr(obj, name), rt.Tensor):
                out.append(f"{kind}.{name}")
    return out


# objects whose methods are called too (as "<kind>.<method>")
INSTANCES = {
    "Module": "rt.nn_linear(3, 2)",
    "Optimizer": "rt.optim_sgd([rt.torch_ones(2, requires_grad=True)], lr=0.1)",
    "Scheduler": "rt.lr_step(rt.optim_sgd([rt.torch_ones(2, requires_grad=True)], lr=0.1), 2)",
}


def resolve(name):
    import rtorchpy as rt
    kind, _, attr = name.partition(".")
    if not attr:
        return getattr(rt, name)
    if kind == "Tensor":
        return getattr(rt.Tensor, attr)
    return getattr(eval(INSTANCES[kind], {"rt": rt}), attr)


def arity(name):
    """How many leading positions to fill, and the keyword names, of a public function."""
    try:
        params = list(inspect.signature(resolve(name)).parameters.values())
    except (TypeError, ValueError):
        return 2, []
    if name.startswith("Tensor.") and params:
        params = params[1:]  # self (the others are bound methods already)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                and p.default is not p.empty]
    return min(max(len(positional), 1), 4), keywords[:8]


def all_calls():
    """Every (function, args expressions, kwargs expressions) of the full run."""
    calls = []
    for name in public_names():
        n, keywords = arity(name)
        method = "." in name
        for _label, expr in BAD_VALUES:
            for fill in FILLERS:  # the bad value at position `pos`, good values before it
                for pos in range(n):
                    if fill is FILLERS[1] and pos < 2:
                        continue  # (the same calls as with the first filler)
                    calls.append((name, fill[:pos] + [expr], {}))
            for kw in keywords:
                calls.append((name, [] if method else [GOOD], {kw: expr}))
    return calls


# ------------------------------------------------------------------------------ the child

CHILD = r'''
import faulthandler, json, os, resource, sys, warnings
answers = os.fdopen(os.dup(1), "w")  # the replies; what the calls print goes to stderr
os.dup2(2, 1)
sys.stdout = sys.stderr
faulthandler.enable()
limit = int(os.environ.get("FUZZ_MEMORY", str(3 * 2 ** 30)))
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
warnings.simplefilter("ignore")
import numpy as np
import rtorchpy as rt
sys.setrecursionlimit(3000)
dtype0 = rt.torch_get_default_dtype()
GOOD = os.environ["FUZZ_GOOD"]
INSTANCES = json.loads(os.environ["FUZZ_INSTANCES"])
print(json.dumps({"ready": True}), file=answers, flush=True)
for line in sys.stdin:
    name, args, kwargs = json.loads(line)
    out = {"ok": True}
    try:
        kind, _, attr = name.partition(".")
        if not attr:
            f = getattr(rt, name)
        elif kind == "Tensor":
            f = getattr(eval(GOOD), attr)
        else:
            f = getattr(eval(INSTANCES[kind]), attr)
        a = [eval(x) for x in args]
        k = {key: eval(x) for key, x in kwargs.items()}
        r = f(*a, **k)
        if isinstance(r, rt.Tensor):
            r.format()  # print it: a tensor over bad memory shows here
    except BaseException as e:
        kinds = [c.__name__ for c in type(e).__mro__]
        out = {"ok": False, "type": type(e).__name__, "kinds": kinds, "message": str(e)[:300]}
    state = []  # (a call that succeeded may change the state: only errors must not)
    if not rt.is_grad_enabled():
        state.append("grad mode left off")
        rt.autograd_set_grad_mode(True)
    if rt.is_anomaly_enabled():
        state.append("anomaly mode left on")
        rt.autograd_set_detect_anomaly(False)
    if rt.torch_get_default_dtype() is not dtype0:
        state.append(f"default dtype left {rt.torch_get_default_dtype()!r}")
        rt.torch_set_default_dtype(dtype0)
    out["state"] = state if not out["ok"] else []
    print(json.dumps(out), file=answers, flush=True)
'''


class Child:
    def __init__(self, cwd):
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   FUZZ_GOOD=GOOD, FUZZ_INSTANCES=json.dumps(INSTANCES))
        self.p = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd,
                                  env=env, text=True, bufsize=1, errors="replace")
        self._readline(60.0)

    def _readline(self, seconds):
        ready, _, _ = select.select([self.p.stdout], [], [], seconds)
        if not ready:
            return None
        line = self.p.stdout.readline()
        return json.loads(line) if line else {"crash": self.p.wait()}

    def call(self, name, args, kwargs):
        self.p.stdin.write(json.dumps([name, args, kwargs]) + "\n")
        self.p.stdin.flush()
        return self._readline(CALL_SECONDS)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def check(result):
    """The problem with one call's result, or None."""
    if result is None:
        return f"hang (no answer in {CALL_SECONDS:.0f} s)"
    if "crash" in result:
        return f"crash (exit status {result['crash']})"
    problems = list(result.get("state", []))
    if not result["ok"]:
        if not set(result.get("kinds", [result["type"]])) & set(ALLOWED):
            problems.append(f"{result['type']}: {result['message'][:150]}")
        elif any(w in result["message"] for w in INTERNAL):
            problems.append(f"internal message {result['type']}: {result['message'][:150]}")
    return "; ".join(problems) or None


def run(calls, log=print, messages=None):
    """Run ``calls``; the list of (call, problem) found. ``messages``: a file to write every
    call's outcome to (for reading the errors' wording)."""
    findings = []
    with tempfile.TemporaryDirectory() as cwd:  # (torch_save('abc', ...) writes files)
        child = Child(cwd)
        try:
            for call in calls:
                result = child.call(*call)
                problem = check(result)
                if messages is not None and result and "ok" in result:
                    messages.write(json.dumps([call, result.get("type"),
                                               result.get("message")]) + "\n")
                if problem:
                    findings.append((call, problem))
                    log(f"{call[0]}({', '.join(call[1])}"
                        f"{', ' if call[1] and call[2] else ''}"
                        f"{', '.join(f'{k}={v}' for k, v in call[2].items())}): {problem}")
                if result is None or "crash" in result:
                    child.kill()
                    child = Child(cwd)
        finally:
            child.kill()
    return findings


def sample(n, seed, only=None):
    calls = all_calls()
    if only:
        calls = [c for c in calls if c[0] in only]
    if n and n < len(calls):
        calls = random.Random(seed).sample(calls, n)
    return calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=int, default=0, help="calls to draw (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated public names")
    ap.add_argument("--messages", default="", help="write every outcome to this file")
    a = ap.parse_args(argv)
    calls = sample(a.sample, a.seed, set(filter(None, a.only.split(","))))
    t0 = time.time()
    out = open(a.messages, "w") if a.messages else None
    try:
        findings = run(calls, messages=out)
    finally:
        if out is not None:
            out.close()
    print(f"{len(calls)} calls, {len(findings)} findings, {time.time() - t0:.0f} s")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
