"""Edge sets of simple graphs on ``{0, …, n − 1}`` (each edge the sorted tuple ``(u, v)``,
``u < v``) and the node-rewiring distance between two graphs: the helpers shared by
:mod:`spec.relations.graphs` and :mod:`spec.relations.local`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import networkx as nx

from ..domains import GraphDomain
from ..errors import UnsupportedCombinationError
from ._base import NeighbouringRelationBase

__all__ = ["EXACT_COVER_LIMIT"]

#: Node-rewiring distances up to this value are exact; beyond, a lower bound is reported.
EXACT_COVER_LIMIT = 8

_Edge = tuple[int, int]


def _edge(u: int, v: int) -> _Edge:
    return (u, v) if u < v else (v, u)


def _edge_set(graph: nx.Graph) -> frozenset[_Edge]:
    """The edges of ``graph`` as sorted tuples."""
    return frozenset(_edge(u, v) for u, v in graph.edges())


def _graph(n: int, edges: Iterable[_Edge]) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges)
    return graph


def _show_edges(edges: Iterable[_Edge], limit: int = 5) -> str:
    ordered = sorted(edges)
    shown = ", ".join(str(e) for e in ordered[:limit])
    return shown + (", …" if len(ordered) > limit else "")


def _require_graph_domain(relation: NeighbouringRelationBase, domain: Any) -> GraphDomain:
    if not relation.supports_domain(domain):
        shown = domain.label() if hasattr(domain, "label") else repr(domain)
        raise UnsupportedCombinationError(f"{type(relation).__name__} is not defined on {shown}")
    return cast(GraphDomain, domain)  # supports_domain is an isinstance check for GraphDomain


def _greedy_matching_size(edges: Iterable[_Edge]) -> int:
    covered: set[int] = set()
    size = 0
    for u, v in sorted(edges):
        if u not in covered and v not in covered:
            covered.update((u, v))
            size += 1
    return size


def _has_vertex_cover(edges: list[_Edge], k: int) -> bool:
    """Decide by a bounded search tree whether ≤ ``k`` nodes touch every edge."""
    if not edges:
        return True
    if k == 0:
        return False
    u, v = edges[0]
    return any(_has_vertex_cover([e for e in edges if w not in e], k - 1) for w in (u, v))


def _rewiring_distance(difference: frozenset[_Edge]) -> tuple[int, bool]:
    """Minimum vertex cover of the difference graph: ``(size, exact)``.

    Exact up to :data:`EXACT_COVER_LIMIT`; beyond it, ``(max(limit + 1, matching), False)``
    where ``matching`` is a maximal matching size (a lower bound of the cover).
    """
    if not difference:
        return 0, True
    matching = _greedy_matching_size(difference)
    if matching > EXACT_COVER_LIMIT:
        return matching, False
    edges = sorted(difference)
    for k in range(max(1, matching), EXACT_COVER_LIMIT + 1):
        if _has_vertex_cover(edges, k):
            return k, True
    return EXACT_COVER_LIMIT + 1, False
