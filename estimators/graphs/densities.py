"""Exact (non-private) edge and triangle densities of a graph, from its sparse adjacency.

Both are U-statistics whose records are the nodes (Chaudhuri et al. 2024, Section 5.2):

* edge density      U_n = Σ_{i<j} A_ij / C(n, 2),
* triangle density  U_n = Σ_{i<j<l} A_ij A_jl A_il / C(n, 3) = trace(A³) / (6 C(n, 3)).

Triangle counts use one sparse product: t_i = ((A·A) ∘ A)·1 / 2 triangles through node i.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidParameterError

from ._adjacency import as_adjacency

__all__ = ["edge_density", "node_triangle_counts", "triangle_density"]


def _validated(graph: Any, validated: bool) -> Any:
    return graph if validated else as_adjacency(graph)


def _adjacency_of_order(graph: Any, validated: bool, minimum: int, what: str) -> tuple[Any, int]:
    """The (validated) adjacency and its number of nodes n, checked to be ≥ ``minimum``."""
    adjacency = _validated(graph, validated)
    n = adjacency.shape[0]
    if n < minimum:
        raise InvalidParameterError(f"{what} needs n >= {minimum} nodes, got n={n}")
    return adjacency, n


def edge_density(graph: Any, *, validated: bool = False) -> float:
    """Number of edges over C(n, 2); needs n ≥ 2.

    ``validated=True`` skips the validation of an adjacency that :func:`as_adjacency`
    (or :func:`~.node_chunks.induced_subgraph` of one) already returned.

    Examples
    --------
    >>> import networkx as nx
    >>> edge_density(nx.path_graph(4))
    0.5
    """
    adjacency, n = _adjacency_of_order(graph, validated, 2, "edge density")
    return float(adjacency.nnz // 2) / math.comb(n, 2)


def node_triangle_counts(graph: Any, *, validated: bool = False) -> np.ndarray:
    """t_i, the number of triangles through each node i (int64, shape (n,)).

    Examples
    --------
    >>> import networkx as nx
    >>> node_triangle_counts(nx.complete_graph(4)).tolist()
    [3, 3, 3, 3]
    """
    adjacency = _validated(graph, validated).astype(np.int64)
    closed = (adjacency @ adjacency).multiply(adjacency)
    return np.asarray(closed.sum(axis=1)).ravel().astype(np.int64) // 2


def triangle_density(graph: Any, *, validated: bool = False) -> float:
    """Number of triangles over C(n, 3); needs n ≥ 3 (``validated`` as in :func:`edge_density`).

    Examples
    --------
    >>> import networkx as nx
    >>> triangle_density(nx.complete_graph(5))
    1.0
    """
    adjacency, n = _adjacency_of_order(graph, validated, 3, "triangle density")
    counts = node_triangle_counts(adjacency, validated=True)
    return float(counts.sum() // 3) / math.comb(n, 3)
