"""Privacy guarantees: pure, approximate, Rényi, zero-concentrated and Gaussian DP.

Every guarantee answers the same two questions, so the auditor can test any of them
against the hypothesis-testing characterisation:

* :meth:`delta_for_epsilon` — the δ(ε) it implies for every ε ≥ 0 (its privacy profile,
  an upper bound on the hockey-stick divergence E_{e^ε}(M(D) ‖ M(D′)) over neighbours);
* :meth:`epsilon_for_delta` — the smallest ε with δ(ε) ≤ δ.

Conversions used (all standard; none is looser than the reference given):

============  =============================================  ==============================
from          δ(ε)                                           reference
============  =============================================  ==============================
ε₀-DP         (e^{ε₀} − e^{ε})₊ / (1 + e^{ε₀})  (tight)      Kairouz, Oh, Viswanath 2015
(ε₀, δ₀)-DP   δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})₊ / (1 + e^{ε₀})  Kairouz, Oh, Viswanath 2015
              (tight)
(α, ε_α)-RDP  e^{(α−1)(ε_α − ε)} (1 − 1/α)^{α−1} / α         Canonne, Kamath, Steinke 2020,
                                                             Prop. 12; Balle et al. 2020,
                                                             Thm. 21
ρ-zCDP        inf_{α>1} of the RDP bound with ε_α = αρ       Bun & Steinke 2016; CKS 2020
μ-GDP         Φ(−ε/μ + μ/2) − e^{ε} Φ(−ε/μ − μ/2)  (exact)   Dong, Roth, Su 2022, Cor. 2.13
============  =============================================  ==============================

and, between the divergence-based notions, ε-DP ⇒ ε²/2-zCDP (Bun & Steinke 2016,
Prop. 1.4), μ-GDP ⇔ the Gaussian mechanism with Δ/σ = μ ⇒ μ²/2-zCDP, ρ-zCDP ⇒
(α, αρ)-RDP for every α > 1.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from pydantic import Field
from scipy import optimize, special

from ._base import SpecModel
from ._types import Delta, Epsilon, PositiveFloat, RenyiOrder, check_delta
from .errors import InvalidParameterError
from .stable_values import round_up

__all__ = [
    "ApproxDP",
    "GaussianDP",
    "PrivacyGuarantee",
    "PureDP",
    "RenyiDP",
    "ZeroConcentratedDP",
    "pure_to_zcdp",
    "zcdp_to_renyi",
]


def _check_eps_arg(epsilon: float) -> float:
    if isinstance(epsilon, bool):
        raise InvalidParameterError(f"epsilon must be a real number >= 0, got {epsilon!r}")
    eps = float(epsilon)
    if eps != eps or eps < 0:
        raise InvalidParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    return eps


def _round_up_until(guarantee: _GuaranteeBase, eps: float, delta: float) -> float:
    """Nudge a closed-form ε up by ulps until δ(ε) ≤ δ holds in floating point."""
    for _ in range(64):
        if guarantee.delta_for_epsilon(eps) <= delta:
            return eps
        eps = math.nextafter(eps, math.inf)
    return eps


def _log_norm_cdf(x: float) -> float:
    return float(special.log_ndtr(x))


class _GuaranteeBase(SpecModel):
    """Shared behaviour: profile over a grid and conversion to an (ε, δ) pair."""

    def delta_for_epsilon(self, epsilon: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def epsilon_for_delta(self, delta: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def privacy_profile(self, epsilons: np.typing.ArrayLike) -> np.ndarray:
        """δ(ε) on a grid of ε ≥ 0 values (vector version of :meth:`delta_for_epsilon`)."""
        eps = np.asarray(epsilons, dtype=float)
        profile: np.ndarray = np.vectorize(self.delta_for_epsilon, otypes=[float])(eps)
        return profile

    def to_approx_dp(self, delta: float) -> ApproxDP:
        """The (ε, δ)-DP guarantee implied at the given δ ∈ (0, 1) (or δ = 0 where finite).

        ε (a conversion through libm's exp and log, or a numerical optimum) is rounded up to
        the stable grid (:func:`spec.stable_values.round_up`), and never exceeds the ε of a
        pure or approximate claim that already holds at ``delta``.
        """
        d = check_delta(delta)
        eps = self.epsilon_for_delta(d)
        if not math.isfinite(eps):
            raise InvalidParameterError(
                f"{type(self).__name__} implies no finite epsilon at delta={delta!r}"
            )
        eps = round_up(eps)
        if isinstance(self, (PureDP, ApproxDP)) and d >= getattr(self, "delta", 0.0):
            eps = min(eps, self.epsilon)
        # A guarantee with ε = 0 is still a valid claim of (tiny ε, δ)-DP.
        return ApproxDP(epsilon=max(eps, 1e-300), delta=d)


class PureDP(_GuaranteeBase):
    """ε-differential privacy: P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] for all S and neighbours.

    Parameters
    ----------
    epsilon : float
        Finite ε > 0.
    """

    kind: Literal["pure_dp"] = "pure_dp"
    epsilon: Epsilon

    @property
    def delta(self) -> float:
        """δ = 0."""
        return 0.0

    def delta_for_epsilon(self, epsilon: float) -> float:
        """Tight profile (e^{ε₀} − e^{ε})₊ / (1 + e^{ε₀}), attained by randomized response."""
        eps = _check_eps_arg(epsilon)
        e0 = self.epsilon
        if eps >= e0:
            return 0.0
        # (e^{e0} - e^{eps}) / (1 + e^{e0}) computed stably
        return float(-math.expm1(eps - e0) / (1.0 + math.exp(-e0)))

    def epsilon_for_delta(self, delta: float) -> float:
        """Smallest ε with δ(ε) ≤ δ."""
        d = check_delta(delta)
        e0 = self.epsilon
        arg = math.exp(e0) - d * (1.0 + math.exp(e0))
        return _round_up_until(self, max(0.0, math.log(arg)) if arg > 1.0 else 0.0, d)


class ApproxDP(_GuaranteeBase):
    """(ε, δ)-differential privacy: P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ.

    Parameters
    ----------
    epsilon : float
        Finite ε > 0.
    delta : float
        0 ≤ δ < 1.
    """

    kind: Literal["approx_dp"] = "approx_dp"
    epsilon: Epsilon
    delta: Delta

    def delta_for_epsilon(self, epsilon: float) -> float:
        """Tight profile δ₀ + (1 − δ₀)(e^{ε₀} − e^{ε})₊ / (1 + e^{ε₀})."""
        eps = _check_eps_arg(epsilon)
        e0, d0 = self.epsilon, self.delta
        if eps >= e0:
            return d0
        return float(d0 + (1.0 - d0) * (-math.expm1(eps - e0)) / (1.0 + math.exp(-e0)))

    def epsilon_for_delta(self, delta: float) -> float:
        """Smallest ε with δ(ε) ≤ δ (``inf`` when δ < δ₀)."""
        d = check_delta(delta)
        e0, d0 = self.epsilon, self.delta
        if d < d0:
            return math.inf
        arg = math.exp(e0) - (d - d0) * (1.0 + math.exp(e0)) / (1.0 - d0)
        return _round_up_until(self, max(0.0, math.log(arg)) if arg > 1.0 else 0.0, d)


def _rdp_delta(alpha: float, eps_alpha: float, eps: float) -> float:
    """δ(ε) implied by (α, ε_α)-RDP (CKS 2020 Prop. 12), capped at 1."""
    log_delta = (
        (alpha - 1.0) * (eps_alpha - eps)
        + (alpha - 1.0) * math.log1p(-1.0 / alpha)
        - math.log(alpha)
    )
    return float(min(1.0, math.exp(min(log_delta, 0.0)))) if log_delta < 700 else 1.0


def _rdp_epsilon(alpha: float, eps_alpha: float, delta: float) -> float:
    """ε implied by (α, ε_α)-RDP at δ (Balle et al. 2020 Thm. 21)."""
    if delta <= 0:
        return math.inf
    eps = eps_alpha + math.log1p(-1.0 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1.0)
    return max(0.0, eps)


class RenyiDP(_GuaranteeBase):
    """(α, ε(α))-Rényi differential privacy: D_α(M(D) ‖ M(D′)) ≤ ε(α).

    Parameters
    ----------
    alpha : float
        Order α > 1.
    epsilon : float
        ε(α) > 0.

    References
    ----------
    Mironov, "Rényi differential privacy", CSF 2017.
    """

    kind: Literal["renyi_dp"] = "renyi_dp"
    alpha: RenyiOrder
    epsilon: Epsilon

    def delta_for_epsilon(self, epsilon: float) -> float:
        """δ(ε) = e^{(α−1)(ε_α − ε)} (1 − 1/α)^{α−1} / α (CKS 2020 Prop. 12)."""
        return _rdp_delta(self.alpha, self.epsilon, _check_eps_arg(epsilon))

    def epsilon_for_delta(self, delta: float) -> float:
        """ε = ε_α + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (Balle et al. 2020 Thm. 21)."""
        return _rdp_epsilon(self.alpha, self.epsilon, check_delta(delta))


class ZeroConcentratedDP(_GuaranteeBase):
    """ρ-zero-concentrated DP: (α, αρ)-RDP for every α > 1.

    Parameters
    ----------
    rho : float
        ρ > 0.

    References
    ----------
    Bun & Steinke, "Concentrated differential privacy", TCC 2016.
    Canonne, Kamath & Steinke, "The discrete Gaussian for DP", NeurIPS 2020, Prop. 12.
    """

    kind: Literal["zcdp"] = "zcdp"
    rho: PositiveFloat

    def delta_for_epsilon(self, epsilon: float) -> float:
        """inf over α > 1 of the RDP conversion with ε_α = αρ (numerically minimised)."""
        return self._delta_opt(_check_eps_arg(epsilon))

    def _delta_opt(self, eps: float) -> float:
        rho = self.rho

        def log_delta(log_am1: float) -> float:
            a = 1.0 + math.exp(log_am1)
            return (a - 1.0) * (a * rho - eps) + (a - 1.0) * math.log1p(-1.0 / a) - math.log(a)

        # the optimum lies near α* = (ε + ρ)/(2ρ); search log(α − 1) over a wide bracket
        res = optimize.minimize_scalar(
            log_delta, bounds=(-30.0, 30.0), method="bounded", options={"xatol": 1e-12}
        )
        best = min(float(res.fun), log_delta(-30.0))
        return float(min(1.0, math.exp(min(best, 0.0))))

    def epsilon_for_delta(self, delta: float) -> float:
        """inf over α > 1 of ρα + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)."""
        d = check_delta(delta)
        if d == 0:
            return math.inf
        rho = self.rho

        def eps_of(log_am1: float) -> float:
            a = 1.0 + math.exp(log_am1)
            return _rdp_epsilon(a, a * rho, d)

        res = optimize.minimize_scalar(
            eps_of, bounds=(-30.0, 30.0), method="bounded", options={"xatol": 1e-12}
        )
        simple = rho + 2.0 * math.sqrt(rho * math.log(1.0 / d))
        return float(min(res.fun, simple))


class GaussianDP(_GuaranteeBase):
    """μ-Gaussian differential privacy: trade-off at least that of N(0,1) vs N(μ,1).

    Parameters
    ----------
    mu : float
        μ > 0.

    References
    ----------
    Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022, Corollary 2.13.
    """

    kind: Literal["gdp"] = "gdp"
    mu: PositiveFloat

    def delta_for_epsilon(self, epsilon: float) -> float:
        """Exact δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
        eps = _check_eps_arg(epsilon)
        mu = self.mu
        a = _log_norm_cdf(-eps / mu + mu / 2.0)
        b = eps + _log_norm_cdf(-eps / mu - mu / 2.0)
        if b >= a:
            return 0.0
        return float(math.exp(a) * -math.expm1(b - a))

    def epsilon_for_delta(self, delta: float) -> float:
        """Smallest ε with δ(ε) ≤ δ, by root finding on the exact profile."""
        d = check_delta(delta)
        if d == 0:
            return math.inf
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        hi = 1.0
        while self.delta_for_epsilon(hi) > d:
            hi *= 2.0
        return float(
            optimize.brentq(
                lambda e: self.delta_for_epsilon(e) - d, 0.0, hi, xtol=1e-14, rtol=1e-14
            )
        )

    def to_zcdp(self) -> ZeroConcentratedDP:
        """μ-GDP ⇒ (μ²/2)-zCDP."""
        return ZeroConcentratedDP(rho=self.mu**2 / 2.0)


def pure_to_zcdp(guarantee: PureDP) -> ZeroConcentratedDP:
    """ε-DP ⇒ (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
    return ZeroConcentratedDP(rho=guarantee.epsilon**2 / 2.0)


def zcdp_to_renyi(guarantee: ZeroConcentratedDP, alpha: float) -> RenyiDP:
    """ρ-zCDP ⇒ (α, αρ)-RDP."""
    return RenyiDP(alpha=alpha, epsilon=alpha * guarantee.rho)


PrivacyGuarantee = Annotated[
    PureDP | ApproxDP | RenyiDP | ZeroConcentratedDP | GaussianDP,
    Field(discriminator="kind"),
]
"""Any privacy guarantee, as a pydantic discriminated union on ``kind``."""
