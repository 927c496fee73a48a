"""Exact error of the prefix-sum factorizations and the lower bound for all factorizations.

For a factorization A = L R released with σ = σ₁ Δ(R) (σ₁: the Gaussian noise of
sensitivity 1 for the target (ε, δ)), the t-th prefix estimate has variance
σ₁² Δ(R)² ‖L_t‖², so its worst standard deviation is σ₁ ‖R‖_{1→2} ‖L‖_{2→∞} ≥ σ₁ γ₂(A),
with γ₂(A) the factorization norm.  :func:`prefix_sum_lower_bound` uses the explicit
lower bound γ₂(A) ≥ (2 + ln((2T + 1)/3))/π of Matoušek, Nikolov & Talwar (IMRN 2020).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from privaudit.spec import Reference
from privaudit.spec.errors import InvalidParameterError

from ..calibration import analytic_gaussian_sigma
from .binary_tree import tree_column_counts, tree_honaker_variances, tree_plain_variances
from .sqrt_toeplitz import landau_constants

__all__ = [
    "MNT_2020",
    "PREFIX_METHODS",
    "PrefixErrorProfile",
    "PrefixSumLowerBound",
    "prefix_sum_error_profile",
    "prefix_sum_lower_bound",
]

#: Factorizations of the T × T prefix-sum matrix A with an exact error profile here.
PREFIX_METHODS: tuple[str, ...] = (
    "tree",
    "honaker",
    "sqrt_toeplitz",
    "input_perturbation",
    "output_perturbation",
)

MNT_2020 = Reference(
    citation="Matousek, Nikolov & Talwar, 'Factorization norms and hereditary discrepancy', "
    "International Mathematics Research Notices 2020(3)",
    locator="gamma_2 of the T x T lower-triangular all-ones matrix >= (2 + ln((2T+1)/3))/pi "
    "(as restated by Henzinger, Kalinin & Upadhyay, arXiv 2509.14334, abstract)",
    url="https://doi.org/10.1093/imrn/rny033",
)


@dataclass(frozen=True)
class PrefixErrorProfile:
    """The exact per-step error of one factorization of A, per unit noise multiplier.

    Attributes
    ----------
    method : str
        One of :data:`PREFIX_METHODS`.
    T : int
        Stream length.
    sensitivity : float
        Δ(R) = ‖R‖_{1→2}, the largest column norm (exact, not rounded).
    variance_units : numpy.ndarray
        ‖L_t‖² for t < T: Var(error_t) = σ² ‖L_t‖² with σ the noise of y.
    """

    method: str
    T: int
    sensitivity: float
    variance_units: npt.NDArray[np.float64]

    @property
    def max_error_factor(self) -> float:
        """‖R‖_{1→2} ‖L‖_{2→∞} = Δ · max_t ‖L_t‖: the worst std per unit σ₁."""
        return self.sensitivity * math.sqrt(float(self.variance_units.max()))

    @property
    def mse_factor(self) -> float:
        """Δ² mean_t ‖L_t‖²: the mean squared error per unit σ₁²."""
        return self.sensitivity**2 * float(self.variance_units.mean())

    def per_step_std(self, sigma_unit: float) -> npt.NDArray[np.float64]:
        """σ₁ Δ ‖L_t‖ for every t, the standard deviation of each prefix estimate."""
        return float(sigma_unit) * self.sensitivity * np.sqrt(self.variance_units)


def prefix_sum_error_profile(T: int, method: str) -> PrefixErrorProfile:
    """The exact error profile of a factorization of the T × T prefix-sum matrix.

    ``"tree"``: dyadic tree, plain estimator (‖L_t‖² = popcount(t + 1), Δ² = ⌊log₂T⌋ + 1);
    ``"honaker"``: the same tree, least-squares estimator; ``"sqrt_toeplitz"``:
    L = R = A^{1/2} (‖L_t‖² = G(t), Δ² = G(T − 1)); ``"input_perturbation"``: L = A, R = I
    (‖L_t‖² = t + 1, Δ = 1); ``"output_perturbation"``: L = I, R = A (‖L_t‖ = 1, Δ = √T).
    O(T log T) time and O(T) memory.

    Raises
    ------
    InvalidParameterError
        An unknown method, or T < 1.
    """
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or int(T) < 1:
        raise InvalidParameterError(f"T must be an integer >= 1, got {T!r}")
    n = int(T)
    if method in ("tree", "honaker"):
        sens = math.sqrt(float(tree_column_counts(n).max()))
        units = tree_plain_variances(n) if method == "tree" else tree_honaker_variances(n)
    elif method == "sqrt_toeplitz":
        units = landau_constants(n)
        sens = math.sqrt(float(units[-1]))
    elif method == "input_perturbation":
        sens, units = 1.0, np.arange(1, n + 1, dtype=np.float64)
    elif method == "output_perturbation":
        sens, units = math.sqrt(n), np.ones(n)
    else:
        raise InvalidParameterError(f"method must be one of {PREFIX_METHODS}, got {method!r}")
    return PrefixErrorProfile(method=method, T=n, sensitivity=sens, variance_units=units)


@dataclass(frozen=True)
class PrefixSumLowerBound:
    """Lower bound on the worst prefix-sum error std of every Gaussian factorization mechanism.

    Attributes
    ----------
    T : int
    factorization_norm_bound : float
        (2 + ln((2T + 1)/3))/π ≤ γ₂(A) (Matoušek, Nikolov & Talwar, IMRN 2020).
    sigma_unit : float
        σ₁: the Gaussian noise at sensitivity 1 for the target (ε, δ) (Balle & Wang 2018).
    max_std : float
        σ₁ · factorization_norm_bound: no factorization A = L R released with
        σ = σ₁ ‖R‖_{1→2} has max_t std(error_t) below it.
    source : Reference
    """

    T: int
    factorization_norm_bound: float
    sigma_unit: float
    max_std: float
    source: Reference

    def efficiency_ratio(self, profile: PrefixErrorProfile) -> float:
        """A factorization's worst std ÷ this bound (≥ 1 by the theorem)."""
        return profile.max_error_factor / self.factorization_norm_bound


def prefix_sum_lower_bound(T: int, epsilon: float, delta: float) -> PrefixSumLowerBound:
    """The max-error lower bound for factorization mechanisms for continual counting.

    Parameters
    ----------
    T : int
        Stream length.
    epsilon, delta : float
        The (ε, δ) target; σ₁ = :func:`~mechanisms.analytic_gaussian_sigma` (ε, δ, 1).

    Returns
    -------
    PrefixSumLowerBound

    References
    ----------
    Matoušek, Nikolov & Talwar, "Factorization norms and hereditary discrepancy", IMRN
    2020: γ₂(M_count) ≥ (2 + ln((2T + 1)/3))/π, as restated in Henzinger, Kalinin &
    Upadhyay, "Normalized square root", arXiv 2509.14334 (2025), abstract.  The bound
    holds for every real factorization, not only lower-triangular (streaming) ones.
    """
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or int(T) < 1:
        raise InvalidParameterError(f"T must be an integer >= 1, got {T!r}")
    bound = (2.0 + math.log((2.0 * int(T) + 1.0) / 3.0)) / math.pi
    sigma_unit = analytic_gaussian_sigma(epsilon, delta, 1.0)
    return PrefixSumLowerBound(
        T=int(T),
        factorization_norm_bound=bound,
        sigma_unit=sigma_unit,
        max_std=sigma_unit * bound,
        source=MNT_2020,
    )
