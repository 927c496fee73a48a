"""Matrix (factorization) mechanisms: release y = R x + N(0, σ² I) and answer W = L R as L y.

Layout (one idea per module):

* :mod:`mechanisms.matrix.factorization` — the matrix mechanism of Li, Miklau, Hay,
  McGregor & Rastogi (VLDB J. 2015) for any strategy R: exact sensitivity per relation,
  σ from (ε, δ), ρ or μ, the workload error σ²‖L‖_F² and σ² max_q ‖L_q‖²;
* :mod:`mechanisms.matrix.binary_tree` — the dyadic-interval strategy for prefix sums,
  its plain and least-squares (Honaker) estimators and their exact variances, O(T log T);
* :mod:`mechanisms.matrix.sqrt_toeplitz` — the square-root factorization A^{1/2}
  (coefficients binom(2k, k)/4^k), its FFT noise and Landau's constants;
* :mod:`mechanisms.matrix.prefix_sums` — the continual-counting mechanism factories;
* :mod:`mechanisms.matrix.prefix_errors` — exact error profiles of five factorizations and
  the lower bound γ₂(A) ≥ (2 + ln((2T + 1)/3))/π for every factorization.

Examples
--------
>>> from privaudit.mechanisms.matrix import sqrt_toeplitz_mechanism
>>> mech = sqrt_toeplitz_mechanism(8, 1.0, 1e-5)
>>> mech.sample([0.0] * 8, size=3, rng=0).shape
(3, 8)
"""

from __future__ import annotations

from .binary_tree import (
    tree_column_counts,
    tree_honaker_prefix_sums,
    tree_honaker_variances,
    tree_level_sizes,
    tree_node_sums,
    tree_plain_prefix_sums,
    tree_plain_variances,
    tree_strategy_matrix,
)
from .factorization import (
    MATRIX_RELATIONS,
    FactorizationMechanism,
    WorkloadError,
    calibrate_gaussian,
    column_norms,
    factorization_mechanism,
    factorization_sensitivity,
    workload_error,
)
from .prefix_errors import (
    PREFIX_METHODS,
    PrefixErrorProfile,
    PrefixSumLowerBound,
    prefix_sum_error_profile,
    prefix_sum_lower_bound,
)
from .prefix_sums import (
    PREFIX_RELATIONS,
    binary_tree_mechanism,
    binary_tree_sensitivity,
    sqrt_toeplitz_mechanism,
    sqrt_toeplitz_sensitivity,
)
from .sqrt_toeplitz import (
    landau_asymptotic,
    landau_constants,
    sqrt_toeplitz_apply,
    sqrt_toeplitz_coefficients,
    sqrt_toeplitz_matrix,
    sqrt_toeplitz_variances,
)

__all__ = [
    "MATRIX_RELATIONS",
    "PREFIX_METHODS",
    "PREFIX_RELATIONS",
    "FactorizationMechanism",
    "PrefixErrorProfile",
    "PrefixSumLowerBound",
    "WorkloadError",
    "binary_tree_mechanism",
    "binary_tree_sensitivity",
    "calibrate_gaussian",
    "column_norms",
    "factorization_mechanism",
    "factorization_sensitivity",
    "landau_asymptotic",
    "landau_constants",
    "prefix_sum_error_profile",
    "prefix_sum_lower_bound",
    "sqrt_toeplitz_apply",
    "sqrt_toeplitz_coefficients",
    "sqrt_toeplitz_matrix",
    "sqrt_toeplitz_mechanism",
    "sqrt_toeplitz_sensitivity",
    "sqrt_toeplitz_variances",
    "tree_column_counts",
    "tree_honaker_prefix_sums",
    "tree_honaker_variances",
    "tree_level_sizes",
    "tree_node_sums",
    "tree_plain_prefix_sums",
    "tree_plain_variances",
    "tree_strategy_matrix",
    "workload_error",
]
