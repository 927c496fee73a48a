"""ε lower bounds from one event under Poissonised sampling: the exact rate-ratio bound.

With Poisson sample sizes, the counts in a fixed event are independent Poisson variables,
and given their total the count on x is binomial: one exact Clopper–Pearson bound then gives
a (1 − α) lower bound on p_x/p_y, hence on ε (the conditional test of two Poisson means).
For small-probability events it is worth about 2.8 times the samples of the classical
two-bound ε; the auditor picks the larger predicted bound before the test split
(:func:`~privaudit.statistics.allocation.predicted_rate_ratio_epsilon`).  Pure-DP claims only.

References: Przyborowski & Wilenski, Biometrika 1940; Lehmann & Romano 2005, §4.5; Kingman
1993, §2.3; Clopper & Pearson 1934; Wasserman & Zhou 2010.  Details:
``docs/engine_notes.md``, "privaudit.statistics.rate_ratio".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.spec import check_alpha
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics.clopper_pearson import cp_lower

__all__ = ["checked_poisson_means", "rate_ratio_epsilon_lower_bound", "rate_ratio_lower_bound"]


def checked_poisson_means(mean_x: Any, mean_y: Any) -> tuple[np.ndarray, np.ndarray]:
    """The two Poisson means as arrays, refused unless finite and > 0."""
    lx = np.asarray(mean_x, dtype=np.float64)
    ly = np.asarray(mean_y, dtype=np.float64)
    if np.any(~np.isfinite(lx)) or np.any(~np.isfinite(ly)) or np.any(lx <= 0) or np.any(ly <= 0):
        raise InvalidParameterError(
            f"the Poisson means of the sample sizes must be finite and > 0, got "
            f"mean_x={mean_x!r}, mean_y={mean_y!r}"
        )
    return lx, ly


def _finish(a: np.ndarray) -> Any:
    return a[()] if a.ndim == 0 else a


def rate_ratio_lower_bound(
    count_x: npt.ArrayLike,
    count_y: npt.ArrayLike,
    mean_x: npt.ArrayLike,
    mean_y: npt.ArrayLike,
    *,
    alpha: float,
) -> Any:
    """Exact lower confidence bound on p_x / p_y from Poissonised counts, vectorised.

    Parameters
    ----------
    count_x, count_y : int or array of int
        Outputs of M(x) and of M(y) that fell in the event.
    mean_x, mean_y : float or array
        The Poisson means λ_x, λ_y of the two sample sizes (not the sizes drawn).
    alpha : float
        Error probability, in (0, 1), one-sided.

    Returns
    -------
    float or numpy.ndarray
        r̲ with P(p_x / p_y < r̲) ≤ α; 0 when count_x = 0; finite even when
        count_y = 0 (then r̲ = α^{1/m}/(1 − α^{1/m}) · λ_y/λ_x, limited by m = count_x).

    Raises
    ------
    InvalidParameterError
        For negative or non-integer counts, non-positive means or α outside (0, 1).

    Examples
    --------
    >>> round(float(rate_ratio_lower_bound(1100, 1000, 10**6, 10**6, alpha=0.05)), 4)
    1.0228
    """
    a = check_alpha(alpha)
    kx, ky = np.asarray(count_x), np.asarray(count_y)
    if (
        not (np.issubdtype(kx.dtype, np.integer) and np.issubdtype(ky.dtype, np.integer))
        or np.any(kx < 0)
        or np.any(ky < 0)
    ):
        raise InvalidParameterError(
            f"counts must be integers >= 0, got count_x={count_x!r}, count_y={count_y!r}"
        )
    lx, ly = checked_poisson_means(mean_x, mean_y)
    total = kx + ky
    pi_low = np.asarray(cp_lower(kx, np.maximum(total, 1), a), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(pi_low < 1.0, pi_low / (1.0 - pi_low), np.inf) * (ly / lx)
    return _finish(np.where(kx > 0, ratio, 0.0))


def rate_ratio_epsilon_lower_bound(
    count_x: npt.ArrayLike,
    count_y: npt.ArrayLike,
    mean_x: npt.ArrayLike,
    mean_y: npt.ArrayLike,
    *,
    alpha: float,
) -> Any:
    """ε_lb = max(0, ln r̲) of :func:`rate_ratio_lower_bound` (pure DP), vectorised.

    Examples
    --------
    >>> round(float(rate_ratio_epsilon_lower_bound(1100, 1000, 10**6, 10**6,
    ...                                            alpha=0.05)), 4)
    0.0225
    >>> float(rate_ratio_epsilon_lower_bound(900, 1000, 10**6, 10**6, alpha=0.05))
    0.0
    """
    r = np.asarray(rate_ratio_lower_bound(count_x, count_y, mean_x, mean_y, alpha=alpha))
    with np.errstate(divide="ignore"):
        eps = np.where(r > 1.0, np.log(np.where(r > 1.0, r, 1.0)), 0.0)
    return _finish(eps)
