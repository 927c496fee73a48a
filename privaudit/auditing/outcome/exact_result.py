"""The result of an exact audit as data: :class:`ExactAuditResult` and its profile
points.  Models only (no engine import), so that the report's data model loads cheaply;
:mod:`~privaudit.auditing.exact.privacy` computes them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from privaudit.auditing.outcome.results import Counterexample
from privaudit.spec import ExtendedEpsilon, SpecModel

__all__ = ["TOLERANCE", "ExactAuditResult", "ExactProfilePoint"]

#: Absolute slack on δ and relative slack on ε when comparing exact values with claims.
TOLERANCE = 1e-9


class ExactProfilePoint(SpecModel):
    """δ(ε) = max over the examined pairs of the hockey-stick divergence, against the claim."""

    epsilon: float
    delta_exact: float
    delta_claimed: float

    @property
    def violated(self) -> bool:
        """True when the exact δ exceeds the claimed one."""
        return self.delta_exact > self.delta_claimed + TOLERANCE


class ExactAuditResult(SpecModel):
    """The exact privacy of a finite randomizer over the examined pairs.

    Attributes
    ----------
    epsilon_exact : float or "inf"
        The largest log-likelihood ratio over the examined pairs and outputs.
    coverage : {"all_pairs", "searched_pairs"}
        ``all_pairs``: every neighbouring pair of the (finite) domain was examined, so
        ``epsilon_exact`` is the mechanism's ε; ``searched_pairs``: exact on the pairs
        examined, a lower bound on the mechanism's ε.
    inputs_examined, pairs_examined : int
    worst_pair : Counterexample
        The pair (x, y) attaining ``epsilon_exact`` (in that order).
    profile : tuple of ExactProfilePoint
        Exact δ(ε) at multiples of the claimed ε (and at ``epsilon_exact``).
    profile_pairs : int
        Number of pairs (ordered) the profile maximises over.
    profile_coverage : {"all_pairs", "searched_pairs", "largest_epsilon_pairs"}
        Which pairs the profile's δ is the maximum over: every pair the ε covers
        (``coverage``), or only the ``profile_pairs`` pairs of largest pure ε, when the
        profile over every pair was too costly; the δ is then a lower bound, not exact.
    violated : bool
        True when the exact profile exceeds the claimed one anywhere (for a pure claim:
        ``epsilon_exact`` > claimed ε).
    statement : str
        One sentence for reports, stating that the numbers are exact.
    refuted : bool
        True when the audit's own samples contradict these exact figures: the sampling
        ε lower bound at some tested pair exceeds what the declared law allows there
        (:func:`sampling_refutation`), so the ``output_probabilities`` hook does not
        describe the sampler (e.g. the sampler correlates coordinates the hook declares
        independent).  The exact figures must then not be used.
    refutation : str
        Why, with the numbers (empty unless ``refuted``).
    """

    mode: Literal["exact"] = "exact"
    epsilon_exact: ExtendedEpsilon
    epsilon_claimed: float
    delta_claimed: float
    delta_at_claimed_epsilon: float
    coverage: Literal["all_pairs", "searched_pairs"]
    inputs_examined: int
    pairs_examined: int
    worst_pair: Counterexample
    profile: tuple[ExactProfilePoint, ...] = ()
    profile_pairs: int = 0
    profile_coverage: Literal["all_pairs", "searched_pairs", "largest_epsilon_pairs"] = "all_pairs"
    violated: bool
    statement: str
    details: dict[str, JsonValue] = Field(default_factory=dict)
    refuted: bool = False
    refutation: str = ""


# ----------------------------------------------------------------------------------------
# applicability and the law's shape
# ----------------------------------------------------------------------------------------
