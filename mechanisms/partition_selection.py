"""Partition selection: which keys a release may show when each user holds one key.

Under add/remove-one with each user contributing to one key, neighbours differ in one key's
user count n by one.  A key with n users is released with probability π(n), π(0) = 0
(absent keys are never released).  Exact δ of the thresholded Laplace and Gaussian
histograms and the optimal π of Desfontaines, Voss, Gipson & Mandayam (PoPETS 2022) are
here; the mechanisms are in :mod:`~privaudit.mechanisms.keyed_histogram`.  Derivations:
``docs/partition_selection.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.noise import Gaussian
from privaudit.spec.stable_values import round_up

from .calibration import _check_delta, _check_epsilon

__all__ = [
    "gaussian_threshold_delta",
    "gaussian_threshold_for_delta",
    "laplace_threshold_delta",
    "laplace_threshold_for_delta",
    "optimal_release_probabilities",
    "optimal_release_probability",
    "thresholded_gaussian_profile",
    "thresholded_laplace_profile",
]


def _check_threshold(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"threshold must be a real number, got {value!r}")
    tau = float(value)
    if not math.isfinite(tau):
        raise InvalidParameterError(f"threshold must be finite, got {value!r}")
    return tau


def _check_sigma(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(f"sigma must be a real number, got {value!r}")
    sigma = float(value)
    if not (math.isfinite(sigma) and sigma > 0):
        raise InvalidParameterError(f"sigma must be finite and > 0, got {value!r}")
    return sigma


def laplace_threshold_delta(epsilon: float, threshold: float) -> float:
    """δ = P[1 + Lap(1/ε) ≥ τ]: the probability that a key with one user is released.

    Equals ½ e^{−ε(τ − 1)} for τ ≥ 1 and 1 − ½ e^{ε(τ − 1)} below (Korolova, Kenthapadi,
    Mishra & Ntoulas, WWW 2009, §4; the Laplace threshold of Wilson et al., PoPETS 2020,
    §3; ``docs/partition_selection.md`` §1).

    Parameters
    ----------
    epsilon : float
        ε > 0 (Laplace scale 1/ε).
    threshold : float
        τ, finite.

    Returns
    -------
    float
    """
    eps, tau = _check_epsilon(epsilon), _check_threshold(threshold)
    if tau >= 1.0:
        return 0.5 * math.exp(-eps * (tau - 1.0))
    return 1.0 - 0.5 * math.exp(eps * (tau - 1.0))


def laplace_threshold_for_delta(epsilon: float, delta: float) -> float:
    """The threshold τ = 1 + ln(1/(2δ))/ε, rounded up on the stable grid, so that
    :func:`laplace_threshold_delta` ≤ δ (δ < ½).

    Raises
    ------
    InvalidParameterError
        If δ ≥ ½ (no threshold ≥ 1 has that δ) or ε, δ are out of range.
    """
    eps, dlt = _check_epsilon(epsilon), _check_delta(delta)
    if dlt >= 0.5:
        raise InvalidParameterError(f"delta must be < 0.5 for a Laplace threshold, got {delta!r}")
    return round_up(1.0 + math.log(1.0 / (2.0 * dlt)) / eps)


def gaussian_threshold_delta(sigma: float, threshold: float) -> float:
    """δ = P[1 + N(0, σ²) ≥ τ] = Φ((1 − τ)/σ).

    Parameters
    ----------
    sigma : float
        σ > 0.
    threshold : float
        τ, finite.

    Returns
    -------
    float
    """
    s, tau = _check_sigma(sigma), _check_threshold(threshold)
    return float(special.ndtr((1.0 - tau) / s))


def gaussian_threshold_for_delta(sigma: float, delta: float) -> float:
    """τ = 1 + σ Φ⁻¹(1 − δ), rounded up on the stable grid (so the release probability
    of a one-user key is ≤ δ)."""
    s, dlt = _check_sigma(sigma), _check_delta(delta)
    if dlt <= 0.0:
        raise InvalidParameterError(f"delta must be > 0 for a Gaussian threshold, got {delta!r}")
    return round_up(1.0 - s * float(special.ndtri(dlt)))


def thresholded_laplace_profile(epsilon_noise: float, threshold: float, epsilon: float) -> float:
    """Exact δ(ε) of the thresholded Laplace histogram with scale 1/ε_noise and threshold τ.

    δ(ε) = max(½e^{−ε_noise(τ−1)}, 1 − e^{(ε − ε_noise)/2}⁺): a pair whose changed key has
    no user on the smaller side costs the release probability of a one-user key; a pair
    whose changed key has ≥ 1 user is a post-processed Laplace mechanism of sensitivity 1
    (the maximum, not the sum: one pair is one of the two cases;
    ``docs/partition_selection.md`` §1).
    """
    eps_noise, eps = _check_epsilon(epsilon_noise, "epsilon_noise"), _check_epsilon(epsilon)
    lap = max(0.0, 1.0 - math.exp((eps - eps_noise) / 2.0))
    return max(laplace_threshold_delta(eps_noise, threshold), lap)


def thresholded_gaussian_profile(sigma: float, threshold: float, epsilon: float) -> float:
    """Exact δ(ε) of the thresholded Gaussian histogram: max(Φ((1 − τ)/σ), δ_G(ε)), δ_G the
    Balle–Wang profile of N(0, σ²) at sensitivity 1 (ICML 2018, Thm. 8)."""
    s = _check_sigma(sigma)
    gauss = Gaussian(sigma=s).privacy_profile(_check_epsilon(epsilon), 1.0)
    return max(gaussian_threshold_delta(s, threshold), gauss)


def optimal_release_probabilities(n_max: int, epsilon: float, delta: float) -> npt.NDArray[Any]:
    """π(0), …, π(n_max) of the optimal partition selection, by its recursion.

    π(0) = 0 and π(n) = min(e^ε π(n−1) + δ, 1 − e^{−ε}(1 − π(n−1) − δ), 1): the largest
    release probability that the two (ε, δ) constraints between n − 1 and n users allow
    (events "released" and "not released"; Desfontaines, Voss, Gipson & Mandayam,
    PoPETS 2022, §3, optimal mechanism; closed form :func:`optimal_release_probability`).

    Parameters
    ----------
    n_max : int
        Largest user count (≥ 0).
    epsilon, delta : float
        ε > 0, δ ∈ (0, 1).

    Returns
    -------
    numpy.ndarray
        float64 array of length n_max + 1, non-decreasing, π(0) = 0.
    """
    if isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or n_max < 0:
        raise InvalidParameterError(f"n_max must be an integer >= 0, got {n_max!r}")
    eps, dlt = _check_epsilon(epsilon), _check_delta(delta)
    if dlt <= 0.0:
        raise InvalidParameterError(f"delta must be > 0 for partition selection, got {delta!r}")
    pi = np.zeros(int(n_max) + 1)
    up, down = math.exp(eps), math.exp(-eps)
    for n in range(1, int(n_max) + 1):
        prev = pi[n - 1]
        pi[n] = min(up * prev + dlt, 1.0 - down * (1.0 - prev - dlt), 1.0)
    return pi


def optimal_release_probability(n: npt.ArrayLike, epsilon: float, delta: float) -> Any:
    """The closed form of π(n) (Desfontaines et al., PoPETS 2022, Theorem 1).

    With n₁ = 1 + ⌊ln(1 + tanh(ε/2)(1/δ − 1))/ε⌋:
    π(n) = δ(e^{nε} − 1)/(e^ε − 1) for n ≤ n₁; then
    π(n) = π(n₁) + (1 − π(n₁) + δ/(e^ε − 1))(1 − e^{−(n − n₁)ε}) for n₁ < n ≤ n₂,
    n₂ = n₁ + ⌊ln(1 + (e^ε − 1)(1 − π(n₁))/δ)/ε⌋; and 1 beyond n₂.

    Parameters
    ----------
    n : int or array_like of int
        User counts ≥ 0.
    epsilon, delta : float
        ε > 0, δ ∈ (0, 1).

    Returns
    -------
    float or numpy.ndarray
        π(n), of the shape of ``n``.
    """
    eps, dlt = _check_epsilon(epsilon), _check_delta(delta)
    if dlt <= 0.0:
        raise InvalidParameterError(f"delta must be > 0 for partition selection, got {delta!r}")
    counts = np.asarray(n)
    if counts.dtype.kind not in "iu" or (counts < 0).any():
        raise InvalidParameterError(f"user counts must be integers >= 0, got {n!r}")
    em1 = math.expm1(eps)
    n1 = 1 + math.floor(math.log1p(math.tanh(eps / 2.0) * (1.0 / dlt - 1.0)) / eps)
    p1 = min(1.0, dlt * math.expm1(n1 * eps) / em1)
    n2 = n1 + math.floor(math.log1p(em1 * (1.0 - p1) / dlt) / eps)
    c = counts.astype(np.float64)
    with np.errstate(over="ignore"):
        low = dlt * np.expm1(np.minimum(c, n1) * eps) / em1
    mid = p1 - (1.0 - p1 + dlt / em1) * np.expm1(-(c - n1) * eps)
    out = np.where(c <= n1, low, np.where(c <= n2, mid, 1.0))
    out = np.minimum(out, 1.0)
    return float(out) if np.ndim(out) == 0 else out
