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
from typing import Any

import numpy as np

from privaudit.estimators.stability import (
    ptr_iqr_mechanism,
    ptr_median_mechanism,
    sample_and_aggregate_mechanism,
)
from privaudit.mechanisms import KeyedHistogramMechanism
from privaudit.mechanisms.matrix import binary_tree_mechanism, sqrt_toeplitz_mechanism
from privaudit.suites._stability_cases import PTR_PAIRS

__all__ = ["register_advanced"]

#: Every advanced entry's (ε, δ) where it is an (ε, δ) claim.
_EPSILON, _DELTA = 1.0, 1e-6
#: Matrix mechanisms claim (1, 1e-5), as the analytic Gaussian entry does.
_MATRIX_DELTA = 1e-5


def block_mean(blocks: np.ndarray) -> np.ndarray:
    """The mean of each block (rows of ``blocks``): sample-and-aggregate's block statistic."""
    return np.asarray(blocks, dtype=np.float64).mean(axis=1)


def _sample_aggregate_laplace() -> Any:
    """Sample-and-aggregate of 40 records in 5 blocks, Laplace mean of the block means."""
    return sample_and_aggregate_mechanism(
        40, block_mean, 5, 0.0, 1.0, _EPSILON, record_bounds=(0.0, 1.0), f_description="mean"
    )


def _sample_aggregate_smooth_median() -> Any:
    """Sample-and-aggregate of 45 records in 5 blocks, smooth-sensitivity median."""
    return sample_and_aggregate_mechanism(
        45,
        block_mean,
        5,
        0.0,
        1.0,
        _EPSILON,
        delta=_DELTA,
        aggregator="smooth_median",
        record_bounds=(0.0, 1.0),
        f_description="mean",
    )


def _register_stability(register: Callable[..., Any]) -> None:
    register(
        "ptr.median",
        partial(ptr_median_mechanism, 11, 0.0, 1.0, _EPSILON, _DELTA, 0.05),
        description="estimator: propose-test-release median of 11 records in [0, 1], proposed "
        "bound 0.05, (1, 1e-6)-DP, released as [released, value]",
        pairs=PTR_PAIRS,
    )
    register(
        "ptr.iqr",
        partial(ptr_iqr_mechanism, 11, 0.0, 1.0, _EPSILON, _DELTA, 0.05),
        description="estimator: propose-test-release interquartile range of 11 records in "
        "[0, 1], proposed bound 0.05, (1, 1e-6)-DP, released as [released, value]",
    )
    register(
        "sample_aggregate.laplace_mean",
        _sample_aggregate_laplace,
        description="estimator: sample-and-aggregate of the mean, 40 records in 5 blocks, "
        "Laplace mean of the block values, epsilon = 1",
    )
    register(
        "sample_aggregate.smooth_median",
        _sample_aggregate_smooth_median,
        description="estimator: sample-and-aggregate of the mean, 45 records in 5 blocks, "
        "smooth-sensitivity median of the block values, (1, 1e-6)-DP",
    )
    for method, what in (
        ("laplace", "counts + Laplace(1/eps) released above the threshold"),
        ("gaussian", "counts + analytic Gaussian noise released above the threshold"),
        ("optimal", "keys only, the optimal release probability of Desfontaines et al."),
    ):
        register(
            f"partition_selection.{method}",
            partial(KeyedHistogramMechanism, 4, _EPSILON, 1e-3, method=method),
            description=f"partition selection over 4 keys, one key per user, {what}, "
            "(1, 1e-3)-DP under add/remove-one",
        )


def _register_matrix(register: Callable[..., Any]) -> None:
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


def register_advanced(register: Callable[..., Any]) -> None:
    """Register the advanced mechanisms' entries with ``register`` (the registry's hook)."""
    _register_stability(register)
    _register_matrix(register)
