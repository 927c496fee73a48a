"""Linear whitening of correlated continuous outputs before the cell score: for prefix
sums of independent noise, (o − μ)W with W = L⁻ᵀ (L the Cholesky factor of the pooled
covariance) recovers the independent increments.
"""

from __future__ import annotations

import numpy as np

__all__ = ["whitening"]


def whitening(pooled: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(μ, W) with (o − μ)W uncorrelated, W = L⁻ᵀ for the Cholesky factor L of the
    pooled covariance; ``None`` if the covariance is singular or the columns are already
    nearly uncorrelated (largest |correlation| < 0.2)."""
    o = np.asarray(pooled, dtype=np.float64)
    if o.ndim != 2 or o.shape[1] < 2 or not np.all(np.isfinite(o)):
        return None
    mu = o.mean(axis=0)
    cov = np.cov(o, rowvar=False)
    sd = np.sqrt(np.diag(cov))
    if np.any(sd <= 0):
        return None
    corr = cov / np.outer(sd, sd)
    np.fill_diagonal(corr, 0.0)
    if np.max(np.abs(corr)) < 0.2:
        return None
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return None
    w = np.linalg.inv(chol).T
    return mu, w
