"""Exact U-statistics, all n local Hájek projections, and min-weighted tuple sums.

For a kernel h of degree k and records X_1..X_n (Chaudhuri, Loh, Pandey & Sarkar 2024):

* U_n = C(n,k)⁻¹ Σ_{S∈I_{n,k}} h(X_S)                               (eq. 1)
* ĥ(i) = C(n−1,k−1)⁻¹ Σ_{S∋i} h(X_S)                                 (eq. 9)

so that (1/n) Σ_i ĥ(i) = U_n (each S is counted k times and k·C(n,k) = n·C(n−1,k−1)).

Algorithm 1 (Chaudhuri et al. 2024, lines 16–19) also needs, for weights w ∈ [0,1]^n,
Σ_S (min_{i∈S} w_i)·h(X_S) (:func:`weighted_tuple_sum`) and Σ_S min_{i∈S} w_i
(:func:`min_weight_tuple_sum`), since Ã_n = A_n + (1/M)·[Σ_S w_S h_S − A_n Σ_S w_S].

Paths (``method``): ``"fast"`` (the kernel's closed form, :mod:`.fast_paths`),
``"blocked"`` (k = 2, row blocks, O(n²) time and O(n·block) memory), ``"generic"``
(chunked enumeration of all C(n,k) tuples: row blocks for k = 2, one vectorised
triangle per first index for k = 3, ``itertools.combinations`` for k ≥ 4 — O(C(n,k))
time, for small n only), and ``"auto"`` (fast if available, else blocked/generic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import comb

from privaudit.spec.errors import InvalidParameterError

from . import _builtin_functions as fn
from ._enumeration import iter_combinations, iter_product_combinations, sum_over_combinations
from .fast_paths import _base_function, adjacency_from_points, fast_path_for, triangle_counts
from .kernels import Kernel

__all__ = [
    "HajekProjections",
    "local_hajek_projections",
    "min_weight_tuple_sum",
    "u_statistic",
    "weighted_tuple_sum",
]

METHODS = ("auto", "fast", "blocked", "generic")


@dataclass(frozen=True)
class HajekProjections:
    """U_n and every local Hájek projection ĥ(i) of one data set.

    Attributes
    ----------
    u_statistic : float
        U_n = C(n,k)⁻¹ Σ_S h(X_S) (eq. 1).
    projections : numpy.ndarray, shape (n,)
        ĥ(i) = C(n−1,k−1)⁻¹ Σ_{S∋i} h(X_S) (eq. 9); their mean is U_n.
    n : int
        Number of records.
    degree : int
        Kernel degree k.
    method : str
        The path that computed them (``"fast:<name>"``, ``"blocked"`` or ``"generic"``).
    """

    u_statistic: float
    projections: np.ndarray
    n: int
    degree: int
    method: str

    def __post_init__(self) -> None:
        projections = np.array(self.projections, dtype=np.float64)  # an owned, read-only copy
        projections.setflags(write=False)
        object.__setattr__(self, "projections", projections)

    @property
    def tuple_sum(self) -> float:
        """Σ_{S∈I_{n,k}} h(X_S) = C(n,k)·U_n."""
        return self.u_statistic * float(math.comb(self.n, self.degree))

    @property
    def max_deviation(self) -> float:
        """max_i |ĥ(i) − U_n|, the quantity the concentration parameter ξ bounds."""
        return float(np.max(np.abs(self.projections - self.u_statistic)))


def _check_kernel(kernel: Any) -> Kernel:
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(f"kernel must be a Kernel, got {type(kernel).__name__}")
    return kernel


def _check_method(method: str, kernel: Kernel) -> str:
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {METHODS}, got {method!r}")
    if method == "blocked" and kernel.degree != 2:
        raise InvalidParameterError(
            f"method='blocked' is for kernels of degree 2, kernel {kernel.name!r} has "
            f"degree {kernel.degree}"
        )
    if method == "fast" and fast_path_for(kernel) is None:
        raise InvalidParameterError(f"kernel {kernel.name!r} has no fast path; use method='auto'")
    return method


def _check_block_size(block_size: Any) -> int | None:
    if block_size is None:
        return None
    if (
        isinstance(block_size, bool)
        or not isinstance(block_size, (int, np.integer))
        or block_size < 1
    ):
        raise InvalidParameterError(f"block_size must be an integer >= 1, got {block_size!r}")
    return int(block_size)


def _enumerate(data: Any, kernel: Kernel, block_size: int | None) -> tuple[float, np.ndarray]:
    n = int(data.shape[0])

    def evaluate(tuples: np.ndarray) -> np.ndarray:
        return kernel.evaluate(data, tuples, validate=False)

    return sum_over_combinations(n, kernel.degree, evaluate, block_size=block_size)


def local_hajek_projections(
    data: Any, kernel: Kernel, *, method: str = "auto", block_size: int | None = None
) -> HajekProjections:
    """Exact U_n and all n local Hájek projections ĥ(i) (eq. 9).

    Parameters
    ----------
    data : array_like or sparse matrix
        The records (validated by ``kernel.validate_data``).
    kernel : Kernel
        A symmetric kernel of degree k ≤ n.
    method : {"auto", "fast", "blocked", "generic"}
        Which path to use (see the module docstring).  ``"generic"`` never uses a closed
        form, so tests can compare it with the fast paths.
    block_size : int, optional
        Rows per block of the k = 2 enumeration (default: about 2¹⁸ pairs per block).

    Returns
    -------
    HajekProjections

    Raises
    ------
    InvalidInputError
        Bad data (NaN, wrong shape, n < k, …).
    KernelRangeError
        A kernel value outside the declared range (enumerated paths check every value).
    InvalidParameterError
        An unknown method, ``"blocked"`` with k ≠ 2, ``"fast"`` without a fast path.

    References
    ----------
    Chaudhuri, Loh, Pandey & Sarkar (2024), eqs. (1) and (9), Section 4.2.
    """
    kernel = _check_kernel(kernel)
    method = _check_method(method, kernel)
    block_size = _check_block_size(block_size)
    data = kernel.validate_data(data)
    n, k = int(data.shape[0]), kernel.degree
    if method in ("auto", "fast"):
        found = fast_path_for(kernel)
        if found is not None:
            name, path = found
            u_value, projections = path(data)
            return HajekProjections(
                float(u_value), np.asarray(projections, dtype=np.float64), n, k, f"fast:{name}"
            )
    total, per_index = _enumerate(data, kernel, block_size)
    label = "blocked" if k == 2 else "generic"
    return HajekProjections(
        total / float(math.comb(n, k)), per_index / float(math.comb(n - 1, k - 1)), n, k, label
    )


def u_statistic(data: Any, kernel: Kernel, *, method: str = "auto") -> float:
    """U_n = C(n,k)⁻¹ Σ_S h(X_S) (eq. 1); see :func:`local_hajek_projections`."""
    return local_hajek_projections(data, kernel, method=method).u_statistic


# ------------------------------------------------------------ weighted sums
def _check_weights(weights: Any, n: int | None = None) -> np.ndarray:
    try:
        array = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"weights must be real numbers: {exc}") from exc
    if array.ndim != 1 or array.size == 0:
        raise InvalidParameterError(
            f"weights must be a non-empty 1-d array, got shape {array.shape}"
        )
    if n is not None and array.size != n:
        raise InvalidParameterError(
            f"need one weight per record: {n} records, {array.size} weights"
        )
    bad = ~((array >= 0) & (array <= 1))  # also catches NaN
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidParameterError(f"weights must lie in [0, 1], found {array[i]!r} at index {i}")
    return array


def _check_degree(k: Any, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidParameterError(f"degree k must be an integer >= 1, got {k!r}")
    if k > n:
        raise InvalidParameterError(f"degree k={k} exceeds the number of weights n={n}")
    return int(k)


def min_weight_tuple_sum(weights: Any, k: int) -> float:
    """Σ_{S∈I_{n,k}} min_{i∈S} w_i in O(n log n).

    With the weights sorted ascending, w_(1) ≤ … ≤ w_(n), the r-th smallest is the minimum
    of exactly the C(n − r, k − 1) subsets made of it and k − 1 of the n − r records after it
    (ties broken by the sort order), so the sum is Σ_r w_(r)·C(n − r, k − 1).

    Parameters
    ----------
    weights : array_like, shape (n,)
        Weights in [0, 1].
    k : int
        Subset size, 1 ≤ k ≤ n.
    """
    w = _check_weights(weights)
    n = w.size
    k = _check_degree(k, n)
    ordered = np.sort(w)
    coefficients = comb(n - np.arange(1, n + 1), k - 1, exact=False)
    return float(np.dot(ordered, coefficients))


def _graph_edge_weighted_sum(adjacency, w: np.ndarray) -> float:
    upper = sp.triu(sp.coo_array(adjacency), k=1).tocoo()
    return float(np.minimum(w[upper.row], w[upper.col]).sum())


def _graph_triangle_weighted_sum(adjacency, w: np.ndarray, touching: np.ndarray) -> float:
    """Σ over triangles of min weight = #triangles − Σ_{triangles touching T} (1 − w_S)."""
    matrix = (
        sp.csr_array(adjacency) if sp.issparse(adjacency) else sp.csr_array(np.asarray(adjacency))
    )
    total = float(triangle_counts(matrix).sum() // 3)
    in_touching = np.zeros(w.size, dtype=bool)
    in_touching[touching] = True
    deficit = 0.0
    for i in touching:
        neighbours = matrix.indices[matrix.indptr[i] : matrix.indptr[i + 1]]
        if neighbours.size < 2:
            continue
        sub = sp.triu(matrix[neighbours][:, neighbours], k=1).tocoo()
        j, m = neighbours[sub.row], neighbours[sub.col]
        # count each triangle once, at its smallest-index member of T
        first = ~((in_touching[j] & (j < i)) | (in_touching[m] & (m < i)))
        weight = np.minimum(w[i], np.minimum(w[j[first]], w[m[first]]))
        deficit += float((1.0 - weight).sum())
    return total - deficit


def weighted_tuple_sum(data: Any, kernel: Kernel, weights: Any, *, method: str = "auto") -> float:
    """Σ_{S∈I_{n,k}} (min_{i∈S} w_i)·h(X_S), exactly.

    Only tuples touching T = {i : w_i < 1} carry a weight below 1, so when T is small the
    sum is Σ_S h(X_S) (from the fast path) − Σ_{S∩T≠∅} (1 − w_S)·h(X_S), enumerating only the
    C(n,k) − C(n−|T|,k) touching tuples.  Graph kernels (adjacency and RGG edge/triangle)
    sum over edges / triangles only.  Otherwise all tuples are enumerated once.

    Parameters
    ----------
    data : array_like
        The records.
    kernel : Kernel
        The kernel h.
    weights : array_like, shape (n,)
        Weights in [0, 1] (Algorithm 1's wt(i)).
    method : {"auto", "generic"}
        ``"generic"`` forces the full enumeration (for tests).

    References
    ----------
    Chaudhuri et al. 2024, Algorithm 1, lines 16–19; Section 4.2 (complexity).
    """
    kernel = _check_kernel(kernel)
    if method not in ("auto", "generic"):
        raise InvalidParameterError(f"method must be 'auto' or 'generic', got {method!r}")
    data = kernel.validate_data(data)
    n, k = int(data.shape[0]), kernel.degree
    w = _check_weights(weights, n)
    touching = np.flatnonzero(w < 1)
    base, keywords = _base_function(kernel.function)

    if method == "auto" and fast_path_for(kernel) is not None:  # values provably in range
        if base in (fn.rgg_edge, fn.rgg_triangle):
            data = adjacency_from_points(data, keywords["radius"])
            base = fn.adjacency_entry if base is fn.rgg_edge else fn.adjacency_triangle
        if base is fn.adjacency_entry:
            return _graph_edge_weighted_sum(data, w)
        if base is fn.adjacency_triangle:
            return _graph_triangle_weighted_sum(data, w, touching)

    def evaluate(tuples: np.ndarray) -> np.ndarray:
        return kernel.evaluate(data, tuples, validate=False)

    n_touching = math.comb(n, k) - math.comb(n - touching.size, k)
    if method == "auto" and fast_path_for(kernel) is not None and 2 * n_touching < math.comb(n, k):
        total = local_hajek_projections(data, kernel, method="fast").tuple_sum
        if touching.size == 0:
            return total
        others = np.flatnonzero(w >= 1)
        deficit = 0.0
        for size in range(1, k + 1):
            for tuples in iter_product_combinations(touching, size, others, k - size):
                deficit += float(np.dot(1.0 - w[tuples].min(axis=1), evaluate(tuples)))
        return total - deficit
    result = 0.0
    for tuples in iter_combinations(n, k):
        result += float(np.dot(w[tuples].min(axis=1), evaluate(tuples)))
    return result
