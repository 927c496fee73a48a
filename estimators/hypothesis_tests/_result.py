"""The result object of the private uniformity test."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from privaudit.spec import PrivacyGuarantee

from .._privacy_account import PrivacyAccount
from ..ustatistics.concentration import ConcentrationRadius

__all__ = ["UniformityTestResult"]


@dataclass(frozen=True)
class UniformityTestResult:
    """The outcome of a private uniformity test (everything in it is private).

    Attributes
    ----------
    reject : bool
        True when the private statistic exceeds the threshold ("reject uniformity").
    statistic : float
        The private estimate Ũ of the collision probability θ = Σ_v p_v².
    threshold : float
        The rejection threshold: with Monte Carlo calibration the critical value of the
        simulated null law (reject iff ``statistic > threshold``, the same as
        ``p_value <= alpha``); otherwise (1 + 3δ²/4)/m (tolerant null), (1 + δ²/2)/m
        (exact null), or the one given.
    null : {"tolerant", "exact", "custom"}
        The null tested: ``"exact"`` (p uniform) with Monte Carlo calibration; with the
        threshold rule, which null the threshold is the midpoint for (``"custom"`` for a
        given threshold).
    privacy : PrivacyAccount
        What the test spent (one stage: the private estimate of θ).
    method : {"local_hajek", "all_tuples"}
        Algorithm 1 under Wrapper 1 (Algorithm A.4), or the all-tuples CoinPress
        baseline (Algorithm A.2, Proposition 1) under Wrapper 1.
    xi : mapping of int to ConcentrationRadius, or None
        The ξ Algorithm 1 used on chunks of each size (None for the baseline).
    n : int
        Number of samples.
    n_alpha : int
        Size of the smallest chunk of Wrapper 1 (n_α ≈ n/q).
    chunks : int
        q, the number of chunks.
    m : int
        Alphabet size.
    delta : float
        The ℓ2 separation parameter δ.
    alpha : float
        The level α of the test (and the failure probability of Wrapper 1).
    calibration : {"monte_carlo", "threshold"}
        How the threshold was set (:mod:`estimators.hypothesis_tests.monte_carlo`).
    p_value : float or None
        The Monte Carlo p-value (1 + #{T_b ≥ T})/(B + 1) (None with the threshold rule);
        post-processing of the private statistic, so private too.
    simulations : int or None
        B, the number of null simulations (None with the threshold rule).
    """

    reject: bool
    statistic: float
    threshold: float
    null: Literal["tolerant", "exact", "custom"]
    privacy: PrivacyAccount
    method: Literal["local_hajek", "all_tuples"]
    xi: Mapping[int, ConcentrationRadius] | None = field(repr=False)
    n: int
    n_alpha: int
    chunks: int
    m: int
    delta: float
    alpha: float
    calibration: Literal["monte_carlo", "threshold"] = "monte_carlo"
    p_value: float | None = None
    simulations: int | None = None

    def __post_init__(self) -> None:
        if self.xi is not None:
            object.__setattr__(self, "xi", MappingProxyType(dict(self.xi)))

    @property
    def decision(self) -> str:
        """``"reject uniformity"`` or ``"accept"``."""
        return "reject uniformity" if self.reject else "accept"

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The total privacy guarantee of the test."""
        return self.privacy.total

    def __bool__(self) -> bool:
        return bool(self.reject)
