"""Noise calibration for k releases: the smallest scale that keeps a composition within (ε, δ).

* :func:`gaussian_sigma_for_composition` — exact: k Gaussian releases with sensitivity Δ
  and noise σ compose to μ-GDP with μ = √k Δ/σ (Dong, Roth & Su, JRSS-B 2022, Cor. 3.3),
  whose exact δ(ε) is :class:`~spec.GaussianDP`'s.  The largest μ with δ_μ(ε) ≤ δ is found
  by bisection on the monotone profile and rounded *down*, so σ = √k Δ/μ is rounded up.
* :func:`laplace_scale_for_composition` — through the PLD accountant: the smallest
  Laplace scale b (on a relative grid of ``rtol``) whose k-fold composition the
  pessimistic PLD accountant bounds by ε at δ.  Because the PLD answer is an upper bound,
  the returned b is always private; it may exceed the exact optimum by the PLD's
  discretization error plus ``rtol``.

Both scales are rounded up to the stable grid of :mod:`spec.stable_values` (a larger
scale keeps the claim), so that they are the same on every CPU and BLAS.
"""

from __future__ import annotations

import math

from scipy import optimize

from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
    check_delta,
    check_epsilon,
    check_positive,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.guarantees import GaussianDP
from privaudit.spec.stable_values import round_up

from .accountants import PLDAccountant
from .curves import privacy_curves

__all__ = ["gaussian_sigma_for_composition", "laplace_scale_for_composition"]


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
    return k


def gaussian_sigma_for_composition(
    k: int, epsilon: float, delta: float, sensitivity: float = 1.0
) -> float:
    """The smallest σ such that k Gaussian releases (ℓ2 sensitivity Δ) are (ε, δ)-DP.

    Parameters
    ----------
    k : int
        Number of releases.
    epsilon, delta : float
        The target guarantee of the whole composition, ε > 0, δ ∈ (0, 1).
    sensitivity : float, default 1
        Δ₂ of each release.

    Returns
    -------
    float
        σ on the safe side, rounded up to the stable grid (within a relative 1e-5 of the
        exact optimum).

    Examples
    --------
    >>> round(gaussian_sigma_for_composition(1, 1.0, 1e-5), 4)   # the analytic Gaussian
    3.7306
    """
    k = _check_k(k)
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if d <= 0:
        raise InvalidParameterError(f"delta must be > 0 for Gaussian noise, got {delta!r}")
    sens = check_positive(sensitivity, "sensitivity")

    def gap(log_mu: float) -> float:
        return GaussianDP(mu=math.exp(log_mu)).delta_for_epsilon(eps) - d

    lo, hi = -30.0, 1.0
    while gap(hi) < 0:
        hi += 2.0
    log_mu = float(optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=1e-15))
    mu = math.exp(log_mu)
    while GaussianDP(mu=mu).delta_for_epsilon(eps) > d:  # round μ down until it holds
        mu = math.nextafter(mu, 0.0)
    sigma = math.sqrt(k) * sens / mu
    while GaussianDP(mu=math.sqrt(k) * sens / sigma).delta_for_epsilon(eps) > d:
        sigma = math.nextafter(sigma, math.inf)
    return round_up(sigma)


def _laplace_spec(scale: float, sensitivity: float) -> MechanismSpec:
    return MechanismSpec(
        name="laplace_for_calibration",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0)),
        relation=SubstituteOne(),
        sensitivity=(GlobalSensitivity(value=sensitivity),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=sensitivity / scale),
    )


def laplace_scale_for_composition(
    k: int,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    *,
    rtol: float = 1e-3,
    value_discretization_interval: float = 1e-3,
) -> float:
    """The smallest Laplace scale b (within ``rtol``) with k releases (ε, δ)-DP by PLD.

    Parameters
    ----------
    k : int
        Number of releases.
    epsilon, delta : float
        Target guarantee of the composition (δ = 0 gives b = kΔ/ε exactly).
    sensitivity : float, default 1
        Δ₁ of each release.
    rtol : float, default 1e-3
        Relative precision of the bisection on b (the result is on the private side).
    value_discretization_interval : float, default 1e-3
        The PLD grid (pessimistic).

    Returns
    -------
    float
    """
    k = _check_k(k)
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive(sensitivity, "sensitivity")
    basic = k * sens / eps  # k-fold pure composition: always enough
    if d == 0:
        return basic

    def private(b: float) -> bool:
        acc = PLDAccountant(value_discretization_interval=value_discretization_interval)
        return acc.compose(privacy_curves(_laplace_spec(b, sens)), k).epsilon(d) <= eps

    lo, hi = basic * 1e-3, basic
    if private(lo):
        return lo
    while hi / lo > 1.0 + rtol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if private(mid) else (mid, hi)
    return min(round_up(hi), basic)  # basic composition's kΔ/ε is exact and always enough
