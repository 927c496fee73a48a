"""Graph statistics of the graph quality suite, and their exact sensitivities.

Each statistic reads a validated graph on ``{0, …, n − 1}`` through its sparse adjacency
(:func:`spec.adjacency_matrix`, converted once per call) and is vectorised with numpy.
Each sensitivity function returns the exact global sensitivity under the stated relation,
derived in its docstring; ``tests/quality/test_graph_suites.py`` verifies them by exhaustive
enumeration of every node- or edge-neighbouring pair for small ``n``.

Node-neighbouring: ``E Δ E′ ⊆ {{v, u} : u ≠ v}`` for one node ``v`` (Raskhodnikova,
Smith, Wagaman & Zavyalov, "Local Node Differential Privacy", arXiv 2602.15802, Section 2).
Edge-neighbouring: ``|E Δ E′| ≤ 1``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from privaudit.spec import adjacency_matrix
from privaudit.spec.errors import InvalidParameterError

__all__ = [
    "degree_histogram",
    "degree_histogram_edge_sensitivity",
    "degree_histogram_node_sensitivity",
    "edge_count",
    "edge_count_node_sensitivity",
    "triangle_count",
    "triangle_count_edge_sensitivity",
    "triangle_count_node_sensitivity",
    "truncated_edge_count",
    "truncated_edge_count_node_sensitivity",
]


def _adjacency(graph: Any) -> sp.csr_array:
    return adjacency_matrix(graph, graph.number_of_nodes())


def _degrees(adjacency: sp.csr_array) -> npt.NDArray[np.int64]:
    return np.asarray(adjacency.sum(axis=1), dtype=np.int64).ravel()


def _check_nodes(n: Any, minimum: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < minimum:
        raise InvalidParameterError(f"n must be an integer >= {minimum}, got {n!r}")
    return int(n)


# ----------------------------------------------------------------------------------------
# statistics
# ----------------------------------------------------------------------------------------
def edge_count(graph: Any) -> int:
    """|E|, the number of edges."""
    return int(_adjacency(graph).nnz // 2)


def truncated_edge_count(graph: Any, max_degree: int) -> int:
    """Edges of the subgraph induced by the nodes of degree ≤ ``max_degree`` (naive truncation).

    Nodes of degree above the threshold are dropped with all their edges; the degrees are
    those of the input graph.
    """
    adjacency = _adjacency(graph)
    kept = _degrees(adjacency) <= max_degree
    return int(adjacency[kept][:, kept].nnz // 2)


def degree_histogram(graph: Any) -> npt.NDArray[np.int64]:
    """Counts of nodes of degree 0, 1, …, n − 1 (a vector of length n)."""
    n = graph.number_of_nodes()
    return np.bincount(_degrees(_adjacency(graph)), minlength=n).astype(np.int64)


def triangle_count(graph: Any) -> int:
    """Number of triangles, ``Σ_{ij} (A²)_{ij} A_{ij} / 6`` (int64 arithmetic)."""
    adjacency = _adjacency(graph).astype(np.int64)
    return int((adjacency @ adjacency).multiply(adjacency).sum() // 6)


# ----------------------------------------------------------------------------------------
# sensitivities
# ----------------------------------------------------------------------------------------
def edge_count_node_sensitivity(n: int) -> int:
    """Node sensitivity of |E| over all graphs on n nodes: ``n − 1``.

    Rewiring ``v`` changes only edges at ``v``, so ``|E| − |E′| = d_v − d′_v`` with both
    degrees in ``0 … n − 1``; the star toggle (∅ against the star at ``v``) attains
    ``n − 1``.  Under a degree bound D the same argument gives ``min(D, n − 1)``.
    """
    return _check_nodes(n, 1) - 1


def truncated_edge_count_node_sensitivity(n: int, max_degree: int) -> int:
    """Node sensitivity of :func:`truncated_edge_count` over all graphs: ``n·D/2``.

    Proven here for even ``n ≥ 2D + 2`` (other sizes are refused rather than answered
    with a bound that may not be attained).

    *Upper bound.*  The kept subgraph has maximum degree ≤ D, so ``0 ≤ T(G) ≤ nD/2`` for
    every G, and no difference exceeds ``nD/2``.

    *Attained.*  For even n let G be D-regular and bipartite between the even and the odd
    nodes (D perfect matchings; ``D ≤ n/2``), so ``T(G) = nD/2`` and the neighbours U of
    any node ``v`` are pairwise non-adjacent.  Rewire ``v`` to the complement of U: ``v``
    gets degree ``n − 1 − D > D`` and every other non-neighbour ``D + 1`` (all dropped),
    U drops to ``D − 1`` (kept) with no edge inside: ``T(G′) = 0``.  The generator
    :meth:`~spec.NodeNeighbouring.threshold_complement_rewiring` builds such a pair (not
    bipartite, but with U independent and every degree D; checked in the tests for the
    suite's ``(n, D) = (10, 3)``, difference 15), and the tests confirm the value
    exhaustively for ``(n, D) = (4, 1), (6, 2)``.

    Raises
    ------
    InvalidParameterError
        If ``max_degree`` is not an integer ≥ 0, or n is not an even integer
        ``≥ 2·max_degree + 2``.
    """
    if (
        isinstance(max_degree, bool)
        or not isinstance(max_degree, (int, np.integer))
        or max_degree < 0
    ):
        raise InvalidParameterError(f"max_degree must be an integer >= 0, got {max_degree!r}")
    d = int(max_degree)
    n = _check_nodes(n, 2 * d + 2)
    if n % 2:
        raise InvalidParameterError(
            f"the exact node sensitivity of the truncated edge count is proven here for even "
            f"n only, got n = {n}"
        )
    return n * d // 2


def degree_histogram_edge_sensitivity() -> int:
    """Edge-level ℓ1 sensitivity of the degree histogram: 4.

    One edge ``{u, w}`` changes the degrees of ``u`` and ``w`` by one each; each leaves
    one bin and enters another, so the ℓ1 change is at most 4 (attained on ∅ against a
    single edge: two nodes move from bin 0 to bin 1).
    """
    return 4


def degree_histogram_node_sensitivity(n: int) -> int:
    """Node-level ℓ1 sensitivity of the degree histogram over graphs on n nodes: ``2n``.

    Rewiring ``v`` changes the degree of ``v`` and of the ``|N(v) Δ N′(v)| ≤ n − 1``
    nodes whose link to ``v`` toggles; a node whose degree changes moves one unit of
    mass between two bins (ℓ1 change ≤ 2), so the change is at most ``2n``.  The star
    toggle attains it for ``n ≥ 2``: bin 0 loses n, bin 1 gains ``n − 1`` and bin
    ``n − 1`` gains 1 (for ``n = 2`` both gains land in bin 1: still ``4 = 2n``).  The
    tests verify the value exhaustively for ``n ≤ 6``.
    """
    n = _check_nodes(n, 1)
    return 0 if n == 1 else 2 * n


def triangle_count_edge_sensitivity(n: int) -> int:
    """Edge sensitivity of the triangle count: ``n − 2`` (the triangles through one edge).

    An edge ``{u, w}`` lies in one triangle per common neighbour, at most ``n − 2``;
    ``K_n`` minus an edge against ``K_n`` attains it.
    """
    return max(_check_nodes(n, 1) - 2, 0)


def triangle_count_node_sensitivity(n: int) -> int:
    """Node sensitivity of the triangle count: ``C(n − 1, 2)``.

    Rewiring ``v`` changes only the triangles through ``v``, which are the edges among
    ``v``'s neighbours: between 0 and ``C(n − 1, 2)``.  ``K_{n−1}`` plus an isolated
    ``v`` against ``K_n`` attains it (complement rewiring or hub insertion on the complete
    graph).
    """
    return math.comb(_check_nodes(n, 1) - 1, 2)
