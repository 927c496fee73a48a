"""The built-in registry entries of the advanced mechanisms (seed 004's second half).

Stability (propose-test-release, sample-and-aggregate, thresholded histograms and
partition selection), robustness (inverse sensitivity, the robust mean) and matrix
mechanisms (the binary tree and the square-root factorization of prefix sums); their
studies are ``docs/stability_mechanisms.md``, ``docs/partition_selection.md``,
``docs/robust_mechanisms.md`` and ``docs/matrix_mechanisms.md``.  Registered from
:func:`privaudit.trust.builtin_registry.register_builtins`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Literal

import numpy as np

from privaudit.estimators.robust import robust_mean_mechanism
from privaudit.estimators.stability import (
    ptr_iqr_mechanism,
    ptr_median_mechanism,
    sample_and_aggregate_mechanism,
)
from privaudit.mechanisms import (
    KeyedHistogramMechanism,
    inverse_sensitivity_median_mechanism,
    inverse_sensitivity_quantile_mechanism,
    inverse_sensitivity_trimmed_mean_mechanism,
)
from privaudit.mechanisms.matrix import (
    binary_tree_mechanism,
    factorization_mechanism,
    sqrt_toeplitz_mechanism,
)

__all__ = ["register_advanced"]

#: Every advanced entry's (ε, δ) where it is an (ε, δ) claim.
_EPSILON, _DELTA = 1.0, 1e-6
#: Matrix mechanisms claim (1, 1e-5), as the analytic Gaussian entry does.
_MATRIX_DELTA = 1e-5


#: Propose-test-release on 101 records: at ε = 1, δ = 10⁻⁶ the test's threshold is
#: ln(1/(2δ))/(ε/2) ≈ 26.2, so the release branch needs data ~26 substitutions away from
#: instability.  Each entry's pairs: one on the release branch (a concentrated sample and
#: a substitution inside its bulk: released with probability ≈ 0.9 for the median, ≈ 0.16
#: for the IQR) and, for the median, the largest jump (both sides refused but for δ).
_PTR_N = 101
_PTR_MEDIAN_PAIRS = (
    (
        np.array([0.0] * 20 + [0.5] * 61 + [1.0] * 20),
        np.array([0.0] * 21 + [0.5] * 60 + [1.0] * 20),
    ),
    (np.array([0.0] * 50 + [1.0] * 51), np.array([0.0] * 51 + [1.0] * 50)),
)
_PTR_IQR_PAIRS = (
    (np.array([0.25] * 51 + [0.75] * 50), np.array([0.0] + [0.25] * 50 + [0.75] * 50)),
)


def block_max(blocks: np.ndarray) -> np.ndarray:
    """The largest record of each block (rows of ``blocks``): a block statistic one record
    moves across the whole range [0, 1], so the aggregators' declared sensitivity (one
    block value) is reached and the audit can see a claim that is too small."""
    return np.asarray(blocks, dtype=np.float64).max(axis=1)


def _sample_aggregate_laplace() -> Any:
    """Sample-and-aggregate of 40 records in 5 blocks, Laplace mean of the block maxima."""
    return sample_and_aggregate_mechanism(
        40, block_max, 5, 0.0, 1.0, _EPSILON, record_bounds=(0.0, 1.0), f_description="max"
    )


def _sample_aggregate_smooth_median() -> Any:
    """Sample-and-aggregate of 102 records in 51 blocks of 2, smooth-sensitivity median of
    the block maxima (with 5 blocks the smooth bound dwarfs every reachable change, and the
    CI-strength audit could not see a claim twice too small: inconclusive)."""
    return sample_and_aggregate_mechanism(
        102,
        block_max,
        51,
        0.0,
        1.0,
        _EPSILON,
        delta=_DELTA,
        aggregator="smooth_median",
        record_bounds=(0.0, 1.0),
        f_description="max",
    )


def _register_stability(register: Callable[..., Any]) -> None:
    register(
        "ptr.median",
        partial(ptr_median_mechanism, _PTR_N, 0.0, 1.0, _EPSILON, _DELTA, 0.05),
        description="estimator: propose-test-release median of 101 records in [0, 1], "
        "proposed bound 0.05, (1, 1e-6)-DP, released as [released, value]",
        pairs=_PTR_MEDIAN_PAIRS,
    )
    register(
        "ptr.iqr",
        partial(ptr_iqr_mechanism, _PTR_N, 0.0, 1.0, _EPSILON, _DELTA, 0.05),
        description="estimator: propose-test-release interquartile range of 101 records in "
        "[0, 1], proposed bound 0.05, (1, 1e-6)-DP, released as [released, value]",
        pairs=_PTR_IQR_PAIRS,
    )
    register(
        "sample_aggregate.laplace_mean",
        _sample_aggregate_laplace,
        description="estimator: sample-and-aggregate of the block maxima, 40 records in 5 "
        "blocks, Laplace mean of the block values, epsilon = 1",
    )
    register(
        "sample_aggregate.smooth_median",
        _sample_aggregate_smooth_median,
        description="estimator: sample-and-aggregate of the block maxima, 102 records in 51 "
        "blocks, smooth-sensitivity median of the block values, (1, 1e-6)-DP",
    )
    methods: tuple[tuple[Literal["laplace", "gaussian", "optimal"], str], ...] = (
        ("laplace", "counts + Laplace(1/eps) released above the threshold"),
        ("gaussian", "counts + analytic Gaussian noise released above the threshold"),
        ("optimal", "keys only, the optimal release probability of Desfontaines et al."),
    )
    for method, what in methods:
        register(
            f"partition_selection.{method}",
            partial(KeyedHistogramMechanism, 4, _EPSILON, 1e-3, method=method),
            description=f"partition selection over 4 keys, one key per user, {what}, "
            "(1, 1e-3)-DP under add/remove-one",
        )


def _register_matrix(register: Callable[..., Any]) -> None:
    register(
        "matrix.factorization.cdf",
        partial(
            factorization_mechanism,
            np.tril(np.ones((8, 8))),
            _EPSILON,
            _MATRIX_DELTA,
            relation="substitute_one_records",
            n_records=20,
            name="matrix.factorization.cdf",
        ),
        description="factorization mechanism: the cumulative counts of 20 records on 8 "
        "cells (strategy R = A, the all-ones lower-triangular matrix), substitute-one "
        "record, sensitivity max ||R(e_i - e_j)||_2 = sqrt(7), (1, 1e-5)-DP",
    )
    for factory, label, what in (
        (sqrt_toeplitz_mechanism, "sqrt_toeplitz", "square-root (Toeplitz) factorization"),
        (binary_tree_mechanism, "binary_tree", "binary tree (dyadic sums)"),
    ):
        register(
            f"matrix.{label}",
            partial(factory, 16, _EPSILON, _MATRIX_DELTA),
            description=f"continual counting: {what} of prefix sums, stream of T = 16 values "
            "in [0, 1], substitute-one, (1, 1e-5)-DP",
        )
        register(
            f"matrix.{label}_add_remove",
            partial(factory, 8, _EPSILON, _MATRIX_DELTA, relation="add_remove_one"),
            description=f"continual counting: {what} of prefix sums, event times in T = 8 "
            "steps, add/remove-one, (1, 1e-5)-DP",
        )


def _register_robust(register: Callable[..., Any]) -> None:
    common = "21 records in [0, 1], epsilon = 1, substitute-one"
    grid = "over a public grid of 64 points (finite law, audited exactly)"
    for name, factory, what in (
        (
            "inverse_sensitivity.median_grid",
            partial(
                inverse_sensitivity_median_mechanism,
                21,
                0.0,
                1.0,
                _EPSILON,
                grid=64,
                name="inverse_sensitivity.median_grid",
            ),
            f"inverse-sensitivity median {grid}",
        ),
        (
            "inverse_sensitivity.median",
            partial(inverse_sensitivity_median_mechanism, 21, 0.0, 1.0, _EPSILON),
            "inverse-sensitivity median on [0, 1] (piecewise-constant density, exact sampling)",
        ),
        (
            "inverse_sensitivity.quantile_grid",
            partial(
                inverse_sensitivity_quantile_mechanism,
                21,
                0.0,
                1.0,
                _EPSILON,
                quantile=0.25,
                grid=64,
                name="inverse_sensitivity.quantile_grid",
            ),
            f"inverse-sensitivity 0.25-quantile {grid}",
        ),
        (
            "inverse_sensitivity.trimmed_mean_grid",
            partial(
                inverse_sensitivity_trimmed_mean_mechanism,
                21,
                0.0,
                1.0,
                _EPSILON,
                trim=4,
                grid=64,
                name="inverse_sensitivity.trimmed_mean_grid",
            ),
            f"inverse-sensitivity trimmed mean (4 records cut on each side) {grid}",
        ),
        (
            "inverse_sensitivity.trimmed_mean",
            partial(inverse_sensitivity_trimmed_mean_mechanism, 21, 0.0, 1.0, _EPSILON, trim=4),
            "inverse-sensitivity trimmed mean (4 records cut on each side) on [0, 1]",
        ),
        (
            "robust_mean.winsorised",
            partial(robust_mean_mechanism, 21, 0.0, 1.0, _EPSILON),
            "mean winsorised to two inverse-sensitivity quantiles (eps/4 each) plus Laplace "
            "noise (eps/2), sequential composition",
        ),
    ):
        register(name, factory, description=f"estimator: {what}, {common}")


def register_advanced(register: Callable[..., Any]) -> None:
    """Register the advanced mechanisms' entries with ``register`` (the registry's hook)."""
    _register_stability(register)
    _register_robust(register)
    _register_matrix(register)
