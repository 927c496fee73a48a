"""Vectorised evaluation functions of the built-in kernels.

Every function has the signature ``f(data, index_tuples) -> values`` where
``index_tuples`` is an int array of shape (m, k) of distinct row indices into the
(validated) ``data`` and ``values`` has shape (m,).  They are module-level functions (or
``functools.partial`` of them) so that kernels pickle and so that
:mod:`.fast_paths` can recognise a built-in kernel by its function.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "absolute_difference",
    "adjacency_entry",
    "adjacency_triangle",
    "equal_labels",
    "half_squared_difference",
    "identity",
    "kendall_concordance",
    "median_minus_mean",
    "pairwise_triangle",
    "positive_pair_sum",
    "rgg_edge",
    "rgg_triangle",
    "scored_label_order",
    "table_lookup",
]


def identity(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x) = x (the mean kernel, k = 1)."""
    return data[index_tuples[:, 0]].astype(np.float64, copy=True)


def half_squared_difference(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x₁, x₂) = (x₁ − x₂)²/2 (the variance kernel)."""
    diff = data[index_tuples[:, 0]] - data[index_tuples[:, 1]]
    return 0.5 * (diff * diff)


def absolute_difference(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x₁, x₂) = |x₁ − x₂| (Gini's mean difference)."""
    return np.abs(data[index_tuples[:, 0]] - data[index_tuples[:, 1]])


def kendall_concordance(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(z₁, z₂) = sign(x₁ − x₂)·sign(y₁ − y₂) for records z = (x, y) (Kendall's tau-a)."""
    first, second = data[index_tuples[:, 0]], data[index_tuples[:, 1]]
    return np.sign(first[:, 0] - second[:, 0]) * np.sign(first[:, 1] - second[:, 1])


def positive_pair_sum(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x₁, x₂) = 1(x₁ + x₂ > 0) (Wilcoxon's signed-rank kernel)."""
    return (data[index_tuples[:, 0]] + data[index_tuples[:, 1]] > 0).astype(np.float64)


def median_minus_mean(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x₁, x₂, x₃) = median − mean = ((y₂ − y₁) − (y₃ − y₂))/3 with y the sorted triple.

    The second form is algebraically equal (median − mean = (2y₂ − y₁ − y₃)/3) and
    exactly permutation invariant in floating point (the arguments are sorted first); it
    also keeps every value inside the declared range, since each difference is at most
    upper − lower and rounding is monotone.
    """
    ordered = np.sort(data[index_tuples], axis=1)
    return ((ordered[:, 1] - ordered[:, 0]) - (ordered[:, 2] - ordered[:, 1])) / 3.0


def equal_labels(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """h(x, y) = 1(x = y) (the collision kernel)."""
    return (data[index_tuples[:, 0]] == data[index_tuples[:, 1]]).astype(np.float64)


def table_lookup(data: np.ndarray, index_tuples: np.ndarray, *, table: np.ndarray) -> np.ndarray:
    """h(x, y) = table[x, y] on integer labels."""
    return table[data[index_tuples[:, 0]], data[index_tuples[:, 1]]].astype(np.float64)


def scored_label_order(data: np.ndarray, index_tuples: np.ndarray) -> np.ndarray:
    """One-sample AUC kernel on (score, label) records.

    For opposite labels, 1(s₊ > s₋) + ½·1(s₊ = s₋) with s₊ the positive's score; for equal
    labels the constant ½.
    """
    first, second = data[index_tuples[:, 0]], data[index_tuples[:, 1]]
    # orient every pair so that "a" is the record with label 1 when labels differ
    first_positive = first[:, 1] > second[:, 1]
    score_a = np.where(first_positive, first[:, 0], second[:, 0])
    score_b = np.where(first_positive, second[:, 0], first[:, 0])
    opposite = first[:, 1] != second[:, 1]
    ordered = (score_a > score_b).astype(np.float64) + 0.5 * (score_a == score_b)
    return np.where(opposite, ordered, 0.5)


def _within_radius(
    points: np.ndarray, left: np.ndarray, right: np.ndarray, radius: float
) -> np.ndarray:
    diff = points[left] - points[right]
    return np.einsum("ij,ij->i", diff, diff) <= radius * radius


def rgg_edge(data: np.ndarray, index_tuples: np.ndarray, *, radius: float) -> np.ndarray:
    """h(x, y) = 1(‖x − y‖₂ ≤ r), compared as ‖x − y‖₂² ≤ r²."""
    return _within_radius(data, index_tuples[:, 0], index_tuples[:, 1], radius).astype(np.float64)


def rgg_triangle(data: np.ndarray, index_tuples: np.ndarray, *, radius: float) -> np.ndarray:
    """g(x, y, z) = h(x, y)·h(y, z)·h(x, z) with h the RGG edge indicator."""
    a, b, c = index_tuples[:, 0], index_tuples[:, 1], index_tuples[:, 2]
    inside = (
        _within_radius(data, a, b, radius)
        & _within_radius(data, b, c, radius)
        & _within_radius(data, a, c, radius)
    )
    return inside.astype(np.float64)


def _entries(adjacency, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    if sp.issparse(adjacency):
        return np.asarray(adjacency[rows, cols], dtype=np.float64).ravel()
    return adjacency[rows, cols].astype(np.float64)


def adjacency_entry(data, index_tuples: np.ndarray) -> np.ndarray:
    """h(i, j) = A_ij for nodes i, j of a graph given by its adjacency matrix."""
    return _entries(data, index_tuples[:, 0], index_tuples[:, 1])


def adjacency_triangle(data, index_tuples: np.ndarray) -> np.ndarray:
    """h(i, j, l) = A_ij·A_jl·A_il (1 if the three nodes span a triangle)."""
    a, b, c = index_tuples[:, 0], index_tuples[:, 1], index_tuples[:, 2]
    return _entries(data, a, b) * _entries(data, b, c) * _entries(data, a, c)


def pairwise_triangle(data, index_tuples: np.ndarray, *, edge) -> np.ndarray:
    """h(x, y, z) = e(x, y)·e(y, z)·e(x, z) for a symmetric degree-2 kernel e (``edge``)."""
    a, b, c = index_tuples[:, 0], index_tuples[:, 1], index_tuples[:, 2]
    pair = edge.function
    return (
        pair(data, np.column_stack((a, b)))
        * pair(data, np.column_stack((b, c)))
        * pair(data, np.column_stack((a, c)))
    )
