"""Noise calibration: the scale of a noise law that delivers a target guarantee.

Every function validates its arguments (raising :class:`~spec.errors.InvalidParameterError`
naming the offending value) and returns a scale on the **safe side**: the returned scale,
read back through the noise law's own privacy quantities (``pure_epsilon`` or
``privacy_profile`` of :mod:`spec.noise`), meets the target *in floating point*, so a
:class:`~spec.MechanismSpec` built from it never fails its cross-field validation and
never claims more than the law delivers.

A scale computed with a transcendental function or a root find (the Gaussian
calibrations) is then rounded up to the stable grid of :mod:`spec.stable_values` (6
significant digits, after a relative margin of 1e-9), so that the spec and its hash are
the same on every CPU; a larger scale keeps the claim.  The closed forms Δ/ε of the
Laplace laws are correctly rounded arithmetic and are not rounded.

=============================  ==========================================  ====================
function                       scale                                       reference
=============================  ==========================================  ====================
laplace_scale                  b = Δ₁/ε                                    DMNS 2006
discrete_laplace_scale         t = Δ₁/ε (integer Δ₁)                       CKS 2020, §2
classical_gaussian_sigma       σ = Δ₂ √(2 ln(1.25/δ)) / ε, ε < 1 only      Dwork & Roth 2014,
                                                                           Thm. A.1
analytic_gaussian_sigma        smallest σ with the exact profile ≤ δ       Balle & Wang 2018,
                                                                           Thm. 8, Alg. 1
discrete_gaussian_sigma        smallest σ with the exact discrete profile  CKS 2020, Thm. 7
                               ≤ δ (vectors: through ρ-zCDP)               (zCDP)
zcdp_discrete_gaussian_sigma   σ = Δ₂/√(2ρ)                                CKS 2020 (zCDP)
=============================  ==========================================  ====================

DMNS 2006 is Dwork, McSherry, Nissim & Smith (TCC 2006); CKS 2020 is Canonne, Kamath &
Steinke, "The discrete Gaussian for differential privacy" (NeurIPS 2020).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from scipy import optimize, special

from privaudit.spec import check_delta, check_epsilon, check_positive
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.guarantees import ZeroConcentratedDP
from privaudit.spec.noise import DiscreteGaussian, DiscreteLaplace, Gaussian, Laplace
from privaudit.spec.stable_values import round_down, round_up

__all__ = [
    "analytic_gaussian_sigma",
    "classical_gaussian_sigma",
    "discrete_gaussian_sigma",
    "discrete_laplace_scale",
    "laplace_scale",
    "zcdp_discrete_gaussian_sigma",
]

#: Relative accuracy (in log σ) of the root finds; far below any practical difference.
_XTOL = 1e-15
#: Largest number of geometric nudges towards the safe side.
_MAX_NUDGES = 200


# ----------------------------------------------------------------------------------------
# argument checks
# ----------------------------------------------------------------------------------------
def _check_epsilon(value: Any, what: str = "epsilon") -> float:
    """ε as a float: finite and > 0 (NaN, ±inf, 0, negatives and booleans are refused)."""
    return check_epsilon(value, what)


def _check_delta(value: Any, what: str = "delta") -> float:
    """δ as a float in the open interval (0, 1)."""
    x = check_delta(value, what)
    if x <= 0.0:
        raise InvalidParameterError(f"{what} must lie in (0, 1), got {value!r}")
    return x


def _check_sensitivity(value: Any, what: str = "sensitivity") -> float:
    """Δ as a float: finite and > 0."""
    return check_positive(value, what)


def _check_integer_sensitivity(value: Any, what: str = "sensitivity") -> int:
    """Δ as a Python int ≥ 1 (integer-valued floats such as ``2.0`` are accepted)."""
    x = _check_sensitivity(value, what)
    if not x.is_integer():
        raise InvalidParameterError(
            f"{what} must be an integer for a law on the integers, got {value!r}"
        )
    return int(x)


# ----------------------------------------------------------------------------------------
# safe-side helpers
# ----------------------------------------------------------------------------------------
def _nudge_up(value: float, ok: Callable[[float], bool], what: str) -> float:
    """The smallest tried ``value · (1 + k·ulp)``, k = 0, 1, 2, 4, …, with ``ok`` true."""
    step = 0.0
    for _ in range(_MAX_NUDGES):
        candidate = value + step
        if ok(candidate):
            return candidate
        ulp = math.ulp(value)
        step = ulp if step == 0.0 else 2.0 * step
    raise InvalidParameterError(  # pragma: no cover - would need a broken noise law
        f"could not find a safe {what} near {value!r}"
    )


def _bracket_log(f: Callable[[float], float], start: float) -> tuple[float, float]:
    """A bracket [lo, hi] of log σ with f(lo) > 0 ≥ f(hi), f decreasing, from ``start``."""
    lo = hi = math.log(start)
    while f(lo) <= 0.0:
        lo -= math.log(2.0)
        if lo < -700.0:  # pragma: no cover - δ(σ) → 1 as σ → 0
            raise InvalidParameterError("no noise scale is small enough; check the arguments")
    while f(hi) > 0.0:
        hi += math.log(2.0)
        if hi > 700.0:
            raise InvalidParameterError(
                "no finite noise scale reaches the requested delta; it is too small"
            )
    return lo, hi


# ----------------------------------------------------------------------------------------
# Laplace
# ----------------------------------------------------------------------------------------
def laplace_scale(epsilon: float, sensitivity: float) -> float:
    """Scale b of the Laplace mechanism for ε-DP: b = Δ₁/ε.

    Parameters
    ----------
    epsilon : float
        Target ε > 0 (finite).
    sensitivity : float
        ℓ1 sensitivity Δ₁ > 0 of the statistic.

    Returns
    -------
    float
        The smallest b (up to a few ulp) with ``Laplace(scale=b).pure_epsilon(Δ) ≤ ε``
        in floating point.

    Raises
    ------
    InvalidParameterError
        If ε or Δ is not finite and > 0.

    References
    ----------
    .. [1] Dwork, McSherry, Nissim & Smith, "Calibrating noise to sensitivity in private
       data analysis", TCC 2006, Proposition 1.

    Examples
    --------
    >>> laplace_scale(0.5, 1.0)
    2.0
    """
    eps = _check_epsilon(epsilon)
    delta_f = _check_sensitivity(sensitivity)
    return _nudge_up(
        delta_f / eps, lambda b: Laplace(scale=b).pure_epsilon(delta_f) <= eps, "Laplace scale"
    )


def discrete_laplace_scale(epsilon: float, sensitivity: int) -> float:
    """Scale t of the discrete Laplace mechanism for ε-DP: t = Δ₁/ε with integer Δ₁.

    The discrete Laplace law has mass ∝ exp(−|z|/t) on the integers; adding it to an
    integer statistic of ℓ1 sensitivity Δ₁ is (Δ₁/t)-DP.

    Parameters
    ----------
    epsilon : float
        Target ε > 0 (finite).
    sensitivity : int
        Integer ℓ1 sensitivity Δ₁ ≥ 1.

    Returns
    -------
    float
        The smallest t (up to a few ulp) with
        ``DiscreteLaplace(scale=t).pure_epsilon(Δ) ≤ ε``.

    Raises
    ------
    InvalidParameterError
        If ε is not finite and > 0, or Δ is not a positive integer.

    References
    ----------
    .. [1] Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy",
       NeurIPS 2020, §2 (discrete Laplace) and Algorithm 2 (exact sampler).
    .. [2] Ghosh, Roughgarden & Sundararajan, "Universally utility-maximizing privacy
       mechanisms", STOC 2009 (the geometric mechanism).

    Examples
    --------
    >>> discrete_laplace_scale(0.5, 1)
    2.0
    """
    eps = _check_epsilon(epsilon)
    delta_f = _check_integer_sensitivity(sensitivity)
    return _nudge_up(
        delta_f / eps,
        lambda t: DiscreteLaplace(scale=t).pure_epsilon(delta_f) <= eps,
        "discrete Laplace scale",
    )


# ----------------------------------------------------------------------------------------
# Gaussian
# ----------------------------------------------------------------------------------------
def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """σ = Δ₂ √(2 ln(1.25/δ)) / ε, the classical Gaussian calibration (ε < 1 only).

    Parameters
    ----------
    epsilon : float
        Target ε ∈ (0, 1).
    delta : float
        Target δ ∈ (0, 1).
    sensitivity : float
        ℓ2 sensitivity Δ₂ > 0.

    Returns
    -------
    float
        Rounded up to the stable grid (:func:`spec.stable_values.round_up`).

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range.
    UnsupportedCombinationError
        If ε ≥ 1, where the theorem does not apply (use :func:`analytic_gaussian_sigma`).

    References
    ----------
    .. [1] Dwork & Roth, "The algorithmic foundations of differential privacy", 2014,
       Theorem A.1.

    Examples
    --------
    >>> round(classical_gaussian_sigma(0.5, 1e-5, 1.0), 4)
    9.6896
    """
    eps = _check_epsilon(epsilon)
    d = _check_delta(delta)
    delta_f = _check_sensitivity(sensitivity)
    if eps >= 1.0:
        raise UnsupportedCombinationError(
            f"the classical Gaussian calibration needs epsilon < 1 (Dwork & Roth 2014, "
            f"Thm. A.1), got epsilon = {epsilon!r}; use analytic_gaussian_sigma"
        )
    # math.log is libm's (not correctly rounded everywhere): put σ on the stable grid
    return round_up(delta_f * math.sqrt(2.0 * math.log(1.25 / d)) / eps)


def _gaussian_log_profile(log_sigma: float, eps: float, delta_f: float) -> float:
    """log δ(σ) of the Gaussian mechanism, evaluated in log space (Balle & Wang, Thm. 8).

    δ = Φ(a) − e^ε Φ(b) with a = Δ/(2σ) − εσ/Δ and b = −Δ/(2σ) − εσ/Δ, so
    log δ = log Φ(a) + log(1 − exp(ε + log Φ(b) − log Φ(a))).
    """
    sigma = math.exp(log_sigma)
    half, shift = delta_f / (2.0 * sigma), eps * sigma / delta_f
    log_a = float(special.log_ndtr(half - shift))
    log_b = float(special.log_ndtr(-half - shift))
    x = eps + log_b - log_a
    if x >= 0.0:  # only through round-off, when δ underflows
        return -math.inf
    return log_a + (math.log1p(-math.exp(x)) if x > -0.6931 else math.log(-math.expm1(x)))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ for which the Gaussian mechanism is (ε, δ)-DP (analytic calibration).

    Solves δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ for σ, the exact privacy
    profile of Balle & Wang (2018, Thm. 8), by a bracketed root find (Brent) in log σ
    with the profile evaluated in log space (``scipy.special.log_ndtr``).  The root is
    then moved up by as few ulp as needed for ``Gaussian(sigma).privacy_profile(ε, Δ)
    ≤ δ`` to hold in floating point.  Valid for every ε > 0, unlike the classical
    calibration.

    Parameters
    ----------
    epsilon : float
        Target ε > 0 (finite).
    delta : float
        Target δ ∈ (0, 1).
    sensitivity : float
        ℓ2 sensitivity Δ₂ > 0.

    Returns
    -------
    float
        σ with δ(σ) ≤ δ in floating point, rounded up to the stable grid
        (:func:`spec.stable_values.round_up`): within a relative 1e-5 of the smallest such σ.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range, or δ is too small for any finite σ
        (below about 1e-300).

    References
    ----------
    .. [1] Balle & Wang, "Improving the Gaussian mechanism for differential privacy:
       analytical calibration and optimal denoising", ICML 2018, Theorem 8 and
       Algorithm 1.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1e-5, 1.0), 3)
    3.731
    """
    eps = _check_epsilon(epsilon)
    d = _check_delta(delta)
    delta_f = _check_sensitivity(sensitivity)
    log_target = math.log(d)

    def excess(log_sigma: float) -> float:
        return _gaussian_log_profile(log_sigma, eps, delta_f) - log_target

    start = delta_f * math.sqrt(2.0 * math.log(1.25 / d)) / eps
    lo, hi = _bracket_log(excess, start)
    root = optimize.brentq(excess, lo, hi, xtol=_XTOL, rtol=4 * 2.0**-52, maxiter=500)
    sigma = _nudge_up(
        math.exp(root),
        lambda s: Gaussian(sigma=s).privacy_profile(eps, delta_f) <= d,
        "Gaussian sigma",
    )
    return round_up(sigma)


# ----------------------------------------------------------------------------------------
# discrete Gaussian
# ----------------------------------------------------------------------------------------
def zcdp_discrete_gaussian_sigma(rho: float, sensitivity: int) -> float:
    """σ = Δ₂/√(2ρ): the discrete Gaussian N_ℤ(0, σ²) per coordinate is then ρ-zCDP.

    Parameters
    ----------
    rho : float
        Target ρ > 0 (finite).
    sensitivity : int
        Integer ℓ2 sensitivity bound Δ₂ ≥ 1 (any integer vector statistic has an
        integer-valued or smaller ℓ2 sensitivity; pass an integer upper bound).

    Returns
    -------
    float
        The smallest σ (up to a few ulp) with Δ²/(2σ²) ≤ ρ in floating point.

    References
    ----------
    .. [1] Canonne, Kamath & Steinke, NeurIPS 2020 (concentrated DP of the discrete
       Gaussian, scalar and multivariate).

    Examples
    --------
    >>> zcdp_discrete_gaussian_sigma(0.5, 1)
    1.0
    """
    r = _check_epsilon(rho, "rho")
    delta_f = _check_integer_sensitivity(sensitivity)
    return _nudge_up(
        delta_f / math.sqrt(2.0 * r),
        lambda s: delta_f**2 / (2.0 * s**2) <= r,
        "discrete Gaussian sigma",
    )


def _zcdp_rho_for(eps: float, d: float) -> float:
    """The largest ρ (up to round-off, on the safe side) whose zCDP profile has δ(ε) ≤ δ."""

    def excess(log_rho: float) -> float:
        value = ZeroConcentratedDP(rho=math.exp(log_rho)).delta_for_epsilon(eps)
        return math.log(max(value, 1e-320)) - math.log(d)

    # δ(ε) increases with ρ: bracket log ρ with excess(lo) ≤ 0 < excess(hi)
    lo = hi = math.log(eps**2 / (8.0 * math.log(1.0 / d) + 4.0 * eps))
    while excess(lo) > 0.0:
        lo -= math.log(2.0)
    while excess(hi) <= 0.0:
        hi += math.log(2.0)
    root = optimize.brentq(excess, lo, hi, xtol=1e-13, maxiter=500)
    # a smaller ρ keeps the claim: down to the stable grid, then down until it holds
    rho = round_down(math.exp(root))
    for _ in range(_MAX_NUDGES):
        if ZeroConcentratedDP(rho=rho).delta_for_epsilon(eps) <= d:
            return rho
        rho = round_down(rho)
    raise InvalidParameterError(  # pragma: no cover
        f"could not find a safe rho for epsilon={eps!r}, delta={d!r}"
    )


def discrete_gaussian_sigma(
    epsilon: float, delta: float, sensitivity: int, *, dimension: int = 1
) -> float:
    """The smallest σ for which the discrete Gaussian mechanism is (ε, δ)-DP.

    For a scalar statistic the target is the *exact* privacy profile of the discrete
    Gaussian (``DiscreteGaussian(sigma).privacy_profile(ε, Δ)``, CKS 2020 Thm. 7),
    inverted by a bracketed root find in log σ and nudged up until it holds in floating
    point.  For a vector statistic (``dimension > 1``) the exact scalar profile no longer
    applies; σ = Δ₂/√(2ρ) is used with the largest ρ whose ρ-zCDP conversion gives
    δ(ε) ≤ δ (CKS 2020, multivariate zCDP), matching what the mechanism spec verifies.

    Parameters
    ----------
    epsilon : float
        Target ε > 0 (finite).
    delta : float
        Target δ ∈ (0, 1).
    sensitivity : int
        Integer sensitivity Δ ≥ 1 (ℓ2 for vectors).
    dimension : int, optional
        Length of the statistic (default 1).

    Returns
    -------
    float
        Rounded up to the stable grid (:func:`spec.stable_values.round_up`); for vectors
        Δ₂/√(2ρ) with ρ rounded down to it.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range.

    References
    ----------
    .. [1] Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy",
       NeurIPS 2020, Theorem 7 (exact profile) and the multivariate zCDP bound (vectors).

    Examples
    --------
    >>> sigma = discrete_gaussian_sigma(1.0, 1e-5, 1)
    >>> 3.5 < sigma < 3.9
    True
    """
    eps = _check_epsilon(epsilon)
    d = _check_delta(delta)
    delta_f = _check_integer_sensitivity(sensitivity)
    if isinstance(dimension, bool) or not isinstance(dimension, numbers.Integral) or dimension < 1:
        raise InvalidParameterError(f"dimension must be an integer >= 1, got {dimension!r}")
    if dimension > 1:
        return zcdp_discrete_gaussian_sigma(_zcdp_rho_for(eps, d), delta_f)

    log_target = math.log(d)

    def excess(log_sigma: float) -> float:
        value = DiscreteGaussian(sigma=math.exp(log_sigma)).privacy_profile(eps, delta_f)
        return math.log(max(value, 1e-320)) - log_target

    start = analytic_gaussian_sigma(eps, d, delta_f)
    lo, hi = _bracket_log(excess, start)
    root = optimize.brentq(excess, lo, hi, xtol=1e-14, maxiter=500)
    sigma = _nudge_up(
        math.exp(root),
        lambda s: DiscreteGaussian(sigma=s).privacy_profile(eps, delta_f) <= d,
        "discrete Gaussian sigma",
    )
    return round_up(sigma)
