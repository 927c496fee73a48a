"""The advanced mechanisms' quality cases (seed 004's second half), broken and correct.

Broken: propose-test-release whose test ignores the distance (and two more PTR bugs), a
histogram with no threshold, inverse sensitivity with a wrong path length (and two more),
and prefix-sum factorizations whose sensitivity omits the worst column.  Correct: the
registered mechanisms of each family.  Each family's cases, with their true ε, live in
its own module (``_stability_cases``, ``_partition_cases``, ``_robust_cases``,
``_matrix_cases``); the catch rates are measured in ``docs/advanced_catch_rates.md``.
"""

from __future__ import annotations

from privaudit.suites._base import BenchmarkCase
from privaudit.suites._matrix_cases import matrix_broken_cases, matrix_control_cases
from privaudit.suites._partition_cases import partition_broken_cases, partition_control_cases
from privaudit.suites._robust_cases import robust_broken_cases, robust_control_cases
from privaudit.suites._stability_cases import PTR_PAIRS, ptr_broken_cases, ptr_control_cases

__all__ = [
    "PTR_PAIRS",
    "advanced_broken_cases",
    "advanced_control_cases",
    "matrix_broken_cases",
    "matrix_control_cases",
    "partition_broken_cases",
    "partition_control_cases",
    "ptr_broken_cases",
    "ptr_control_cases",
    "robust_broken_cases",
    "robust_control_cases",
]


def advanced_broken_cases() -> tuple[BenchmarkCase, ...]:
    """Every broken advanced mechanism: PTR, partition selection, robust, matrix.

    Returns
    -------
    tuple of BenchmarkCase
    """
    return (
        ptr_broken_cases()
        + partition_broken_cases()
        + robust_broken_cases()
        + matrix_broken_cases()
    )


def advanced_control_cases() -> tuple[BenchmarkCase, ...]:
    """The correct advanced mechanisms, each with its true ε.

    Returns
    -------
    tuple of BenchmarkCase
    """
    return (
        ptr_control_cases()
        + partition_control_cases()
        + robust_control_cases()
        + matrix_control_cases()
    )
