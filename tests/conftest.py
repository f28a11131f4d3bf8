"""Shared pytest setup: Hypothesis profiles (no deadline: op timings vary on a busy 2-core box;
deterministic draws on CI so a red run can be reproduced), and the background jobs: the slow
subprocess work some tests need (R CMD check, the NumPy 1 suite, the testthat run, the site
build, ...) starts when those tests are collected and runs beside the rest of the suite.

A test module offers its slow work by defining ``background_jobs(items)``: given its selected
items, it returns ``Job``s (a name, the work as a function of a scratch directory, a cost in
seconds used for ordering, and the items that consume the result). A test then calls
``background(request, name)``: the job, or None when it was not scheduled (then the test does
the work itself, as it would without this file).
"""
import atexit
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")

# The R package unpacks its Python code into R's user cache directory on first use
# (r-shim/R/python-cache.R). R processes the tests start use a cache of this run's own instead:
# a test run writes nothing into the user's cache and does not depend on what it holds.
os.environ["R_USER_CACHE_DIR"] = tempfile.mkdtemp(prefix="rtorchpy-test-cache-")
atexit.register(shutil.rmtree, os.environ["R_USER_CACHE_DIR"], ignore_errors=True)

# Background jobs running at once. The machine (and CI) has 2 cores; the main thread's Python
# tests are a third stream, so two jobs keep both cores busy while the main thread waits on a
# subprocess of its own, without more processes than cores most of the time.
WORKERS = int(os.environ.get("RTORCHPY_TEST_JOBS", "2"))


class Job:
    """Slow work (it waits on a subprocess, so it takes the GIL from nobody) whose result one or
    more tests consume. Run by a worker thread, or by the main thread itself when a test asks
    for it before any worker has started it (the main thread would otherwise sit idle)."""

    def __init__(self, name, work, cost, items, waiters=()):
        self.name, self.work, self.cost = name, work, cost
        self.items = list(items)  # the tests that consume the result (moved to the end)
        # the modules (names) whose tests must not run beside it (also moved to the end)
        self.waiter_modules = set(waiters)
        self.waiters = []
        self.state = "queued"         # -> running -> done, or cancelled
        self.started = self.ended = None
        self.by = None                # "worker" or "main thread"
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._result = self._error = None
        self.dir = None

    def claim(self, by):
        with self._lock:
            if self.state != "queued":
                return False
            self.state, self.by = "running", by
            return True

    def cancel(self):
        with self._lock:
            if self.state == "queued":
                self.state = "cancelled"
                self._done.set()

    def run(self):
        self.dir = Path(tempfile.mkdtemp(prefix=f"rtorchpy-bg-{self.name}-"))
        self.started = time.monotonic()
        try:
            self._result = self.work(self.dir)
        except BaseException as e:  # (pytest.skip's too) raised again by the consuming test
            self._error = e
        finally:
            self.ended = time.monotonic()
            with self._lock:
                self.state = "done"
            self._done.set()

    def result(self):
        if self.claim("main thread"):
            self.run()
        self._done.wait()
        if self.state == "cancelled":
            raise RuntimeError(f"background job {self.name} was cancelled")
        if self._error is not None:
            raise self._error  # its traceback shows where the work failed
        return self._result

    def wait(self):
        """Let the job end, whatever its outcome, before a test that must not run beside it
        (one not started yet is run here: a worker could otherwise start it meanwhile)."""
        if self.claim("main thread"):
            self.run()
        self._done.wait()

    def cleanup(self):
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


class _Scheduler:
    """Worker threads taking queued jobs, the costliest first (the short ones at the end fill
    the gaps; the main thread takes the last ones itself when it gets there first)."""

    def __init__(self, jobs, workers):
        self.jobs = sorted(jobs, key=lambda j: -j.cost)
        self.t0 = time.monotonic()
        self._threads = [threading.Thread(target=self._work, daemon=True, name=f"bg-{i}")
                         for i in range(min(workers, len(jobs)))]
        for t in self._threads:
            t.start()

    def _work(self):
        for job in self.jobs:
            if job.claim("worker"):
                job.run()

    def stop(self):
        for job in self.jobs:
            job.cancel()
        for t in self._threads:
            t.join()
        for job in self.jobs:
            job.cleanup()


def background(request, name):
    """The job `name` scheduled for this session, or None (not selected, or not scheduled)."""
    return getattr(request.config, "_rtorchpy_jobs", {}).get(name)


def _collect_jobs(items):
    by_module = {}
    for item in items:
        by_module.setdefault(getattr(item, "module", None), []).append(item)
    jobs = []
    for module, its in by_module.items():
        make = getattr(module, "background_jobs", None)
        if make is not None:
            jobs += make(its)
    return jobs


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only for tests that will run
def pytest_collection_modifyitems(session, config, items):
    config._rtorchpy_jobs = {}
    if config.option.collectonly or WORKERS < 0:
        return
    jobs = [j for j in _collect_jobs(items) if j.items]
    if not jobs:
        return
    for job in jobs:
        job.waiters = [i for i in items
                       if getattr(getattr(i, "module", None), "__name__", "") in job.waiter_modules]
    # The consumers run last, so the main thread's own tests overlap the jobs; the cheapest
    # job's consumers first, so that the main thread takes the jobs still queued (the cheap
    # ones: workers take the costly first) instead of waiting for a worker to reach them.
    order = {}
    for rank, job in enumerate(sorted(jobs, key=lambda j: j.cost)):
        for item in job.items + job.waiters:
            order.setdefault(item.nodeid, (rank, job.name))
    if os.environ.get("RTORCHPY_TEST_JOBS_ORDER", "1") != "0":
        keep = [i for i in items if i.nodeid not in order]
        moved = [i for i in items if i.nodeid in order]
        moved.sort(key=lambda i: order[i.nodeid][0])  # stable: file order within a job
        items[:] = keep + moved
    config._rtorchpy_jobs = {j.name: j for j in jobs}
    config._rtorchpy_scheduler = _Scheduler(jobs, WORKERS)
    for job in jobs:
        for item in job.waiters:
            item._rtorchpy_wait = getattr(item, "_rtorchpy_wait", []) + [job]


def pytest_runtest_setup(item):
    for job in getattr(item, "_rtorchpy_wait", ()):
        job.wait()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    sched = getattr(config, "_rtorchpy_scheduler", None)
    if sched is None:
        return
    rows = []
    for job in sched.jobs:
        if job.started is None or job.ended is None:  # (a run stopped early: -x)
            rows.append(f"{job.name}: {job.state}")
            continue
        rows.append(f"{job.name}: {job.ended - job.started:.0f} s "
                    f"(from {job.started - sched.t0:.0f} s to {job.ended - sched.t0:.0f} s, "
                    f"{job.by})")
    terminalreporter.write_line("background jobs: " + "; ".join(rows))


def pytest_unconfigure(config):
    # (queued jobs are dropped; running ones end first: on Ctrl-C their subprocesses got the
    # SIGINT too)
    sched = getattr(config, "_rtorchpy_scheduler", None)
    if sched is not None:
        sched.stop()
