"""Monotone likelihood ratios of ordered bins: weighted isotonic regression
(pool-adjacent-violators) and the bin log-likelihood ratios it gives.

References
----------
.. [1] Robertson, Wright & Dykstra, "Order restricted statistical inference", Wiley
   1988 (pool-adjacent-violators).
"""

from __future__ import annotations

import math

import numpy as np

from privaudit.spec.errors import InvalidInputError

__all__ = ["isotonic", "monotone_llr"]


def isotonic(values: np.ndarray, weights: np.ndarray, *, increasing: bool = True) -> np.ndarray:
    """Weighted least-squares isotonic regression (pool-adjacent-violators)."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if not increasing:
        return -isotonic(-v, w, increasing=True)
    means: list[float] = []
    wts: list[float] = []
    sizes: list[int] = []
    for vi, wi in zip(v.tolist(), w.tolist(), strict=True):
        means.append(vi)
        wts.append(wi)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            wt = wts[-2] + wts[-1]
            m = (
                (means[-2] * wts[-2] + means[-1] * wts[-1]) / wt
                if wt > 0
                else (means[-2] + means[-1]) / 2.0
            )
            size = sizes[-2] + sizes[-1]
            del means[-1], wts[-1], sizes[-1]
            means[-1], wts[-1], sizes[-1] = m, wt, size
    return np.repeat(np.asarray(means), sizes)


def monotone_llr(
    cx: np.ndarray, cy: np.ndarray, n_x: int, n_y: int, smoothing: float
) -> np.ndarray:
    """Bin LLRs under a monotone likelihood ratio: the x-share of each bin (weighted by
    its count) fitted isotonically, up or down, whichever has the larger likelihood."""
    tot = cx + cy
    share = (cx + smoothing) / (tot + 2.0 * smoothing)
    prior = math.log(n_x / n_y)
    best, best_ll = None, -np.inf
    for up in (True, False):
        fit = np.clip(isotonic(share, tot + 1e-9, increasing=up), 1e-12, 1 - 1e-12)
        ll = float(np.sum(cx * np.log(fit) + cy * np.log1p(-fit)))
        if ll > best_ll:
            best, best_ll = fit, ll
    if best is None:  # both log-likelihoods NaN: only from NaN counts
        raise InvalidInputError(f"bin counts must be finite numbers, got {cx!r} and {cy!r}")
    return np.log(best) - np.log1p(-best) - prior
