"""Shared pytest setup: Hypothesis profiles (no deadline: op timings vary on a busy 2-core box;
deterministic draws on CI so a red run can be reproduced), and the R package's `R CMD check`
started in the background when its test is collected (tests/test_r_check.py)."""
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


class _BackgroundCheck:
    """tests/test_r_check.py's build and check, run in a thread while the other tests run (it
    waits on R's processes, so it takes the GIL from nobody)."""

    def __init__(self):
        from test_r_check import run_check
        self.dir = Path(tempfile.mkdtemp(prefix="rtorchpy-rcheck-"))
        self._log = None
        self._thread = threading.Thread(target=self._run, args=(run_check,), daemon=True)
        self._thread.start()

    def _run(self, run_check):
        try:
            self._log = run_check(self.dir)
        except Exception as e:  # reported by the test, not lost in the thread
            self._log = f"the background check failed: {e!r}"

    def result(self):
        self._thread.join()
        return self._log

    def cleanup(self):
        self._thread.join()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only when the test will run
def pytest_collection_modifyitems(session, config, items):
    if not any(item.nodeid.endswith("test_r_check.py::test_r_cmd_check_as_cran") for item in items):
        return
    from test_r_check import check_available
    if check_available() is None:
        config._rtorchpy_r_check = _BackgroundCheck()


def pytest_unconfigure(config):
    check = getattr(config, "_rtorchpy_r_check", None)
    if check is not None:
        check.cleanup()
