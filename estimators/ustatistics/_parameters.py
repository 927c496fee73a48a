"""Checks of the public parameters shared by the private U-statistic estimators.

Each check returns the canonical value or raises :class:`~spec.errors.InvalidParameterError`
naming the offending value.  Nothing here looks at data.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal

from privaudit.spec import (
    ApproxDP,
    MechanismSpec,
    PureDP,
    RenyiDP,
    check_alpha,
    check_epsilon,
    check_positive,
    check_probability,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    ParameterTypeError,
    SampleSizeError,
    UnsupportedCombinationError,
)

__all__ = [
    "SensitivityMode",
    "check_count",
    "check_epsilon",
    "check_failure_probability",
    "check_mode",
    "check_nonnegative",
    "check_positive",
    "check_probability",
    "claimed_epsilon",
    "log_binomial",
]

SensitivityMode = Literal["rigorous", "paper"]
"""``"rigorous"``: the explicit bound of ``docs/derivations.md`` §3 (proven, the default);
``"paper"``: the printed box formula of Algorithm 1 line 20, eq. (A.57) (reproduction only,
claim unproven)."""


def claimed_epsilon(spec: MechanismSpec) -> float:
    """ε of the spec's claim (pure, approximate or Rényi DP).

    Raises
    ------
    UnsupportedCombinationError
        For a claim stated without ε (zCDP, Gaussian DP).
    """
    guarantee = spec.guarantee
    if not isinstance(guarantee, (PureDP, ApproxDP, RenyiDP)):
        raise UnsupportedCombinationError(
            f"{spec.name!r} states its claim without epsilon: {type(guarantee).__name__}"
        )
    return float(guarantee.epsilon)


def check_count(value: Any, what: str, minimum: int = 1) -> int:
    """Return ``value`` as an int ≥ ``minimum`` (booleans and non-integers are refused:
    :class:`~spec.errors.ParameterTypeError`; too small: :class:`~spec.errors.SampleSizeError`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise SampleSizeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_nonnegative(value: Any, what: str) -> float:
    """Return ``value`` as a finite float ≥ 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{what} must be a finite real number >= 0, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x < 0.0:
        raise InvalidParameterError(f"{what} must be a finite real number >= 0, got {value!r}")
    return x


def check_failure_probability(value: Any, what: str = "alpha") -> float:
    """Return a failure probability in the open interval (0, 1) (:func:`spec.check_alpha`)."""
    return check_alpha(value, what)


def check_mode(value: Any) -> SensitivityMode:
    """Return ``"rigorous"`` or ``"paper"``; raise on anything else."""
    if value not in ("rigorous", "paper"):
        raise InvalidParameterError(
            f"sensitivity_mode must be 'rigorous' or 'paper', got {value!r}"
        )
    return value


def log_binomial(n: int, k: int) -> float:
    """ln C(n, k) through ``math.lgamma`` (exact enough for tail bounds; n ≥ k ≥ 0)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
