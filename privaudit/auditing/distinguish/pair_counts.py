"""The test split of :func:`~privaudit.auditing.distinguish.pair.distinguish_pair`: outputs drawn
and checked (``_draw``), then drawn in seeded blocks and counted chunk by chunk
(``_count_test_split``, ``_count_chunk``): every event's count, the declared support check
and the per-side loss histograms (:mod:`privaudit.execution.streaming` makes the counts independent
of the chunk size).  Private to the pair test.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from privaudit.auditing.pairs import CandidatePair
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.execution.streaming import (
    Executor,
    StreamProgress,
    block_rows,
    root_seed,
    stream_chunks,
)
from privaudit.spec.errors import AuditError, PrivauditError

from .events import event_mask, fill_feature_cache, llr_from
from .pair_stages import _Search, _Split, _Stopwatch, _Tests
from .privacy_loss import LossHistogram
from .rows import distinct_outputs as _distinct_outputs

__all__: list[str] = []


def _draw(mechanism: Any, data: Any, total: int, gen: np.random.Generator) -> np.ndarray:
    """``total`` checked outputs (:func:`~privaudit.auditing.sampler_outputs.draw_outputs`),
    a scalar output's ``(total, 1)`` as ``(total,)``."""
    out = draw_outputs(mechanism, data, total, gen)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    return out


@dataclass(frozen=True)
class _TestSplitDraws:
    """What the test split takes from the pair test's generator: the sizes of both sides
    (Poisson(N) each when poissonised, else N) and the root of its blocks' seeds."""

    sizes: dict[str, int]
    root: np.random.SeedSequence


def _test_split_draws(gen: np.random.Generator, n: int, poisson: bool) -> _TestSplitDraws:
    """The test split's sizes, then the root of its blocks' seeds, drawn from ``gen``.

    The test split is drawn in fixed blocks, each from its own ``SeedSequence`` child of
    this root, so that the counts do not depend on the chunk size
    (:mod:`privaudit.execution.streaming`)."""
    sizes = {"x": n, "y": n}
    if poisson:
        drawn_sizes = gen.poisson(float(n), size=2)
        sizes = {"x": int(drawn_sizes[0]), "y": int(drawn_sizes[1])}
    return _TestSplitDraws(sizes=sizes, root=root_seed(gen))


def _count_test_split(
    mechanism: Any,
    pair: CandidatePair,
    search: _Search,
    tests: _Tests,
    *,
    draws: _TestSplitDraws,
    chunk_rows: int | None,
    executor: Executor | None,
    progress: StreamProgress | None,
    clock: _Stopwatch,
) -> _Split:
    """Draw the test split in chunks and count every event on it (and fill the loss
    histograms of ``tests``)."""
    events, histograms = tests.events, tests.histograms
    sizes, root = draws.sizes, draws.root
    sx = search.sx
    width = int(np.prod(np.shape(sx)[1:])) if np.ndim(sx) > 1 else 1
    per_block = block_rows(width)
    counts = {
        "x": np.zeros(len(events), dtype=np.int64),
        "y": np.zeros(len(events), dtype=np.int64),
    }
    # infinite evidence: every in-event output of the lower-bounded side has declared
    # probability 0 under the other input
    support_gap = np.full(len(events), search.direct is None and search.densities is not None)
    check_gap = bool(support_gap.any())

    # the counting needs the declared law's scorers, not the search split itself: a
    # parallel executor ships this closure to every worker, and the search outputs were
    # most of its bytes (9.6 MB of 20 MB for a 30-number mechanism)
    scorers = replace(search, sx=search.sx[:0], sy=search.sy[:0], tune=None)

    def count_chunk(
        side: str, out: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, LossHistogram | None]:
        return _count_chunk(scorers, tests, support_gap, check_gap, side, out, clock)

    def tally_of(stream: int, side: str, data: Any) -> Iterator[Any]:
        def draw(m: int, g: np.random.Generator) -> np.ndarray:
            return _draw(mechanism, data, m, g)

        def consume(out: np.ndarray) -> tuple[np.ndarray, np.ndarray, LossHistogram | None]:
            return count_chunk(side, out)

        return stream_chunks(
            draw,
            sizes[side],
            root=root,
            stream=stream,
            consume=consume,
            rows_per_block=per_block,
            chunk_rows=chunk_rows,
            executor=executor,
            progress=progress,
        )

    tallies = {
        side: tally_of(stream, side, data)
        for stream, side, data in ((0, "x", pair.x), (1, "y", pair.y))
    }
    # the two inputs' chunks are taken in turn (each side's in order), so that a parallel
    # executor has both splits in flight and no worker idles while the last tasks of x
    # run; counts are sums, so the result is the same in any order
    while tallies:
        for side in list(tallies):
            item = next(tallies[side], None)
            if item is None:
                del tallies[side]
                continue
            chunk_counts, reached, hist = item
            counts[side] += chunk_counts
            support_gap &= ~reached
            if hist is not None:
                histograms[side].merge(hist)
    for i, (how, k_lattice) in tests.from_histogram.items():
        for side in "xy":
            hist = histograms[side]
            counts[side][i] = (
                hist.count_at_least(k_lattice) if how == "ge" else hist.count_below(k_lattice)
            )
    return _Split(sizes=sizes, counts=counts, support_gap=support_gap)


def _count_chunk(
    search: _Search,
    tests: _Tests,
    support_gap: np.ndarray,
    check_gap: bool,
    side: str,
    out: np.ndarray,
    clock: _Stopwatch,
) -> tuple[np.ndarray, np.ndarray, LossHistogram | None]:
    """Counts of the events, support hits and loss histogram of one chunk of ``side``."""
    densities, direct, llr = search.densities, search.direct, search.llr
    events, dirs = tests.events, tests.dirs
    clock.tick("sampling")
    # small-range integer outputs (values or rows): one bincount, then everything
    # on the distinct outputs
    out, weights = _distinct_outputs(out)
    loss = other_log = None
    if densities is not None:
        try:
            if direct is not None and llr is not None:  # llr is built on direct
                loss = llr(out)
            else:
                lpx, lpy = densities.log_p_x(out), densities.log_p_y(out)
                loss = llr_from(lpx, lpy)
                other_log = lpy if side == "x" else lpx
                del lpx, lpy
        except (PrivauditError, ValueError, TypeError, IndexError) as err:
            raise AuditError(f"the declared densities failed on test outputs: {err}") from err
    clock.tick("densities")
    cache: dict[int, np.ndarray] = {}
    if llr is not None and loss is not None:  # llr comes with the densities
        cache[id(llr)] = loss
    # outputs the other input's declared law can produce (for the support check)
    # True: every output is possible (no per-output mask needed)
    possible: np.ndarray | Literal[True] | None = None
    if other_log is not None and check_gap:
        possible = ~np.isneginf(other_log)
        if possible.all():
            possible = True
    chunk_counts = np.zeros(len(events), dtype=np.int64)
    reached = np.zeros(len(events), dtype=bool)
    fill_feature_cache(
        (e for i, e in enumerate(events) if i not in tests.from_histogram), out, cache
    )
    for i, event in enumerate(events):
        if i in tests.from_histogram:
            continue
        hit = event_mask(event, out, cache)
        c = int(np.count_nonzero(hit)) if weights is None else int(weights[hit].sum())
        chunk_counts[i] = c
        lo_side = "x" if dirs[i] == "x_vs_y" else "y"
        if possible is not None and side == lo_side and support_gap[i] and c:
            reached[i] = True if possible is True else bool(np.any(hit & possible))
    del cache
    clock.tick("event_tests")
    hist = None
    if densities is not None and tests.grid is not None and loss is not None:  # all or none
        hist = LossHistogram(tests.grid)
        hist.add(loss, weights)
        clock.tick("profile")
    return chunk_counts, reached, hist
