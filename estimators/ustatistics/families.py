"""Families 𝒮 of k-subsets of [n], their membership counts and the checks of Algorithm 1.

For a family 𝒮 (a multiset of k-subsets) with M = |𝒮| (Chaudhuri et al. 2024, Section 3, eq. (11)):
M_i = |{S ∈ 𝒮 : i ∈ S}|, M_ij = |{S ∈ 𝒮 : i, j ∈ S}|,
A_n(𝒮) = (1/M) Σ_{S∈𝒮} h(X_S) and ĥ_𝒮(i) = (1/M_i) Σ_{S∈𝒮_i} h(X_S) (eq. 11).

Three kinds: all tuples (Definition 1; implicit, never materialised), the naive disjoint
blocks, and the subsampled family (Definition 2: M i.i.d. uniform k-subsets, *with*
replacement).  Algorithm 1 needs the checks (10)/(17): for all i ≠ j, M_i ≠ 0,
M_i/M ≤ 3k/n and M_ij/M_i ≤ 3k/n (M_ij := 0 for k = 1).  The family is drawn without
looking at the data, so re-drawing it until the checks pass costs no privacy.

References
----------
Chaudhuri, Loh, Pandey & Sarkar (2024), Definitions 1–2, eqs. (10), (11), (17), (A.31),
Lemmas A.7, A.8, A.11.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, cast

import numpy as np
import scipy.sparse as sp

from privaudit.spec import RandomLike, as_generator, check_alpha
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, SampleSizeError

from .exact import _check_weights, local_hajek_projections, min_weight_tuple_sum, weighted_tuple_sum
from .kernels import Kernel

__all__ = [
    "FamilyCheckResult",
    "FamilyProjections",
    "SubsetFamily",
    "default_subsample_size",
    "family_min_weight_sum",
    "family_projections",
    "family_weighted_sum",
]

FamilyKind = Literal["all_tuples", "naive_blocks", "subsampled"]
_CHUNK = 1 << 20


def _check_int(value: Any, label: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidParameterError(f"{label} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_n_k(n: Any, k: Any) -> tuple[int, int]:
    n, k = _check_int(n, "n", 1), _check_int(k, "k", 1)
    if k > n:
        raise SampleSizeError(f"subsets of size k={k} need n >= k, got n={n}")
    return n, k


@dataclass(frozen=True, slots=True)
class FamilyCheckResult:
    """Outcome of the checks (10)/(17) on a family.

    Attributes
    ----------
    passed : bool
        All three conditions hold.
    failed_condition : str or None
        The first condition that failed: ``"member_count_zero"`` (some M_i = 0),
        ``"member_fraction"`` (some M_i/M > 3k/n) or ``"pair_ratio"`` (some M_ij/M_i > 3k/n).
    offending_index : int or None
        An index i at which that condition fails.
    min_member_count : int
        min_i M_i.
    max_member_fraction : float
        ρ1 = max_i M_i/M.
    max_pair_ratio : float
        ρ2 = max_{i≠j} M_ij/M_i over i with M_i > 0 (0 for k = 1).
    threshold : float
        3k/n.
    """

    passed: bool
    failed_condition: str | None
    offending_index: int | None
    min_member_count: int
    max_member_fraction: float
    max_pair_ratio: float
    threshold: float


@dataclass(frozen=True, eq=False)
class SubsetFamily:
    """A multiset 𝒮 of k-subsets of {0, …, n−1}.

    Attributes
    ----------
    n : int
        Number of records.
    degree : int
        Subset size k.
    kind : {"all_tuples", "naive_blocks", "subsampled"}
        How the family was built.
    tuples : numpy.ndarray of shape (M, k) or None
        The subsets (each row increasing); None for the implicit all-tuples family.
    """

    n: int
    degree: int
    kind: FamilyKind
    tuples: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        n, k = _check_n_k(self.n, self.degree)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "degree", k)
        if self.kind not in ("all_tuples", "naive_blocks", "subsampled"):
            raise InvalidParameterError(f"unknown family kind {self.kind!r}")
        if self.kind == "all_tuples":
            if self.tuples is not None:
                raise InvalidParameterError("the all-tuples family is implicit: pass tuples=None")
            return
        tuples = np.asarray(self.tuples)
        if tuples.ndim != 2 or tuples.shape[1] != k or tuples.shape[0] < 1:
            raise InvalidParameterError(
                f"family tuples must have shape (M >= 1, {k}), got {tuples.shape}"
            )
        if tuples.dtype.kind not in "iu":
            raise InvalidParameterError(f"family tuples must be integers, got dtype {tuples.dtype}")
        tuples = np.sort(tuples.astype(np.int64), axis=1)
        if tuples[:, 0].min() < 0 or tuples[:, -1].max() >= n:
            raise InvalidParameterError(f"family tuples must index 0..{n - 1}")
        if k > 1 and (np.diff(tuples, axis=1) == 0).any():
            row = int(np.argmax((np.diff(tuples, axis=1) == 0).any(axis=1)))
            raise InvalidParameterError(
                f"family tuple {tuple(tuples[row].tolist())} repeats an index"
            )
        tuples.setflags(write=False)
        object.__setattr__(self, "tuples", tuples)

    # ------------------------------------------------------------ constructors
    @classmethod
    def all_tuples(cls, n: int, k: int) -> SubsetFamily:
        """𝒮_all = I_{n,k}, M = C(n,k) (Definition 1); never materialised."""
        return cls(n, k, "all_tuples")

    @classmethod
    def naive_blocks(cls, n: int, k: int) -> SubsetFamily:
        """m = ⌊n/k⌋ disjoint blocks {jk, …, jk + k − 1}; the n − km leftover records are unused."""
        n, k = _check_n_k(n, k)
        blocks = n // k
        return cls(n, k, "naive_blocks", np.arange(blocks * k, dtype=np.int64).reshape(blocks, k))

    @classmethod
    def subsampled(cls, n: int, k: int, size: int, rng: RandomLike) -> SubsetFamily:
        """M = ``size`` i.i.d. uniform k-subsets of [n], with replacement (Definition 2).

        Each subset is drawn as k uniform indices, redrawn while they repeat (which makes
        it uniform on k-subsets); when repeats are likely (k² > n) the k smallest of n
        uniform keys are used instead.
        """
        n, k = _check_n_k(n, k)
        size = _check_int(size, "size", 1)
        generator = as_generator(rng)
        if k * k <= n:
            tuples = np.sort(generator.integers(0, n, size=(size, k)), axis=1)
            while k > 1:
                repeated = np.flatnonzero((np.diff(tuples, axis=1) == 0).any(axis=1))
                if repeated.size == 0:
                    break
                tuples[repeated] = np.sort(
                    generator.integers(0, n, size=(repeated.size, k)), axis=1
                )
        else:
            parts = []
            step = max(1, _CHUNK // n)
            for start in range(0, size, step):
                rows = min(step, size - start)
                keys = generator.random((rows, n))
                parts.append(np.sort(np.argpartition(keys, k - 1, axis=1)[:, :k], axis=1))
            tuples = np.concatenate(parts)
        return cls(n, k, "subsampled", tuples)

    @classmethod
    def draw_valid_subsampled(
        cls, n: int, k: int, size: int, rng: RandomLike, max_attempts: int = 100
    ) -> SubsetFamily:
        """Draw subsampled families until one passes :meth:`check` (data-independent, so free).

        Raises
        ------
        InvalidParameterError
            If ``max_attempts`` draws all fail; the message gives the last failure.
        """
        max_attempts = _check_int(max_attempts, "max_attempts", 1)
        generator = as_generator(rng)
        result: FamilyCheckResult | None = None
        for _ in range(max_attempts):
            family = cls.subsampled(n, k, size, generator)
            result = family.check()
            if result.passed:
                return family
        result = cast(FamilyCheckResult, result)  # max_attempts >= 1: the loop ran
        raise InvalidParameterError(
            f"no subsampled family of size M={size} (n={n}, k={k}) passed the checks in "
            f"{max_attempts} attempts; last failure: {result.failed_condition} "
            f"(max M_i/M={result.max_member_fraction:.4g}, "
            f"max M_ij/M_i={result.max_pair_ratio:.4g}, "
            f"min M_i={result.min_member_count}, threshold 3k/n={result.threshold:.4g}); "
            f"use a larger size, e.g. default_subsample_size(n, k, alpha)"
        )

    # ------------------------------------------------------------- counts
    @property
    def is_implicit(self) -> bool:
        """True for the all-tuples family (its tuples are never stored)."""
        return self.tuples is None

    @property
    def size(self) -> int:
        """M = |𝒮| (C(n,k) for all tuples; counted with multiplicity)."""
        if self.tuples is None:
            return math.comb(self.n, self.degree)
        return int(self.tuples.shape[0])

    @cached_property
    def member_counts(self) -> np.ndarray:
        """M_i for every i, shape (n,) (float64 for all tuples, where C(n−1,k−1) may be huge)."""
        if self.tuples is None:
            return np.full(self.n, float(math.comb(self.n - 1, self.degree - 1)))
        return np.bincount(self.tuples.ravel(), minlength=self.n)

    @cached_property
    def pair_counts(self) -> sp.csr_array:
        """M_ij as a symmetric sparse (n, n) matrix with zero diagonal, in O(Mk²) time.

        Not available for the implicit all-tuples family (there M_ij = C(n−2,k−2) for all i ≠ j).
        """
        if self.tuples is None:
            raise InvalidParameterError(
                "the all-tuples family is implicit: M_ij = C(n-2, k-2) for every pair i != j"
            )
        k = self.degree
        if k == 1:
            return sp.csr_array((self.n, self.n), dtype=np.int64)
        first, second = np.triu_indices(k, k=1)
        rows = self.tuples[:, first].ravel()
        cols = self.tuples[:, second].ravel()
        upper = sp.coo_array(
            (np.ones(rows.size, dtype=np.int64), (rows, cols)), shape=(self.n, self.n)
        )
        upper = upper.tocsr()
        upper.sum_duplicates()
        return (upper + upper.T).tocsr()

    @cached_property
    def max_pair_counts(self) -> np.ndarray:
        """max_{j≠i} M_ij for every i (0 for k = 1)."""
        if self.degree == 1:
            return np.zeros(self.n, dtype=np.int64)
        if self.tuples is None:
            return np.full(self.n, float(math.comb(self.n - 2, self.degree - 2)))
        return np.asarray(self.pair_counts.max(axis=1).todense()).ravel().astype(np.int64)

    @property
    def max_member_fraction(self) -> float:
        """ρ1 = max_i M_i/M (k/n for all tuples)."""
        if self.tuples is None:
            return self.degree / self.n
        return float(self.member_counts.max() / self.size)

    @property
    def dependence(self) -> float:
        """dep(𝒮) = max_i f_i with f_i = M_i/M (eq. A.31); equals :attr:`max_member_fraction`."""
        return self.max_member_fraction

    @property
    def max_pair_ratio(self) -> float:
        """ρ2 = max_{i≠j} M_ij/M_i over i with M_i > 0 ((k−1)/(n−1) for all tuples, 0 for k = 1)."""
        if self.degree == 1:
            return 0.0
        if self.tuples is None:
            return (self.degree - 1) / (self.n - 1) if self.n > 1 else 0.0
        counts = self.member_counts
        present = counts > 0
        if not present.any():
            return 0.0
        return float((self.max_pair_counts[present] / counts[present]).max())

    def check(self) -> FamilyCheckResult:
        """The checks (10)/(17): M_i ≠ 0, M_i/M ≤ 3k/n and M_ij/M_i ≤ 3k/n for all i ≠ j.

        The comparisons are made in exact integer arithmetic (M_i·n ≤ 3k·M and
        M_ij·n ≤ 3k·M_i), so no rounding decides a borderline case.
        """
        n, k = self.n, self.degree
        threshold = 3 * k / n
        if self.tuples is None:
            # M_i/M = k/n and M_ij/M_i = (k−1)/(n−1) ≤ k/n: always passes.
            return FamilyCheckResult(
                True,
                None,
                None,
                math.comb(n - 1, k - 1),
                self.max_member_fraction,
                self.max_pair_ratio,
                threshold,
            )
        counts = self.member_counts.astype(np.int64)
        size = self.size
        fraction, ratio = self.max_member_fraction, self.max_pair_ratio
        failed, index = None, None
        zero = np.flatnonzero(counts == 0)
        if zero.size:
            failed, index = "member_count_zero", int(zero[0])
        else:
            too_many = np.flatnonzero(counts * n > 3 * k * size)
            if too_many.size:
                failed, index = "member_fraction", int(too_many[0])
            else:
                too_close = np.flatnonzero(self.max_pair_counts * n > 3 * k * counts)
                if too_close.size:
                    failed, index = "pair_ratio", int(too_close[0])
        return FamilyCheckResult(
            failed is None, failed, index, int(counts.min()), fraction, ratio, threshold
        )


def default_subsample_size(n: int, k: int, alpha: float) -> int:
    """M = ⌈8·(n²/k²)·ln(n/α)⌉, the default size of a subsampled family.

    Lemma A.11 asks for M = Ω((n²/k²) log(n/γ)); the constant 8 is our choice
    (``docs/derivations.md`` §5, choice 2).
    """
    n, k = _check_n_k(n, k)
    alpha = check_alpha(alpha)
    return math.ceil(8.0 * (n * n) / (k * k) * math.log(n / alpha))


@dataclass(frozen=True)
class FamilyProjections:
    """A_n(𝒮) and ĥ_𝒮(i) of eq. (11) for one data set and one family.

    Attributes
    ----------
    family_mean : float
        A_n(𝒮) = (1/M) Σ_{S∈𝒮} h(X_S) (= U_n for all tuples).
    projections : numpy.ndarray, shape (n,)
        ĥ_𝒮(i) = (1/M_i) Σ_{S∈𝒮_i} h(X_S); NaN where M_i = 0 (undefined).
    member_counts : numpy.ndarray, shape (n,)
        M_i.
    n, degree : int
        Number of records and k.
    kind : str
        The family kind.
    method : str
        How it was computed.
    kernel_values : numpy.ndarray or None
        h(X_S) for every S of an explicit family, in family order (None for all tuples).
    """

    family_mean: float
    projections: np.ndarray
    member_counts: np.ndarray
    n: int
    degree: int
    kind: str
    method: str
    kernel_values: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name in ("projections", "member_counts", "kernel_values"):
            value = getattr(self, name)
            if value is not None:
                value = np.array(value)
                value.setflags(write=False)
                object.__setattr__(self, name, value)

    @property
    def u_statistic(self) -> float:
        """Alias of :attr:`family_mean`, so the result reads like :class:`HajekProjections`."""
        return self.family_mean


def _check_family(data: Any, kernel: Kernel, family: Any) -> tuple[Any, SubsetFamily]:
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    if not isinstance(family, SubsetFamily):
        raise InvalidParameterError(f"family must be a SubsetFamily, got {type(family).__name__}")
    data = kernel.validate_data(data)
    if family.n != data.shape[0]:
        raise InvalidInputError(
            f"the family is on n={family.n} records but the data have n={data.shape[0]}"
        )
    if family.degree != kernel.degree:
        raise InvalidParameterError(
            f"the family has subsets of size {family.degree} but kernel {kernel.name!r} has "
            f"degree {kernel.degree}"
        )
    return data, family


def _family_values(data: Any, kernel: Kernel, tuples: np.ndarray) -> np.ndarray:
    return np.concatenate(
        [
            kernel.evaluate(data, tuples[start : start + _CHUNK], validate=False)
            for start in range(0, tuples.shape[0], _CHUNK)
        ]
    )


def family_projections(data: Any, kernel: Kernel, family: SubsetFamily) -> FamilyProjections:
    """A_n(𝒮) and all ĥ_𝒮(i) (eq. 11), exactly; the all-tuples family uses
    :func:`.exact.local_hajek_projections`."""
    data, family = _check_family(data, kernel, family)
    if family.tuples is None:
        exact = local_hajek_projections(data, kernel)
        return FamilyProjections(
            exact.u_statistic,
            exact.projections,
            family.member_counts,
            family.n,
            family.degree,
            family.kind,
            exact.method,
        )
    values = _family_values(data, kernel, family.tuples)
    sums = np.zeros(family.n)
    for column in range(family.degree):
        sums += np.bincount(family.tuples[:, column], weights=values, minlength=family.n)
    counts = family.member_counts
    with np.errstate(invalid="ignore", divide="ignore"):
        projections = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return FamilyProjections(
        float(values.mean()),
        projections,
        counts,
        family.n,
        family.degree,
        family.kind,
        "family_bincount",
        values,
    )


def family_weighted_sum(data: Any, kernel: Kernel, family: SubsetFamily, weights: Any) -> float:
    """Σ_{S∈𝒮} (min_{i∈S} w_i)·h(X_S) (Algorithm 1 lines 16–19) for any family."""
    data, family = _check_family(data, kernel, family)
    if family.tuples is None:
        return weighted_tuple_sum(data, kernel, weights)
    w = _check_weights(weights, family.n)
    values = _family_values(data, kernel, family.tuples)
    return float(np.dot(w[family.tuples].min(axis=1), values))


def family_min_weight_sum(family: SubsetFamily, weights: Any) -> float:
    """Σ_{S∈𝒮} min_{i∈S} w_i for any family (O(n log n) for all tuples)."""
    if not isinstance(family, SubsetFamily):
        raise InvalidParameterError(f"family must be a SubsetFamily, got {type(family).__name__}")
    if family.tuples is None:
        w = _check_weights(weights, family.n)
        return min_weight_tuple_sum(w, family.degree)
    w = _check_weights(weights, family.n)
    return float(w[family.tuples].min(axis=1).sum())
