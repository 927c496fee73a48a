"""A thread-pool executor: the blocks of a test split drawn and counted on several cores.

NumPy releases the GIL inside its generators and most array kernels, so threads of one
process run the streamed chunks (:func:`~privaudit.execution.streaming.stream_chunks`) on
several cores without pickling.  :meth:`ThreadExecutor.map` returns results in order, so an
audit on threads reports what a serial one does at the same seed.  Only the streamed test
splits run on threads; a mechanism that keeps mutable state between ``sample`` calls must
not be audited on threads.

Reference: NumPy documentation, "Multithreaded generation".  Details:
``docs/engine_notes.md``, "privaudit.execution.threads".
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from privaudit.execution.streaming import _positive_int

__all__ = ["ThreadExecutor"]

T = TypeVar("T")
R = TypeVar("R")

#: Chunks in flight per thread: one running and one queued, so that no thread waits for
#: the caller to reduce a result before it gets its next chunk.
_IN_FLIGHT_PER_THREAD = 2
#: Blocks per chunk: one block (2¹⁸ numbers, 2 MB of float64) per task keeps every
#: thread's working set in its core's cache and balances the last tasks.
_BLOCKS_PER_CHUNK = 1


class ThreadExecutor:
    """Map over work items on a pool of threads; results come back in the items' order.

    Parameters
    ----------
    threads : int, optional
        Threads of the pool (default: the cores this process may use, at least 1).
    blocks_per_chunk : int, optional
        Blocks per unit of work of a streamed split (default 1).

    Raises
    ------
    InvalidParameterError
        If ``threads`` or ``blocks_per_chunk`` is not a positive integer.

    Notes
    -----
    At most ``2 · threads`` items are in flight, so memory stays bounded by that many
    chunks whatever the length of ``items``.  An exception raised by ``fn`` reaches the
    caller when its item's result is due; the items after it are not started.  Use the
    executor as a context manager, or call :meth:`close`, to stop its threads.

    Examples
    --------
    >>> with ThreadExecutor(threads=2) as run:
    ...     list(run.map(lambda v: v * v, range(5)))
    [0, 1, 4, 9, 16]
    """

    def __init__(self, threads: int | None = None, *, blocks_per_chunk: int = _BLOCKS_PER_CHUNK):
        if threads is None:
            threads = _available_cores()
        self.threads = _positive_int(threads, "threads")
        self.blocks_per_chunk = _positive_int(blocks_per_chunk, "blocks_per_chunk")
        self._pool: ThreadPoolExecutor | None = None

    def _workers(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="privaudit")
        return self._pool

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn`` applied to every item on the pool, the results in the items' order."""
        pool = self._workers()
        window: deque[Future[R]] = deque()
        try:
            for item in items:
                window.append(pool.submit(fn, item))
                if len(window) >= _IN_FLIGHT_PER_THREAD * self.threads:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            # the caller stopped early or an item failed: drop the work not yet started
            for future in window:
                future.cancel()

    def close(self) -> None:
        """Stop the threads (after the running items finish)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> ThreadExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ThreadExecutor(threads={self.threads})"


def _available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)
