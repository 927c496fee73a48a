"""The distinguishing test of the chosen pairs, at weighted Bonferroni levels.

:func:`run_pair_tests` runs :func:`~privaudit.auditing.distinguish.distinguish_pair` on
every pair that :func:`~privaudit.auditing.choice.halving.choose_pairs` chose, each at its share
of the distinguishing test's α (``PairChoice.shares``: even, or 3/4 for the pairs the
halving kept and 1/4 for its near ties), on the audit's ``final`` stream.  The claim's
audit and the group audit of :mod:`~privaudit.auditing.auditor` both use it.  The
accounting is ``docs/derivations.md`` §9.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from pydantic import JsonValue

from privaudit.auditing.choice.halving import PairChoice
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.distinguish import (
    PLAN_PRIOR_OUTPUTS,
    PairDraws,
    PairTestConfig,
    PairTestResult,
    distinguish_pair,
    draw_pair_test,
)
from privaudit.auditing.distinguish.densities import declared_log_densities
from privaudit.auditing.pairs import CandidatePair
from privaudit.execution.forked import fork_available, forked_pair_tests, map_forked
from privaudit.execution.streaming import Executor, throttled
from privaudit.mechanisms import Mechanism

__all__ = ["PairTests", "run_pair_tests"]


class PairTests(NamedTuple):
    results: list[tuple[CandidatePair, PairTestResult]]
    best_pair: CandidatePair
    best: PairTestResult
    violated: bool
    #: α level of each tested pair, in the order tested (JSON for the check's details).
    per_pair: list[JsonValue]
    search_samples: int


def run_pair_tests(
    mechanism: Mechanism,
    choice: PairChoice,
    cfg: AuditConfig,
    alpha_dist: float,
    delta_claimed: float,
    final_rng: np.random.Generator,
    executor: Executor | None,
    say: Callable[[str], None],
    announce: Callable[[int], str],
    *,
    progress: Any = None,
) -> PairTests:
    """The distinguishing test of every chosen pair at α_dist · (its share)
    (:meth:`PairChoice.shares`: weighted Bonferroni, the shares summing to 1;
    ``docs/derivations.md`` §9), on the ``final`` stream: the results, the pair with the
    largest ε lower bound and its result, and whether any pair refuted the claim (and the
    level of each pair and the search split used).  ``announce(i)`` is the line said
    before pair ``i`` (from 1).

    On the ``"processes"`` executor (:class:`~privaudit.execution.forked.
    ForkedPairsExecutor`, ``pair_workers`` > 1), with two pairs or more and no declared
    output law, the pairs' tests run in forked processes, up to ``pair_workers`` plus its
    ``extra_pair_tests`` at once (:func:`~privaudit.execution.forked.forked_pair_tests`): each
    pair's draws from ``final_rng`` are made here, in turn
    (:func:`~privaudit.auditing.distinguish.draws.draw_pair_test`), so the results are
    those of the serial run to the bit (:mod:`privaudit.execution.forked`)."""
    chosen = choice.pairs
    declared = declared_log_densities(mechanism, chosen[0].x, chosen[0].y) is not None
    search_samples = cfg.search_samples_for(declared, approximate=delta_claimed > 0)
    levels = [alpha_dist * share for share in choice.shares()]

    config = PairTestConfig(
        events_per_direction=cfg.events_per_direction, prior_outputs=PLAN_PRIOR_OUTPUTS
    )

    def draw(pair: CandidatePair) -> PairDraws:
        return draw_pair_test(
            mechanism, pair, samples=cfg.samples, search_samples=search_samples, rng=final_rng
        )

    def test(
        i: int, pair: CandidatePair, level: float, draws: PairDraws, *, in_turn: bool
    ) -> PairTestResult:
        return distinguish_pair(
            mechanism,
            pair,
            draws,
            alpha=level,
            config=config,
            executor=executor,
            progress=throttled(say, f"pair {i}/{len(chosen)} test split")
            if progress is not None and in_turn
            else None,
        )

    workers = forked_pair_tests(executor)
    # declared laws make cheap tests (and results holding the law's closures): in turn
    if workers > 1 and len(chosen) > 1 and not declared and fork_available():
        # each pair's draws from the final stream in turn, here; the rest of each test in
        # a forked child: the same results as in turn, to the bit
        def tasks() -> Iterator[Callable[[], PairTestResult]]:
            for i, (pair, level) in enumerate(zip(chosen, levels, strict=True), start=1):
                say(announce(i))
                yield partial(test, i, pair, level, draw(pair), in_turn=False)

        tested = map_forked(tasks(), workers)
    else:
        tested = []
        for i, (pair, level) in enumerate(zip(chosen, levels, strict=True), start=1):
            say(announce(i))
            tested.append(test(i, pair, level, draw(pair), in_turn=True))
    results = list(zip(chosen, tested, strict=True))
    best_pair, best = max(results, key=lambda r: r[1].epsilon_lower_bound)
    violated = any(r.violated for _, r in results)
    per_pair: list[JsonValue] = list(levels)
    return PairTests(results, best_pair, best, violated, per_pair, search_samples)
