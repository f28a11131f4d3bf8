"""Run the rtorchpy benchmark suite: each workload script in its own process, at 1 and 2 threads.

    python benchmarks/run.py                 # everything (about 6-8 minutes on 2 cores)
    python benchmarks/run.py --quick         # fewer repeats, no 10^6 chain (about 2 minutes)
    python benchmarks/run.py --only W1,W3 --threads 1

Prints one markdown report (targets with PASS/MISS, then a table per workload with medians and
rtorchpy's ratio to each peer) and saves it as benchmarks/results/latest.md, with every number
in benchmarks/results/latest.json. Targets are judged at 1 thread; the 2-thread value is shown
beside them for information.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKLOADS = {
    "W1": ("w1_per_op.py", "Per-op overhead: chain of 100 small ops"),
    "W2": ("w2_mlp.py", "MLP training step (784-512-512-10, batch 256)"),
    "W3": ("w3_deep_graph.py", "Deep graph: chains of tiny ops"),
    "W4": ("w4_elementwise.py", "Large elementwise (2000x2000 float32)"),
    "W5": ("w5_custom_function.py", "Custom function: the seeds' linear"),
    "W6": ("w6_from_r.py", "From R through the shim"),
    "W7": ("w7_linalg_solve.py", "Linear solve (64x64), forward+backward"),
    "W8": ("w8_modules.py", "W2 with nn_sequential and optim_sgd"),
    "W9": ("w9_adam.py", "Adam step over the W2 MLP's parameters"),
    "W10": ("w10_randn.py", "Random numbers: torch_randn(10^6) after a seed"),
    "W11": ("w11_distributions.py", "Distributions: log_prob forward and backward"),
    "W12": ("w12_dataloader.py", "Data loading: a tensor_dataset epoch, an R dataset()"),
    "W13": ("w13_convnets.py", "Convnets: LeNet-5 step, 1-D convnet step, conv2d forward"),
    "W14": ("w14_sequence.py", "Sequence models: 2-layer LSTM, transformer encoder layer"),
    "W15": ("w15_transforms.py", "Function transforms: Hessian, jacfwd, vmap(grad)"),
}
ENGINE_NAMES = {"rtorchpy": "rtorchpy", "numpy": "NumPy by hand", "torch": "PyTorch",
                "rtorchpy custom": "rtorchpy custom fn", "rtorchpy built-in": "rtorchpy built-in",
                "rtorchpy built-in, seed's ops": "rtorchpy built-in, seed's ops",
                "torch custom": "PyTorch custom fn", "torch built-in": "PyTorch built-in",
                "rtorchpy (R)": "rtorchpy from R", "rtorchpy nn": "rtorchpy nn + optim",
                "rtorchpy nn, set_to_none": "rtorchpy nn + optim, set_to_none",
                "rtorchpy by hand": "rtorchpy by hand (W2)", "torch nn": "PyTorch nn + optim",
                "torch by hand": "PyTorch by hand (W2)"}
OTHERS_NOTED = 0.1  # the report names workloads during which other processes used more CPU
# the engine the ratios are taken of (default rtorchpy)
SUBJECT = {"W5": "rtorchpy custom", "W8": "rtorchpy nn"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- machine and versions
def machine_info():
    info = {"platform": platform.platform(), "python": sys.version.split()[0],
            "nproc": os.cpu_count()}
    try:
        info["cpus_usable"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            info["memory_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
    except OSError:
        pass
    try:
        import numpy
        info["numpy"] = numpy.__version__
        cfg = numpy.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        info["blas"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
        if blas.get("openblas configuration"):
            info["blas_config"] = blas["openblas configuration"]
    except Exception as exc:  # noqa: BLE001
        info["numpy"] = f"unavailable ({exc})"
    return info


def _loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _cpu_seconds():
    """(CPU seconds the whole machine has been busy, CPU seconds this process and its waited-for
    children used), or None where /proc/stat is missing. The difference over a workload is what
    other processes took while it ran: unlike the load average, it does not count the workload
    itself."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...: busy = all but idle, iowait
    busy = sum(fields[:3]) + sum(fields[5:8])
    ours = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = ours.ru_utime + ours.ru_stime + kids.ru_utime + kids.ru_stime
    return busy / os.sysconf("SC_CLK_TCK"), own


def git_info():
    def git(*a):
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    commit = git("rev-parse", "--short", "HEAD")
    if not commit:  # an exported tree (git archive) benchmarked outside the repository
        return {"commit": os.environ.get("RTORCHPY_BENCH_COMMIT", "unknown"),
                "rtorchpy_dirty": False}
    return {"commit": commit,
            "rtorchpy_dirty": bool(git("status", "--porcelain", "--", "rtorchpy"))}


# ---------------------------------------------------------------- running
def run_workload(name, threads, args, results_dir):
    script, _ = WORKLOADS[name]
    out = os.path.join(results_dir, f".{name}-{threads}t.json")
    cmd = [sys.executable, os.path.join(HERE, script), "--threads", str(threads), "--json", out]
    if args.quick:
        cmd.append("--quick")
    notes = []
    if name == "W3" and threads != 1 and not args.quick:
        cmd += ["--sizes", "10000,100000"]
        notes.append("10^6 chain run at 1 thread only (tiny ops use one core whatever the "
                     "thread setting)")
    t0 = time.perf_counter()
    cpu0 = _cpu_seconds()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        ok = proc.returncode == 0 and os.path.exists(out)
        err = proc.stderr
    except subprocess.TimeoutExpired:
        ok, err = False, f"timed out after {args.timeout} s"
    elapsed = time.perf_counter() - t0
    cpu1 = _cpu_seconds()
    # CPUs' worth of other processes during the run (0.5: half a CPU on average)
    others = None if cpu0 is None or cpu1 is None else round(
        max(0.0, (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1])) / elapsed, 3)
    if not ok:
        tail = "\n".join(err.strip().splitlines()[-15:])
        log(f"  {name} at {threads} thread(s) FAILED in {elapsed:.0f} s:\n{tail}")
        return {"workload": name, "threads": threads, "rows": [], "targets": [],
                "notes": [f"FAILED: {tail.splitlines()[-1] if tail else 'no output'}"],
                "error": tail, "elapsed_s": elapsed, "other_cpus": others}
    with open(out) as f:
        res = json.load(f)
    os.remove(out)
    res["notes"] = res.get("notes", []) + notes
    res["elapsed_s"] = elapsed
    res["other_cpus"] = others
    log(f"  {name} at {threads} thread(s): {elapsed:.0f} s")
    return res


# ---------------------------------------------------------------- reporting
def fmt(v, unit=""):
    if v is None:
        return "—"
    if unit in ("MiB",):
        return f"{v:.1f}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_target_value(t):
    v = t.get("value")
    if v is None:
        return "—"
    unit = t.get("unit", "×")
    if t["target"].endswith("completes"):
        return "yes" if v else "no"
    if t["target"].startswith("W2 float32"):
        return "yes" if v else "no"
    if unit == "×":  # a third decimal where two would hide which side of the limit it is
        return f"{v:.3f}×" if abs(v - t["limit"]) < 0.005 else f"{v:.2f}×"
    return f"{v:.1f} {unit}"


def status(t):
    if t.get("pass") is None:
        return "SKIP"
    return "PASS" if t["pass"] else "MISS"


def workload_table(name, by_threads):
    """One markdown table for a workload: a row per (case, threads), a column per engine and
    the subject engine's ratio to each peer."""
    subject = SUBJECT.get(name, "rtorchpy")
    engines, cases = [], []
    for res in by_threads.values():
        for r in res["rows"]:
            if r["engine"] not in engines:
                engines.append(r["engine"])
            if r["case"] not in cases:
                cases.append(r["case"])
    if not engines:
        return []
    if subject not in engines:
        subject = engines[0]
    engines.remove(subject)
    engines.insert(0, subject)
    peers = engines[1:]
    head = (["Case", "Threads", "Unit"] + [ENGINE_NAMES.get(e, e) for e in engines]
            + [f"{ENGINE_NAMES.get(subject, subject)} ÷ {ENGINE_NAMES.get(p, p)}" for p in peers])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in cases:
        for threads, res in by_threads.items():
            vals = {r["engine"]: r for r in res["rows"] if r["case"] == case}
            if not vals:
                continue
            unit = next(iter(vals.values()))["unit"]
            cells = [case, str(threads), unit]
            cells += [fmt(vals[e]["value"], unit) if e in vals else "—" for e in engines]
            for p in peers:
                if subject in vals and p in vals and vals[p]["value"]:
                    cells.append(f"{vals[subject]['value'] / vals[p]['value']:.2f}×")
                else:
                    cells.append("—")
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def render(report):
    m, g = report["machine"], report["git"]
    torch_v = report.get("torch_version") or "not installed"
    lines = [
        "# rtorchpy benchmarks — latest results",
        "",
        f"{report['date']} · rtorchpy commit `{g['commit']}`"
        + (" (+ uncommitted changes in rtorchpy/)" if g["rtorchpy_dirty"] else "")
        + f" · {'quick run' if report['quick'] else 'full run'} · {report['elapsed_s']:.0f} s",
        "",
        f"Machine: {m.get('cpu', '?')}, {m.get('nproc')} CPUs, {m.get('memory_gib', '?')} GiB; "
        f"Python {m['python']}, NumPy {m.get('numpy')} ({m.get('blas', '?')}), "
        f"PyTorch {torch_v}.",
        "Timings are medians of interleaved repeats after warm-up; ratios are rtorchpy's time "
        "(or memory) divided by the peer's, so < 1 means rtorchpy is faster.",
        "",
    ]
    busy = [f"{name} at {th} thread{'s' if th != '1' else ''} ({res['other_cpus']:.2f})"
            for th, by_name in report["results"].items() for name, res in by_name.items()
            if (res.get("other_cpus") or 0) > OTHERS_NOTED]
    if busy:
        lines += [f"**Note:** other processes kept on average more than {OTHERS_NOTED:.0%} of a "
                  f"CPU busy while these ran (CPUs' worth in brackets; the machine has "
                  f"{m.get('nproc')}): {', '.join(busy)}. Their numbers are noisier than the "
                  "rest.", ""]
    lines += [
        "## Targets (judged at 1 thread, paired with the peers in the same run)",
        "",
    ]
    two = {t["target"]: t for t in report["targets_by_threads"].get("2", [])}
    has_two = bool(two)
    head = ["Target", "1 thread", *(["2 threads"] if has_two else []), "Status",
            "Detail (1 thread)"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in report["targets_by_threads"].get(str(report["target_threads"]), []):
        cells = [t["target"], fmt_target_value(t)]
        if has_two:
            cells.append(fmt_target_value(two[t["target"]]) if t["target"] in two else "—")
        cells += [f"**{status(t)}**", t.get("detail", "")]
        lines.append("| " + " | ".join(cells) + " |")
    for name in report["workloads"]:
        by_threads = {t: report["results"][t][name] for t in report["results"]
                      if name in report["results"][t]}
        if not by_threads:
            continue
        first = next(iter(by_threads.values()))
        lines += ["", f"## {name} — {WORKLOADS[name][1]}", ""]
        if first.get("description"):
            lines += [first["description"][0].upper() + first["description"][1:] + ".", ""]
        lines += workload_table(name, by_threads)
        notes = []
        for _t, res in by_threads.items():
            for n in res.get("notes", []):
                if n and n not in notes:
                    notes.append(n)
        if notes:
            lines.append("")
            lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="fewer repeats, smaller sizes, no 10^6 chain")
    p.add_argument("--only", default=None, help="comma-separated workloads, e.g. W1,W3")
    p.add_argument("--threads", default="1,2", help="thread counts, e.g. 1 or 1,2 (default)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per workload process")
    p.add_argument("--out", default=os.path.join(HERE, "results"),
                   help="directory for latest.json and latest.md")
    p.add_argument("--render", metavar="JSON", default=None,
                   help="only re-render a saved latest.json as markdown (to stdout)")
    args = p.parse_args()
    if args.render:
        with open(args.render) as f:
            print(render(json.load(f)))
        return 0
    names = list(WORKLOADS)
    if args.only:
        names = [n.strip().upper() for n in args.only.split(",") if n.strip()]
        bad = [n for n in names if n not in WORKLOADS]
        if bad:
            p.error(f"unknown workload(s) {bad}; choose from {list(WORKLOADS)}")
    threads = [int(t) for t in args.threads.split(",")]
    os.makedirs(args.out, exist_ok=True)
    t_start = time.perf_counter()
    load_start = _loadavg()
    results = {}
    for th in threads:
        log(f"threads = {th}")
        results[str(th)] = {n: run_workload(n, th, args, args.out) for n in names}
    torch_version = None
    for by_name in results.values():
        for res in by_name.values():
            torch_version = torch_version or res.get("versions", {}).get("torch")
    report = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "quick": args.quick, "workloads": names, "threads": threads,
        "target_threads": 1 if 1 in threads else threads[0],
        "machine": machine_info(), "git": git_info(), "torch_version": torch_version,
        "results": results,
        "targets_by_threads": {t: [x for n in names for x in by_name[n].get("targets", [])]
                               for t, by_name in results.items()},
        "elapsed_s": time.perf_counter() - t_start,
        "loadavg_1min": {"start": load_start, "end": _loadavg()},
    }
    md = render(report)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(md)
    print(md)
    failed = [f"{n}@{t}" for t, by_name in results.items() for n, r in by_name.items()
              if r.get("error")]
    if failed:
        log(f"failed workloads: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
