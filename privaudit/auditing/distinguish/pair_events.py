"""The tested events of :func:`~privaudit.auditing.distinguish.pair.distinguish_pair`, fixed
before its test split: ``_assemble_events`` puts the declared plan's events, the
data-driven ones and the rare ones in one list with their levels and the pooled pairs
(planned LLR thresholds moved onto the loss histogram's lattice, ``_profile_grid`` the
profile's ε grid), and ``_bound_methods`` picks, per event, the Clopper–Pearson or the
rate-ratio bound from the declared law's or the search split's probabilities
(:func:`~privaudit.statistics.allocation.prefers_rate_ratio`).  Private to the pair test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.allocation import prefers_rate_ratio

from .event_candidates import DIRECTIONS, SelectedEvents
from .events import Event, ThresholdEvent, event_mask, fill_feature_cache
from .pair_stages import _Budget, _Search, _Tests
from .privacy_loss import LOSS_STEP, LossHistogram

__all__: list[str] = []


def _profile_grid(epsilon_grid: Any, claimed_eps: float) -> np.ndarray:
    if epsilon_grid is None:
        top = max(2.0 * claimed_eps, 1.0)
        grid = np.append(np.linspace(0.0, top, 25), claimed_eps)
    else:
        grid = np.asarray(epsilon_grid, dtype=np.float64).ravel()
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid >= 0)):
            raise InvalidParameterError(
                f"epsilon_grid must hold finite values >= 0, got {epsilon_grid!r}"
            )
    return np.unique(grid)


def _assemble_events(
    search: _Search,
    budget: _Budget,
    selected: SelectedEvents,
    *,
    epsilon_grid: Any,
    epsilon: float,
    delta: float,
    poisson: bool,
) -> _Tests:
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
    return _Tests(
        events=events,
        dirs=dirs,
        levels=levels,
        from_histogram=from_histogram,
        pooled=pooled,
        grid=grid,
        histograms=histograms,
    )


def _bound_methods(
    search: _Search, budget: _Budget, tests: _Tests, *, samples: int, ratio_ok: bool
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
