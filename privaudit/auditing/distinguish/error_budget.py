"""The split of a pair test's α between rare events, declared-law events, data-driven events
and the privacy-loss profile (:func:`split_budget`), fixed by the declared law and the
search split before the test split is drawn, so the pair's family-wise error stays at most
α.  The shares and why they are what they are: ``docs/derivations.md`` §11."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privaudit.auditing.distinguish.declared_plan import (
    DeclaredPlan,
    declared_loss_law,
    plan_declared_events,
)
from privaudit.auditing.distinguish.rare_events import RareCandidate, find_rare_events
from privaudit.auditing.distinguish.rare_events import disjoint as rare_disjoint
from privaudit.auditing.distinguish.search_split import SearchSplit
from privaudit.auditing.distinguish.stopwatch import Stopwatch
from privaudit.auditing.pairs import CandidatePair

__all__ = [
    "DECLARED_SHARE",
    "EVENT_SHARE",
    "POOLED_SHARE",
    "PROFILE_SHARE",
    "RARE_SHARE",
    "PairBudget",
    "split_budget",
]

#: Share of the pair's α spent on the privacy-loss profile when densities are declared.
PROFILE_SHARE = 0.1
#: Share of the pair's α spent on the events planned from the declared law (when it
#: yields any); the data-driven events get the rest, 1 − PROFILE_SHARE − DECLARED_SHARE.
DECLARED_SHARE = 0.8
#: Share of the pair's α spent on event tests (declared and data-driven) when densities
#: are declared (the rest goes to the privacy-loss profile).
EVENT_SHARE = 1.0 - PROFILE_SHARE
#: Share of the pair's α spent on rare events (:mod:`~privaudit.auditing.distinguish.
#: rare_events`) when the claim has δ > 0 and the search split shows some; every other
#: share then applies to the remaining 1 − RARE_SHARE.
RARE_SHARE = 0.8
#: Share of the rare events' α spent on the pooled test of the two directions' rare
#: events when they are disjoint (:mod:`privaudit.statistics.pooled`); the mirror keeps
#: the rest for its own test.
POOLED_SHARE = 0.9


@dataclass(frozen=True)
class PairBudget:
    """The pair's α split between rare events, declared-law events, data-driven events
    and the profile, with the rare events and the declared plan that decide it."""

    rare: tuple[RareCandidate, ...]
    pool_rare: bool
    rare_levels: tuple[float, ...]
    alpha_rare: float
    plan: DeclaredPlan | None
    alpha_profile: float
    alpha_declared: float
    alpha_search: float
    alpha_events: float
    equal_level: float


def split_budget(
    mechanism: Any,
    pair: CandidatePair,
    search: SearchSplit,
    *,
    alpha: float,
    samples: int,
    k: int,
    epsilon: float,
    delta: float,
    poisson: bool,
    ratio_ok: bool,
    rare_events: bool,
    declared: bool,
    clock: Stopwatch,
) -> PairBudget:
    """Find the rare events (δ > 0, search split only) and plan the declared-law events
    (no sample involved), and split ``alpha`` between them and the rest."""
    a, n = alpha, samples
    densities, llr = search.densities, search.llr
    rare = (
        find_rare_events(
            mechanism, pair, search.sx, search.sy, epsilon=epsilon, delta=delta, densities=densities
        )
        if rare_events and delta > 0
        else ()
    )
    # the best of each direction, pooled when disjoint (and the split Poissonised);
    # otherwise the best alone
    pool_rare = len(rare) == 2 and poisson and rare_disjoint(rare[0].event, rare[1].event)
    if not pool_rare:
        rare = rare[:1]
    rare_levels = (POOLED_SHARE, 1.0 - POOLED_SHARE) if pool_rare else (1.0,)
    alpha_rare = RARE_SHARE * a if rare else 0.0
    a_rest = a - alpha_rare
    clock.tick("selection")

    plan = None
    if densities is not None and declared and llr is not None:
        law = declared_loss_law(mechanism, pair.x, pair.y, llr)
        if law is not None:
            plan = plan_declared_events(
                law, llr, delta=delta, samples=n, alpha=DECLARED_SHARE * a_rest, rate_ratio=ratio_ok
            )
    alpha_profile = PROFILE_SHARE * a_rest if densities is not None else 0.0
    alpha_declared = DECLARED_SHARE * a_rest if plan is not None and plan.events else 0.0
    alpha_search = a_rest - alpha_profile - alpha_declared
    alpha_events = alpha_declared + alpha_search + alpha_rare
    equal_level = alpha_search / (2 * k)
    clock.tick("planning")
    return PairBudget(
        rare=tuple(rare),
        pool_rare=pool_rare,
        rare_levels=rare_levels,
        alpha_rare=alpha_rare,
        plan=plan,
        alpha_profile=alpha_profile,
        alpha_declared=alpha_declared,
        alpha_search=alpha_search,
        alpha_events=alpha_events,
        equal_level=equal_level,
    )
