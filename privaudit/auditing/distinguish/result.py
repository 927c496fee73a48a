"""The result of :func:`~privaudit.auditing.distinguish.pair.distinguish_pair`: what the test of one
pair found (:class:`PairTestResult`) and its best event as a point of the
hypothesis-testing trade-off (:class:`TradeoffPoint`, Wasserman & Zhou, JASA 2010).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from privaudit.auditing.distinguish.declared_plan import DeclaredPlan
from privaudit.auditing.distinguish.events import Event
from privaudit.auditing.outcome.results import EventBound, PowerStatement, ProfilePoint

__all__ = ["PairTestResult", "TradeoffPoint"]


@dataclass(frozen=True)
class TradeoffPoint:
    """The best event as a test "reject x when the output is not in S".

    ``alpha0`` = 1 − p̲_x bounds its type-I error and ``alpha1`` = p̄_y its type-II
    error (Wasserman & Zhou 2010): (ε, δ)-DP requires α0 + e^ε α1 ≥ 1 − δ.  The
    intervals are the two-sided CP intervals at the event's level (α_e/2 per end), whose
    conservative ends are ``alpha0`` and ``alpha1``.
    """

    alpha0: float
    alpha0_interval: tuple[float, float]
    alpha1: float
    alpha1_interval: tuple[float, float]
    level: float


@dataclass(frozen=True)
class PairTestResult:
    """Everything :func:`distinguish_pair` found on one pair (see the module docstring).

    Attributes
    ----------
    alpha_per_event : float
        The level α_i of the best event (each tested event carries its own in
        ``EventBound.alpha``; they sum to ``alpha_events``).
    events : tuple of EventBound
        The tested events (x_vs_y first), each with its CP bounds and ε_lb.  For
        ``y_vs_x`` events the roles are swapped: ``count_x``, ``samples_x`` and
        ``p_x_lower`` refer to M(y), the side bounded from below.
    regions : tuple of Event
        The event objects themselves, parallel to ``events`` (reusable on new outputs).
    best_event, best_region
        The event with the largest ε_lb (ties: largest violation margin) and its object.
    epsilon_lower_bound : float
        Its ε_lb at ``claimed_delta``; finite.  ``epsilon_lower_bound_infinite`` and
        ``infinite_evidence`` report a declared support mismatch (ε = ∞ under the declared
        law); ``zero_count_note`` explains a finite bound resting on a zero count.
    violated, violation_margin, violation_epsilon, violating
        Whether some event's bounds exceed the claimed profile δ(ε), by how much, where,
        and the (first such) event.
    tradeoff : TradeoffPoint
        The best event as a point (α0, α1) of the hypothesis-testing trade-off.
    profile, profile_violated
        The declared privacy-loss profile against the claim (empty without densities).
    power : PowerStatement
        The smallest true ε that the most sensitive tested event reveals with
        probability 0.9 (at its own level, holding its P[M(y) ∈ S] fixed).
    timings : mapping
        Seconds spent in each stage (sampling, densities, selection, event_tests, bounds,
        profile, power) and in total.
    """

    mechanism: str
    origin: str
    claimed_epsilon: float
    claimed_delta: float
    alpha: float
    alpha_events: float
    alpha_per_event: float
    alpha_profile: float
    samples: int
    search_samples: int
    densities_declared: bool
    families: tuple[str, ...]
    events: tuple[EventBound, ...]
    regions: tuple[Event, ...] = field(repr=False)
    best_event: EventBound | None
    best_region: Event | None = field(repr=False)
    epsilon_lower_bound: float
    epsilon_lower_bound_infinite: bool
    infinite_evidence: str
    zero_count_note: str
    violated: bool
    violation_margin: float
    violation_epsilon: float
    violating: EventBound | None
    tradeoff: TradeoffPoint | None
    profile: tuple[ProfilePoint, ...]
    profile_violated: bool
    power: PowerStatement | None
    timings: Mapping[str, float] = field(default_factory=dict, repr=False)
    alpha_declared: float = 0.0
    plan: DeclaredPlan | None = field(default=None, repr=False)
    test_sizes: tuple[int, int] = (0, 0)
    poissonized: bool = False

    @property
    def reported_epsilon(self) -> float:
        """ε_lb, or ``inf`` when the evidence is a declared support mismatch."""
        return math.inf if self.epsilon_lower_bound_infinite else self.epsilon_lower_bound

    def details(self) -> dict[str, Any]:
        """The key results as JSON-compatible values (for a report's ``details``)."""
        from privaudit.auditing.outcome.results import jsonable_details

        def dump(model: Any) -> Any:
            return None if model is None else model.model_dump(mode="json")

        return jsonable_details(
            epsilon_lower_bound=self.epsilon_lower_bound,
            epsilon_lower_bound_infinite=self.epsilon_lower_bound_infinite,
            infinite_evidence=self.infinite_evidence,
            zero_count_note=self.zero_count_note,
            claimed_epsilon=self.claimed_epsilon,
            claimed_delta=self.claimed_delta,
            violated=self.violated,
            violation_margin=self.violation_margin,
            violation_epsilon=self.violation_epsilon,
            alpha=self.alpha,
            alpha_events=self.alpha_events,
            alpha_per_event=self.alpha_per_event,
            alpha_profile=self.alpha_profile,
            alpha_declared=self.alpha_declared,
            declared_plan=None
            if self.plan is None
            else {
                "loss_law": self.plan.law.method,
                "events": [
                    {
                        "description": e.event.description,
                        "direction": e.direction,
                        "role": e.role,
                        "weight": e.weight,
                        "declared_p_lower_side": e.p_lower_side,
                        "declared_p_upper_side": e.p_upper_side,
                        "predicted_epsilon": e.predicted_epsilon,
                    }
                    for e in self.plan.events
                ],
            },
            samples=self.samples,
            test_sizes=list(self.test_sizes),
            poissonized=self.poissonized,
            search_samples=self.search_samples,
            densities_declared=self.densities_declared,
            families=list(self.families),
            best_event=dump(self.best_event),
            events=[dump(b) for b in self.events],
            profile_violated=self.profile_violated,
            profile=[dump(p) for p in self.profile],
            power=dump(self.power),
            tradeoff=None
            if self.tradeoff is None
            else {
                "alpha0": self.tradeoff.alpha0,
                "alpha0_interval": list(self.tradeoff.alpha0_interval),
                "alpha1": self.tradeoff.alpha1,
                "alpha1_interval": list(self.tradeoff.alpha1_interval),
                "level": self.tradeoff.level,
            },
        )

    def summary(self) -> str:
        """One sentence with the key numbers."""
        eps = (
            "inf (declared support mismatch)"
            if self.epsilon_lower_bound_infinite
            else f"{self.epsilon_lower_bound:.4g}"
        )
        what = self.best_event.description if self.best_event is not None else "no event"
        verdict = "VIOLATED" if self.violated else "not refuted"
        prof = "; declared-loss profile exceeds the claim" if self.profile_violated else ""
        return (
            f"{self.mechanism}: epsilon >= {eps} at delta = {self.claimed_delta:g} "
            f"(claim {self.claimed_epsilon:g}, {verdict}, confidence "
            f"{1 - self.alpha:g}) from '{what}'{prof}"
        )
