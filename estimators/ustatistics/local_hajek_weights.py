"""Lines 11–19 of Algorithm 1: the band level L, the local Hájek weights and Ã_n.

Given the local Hájek projections ĥ(i) and the family mean A_n of a data set of n
records, Algorithm 1 of Chaudhuri, Loh, Pandey & Sarkar (2024) computes

* the band level L — the smallest integer t ≥ 1 with #{i : |ĥ(i) − A_n| > ξ + 6kCt/n} ≤ t
  (line 11; t = n always qualifies);
* the band radius r_L = ξ + 6kCL/n, the good indices |ĥ(i) − A_n| ≤ r_L and the bad ones
  (line 12);
* the weights wt(i) = max{0, 1 − (βn/(6Ck))·dist(ĥ(i) − A_n, [−r_L, r_L])} (line 14, eq. (14),
  Figure A.1): 1 on the band, falling linearly to 0 over an extra width 6kC/(nβ);
* the weighted mean Ã_n = (1/M) Σ_S [w_S h(X_S) + (1 − w_S) A_n] with w_S = min_{i∈S} wt(i)
  (lines 16–19), i.e. Ã_n = A_n + (1/M)[Σ_S w_S h(X_S) − A_n Σ_S w_S].

L is found in O(n log n): with the deviations d_i = |ĥ(i) − A_n| sorted in decreasing
order, at most t of them exceed ξ + 6kCt/n exactly when the (t+1)-th largest does not, so
one sort and one vectorised comparison over t = 1..n give L (:func:`band_levels`, which
also works row-wise on a batch of data sets).

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024 (arXiv 2407.04945), Algorithm 1 lines 11–19, eqs. (14)–(15).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidInputError, SampleSizeError

from ._parameters import check_count, check_epsilon, check_nonnegative, check_positive

__all__ = ["LocalHajekWeights", "band_levels", "local_hajek_weights", "weighted_mean_from_sums"]


@dataclass(frozen=True, slots=True)
class LocalHajekWeights:
    """The band and the weights of Algorithm 1 on one data set (lines 11–14).

    Attributes
    ----------
    level : int
        L, the smallest t ≥ 1 with at most t indices outside the band of radius
        ξ + 6kCt/n.
    band_radius : float
        r_L = ξ + 6kCL/n.
    ramp_slope : float
        βn/(6Ck): how fast a weight falls outside the band.
    deviations : numpy.ndarray, shape (n,)
        d_i = |ĥ(i) − A_n|.
    weights : numpy.ndarray, shape (n,)
        wt(i) ∈ [0, 1].
    good : numpy.ndarray of int
        Indices with d_i ≤ r_L (weight 1).
    bad : numpy.ndarray of int
        The other indices (at most L of them).
    """

    level: int
    band_radius: float
    ramp_slope: float
    deviations: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]
    good: npt.NDArray[np.intp]
    bad: npt.NDArray[np.intp]

    @property
    def all_good(self) -> bool:
        """True when every index is inside the band (then Ã_n = A_n)."""
        return self.bad.size == 0


def band_levels(
    deviations: npt.NDArray[np.float64], xi: float, band_step: float
) -> npt.NDArray[np.int64]:
    """L = min{t ≥ 1 : #{i : d_i > ξ + t·a} ≤ t} for each row of ``deviations``.

    With the deviations of a row sorted in decreasing order, d_(1) ≥ … ≥ d_(n), at most t
    of them exceed ξ + ta exactly when d_(t+1) ≤ ξ + ta (t = n always qualifies), so one
    sort per row (O(n log n)) and one vectorised comparison give L.

    Parameters
    ----------
    deviations : numpy.ndarray, shape (n,) or (B, n)
        d_i = |ĥ(i) − A_n| ≥ 0, one data set per row.
    xi : float
        ξ ≥ 0.
    band_step : float
        a = 6kC/n > 0.

    Returns
    -------
    numpy.ndarray of int, shape () or (B,)
        L ∈ 1..n for each row.
    """
    rows = np.atleast_2d(deviations)
    n = rows.shape[1]
    if n == 1:
        return np.ones(np.shape(deviations)[:-1], dtype=np.int64)
    descending = -np.sort(-rows, axis=1)
    t = np.arange(1, n)
    inside = descending[:, 1:] <= xi + band_step * t  # column t−1 tests level t
    first = np.where(inside.any(axis=1), np.argmax(inside, axis=1) + 1, n)
    levels = first.astype(np.int64)
    return levels.reshape(np.shape(deviations)[:-1])


def local_hajek_weights(
    projections: npt.ArrayLike,
    mean: float,
    *,
    degree: int,
    additive_range: float,
    xi: float,
    beta: float,
) -> LocalHajekWeights:
    """The band level L, the weights wt(i) and the good/bad sets of Algorithm 1.

    Parameters
    ----------
    projections : array_like, shape (n,)
        The local Hájek projections ĥ(i) (eq. (9) or (11) for a family).
    mean : float
        A_n, the family mean of the kernel values.
    degree : int
        Kernel degree k ≤ n.
    additive_range : float
        C > 0, the public additive range of the kernel (sup h − inf h ≤ C).
    xi : float
        The public concentration parameter ξ ≥ 0 (utility only; any data-independent
        value keeps the privacy claim).
    beta : float
        Algorithm 1's ε (> 0): the ramp slope is βn/(6Ck).

    Returns
    -------
    LocalHajekWeights

    Raises
    ------
    InvalidInputError
        If the projections are empty, not one-dimensional or not finite, or ``mean`` is
        not finite.
    InvalidParameterError
        If k > n or another parameter is out of range.

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Algorithm 1 lines 11–14 and eq. (14).

    Examples
    --------
    >>> w = local_hajek_weights([0.5, 0.5, 0.5, 0.9], 0.6, degree=2, additive_range=1.0,
    ...                         xi=0.0, beta=1.0)
    >>> w.level, w.weights.tolist()
    (1, [1.0, 1.0, 1.0, 1.0])
    """
    proj = np.asarray(projections, dtype=np.float64)
    if proj.ndim != 1 or proj.size == 0:
        raise InvalidInputError(
            f"projections must be a non-empty 1-d array, got shape {proj.shape}"
        )
    if not np.all(np.isfinite(proj)):
        bad = int(np.flatnonzero(~np.isfinite(proj))[0])
        raise InvalidInputError(f"projection {bad} is not finite: {proj[bad]!r}")
    centre = float(mean)
    if not np.isfinite(centre):
        raise InvalidInputError(f"the family mean A_n must be finite, got {mean!r}")
    n = proj.size
    k = check_count(degree, "degree k")
    if k > n:
        raise SampleSizeError(f"need n >= k, got n={n}, k={k}")
    c = check_positive(additive_range, "additive range C")
    x = check_nonnegative(xi, "xi")
    b = check_epsilon(beta, "beta")
    step = 6.0 * k * c / n
    deviations = np.abs(proj - centre)
    level = int(band_levels(deviations, x, step))
    radius = x + step * level
    slope = b / step
    weights = np.clip(1.0 - slope * np.maximum(deviations - radius, 0.0), 0.0, 1.0)
    inside = deviations <= radius
    return LocalHajekWeights(
        level=level,
        band_radius=radius,
        ramp_slope=slope,
        deviations=deviations,
        weights=weights,
        good=np.flatnonzero(inside),
        bad=np.flatnonzero(~inside),
    )


def weighted_mean_from_sums(
    mean: float, weighted_kernel_sum: float, weight_sum: float, family_size: float
) -> float:
    """Ã_n = A_n + (Σ_S w_S h(X_S) − A_n Σ_S w_S)/M (Algorithm 1 lines 16–19).

    Parameters
    ----------
    mean : float
        A_n.
    weighted_kernel_sum : float
        Σ_S w_S h(X_S) over the family.
    weight_sum : float
        Σ_S w_S over the family.
    family_size : float
        M = |𝒮| (C(n, k) for all k-subsets; may exceed 2⁵³, so a float is accepted).

    Returns
    -------
    float
    """
    return float(mean + (weighted_kernel_sum - mean * weight_sum) / family_size)
