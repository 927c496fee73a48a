"""Analyst entry points: the private median, quantiles, trimmed and winsorised means.

Each validates the data, builds the audited mechanism (:mod:`mechanisms.inverse_sensitivity`,
:mod:`mechanisms.smooth_median`, :mod:`estimators.robust.robust_mean`), charges an optional
budget and returns a :class:`RobustEstimate` (Asi & Duchi, NeurIPS 2020).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.mechanisms.accounting.budget import charge
from privaudit.mechanisms.inverse_sensitivity import (
    inverse_sensitivity_quantile_mechanism,
    inverse_sensitivity_trimmed_mean_mechanism,
    quantile_rank,
)
from privaudit.mechanisms.smooth_median import smooth_median_mechanism
from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError, OutOfDomainError, ParameterTypeError
from privaudit.spec.validation import check_epsilon, real_array

from .._result import PrivateEstimate
from .robust_mean import robust_mean_budget, robust_mean_mechanism, sample_robust_mean

__all__ = [
    "RobustEstimate",
    "private_median",
    "private_quantile",
    "private_robust_mean",
    "private_trimmed_mean",
]

Method = Literal["inverse_sensitivity", "smooth_sensitivity"]


@dataclass(frozen=True, slots=True, repr=False)
class RobustEstimate(PrivateEstimate):
    """A private quantile, trimmed mean or winsorised mean with the claims it was made under.

    Attributes
    ----------
    estimate : float
        The released value.
    spec : MechanismSpec
        The mechanism's spec.
    noise_std : float
        NaN for inverse sensitivity (its spread depends on the data and is not released);
        the smooth-sensitivity noise scale otherwise (**not private**, hidden from
        ``repr``).
    method : str
        ``"inverse_sensitivity"``, ``"smooth_sensitivity"`` or ``"winsorised"``.
    private_range : tuple of float or None
        The private range [a, b] of a winsorised mean (covered by the same ε).
    """

    NON_PRIVATE_INHERITED: ClassVar[tuple[str, ...]] = ("noise_std",)

    method: str
    private_range: tuple[float, float] | None = None


def _data(data: Any, lo: float, hi: float) -> np.ndarray:
    arr = real_array(data, "data", ndim=1)
    if np.any(arr < lo) or np.any(arr > hi):
        bad = arr[(arr < lo) | (arr > hi)][0]
        raise OutOfDomainError(f"records must lie in [{lo!r}, {hi!r}], got {float(bad)!r}")
    return arr


def _bounds(lo: Any, hi: Any) -> tuple[float, float]:
    for label, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ParameterTypeError(f"{label} must be a real number, got {v!r}")
    if not (np.isfinite(float(lo)) and np.isfinite(float(hi)) and float(lo) < float(hi)):
        raise InvalidParameterError(f"need finite bounds lo < hi, got lo={lo!r}, hi={hi!r}")
    return float(lo), float(hi)


def _released_value(mech: Any, arr: np.ndarray, rng: RandomLike, budget: Any) -> float:
    out = mech.release(arr, rng=rng, budget=budget)
    grid = getattr(mech, "grid", None)
    return float(grid[int(out)]) if grid is not None else float(out)


def private_quantile(
    data: Any,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    quantile: float,
    grid: int | Any | None = None,
    rho: float = 0.0,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> RobustEstimate:
    """The ε-DP q-quantile x_(⌈qn⌉) of records in [lo, hi] by inverse sensitivity.

    Parameters
    ----------
    data : array_like, shape (n,)
        The records (n public).
    lo, hi : float
        Public bounds of every record.
    epsilon : float
        ε > 0.
    quantile : float
        q ∈ (0, 1).
    grid : int or array_like, optional
        Release a point of this public grid (see
        :func:`~mechanisms.inverse_sensitivity.inverse_sensitivity_quantile_mechanism`);
        default: a value of [lo, hi].
    rho : float
        Smoothing radius of len_ρ.
    rng : numpy.random.Generator, int or None
    budget : PrivacyBudget, optional
        Charged before any draw.

    Returns
    -------
    RobustEstimate

    Raises
    ------
    NonFiniteInputError, EmptyInputError, OutOfDomainError, EpsilonRangeError,
    InvalidParameterError
        Bad data or parameters.

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020.

    Examples
    --------
    >>> r = private_quantile(np.linspace(0, 1, 101), 0.0, 1.0, 2.0, quantile=0.25, rng=1)
    >>> abs(r.estimate - 0.25) < 0.2
    True
    """
    low, high = _bounds(lo, hi)
    check_epsilon(epsilon)
    arr = _data(data, low, high)
    mech = inverse_sensitivity_quantile_mechanism(
        arr.size, low, high, epsilon, quantile=quantile, grid=grid, rho=rho
    )
    value = _released_value(mech, arr, rng, budget)
    return RobustEstimate(
        estimate=value, spec=mech.spec, noise_std=float("nan"), method="inverse_sensitivity"
    )


def private_median(
    data: Any,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    method: Method = "inverse_sensitivity",
    grid: int | Any | None = None,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> RobustEstimate:
    """The ε-DP median of records in [lo, hi].

    The parameters not listed below are those of :func:`private_quantile`.

    Parameters
    ----------
    method : {"inverse_sensitivity", "smooth_sensitivity"}
        Inverse sensitivity (Asi & Duchi, NeurIPS 2020; lower median for even n) or the
        smooth-sensitivity median with ε-DP inverse-quartic noise (Nissim, Raskhodnikova &
        Smith, STOC 2007, §3.1; n odd).
    grid : int or array_like, optional
        Inverse sensitivity only: a public grid of outputs.

    Returns
    -------
    RobustEstimate

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; Nissim, Raskhodnikova & Smith, STOC 2007, §3.1.
    """
    if method == "inverse_sensitivity":
        return private_quantile(
            data, lo, hi, epsilon, quantile=0.5, grid=grid, rng=rng, budget=budget
        )
    if method != "smooth_sensitivity":
        raise InvalidParameterError(
            f"method must be 'inverse_sensitivity' or 'smooth_sensitivity', got {method!r}"
        )
    if grid is not None:
        raise InvalidParameterError(f"grid applies to inverse sensitivity only, got {grid!r}")
    low, high = _bounds(lo, hi)
    check_epsilon(epsilon)
    arr = _data(data, low, high)
    mech = smooth_median_mechanism(arr.size, low, high, epsilon)
    value = float(mech.release(arr, rng=rng, budget=budget))
    return RobustEstimate(
        estimate=value,
        spec=mech.spec,
        noise_std=float(mech.smooth_sensitivity(arr)),
        method="smooth_sensitivity",
    )


def private_trimmed_mean(
    data: Any,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    trim_fraction: float = 0.1,
    grid: int | Any | None = None,
    rho: float = 0.0,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> RobustEstimate:
    """The ε-DP trimmed mean (⌊trim_fraction·n⌋ records cut on each side) by inverse
    sensitivity.

    The parameters not listed below are those of :func:`private_quantile`.

    Parameters
    ----------
    trim_fraction : float
        In [0, 1/2); a = ⌊trim_fraction·n⌋ with 2a < n.

    Returns
    -------
    RobustEstimate

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020;
       :func:`~mechanisms.inverse_sensitivity.trimmed_mean_path_intervals`.
    """
    if isinstance(trim_fraction, bool) or not isinstance(trim_fraction, numbers.Real):
        raise ParameterTypeError(f"trim_fraction must be a real in [0, 0.5), got {trim_fraction!r}")
    if not 0.0 <= float(trim_fraction) < 0.5:
        raise InvalidParameterError(f"trim_fraction must lie in [0, 0.5), got {trim_fraction!r}")
    low, high = _bounds(lo, hi)
    check_epsilon(epsilon)
    arr = _data(data, low, high)
    trim = min(int(np.floor(float(trim_fraction) * arr.size)), (arr.size - 1) // 2)
    mech = inverse_sensitivity_trimmed_mean_mechanism(
        arr.size, low, high, epsilon, trim=trim, grid=grid, rho=rho
    )
    value = _released_value(mech, arr, rng, budget)
    return RobustEstimate(
        estimate=value, spec=mech.spec, noise_std=float("nan"), method="inverse_sensitivity"
    )


def private_robust_mean(
    data: Any,
    lo: float,
    hi: float,
    epsilon: float,
    *,
    quantiles: tuple[float, float] = (0.1, 0.9),
    range_share: float = 0.5,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> RobustEstimate:
    """The ε-DP mean winsorised to a private quantile range (two-stage, composed).

    The parameters not listed below are those of :func:`private_quantile`.

    Parameters
    ----------
    quantiles : (float, float)
        The quantile levels of the range.
    range_share : float
        ε₁/ε spent on the range.

    Returns
    -------
    RobustEstimate
        ``private_range`` holds [a, b]; ``noise_std`` the Laplace std √2 (b − a)/(n ε₂)
        (private: a function of the private range).

    References
    ----------
    .. [1] Asi & Duchi, NeurIPS 2020; Dwork & Roth 2014, Thm. 3.16.

    Examples
    --------
    >>> x = np.concatenate([np.full(90, 0.3), np.full(10, 1.0)])
    >>> r = private_robust_mean(x, 0.0, 1.0, 1.0, rng=3)
    >>> r.private_range[0] <= r.private_range[1]
    True
    """
    low, high = _bounds(lo, hi)
    eps = check_epsilon(epsilon)
    arr = _data(data, low, high)
    mech = robust_mean_mechanism(
        arr.size, low, high, eps, quantiles=quantiles, range_share=range_share
    )
    charge(budget, mech.spec, estimator=mech.spec.name)
    ranks = (quantile_rank(arr.size, quantiles[0]), quantile_rank(arr.size, quantiles[1]))
    epsilons = robust_mean_budget(eps, range_share)
    a, b, mean = sample_robust_mean(np.sort(arr), low, high, ranks, epsilons, 1, as_generator(rng))
    std = float(np.sqrt(2.0) * (b[0] - a[0]) / (arr.size * epsilons[2]))
    return RobustEstimate(
        estimate=float(mean[0]),
        spec=mech.spec,
        noise_std=std,
        method="winsorised",
        private_range=(float(a[0]), float(b[0])),
    )
