"""L2-regularised logistic regression fitted by Newton's method (IRLS), in numpy.

Used to learn a distinguishing score for multi-dimensional continuous outputs whose
densities are not declared (DP-Sniper's idea, Bichsel et al. 2021, with a linear model on
fixed features instead of a neural network).  Only the search split is ever used to fit.

References
----------
.. [1] Bichsel, Steffen, Bogunovic & Vechev, "DP-Sniper: black-box discovery of
   differential privacy violations using classifiers", IEEE S&P 2021.
.. [2] Hastie, Tibshirani & Friedman, "The elements of statistical learning", 2nd ed.,
   Springer 2009, Section 4.4.1 (iteratively reweighted least squares).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from spec.errors import InvalidParameterError

__all__ = ["fit_logistic"]


def fit_logistic(features: np.ndarray, labels: np.ndarray, *, l2: float = 1.0,
                 max_iter: int = 50, tol: float = 1e-8) -> tuple[np.ndarray, float]:
    """Maximise Σ log-likelihood − (l2/2)‖w‖² over (w, b) by damped Newton steps.

    Parameters
    ----------
    features : array, shape (n, p)
        The design matrix (standardise it first; the intercept is added here and not
        penalised).
    labels : array, shape (n,)
        0/1 labels.
    l2 : float
        Ridge penalty > 0 (keeps the fit finite on separable data).
    max_iter : int
        Newton iterations at most.
    tol : float
        Stop when the largest |step| is below ``tol``.

    Returns
    -------
    weights : numpy.ndarray, shape (p,)
    bias : float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = np.r_[rng.normal(1, 1, 500), rng.normal(-1, 1, 500)][:, None]
    >>> w, b = fit_logistic(z, np.r_[np.ones(500), np.zeros(500)])
    >>> bool(w[0] > 1.0)
    True
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise InvalidParameterError(f"need features (n, p) and labels (n,), got {x.shape}, {y.shape}")
    if not l2 > 0:
        raise InvalidParameterError(f"l2 must be > 0, got {l2!r}")
    n, p = x.shape
    design = np.hstack([np.ones((n, 1)), x])
    penalty = np.full(p + 1, float(l2))
    penalty[0] = 1e-8 * n                                   # intercept: (almost) free
    theta = np.zeros(p + 1)

    def objective(t: np.ndarray) -> float:
        z = design @ t
        return float(np.sum(y * z - np.logaddexp(0.0, z)) - 0.5 * np.sum(penalty * t * t))

    current = objective(theta)
    for _ in range(max_iter):
        z = design @ theta
        prob = special.expit(z)
        grad = design.T @ (y - prob) - penalty * theta
        weight = prob * (1.0 - prob)
        hess = (design * weight[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while scale > 1e-6:                                  # damping keeps ascent monotone
            candidate = objective(theta + scale * step)
            if candidate >= current - 1e-12:
                break
            scale *= 0.5
        theta = theta + scale * step
        current = objective(theta)
        if np.max(np.abs(scale * step)) < tol:
            break
    return theta[1:], float(theta[0])
