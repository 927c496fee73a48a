"""Fast exact paths for U_n and all local Hájek projections ĥ(i) of built-in kernels.

Each fast path takes validated data and returns, exactly, the U-statistic U_n = C(n,k)⁻¹
Σ_S h(X_S) (eq. 1 of Chaudhuri et al. 2024) and the projections ĥ(i) = C(n−1,k−1)⁻¹
Σ_{S∋i} h(X_S) (eq. 9). A fast path is used only when the kernel's function *is* the
built-in function (identity, or a ``functools.partial`` of it), never on a look-alike,
and only when the kernel's declared range contains the exact range of that function on
the kernel's data domain (a fast path does not see the individual values, so it relies
on the domain to keep them in range; see :func:`fast_path_for`).

=====================  ======================================  =====================
kernel                 identity used                           cost
=====================  ======================================  =====================
mean (k = 1)           ĥ(i) = X_i                              O(n)
variance               Σ_j (x_i−x_j)² = n d_i² − 2 d_i D + Σd²   O(n)
                       with d = x − x̄, D = Σ d (= 0 exactly)
Gini mean difference   prefix sums over the sorted sample      O(n log n)
Kendall tau-a          four quadrant dominance counts          O(n log² n)
Wilcoxon signed rank   #{j : x_j > −x_i} by binary search      O(n log n)
collision              ĥ(i) = (c_{X_i} − 1)/(n − 1)           O(n log n)
table (labels)         ĥ(i) = ((T c)_{X_i} − T_{X_i X_i})/(n−1)  O(n + d²)
AUC                    binary search in each class's scores    O(n log n)
adjacency edge         ĥ(i) = deg(i)/(n − 1)                  O(n + m)
adjacency triangle     t_i = ((A·A) ∘ A)·1 / 2, ĥ = t/C(n−1,2)  sparse product
RGG edge / triangle    k-d tree pairs → sparse adjacency       O(n log n + m)
triangle product       E = [e(X_i, X_j)], ((E·E) ∘ E)·1 / 2    O(n²) + product
=====================  ======================================  =====================
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from . import _builtin_functions as fn
from ._enumeration import default_block_size, iter_pair_blocks

__all__ = [
    "FastPath",
    "adjacency_from_points",
    "fast_path_for",
    "kendall_concordance_sums",
    "pairwise_matrix",
    "triangle_counts",
]

#: A fast path maps validated data to (U_n, ĥ) for a kernel recognised by its function.
FastPath = Callable[[Any, "Any"], tuple[float, np.ndarray]]


def _base_function(function: Callable) -> tuple[Callable, dict]:
    if isinstance(function, functools.partial) and not function.args:
        return function.func, dict(function.keywords)
    return function, {}


# ----------------------------------------------------------------- k = 1, reals
def _mean(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    projections = data.astype(np.float64, copy=True)
    return float(projections.mean()), projections


def _variance(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    centred = data - data.mean()
    drift = centred.sum()  # zero in exact arithmetic; kept so the identity is exact
    squares = float(np.dot(centred, centred))
    row_sums = n * centred * centred - 2.0 * centred * drift + squares  # Σ_j (x_i − x_j)²
    projections = row_sums / (2.0 * (n - 1))
    u_statistic = (squares - drift * drift / n) / (n - 1)  # = Σ_i Σ_j (x_i−x_j)²/(2n(n−1))
    return float(u_statistic), projections


def _gini(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    centred = data - np.median(data)
    ordered = np.sort(centred)
    prefix = np.concatenate(([0.0], np.cumsum(ordered)))
    below = np.searchsorted(ordered, centred, side="left")
    above_start = np.searchsorted(ordered, centred, side="right")
    sum_below = prefix[below]
    sum_above = prefix[n] - prefix[above_start]
    count_above = n - above_start
    row_sums = centred * below - sum_below + sum_above - centred * count_above
    projections = row_sums / (n - 1)
    return float(projections.mean()), projections


def _wilcoxon(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    # x_i + x_j > 0 ⟺ x_j > −x_i exactly in IEEE arithmetic (negation is exact and a
    # rounded sum is zero only for exact opposites), so counting by binary search matches h.
    n = data.shape[0]
    ordered = np.sort(data)
    greater = n - np.searchsorted(ordered, -data, side="right")
    row_sums = greater - (data > 0)
    projections = row_sums / (n - 1)
    return float(projections.mean()), projections


# -------------------------------------------------------------- Kendall tau-a
def _strict_dominance_counts(x_rank: np.ndarray, y_rank: np.ndarray, y_levels: int) -> np.ndarray:
    """#{j : x_rank_j < x_rank_i and y_rank_j < y_rank_i} for every i, in O(n log² n).

    The prefix [0, x_rank_i) of x-ranks is the disjoint union, over the set bits ℓ of
    x_rank_i, of the aligned blocks of length 2^ℓ with block index (x_rank_i >> ℓ) − 1
    (Fenwick decomposition).  At each level ℓ the points are sorted by (block, y_rank),
    and one binary search per point counts the points of its block with smaller y.
    """
    counts = np.zeros(x_rank.size, dtype=np.int64)
    levels = int(x_rank.max()).bit_length() if x_rank.size else 0
    for level in range(levels):
        keys = np.sort((x_rank >> level) * y_levels + y_rank)
        active = ((x_rank >> level) & 1).astype(bool)
        block = (x_rank[active] >> level) - 1
        hi = np.searchsorted(keys, block * y_levels + y_rank[active], side="left")
        lo = np.searchsorted(keys, block * y_levels, side="left")
        counts[active] += hi - lo
    return counts


def kendall_concordance_sums(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """c_i = Σ_{j≠i} sign(x_i − x_j)·sign(y_i − y_j) for every i, in O(n log² n).

    c_i = N(<,<) + N(>,>) − N(<,>) − N(>,<), counting j by the strict order of x_j versus
    x_i and of y_j versus y_i; ties (sign 0) fall in no quadrant, as in tau-a.
    """
    _, x_rank = np.unique(x, return_inverse=True)
    y_values, y_rank = np.unique(y, return_inverse=True)
    x_rank, y_rank = x_rank.astype(np.int64).ravel(), y_rank.astype(np.int64).ravel()
    x_top, y_levels = int(x_rank.max()), int(y_values.size)
    x_flip, y_flip = x_top - x_rank, y_levels - 1 - y_rank
    both_less = _strict_dominance_counts(x_rank, y_rank, y_levels)
    both_greater = _strict_dominance_counts(x_flip, y_flip, y_levels)
    less_greater = _strict_dominance_counts(x_rank, y_flip, y_levels)
    greater_less = _strict_dominance_counts(x_flip, y_rank, y_levels)
    return both_less + both_greater - less_greater - greater_less


def _kendall(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    projections = kendall_concordance_sums(data[:, 0], data[:, 1]) / (n - 1)
    return float(projections.mean()), projections


# ------------------------------------------------------------------- labels
def _collision(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    _, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
    projections = (counts[inverse.ravel()] - 1) / (n - 1)
    u_statistic = float(np.dot(counts, counts - 1)) / (n * (n - 1))
    return u_statistic, projections


def _table(data: np.ndarray, kernel, *, table: np.ndarray) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    counts = np.bincount(data, minlength=table.shape[0]).astype(np.float64)
    row_sums = table @ counts - np.diagonal(table)  # Σ_{j≠i} T[X_i, X_j], indexed by label
    projections = row_sums[data] / (n - 1)
    return float(projections.mean()), projections


def _auc(data: np.ndarray, kernel) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    scores, positive = data[:, 0], data[:, 1] == 1
    positives, negatives = np.sort(scores[positive]), np.sort(scores[~positive])
    n_pos, n_neg = positives.size, negatives.size
    row_sums = np.empty(n, dtype=np.float64)
    s = scores[positive]
    below = np.searchsorted(negatives, s, side="left")
    ties = np.searchsorted(negatives, s, side="right") - below
    row_sums[positive] = below + 0.5 * ties + 0.5 * (n_pos - 1)
    s = scores[~positive]
    at_or_below = np.searchsorted(positives, s, side="right")
    ties = at_or_below - np.searchsorted(positives, s, side="left")
    row_sums[~positive] = (n_pos - at_or_below) + 0.5 * ties + 0.5 * (n_neg - 1)
    projections = row_sums / (n - 1)
    return float(projections.mean()), projections


# -------------------------------------------------------------------- graphs
def _as_sparse(adjacency) -> sp.csr_array:
    if sp.issparse(adjacency):
        return sp.csr_array(adjacency, dtype=np.int64)
    return sp.csr_array(np.asarray(adjacency), dtype=np.int64)


def triangle_counts(adjacency) -> np.ndarray:
    """t_i = number of triangles through node i = ((A·A) ∘ A)·1 / 2 = (A³)_ii / 2."""
    matrix = _as_sparse(adjacency)
    paths = (matrix @ matrix).multiply(matrix)
    return np.asarray(paths.sum(axis=1)).ravel() // 2


def _adjacency_edge(adjacency, kernel) -> tuple[float, np.ndarray]:
    n = adjacency.shape[0]
    degrees = np.asarray(_as_sparse(adjacency).sum(axis=1)).ravel().astype(np.float64)
    projections = degrees / (n - 1)
    return float(degrees.sum() / (n * (n - 1))), projections


def _adjacency_triangle(adjacency, kernel) -> tuple[float, np.ndarray]:
    n = adjacency.shape[0]
    triangles = triangle_counts(adjacency).astype(np.float64)
    projections = triangles / math.comb(n - 1, 2)
    u_statistic = float(triangles.sum() / 3.0 / math.comb(n, 3))
    return u_statistic, projections


def adjacency_from_points(points: np.ndarray, radius: float) -> sp.csr_array:
    """Sparse adjacency of the random geometric graph 1(‖x_i − x_j‖₂ ≤ radius), i ≠ j.

    Candidate pairs come from a k-d tree with a slightly enlarged radius; each candidate is
    then re-tested with the kernel's own comparison ‖x − y‖² ≤ r², so that the graph
    equals the kernel exactly (no disagreement at the boundary).
    """
    n = points.shape[0]
    tree = cKDTree(points)
    candidates = tree.query_pairs(radius * (1.0 + 1e-9) + 1e-300, output_type="ndarray")
    if candidates.size:
        keep = fn.rgg_edge(points, candidates, radius=radius) > 0
        candidates = candidates[keep]
    rows = (
        np.concatenate((candidates[:, 0], candidates[:, 1]))
        if candidates.size
        else np.zeros(0, int)
    )
    cols = (
        np.concatenate((candidates[:, 1], candidates[:, 0]))
        if candidates.size
        else np.zeros(0, int)
    )
    return sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))


def _rgg_edge(points: np.ndarray, kernel, *, radius: float) -> tuple[float, np.ndarray]:
    return _adjacency_edge(adjacency_from_points(points, radius), kernel)


def _rgg_triangle(points: np.ndarray, kernel, *, radius: float) -> tuple[float, np.ndarray]:
    return _adjacency_triangle(adjacency_from_points(points, radius), kernel)


def pairwise_matrix(data, edge, block_size: int | None = None):
    """E_ij = e(X_i, X_j) for i ≠ j, E_ii = 0: sparse CSR if E has few non-zeros, else dense.

    Evaluated over row blocks of pairs i < j (memory O(n·block) plus the non-zeros), with
    every value checked against e's declared range.
    """
    n = data.shape[0]
    rows, cols, vals = [], [], []
    for pairs in iter_pair_blocks(n, block_size or default_block_size(n)):
        values = edge.evaluate(data, pairs, validate=False)
        keep = values != 0
        rows.append(pairs[keep, 0])
        cols.append(pairs[keep, 1])
        vals.append(values[keep])
    row, col, val = (
        np.concatenate(parts) if parts else np.zeros(0) for parts in (rows, cols, vals)
    )
    upper = sp.coo_array((val, (row.astype(np.int64), col.astype(np.int64))), shape=(n, n))
    matrix = (upper + upper.T).tocsr()
    if matrix.nnz > 0.1 * n * n:
        return matrix.toarray()
    return matrix


def _triangle_product(data, kernel, *, edge) -> tuple[float, np.ndarray]:
    n = data.shape[0]
    matrix = pairwise_matrix(data, edge)
    if sp.issparse(matrix):
        sums = np.asarray((matrix @ matrix).multiply(matrix).sum(axis=1)).ravel() / 2.0
    else:
        sums = ((matrix @ matrix) * matrix).sum(axis=1) / 2.0
    projections = sums / math.comb(n - 1, 2)
    return float(sums.sum() / 3.0 / math.comb(n, 3)), projections


def _unit_range(kernel, **_: Any) -> tuple[float, float]:
    return 0.0, 1.0


def _identity_range(kernel, **_: Any) -> tuple[float, float]:
    domain = kernel.domain
    return (-math.inf, math.inf) if domain.lower is None else (domain.lower, domain.upper)


def _width_range(of_width: Callable[[float], tuple[float, float]]) -> Callable:
    """Range of h as a function of the data width upper − lower (∞ for unbounded data)."""

    def implied(kernel, **_: Any) -> tuple[float, float]:
        domain = kernel.domain
        return of_width(math.inf if domain.lower is None else domain.upper - domain.lower)

    return implied


def _table_range(kernel, *, table: np.ndarray) -> tuple[float, float] | None:
    if kernel.domain.n_labels != table.shape[0]:
        return None
    return float(table.min()), float(table.max())


def _product_range(kernel, *, edge) -> tuple[float, float] | None:
    if kernel.domain != edge.domain or not edge.is_bounded:
        return None
    a, b = edge.lower, edge.upper
    corners = (a * a * a, a * a * b, a * b * b, b * b * b)
    return min(corners), max(corners)


#: function → (path name, path, required data kind, record rank or None, implied range of h)
_BY_FUNCTION: dict[Callable, tuple[str, Callable, str | None, int | None, Callable]] = {
    fn.identity: ("mean_values", _mean, "real", 0, _identity_range),
    fn.half_squared_difference: (
        "variance_closed_form",
        _variance,
        "real",
        0,
        _width_range(lambda w: (0.0, 0.5 * (w * w))),
    ),
    fn.absolute_difference: (
        "gini_sorted_prefix_sums",
        _gini,
        "real",
        0,
        _width_range(lambda w: (0.0, w)),
    ),
    fn.positive_pair_sum: ("wilcoxon_sorted_search", _wilcoxon, "real", 0, _unit_range),
    fn.kendall_concordance: (
        "kendall_dominance_counts",
        _kendall,
        "real",
        1,
        lambda kernel: (-1.0, 1.0) if kernel.record_shape == (2,) else None,
    ),
    fn.equal_labels: ("collision_counts", _collision, "labels", None, _unit_range),
    fn.table_lookup: ("table_counts", _table, "labels", None, _table_range),
    fn.scored_label_order: ("auc_sorted_search", _auc, "scored_labels", None, _unit_range),
    fn.adjacency_entry: ("adjacency_degrees", _adjacency_edge, "adjacency", None, _unit_range),
    fn.adjacency_triangle: (
        "adjacency_triangle_counts",
        _adjacency_triangle,
        "adjacency",
        None,
        _unit_range,
    ),
    fn.rgg_edge: ("rgg_kdtree_degrees", _rgg_edge, "real", 1, _unit_range),
    fn.rgg_triangle: ("rgg_kdtree_triangle_counts", _rgg_triangle, "real", 1, _unit_range),
    fn.pairwise_triangle: (
        "triangle_matrix_product",
        _triangle_product,
        None,
        None,
        _product_range,
    ),
}


def fast_path_for(kernel) -> tuple[str, Callable[[Any], tuple[float, np.ndarray]]] | None:
    """The fast path of a built-in kernel as (name, f(validated_data) -> (U_n, ĥ)), or None.

    A fast path never evaluates h tuple by tuple, so it cannot check each value against
    the declared range.  It is therefore used only when (a) the kernel's function is the
    built-in function itself, (b) its data domain is the one that function needs, and
    (c) the declared range [lower, upper] contains the exact range of that function over
    the domain — so no value could fail the check.  Otherwise the enumerating paths run
    (and check every value).
    """
    base, keywords = _base_function(kernel.function)
    try:
        entry = _BY_FUNCTION.get(base)
    except TypeError:  # unhashable callable
        return None
    if entry is None:
        return None
    name, path, kind, record_rank, implied_range = entry
    domain = kernel.domain
    if kind is not None and domain.kind != kind:
        return None
    if record_rank is not None and len(domain.record_shape) != record_rank:
        return None
    implied = implied_range(kernel, **keywords)
    if implied is None:
        return None
    low, high = implied
    if (kernel.lower is not None and kernel.lower > low) or (
        kernel.upper is not None and kernel.upper < high
    ):
        return None
    return name, functools.partial(path, kernel=kernel, **keywords)
