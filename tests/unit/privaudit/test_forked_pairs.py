"""The ``processes`` executor: pair tests in forked children, drawn in turn in the parent,
so that an audit reports exactly what a serial audit reports at the same seed."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

from privaudit import audit
from privaudit.auditing.distinguish import (
    PairTestConfig,
    distinguish_pair,
    draw_pair_test,
    replay_pair_test,
)
from privaudit.auditing.pairs import verified_pair
from privaudit.execution.distributed import executor_scope
from privaudit.execution.forked import (
    EXTRA_PAIR_TESTS,
    ForkedPairsExecutor,
    fork_available,
    forked_pair_tests,
    map_forked,
)
from privaudit.execution.options import executor_flags_problem
from privaudit.execution.streaming import SerialExecutor
from privaudit.mechanisms.additive import LaplaceMechanism
from privaudit.spec.errors import ExecutorError, InvalidParameterError
from privaudit.suites import dpsniper_cases

from ._cli_reports import cli_reports

pytestmark = pytest.mark.skipif(not fork_available(), reason="forked workers need Linux")


def _case(name: str):
    return next(c for c in dpsniper_cases() if c.name == f"dpsniper.{name}")


# --- map_forked ---------------------------------------------------------------------------


def test_tasks_run_in_children_and_come_back_in_order():
    parent = os.getpid()
    made = []

    def tasks():
        for i in range(7):
            made.append((i, os.getpid()))  # the iteration runs here, in order

            def task(i=i):
                time.sleep(0.02 * ((7 - i) % 3))  # later tasks may end first
                return i * i, os.getpid()

            yield task

    results = map_forked(tasks(), workers=3)
    assert [value for value, _ in results] == [i * i for i in range(7)]
    assert all(pid != parent for _, pid in results)
    assert made == [(i, parent) for i in range(7)]


def test_a_worker_freed_by_a_later_task_starts_the_next_one(tmp_path):
    """The worker of whichever child finishes first takes the next task: here the first
    task can only end once the third has started, which with two workers needs the
    second's worker (a first-in-first-out wait would leave it waiting out its timeout)."""
    marker = tmp_path / "third task started"

    def first() -> bool:
        for _ in range(2000):  # at most ~20 s, then it reports that it was not freed
            if marker.exists():
                return True
            time.sleep(0.01)
        return False

    def third() -> str:
        marker.write_text("started")
        return "third"

    assert map_forked(iter([first, lambda: "second", third]), workers=2) == [
        True,
        "second",
        "third",
    ]


def test_a_tasks_error_reaches_the_caller_with_its_type_and_message():
    def failing():
        raise InvalidParameterError("samples must be a positive integer, got -3")

    with pytest.raises(InvalidParameterError, match="got -3"):
        map_forked(iter([lambda: 1, failing, lambda: 3]), workers=2)


def test_a_child_that_dies_is_named_with_its_exit_code():
    with pytest.raises(ExecutorError, match="exit code 7"):
        map_forked(iter([lambda: os._exit(7)]), workers=1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_worker_counts_are_named(bad):
    with pytest.raises(ExecutorError, match="workers"):
        map_forked(iter([lambda: 1]), workers=bad)
    with pytest.raises(InvalidParameterError, match="workers"):
        ForkedPairsExecutor(bad)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1"])
def test_bad_extra_pair_test_counts_are_named(bad):
    with pytest.raises(InvalidParameterError, match="extra_pair_tests"):
        ForkedPairsExecutor(2, extra_pair_tests=bad)


def test_pair_tests_run_one_beyond_the_workers_by_default():
    # the audit's process draws the tests one after the other: one more child than
    # workers keeps the cores busy to the end; one worker stays one test at a time
    assert forked_pair_tests(ForkedPairsExecutor(2)) == 2 + EXTRA_PAIR_TESTS == 3
    assert forked_pair_tests(ForkedPairsExecutor(2, extra_pair_tests=0)) == 2
    assert forked_pair_tests(ForkedPairsExecutor(4, extra_pair_tests=3)) == 7
    assert forked_pair_tests(ForkedPairsExecutor(1, extra_pair_tests=3)) == 1
    assert forked_pair_tests(SerialExecutor()) == forked_pair_tests(None) == 1
    assert "extra_pair_tests=1" in repr(ForkedPairsExecutor(2))


def test_the_executor_maps_serially_and_is_chosen_by_name():
    run = ForkedPairsExecutor(3)
    assert isinstance(run, SerialExecutor) and run.pair_workers == 3
    assert list(run.map(lambda v: v + 1, range(4))) == [1, 2, 3, 4]
    assert ForkedPairsExecutor().pair_workers >= 1
    with executor_scope("processes", n_workers=2) as scoped:
        assert isinstance(scoped, ForkedPairsExecutor) and scoped.pair_workers == 2
    assert executor_flags_problem("processes", None, 2) is None
    assert "dask" in (executor_flags_problem("processes", "tcp://x:1", None) or "")


# --- the pair test's draws ------------------------------------------------------------------


@pytest.mark.parametrize(
    "mechanism, pair",
    [
        (LaplaceMechanism(epsilon=0.5, sensitivity=1.0), (0.0, 1.0)),
        (_case("NumericalSVT").mechanism, _case("NumericalSVT").input_pairs[14]),
    ],
    ids=["laplace", "numerical_svt"],
)
def test_drawn_beforehand_a_pair_test_is_the_one_its_generator_gives(mechanism, pair):
    """All the randomness is in the draws: the test run on them here or later (in a forked
    child) gives the same result, and the generator is left where the draws end."""
    pair = verified_pair(mechanism.spec, np.asarray(pair[0]), np.asarray(pair[1]), "given")
    sizes = dict(samples=60_000, search_samples=20_000)
    first_rng, second_rng = np.random.default_rng(8), np.random.default_rng(8)
    first = draw_pair_test(mechanism, pair, rng=first_rng, **sizes)
    second = draw_pair_test(mechanism, pair, rng=second_rng, **sizes)
    assert first_rng.integers(1 << 62) == second_rng.integers(1 << 62)
    direct = distinguish_pair(mechanism, pair, first, alpha=0.05)
    later = map_forked(iter([lambda: distinguish_pair(mechanism, pair, second, alpha=0.05)]), 1)
    (later,) = list(later)
    assert later.epsilon_lower_bound == direct.epsilon_lower_bound
    assert later.test_sizes == direct.test_sizes
    assert [b.count_x for b in later.events] == [b.count_x for b in direct.events]
    assert [b.count_y for b in later.events] == [b.count_y for b in direct.events]


def test_a_pair_test_takes_its_outputs_from_a_source_of_draws_only():
    mechanism = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)
    pair = verified_pair(mechanism.spec, np.asarray(0.0), np.asarray(1.0), "given")
    with pytest.raises(InvalidParameterError, match="draw_pair_test or replay_pair_test"):
        distinguish_pair(mechanism, pair, np.random.default_rng(1), alpha=0.05)
    with pytest.raises(InvalidParameterError, match="samples must be an integer"):
        draw_pair_test(mechanism, pair, samples=0, search_samples=10, rng=1)
    outputs = np.zeros(100)
    with pytest.raises(InvalidParameterError, match="equal sides longer"):
        replay_pair_test(outputs, outputs[:50], search_samples=10)
    with pytest.raises(InvalidParameterError, match="equal sides longer"):
        replay_pair_test(outputs, outputs, search_samples=100)


def test_replayed_outputs_are_counted_the_same_in_any_chunk_size():
    """The replayed test split is the rows after the search split, whatever the chunks."""
    mechanism = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)
    pair = verified_pair(mechanism.spec, np.asarray(0.0), np.asarray(1.0), "given")
    rng = np.random.default_rng(3)
    sx = mechanism.sample(pair.x, 40_000, rng)
    sy = mechanism.sample(pair.y, 40_000, rng)
    results = [
        distinguish_pair(
            mechanism,
            pair,
            replay_pair_test(sx, sy, search_samples=10_000),
            alpha=0.05,
            config=PairTestConfig(chunk_rows=rows),
        )
        for rows in (1, 7_000, None)
    ]
    assert all(r.test_sizes == (30_000, 30_000) and not r.poissonized for r in results)
    for other in results[1:]:
        assert [(b.count_x, b.count_y) for b in other.events] == [
            (b.count_x, b.count_y) for b in results[0].events
        ]
        assert other.epsilon_lower_bound == results[0].epsilon_lower_bound


# --- whole audits ---------------------------------------------------------------------------


def _report(mechanism, executor, **options) -> dict:
    report = json.loads(audit(mechanism, executor=executor, **options).to_json())
    report.pop("runtime_seconds")
    return report


def test_a_vector_audit_on_processes_reports_what_the_serial_audit_reports():
    # SVT34Parallel tests two pairs or more: they run in two children
    options = dict(
        samples=120_000, search_samples=30_000, pilot_samples=4_000, pair_budget=6, seed=3
    )
    mechanism = _case("SVT34Parallel").mechanism
    forked = audit(mechanism, executor=ForkedPairsExecutor(2), **options)
    assert forked.check("distinguishability").details["pairs_tested"] >= 2
    serial = _report(mechanism, None, **options)
    assert _report(mechanism, ForkedPairsExecutor(2), **options) == serial
    # every test in its own child at once, or one per worker: the same report
    for extra in (0, 3):
        executor = ForkedPairsExecutor(2, extra_pair_tests=extra)
        assert _report(mechanism, executor, **options) == serial
    assert forked.epsilon_lower_bound == serial["epsilon_lower_bound"]


def test_a_declared_law_audit_on_processes_reports_what_the_serial_audit_reports():
    # a declared law's pair tests are cheap and their results hold the law's closures:
    # they stay in this process
    mechanism = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)
    options = dict(samples=80_000, search_samples=20_000, pilot_samples=2_000, seed=2)
    assert _report(mechanism, "processes", **options) == _report(mechanism, None, **options)


def test_a_result_that_does_not_pickle_is_computed_again_here():
    parent = os.getpid()

    def tasks():
        for i in range(3):
            yield lambda i=i: (lambda: i, os.getpid())  # a closure: it does not pickle

    results = map_forked(tasks(), workers=2)
    assert [f() for f, _ in results] == [0, 1, 2]
    assert all(pid == parent for _, pid in results)


def test_cli_audit_on_processes_writes_the_serial_report(tmp_path):
    reports = cli_reports(
        tmp_path, serial=[], processes=["--executor", "processes", "--workers", "2"]
    )
    assert reports["processes"] == reports["serial"]
