"""``ThreadExecutor``: results in order, bounded work in flight, errors surfaced, and an
audit on threads that reports exactly what a serial audit reports at the same seed."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from privaudit import audit
from privaudit.execution.distributed import executor_scope
from privaudit.execution.streaming import Executor, SerialExecutor
from privaudit.execution.threads import ThreadExecutor
from privaudit.mechanisms.additive import LaplaceMechanism
from privaudit.spec.errors import InvalidParameterError

from ._cli_reports import cli_reports


def test_results_come_back_in_order_from_several_threads():
    names: set[str] = set()

    def work(v: int) -> int:
        names.add(threading.current_thread().name)
        time.sleep(0.001 * (v % 3))  # later items may finish first
        return v * v

    with ThreadExecutor(threads=3) as run:
        assert isinstance(run, Executor)
        assert list(run.map(work, range(40))) == [v * v for v in range(40)]
    assert len(names) > 1 and all(n.startswith("privaudit") for n in names)


def test_work_in_flight_is_bounded():
    started = []
    with ThreadExecutor(threads=2) as run:
        results = run.map(lambda v: started.append(v) or v, iter(range(100)))
        first = next(results)
        time.sleep(0.05)
        # one result taken: at most 2 · threads items were ever submitted beyond it
        assert first == 0 and len(started) <= 1 + 2 * 2
        assert list(results) == list(range(1, 100))


def test_an_error_reaches_the_caller_and_later_items_are_not_started():
    seen = []

    def work(v: int) -> int:
        if v == 3:
            raise ValueError("item 3")
        seen.append(v)
        return v

    with ThreadExecutor(threads=1) as run, pytest.raises(ValueError, match="item 3"):
        list(run.map(work, range(1000)))
    assert max(seen) < 3 + 2  # the window, not the whole range


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_thread_counts_are_named(bad):
    with pytest.raises(InvalidParameterError, match="threads must be a positive integer"):
        ThreadExecutor(threads=bad)
    with pytest.raises(InvalidParameterError, match="blocks_per_chunk"):
        ThreadExecutor(threads=1, blocks_per_chunk=bad)


def test_the_scope_starts_and_closes_threads_by_name():
    with executor_scope("threads", n_workers=2) as run:
        assert isinstance(run, ThreadExecutor) and run.threads == 2
        assert list(run.map(abs, [-1, -2])) == [1, 2]
    assert run._pool is None  # closed with the scope
    with executor_scope("threads") as run:
        assert run.threads >= 1
    with (
        pytest.raises(InvalidParameterError, match="number of workers"),
        executor_scope("serial", n_workers=2),
    ):
        pass
    with (
        pytest.raises(InvalidParameterError, match="scheduler"),
        executor_scope("threads", scheduler="tcp://127.0.0.1:8786"),
    ):
        pass


def _reports(mechanism, **options):
    serial = audit(mechanism, executor=SerialExecutor(), **options)
    with ThreadExecutor(threads=2) as run:
        threaded = audit(mechanism, executor=run, **options)
    return serial, threaded


def test_an_audit_on_threads_reports_what_the_serial_audit_reports():
    options = dict(samples=400_000, search_samples=50_000, pilot_samples=5_000, seed=11)
    serial, threaded = _reports(LaplaceMechanism(epsilon=0.5, sensitivity=1.0), **options)
    assert threaded.verdict == serial.verdict
    assert threaded.epsilon_lower_bound == serial.epsilon_lower_bound
    assert [c.status for c in threaded.checks] == [c.status for c in serial.checks]


def test_a_vector_audit_on_threads_counts_the_same_outputs():
    from privaudit.suites import dpsniper_cases

    case = next(c for c in dpsniper_cases() if c.name.endswith("SparseVectorTechnique3"))
    options = dict(
        samples=200_000, search_samples=50_000, pilot_samples=5_000, pair_budget=6, seed=3
    )
    serial, threaded = _reports(case.mechanism, **options)
    assert threaded.epsilon_lower_bound == serial.epsilon_lower_bound
    assert threaded.worst_event is not None and serial.worst_event is not None
    assert threaded.worst_event.description == serial.worst_event.description
    assert np.isfinite(serial.epsilon_lower_bound)


def test_cli_audit_on_threads_writes_the_serial_report(tmp_path):
    reports = cli_reports(tmp_path, serial=[], threads=["--executor", "threads", "--workers", "2"])
    assert reports["threads"] == reports["serial"]
