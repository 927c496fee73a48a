"""The executors by name, and the rule of the command-line options that choose one.

Kept free of NumPy and of the executors themselves: the pytest plugin checks its options
at every start-up (``pytest_configure``), before any audit runs.
"""

from __future__ import annotations

__all__ = ["EXECUTOR_NAMES", "WORKER_EXECUTORS", "executor_flags_problem"]

#: The executors that :func:`~privaudit.execution.distributed.executor_scope` (and
#: ``privaudit audit --executor``) accepts by name.
EXECUTOR_NAMES = ("serial", "threads", "processes", "dask")
#: The executors that take a number of workers: threads, forked processes for the pair
#: tests, or Dask's local worker processes.
WORKER_EXECUTORS = ("threads", "processes", "dask")


def executor_flags_problem(
    executor: str, scheduler: str | None, workers: int | None, *, prefix: str = ""
) -> str | None:
    """The usage error of the command-line executor options, or ``None``.

    The options are ``--{prefix}executor``, ``--{prefix}scheduler`` and
    ``--{prefix}workers`` (the CLI's, and the pytest plugin's with ``prefix="privaudit-"``):
    a scheduler address needs the Dask executor, a number of workers one of
    :data:`WORKER_EXECUTORS`, and the two exclude each other.
    """
    flag_executor, flag_scheduler, flag_workers = (
        f"--{prefix}{name}" for name in ("executor", "scheduler", "workers")
    )
    if executor != "dask" and scheduler is not None:
        return f"{flag_scheduler} needs {flag_executor} dask"
    if executor not in WORKER_EXECUTORS and workers is not None:
        names = ", ".join(WORKER_EXECUTORS[:-1]) + f" or {WORKER_EXECUTORS[-1]}"
        return f"{flag_workers} needs {flag_executor} {names}"
    if scheduler is not None and workers is not None:
        return (
            f"{flag_workers} sizes a local cluster; it cannot go with {flag_scheduler} {scheduler}"
        )
    return None
