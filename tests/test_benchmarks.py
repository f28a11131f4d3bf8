"""The benchmark suite still runs: every workload script in --quick mode through ``run.py``,
as ``make bench`` does (numbers are not judged here; speed is the benchmarks' business).

Each workload checks, before timing, that the engines agree (gradients, losses, float32 kept),
so a workload that fails here is a broken script or a wrong gradient, not a slow one.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Job, background

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "benchmarks" / "run.py"


def run_quick(out):
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    p = subprocess.run([sys.executable, str(RUN), "--quick", "--threads", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    return out, p


def background_jobs(items):
    """conftest.py runs the workloads in the background while the rest of the suite runs."""
    mine = [i for i in items if "quick_run" in getattr(i, "fixturenames", ())]
    return [Job("bench", run_quick, 100, mine)] if mine else []  # (cost: seconds, for order)


@pytest.fixture(scope="module")
def quick_run(request, tmp_path_factory):
    job = background(request, "bench")
    out, p = job.result() if job is not None else run_quick(tmp_path_factory.mktemp("bench"))
    assert p.returncode == 0, p.stderr[-3000:]
    return out, p


@pytest.mark.slow
def test_every_workload_reports_rows_and_targets(quick_run):
    out, _ = quick_run
    report = json.loads((out / "latest.json").read_text())
    assert report["workloads"] == ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "W10",
                                   "W11", "W12", "W13", "W14", "W15"]
    for name, res in report["results"]["1"].items():
        assert not res.get("error"), (name, res.get("error"))
        if name == "W6" and not res["rows"]:  # the R shim not installed: skipped with a note
            assert any("skipped" in n for n in res["notes"]), res["notes"]
            continue
        assert res["rows"], name
        assert all(r["value"] > 0 for r in res["rows"]), name
        assert res["targets"], name
        assert 0 <= res["other_cpus"] < 64, name


@pytest.mark.slow
def test_report_is_written_and_rerenders_the_same(quick_run):
    out, proc = quick_run
    md = (out / "latest.md").read_text()
    assert "## Targets" in md and "| W1 (1,) forward+backward per op" in md
    for name in ["W1", "W2", "W3", "W4", "W5", "W7", "W8", "W9", "W10", "W11", "W12", "W13",
                 "W14", "W15"]:
        assert f"## {name} —" in md
    again = subprocess.run([sys.executable, str(RUN), "--render", str(out / "latest.json")],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == md.strip()
