"""Optimal composition of k homogeneous (ε₀, δ₀)-DP releases (Kairouz, Oh & Viswanath).

Kairouz, Oh & Viswanath, "The composition theorem for differential privacy", ICML 2015,
Theorem 3.3: the k-fold adaptive composition of (ε₀, δ₀)-DP mechanisms is
((k − 2i)ε₀, δ_i)-DP for i = 0, …, ⌊k/2⌋ with

    δ_i = 1 − (1 − δ₀)^k (1 − Σ_{l=0}^{i−1} C(k, l)(e^{(k−l)ε₀} − e^{(k−2i+l)ε₀}) / (1 + e^{ε₀})^k),

and no smaller δ is possible (the k-fold composition of the binary randomized response
with a δ₀ atom attains it).  Because that mechanism dominates every
k-fold composition, its hockey-stick divergence gives the optimal δ at *every* ε, not only
on the grid (k − 2i)ε₀:

    δ(ε) = 1 − (1 − δ₀)^k (1 − Σ_{l=0}^{k} C(k, l)(e^{(k−l)ε₀} − e^{ε + lε₀})₊ / (1 + e^{ε₀})^k),

which equals δ_i at ε = (k − 2i)ε₀.  Every term is computed in log space
(``lgamma`` binomials, ``log1p``/``expm1``) and summed with a log-sum-exp, so k in the
millions and ε₀ up to several hundred stay finite; ε(δ) inverts the monotone profile by
bisection and is then rounded up until δ(ε) ≤ δ holds in floating point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from privaudit.spec import check_delta
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.guarantees import ApproxDP, PureDP
from privaudit.spec.stable_values import round_up

__all__ = ["OptimalComposition", "optimal_composition"]


@dataclass(frozen=True)
class OptimalComposition:
    """The exact privacy profile of k-fold (ε₀, δ₀) composition (KOV 2015, Thm. 3.3).

    Attributes
    ----------
    epsilon0, delta0 : float
        The per-release guarantee.
    k : int
        The number of releases.
    """

    epsilon0: float
    delta0: float
    k: int

    def _log_sum(self, epsilon: float) -> float:
        """ln Σ_l C(k,l)(e^{(k−l)ε₀} − e^{ε+lε₀})₊ − k ln(1 + e^{ε₀}) (−inf if empty)."""
        k, e0 = self.k, self.epsilon0
        # terms are positive iff (k − l)ε₀ > ε + lε₀, i.e. l < (kε₀ − ε)/(2ε₀)
        l_max = math.ceil((k * e0 - epsilon) / (2.0 * e0)) - 1
        if l_max < 0:
            return -math.inf
        ls = np.arange(0, min(l_max, k) + 1, dtype=float)
        log_binom = (
            special.gammaln(k + 1.0) - special.gammaln(ls + 1.0) - special.gammaln(k - ls + 1.0)
        )
        a = (k - ls) * e0
        b = epsilon + ls * e0
        with np.errstate(divide="ignore"):
            log_diff = a + np.log(-np.expm1(np.minimum(b - a, 0.0)))
        log_norm = k * (e0 + math.log1p(math.exp(-e0)))  # k ln(1 + e^{ε₀}), stable
        return float(special.logsumexp(log_binom + log_diff)) - log_norm

    def delta_for_epsilon(self, epsilon: float) -> float:
        """The optimal δ(ε) of the k-fold composition, for every ε ≥ 0."""
        eps = float(epsilon)
        if not (eps >= 0):
            raise InvalidParameterError(f"epsilon must be >= 0, got {epsilon!r}")
        s = math.exp(min(self._log_sum(eps), 0.0))
        if self.delta0 == 0.0:
            return s
        keep = math.exp(self.k * math.log1p(-self.delta0))  # (1 − δ₀)^k
        return float(min(1.0, 1.0 - keep * (1.0 - s)))

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ δ (``inf`` when δ < 1 − (1 − δ₀)^k)."""
        d = check_delta(delta)
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        hi = self.k * self.epsilon0
        if self.delta_for_epsilon(hi) > d:
            return math.inf
        eps = float(
            optimize.brentq(
                lambda e: self.delta_for_epsilon(e) - d, 0.0, hi, xtol=1e-13, rtol=1e-13
            )
        )
        for _ in range(200):
            if self.delta_for_epsilon(eps) <= d:
                return eps
            eps = math.nextafter(eps, math.inf) * (1 + 1e-15)
        return hi  # pragma: no cover - the profile is continuous and monotone

    def guarantee(self, delta: float) -> ApproxDP:
        """The composition as an (ε, δ)-DP guarantee at ``delta``, its ε (a root find)
        rounded up to the stable grid (:func:`spec.stable_values.round_up`)."""
        eps = round_up(self.epsilon_for_delta(delta))
        if not math.isfinite(eps):
            raise UnsupportedCombinationError(
                f"{self.k}-fold composition of ({self.epsilon0:g}, {self.delta0:g})-DP gives no "
                f"finite epsilon at delta = {delta!r}"
            )
        return ApproxDP(epsilon=max(eps, 1e-300), delta=check_delta(delta))


def optimal_composition(guarantee: PureDP | ApproxDP, k: int) -> OptimalComposition:
    """The optimal k-fold composition of one pure or approximate DP guarantee.

    Parameters
    ----------
    guarantee : PureDP or ApproxDP
        The per-release guarantee (ε₀, δ₀).
    k : int
        Number of releases, k ≥ 1.

    Returns
    -------
    OptimalComposition

    Examples
    --------
    >>> from privaudit.spec import PureDP
    >>> opt = optimal_composition(PureDP(epsilon=0.1), 100)
    >>> round(opt.epsilon_for_delta(1e-5), 3) < 10.0       # basic composition: 10
    True
    """
    if not isinstance(guarantee, (PureDP, ApproxDP)):
        raise UnsupportedCombinationError(
            f"optimal composition applies to pure or approximate DP, got {guarantee!r}"
        )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
    return OptimalComposition(
        epsilon0=guarantee.epsilon, delta0=getattr(guarantee, "delta", 0.0), k=int(k)
    )
