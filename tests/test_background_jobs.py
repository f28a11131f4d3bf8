"""conftest.py's background jobs: the costliest start first, a job nobody started yet is run by
the test that asks for it, a failure reaches every consumer, and a waiter runs after its job."""
import threading

import pytest

from conftest import Job, _Scheduler


def test_workers_take_the_costliest_first_and_the_main_thread_takes_the_rest():
    gate = threading.Event()
    ran = []

    def work(name):
        def w(d):
            ran.append(name)
            assert d.is_dir()
            if name == "long":
                gate.wait(30)
            return name
        return w

    jobs = [Job(n, work(n), c, []) for n, c in [("short", 1), ("long", 9), ("mid", 5)]]
    sched = _Scheduler(jobs, 1)
    try:
        short = jobs[0]
        assert short.result() == "short"  # the one worker is busy with "long"
        assert short.by == "main thread"
        gate.set()
        assert jobs[1].result() == "long" and jobs[1].by == "worker"
        assert jobs[2].result() == "mid"
        assert sorted(ran) == ["long", "mid", "short"]
    finally:
        gate.set()
        sched.stop()
    assert all(not j.dir.exists() for j in jobs)  # scratch directories removed


def test_a_failure_or_a_skip_reaches_every_consumer():
    def fail(d):
        raise AssertionError("the subprocess said no")

    def skip(d):
        pytest.skip("no R here")

    failing, skipping = Job("f", fail, 1, []), Job("s", skip, 1, [])
    sched = _Scheduler([failing, skipping], 2)
    try:
        for _ in range(2):
            with pytest.raises(AssertionError, match="the subprocess said no"):
                failing.result()
            with pytest.raises(pytest.skip.Exception, match="no R here"):
                skipping.result()
    finally:
        sched.stop()


def test_a_waiter_runs_after_its_job_and_a_stopped_queue_starts_nothing():
    done = []
    job = Job("site", lambda d: done.append(1), 1, [])
    job.wait()  # nobody started it: the waiter runs it rather than race a worker
    assert done == [1] and job.state == "done"
    queued = Job("never", lambda d: done.append(2), 1, [])
    sched = _Scheduler([], 2)
    sched.jobs = [queued]
    sched.stop()
    assert queued.state == "cancelled" and done == [1]
    with pytest.raises(RuntimeError, match="cancelled"):
        queued.result()
