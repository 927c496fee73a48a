"""The result object every private estimator returns."""

from __future__ import annotations

from dataclasses import dataclass

from spec import MechanismSpec, PrivacyGuarantee

__all__ = ["PrivateEstimate"]


@dataclass(frozen=True, slots=True)
class PrivateEstimate:
    """A private release together with the claims it was made under.

    Attributes
    ----------
    estimate : float
        The released value.
    spec : MechanismSpec
        The spec of the mechanism that released it (claims, relation, noise law).
    noise_std : float
        Standard deviation of the added noise (the private part of the error).
    """

    estimate: float
    spec: MechanismSpec
    noise_std: float

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The privacy guarantee the release was made under."""
        return self.spec.guarantee

    def __float__(self) -> float:
        return float(self.estimate)
