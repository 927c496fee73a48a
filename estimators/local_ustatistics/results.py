"""The result object every locally private U-statistic estimator returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from privaudit.spec import MechanismSpec, PrivacyGuarantee

__all__ = ["LocalUStatisticEstimate"]


@dataclass(frozen=True, slots=True)
class LocalUStatisticEstimate:
    """A private U-statistic estimate with the claims it was released under.

    Attributes
    ----------
    estimate : float
        The released value (computed from the users' private reports only).
    spec : MechanismSpec
        The spec of the per-user randomizer (Protocols A, B) or of the central view of one
        user (Protocols C, D).
    protocol : str
        ``"A"`` (Algorithm 1), ``"A-two-sample"``, ``"B-S"`` / ``"B-C"`` (hierarchical
        AUC, level-sampling / composed oracle), ``"C"`` (2PC, subsampled pairs),
        ``"C-discrete"``, ``"D"`` (2PC, all pairs).
    n : int
        Number of users.
    epsilon : float
        ε of each user's guarantee.
    variance_bound : float or None
        The paper's bound on the variance / MSE of the estimator for this (n, k, ε), when
        it has one (e.g. Theorem 1); ``None`` otherwise.
    clipped : bool
        Whether ``estimate`` was clipped to the kernel's range (post-processing).
    details : mapping
        Protocol-specific public quantities (β, k, α, pairs, …).
    """

    estimate: float
    spec: MechanismSpec
    protocol: str
    n: int
    epsilon: float
    variance_bound: float | None = None
    clipped: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The privacy guarantee of each user."""
        return self.spec.guarantee

    def __float__(self) -> float:
        return float(self.estimate)
