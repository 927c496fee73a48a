"""Two mirrored events pooled into one exact test on a Poissonised test split.

An (ε, δ) claim bounds both directions of a pair, so for disjoint events S₁ and S₂ the
pooled counts K₁ = #{x-outputs in S₁} + #{y-outputs in S₂} and K₂ (the mirror) are
independent Poisson(n μ₁) and Poisson(n μ₂) variables with μ₁ ≤ e^ε μ₂ + 2δ under the
claim.  Garwood's exact bounds then test it as one event with twice the counts: for a
symmetric pair, the statistics of one event on 2n outputs per side.

References: Garwood, Biometrika 1936; Kairouz, Oh & Viswanath, ICML 2015.  Details:
``docs/engine_notes.md``, "privaudit.statistics.pooled".
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from scipy import stats

from privaudit.spec import check_alpha
from privaudit.spec.errors import InvalidParameterError

__all__ = ["PooledBound", "garwood_lower", "garwood_upper", "pooled_bound"]


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 0:
        raise InvalidParameterError(f"{what} must be an integer >= 0, got {value!r}")
    return int(value)


def garwood_lower(count: int, alpha: float) -> float:
    """Exact one-sided lower bound on a Poisson mean at level ``alpha`` (0 for count 0)."""
    k, a = _count(count, "count"), check_alpha(alpha)
    return 0.0 if k == 0 else float(stats.chi2.ppf(a, 2 * k)) / 2.0


def garwood_upper(count: int, alpha: float) -> float:
    """Exact one-sided upper bound on a Poisson mean at level ``alpha``."""
    k, a = _count(count, "count"), check_alpha(alpha)
    return float(stats.chi2.isf(a, 2 * k + 2)) / 2.0


@dataclass(frozen=True)
class PooledBound:
    """Bounds on the averaged probabilities of two pooled mirrored events.

    Attributes
    ----------
    count_lower, count_upper : int
        K₁ (outputs in S₁ from x and in S₂ from y) and K₂ (the other two cells).
    p_lower, p_upper : float
        Garwood bounds on n μ₁ and n μ₂, each at ``alpha / 2``, divided by 2n: lower and
        upper bounds on p̄₁ and p̄₂.
    epsilon_lower_bound : float
        ln((p_lower − δ)/p_upper), 0 when p_lower ≤ δ.
    alpha : float
        The level of the whole test (both bounds).
    """

    count_lower: int
    count_upper: int
    p_lower: float
    p_upper: float
    epsilon_lower_bound: float
    alpha: float


def pooled_bound(
    lower_1: int,
    upper_1: int,
    lower_2: int,
    upper_2: int,
    *,
    poisson_mean: float,
    alpha: float,
    delta: float,
) -> PooledBound:
    """The pooled test of two disjoint events in opposite directions.

    Parameters
    ----------
    lower_1, upper_1 : int
        Counts of S₁ on its lower-bounded side (x) and on the other side (y).
    lower_2, upper_2 : int
        Counts of S₂ on its lower-bounded side (y) and on the other side (x).
    poisson_mean : float
        n, the Poisson mean of both test sizes.
    alpha : float
        Level of the test (α/2 for each Garwood bound).
    delta : float
        The claimed δ at which ε_lb is reported.

    Returns
    -------
    PooledBound
    """
    n = float(poisson_mean)
    if not (math.isfinite(n) and n > 0):
        raise InvalidParameterError(f"poisson_mean must be finite and > 0, got {poisson_mean!r}")
    a = check_alpha(alpha)
    k1 = _count(lower_1, "lower_1") + _count(lower_2, "lower_2")
    k2 = _count(upper_1, "upper_1") + _count(upper_2, "upper_2")
    lo = garwood_lower(k1, a / 2.0) / (2.0 * n)
    hi = garwood_upper(k2, a / 2.0) / (2.0 * n)
    eps = math.log((lo - delta) / hi) if lo > delta and hi > 0 else 0.0
    return PooledBound(
        count_lower=k1,
        count_upper=k2,
        p_lower=lo,
        p_upper=hi,
        epsilon_lower_bound=max(0.0, eps),
        alpha=a,
    )
