"""The smooth sensitivity of Algorithm 1: the paper's box formula and the rigorous bound.

Algorithm 1 of Chaudhuri, Loh, Pandey & Sarkar (2024) adds noise scaled to

    S(X) = max_{ℓ = 0..n} e^{−βℓ} · G(min(L_X + ℓ, n)),

where L_X is the band level of the local Hájek weights (line 11) and G(L) bounds the
local sensitivity of the weighted statistic Ã_n on every input whose level is L.  Because
G is non-decreasing and |L_X − L_X′| ≤ 1 on neighbours (which needs the family checks
(10)/(17)), S is a β-smooth upper bound on LS(Ã_n) whenever LS(X) ≤ G(L_X) (Lemma A.18).
Replacing L + ℓ by min(L + ℓ, n) keeps the maximum finite and exact (L_X ≤ n always).

Two choices of G are provided (``docs/derivations.md`` §3):

* :func:`local_sensitivity_bound_paper` — eq. (A.57) with "constant prefactor 1",
  g(L) = (k/n)(ξ + kCL/n)(1 + βL) + k²CL²·min(k, L)/n².  **Not** a valid bound on LS:
  exact enumeration finds LS(X) up to several times S(X) (docs/derivations.md §3, and
  ``docs/ustat_sensitivity_check.md``).  For reproduction only.
* :func:`local_sensitivity_bound_rigorous` — G_rig of docs/derivations.md §3, rebuilt from Lemmas
  A.12–A.17 with explicit constants under the checks M_i/M ≤ 3k/n and M_ij/M_i ≤ 3k/n, for any
  family with ρ1 = max_i M_i/M and ρ2 = max_{i≠j} M_ij/M_i.

Here β is Algorithm 1's own parameter ε (the smoothness, the ramp slope εn/(6Ck) and the
noise divisor); how it relates to the privacy claim is decided by the estimator
(:mod:`estimators.ustatistics.private_mean`).  The maximum over ℓ is one vectorised pass
in log space (O(n)).

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024 (arXiv 2407.04945), Algorithm 1 line 20, eq. (A.57), Lemmas A.12–A.18.
.. [2] ``docs/derivations.md`` §3 (why paper mode is unproven; the rigorous bound G_rig).
.. [3] Nissim, Raskhodnikova & Smith, STOC 2007, Definition 2.1 (β-smooth upper bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidParameterError, SampleSizeError

from ._parameters import check_count, check_epsilon, check_nonnegative, check_positive

__all__ = [
    "FamilyOverlap",
    "all_tuples_overlap",
    "local_sensitivity_bound_paper",
    "local_sensitivity_bound_rigorous",
    "smooth_maximum",
    "smooth_sensitivity_paper",
    "smooth_sensitivity_rigorous",
    "smooth_sensitivity_table",
]


@dataclass(frozen=True, slots=True)
class FamilyOverlap:
    """The two overlap fractions of a family of k-subsets that the rigorous bound uses.

    Attributes
    ----------
    member_fraction : float
        ρ1 = max_i M_i/M (all-tuples: k/n).
    pair_ratio : float
        ρ2 = max_{i≠j} M_ij/M_i (all-tuples: (k−1)/(n−1); 0 when k = 1).
    """

    member_fraction: float
    pair_ratio: float


def all_tuples_overlap(n: int, degree: int) -> FamilyOverlap:
    """ρ1 = k/n and ρ2 = (k−1)/(n−1) of the family of all k-subsets of [n]
    (Chaudhuri et al. 2024, Section 3).

    Examples
    --------
    >>> all_tuples_overlap(10, 2)
    FamilyOverlap(member_fraction=0.2, pair_ratio=0.1111111111111111)
    """
    n_, k = _size_and_degree(n, degree)
    return FamilyOverlap(member_fraction=k / n_, pair_ratio=(k - 1) / (n_ - 1) if k > 1 else 0.0)


def _size_and_degree(n: int, degree: int) -> tuple[int, int]:
    k = check_count(degree, "degree k")
    size = check_count(n, "n")
    if size < k:
        raise SampleSizeError(f"need n >= k, got n={size}, k={k}")
    return size, k


def _levels(levels: npt.ArrayLike, n: int) -> npt.NDArray[np.float64]:
    arr = np.asarray(levels, dtype=np.float64)
    if arr.size and (
        not np.all(np.isfinite(arr))
        or arr.min() < 1
        or arr.max() > n
        or not np.all(arr == np.round(arr))
    ):
        raise InvalidParameterError(f"levels L must be integers in 1..n={n}, got {levels!r}")
    return arr


def local_sensitivity_bound_paper(
    levels: npt.ArrayLike, *, n: int, degree: int, additive_range: float, xi: float, beta: float
) -> npt.NDArray[np.float64]:
    """The paper's g(L) (Algorithm 1 line 20 / eq. (A.57) with prefactor 1), vectorised.

    g(L) = (k/n)·(ξ + kCL/n)·(1 + βL) + k²·C·L²·min(k, L)/n².

    This is the box formula *as printed*; the (ε + k/n) factor of Lemma A.18 is absent
    (the larger value).  It is not a valid bound on the local sensitivity (docs/derivations.md §3).

    Parameters
    ----------
    levels : array_like of int
        Band levels L ∈ 1..n.
    n : int
        Number of records (the chunk size inside Wrapper 1).
    degree : int
        Kernel degree k ≤ n.
    additive_range : float
        C > 0 with sup h − inf h ≤ C.
    xi : float
        The concentration parameter ξ ≥ 0.
    beta : float
        Algorithm 1's ε (> 0).

    Returns
    -------
    numpy.ndarray
        g at each level, same shape as ``levels``.

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Algorithm 1 line 20 and eq. (A.57).
    """
    size, k = _size_and_degree(n, degree)
    c = check_positive(additive_range, "additive range C")
    x = check_nonnegative(xi, "xi")
    b = check_epsilon(beta, "beta")
    level = _levels(levels, size)
    return (k / size) * (x + k * c * level / size) * (
        1.0 + b * level
    ) + k * k * c * level**2 * np.minimum(k, level) / size**2


def local_sensitivity_bound_rigorous(
    levels: npt.ArrayLike,
    *,
    n: int,
    degree: int,
    additive_range: float,
    xi: float,
    beta: float,
    overlap: FamilyOverlap | None = None,
) -> npt.NDArray[np.float64]:
    """G_rig(L) of ``docs/derivations.md`` §3: LS(Ã_n)(X) ≤ G_rig(L_X), vectorised over L.

    With a = 6kC/n, s = β/a (the ramp slope), D_A = Cρ1 (bound on |A_n − A′_n|),
    D_x = C(ρ1 + ρ2) (bound on the move of ĥ(i) − A_n for i ≠ i*), η = min{1, s(D_x + a)}
    (bound on a weight change), r(L) = ξ + aL and B(L) = 2L + 1 (bound on
    |(Bad ∪ Bad′) \\ {i*}|)::

        Γ(L)   = r(L) + a/(4β) + ρ2·C·L
        B_g(L) = (1 + s·r(L+1))·(D_x + a) + ρ2·[B(L)·(D_A + 2Cη) + 2C]
        P(L)   = min{B_g(L) + D_A + ρ2·C, D_A + η·C}
        G(L)   = min{C, B(L)·ρ1·P(L) + ½B(L)(B(L)−1)·ρ1ρ2·(D_A + ηC)
                        + ρ1·min{C, Γ(L) + Γ(L+1) + D_A}}

    G is non-decreasing in L.

    Parameters
    ----------
    levels : array_like of int
        Band levels L ∈ 1..n.
    n, degree, additive_range, xi, beta
        As in :func:`local_sensitivity_bound_paper`.
    overlap : FamilyOverlap, optional
        ρ1, ρ2 of the family (default: all k-subsets, :func:`all_tuples_overlap`).  The
        family must pass the checks of Algorithm 1 line 4 (ρ1 ≤ 3k/n, ρ2 ≤ 3k/n), which
        give D_x ≤ a, hence |L − L′| ≤ 1.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range or the overlaps break the checks (ρ1 > 3k/n or
        ρ2 > 3k/n).

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Lemmas A.12–A.17 (constants made explicit).
    .. [2] ``docs/derivations.md`` §3.
    """
    size, k = _size_and_degree(n, degree)
    c = check_positive(additive_range, "additive range C")
    x = check_nonnegative(xi, "xi")
    b = check_epsilon(beta, "beta")
    ov = overlap if overlap is not None else all_tuples_overlap(size, k)
    rho1, rho2 = _checked_overlap(ov, size, k)
    level = _levels(levels, size)
    a = 6.0 * k * c / size
    s = b / a
    d_a = c * rho1
    d_x = c * (rho1 + rho2)
    eta = min(1.0, s * (d_x + a))
    bad = 2.0 * level + 1.0

    def radius(lv: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return x + a * lv

    def gamma(lv: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return radius(lv) + a / (4.0 * b) + rho2 * c * lv

    b_g = (1.0 + s * radius(level + 1.0)) * (d_x + a) + rho2 * (
        bad * (d_a + 2.0 * c * eta) + 2.0 * c
    )
    per_bad = np.minimum(b_g + d_a + rho2 * c, d_a + eta * c)
    changed = np.minimum(c, gamma(level) + gamma(level + 1.0) + d_a)
    total = (
        bad * rho1 * per_bad
        + 0.5 * bad * (bad - 1.0) * rho1 * rho2 * (d_a + eta * c)
        + rho1 * changed
    )
    return np.minimum(c, total)


def _checked_overlap(overlap: FamilyOverlap, n: int, k: int) -> tuple[float, float]:
    rho1 = check_positive(overlap.member_fraction, "member fraction rho1")
    rho2 = check_nonnegative(overlap.pair_ratio, "pair ratio rho2")
    limit = 3.0 * k / n
    tol = 1e-12 * limit
    if rho1 > limit + tol or rho2 > limit + tol:
        raise InvalidParameterError(
            f"the family fails the checks of Algorithm 1 (rho1 = {rho1:.6g} and rho2 = "
            f"{rho2:.6g} must be <= 3k/n = {limit:.6g}); the rigorous bound needs them"
        )
    if k == 1 and rho2 != 0.0:
        raise InvalidParameterError(f"rho2 must be 0 for k = 1, got {rho2!r}")
    return rho1, rho2


def smooth_maximum(bound_at_level: npt.NDArray[np.float64], level: int, beta: float) -> float:
    """max_{ℓ = 0..n} e^{−βℓ} G(min(L + ℓ, n)) from the table G(1..n), in log space.

    Parameters
    ----------
    bound_at_level : numpy.ndarray, shape (n,)
        G(1), …, G(n) (positive).
    level : int
        L ∈ 1..n.
    beta : float
        β > 0.

    Returns
    -------
    float
    """
    n = bound_at_level.shape[0]
    lv = check_count(level, "level L")
    if lv > n:
        raise InvalidParameterError(f"level L must be <= n = {n}, got {level!r}")
    b = check_epsilon(beta, "beta")
    shifts = np.arange(n + 1, dtype=np.float64)
    index = np.minimum(lv + np.arange(n + 1), n) - 1
    with np.errstate(divide="ignore"):
        logs = np.log(bound_at_level[index]) - b * shifts
    return float(math.exp(float(np.max(logs))))


def smooth_sensitivity_table(
    bound_at_level: npt.NDArray[np.float64], beta: float
) -> npt.NDArray[np.float64]:
    """S(L) = max_{ℓ=0..n} e^{−βℓ} G(min(L + ℓ, n)) for every L = 1..n at once, in O(n).

    With j = min(L + ℓ, n), S(L) = e^{βL}·max_{j ≥ L} e^{−βj} G(j) (the terms with L + ℓ > n
    repeat G(n) with a smaller factor), so a reversed running maximum of log G(j) − βj
    gives the whole table; a data set's smooth sensitivity is then ``table[L − 1]``.

    Parameters
    ----------
    bound_at_level : numpy.ndarray, shape (n,)
        G(1), …, G(n) (positive).
    beta : float
        β > 0.

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    b = check_epsilon(beta, "beta")
    g = np.asarray(bound_at_level, dtype=np.float64)
    if g.ndim != 1 or g.size == 0 or not np.all(g > 0) or not np.all(np.isfinite(g)):
        raise InvalidParameterError(
            "the table G(1..n) must be a non-empty 1-d array of finite positive numbers"
        )
    levels = np.arange(1, g.size + 1, dtype=np.float64)
    tilted = np.log(g) - b * levels
    best = np.maximum.accumulate(tilted[::-1])[::-1]
    return np.exp(best + b * levels)


def _smooth(
    bound_fn: Callable[..., npt.NDArray[np.float64]],
    level: int,
    n: int,
    beta: float,
    **kwargs: object,
) -> float:
    size = check_count(n, "n")
    lv = check_count(level, "level L")
    if lv > size:
        raise InvalidParameterError(f"level L must be in 1..n = {size}, got {level!r}")
    table = bound_fn(np.arange(1, size + 1), n=size, beta=beta, **kwargs)
    return smooth_maximum(table, lv, beta)


def smooth_sensitivity_paper(
    level: int, *, n: int, degree: int, additive_range: float, xi: float, beta: float
) -> float:
    """S_paper(X) = max_{ℓ=0..n} e^{−βℓ} g(min(L_X + ℓ, n)) (Algorithm 1 line 20, eq. (A.57)).

    Reproduction only: g is not a bound on the local sensitivity (``docs/derivations.md`` §3),
    so this S is not a β-smooth upper bound and the release built on it has no proof.

    Parameters
    ----------
    level : int
        L_X ∈ 1..n (:attr:`LocalHajekWeights.level`).
    n, degree, additive_range, xi, beta
        As in :func:`local_sensitivity_bound_paper`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(smooth_sensitivity_paper(1, n=100, degree=2, additive_range=1.0, xi=0.05,
    ...                                beta=1.0), 6)
    0.0032
    """
    return _smooth(
        local_sensitivity_bound_paper,
        level,
        n,
        beta,
        degree=degree,
        additive_range=additive_range,
        xi=xi,
    )


def smooth_sensitivity_rigorous(
    level: int,
    *,
    n: int,
    degree: int,
    additive_range: float,
    xi: float,
    beta: float,
    overlap: FamilyOverlap | None = None,
) -> float:
    """S_rig(X) = max_{ℓ=0..n} e^{−βℓ} G_rig(min(L_X + ℓ, n)) (``docs/derivations.md`` §3).

    A β-smooth upper bound on the local sensitivity of Ã_n for any family passing the
    checks of Algorithm 1 (ρ1, ρ2 from ``overlap``; all k-subsets by default).

    Parameters
    ----------
    level : int
        L_X ∈ 1..n.
    n, degree, additive_range, xi, beta, overlap
        As in :func:`local_sensitivity_bound_rigorous`.

    Returns
    -------
    float

    References
    ----------
    .. [1] Chaudhuri et al. 2024, Lemma A.18 (smoothing over ℓ); ``docs/derivations.md`` §3.

    Examples
    --------
    >>> s = smooth_sensitivity_rigorous(1, n=2000, degree=2, additive_range=1.0, xi=0.02,
    ...                                 beta=1.0)
    >>> 1e-4 < s < 1e-3
    True
    """
    return _smooth(
        local_sensitivity_bound_rigorous,
        level,
        n,
        beta,
        degree=degree,
        additive_range=additive_range,
        xi=xi,
        overlap=overlap,
    )
