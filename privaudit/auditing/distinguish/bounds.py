"""From a pair test's counts to its bounds: every event's exact bounds (Clopper–Pearson,
Clopper & Pearson 1934; the rate ratio; pooled pairs), the best event, zero counts and
declared support mismatches, the trade-off point, the declared privacy-loss profile and
the power statement."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privaudit.auditing.distinguish.counting import TestSplitCounts
from privaudit.auditing.distinguish.draws import POISSON_MINIMUM
from privaudit.auditing.distinguish.privacy_loss import loss_moments, profile_lower_bounds
from privaudit.auditing.distinguish.result import TradeoffPoint
from privaudit.auditing.distinguish.search_split import SearchSplit
from privaudit.auditing.distinguish.tested_events import TestedEvents
from privaudit.auditing.outcome.results import EventBound, PowerStatement, ProfilePoint
from privaudit.spec.errors import AuditError
from privaudit.statistics.clopper_pearson import cp_lower, cp_upper
from privaudit.statistics.epsilon_bounds import (
    default_margin_grid,
    epsilon_lower_bound,
    violation_margin,
)
from privaudit.statistics.pooled import pooled_bound
from privaudit.statistics.power import detectable_epsilon
from privaudit.statistics.rate_ratio import rate_ratio_lower_bound

__all__ = ["POWER_PROBABILITY", "rate_ratio_applies"]

#: Detection probability of the power statement.
POWER_PROBABILITY = 0.9


def rate_ratio_applies(guarantee: Any, samples: int, *, poissonize: bool = True) -> bool:
    """Whether a test of ``samples`` outputs per side may bound events by the rate ratio.

    It needs a Poissonised test split (``samples`` ≥ :data:`~privaudit.auditing.distinguish.
    draws.POISSON_MINIMUM`) and a pure claim: the rate-ratio bound bounds p_x/p_y, while an
    (ε, δ) claim bounds p_x − δ.
    """
    return (
        bool(poissonize)
        and samples >= POISSON_MINIMUM
        and getattr(guarantee, "kind", None) == "pure_dp"
    )


def _direction(direction: str) -> Literal["x_vs_y", "y_vs_x"]:
    """A test direction as the results record it; anything else is an internal error."""
    if direction == "x_vs_y":
        return "x_vs_y"
    if direction == "y_vs_x":
        return "y_vs_x"
    raise AuditError(f"unknown test direction {direction!r} (expected 'x_vs_y' or 'y_vs_x')")


def _cp_lower_each(k: np.ndarray, n: list[int], alpha: np.ndarray) -> np.ndarray:
    return np.asarray(
        [
            float(cp_lower(int(ki), int(ni), float(ai)))
            for ki, ni, ai in zip(k, n, alpha, strict=True)
        ]
    )


def _cp_upper_each(k: np.ndarray, n: list[int], alpha: np.ndarray) -> np.ndarray:
    return np.asarray(
        [
            float(cp_upper(int(ki), int(ni), float(ai)))
            for ki, ni, ai in zip(k, n, alpha, strict=True)
        ]
    )


def event_bounds(
    tests: TestedEvents,
    split: TestSplitCounts,
    use_ratio: np.ndarray,
    guarantee: Any,
    *,
    samples: int,
    epsilon: float,
    delta: float,
    poisson: bool,
) -> tuple[list[EventBound], np.ndarray, np.ndarray]:
    """Each event's exact bounds (Clopper–Pearson or rate ratio; pooled pairs pooled),
    ε_lb and violation margin over the claimed profile, and the ε of that margin."""
    n, events, dirs, levels = samples, tests.events, tests.dirs, tests.levels
    counts, sizes = split.counts, split.sizes
    eps_c, delta_c = epsilon, delta
    bounds: list[EventBound] = []
    margins = np.zeros(0)
    margin_eps = np.zeros(0)
    count_lo = [int(counts["x" if d == "x_vs_y" else "y"][i]) for i, d in enumerate(dirs)]
    count_hi = [int(counts["y" if d == "x_vs_y" else "x"][i]) for i, d in enumerate(dirs)]
    size_lo = [sizes["x" if d == "x_vs_y" else "y"] for d in dirs]
    size_hi = [sizes["y" if d == "x_vs_y" else "x"] for d in dirs]
    if not events:
        return bounds, margins, margin_eps
    c_lo = np.asarray(count_lo, dtype=np.int64)
    c_hi = np.asarray(count_hi, dtype=np.int64)
    lv = np.asarray(levels, dtype=np.float64)
    p_lo = np.atleast_1d(_cp_lower_each(c_lo, size_lo, lv / 2.0))
    p_hi = np.atleast_1d(_cp_upper_each(c_hi, size_hi, lv / 2.0))
    eps_lb = np.atleast_1d(
        np.asarray(
            [
                float(
                    epsilon_lower_bound(
                        int(c_lo[i]),
                        size_lo[i],
                        int(c_hi[i]),
                        size_hi[i],
                        alpha=float(lv[i]),
                        delta=delta_c,
                    )
                )
                for i in range(len(events))
            ]
        )
    )
    mgrid = default_margin_grid(p_lo, p_hi, eps_c)
    margins, margin_eps = violation_margin(p_lo, p_hi, guarantee, mgrid, return_epsilon=True)
    margins, margin_eps = np.atleast_1d(margins), np.atleast_1d(margin_eps)
    if use_ratio.any():
        # rate-ratio events (pure claims only): ε_lb = ln r̲, and the margin on the
        # probability scale (r̲ − e^{ε_c})·p̄_y, positive exactly when ln r̲ > ε_c
        ratio = np.asarray(
            [
                float(
                    rate_ratio_lower_bound(
                        int(c_lo[i]), int(c_hi[i]), float(n), float(n), alpha=float(lv[i])
                    )
                )
                for i in range(len(events))
            ]
        )
        with np.errstate(divide="ignore"):
            eps_ratio = np.where(ratio > 1.0, np.log(np.where(ratio > 1.0, ratio, 1.0)), 0.0)
            margin_ratio = (ratio - math.exp(eps_c)) * p_hi
        eps_lb = np.where(use_ratio, eps_ratio, eps_lb)
        margins = np.where(use_ratio, margin_ratio, margins)
        margin_eps = np.where(use_ratio, eps_c, margin_eps)
    for i, event in enumerate(events):
        bounds.append(
            EventBound(
                description=event.description,
                direction=_direction(dirs[i]),
                count_x=count_lo[i],
                count_y=count_hi[i],
                samples_x=size_lo[i],
                samples_y=size_hi[i],
                p_x_lower=float(p_lo[i]),
                p_y_upper=float(p_hi[i]),
                alpha=float(lv[i]),
                epsilon_lower_bound=float(eps_lb[i]),
                delta=delta_c,
                method="rate_ratio" if use_ratio[i] else "clopper_pearson",
                poisson_mean=float(n) if poisson else None,
            )
        )

    for i, j in tests.pooled:
        # the primary's level tests the pooled pair; the mirror keeps its own test
        pb = pooled_bound(
            count_lo[i],
            count_hi[i],
            count_lo[j],
            count_hi[j],
            poisson_mean=float(n),
            alpha=float(levels[i]),
            delta=delta_c,
        )
        m_i, e_i = violation_margin(
            np.asarray([pb.p_lower]),
            np.asarray([pb.p_upper]),
            guarantee,
            mgrid,
            return_epsilon=True,
        )
        margins[i], margin_eps[i] = float(np.ravel(m_i)[0]), float(np.ravel(e_i)[0])
        total = sizes["x"] + sizes["y"]
        other = "y" if dirs[i] == "x_vs_y" else "x"
        bounds[i] = EventBound(
            description=f"{events[i].description} + M({other}) in {events[j].description} (pooled)",
            direction=_direction(dirs[i]),
            count_x=pb.count_lower,
            count_y=pb.count_upper,
            samples_x=total,
            samples_y=total,
            p_x_lower=pb.p_lower,
            p_y_upper=pb.p_upper,
            alpha=float(levels[i]),
            epsilon_lower_bound=pb.epsilon_lower_bound,
            delta=delta_c,
            method="pooled_poisson",
            poisson_mean=float(n),
        )
    return bounds, margins, margin_eps


def best_event_index(
    bounds: list[EventBound], margins: np.ndarray, declared: bool, support_gap: np.ndarray
) -> int | None:
    """The event with the largest ε_lb (ties: largest margin); a declared support
    mismatch (ε = ∞ under the declared law) outranks any finite bound."""
    if not bounds:
        return None
    key = np.lexsort((margins, np.asarray([b.epsilon_lower_bound for b in bounds])))
    best_i = int(key[-1])
    gaps = [
        i
        for i, b in enumerate(bounds)
        if declared and support_gap[i] and b.count_y == 0 and b.count_x > 0
    ]
    if gaps:
        best_i = max(gaps, key=lambda i: (bounds[i].epsilon_lower_bound, margins[i]))
    return best_i


def zero_count_verdict(
    best: EventBound | None, support_gap: bool, level: float, eps_best: float
) -> tuple[bool, str, str]:
    """(infinite, infinite_evidence, zero_count_note) of the best event: a declared
    support mismatch when its count_y = 0 < count_x and ``support_gap`` (every in-event
    output has declared probability 0 under the other input), else a note on the finite
    bound a zero count allows."""
    if best is None or not (best.count_y == 0 and best.count_x > 0):
        return False, "", ""
    lo_side = "x" if best.direction == "x_vs_y" else "y"
    other = "y" if lo_side == "x" else "x"
    if support_gap:
        return (
            True,
            (
                f"S = '{best.description}' holds {best.count_x} of {best.samples_x} test "
                "outputs of "
                f"M({lo_side}) and none of M({other}); every one of them has declared "
                f"probability 0 under {other}, so S' = S ∩ {{o : p_{other}(o) = 0}} has "
                f"P[M({other}) ∈ S'] = 0 under the declared law and P[M({lo_side}) ∈ S'] >= "
                f"{best.p_x_lower:.4g} (Clopper-Pearson, level {level / 2:.3g}): "
                f"epsilon = inf if the implementation follows its declared law."
            ),
            "",
        )
    return (
        False,
        "",
        (
            f"no output of M({other}) fell in '{best.description}' ({best.samples_y} test "
            f"outputs); "
            f"the finite bound {eps_best:.4g} uses the CP upper bound "
            f"{best.p_y_upper:.3g} on P[M({other}) in S] and is limited by the sample "
            f"size, not by the mechanism."
        ),
    )


def tradeoff_point(best: EventBound | None, level: float) -> TradeoffPoint | None:
    """The best event as a point (α0, α1) of the hypothesis-testing trade-off."""
    if best is None:
        return None
    return TradeoffPoint(
        alpha0=1.0 - best.p_x_lower,
        alpha0_interval=(
            1.0 - float(cp_upper(best.count_x, best.samples_x, level / 2.0)),
            1.0 - best.p_x_lower,
        ),
        alpha1=best.p_y_upper,
        alpha1_interval=(
            float(cp_lower(best.count_y, best.samples_y, level / 2.0)),
            best.p_y_upper,
        ),
        level=level,
    )


def profile_bounds(
    guarantee: Any, search: SearchSplit, tests: TestedEvents, alpha_profile: float
) -> list[ProfilePoint]:
    """The declared privacy-loss profile's lower bounds against the claim (declared
    densities only; Bonferroni over 2 directions × the ε grid)."""
    profile: list[ProfilePoint] = []
    tune, grid, histograms = search.tune, tests.grid, tests.histograms
    if search.densities is None or tune is None or grid is None:
        return profile
    claimed = np.asarray([guarantee.delta_for_epsilon(float(e)) for e in grid])
    per_point = alpha_profile / (2 * grid.size)
    for direction, bet_rows, side in (("x_vs_y", tune[0], "x"), ("y_vs_x", -tune[1], "y")):
        lower, estimate = profile_lower_bounds(
            loss_moments(bet_rows, grid),
            histograms[side].moments(1 if side == "x" else -1),
            alpha=per_point,
        )
        for j, e in enumerate(grid):
            profile.append(
                ProfilePoint(
                    epsilon=float(e),
                    delta_claimed=float(claimed[j]),
                    delta_lower_bound=float(lower[j]),
                    delta_estimate=float(estimate[j]),
                    direction=_direction(direction),
                    alpha=per_point,
                )
            )
    return profile


def power_statement(
    bounds: list[EventBound],
    levels: list[float],
    best_i: int | None,
    *,
    samples: int,
    epsilon: float,
    delta: float,
) -> PowerStatement | None:
    """The power statement of the most sensitive tested event.

    The pair is reported as violating when ANY tested event's bound exceeds the claim,
    so P(detect) ≥ P(event S alone detects) for every S: the power is that of the most
    sensitive tested event (smallest detectable ε at its own level and P[M(y) ∈ S]).
    """
    if best_i is None:
        return None
    n, eps_c, delta_c = samples, epsilon, delta
    order = [best_i] + [
        i for i in range(len(bounds)) if i != best_i and 0.0 < float(levels[i]) < 1.0
    ]
    chosen = None
    for i in order:
        b = bounds[i]
        p_y_i = (b.count_y + 0.5) / (b.samples_y + 1.0)
        d_i = detectable_epsilon(
            p_y_i,
            n,
            n,
            alpha=float(levels[i]),
            delta=delta_c,
            claimed_epsilon=eps_c,
            probability=POWER_PROBABILITY,
            tolerance=1e-3,
        )
        if chosen is None or d_i < chosen[0]:
            chosen = (d_i, i, p_y_i)
    assert chosen is not None
    detectable, power_i, p_y = chosen
    head = (
        f"with {n} test outputs per side and P[M(second input) in S] ~ {p_y:.3g}, "
        f"an event like '{bounds[power_i].description}' "
    )
    if math.isinf(detectable):
        text = (
            head + f"cannot reveal any true epsilon above the claim {eps_c:g} "
            f"(delta {delta_c:g}) with probability >= {POWER_PROBABILITY:g}"
        )
    else:
        text = (
            head + f"reveals a true epsilon of {detectable:.4g} or more (claim "
            f"{eps_c:g}, delta {delta_c:g}) with probability >= {POWER_PROBABILITY:g}"
        )
    return PowerStatement(
        detectable_epsilon=detectable,
        probability=POWER_PROBABILITY,
        samples=n,
        statement=text,
        p_y=p_y,
        alpha=float(levels[power_i]),
    )
