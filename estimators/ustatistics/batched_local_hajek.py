"""Algorithm 1's statistic on an explicit family of index tuples, for a batch of data sets.

When the family 𝒮 is given as an explicit array of M index tuples (a subsampled family,
the naive blocks, or all k-subsets of a small n), Algorithm 1 lines 7–19 are matrix
algebra on the kernel values h(X_S), S ∈ 𝒮:

* A_n = (1/M) Σ_S h(X_S) and ĥ(i) = (1/M_i) Σ_{S∋i} h(X_S) (eq. (11)) through the sparse
  M×n incidence matrix of the family;
* the band level L, the weights wt(i) (:mod:`.local_hajek_weights`);
* w_S = min_{i∈S} wt(i) and Ã_n = A_n + (1/M) Σ_S w_S (h(X_S) − A_n).

Everything is vectorised over a batch of B kernel-value vectors at once, which is what
the exhaustive neighbour enumeration of the sensitivity check and the sampler of the
sub-Gaussian pipeline (whose kernel is clipped around a noisy centre that changes with
every draw) need.  Memory is O(B·M·k).

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024, Algorithm 1 lines 1–19, eq. (11).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from privaudit.spec.errors import InvalidInputError, InvalidParameterError, SampleSizeError

from ._parameters import check_count, check_epsilon, check_nonnegative, check_positive
from .local_hajek_weights import band_levels
from .smooth_bounds import FamilyOverlap

__all__ = [
    "BatchedLocalHajek",
    "TupleFamily",
    "all_index_tuples",
    "batched_local_hajek",
    "tuple_family",
]

#: Largest number of tuples :func:`all_index_tuples` materialises.
MAX_ENUMERATED_TUPLES = 5_000_000


@dataclass(frozen=True, eq=False)
class TupleFamily:
    """An explicit family of k-subsets of [n] (a multiset of rows) and its incidence.

    Attributes
    ----------
    tuples : numpy.ndarray of int, shape (M, k)
        The index tuples (distinct indices within a row).
    n : int
        Number of records.
    member_counts : numpy.ndarray of int, shape (n,)
        M_i = #{S ∈ 𝒮 : i ∈ S}.
    incidence : scipy.sparse.csr_array, shape (M, n)
        1 where record i belongs to tuple S.
    """

    tuples: npt.NDArray[np.int64]
    n: int
    member_counts: npt.NDArray[np.int64]
    incidence: sp.csr_array

    @property
    def size(self) -> int:
        """M, the number of tuples (with multiplicity)."""
        return int(self.tuples.shape[0])

    @property
    def degree(self) -> int:
        """k, the tuple length."""
        return int(self.tuples.shape[1])

    def overlap(self) -> FamilyOverlap:
        """ρ1 = max_i M_i/M and ρ2 = max_{i≠j} M_ij/M_i, computed exactly (ρ2 = 0 for k = 1).

        M_ij comes from the sparse product IᵀI of the incidence matrix (O(Mk²) work).
        """
        rho1 = float(self.member_counts.max()) / self.size
        if self.degree == 1:
            return FamilyOverlap(member_fraction=rho1, pair_ratio=0.0)
        co = sp.coo_array(self.incidence.T @ self.incidence)
        off = co.row != co.col
        ratios = co.data[off] / self.member_counts[co.row[off]]
        return FamilyOverlap(
            member_fraction=rho1, pair_ratio=float(ratios.max()) if ratios.size else 0.0
        )

    def check(self) -> None:
        """Raise unless the family passes the checks of Algorithm 1 line 4 / eq. (17).

        For all i ≠ j: M_i ≠ 0 (guaranteed at construction), M_i/M ≤ 3k/n and
        M_ij/M_i ≤ 3k/n, compared in exact integer arithmetic (M_i·n ≤ 3k·M and
        M_ij·n ≤ 3k·M_i).  The checks depend on the family only, never on data.

        Raises
        ------
        InvalidParameterError
            Naming the failing ratio (Algorithm 1 would return ⊥).
        """
        n, k, m = self.n, self.degree, self.size
        counts = self.member_counts
        worst_pair = 0
        fails_pairs = False
        if k > 1:
            co = sp.coo_array(self.incidence.T @ self.incidence)
            off = co.row != co.col
            pair = np.rint(co.data[off]).astype(np.int64)
            fails_pairs = bool((pair * n > 3 * k * counts[co.row[off]]).any())
            worst_pair = int(pair.max()) if pair.size else 0
        if bool((counts * n > 3 * k * m).any()) or fails_pairs:
            ov = self.overlap()
            raise InvalidParameterError(
                f"the family of {m} tuples fails the checks of Algorithm 1: max M_i/M = "
                f"{ov.member_fraction:.6g} and max M_ij/M_i = {ov.pair_ratio:.6g} (largest "
                f"M_ij = {worst_pair}) must be <= 3k/n = {3 * k / n:.6g}; Algorithm 1 would "
                "return bottom, so draw another family"
            )


def tuple_family(tuples: npt.ArrayLike, n: int) -> TupleFamily:
    """Wrap an (M, k) array of index tuples into a :class:`TupleFamily`.

    Raises
    ------
    InvalidParameterError
        If the array is not (M, k) with M ≥ 1, has an index outside 0..n−1, or repeats an
        index within a tuple, or some record belongs to no tuple (M_i = 0: line 4 of
        Algorithm 1 would return ⊥).
    """
    size = check_count(n, "n")
    arr = np.asarray(tuples)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1 or arr.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"tuples must be a non-empty integer array of shape (M, k), got shape "
            f"{arr.shape} and dtype {arr.dtype}"
        )
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= size:
        raise InvalidParameterError(
            f"tuple indices must lie in 0..{size - 1}, got {int(arr.min())}..{int(arr.max())}"
        )
    if arr.shape[1] > 1 and (np.diff(np.sort(arr, axis=1), axis=1) == 0).any():
        row = int(np.argmax((np.diff(np.sort(arr, axis=1), axis=1) == 0).any(axis=1)))
        raise InvalidParameterError(f"tuple {tuple(arr[row].tolist())} repeats an index")
    counts = np.bincount(arr.ravel(), minlength=size).astype(np.int64)
    if (counts == 0).any():
        raise InvalidParameterError(
            f"record {int(np.argmin(counts))} belongs to no tuple of the family (M_i = 0); "
            "Algorithm 1 would return bottom"
        )
    m, k = arr.shape
    incidence = sp.csr_array(
        (np.ones(m * k), (np.repeat(np.arange(m), k), arr.ravel())), shape=(m, size)
    )
    arr.setflags(write=False)
    counts.setflags(write=False)
    return TupleFamily(tuples=arr, n=size, member_counts=counts, incidence=incidence)


def all_index_tuples(n: int, degree: int) -> npt.NDArray[np.int64]:
    """Every k-subset of [n] as a sorted row, in lexicographic order (C(n, k) rows).

    Raises
    ------
    InvalidParameterError
        If k > n or C(n, k) exceeds :data:`MAX_ENUMERATED_TUPLES`.
    """
    size, k = check_count(n, "n"), check_count(degree, "degree k")
    if k > size:
        raise SampleSizeError(f"need n >= k, got n={size}, k={k}")
    count = math.comb(size, k)
    if count > MAX_ENUMERATED_TUPLES:
        raise InvalidParameterError(
            f"C({size}, {k}) = {count} tuples exceed {MAX_ENUMERATED_TUPLES}; use the "
            "all-tuples path of local_hajek_statistic instead"
        )
    flat = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(size), k)),
        dtype=np.int64,
        count=count * k,
    )
    return flat.reshape(count, k)


@dataclass(frozen=True, slots=True)
class BatchedLocalHajek:
    """Algorithm 1's statistic on B data sets sharing one explicit family.

    Attributes
    ----------
    means : numpy.ndarray, shape (B,)
        A_n per data set.
    projections : numpy.ndarray, shape (B, n)
        ĥ(i) per data set.
    levels : numpy.ndarray of int, shape (B,)
        The band level L per data set.
    weights : numpy.ndarray, shape (B, n)
        wt(i) per data set.
    weighted_means : numpy.ndarray, shape (B,)
        Ã_n per data set.
    """

    means: npt.NDArray[np.float64]
    projections: npt.NDArray[np.float64]
    levels: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float64]
    weighted_means: npt.NDArray[np.float64]


def batched_local_hajek(
    values: npt.ArrayLike, family: TupleFamily, *, additive_range: float, xi: float, beta: float
) -> BatchedLocalHajek:
    """Lines 7–19 of Algorithm 1 for each row of ``values`` (kernel values on ``family``).

    Parameters
    ----------
    values : array_like, shape (M,) or (B, M)
        h(X_S) for the rows S of ``family.tuples``, one data set per row.
    family : TupleFamily
        The family (n and k are read from it).
    additive_range : float
        C > 0.
    xi : float
        ξ ≥ 0.
    beta : float
        Algorithm 1's ε (> 0).

    Returns
    -------
    BatchedLocalHajek
        Arrays with a leading batch axis (B = 1 for one-dimensional ``values``).

    Raises
    ------
    InvalidInputError
        If ``values`` does not have M columns or holds a NaN or infinite value.
    """
    vals = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if vals.ndim != 2 or vals.shape[1] != family.size:
        raise InvalidInputError(
            f"values must have {family.size} columns (one per tuple), got shape {vals.shape}"
        )
    if not np.all(np.isfinite(vals)):
        raise InvalidInputError("kernel values must be finite")
    c = check_positive(additive_range, "additive range C")
    x = check_nonnegative(xi, "xi")
    b = check_epsilon(beta, "beta")
    n, k = family.n, family.degree
    means = vals.mean(axis=1)
    sums = np.asarray(family.incidence.T @ vals.T).T  # (B, n)
    projections = sums / family.member_counts
    step = 6.0 * k * c / n
    deviations = np.abs(projections - means[:, None])
    levels = np.atleast_1d(band_levels(deviations, x, step))
    radius = x + step * levels
    weights = np.clip(1.0 - (b / step) * np.maximum(deviations - radius[:, None], 0.0), 0.0, 1.0)
    tuple_weights = weights[:, family.tuples].min(axis=2)  # (B, M)
    weighted = means + (tuple_weights * (vals - means[:, None])).mean(axis=1)
    all_good = (deviations <= radius[:, None]).all(axis=1)
    weighted = np.where(all_good, means, weighted)
    return BatchedLocalHajek(
        means=means,
        projections=projections,
        levels=levels,
        weights=weights,
        weighted_means=weighted,
    )
