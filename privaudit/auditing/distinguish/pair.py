"""The (ε, δ) distinguishing test of one neighbouring pair, :func:`distinguish_pair`: its
stages in order, each in the module of its idea.

Events are chosen from the declared law and on a search split, then tested with exact
bounds on a disjoint test split, so the family-wise error is at most the pair's α.  The
stages, the error budget and how to read the bounds: ``docs/derivations.md`` §11.
Black-box evidence only bounds ε from below.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.auditing.distinguish.bounds import (
    best_event_index,
    event_bounds,
    power_statement,
    profile_bounds,
    rate_ratio_applies,
    tradeoff_point,
    zero_count_verdict,
)
from privaudit.auditing.distinguish.config import PairTestConfig
from privaudit.auditing.distinguish.counting import TestSplitCounts, count_test_split
from privaudit.auditing.distinguish.draws import PairDraws
from privaudit.auditing.distinguish.error_budget import PairBudget, split_budget
from privaudit.auditing.distinguish.result import PairTestResult
from privaudit.auditing.distinguish.search_split import SearchSplit, score_search_split
from privaudit.auditing.distinguish.tested_events import (
    TestedEvents,
    assemble_events,
    bound_methods,
    select_data_driven,
)
from privaudit.auditing.pairs import CandidatePair
from privaudit.execution.streaming import Executor, StreamProgress
from privaudit.spec import check_alpha
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.epsilon_bounds import claimed_point

__all__ = ["distinguish_pair"]


def distinguish_pair(
    mechanism: Any,
    pair: CandidatePair,
    draws: PairDraws,
    *,
    alpha: float,
    config: PairTestConfig | None = None,
    executor: Executor | None = None,
    progress: StreamProgress | None = None,
) -> PairTestResult:
    """Test the claimed privacy of ``mechanism`` on one neighbouring pair.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism under audit (its spec's guarantee is the claim).
    pair : CandidatePair
        The neighbours (x, y).
    draws : PairDraws
        The outputs of M(x) and M(y): :func:`~privaudit.auditing.distinguish.draws.
        draw_pair_test` (from the mechanism and a generator) or :func:`~privaudit.auditing.
        distinguish.draws.replay_pair_test` (outputs already drawn).  Given the draws, the
        test is deterministic.
    alpha : float
        This pair's share of the audit's error budget: the probability that anything
        reported here as a violation is false is at most ``alpha``.
    config : PairTestConfig, optional
        The test's options (default :class:`~privaudit.auditing.distinguish.config.
        PairTestConfig()`).
    executor : Executor, optional
        Maps the counting over chunks of the test split (default: serial).
    progress : callable, optional
        Called as ``progress(done, total)`` after each chunk of the test split.

    Returns
    -------
    PairTestResult

    Raises
    ------
    InvalidParameterError
        If ``alpha`` is out of (0, 1) or ``draws`` is not a source of draws.
    AuditError
        If the mechanism returns outputs of the wrong shape or type.

    Notes
    -----
    Cost: the draws, the declared LLR once per output, one feature evaluation per selected
    event and output, and one loss histogram per side; ``benchmarks/test_bench_pair_test.py``
    measures it.
    """
    if not isinstance(draws, PairDraws):
        raise InvalidParameterError(
            f"draws must come from draw_pair_test or replay_pair_test, got {draws!r}"
        )
    a = check_alpha(alpha)
    cfg = config if config is not None else PairTestConfig()
    guarantee = mechanism.spec.guarantee
    eps_c, delta_c = claimed_point(guarantee)
    n, poisson, clock = draws.samples, draws.poissonized, draws.clock
    ratio_ok = rate_ratio_applies(guarantee, n, poissonize=poisson)

    search = score_search_split(mechanism, pair, draws.search_x, draws.search_y, clock)
    budget = split_budget(
        mechanism,
        pair,
        search,
        alpha=a,
        samples=n,
        k=cfg.events_per_direction,
        epsilon=eps_c,
        delta=delta_c,
        poisson=poisson,
        ratio_ok=ratio_ok,
        rare_events=cfg.rare_events,
        declared=cfg.declared,
        clock=clock,
    )
    selected = select_data_driven(
        search,
        budget,
        samples=n,
        search_samples=draws.search_samples,
        k=cfg.events_per_direction,
        delta=delta_c,
        planned=cfg.allocation == "planned",
        ratio_ok=ratio_ok,
        prior_outputs=cfg.prior_outputs,
        clock=clock,
    )
    tests = assemble_events(
        search,
        budget,
        selected,
        epsilon_grid=cfg.epsilon_grid,
        epsilon=eps_c,
        delta=delta_c,
        poisson=poisson,
    )
    use_ratio = bound_methods(search, budget, tests, samples=n, ratio_ok=ratio_ok)
    clock.tick("selection")

    split = count_test_split(
        draws,
        search,
        tests,
        chunk_rows=cfg.chunk_rows,
        executor=executor,
        progress=progress,
        clock=clock,
    )
    return _verdict(
        mechanism,
        pair,
        draws,
        search=search,
        budget=budget,
        families=selected.families,
        tests=tests,
        split=split,
        use_ratio=use_ratio,
        alpha=a,
        claim=(eps_c, delta_c),
    )


def _verdict(
    mechanism: Any,
    pair: CandidatePair,
    draws: PairDraws,
    *,
    search: SearchSplit,
    budget: PairBudget,
    families: tuple[str, ...],
    tests: TestedEvents,
    split: TestSplitCounts,
    use_ratio: np.ndarray,
    alpha: float,
    claim: tuple[float, float],
) -> PairTestResult:
    """The bounds of every event, the best one, the profile and the power, as the result."""
    declared = search.densities is not None
    spec = mechanism.spec
    guarantee = spec.guarantee
    eps_c, delta_c = claim
    n, poisson, clock = draws.samples, draws.poissonized, draws.clock
    bounds, margins, margin_eps = event_bounds(
        tests, split, use_ratio, guarantee, samples=n, epsilon=eps_c, delta=delta_c, poisson=poisson
    )
    best_i = best_event_index(bounds, margins, declared, split.support_gap)
    best = bounds[best_i] if best_i is not None else None
    level = tests.levels[best_i] if best_i is not None else budget.equal_level
    eps_best = float(best.epsilon_lower_bound) if best is not None else 0.0
    worst_i = int(np.argmax(margins)) if margins.size else None
    violated = bool(margins.size and margins[worst_i] > 0.0)
    infinite, infinite_text, zero_text = zero_count_verdict(
        best, declared and best_i is not None and bool(split.support_gap[best_i]), level, eps_best
    )
    tradeoff = tradeoff_point(best, level)
    clock.tick("bounds")
    profile = profile_bounds(guarantee, search, tests, budget.alpha_profile)
    clock.tick("profile")
    power = power_statement(bounds, tests.levels, best_i, samples=n, epsilon=eps_c, delta=delta_c)
    clock.tick("power")
    return PairTestResult(
        mechanism=spec.name,
        origin=pair.origin,
        claimed_epsilon=eps_c,
        claimed_delta=delta_c,
        alpha=alpha,
        alpha_events=budget.alpha_events,
        alpha_per_event=level,
        alpha_profile=budget.alpha_profile,
        samples=n,
        search_samples=draws.search_samples,
        densities_declared=declared,
        families=families + tuple(f"rare {c.family}" for c in budget.rare),
        events=tuple(bounds),
        regions=tuple(tests.events),
        best_event=best,
        best_region=tests.events[best_i] if best_i is not None else None,
        epsilon_lower_bound=eps_best,
        epsilon_lower_bound_infinite=infinite,
        infinite_evidence=infinite_text,
        zero_count_note=zero_text,
        violated=violated,
        violation_margin=float(margins[worst_i]) if worst_i is not None else -math.inf,
        violation_epsilon=float(margin_eps[worst_i]) if worst_i is not None else math.nan,
        violating=bounds[worst_i] if violated and worst_i is not None else None,
        tradeoff=tradeoff,
        profile=tuple(profile),
        profile_violated=any(p.violated for p in profile),
        power=power,
        timings=clock.stages(),
        alpha_declared=budget.alpha_declared,
        plan=budget.plan,
        test_sizes=(split.sizes["x"], split.sizes["y"]),
        poissonized=poisson,
    )
