"""Deterministic background graphs for the adversarial node-neighbouring generators.

A worst case for a mechanism that truncates or thresholds degrees is a background in which
many nodes sit exactly at the threshold ``t``, so that rewiring one node pushes many of them
over it (``docs/derivations.md`` §7, item 2: "slope-targeted background").  The builders here
return edge lists on the public node set; the generators in :mod:`spec.relations.graphs`
turn them into neighbouring pairs.

* :func:`near_regular_edges` — every listed node at degree ``t`` (one node at ``t − 1``
  when ``t · m`` is odd): a circulant graph plus "opposite" chords.
* :func:`independent_neighbourhood_edges` — every node at degree ``t`` as far as parity
  allows, with the neighbours of one node ``v`` pairwise non-adjacent; rewiring ``v`` to
  the complement of its neighbourhood then pushes the ``n − 1 − t`` other nodes to
  ``t + 1`` while nothing is left among ``v``'s old neighbours.
"""

from __future__ import annotations

import networkx as nx

__all__ = ["independent_neighbourhood_edges", "near_regular_edges"]

_Edge = tuple[int, int]


def _edge(u: int, v: int) -> _Edge:
    return (u, v) if u < v else (v, u)


def near_regular_edges(nodes: list[int], degree: int) -> list[_Edge]:
    """Edges of a ``degree``-regular graph on ``nodes`` (one node short when parity forces).

    Node ``nodes[i]`` is joined to ``nodes[i ± k]`` (indices mod m) for
    ``k = 1 … ⌊degree/2⌋``; an odd ``degree`` adds the chords ``(i, i + ⌊m/2⌋)`` for
    ``i < ⌊m/2⌋``, a perfect matching when m is even and one that misses the last node when
    m is odd (then ``degree · m`` is odd and no ``degree``-regular graph exists).

    Parameters
    ----------
    nodes : list of int
        The m distinct nodes, in circulant order.
    degree : int
        Target degree, ``0 ≤ degree ≤ m − 1`` (the caller checks it).

    Returns
    -------
    list of (int, int)
        Distinct edges ``(u, v)`` with ``u < v``.

    Notes
    -----
    The circulant offsets are at most ``⌊degree/2⌋ < m/2``, so no offset meets its own
    negative and the chords (offset ``⌊m/2⌋ > ⌊degree/2⌋``) never repeat a circulant edge.
    """
    m = len(nodes)
    edges = {
        _edge(nodes[i], nodes[(i + k) % m]) for i in range(m) for k in range(1, degree // 2 + 1)
    }
    if degree % 2 == 1:
        half = m // 2
        edges.update(_edge(nodes[i], nodes[i + half]) for i in range(half))
    return sorted(edges)


def _graphical_residuals(residuals: list[int]) -> list[int]:
    """``residuals`` lowered (largest first, one unit at a time) until graphical."""
    lowered = list(residuals)
    while not nx.is_graphical(lowered, method="eg"):
        largest = max(range(len(lowered)), key=lambda i: (lowered[i], -i))
        lowered[largest] -= 1
    return lowered


def independent_neighbourhood_edges(n: int, degree: int, v: int) -> list[_Edge]:
    """A near-``degree``-regular graph on ``n`` nodes in which ``N(v)`` is independent.

    ``v`` is joined to the ``degree`` lowest-numbered other nodes U; the remaining nodes R
    (``|R| = n − 1 − degree``) take the other ``degree − 1`` edges of each ``u ∈ U``
    round-robin, and R is completed towards degree ``degree`` by a Havel–Hakimi
    realisation of the residual degrees (lowered by as little as possible when they are
    not graphical).  Hence ``v`` and every node of U have degree exactly ``degree``, no
    two nodes of U are adjacent, and the nodes of R have degree ≤ ``degree`` (all of them
    exactly ``degree`` whenever the residual sequence is graphical).

    Parameters
    ----------
    n : int
        Number of nodes.
    degree : int
        Target degree with ``1 ≤ degree`` and ``2·degree ≤ n`` (so that
        ``degree − 1 ≤ |R|``); the caller checks it.
    v : int
        The node whose neighbourhood is independent.

    Returns
    -------
    list of (int, int)
        Distinct edges ``(u, w)`` with ``u < w``.
    """
    others = [u for u in range(n) if u != v]
    neighbourhood, rest = others[:degree], others[degree:]
    edges = {_edge(v, u) for u in neighbourhood}
    from_neighbourhood = [0] * len(rest)
    if rest:
        for a, u in enumerate(neighbourhood):
            for k in range(degree - 1):
                j = (a * (degree - 1) + k) % len(rest)
                edges.add(_edge(u, rest[j]))
                from_neighbourhood[j] += 1
        residuals = _graphical_residuals([degree - c for c in from_neighbourhood])
        realised = nx.havel_hakimi_graph(residuals)
        edges.update(_edge(rest[a], rest[b]) for a, b in realised.edges())
    return sorted(edges)
