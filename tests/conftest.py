"""Shared pytest setup: Hypothesis profiles (no deadline: op timings vary on a busy 2-core box;
deterministic draws on CI so a red run can be reproduced), and two slow subprocess tests started
in the background when they are collected (tests/test_r_check.py, tests/test_numpy1.py)."""
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")


class _Background:
    """A slow test's work (a subprocess: R CMD check, the NumPy 1 suite) run in a thread while
    the other tests run; it waits on another process, so it takes the GIL from nobody."""

    def __init__(self, work):
        self.dir = Path(tempfile.mkdtemp(prefix="rtorchpy-bg-"))
        self._result = None
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    def _run(self, work):
        try:
            self._result = work(self.dir)
        except Exception as e:  # reported by the test, not lost in the thread
            self._result = e

    def result(self):
        self._thread.join()
        if isinstance(self._result, Exception):
            raise RuntimeError(f"the background run failed: {self._result!r}")
        return self._result

    def cleanup(self):
        self._thread.join()
        shutil.rmtree(self.dir, ignore_errors=True)


def _background_jobs():
    """test node id suffix -> (name, why it cannot run or None, the work)."""
    import test_numpy1
    import test_r_check
    return {
        "test_r_check.py::test_r_cmd_check_as_cran":
            ("r_check", test_r_check.check_available(), test_r_check.run_check),
        "test_numpy1.py::test_python_suite_passes_with_numpy_1":
            ("numpy1", test_numpy1.suite_available(), lambda d: test_numpy1.run_suite(d / "pt")),
    }


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only for tests that will run
def pytest_collection_modifyitems(session, config, items):
    jobs = {}
    if config.option.collectonly:
        config._rtorchpy_background = jobs
        return
    for suffix, (name, why, work) in _background_jobs().items():
        if why is None and any(item.nodeid.endswith(suffix) for item in items):
            jobs[name] = _Background(work)
    config._rtorchpy_background = jobs


def pytest_unconfigure(config):
    for job in getattr(config, "_rtorchpy_background", {}).values():
        job.cleanup()
