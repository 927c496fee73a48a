"""Private prefix sums (continual counting) and private linear workloads by factorization.

:func:`private_prefix_sums` releases every prefix sum of a stream with the binary tree
(plain or least-squares estimator) or the square-root factorization;
:func:`private_linear_workload` answers any W = L R with the matrix mechanism.  Both
return the release with its spec and its exact error law: the error is Gaussian, unbiased,
with the standard deviations reported (public: they depend on public parameters only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.mechanisms.matrix import (
    FactorizationMechanism,
    binary_tree_mechanism,
    factorization_mechanism,
    prefix_sum_error_profile,
    sqrt_toeplitz_apply,
    sqrt_toeplitz_mechanism,
    tree_honaker_prefix_sums,
    tree_plain_prefix_sums,
    workload_error,
)
from privaudit.spec import MechanismSpec, PrivacyGuarantee, RandomLike, as_generator
from privaudit.spec.errors import InconsistentSpecError, InputShapeError, InvalidParameterError
from privaudit.spec.validation import real_array

__all__ = [
    "PREFIX_SUM_METHODS",
    "PrivatePrefixSums",
    "PrivateWorkloadAnswers",
    "private_linear_workload",
    "private_prefix_sums",
]

#: The estimators of :func:`private_prefix_sums` (tree = plain binary-tree estimator).
PREFIX_SUM_METHODS: tuple[str, ...] = ("tree", "honaker", "sqrt_toeplitz")


def _union_bound_quantile(count: int, beta: float) -> float:
    """z = Φ⁻¹(1 − β/(2·count)): P(max_i |Z_i| > z) ≤ β for ``count`` N(0, 1) (union bound)."""
    if not 0.0 < float(beta) < 1.0:
        raise InvalidParameterError(f"beta must lie in (0, 1), got {beta!r}")
    return float(-special.ndtri(float(beta) / (2.0 * count)))


@dataclass(frozen=True)
class PrivatePrefixSums:
    """Private estimates of Σ_{s ≤ t} x_s for t = 0, …, T − 1, with their error law.

    Attributes
    ----------
    estimate : numpy.ndarray, shape (T,)
        The released prefix sums.
    spec : MechanismSpec
        The spec of the mechanism that released the noisy strategy answers.
    method : str
        One of :data:`PREFIX_SUM_METHODS`.
    noise_std : float
        σ of each coordinate of y = R x + z.
    per_step_std : numpy.ndarray, shape (T,)
        The exact standard deviation of each estimate's (Gaussian, unbiased) error.
    """

    estimate: npt.NDArray[np.float64]
    spec: MechanismSpec
    method: str
    noise_std: float
    per_step_std: npt.NDArray[np.float64]

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The privacy guarantee the release was made under."""
        return self.spec.guarantee

    @property
    def max_std(self) -> float:
        """max_t std(error_t): the factorization's worst per-step standard deviation."""
        return float(self.per_step_std.max())

    def max_error_bound(self, beta: float) -> float:
        """α with P(max_t |error_t| > α) ≤ β (union bound over the T Gaussian errors)."""
        return self.max_std * _union_bound_quantile(self.per_step_std.size, beta)


@dataclass(frozen=True)
class PrivateWorkloadAnswers:
    """Private answers L y to a workload W = L R, with their exact error law.

    Attributes
    ----------
    estimate : numpy.ndarray, shape (q,)
    spec : MechanismSpec
    noise_std : float
        σ of each coordinate of y.
    per_query_std : numpy.ndarray, shape (q,)
        σ ‖L_q‖ for every query.
    total_squared_error : float
        σ² ‖L‖_F², the expected total squared error (Li et al., VLDB J. 2015, §3).
    """

    estimate: npt.NDArray[np.float64]
    spec: MechanismSpec
    noise_std: float
    per_query_std: npt.NDArray[np.float64]
    total_squared_error: float

    @property
    def max_std(self) -> float:
        """max_q σ ‖L_q‖."""
        return float(self.per_query_std.max())

    def max_error_bound(self, beta: float) -> float:
        """α with P(max_q |error_q| > α) ≤ β (union bound)."""
        return self.max_std * _union_bound_quantile(self.per_query_std.size, beta)


def _release(
    mech: FactorizationMechanism, data: Any, rng: RandomLike, budget: PrivacyBudget | None
) -> npt.NDArray[np.float64]:
    out = np.asarray(
        mech.sample(data, size=1, rng=as_generator(rng), budget=budget), dtype=np.float64
    )
    return out.reshape(-1)


def private_prefix_sums(
    data: Any,
    epsilon: float,
    delta: float,
    *,
    method: str = "honaker",
    relation: str = "substitute_one",
    length: int | None = None,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PrivatePrefixSums:
    """Release all T prefix sums of a stream under (ε, δ)-DP.

    Parameters
    ----------
    data : array_like
        ``relation="substitute_one"``: the stream x ∈ [0, 1]^T (T = its length).
        ``relation="add_remove_one"``: the event times, integers in [0, ``length``).
    epsilon, delta : float
        The target; σ from the exact Gaussian profile (Balle & Wang, ICML 2018).
    method : {"tree", "honaker", "sqrt_toeplitz"}
        The binary tree with the plain estimator (Chan, Shi & Song, TISSEC 2011) or the
        least-squares one (Honaker, TPDP 2015), or the square-root factorization
        (Fichtenberger, Henzinger & Upadhyay, ICML 2023).
    relation : {"substitute_one", "add_remove_one"}
        The neighbouring relation the guarantee holds under.
    length : int, optional
        T, needed (only) for ``"add_remove_one"``.
    rng : numpy.random.Generator, int or None
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn.

    Returns
    -------
    PrivatePrefixSums

    Raises
    ------
    InvalidParameterError
        Unknown method or relation, a missing ``length``, ε or δ out of range.
    InvalidInputError
        Data outside the domain (NaN, values outside [0, 1], event times out of range).

    Examples
    --------
    >>> r = private_prefix_sums([1.0, 0.0, 1.0, 1.0], 1.0, 1e-5, method="sqrt_toeplitz", rng=0)
    >>> r.estimate.shape, round(r.max_std, 3)
    ((4,), 5.552)
    """
    if method not in PREFIX_SUM_METHODS:
        raise InvalidParameterError(f"method must be one of {PREFIX_SUM_METHODS}, got {method!r}")
    if relation == "substitute_one":
        data = real_array(data, "stream", ndim=1)
        T = int(data.shape[0])
    elif length is None:
        raise InvalidParameterError("relation='add_remove_one' needs the stream length")
    elif isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InvalidParameterError(f"length must be an integer >= 1, got {length!r}")
    else:
        T = int(length)
    factory = sqrt_toeplitz_mechanism if method == "sqrt_toeplitz" else binary_tree_mechanism
    mech = factory(T, epsilon, delta, relation=relation)
    y = _release(mech, data, rng, budget)
    if method == "sqrt_toeplitz":
        estimate = sqrt_toeplitz_apply(y)
    elif method == "tree":
        estimate = tree_plain_prefix_sums(y, T)
    else:
        estimate = tree_honaker_prefix_sums(y, T)
    profile = prefix_sum_error_profile(T, method)
    sigma = mech.sigma
    return PrivatePrefixSums(
        estimate=estimate,
        spec=mech.spec,
        method=method,
        noise_std=sigma,
        per_step_std=sigma * np.sqrt(profile.variance_units),
    )


def private_linear_workload(
    data: Any,
    workload: Any,
    reconstruction: Any,
    strategy: Any,
    epsilon: float,
    delta: float,
    *,
    relation: str = "substitute_one",
    n_records: int | None = None,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PrivateWorkloadAnswers:
    """Answer W x with the matrix mechanism of the factorization W = L R, (ε, δ)-DP.

    Parameters
    ----------
    data : array_like
        x ∈ [0, 1]ⁿ (``"substitute_one"``) or records in {0, …, n−1} (histogram x).
    workload, reconstruction, strategy : array_like
        W (q × n), L (q × m), R (m × n) with L R = W (checked to 1e-9 relative).
    epsilon, delta : float
    relation : str
        One of :data:`~mechanisms.matrix.MATRIX_RELATIONS`.
    n_records : int, optional
        Public number of records, for ``"substitute_one_records"``.
    rng : numpy.random.Generator, int or None
    budget : PrivacyBudget, optional
        Charged for this release before any noise is drawn.

    Returns
    -------
    PrivateWorkloadAnswers

    Raises
    ------
    InputShapeError
        Matrices of incompatible shapes.
    InconsistentSpecError
        L R ≠ W.

    References
    ----------
    Li, Miklau, Hay, McGregor & Rastogi, VLDB J. 2015, §3.
    """
    w = real_array(workload, "workload")
    lmat = real_array(reconstruction, "reconstruction")
    rmat = real_array(strategy, "strategy")
    if w.ndim != 2 or lmat.ndim != 2 or rmat.ndim != 2 or lmat.shape[1] != rmat.shape[0]:
        raise InputShapeError(
            f"need W (q, n), L (q, m), R (m, n); got {w.shape}, {lmat.shape}, {rmat.shape}"
        )
    product = lmat @ rmat
    if product.shape != w.shape or not np.allclose(
        product, w, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(w).max()))
    ):
        raise InconsistentSpecError(
            f"L R does not equal W (shapes {product.shape} vs {w.shape}, or entries differ)"
        )
    mech = factorization_mechanism(
        rmat, epsilon, delta, relation=relation, n_records=n_records, name="matrix.workload"
    )
    y = _release(mech, data, rng, budget)
    err = workload_error(lmat, mech.sigma)
    return PrivateWorkloadAnswers(
        estimate=lmat @ y,
        spec=mech.spec,
        noise_std=mech.sigma,
        per_query_std=np.sqrt(err.per_query_variance),
        total_squared_error=err.total_squared_error,
    )
