"""The events a pair test tests, fixed before its test split is drawn: the data-driven
events chosen on the search split (:func:`select_data_driven`), every event with its
level and the pooled pairs (:func:`assemble_events`; planned LLR thresholds moved onto
the loss histogram's lattice), and each event's bound, Clopper–Pearson or rate ratio
(:func:`bound_methods`, :func:`~privaudit.statistics.allocation.prefers_rate_ratio`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privaudit.auditing.distinguish.error_budget import PairBudget
from privaudit.auditing.distinguish.event_candidates import (
    DIRECTIONS,
    SelectedEvents,
    select_events,
)
from privaudit.auditing.distinguish.events import (
    Event,
    ThresholdEvent,
    event_mask,
    fill_feature_cache,
)
from privaudit.auditing.distinguish.privacy_loss import LOSS_STEP, LossHistogram
from privaudit.auditing.distinguish.search_split import TUNE_ROWS, SearchSplit
from privaudit.auditing.distinguish.stopwatch import Stopwatch
from privaudit.spec.errors import AuditError, PrivauditError
from privaudit.statistics.allocation import prefers_rate_ratio

__all__: list[str] = []


@dataclass(frozen=True)
class TestedEvents:
    """Every event to test on the test split, fixed before it is drawn.

    ``events[i]`` is tested in direction ``dirs[i]`` at level ``levels[i]``;
    ``from_histogram`` maps the index of a planned LLR threshold counted from the loss
    histograms to ("ge", k) for {L ≥ k·h} or ("lt", k) for {L < k·h}; ``pooled`` holds
    (primary, mirror) index pairs tested pooled; ``grid`` and ``histograms`` are the
    profile's ε grid and per-side loss histograms (declared densities only).
    """

    __test__ = False  # not a pytest class

    events: list[Event]
    dirs: list[str]
    levels: list[float]
    from_histogram: dict[int, tuple[str, int]]
    pooled: list[tuple[int, int]]
    grid: np.ndarray | None
    histograms: dict[str, LossHistogram]


def select_data_driven(
    search: SearchSplit,
    budget: PairBudget,
    *,
    samples: int,
    search_samples: int,
    k: int,
    delta: float,
    planned: bool,
    ratio_ok: bool,
    prior_outputs: float,
    clock: Stopwatch,
) -> SelectedEvents:
    """The data-driven events and their levels, chosen on the search split
    (:func:`~privaudit.auditing.distinguish.event_candidates.select_events`)."""
    llr, sx, sy = search.llr, search.sx, search.sy
    llr_s: tuple[np.ndarray, np.ndarray] | None = None
    if search.densities is not None and llr is not None and not budget.alpha_declared > 0:
        # the data-driven LLR thresholds need the loss on the whole search split
        try:
            llr_s = search.tune if search_samples <= TUNE_ROWS else (llr(sx), llr(sy))
        except (PrivauditError, ValueError, TypeError, IndexError) as err:
            raise AuditError(f"the declared densities failed on search outputs: {err}") from err
        clock.tick("densities")
    # with a declared plan its LLR thresholds are already tested: the data-driven
    # search looks at the outputs themselves (a net for implementations that depart
    # from their declared law)
    has_plan = budget.alpha_declared > 0
    return select_events(
        sx,
        sy,
        delta=delta,
        alpha=budget.equal_level,
        events_per_direction=k,
        llr=llr,
        llr_search=llr_s,
        budget=budget.alpha_search if planned else None,
        test_samples=samples if planned else None,
        llr_thresholds=not has_plan,
        rate_ratio=ratio_ok,
        prior_outputs=prior_outputs,
    )


def _profile_grid(epsilon_grid: tuple[float, ...] | None, claimed_eps: float) -> np.ndarray:
    """The profile's ε grid: ``epsilon_grid`` (checked by the config), or 25 points from 0
    to max(2ε_c, 1) plus ε_c."""
    if epsilon_grid is None:
        top = max(2.0 * claimed_eps, 1.0)
        grid = np.append(np.linspace(0.0, top, 25), claimed_eps)
    else:
        grid = np.asarray(epsilon_grid, dtype=np.float64)
    return np.unique(grid)


def assemble_events(
    search: SearchSplit,
    budget: PairBudget,
    selected: SelectedEvents,
    *,
    epsilon_grid: tuple[float, ...] | None,
    epsilon: float,
    delta: float,
    poisson: bool,
) -> TestedEvents:
    """The declared plan's events, the data-driven ones and the rare ones, in this order,
    with their levels and the pooled pairs."""
    plan, direct = budget.plan, search.direct
    events: list[Event] = []
    dirs: list[str] = []
    levels: list[float] = []
    grid = _profile_grid(epsilon_grid, epsilon) if search.densities is not None else None
    histograms: dict[str, LossHistogram] = {}
    if grid is not None:
        histograms = {"x": LossHistogram(grid), "y": LossHistogram(grid)}
    # planned LLR thresholds of a full-support law, moved onto the histogram's lattice,
    # are counted from the loss histograms (no pass over the outputs): index → ("ge", k)
    # for {L ≥ k·h} or ("lt", k) for {L < k·h}
    from_histogram: dict[int, tuple[str, int]] = {}
    for planned_event in plan.events if plan is not None else ():
        region = planned_event.event
        if direct is not None and isinstance(region, ThresholdEvent):
            k = histograms["x"].lattice(region.threshold)
            if k is not None:
                if region.side == "ge":
                    region = ThresholdEvent(region.feature, k * LOSS_STEP, "ge")
                    from_histogram[len(events)] = ("ge", k)
                elif k < histograms["x"].high:  # {L ≤ t} becomes {L < (k + 1)·h} ⊇ it
                    region = ThresholdEvent(
                        region.feature, float(np.nextafter((k + 1) * LOSS_STEP, -np.inf)), "le"
                    )
                    from_histogram[len(events)] = ("lt", k + 1)
        events.append(region)
        dirs.append(planned_event.direction)
        levels.append(planned_event.weight * budget.alpha_declared)
    for direction in DIRECTIONS:
        chosen = selected.for_direction(direction)
        lv = selected.levels_for(direction) or (budget.equal_level,) * len(chosen)
        events.extend(chosen)
        dirs.extend([direction] * len(chosen))
        levels.extend(lv)
    first_rare = len(events)
    # strict=False: with no rare event the single level (1.0,) stays unused
    for candidate, share in zip(budget.rare, budget.rare_levels, strict=False):
        events.append(candidate.event)
        dirs.append(candidate.direction)
        levels.append(share * budget.alpha_rare)
    # pooled tests (δ > 0, Poissonised split): (primary, mirror) indices into events
    pooled: list[tuple[int, int]] = []
    if budget.pool_rare:
        pooled.append((first_rare, first_rare + 1))
    if poisson and delta > 0 and plan is not None:
        roles = {e.role: i for i, e in enumerate(plan.events)}
        i, j = roles.get("main"), roles.get("other direction")
        if i is not None and j is not None and _mirrored(events[i], events[j]):
            pooled.append((i, j))
    return TestedEvents(
        events=events,
        dirs=dirs,
        levels=levels,
        from_histogram=from_histogram,
        pooled=pooled,
        grid=grid,
        histograms=histograms,
    )


def bound_methods(
    search: SearchSplit, budget: PairBudget, tests: TestedEvents, *, samples: int, ratio_ok: bool
) -> np.ndarray:
    """Which events get the rate-ratio bound (a boolean per event), fixed before the test
    split: by the declared law's probabilities for planned events, the search split's for
    the data-driven ones."""
    events, plan, n = tests.events, budget.plan, samples
    use_ratio = np.zeros(len(events), dtype=bool)
    if ratio_ok and events:
        p_lo_est = np.zeros(len(events))
        p_hi_est = np.zeros(len(events))
        n_planned = len(plan.events) if plan is not None else 0
        search_cache: dict[str, dict[int, np.ndarray]] = {"x": {}, "y": {}}
        search_outputs = {"x": search.sx, "y": search.sy}
        data_driven = events[n_planned:]
        for side in "xy":
            fill_feature_cache(data_driven, search_outputs[side], search_cache[side])
        for i, event in enumerate(events):
            if plan is not None and i < n_planned:
                p_lo_est[i] = plan.events[i].p_lower_side
                p_hi_est[i] = plan.events[i].p_upper_side
                continue
            lo_side, hi_side = ("x", "y") if tests.dirs[i] == "x_vs_y" else ("y", "x")
            p_lo_est[i] = float(
                np.mean(event_mask(event, search_outputs[lo_side], search_cache[lo_side]))
            )
            p_hi_est[i] = float(
                np.mean(event_mask(event, search_outputs[hi_side], search_cache[hi_side]))
            )
        use_ratio = np.asarray(
            prefers_rate_ratio(
                p_lo_est, p_hi_est, n, n, alpha=np.asarray(tests.levels, dtype=np.float64)
            ),
            dtype=bool,
        ).reshape(len(events))
        del search_cache
    return use_ratio


def _mirrored(a: Event, b: Event) -> bool:
    """Whether two planned LLR thresholds are {L ≥ s} and {L ≤ t} with t < s (disjoint)."""
    if not (
        isinstance(a, ThresholdEvent)
        and isinstance(b, ThresholdEvent)
        and a.feature is b.feature
        and {a.side, b.side} == {"ge", "le"}
    ):
        return False
    ge, le = (a, b) if a.side == "ge" else (b, a)
    return le.threshold < ge.threshold
