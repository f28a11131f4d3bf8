"""Random careless calls from R (tests/r_bad_input.R): every exported function of the R package
with NULL, NA, NaN, Inf, huge and negative numbers, strings, lists, complex numbers, functions,
environments and freed handles. Each batch runs in its own Rscript with its address space capped
(a careless size fails with a memory error instead of taking the machine) and a time limit; a
crash or a hang names the call that caused it (the driver logs each call before making it).

The suite samples a few thousand calls at fixed seeds; ``scripts/bad-input-full.sh`` runs many
more seeds in both languages."""
from __future__ import annotations

import os
import resource
import subprocess

import pytest

from test_r_shim import ROOT, _r_env, _rscript

MEMORY_CAP = 6 << 30   # bytes of address space for one batch
TIME_LIMIT = 240       # seconds for one batch


def run_batch(seed, n, log, first=0):
    """Run one batch; returns (returncode, stdout+stderr, the last call logged)."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = _r_env()
    env.pop("LD_LIBRARY_PATH", None)
    try:
        res = subprocess.run([_rscript(), "--vanilla", str(ROOT / "tests" / "r_bad_input.R"),
                              str(seed), str(n), str(log), str(first)],
                             cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=TIME_LIMIT, preexec_fn=cap)
        code, out = res.returncode, res.stdout + res.stderr
    except subprocess.TimeoutExpired as exc:
        code, out = "timeout", (exc.stdout or b"").decode(errors="replace")
    calls = log.read_text().splitlines() if log.exists() else []
    return code, out, calls[-1] if calls else "(none)"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_bad_calls_from_r(seed, tmp_path):
    log = tmp_path / "calls.txt"
    code, out, last = run_batch(seed, 700, log)
    summary = [ln for ln in out.splitlines() if ln.startswith("BAD-INPUT")]
    assert code == 0 and summary, (
        f"R {'hung' if code == 'timeout' else 'crashed'} (exit {code}) at the call {last}\n"
        f"{out[-3000:]}")
    findings = [ln for ln in out.splitlines() if ln.startswith("FINDING")]
    assert not findings, "\n".join(findings)
    calls = int(summary[-1].split()[1].split("=")[1])
    assert calls == 700


def test_the_driver_reports_what_it_should(tmp_path):
    """The driver itself: its summary counts the calls, and a crash is reported with the call
    that caused it (a batch that kills R's process by a signal)."""
    log = tmp_path / "calls.txt"
    code, out, last = run_batch(4, 20, log)
    assert code == 0 and "BAD-INPUT calls=20" in out, out[-3000:]
    assert len(log.read_text().splitlines()) == 20
    env = _r_env()
    res = subprocess.run([_rscript(), "--vanilla", "-e",
                          f"writeLines('tools::pskill(Sys.getpid())', '{log}'); "
                          "tools::pskill(Sys.getpid())"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode != 0 and log.read_text().strip() == "tools::pskill(Sys.getpid())"
    assert os.path.exists(ROOT / "scripts" / "bad-input-full.sh")
