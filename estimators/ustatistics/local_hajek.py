"""Algorithm 1 (Private Mean Local Hájek) of Chaudhuri, Loh, Pandey & Sarkar (2024), noiseless part.

This module fixes the public parameters of Algorithm 1 and computes, on one data set,
everything before the noise; :mod:`.local_hajek_mechanism` adds the noise and the spec and
:mod:`.private_mean` is the analyst's entry point.

The release is Ã_n + (S(X)/β)·Z with Z of density ∝ 1/(1 + z⁴) (``docs/derivations.md`` §2),
where Ã_n is the local-Hájek-weighted mean of the kernel values over a family 𝒮 of
k-subsets (:mod:`.local_hajek_weights`) and S is a β-smooth bound on its local
sensitivity (:mod:`.smooth_bounds`).

**The ε convention.**  In the paper one ε plays three roles — the smoothness β of S, the
ramp slope εn/(6Ck) of the weights and the divisor of the noise scale — and the release is
then "10ε-DP" (Lemma 2, read as 10ε, docs/derivations.md §1).  Here the user's ``epsilon`` is always
the **total privacy claim** and the paper's ε is called β:

* ``sensitivity_mode="rigorous"`` (default): β = epsilon/(3 + 3^{3/4}) and S = S_rig of
  docs/derivations.md §3, a proven β-smooth upper bound; the claim epsilon = (3 + 3^{3/4})β is the
  tight constant of the 1/(1+z⁴) smooth-sensitivity release (docs/derivations.md §1) and is proven.
* ``sensitivity_mode="paper"``: β = epsilon/10 and S = S_paper, the printed box formula
  (eq. (A.57)); the claim epsilon = 10β is the paper's, but S_paper is **not** an upper bound on
  the local sensitivity (docs/derivations.md §3), so the claim is unproven (the spec says so).  Use
  it to reproduce the paper only.

**Public parameters.**  n, the kernel and its declared range C, ξ, ε and the family 𝒮 are
public: they must be chosen without looking at the data (ξ only affects accuracy; any
data-independent ξ keeps the privacy claim).  Nothing here estimates them.

**Families.**  ``family=None`` uses all k-subsets (Theorem 2; Ã_n through the exact
min-weighted tuple sums of :mod:`.exact`); an explicit family (:class:`.TupleFamily`, an
(M, k) array of index tuples, or a :class:`.SubsetFamily`) is used as given (Theorem 4) and
must pass the checks of line 4 (M_i ≠ 0, M_i/M ≤ 3k/n, M_ij/M_i ≤ 3k/n): an explicit family
that fails them raises, since it is the caller's public choice; the rigorous bound uses its
exact ρ1 and ρ2.

References
----------
.. [1] Chaudhuri, Loh, Pandey & Sarkar, "On differentially private U statistics",
   NeurIPS 2024 (arXiv 2407.04945), Algorithm 1, Lemma 2, Theorems 2 and 4.
.. [2] ``docs/derivations.md`` §1–§3 (tight constant, noise, rigorous smooth bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.mechanisms.smooth_sensitivity import quartic_share
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, SampleSizeError

from ._parameters import SensitivityMode, check_count, check_epsilon, check_mode, check_nonnegative
from .batched_local_hajek import TupleFamily, batched_local_hajek, tuple_family
from .exact import local_hajek_projections, min_weight_tuple_sum, weighted_tuple_sum
from .families import SubsetFamily
from .kernels import Kernel
from .local_hajek_weights import LocalHajekWeights, local_hajek_weights, weighted_mean_from_sums
from .smooth_bounds import (
    FamilyOverlap,
    all_tuples_overlap,
    local_sensitivity_bound_paper,
    local_sensitivity_bound_rigorous,
    smooth_sensitivity_table,
)

__all__ = [
    "PAPER_CONSTANT",
    "LocalHajekAlgorithm",
    "LocalHajekStatistic",
    "as_tuple_family",
    "internal_epsilon",
    "local_hajek_algorithm",
    "local_hajek_statistic",
]

#: The paper's privacy constant for Algorithm 1 (Lemma 2 read as 10ε; docs/derivations.md §1).
PAPER_CONSTANT = 10.0


def internal_epsilon(epsilon: float, sensitivity_mode: SensitivityMode = "rigorous") -> float:
    """Algorithm 1's own ε (called β here) for a total privacy claim ``epsilon``.

    ``"rigorous"``: epsilon/(3 + 3^{3/4}) (tight constant, docs/derivations.md §1), rounded
    down to the stable grid (:func:`mechanisms.smooth_sensitivity.quartic_share`);
    ``"paper"``: epsilon/10.

    Examples
    --------
    >>> internal_epsilon(1.0), internal_epsilon(1.0, "paper")
    (0.189411, 0.1)
    """
    eps = check_epsilon(epsilon)
    mode = check_mode(sensitivity_mode)
    return quartic_share(eps) if mode == "rigorous" else eps / PAPER_CONSTANT


def as_tuple_family(family: Any, n: int) -> TupleFamily | None:
    """An explicit family as a :class:`.TupleFamily` over n records (None: all k-subsets).

    Accepts None or ``"all"`` (all k-subsets), a :class:`.SubsetFamily` (its implicit
    all-tuples kind maps to None), a :class:`.TupleFamily`, or an (M, k) integer array of
    index tuples.  An explicit family must pass the checks of Algorithm 1 line 4 (checked
    here, exactly); nothing is resampled.

    Raises
    ------
    InvalidParameterError
        If the family is over a different n, is not a family, or fails the checks.
    """
    if family is None or (isinstance(family, str) and family == "all"):
        return None
    if isinstance(family, SubsetFamily):
        if family.n != n:
            raise InvalidParameterError(
                f"the family is over n={family.n} records, the data have n={n}"
            )
        if family.tuples is None:
            return None
        result = family.check()
        if not result.passed:
            raise InvalidParameterError(
                f"the {family.kind} family of {family.size} subsets fails the checks of "
                f"Algorithm 1 ({result.failed_condition} at index {result.offending_index}: "
                f"max M_i/M = {result.max_member_fraction:.6g}, max M_ij/M_i = "
                f"{result.max_pair_ratio:.6g}, min M_i = {result.min_member_count}, threshold "
                f"3k/n = {result.threshold:.6g}); Algorithm 1 would return bottom, so draw "
                "another family (SubsetFamily.draw_valid_subsampled resamples for free)"
            )
        return tuple_family(family.tuples, n)
    if isinstance(family, TupleFamily):
        if family.n != n:
            raise InvalidParameterError(
                f"the family is over n={family.n} records, the data have n={n}"
            )
        explicit = family
    elif isinstance(family, (np.ndarray, list, tuple)):
        explicit = tuple_family(np.asarray(family), n)
    else:
        raise InvalidParameterError(
            "family must be None (all k-subsets), a SubsetFamily, a TupleFamily or an (M, k) "
            f"array of index tuples, got {type(family).__name__}"
        )
    explicit.check()
    return explicit


@dataclass(frozen=True, slots=True)
class LocalHajekStatistic:
    """Algorithm 1 on one data set, before the noise (lines 1–20).

    Attributes
    ----------
    n, degree : int
        Records and kernel degree k.
    mean : float
        A_n, the family mean of the kernel values (= U_n for all k-subsets).
    weighted_mean : float
        Ã_n, the statistic the release privatises.
    weights : LocalHajekWeights
        The band level L, radius, weights and good/bad sets.
    smooth_sensitivity : float
        S(X) (rigorous or paper formula).
    beta : float
        Algorithm 1's ε (smoothness, ramp slope, noise divisor).
    sensitivity_mode : {"rigorous", "paper"}
        Which S.
    """

    n: int
    degree: int
    mean: float
    weighted_mean: float
    weights: LocalHajekWeights
    smooth_sensitivity: float
    beta: float
    sensitivity_mode: SensitivityMode

    @property
    def level(self) -> int:
        """L, the band level of line 11."""
        return self.weights.level

    @property
    def noise_scale(self) -> float:
        """S(X)/β, the scale of the 1/(1+z⁴) noise (its standard deviation: Var Z = 1)."""
        return self.smooth_sensitivity / self.beta


@dataclass(frozen=True, eq=False)
class LocalHajekAlgorithm:
    """Algorithm 1 with every public parameter fixed: n, kernel, C, ξ, β, family, mode.

    Built by :func:`local_hajek_algorithm`.  The smooth sensitivity depends on the data
    only through the band level L, so the table S(1..n) is computed once here.

    Attributes
    ----------
    n : int
        The public number of records.
    kernel : Kernel
        A bounded kernel of degree k ≤ n; C = ``kernel.additive_range``.
    xi : float
        ξ ≥ 0.
    beta : float
        Algorithm 1's ε.
    sensitivity_mode : {"rigorous", "paper"}
        Which smooth bound.
    family : TupleFamily or None
        The explicit family, or None for all k-subsets.
    overlap : FamilyOverlap
        ρ1, ρ2 of the family.
    local_bounds : numpy.ndarray, shape (n,)
        G(1..n) (G_rig or g_paper).
    smooth_table : numpy.ndarray, shape (n,)
        S(L) for L = 1..n.
    """

    n: int
    kernel: Kernel
    xi: float
    beta: float
    sensitivity_mode: SensitivityMode
    family: TupleFamily | None
    overlap: FamilyOverlap
    local_bounds: npt.NDArray[np.float64]
    smooth_table: npt.NDArray[np.float64]

    @property
    def degree(self) -> int:
        """k."""
        return self.kernel.degree

    @property
    def additive_range(self) -> float:
        """C = upper − lower of the kernel."""
        return self.kernel.additive_range

    @property
    def family_size(self) -> float:
        """M = |𝒮| (a float: C(n, k) may exceed 2⁵³)."""
        return (
            float(self.family.size)
            if self.family is not None
            else float(math.comb(self.n, self.degree))
        )

    def describe_family(self) -> str:
        """One line naming the family, for specs and reports."""
        if self.family is None:
            return f"all C({self.n}, {self.degree}) {self.degree}-subsets"
        return (
            f"an explicit family of {self.family.size} {self.degree}-subsets "
            f"(rho1 = {self.overlap.member_fraction:.6g}, rho2 = "
            f"{self.overlap.pair_ratio:.6g})"
        )

    def evaluate(self, data: Any, *, validated: bool = False) -> LocalHajekStatistic:
        """Lines 1–20 of Algorithm 1 on ``data`` (no noise).

        Parameters
        ----------
        data : array_like or sparse matrix
            n records of the kernel's domain (an adjacency matrix for graph kernels).
        validated : bool
            Skip ``kernel.validate_data`` (for data it already returned).

        Returns
        -------
        LocalHajekStatistic

        Raises
        ------
        InvalidInputError
            Bad data: NaN/inf, wrong shape, empty, records outside the kernel's domain, or
            a number of records other than n.
        KernelRangeError
            A kernel value outside the declared range.
        """
        x = data if validated else self.kernel.validate_data(data)
        size = int(x.shape[0])
        if size != self.n:
            raise InvalidInputError(
                f"the data have n={size} records but the public size is n={self.n}"
            )
        k, c = self.degree, self.additive_range
        if self.family is None:
            hajek = local_hajek_projections(x, self.kernel)
            mean = float(hajek.u_statistic)
            weights = local_hajek_weights(
                hajek.projections, mean, degree=k, additive_range=c, xi=self.xi, beta=self.beta
            )
            if weights.all_good:
                weighted = mean
            else:
                weighted = weighted_mean_from_sums(
                    mean,
                    weighted_tuple_sum(x, self.kernel, weights.weights),
                    min_weight_tuple_sum(weights.weights, k),
                    self.family_size,
                )
        else:
            values = self.kernel.evaluate(x, self.family.tuples, validate=False)
            batch = batched_local_hajek(
                values, self.family, additive_range=c, xi=self.xi, beta=self.beta
            )
            mean = float(batch.means[0])
            weights = local_hajek_weights(
                batch.projections[0], mean, degree=k, additive_range=c, xi=self.xi, beta=self.beta
            )
            weighted = float(batch.weighted_means[0])
        return LocalHajekStatistic(
            n=self.n,
            degree=k,
            mean=mean,
            weighted_mean=float(weighted),
            weights=weights,
            smooth_sensitivity=float(self.smooth_table[weights.level - 1]),
            beta=self.beta,
            sensitivity_mode=self.sensitivity_mode,
        )


def local_hajek_algorithm(
    n: int,
    kernel: Kernel,
    *,
    xi: float,
    beta: float,
    family: Any = None,
    sensitivity_mode: SensitivityMode = "rigorous",
) -> LocalHajekAlgorithm:
    """Fix the public parameters of Algorithm 1 (see :class:`LocalHajekAlgorithm`).

    Parameters
    ----------
    n : int
        The public number of records, n ≥ k.
    kernel : Kernel
        A bounded kernel (``kernel.additive_range`` is C).
    xi : float
        The public concentration parameter ξ ≥ 0.
    beta : float
        Algorithm 1's ε > 0 (use :func:`internal_epsilon` to derive it from a claim).
    family : None, TupleFamily, SubsetFamily or array of shape (M, k)
        None for all k-subsets; an explicit family must pass the checks of line 4.
    sensitivity_mode : {"rigorous", "paper"}
        The smooth bound.

    Returns
    -------
    LocalHajekAlgorithm

    Raises
    ------
    InvalidParameterError
        If n < k, ξ < 0, β ≤ 0, the kernel is unbounded or not a Kernel, or an explicit
        family fails the checks (Algorithm 1 would return ⊥; nothing is resampled here).
    """
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    size = check_count(n, "n")
    k = kernel.degree
    if size < k:
        raise SampleSizeError(f"need n >= k, got n={size}, k={k}")
    c = kernel.additive_range  # raises for unbounded kernels
    if not c > 0:
        raise InvalidParameterError(
            f"kernel {kernel.name!r} has additive range C = {c!r}; Algorithm 1 needs C > 0"
        )
    x = check_nonnegative(xi, "xi")
    b = check_epsilon(beta, "beta")
    mode = check_mode(sensitivity_mode)
    explicit = as_tuple_family(family, size)
    if explicit is not None:
        if explicit.degree != k:
            raise InvalidParameterError(
                f"the family has {explicit.degree}-subsets, the kernel has degree {k}"
            )
        overlap = explicit.overlap()
    else:
        overlap = all_tuples_overlap(size, k)
    levels = np.arange(1, size + 1)
    if mode == "rigorous":
        bounds = local_sensitivity_bound_rigorous(
            levels, overlap=overlap, n=size, degree=k, additive_range=c, xi=x, beta=b
        )
    else:
        bounds = local_sensitivity_bound_paper(
            levels, n=size, degree=k, additive_range=c, xi=x, beta=b
        )
    bounds.setflags(write=False)
    table = smooth_sensitivity_table(bounds, b)
    table.setflags(write=False)
    return LocalHajekAlgorithm(
        n=size,
        kernel=kernel,
        xi=x,
        beta=b,
        sensitivity_mode=mode,
        family=explicit,
        overlap=overlap,
        local_bounds=bounds,
        smooth_table=table,
    )


def local_hajek_statistic(
    data: Any,
    kernel: Kernel,
    *,
    xi: float,
    beta: float,
    family: Any = None,
    sensitivity_mode: SensitivityMode = "rigorous",
) -> LocalHajekStatistic:
    """Ã_n, A_n, the weights and S(X) of Algorithm 1 on ``data`` (no noise).

    A convenience for :func:`local_hajek_algorithm` ``(n, …).evaluate(data)`` with n read
    from the data.  See :func:`local_hajek_algorithm` for the parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from privaudit.estimators.ustatistics import variance_kernel
    >>> x = np.linspace(0.0, 1.0, 30)
    >>> stat = local_hajek_statistic(x, variance_kernel(0.0, 1.0), xi=0.2, beta=0.5)
    >>> stat.level, stat.weighted_mean == stat.mean
    (1, True)
    """
    x = kernel.validate_data(data) if isinstance(kernel, Kernel) else data
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    algorithm = local_hajek_algorithm(
        int(x.shape[0]), kernel, xi=xi, beta=beta, family=family, sensitivity_mode=sensitivity_mode
    )
    return algorithm.evaluate(x, validated=True)
