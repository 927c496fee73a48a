"""The adversarial neighbours and local-search moves of the graph relations.

Helpers of :class:`~spec.relations.EdgeNeighbouring`, :class:`~spec.relations.NodeNeighbouring`
and :class:`~spec.relations.LocalNodeRelation` (:mod:`spec.relations.graphs`,
:mod:`spec.relations.local`): pair anatomy (differing edges, the rewired node), the edge
patterns at a hub, the node-neighbouring generators in their order, and the moves of the
auditor's hill climbing.  The node generators themselves (star toggle, complement
rewiring …) are methods of the node relations, passed in as ``relation``; this module
imports nothing from :mod:`spec.relations.graphs`, which imports :func:`toggled` from here.
Every random choice is drawn from the ``gen`` argument, in a fixed order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import networkx as nx
import numpy as np

from ..domains import GraphDomain
from ._base import AdversarialPair

__all__ = [
    "differing_edges",
    "edge_extremes",
    "edge_neighbours",
    "mutated_graphs",
    "node_extremes",
    "node_moves",
    "node_neighbours",
    "nudged_graph",
    "rewired_node",
    "targeted_node_move",
    "threshold_hints",
    "toggled",
]


def toggled(graph: nx.Graph, u: int, v: int) -> nx.Graph:
    """A copy of ``graph`` with the node pair ``{u, v}`` toggled (edge removed or added)."""
    result = graph.copy()
    if result.has_edge(u, v):
        result.remove_edge(u, v)
    else:
        result.add_edge(u, v)
    return result


# ----------------------------------------------------------------------------------------
# the anatomy of a pair of graphs
# ----------------------------------------------------------------------------------------
def differing_edges(x: nx.Graph, y: nx.Graph) -> set[tuple[int, int]]:
    """The symmetric difference of the edge sets, edges as sorted tuples."""
    edges_x = {(min(u, v), max(u, v)) for u, v in x.edges()}
    edges_y = {(min(u, v), max(u, v)) for u, v in y.edges()}
    return edges_x ^ edges_y


def rewired_node(x: nx.Graph, y: nx.Graph) -> int | None:
    """The lowest node touching every differing edge (``None`` for equal graphs or none)."""
    difference = differing_edges(x, y)
    if not difference:
        return None
    common = set(next(iter(difference)))
    for edge in difference:
        common.intersection_update(edge)
    return min(common) if common else None


def _nodes_by_degree(graph: nx.Graph) -> list[int]:
    """Nodes by decreasing degree, ties by number."""
    return [v for v, _ in sorted(graph.degree(), key=lambda item: (-item[1], item[0]))]


def _max_degree_node(graph: nx.Graph) -> int:
    node: int = min(graph.nodes, key=lambda v: (-graph.degree(v), v))
    return node


def _min_degree_node(graph: nx.Graph) -> int:
    node: int = min(graph.nodes, key=lambda v: (graph.degree(v), v))
    return node


# ----------------------------------------------------------------------------------------
# edge-neighbouring
# ----------------------------------------------------------------------------------------
def edge_extremes(domain: GraphDomain) -> Iterator[AdversarialPair]:
    """At a max-degree node of each extreme graph: drop its first edge, add its first non-edge."""
    bound = domain.degree_bound
    for x in domain.extremes():
        if x.number_of_nodes() < 2:
            continue
        v = _max_degree_node(x)
        present = sorted(x[v])
        if present:
            y = x.copy()
            y.remove_edge(v, present[0])
            yield x, y, "extreme"
        absent = [u for u in x.nodes if u != v and u not in x[v] and x.degree(u) < bound]
        if absent and x.degree(v) < bound:
            y = x.copy()
            y.add_edge(v, absent[0])
            yield x, y, "extreme"


def edge_neighbours(x: nx.Graph) -> Iterator[nx.Graph]:
    """Toggles at the nodes of highest degree first, each with every other node."""
    for u in _nodes_by_degree(x):
        for v in range(x.number_of_nodes()):
            if v != u:
                yield toggled(x, u, v)


# ----------------------------------------------------------------------------------------
# node-neighbouring
# ----------------------------------------------------------------------------------------
def threshold_hints(n: int, claimed_sensitivity: float | None, max_degree: int | None) -> list[int]:
    """Degree thresholds worth trying first for a node relation, from the public claims.

    A mechanism that truncates or projects at degree D usually claims a sensitivity
    proportional to D (D itself for an edge count) under a relation whose own degree
    bound, if any, is D.  The hints are ``⌊Δ⌋`` and ``⌈Δ⌉`` for a claimed global
    sensitivity Δ, and ``max_degree − 1`` (the largest threshold that can still be pushed)
    for a bounded relation, kept when they lie in ``1 … n − 2``.  They only order the
    candidates: every other threshold is tried afterwards.
    """
    hints: list[int] = []
    if claimed_sensitivity is not None and math.isfinite(claimed_sensitivity):
        hints += [math.floor(claimed_sensitivity), math.ceil(claimed_sensitivity)]
    if max_degree is not None:
        hints.append(max_degree - 1)
    return [t for t in dict.fromkeys(hints) if 1 <= t <= n - 2]


def _threshold_pairs(
    relation: Any, bounded: GraphDomain, thresholds: Iterable[int]
) -> Iterator[AdversarialPair]:
    """Both threshold generators at each valid threshold (invalid ones are skipped)."""
    n, bound = bounded.n_nodes, bounded.degree_bound
    for t in thresholds:
        if 1 <= t < bound and t <= n - 2:
            x, y = relation.threshold_star_toggle(n, t, 0, bounded)
            yield x, y, "threshold_star_toggle"
        if 1 <= t < bound and t <= n // 2:
            x, y = relation.threshold_complement_rewiring(n, t, 0, bounded)
            yield x, y, "threshold_complement_rewiring"


def node_extremes(
    relation: Any, bounded: GraphDomain, hinted: list[int]
) -> Iterator[AdversarialPair]:
    """The node-neighbouring generators, most telling first.

    1. the star toggle (∅ against a star at node 0);
    2. threshold backgrounds at the ``hinted`` thresholds (:func:`threshold_hints`): many
       nodes at the threshold, pushed over it by a star toggle or a complement rewiring;
    3. complement rewiring of a hub and of an isolated node of each domain extreme;
    4. hub insertion at nodes 0 and n − 1 of each extreme;
    5. degree-preserving swaps at the hub of each extreme and of a half star (``v`` joined
       to ⌊(n − 1)/2⌋ nodes, so the old and new neighbourhoods split the other nodes);
    6. threshold backgrounds at every other valid threshold, in increasing order.

    ``relation`` is the node relation (it builds each pair), ``bounded`` the graph domain
    with the relation's degree bound folded in.
    """
    n = bounded.n_nodes
    x, y = relation.star_toggle(n, 0)
    yield x, y, "star_toggle"
    yield from _threshold_pairs(relation, bounded, hinted)
    backgrounds = bounded.extremes()
    for graph in backgrounds:
        for v in dict.fromkeys([_max_degree_node(graph), _min_degree_node(graph)]):
            x, y = relation.complement_rewiring(graph, v, bounded)
            yield x, y, "complement_rewiring"
    for graph in backgrounds:
        for v in dict.fromkeys([0, n - 1]):
            x, y = relation.hub_insertion(graph, v, bounded)
            yield x, y, "hub_insertion"
    half = min(bounded.degree_bound, (n - 1) // 2)
    half_star = nx.empty_graph(n)
    half_star.add_edges_from((0, u) for u in range(1, half + 1))
    for graph in (*backgrounds, half_star):
        x, y = relation.degree_preserving_swap(graph, _max_degree_node(graph), bounded)
        yield x, y, "degree_preserving_swap"
    others = [t for t in range(1, n - 1) if t not in hinted]
    yield from _threshold_pairs(relation, bounded, others)


def node_moves(relation: Any, graph: nx.Graph, v: int, bounded: GraphDomain) -> list[nx.Graph]:
    """Complement rewiring, isolation, hub insertion and degree-preserving swap of ``v``."""
    _, complement = relation.complement_rewiring(graph, v, bounded)
    isolated, hub = relation.hub_insertion(graph, v, bounded)
    _, swapped = relation.degree_preserving_swap(graph, v, bounded)
    return [complement, isolated, hub, swapped]


def node_neighbours(relation: Any, x: nx.Graph, bounded: GraphDomain) -> Iterator[nx.Graph]:
    """:func:`node_moves` of every node, highest degree first."""
    for v in _nodes_by_degree(x):
        yield from node_moves(relation, x, v, bounded)


def targeted_node_move(
    relation: Any, x: nx.Graph, n: int, bounded: GraphDomain, gen: np.random.Generator
) -> nx.Graph:
    """One of :func:`node_moves` of a random node, at random."""
    v = int(gen.integers(n))
    options = node_moves(relation, x, v, bounded)
    return options[int(gen.integers(len(options)))]


# ----------------------------------------------------------------------------------------
# local-search moves
# ----------------------------------------------------------------------------------------
def _random_toggle(graph: nx.Graph, bound: int, gen: np.random.Generator) -> tuple[int, int] | None:
    """A random node pair whose toggle keeps every degree within ``bound``."""
    n = graph.number_of_nodes()
    if n < 2:
        return None
    u, v = (int(i) for i in gen.choice(n, size=2, replace=False))
    if graph.has_edge(u, v) or max(graph.degree(u), graph.degree(v)) < bound:
        return u, v
    at_u = sorted(graph[u])
    if at_u:
        return u, int(at_u[int(gen.integers(len(at_u)))])
    return None


def mutated_graphs(
    x: nx.Graph, y: nx.Graph, bound: int, gen: np.random.Generator, *, node: bool
) -> tuple[nx.Graph, nx.Graph | None]:
    """One node pair toggled in both graphs (within ``bound``).

    With ``node`` (a node relation), ``y`` is redrawn (``None``) when the toggle touches
    the rewired node, or when there is none.
    """
    toggle = _random_toggle(x, bound, gen)
    if toggle is None:
        return x, None
    new_x = toggled(x, *toggle)
    if node:
        centre = rewired_node(x, y)
        if centre is None or centre in toggle:
            return new_x, None
    return new_x, toggled(y, *toggle)


def nudged_graph(
    x: nx.Graph, y: nx.Graph, gen: np.random.Generator, *, node: bool, redraw: Callable[[Any], Any]
) -> nx.Graph | None:
    """One more edge toggled around the change.

    Edge relation (``node`` false): the differing edge turns around one of its ends
    (``redraw(x)`` when ``x == y``).  Node relations: one more edge at the rewired node
    (a random node when there is none) is toggled in ``y``.
    """
    n = x.number_of_nodes()
    if n < 2:
        return None
    if not node:
        difference = sorted(differing_edges(x, y))
        if not difference:
            return redraw(x)
        u = difference[0][int(gen.integers(2))]
    else:
        centre = rewired_node(x, y)
        u = int(gen.integers(n)) if centre is None else centre
        x = y
    w = int(gen.integers(n - 1))
    w = w + 1 if w >= u else w
    return toggled(x, u, w)
