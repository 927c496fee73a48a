"""The test split of a pair test counted chunk by chunk (:func:`count_test_split`): every
event's count, the declared support check and the per-side loss histograms.  Counts are
sums, so they do not depend on the chunk size or on the order of the chunks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from privaudit.auditing.distinguish.draws import PairDraws
from privaudit.auditing.distinguish.events import event_mask, fill_feature_cache, llr_from
from privaudit.auditing.distinguish.privacy_loss import LossHistogram
from privaudit.auditing.distinguish.rows import distinct_outputs as _distinct_outputs
from privaudit.auditing.distinguish.search_split import SearchSplit
from privaudit.auditing.distinguish.stopwatch import Stopwatch
from privaudit.auditing.distinguish.tested_events import TestedEvents
from privaudit.execution.streaming import Executor, StreamProgress
from privaudit.spec.errors import AuditError, PrivauditError

__all__: list[str] = []

#: One chunk's event counts, support hits and loss histogram.
_ChunkTally = tuple[np.ndarray, np.ndarray, LossHistogram | None]


@dataclass(frozen=True)
class TestSplitCounts:
    """The test split's sizes and per-event counts, and which events' outputs all have
    declared probability 0 under the other input (``support_gap``)."""

    __test__ = False  # not a pytest class

    sizes: dict[str, int]
    counts: dict[str, np.ndarray]
    support_gap: np.ndarray


def count_test_split(
    draws: PairDraws,
    search: SearchSplit,
    tests: TestedEvents,
    *,
    chunk_rows: int | None,
    executor: Executor | None,
    progress: StreamProgress | None,
    clock: Stopwatch,
) -> TestSplitCounts:
    """Count every event on the test split of ``draws``, chunk by chunk (and fill the loss
    histograms of ``tests``)."""
    events, histograms = tests.events, tests.histograms
    sizes = {"x": draws.test_sizes[0], "y": draws.test_sizes[1]}
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

    def consumer(side: str) -> Callable[[np.ndarray], _ChunkTally]:
        def consume(out: np.ndarray) -> _ChunkTally:
            return _count_chunk(scorers, tests, support_gap, check_gap, side, out, clock)

        return consume

    tallies = {
        side: draws.test_chunks(
            side, consumer(side), chunk_rows=chunk_rows, executor=executor, progress=progress
        )
        for side in ("x", "y")
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
    return TestSplitCounts(sizes=sizes, counts=counts, support_gap=support_gap)


def _count_chunk(
    search: SearchSplit,
    tests: TestedEvents,
    support_gap: np.ndarray,
    check_gap: bool,
    side: str,
    out: np.ndarray,
    clock: Stopwatch,
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
