"""Exact (Clopper–Pearson) binomial confidence bounds, vectorised.

For k successes in n trials, the one-sided lower bound at level α is the α-quantile of
Beta(k, n − k + 1) (0 when k = 0) and the upper bound the (1 − α)-quantile of
Beta(k + 1, n − k) (1 when k = n).  They are exact: P(p < lower) ≤ α for every p.

References
----------
Clopper & Pearson, "The use of confidence or fiducial limits illustrated in the case of
the binomial", Biometrika 26 (1934).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from spec.errors import InvalidParameterError

__all__ = ["BinomialInterval", "clopper_pearson", "cp_lower", "cp_upper"]


def _check(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    k_arr = np.asarray(k)
    n_arr = np.asarray(n)
    if not (np.issubdtype(k_arr.dtype, np.integer) and np.issubdtype(n_arr.dtype, np.integer)):
        raise InvalidParameterError(f"counts must be integers, got k={k!r}, n={n!r}")
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise InvalidParameterError(f"need 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    if not (0.0 < float(alpha) < 1.0):
        raise InvalidParameterError(f"alpha must lie in (0, 1), got {alpha!r}")
    return k_arr.astype(np.float64), n_arr.astype(np.float64)


def cp_lower(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: P(p < bound) ≤ α."""
    kf, nf = _check(k, n, alpha)
    with np.errstate(all="ignore"):
        out = special.betaincinv(kf, nf - kf + 1.0, alpha)
    return np.where(kf == 0, 0.0, out)


def cp_upper(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound: P(p > bound) ≤ α."""
    kf, nf = _check(k, n, alpha)
    with np.errstate(all="ignore"):
        out = special.betaincinv(kf + 1.0, nf - kf, 1.0 - alpha)
    return np.where(kf == nf, 1.0, out)


@dataclass(frozen=True, slots=True)
class BinomialInterval:
    """A two-sided exact interval for a binomial proportion."""

    successes: int
    trials: int
    low: float
    high: float
    confidence: float

    @property
    def estimate(self) -> float:
        """The point estimate k/n."""
        return self.successes / self.trials


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> BinomialInterval:
    """The two-sided Clopper–Pearson interval at the given confidence level.

    Examples
    --------
    >>> ci = clopper_pearson(0, 100, 0.95)
    >>> ci.low, round(ci.high, 4)
    (0.0, 0.0362)
    """
    alpha = 1.0 - float(confidence)
    lo = float(cp_lower(k, n, alpha / 2))
    hi = float(cp_upper(k, n, alpha / 2))
    return BinomialInterval(
        successes=int(k), trials=int(n), low=lo, high=hi, confidence=float(confidence)
    )
