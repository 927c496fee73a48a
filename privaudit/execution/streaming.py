"""Streaming draws: a pair's outputs in fixed blocks from ``SeedSequence``-spawned streams.

Outputs are drawn as **blocks** of a fixed size, block ``b`` from its own child of a root
``SeedSequence``, and held and counted in chunks of whole blocks: the counts are the same
for any chunk size at the same seed, and an :class:`Executor` maps over chunks
(:class:`SerialExecutor` here, lazily and in order).  Memory is one chunk of outputs plus
the counts.

References: O'Neill, HMC-CS-2014-0905 (PCG); NumPy NEP 19.  Details:
``docs/engine_notes.md``, "privaudit.execution.streaming".
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from privaudit.spec.errors import InvalidParameterError

__all__ = [
    "BLOCK_NUMBERS",
    "Block",
    "Executor",
    "SerialExecutor",
    "StreamProgress",
    "TimedExecutor",
    "block_rows",
    "block_seed",
    "plan_chunks",
    "root_seed",
    "stream_chunks",
    "throttled",
]

T = TypeVar("T")
R = TypeVar("R")

#: Numbers (rows × output width) per block: 2¹⁸ scalar outputs, fewer rows for wide
#: outputs.  The block size depends only on the output width, never on the chunk size.
BLOCK_NUMBERS = 1 << 18
#: Fewest rows per block, whatever the width.
_MIN_BLOCK_ROWS = 1 << 10
#: Default chunk: 2²⁰ numbers (4 blocks, 8 MB of float64) held at once: small enough to
#: stay in cache between drawing and counting (the 10⁷ benchmark: 173 ms against 210 ms
#: with 64 blocks), large enough that per-chunk costs are negligible.
_CHUNK_NUMBERS = 1 << 20

#: A progress callback: called with (outputs done, outputs in all) after each chunk.
StreamProgress = Callable[[int, int], None]


@runtime_checkable
class Executor(Protocol):
    """Maps a function over work items; results come back in the items' order.

    A serial executor returns a lazy iterator (so results are reduced as they come and
    memory stays bounded); a parallel one may run several items at once, but must yield
    the results in order.
    """

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterable[R]:
        """``fn`` applied to every item, in order."""


class SerialExecutor:
    """The default executor: one item after the other, in this process (``builtins.map``)."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        return map(fn, items)

    def __repr__(self) -> str:
        return "SerialExecutor()"


class TimedExecutor:
    """Wraps an executor and adds up the wall time during which any of its maps runs,
    from a call to its last result (``seconds``; maps consumed in turn overlap and are
    counted once): the time of the streamed part of an audit alone (drawing and counting
    the test split; with a distributed executor, shipping the work and gathering the
    counts too).  Used by the scaling benchmark and ``scripts/distributed_scaling.py``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.blocks_per_chunk = getattr(inner, "blocks_per_chunk", None)
        choose = getattr(inner, "blocks_for", None)
        if callable(choose):
            self.blocks_for = choose
        self.seconds = 0.0
        self._active = 0
        self._since = 0.0

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        if self._active == 0:
            self._since = time.perf_counter()
        self._active += 1
        try:
            yield from self.inner.map(fn, items)
        finally:
            self._active -= 1
            if self._active == 0:
                self.seconds += time.perf_counter() - self._since


@dataclass(frozen=True)
class Block:
    """Block ``index`` of stream ``stream``: ``size`` outputs starting at row ``start``."""

    stream: int
    index: int
    start: int
    size: int


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidParameterError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def block_rows(width: int = 1) -> int:
    """Rows per block for outputs of ``width`` numbers each (fixed for a given width)."""
    w = _positive_int(width, "width")
    return max(_MIN_BLOCK_ROWS, BLOCK_NUMBERS // w)


def root_seed(rng: np.random.Generator) -> np.random.SeedSequence:
    """A root ``SeedSequence`` drawn from ``rng`` (128 bits of entropy; advances ``rng``)."""
    words = rng.integers(0, 1 << 32, size=4, dtype=np.uint64)
    return np.random.SeedSequence([int(w) for w in words])


def block_seed(root: np.random.SeedSequence, stream: int, index: int) -> np.random.SeedSequence:
    """The child of ``root`` for block ``index`` of ``stream``.

    The same ``SeedSequence`` that ``root.spawn`` would give at spawn key
    ``root.spawn_key + (stream, index)``, built directly, so no spawn counter is involved
    and any block can be drawn alone, in any order, by any worker.
    """
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, int(stream), int(index)), pool_size=root.pool_size
    )


def plan_chunks(
    total: int, *, stream: int, rows_per_block: int, chunk_rows: int | None = None
) -> list[tuple[Block, ...]]:
    """Split ``total`` outputs into blocks and group them into chunks.

    Parameters
    ----------
    total : int
        Outputs to draw (≥ 0).
    stream : int
        Which stream of the root (e.g. 0 for x, 1 for y).
    rows_per_block : int
        The block size (:func:`block_rows`).
    chunk_rows : int, optional
        Rows held at once; rounded up to a whole number of blocks (default 2²⁰
        numbers' worth of blocks).

    Returns
    -------
    list of tuple of Block
        The chunks, in order; block i covers rows [i·B, min((i + 1)·B, total)).
    """
    if isinstance(total, bool) or not isinstance(total, numbers.Integral) or total < 0:
        raise InvalidParameterError(f"total must be an integer >= 0, got {total!r}")
    b = _positive_int(rows_per_block, "rows_per_block")
    if chunk_rows is None:
        per_chunk = max(1, _CHUNK_NUMBERS // BLOCK_NUMBERS)
    else:
        per_chunk = max(1, math.ceil(_positive_int(chunk_rows, "chunk_rows") / b))
    blocks = [
        Block(stream=int(stream), index=i, start=i * b, size=min(b, int(total) - i * b))
        for i in range(math.ceil(int(total) / b))
    ]
    return [tuple(blocks[i : i + per_chunk]) for i in range(0, len(blocks), per_chunk)]


def _draw_chunk(
    draw: Callable[[int, np.random.Generator], np.ndarray],
    root: np.random.SeedSequence,
    chunk: Sequence[Block],
) -> np.ndarray:
    parts = [
        draw(block.size, np.random.default_rng(block_seed(root, block.stream, block.index)))
        for block in chunk
    ]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)


def stream_chunks(
    draw: Callable[[int, np.random.Generator], np.ndarray],
    total: int,
    *,
    root: np.random.SeedSequence,
    stream: int,
    consume: Callable[[np.ndarray], R],
    rows_per_block: int,
    chunk_rows: int | None = None,
    executor: Executor | None = None,
    progress: StreamProgress | None = None,
) -> Iterator[R]:
    """Draw ``total`` outputs chunk by chunk and yield ``consume(chunk)`` for each chunk.

    Parameters
    ----------
    draw : callable
        ``draw(size, rng)`` → ``size`` outputs (one batched mechanism call).
    total : int
        Outputs in all.
    root, stream
        The root seed and the stream of this input (:func:`block_seed`).
    consume : callable
        Reduces one chunk of outputs to something small (counts).  Whatever it returns
        must be summable across chunks for the result not to depend on the chunk size.
    rows_per_block, chunk_rows
        The fixed block size and the chunk size (:func:`plan_chunks`).
    executor : Executor, optional
        Maps the work over chunks (default :class:`SerialExecutor`).  An executor with
        a ``blocks_for(n_blocks)`` method or a ``blocks_per_chunk`` attribute (a parallel
        one: its unit of work) sets the chunk size when ``chunk_rows`` is not given.
    progress : callable, optional
        Called as ``progress(done, total)`` after each chunk.

    Yields
    ------
    The results of ``consume``, one per chunk, in order.
    """
    run = executor if executor is not None else SerialExecutor()
    preferred = getattr(run, "blocks_per_chunk", None)
    choose = getattr(run, "blocks_for", None)
    if chunk_rows is None and callable(choose):
        # a parallel executor sizes its tasks from the split's size (its worker count)
        preferred = choose(math.ceil(int(total) / _positive_int(rows_per_block, "rows_per_block")))
    if chunk_rows is None and preferred is not None:
        # a parallel executor asks for small chunks (its unit of work); the outputs and
        # counts do not depend on the chunk size
        chunk_rows = _positive_int(preferred, "blocks_per_chunk") * _positive_int(
            rows_per_block, "rows_per_block"
        )
    chunks = plan_chunks(total, stream=stream, rows_per_block=rows_per_block, chunk_rows=chunk_rows)

    def work(chunk: tuple[Block, ...]) -> tuple[int, R]:
        out = _draw_chunk(draw, root, chunk)
        return sum(b.size for b in chunk), consume(out)

    done = 0
    for size, result in run.map(work, chunks):
        done += size
        if progress is not None:
            progress(done, int(total))
        yield result


def throttled(
    progress: Callable[[str], None], label: str, *, every_seconds: float = 2.0
) -> StreamProgress:
    """A :data:`StreamProgress` that turns (done, total) into a message at most every
    ``every_seconds`` (and at the end), for a message callback like the audit's."""
    state = {"last": time.perf_counter()}

    def report(done: int, total: int) -> None:
        now = time.perf_counter()
        if done >= total or now - state["last"] >= every_seconds:
            state["last"] = now
            share = 100.0 * done / total if total else 100.0
            progress(f"{label}: {done:,} of {total:,} outputs ({share:.0f} %)")

    return report
