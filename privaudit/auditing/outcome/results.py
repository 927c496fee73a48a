"""Result objects of the auditor's parts: check outcomes, counterexamples, event bounds.

All are frozen pydantic models that round-trip through JSON, so a whole
:class:`~privaudit.auditing.outcome.report.AuditReport` can be written, read back and compared.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, JsonValue

from privaudit.spec import ExtendedEpsilon, SpecModel

__all__ = [
    "counterexample_of",
    "pair_counterexample",
    "CheckOutcome",
    "CheckStatus",
    "Counterexample",
    "EventBound",
    "PowerStatement",
    "ProfilePoint",
]

CheckStatus = Literal["passed", "violated", "skipped"]
"""``passed``: no violation found; ``violated``: the claim fails on the counterexample;
``skipped``: the check does not apply (with the reason in ``summary``)."""


class Counterexample(SpecModel):
    """A concrete pair of neighbouring inputs on which a claim fails (or is closest to).

    Attributes
    ----------
    x, y : JSON value
        The two inputs (arrays as lists, graphs as edge lists).
    origin : str
        How the pair was found.
    relation_reason : str
        The relation's own description of how x and y differ.
    values : dict
        The quantities the claim is about (``f(x)``, ``f(y)``, ``S(x)``, ``LS(x)``, …).
    """

    x: JsonValue
    y: JsonValue
    origin: str
    relation_reason: str = ""
    values: dict[str, JsonValue] = Field(default_factory=dict)


def pair_counterexample(x: Any, y: Any, origin: str, reason: str, **values: Any) -> Counterexample:
    """A :class:`Counterexample` of the inputs ``x`` and ``y``, every value rendered as JSON."""
    from privaudit.auditing.pairs import to_jsonable

    return Counterexample(
        x=to_jsonable(x),
        y=to_jsonable(y),
        origin=origin,
        relation_reason=reason,
        values=jsonable_details(**values),
    )


def counterexample_of(pair: Any, **values: Any) -> Counterexample:
    """The report's form of a :class:`~privaudit.auditing.pairs.CandidatePair`, with
    ``values`` beside it."""
    return pair_counterexample(pair.x, pair.y, pair.origin, pair.decision.reason, **values)


class CheckOutcome(SpecModel):
    """The outcome of one check of one claim.

    Attributes
    ----------
    name : str
        Dotted name, e.g. ``"sensitivity.global"``, ``"sensitivity.smooth.upper_bound"``,
        ``"sensitivity.smooth.smoothness"``, ``"noise_law.ks"``, ``"spec.consistency"``,
        ``"distinguishability"``, ``"privacy_profile"``.
    status : {"passed", "violated", "skipped"}
    summary : str
        One readable sentence with the key number.
    statistic : float, optional
        The measured quantity (a worst ratio, a p-value, an ε lower bound …).
    threshold : float, optional
        What ``statistic`` was compared with.
    ratio : float, optional
        The factor by which the claim fails (> 1 for a violation).
    error_rate : float
        Probability that this check reports a violation of a true claim (0 for
        deterministic checks; the Bonferroni share α for statistical ones).
    counterexample : Counterexample, optional
    details : dict
        Check-specific extra numbers.
    """

    name: str
    status: CheckStatus
    summary: str
    statistic: float | None = None
    threshold: float | None = None
    ratio: float | None = None
    error_rate: float = 0.0
    counterexample: Counterexample | None = None
    details: dict[str, JsonValue] = Field(default_factory=dict)

    @property
    def violated(self) -> bool:
        """True when the check found a violation."""
        return self.status == "violated"


class EventBound(SpecModel):
    """Clopper–Pearson bounds for one rejection region S tested between M(x) and M(y).

    Attributes
    ----------
    description : str
        What S is (``"LLR >= 0.73"``, ``"output in {3, 4}"``, ``"output <= -1.2"``).
    direction : {"x_vs_y", "y_vs_x"}
        ``x_vs_y`` bounds P[M(x) ∈ S] below and P[M(y) ∈ S] above.
    count_x, count_y : int
        Number of the ``samples_x`` / ``samples_y`` test outputs falling in S.
    p_x_lower, p_y_upper : float
        One-sided CP bounds, each at level ``alpha / 2``.
    alpha : float
        The family-wise error share spent on this event.
    epsilon_lower_bound : float or "inf"
        With ``method="clopper_pearson"``: ln((p_x_lower − δ)/p_y_upper) at the claimed
        δ, ``0`` when p_x_lower ≤ δ.  With ``method="rate_ratio"`` (Poissonised test
        sizes, pure claims): ln r̲ of the exact conditional bound on p_x/p_y at level
        ``alpha`` (:mod:`privaudit.statistics.rate_ratio`); ``p_x_lower`` and
        ``p_y_upper`` are then descriptive.
    method : {"clopper_pearson", "rate_ratio", "pooled_poisson"}
        Which bound gave ``epsilon_lower_bound`` (chosen before the test split).  With
        ``"pooled_poisson"`` (δ > 0, Poissonised test sizes) the event is S₁ in this
        direction pooled with a disjoint mirror S₂ in the other
        (:mod:`privaudit.statistics.pooled`): ``count_x`` = outputs of the lower-bounded
        side in S₁ plus of the other side in S₂, ``count_y`` the other two cells,
        ``samples_x`` = ``samples_y`` = both test sizes together, and ``p_x_lower``,
        ``p_y_upper`` exact Garwood bounds on the averaged probabilities (divided by
        twice ``poisson_mean``).
    poisson_mean : float or None
        The Poisson mean of both test sizes when they were Poissonised.
    """

    description: str
    direction: Literal["x_vs_y", "y_vs_x"]
    count_x: int
    count_y: int
    samples_x: int
    samples_y: int
    p_x_lower: float
    p_y_upper: float
    alpha: float
    epsilon_lower_bound: ExtendedEpsilon
    delta: float = 0.0
    method: Literal["clopper_pearson", "rate_ratio", "pooled_poisson"] = "clopper_pearson"
    poisson_mean: float | None = None

    @property
    def alpha0(self) -> float:
        """Upper bound on the type-I error of the test "reject when output ∉ S"."""
        return 1.0 - self.p_x_lower

    @property
    def alpha1(self) -> float:
        """Upper bound on the type-II error (= P[M(y) ∈ S])."""
        return self.p_y_upper


class ProfilePoint(SpecModel):
    """One point of the privacy profile: claimed δ(ε) against a lower confidence bound.

    ``direction`` says which hockey-stick divergence (``x_vs_y``: of M(x) from M(y)) and
    ``alpha`` the error probability of ``delta_lower_bound``.
    """

    epsilon: float
    delta_claimed: float
    delta_lower_bound: float
    delta_estimate: float
    direction: Literal["x_vs_y", "y_vs_x"] = "x_vs_y"
    alpha: float = 0.0

    @property
    def violated(self) -> bool:
        """True when the lower bound exceeds the claim."""
        return self.delta_lower_bound > self.delta_claimed


class PowerStatement(SpecModel):
    """What this audit could have detected.

    ``detectable_epsilon`` is the smallest true ε (on the worst pair and event found,
    holding P[M(y) ∈ S] fixed and raising P[M(x) ∈ S] to e^{ε} P[M(y) ∈ S] + δ) at which
    the audit reports a violation with probability at least ``probability``.

    Attributes
    ----------
    detectable_epsilon : float or "inf"
        As above (:func:`~privaudit.statistics.power.detectable_epsilon`).
    probability : float
        The detection probability the statement is about (0.9).
    samples : int
        Test outputs per side behind the statement.
    statement : str
        The statement in words.
    p_y, alpha : float, optional
        The event's estimated P[M(y) ∈ S] ((K_y + ½)/(n_y + 1)) and its error share α,
        the two numbers the power calculation holds fixed.
    target_epsilon : float, optional
        The true ε the audit had to be able to detect
        (:meth:`~privaudit.auditing.config.AuditConfig.detect_epsilon_for`: twice the claim unless
        configured).
    conclusive : bool, optional
        ``detectable_epsilon <= target_epsilon``.  An audit that finds no violation and is
        not conclusive has the verdict ``"inconclusive"``.
    samples_to_conclude : int, optional
        When not conclusive: the samples per side at which the same event, at the same
        level and P[M(y) ∈ S], detects ``target_epsilon`` with ``probability`` (the power
        calculation inverted in n, :func:`~privaudit.statistics.power.samples_to_detect`);
        ``None`` when no sample size can (this event's P[M(y) ∈ S] is too large to
        reveal the target, so more pairs or other events are needed).
    """

    detectable_epsilon: ExtendedEpsilon
    probability: float = 0.9
    samples: int
    statement: str
    p_y: float | None = None
    alpha: float | None = None
    target_epsilon: ExtendedEpsilon | None = None
    conclusive: bool | None = None
    samples_to_conclude: int | None = None


def finite_or_inf(x: float) -> float:
    """Clamp NaN to 0 and keep ±inf; a helper for reporting bounds."""
    if math.isnan(x):
        return 0.0
    return x


def jsonable_details(**kwargs: Any) -> dict[str, JsonValue]:
    """Build a ``details`` dict, rendering numpy values and non-finite floats as JSON."""
    from privaudit.auditing.pairs import to_jsonable

    return {k: to_jsonable(v) for k, v in kwargs.items()}
