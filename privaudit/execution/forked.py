"""Whole tasks run in forked worker processes, in turn, with their results in order.

A pair test is mostly Python and NumPy work that holds the GIL, so processes gain where
threads do not.  :func:`map_forked` runs each task of an iterator in a child forked when a
worker is free; the iterator itself (which draws each task's randomness) runs in the calling
process, in order, so the report is the serial one to the bit.  :func:`fork_available` is
true on Linux only.  A mechanism must not rely on state it changes while sampling.

Details (the measurements): ``docs/engine_notes.md``, "privaudit.execution.forked".
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait
from typing import Any, TypeVar

from privaudit.execution.streaming import SerialExecutor, _positive_int
from privaudit.spec.errors import ExecutorError, InvalidParameterError, PrivauditError

__all__ = [
    "EXTRA_PAIR_TESTS",
    "ForkedPairsExecutor",
    "fork_available",
    "forked_pair_tests",
    "forked_workers",
    "map_forked",
]

R = TypeVar("R")

#: Pair tests run at once beyond the workers (:class:`ForkedPairsExecutor`'s default).
#: The audit's process draws each pair test's randomness in turn, between the tests'
#: starts, and a test that waits for a free worker runs alone at the end, on one core.
#: One more child than workers keeps every core busy until the last test ends, at the
#: memory of one more pair test, with the same report to the bit (measured:
#: ``docs/engine_notes.md``, "privaudit.execution.forked").
EXTRA_PAIR_TESTS = 1


def fork_available() -> bool:
    """Whether tasks can run in forked children here (Linux, with the ``fork`` method)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def forked_workers(executor: object) -> int:
    """The forked processes an audit may use on ``executor``: the ``pair_workers`` of a
    :class:`ForkedPairsExecutor`, 1 for any other executor (or ``None``)."""
    return int(getattr(executor, "pair_workers", 1))


def forked_pair_tests(executor: object) -> int:
    """The pair tests an audit runs at once on ``executor``: ``pair_workers`` plus the
    ``extra_pair_tests`` of a :class:`ForkedPairsExecutor` with two workers or more,
    else :func:`forked_workers`."""
    workers = forked_workers(executor)
    return workers + int(getattr(executor, "extra_pair_tests", 0)) if workers > 1 else workers


class ForkedPairsExecutor(SerialExecutor):
    """The ``"processes"`` executor: an audit's pair tests, and the pilot tests of its
    local search's start pairs and successive halving, in up to ``pair_workers`` forked
    processes, each drawing and counting its test split serially (``map`` is the serial
    one).  The report is the serial audit's, to the bit.

    Parameters
    ----------
    workers : int, optional
        Processes at once (default: the cores this process may use).
    extra_pair_tests : int, optional
        Pair tests run at once beyond ``workers`` (with two workers or more; default
        :data:`EXTRA_PAIR_TESTS`): their randomness is drawn here one test after the
        other, and a last test that waited for a free worker would run alone, on one
        core.  Each costs the memory of one more pair test; 0 runs one per worker.

    Raises
    ------
    ExecutorError
        Where ``fork`` is not available (:func:`fork_available`).
    InvalidParameterError
        If ``workers`` is not a positive integer or ``extra_pair_tests`` a negative one.
    """

    def __init__(
        self, workers: int | None = None, *, extra_pair_tests: int = EXTRA_PAIR_TESTS
    ) -> None:
        if not fork_available():
            raise ExecutorError(
                f"the processes executor needs Linux's fork start method (this is {sys.platform})"
            )
        if workers is None:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        self.pair_workers = _positive_int(workers, "workers")
        whole = isinstance(extra_pair_tests, int) and not isinstance(extra_pair_tests, bool)
        if not whole or extra_pair_tests < 0:
            raise InvalidParameterError(
                f"extra_pair_tests must be an integer >= 0, got {extra_pair_tests!r}"
            )
        self.extra_pair_tests = extra_pair_tests

    def __repr__(self) -> str:
        return (
            f"ForkedPairsExecutor(workers={self.pair_workers}, "
            f"extra_pair_tests={self.extra_pair_tests})"
        )


def _run_child(task: Callable[[], Any], conn: Any) -> None:
    """The child: run ``task`` and send b"ok" + its pickled result, or a pickled
    ``("here", reason)`` when the result does not pickle (the parent then runs the task
    itself), or a pickled ``("error", exception)``."""
    try:
        try:
            result = task()
        except BaseException as err:  # noqa: BLE001 — every failure goes back to the parent
            try:
                conn.send_bytes(pickle.dumps(("error", err)))
            except Exception:  # an exception that does not pickle: its text does
                failure = ExecutorError(f"{type(err).__name__}: {err}")
                conn.send_bytes(pickle.dumps(("error", failure)))
            return
        try:
            payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # a closure in the result: the parent computes it again
            conn.send_bytes(pickle.dumps(("here", f"{type(err).__name__}: {err}")))
            return
        conn.send_bytes(b"ok" + payload)
    finally:
        conn.close()


def map_forked(tasks: Iterable[Callable[[], R]], workers: int) -> list[R]:
    """Run every task of ``tasks`` in a forked child, at most ``workers`` at once.

    Parameters
    ----------
    tasks : iterable of callables
        Zero-argument tasks, taken one at a time when a worker is free; the iteration
        itself runs in this process, in order.  A task must give the same result
        wherever it runs: one whose result does not pickle is run again here.
    workers : int
        Children running at once (≥ 1).

    Returns
    -------
    list
        The tasks' results, in the tasks' order.

    Raises
    ------
    ExecutorError
        If ``fork`` is not available, ``workers`` < 1, or a child dies without a result.
    PrivauditError or any exception
        A task's own exception, raised again here (the other children are stopped).
    """
    if not fork_available():
        raise ExecutorError("forked workers need Linux's fork start method")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ExecutorError(f"workers must be an integer ≥ 1, got {workers!r}")
    context = multiprocessing.get_context("fork")
    running: list[tuple[int, Any, Any, Callable[[], R]]] = []
    results: dict[int, R] = {}

    def collect() -> None:
        # the first child to finish, whichever it is: a long task started first does not
        # hold up the start of the next one while a shorter one has freed its worker
        ready = wait([conn for _, _, conn, _ in running])
        entry = next(e for e in running if e[2] in ready)
        running.remove(entry)
        index, process, conn, task = entry
        try:
            message = conn.recv_bytes()
        except EOFError:
            process.join()
            raise ExecutorError(
                f"forked task {index + 1} ended without a result (exit code {process.exitcode})"
            ) from None
        finally:
            conn.close()
        process.join()
        if message.startswith(b"ok"):
            results[index] = pickle.loads(message[2:])
            return
        status, payload = pickle.loads(message)
        if status == "here":  # the result does not pickle: the same task, computed here
            results[index] = task()
            return
        if isinstance(payload, BaseException):
            raise payload
        raise PrivauditError(str(payload))

    try:
        for index, task in enumerate(tasks):
            if len(running) >= workers:
                collect()
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_run_child, args=(task, send), daemon=True)
            process.start()
            send.close()
            running.append((index, process, receive, task))
        while running:
            collect()
    finally:
        for _, process, conn, _ in running:  # only after an error: stop the others
            process.terminate()
            process.join()
            conn.close()
    return [results[i] for i in range(len(results))]
