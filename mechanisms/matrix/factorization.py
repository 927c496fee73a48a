"""The factorization (matrix) mechanism: release y = R x + z, z ~ N(0, σ² I), for W = L R.

The privacy-relevant release is y; the workload answers L y are post-processing.  The
claim is the Gaussian mechanism on the statistic R x at the factorization's ℓ2
sensitivity, which depends on the neighbouring relation (:func:`factorization_sensitivity`).

References
----------
.. [1] Li, Miklau, Hay, McGregor & Rastogi, "The matrix mechanism: optimizing linear
   counting queries under differential privacy", VLDB Journal 24(6), 2015, §3
   (Definition 3.2 and Proposition 3.3: the sensitivity of a strategy is its largest
   column norm for neighbours differing by one in one cell of x).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from privaudit.spec import (
    AdditiveNoise,
    AddRemoveOne,
    ApproxDP,
    DatasetDomain,
    Gaussian,
    GaussianDP,
    GlobalSensitivity,
    IntegerRange,
    MechanismSpec,
    RealInterval,
    Reference,
    SubstituteOne,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import InputShapeError, InvalidParameterError, NonFiniteInputError
from privaudit.spec.stable_values import round_up

from ..calibration import _check_delta, _check_epsilon, _check_sensitivity, analytic_gaussian_sigma
from ..generic_additive import AdditiveNoiseMechanism

__all__ = [
    "LI_ET_AL_2015",
    "MATRIX_RELATIONS",
    "FactorizationMechanism",
    "WorkloadError",
    "calibrate_gaussian",
    "column_norms",
    "factorization_mechanism",
    "factorization_sensitivity",
    "workload_error",
]

MatrixRelation = Literal["substitute_one", "add_remove_one", "substitute_one_records"]
#: The data models and relations a factorization mechanism supports (see
#: :func:`factorization_sensitivity`).
MATRIX_RELATIONS: tuple[str, ...] = ("substitute_one", "add_remove_one", "substitute_one_records")

LI_ET_AL_2015 = Reference(
    citation="Li, Miklau, Hay, McGregor & Rastogi, 'The matrix mechanism: optimizing linear "
    "counting queries under differential privacy', VLDB Journal 24(6), 2015",
    locator="Section 3: the matrix mechanism M_A(W, x) = W A^+ (A x + noise); sensitivity of "
    "A = its largest column norm",
    url="https://doi.org/10.1007/s00778-015-0398-x",
)
_BALLE_WANG = Reference(
    citation="Balle & Wang, 'Improving the Gaussian mechanism for differential privacy: "
    "analytical calibration and optimal denoising', ICML 2018",
    locator="Theorem 8 (exact privacy profile of the Gaussian mechanism)",
)


def _as_matrix(matrix: Any, what: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(matrix, dtype=np.float64)
    if arr.ndim != 2 or 0 in arr.shape:
        raise InputShapeError(f"{what} must be a non-empty 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise NonFiniteInputError(f"{what} holds a non-finite entry")
    return arr


def column_norms(strategy: Any) -> npt.NDArray[np.float64]:
    """‖R e_i‖₂ for every column i of the strategy matrix R.

    Parameters
    ----------
    strategy : array_like, shape (m, n)
        The strategy matrix R (finite entries).

    Returns
    -------
    numpy.ndarray, shape (n,)

    References
    ----------
    Li et al., VLDB J. 2015, §3 (the ℓ2 sensitivity of R is the largest column norm).
    """
    arr = _as_matrix(strategy, "strategy")
    return np.sqrt(np.einsum("ij,ij->j", arr, arr))


def factorization_sensitivity(strategy: Any, relation: str = "substitute_one") -> float:
    """The exact ℓ2 sensitivity of x ↦ R x under ``relation`` (not rounded).

    * ``"substitute_one"``: x ∈ [0, 1]ⁿ is the data vector itself (a stream of values)
      and neighbours change one entry: x' − x = c·e_i with |c| ≤ 1, so
      Δ₂ = max_{i, |c| ≤ 1} ‖c R e_i‖ = max_i ‖R e_i‖.
    * ``"add_remove_one"``: x is the histogram of a multiset of records in {0, …, n−1};
      adding or removing one record changes x by ±e_i: Δ₂ = max_i ‖R e_i‖.
    * ``"substitute_one_records"``: x is the histogram of n_records records; replacing one
      record moves one unit between two cells, x' − x = e_j − e_i (i ≠ j):
      Δ₂ = max_{i ≠ j} ‖R e_i − R e_j‖ (at most twice the largest column norm; computed
      from the Gram matrix, O(m n²)).

    Parameters
    ----------
    strategy : array_like, shape (m, n)
        The strategy matrix R.
    relation : str
        One of :data:`MATRIX_RELATIONS`.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        If ``relation`` is unknown, or ``"substitute_one_records"`` on a single column.

    References
    ----------
    Li et al., VLDB J. 2015, §3; Dwork & Roth, "The algorithmic foundations of
    differential privacy", 2014, Definition 3.8 (ℓ2 sensitivity).
    """
    arr = _as_matrix(strategy, "strategy")
    if relation in ("substitute_one", "add_remove_one"):
        return float(column_norms(arr).max())
    if relation == "substitute_one_records":
        if arr.shape[1] < 2:
            raise InvalidParameterError(
                "substitute_one_records needs at least two cells, got one column"
            )
        gram = arr.T @ arr
        diag = np.diag(gram)
        squared = diag[:, None] + diag[None, :] - 2.0 * gram
        np.fill_diagonal(squared, -np.inf)
        return float(math.sqrt(max(float(squared.max()), 0.0)))
    raise InvalidParameterError(f"relation must be one of {MATRIX_RELATIONS}, got {relation!r}")


def calibrate_gaussian(
    sensitivity: float,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    rho: float | None = None,
    mu: float | None = None,
) -> tuple[float, ApproxDP | ZeroConcentratedDP | GaussianDP, Reference]:
    """σ of N(0, σ² I) at ℓ2 sensitivity Δ for exactly one target guarantee.

    ``(epsilon, delta)``: the smallest σ with the exact (ε, δ) profile (Balle & Wang 2018,
    Thm. 8; :func:`~mechanisms.analytic_gaussian_sigma`); ``rho``: σ = Δ/√(2ρ), ρ-zCDP
    (Bun & Steinke, TCC 2016, Proposition 1.6); ``mu``: σ = Δ/μ, μ-GDP (Dong, Roth & Su,
    JRSS-B 2022, Theorem 2.7).  σ is rounded up onto the stable grid.

    Returns
    -------
    (float, guarantee, Reference)
        σ, the guarantee to declare and the reference of the calibration.

    Raises
    ------
    InvalidParameterError
        If not exactly one of (ε, δ), ρ, μ is given, or a value is out of range.
    """
    delta_f = _check_sensitivity(sensitivity)
    given = [epsilon is not None or delta is not None, rho is not None, mu is not None]
    if sum(given) != 1:
        raise InvalidParameterError(
            "give exactly one of (epsilon, delta), rho or mu; got "
            f"epsilon={epsilon!r}, delta={delta!r}, rho={rho!r}, mu={mu!r}"
        )
    if given[0]:
        eps, d = _check_epsilon(epsilon), _check_delta(delta)
        return analytic_gaussian_sigma(eps, d, delta_f), ApproxDP(epsilon=eps, delta=d), _BALLE_WANG
    if given[1]:
        r = _check_sensitivity(rho, "rho")
        ref = Reference(
            citation="Bun & Steinke, 'Concentrated differential privacy: simplifications, "
            "extensions, and lower bounds', TCC 2016",
            locator="Proposition 1.6 (Gaussian mechanism: rho = Delta^2 / (2 sigma^2))",
        )
        return round_up(delta_f / math.sqrt(2.0 * r)), ZeroConcentratedDP(rho=r), ref
    m = _check_sensitivity(mu, "mu")
    ref = Reference(
        citation="Dong, Roth & Su, 'Gaussian differential privacy', JRSS-B 84(1), 2022",
        locator="Theorem 2.7 (Gaussian mechanism: mu = Delta / sigma)",
    )
    return round_up(delta_f / m), GaussianDP(mu=m), ref


@dataclass(frozen=True)
class WorkloadError:
    """Error of the workload answers L y (y = R x + z, z ~ N(0, σ² I)): unbiased, Gaussian.

    Attributes
    ----------
    sigma : float
        The noise standard deviation σ per coordinate of y.
    per_query_variance : numpy.ndarray
        σ² ‖L_q‖² for every query q (row of L).
    total_squared_error : float
        E‖L z‖² = σ² ‖L‖_F² (Li et al. 2015, §3: the total error of the strategy).
    max_query_variance : float
        σ² max_q ‖L_q‖² (the worst query's mean squared error).
    """

    sigma: float
    per_query_variance: npt.NDArray[np.float64]
    total_squared_error: float
    max_query_variance: float

    @property
    def max_query_std(self) -> float:
        """σ · max_q ‖L_q‖: the worst query's error standard deviation."""
        return math.sqrt(self.max_query_variance)

    @property
    def mean_squared_error(self) -> float:
        """σ² ‖L‖_F² / q: the mean over the q queries of their mean squared errors."""
        return self.total_squared_error / self.per_query_variance.size


def workload_error(reconstruction: Any, sigma: float) -> WorkloadError:
    """The exact error of L y for y = R x + N(0, σ² I).

    Parameters
    ----------
    reconstruction : array_like, shape (q, m)
        The matrix L.
    sigma : float
        σ > 0.

    Returns
    -------
    WorkloadError

    References
    ----------
    Li et al., VLDB J. 2015, §3 (error of a strategy: σ² ‖W A⁺‖_F² summed over queries).
    """
    arr = _as_matrix(reconstruction, "reconstruction")
    s = _check_sensitivity(sigma, "sigma")
    per = s * s * np.einsum("ij,ij->i", arr, arr)
    return WorkloadError(
        sigma=s,
        per_query_variance=per,
        total_squared_error=float(per.sum()),
        max_query_variance=float(per.max()),
    )


def _domain_for(relation: str, n_cells: int, n_records: int | None) -> tuple[Any, Any]:
    if relation == "substitute_one":
        return DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=n_cells), SubstituteOne()
    cells = IntegerRange(lo=0, hi=n_cells - 1)
    if relation == "add_remove_one":
        return DatasetDomain(record=cells, size=None), AddRemoveOne()
    if relation == "substitute_one_records":
        if n_records is None:
            raise InvalidParameterError("substitute_one_records needs n_records (public size)")
        return DatasetDomain(record=cells, size=int(n_records)), SubstituteOne()
    raise InvalidParameterError(f"relation must be one of {MATRIX_RELATIONS}, got {relation!r}")


class FactorizationMechanism(AdditiveNoiseMechanism):
    """y = R x + N(0, σ² I): the Gaussian mechanism on R x at the declared sensitivity.

    The sensitivity is taken as given (as :class:`~mechanisms.GaussianMechanism` does);
    :func:`factorization_mechanism` computes it.  Under ``"substitute_one"`` the input is
    the data vector x ∈ [0, 1]ⁿ; otherwise it is a dataset of records in {0, …, n−1}
    whose histogram is x.

    Parameters
    ----------
    apply_strategy : callable
        x (shape ``(..., n)``) ↦ R x (shape ``(..., m)``).
    shape : (int, int)
        (m, n) of R.
    sensitivity : float
        The declared ℓ2 sensitivity Δ₂ > 0.
    epsilon, delta, rho, mu : float, optional
        Exactly one target: (ε, δ), ρ-zCDP or μ-GDP (:func:`calibrate_gaussian`).
    relation : str
        One of :data:`MATRIX_RELATIONS`.
    n_records : int, optional
        The public number of records (``"substitute_one_records"`` only).
    name, statistic_description, summary : str
        For the spec.
    references : tuple of Reference
        Appended to the matrix mechanism's and the calibration's.

    References
    ----------
    .. [1] Li et al., VLDB J. 2015, §3.
    """

    def __init__(
        self,
        apply_strategy: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]],
        shape: tuple[int, int],
        sensitivity: float,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        rho: float | None = None,
        mu: float | None = None,
        relation: str = "substitute_one",
        n_records: int | None = None,
        name: str = "factorization",
        statistic_description: str = "R x for a strategy matrix R",
        summary: str = "strategy answers R x plus Gaussian noise (the matrix mechanism)",
        references: tuple[Reference, ...] = (),
        notes: str = "",
    ) -> None:
        m, n = (int(shape[0]), int(shape[1]))
        if m < 1 or n < 1:
            raise InvalidParameterError(f"shape must be two positive integers, got {shape!r}")
        if not callable(apply_strategy):
            raise InvalidParameterError(f"apply_strategy must be callable, got {apply_strategy!r}")
        sigma, guarantee, calibration_ref = calibrate_gaussian(
            sensitivity, epsilon=epsilon, delta=delta, rho=rho, mu=mu
        )
        domain, rel = _domain_for(relation, n, n_records)
        self.strategy_shape = (m, n)
        self.relation_name = relation
        self._apply = apply_strategy
        counts = relation != "substitute_one"
        what = statistic_description + (
            f" on the histogram x (length {n}) of the records" if counts else f", x in [0, 1]^{n}"
        )
        spec = MechanismSpec(
            name=name,
            summary=summary,
            references=tuple(dict.fromkeys((LI_ET_AL_2015, calibration_ref, *references))),
            input_domain=domain,
            relation=rel,
            statistic=what,
            output_dimension=m,
            sensitivity=(GlobalSensitivity(value=float(sensitivity), norm="l2"),),
            noise=AdditiveNoise(law=Gaussian(sigma=sigma), calibration="exact"),
            guarantee=guarantee,
            notes=notes,
        )
        super().__init__(spec, self._strategy_answers)

    @property
    def sigma(self) -> float:
        """The noise standard deviation σ per coordinate of y."""
        law = self.noise_law
        return float(law.sigma) if isinstance(law, Gaussian) else math.nan

    def data_vector(self, data: Any) -> npt.NDArray[np.float64]:
        """x: the validated data itself, or the histogram of the records (length n)."""
        arr = self.validate_input(data)
        if self.relation_name == "substitute_one":
            return np.asarray(arr, dtype=np.float64)
        n = self.strategy_shape[1]
        return np.bincount(np.asarray(arr, dtype=np.int64), minlength=n).astype(np.float64)

    def _strategy_answers(self, data: Any) -> npt.NDArray[np.float64]:
        if self.relation_name == "substitute_one":
            x = np.asarray(data, dtype=np.float64)
        else:
            counts = np.bincount(np.asarray(data, dtype=np.int64), minlength=self.strategy_shape[1])
            x = counts.astype(np.float64)
        return np.asarray(self._apply(x), dtype=np.float64)


def factorization_mechanism(
    strategy: Any,
    epsilon: float | None = None,
    delta: float | None = None,
    *,
    rho: float | None = None,
    mu: float | None = None,
    relation: str = "substitute_one",
    n_records: int | None = None,
    name: str = "factorization",
) -> FactorizationMechanism:
    """The matrix mechanism for a dense strategy R, calibrated at its exact sensitivity.

    Parameters
    ----------
    strategy : array_like, shape (m, n)
        R; the workload W = L R is answered by the caller as L y (post-processing).
    epsilon, delta, rho, mu : float, optional
        Exactly one target: (ε, δ), ρ-zCDP or μ-GDP.
    relation : str
        One of :data:`MATRIX_RELATIONS` (see :func:`factorization_sensitivity`).
    n_records : int, optional
        Public number of records, for ``"substitute_one_records"``.
    name : str
        The spec's name.

    Returns
    -------
    FactorizationMechanism
        Its spec declares Δ₂ = :func:`factorization_sensitivity` rounded up.

    Examples
    --------
    >>> import numpy as np
    >>> mech = factorization_mechanism(np.eye(3), 1.0, 1e-5)
    >>> mech.spec.global_sensitivity.value
    1.00001
    >>> mech.sample(np.array([0.0, 0.5, 1.0]), size=4, rng=0).shape
    (4, 3)
    """
    arr = _as_matrix(strategy, "strategy")
    exact = factorization_sensitivity(arr, relation)
    if exact <= 0.0:
        raise InvalidParameterError("the strategy matrix is zero: its sensitivity is 0")
    frozen = arr.copy()
    frozen.setflags(write=False)
    return FactorizationMechanism(
        lambda x: x @ frozen.T,
        arr.shape,
        round_up(exact),
        epsilon=epsilon,
        delta=delta,
        rho=rho,
        mu=mu,
        relation=relation,
        n_records=n_records,
        name=name,
        notes=f"the exact sensitivity under {relation}, rounded up onto the "
        "6-significant-digit grid",
    )
