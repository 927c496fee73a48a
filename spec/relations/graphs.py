"""Neighbouring relations between graphs: edge-neighbouring and node-neighbouring.

Graphs are validated against a :class:`~spec.domains.GraphDomain` (simple, undirected,
node set ``{0, …, n − 1}``) and compared through their edge sets, each edge normalised
as the sorted tuple ``(u, v)`` with ``u < v``; deciding uses set operations only.

* :class:`EdgeNeighbouring`: the edge sets differ in at most one edge.
* :class:`NodeNeighbouring`: some node ``v`` covers every differing edge, i.e. one graph
  is the other with ``v``'s neighbourhood rewired (optionally within a degree bound).

The node relations also build the adversarial pairs of ``docs/derivations.md`` §7 (``v`` the
rewired node): :meth:`~NodeNeighbouring.star_toggle` (∅ against a star),
:meth:`~NodeNeighbouring.complement_rewiring`, :meth:`~NodeNeighbouring.hub_insertion`,
:meth:`~NodeNeighbouring.degree_preserving_swap` (``N(v)`` swapped for as many
non-neighbours), and the threshold backgrounds :meth:`~NodeNeighbouring.threshold_star_toggle`
and :meth:`~NodeNeighbouring.threshold_complement_rewiring`, which put many nodes exactly at
a degree threshold and push them over it.  Each returns a pair that :meth:`decide` relates.

Both relations own their adversarial neighbours and local-search moves (the interface of
:class:`~spec.relations.NeighbouringRelationBase`), built by :mod:`spec.relations._moves_graphs`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, Literal

import networkx as nx
import numpy as np

from .._random import RandomLike, as_generator
from .._types import NonNegativeInt
from ..domains import GraphDomain
from ..errors import InvalidGraphError, InvalidParameterError, UnsupportedCombinationError
from . import _moves_graphs as _moves
from ._base import AdversarialPair, LocalMoves, NeighbourDecision, NeighbouringRelationBase
from ._edge_sets import (
    EXACT_COVER_LIMIT,
    _edge,
    _require_graph_domain,
    _rewiring_distance,
    _show_edges,
)
from ._edge_sets import _edge_set as _edge_set  # also used by spec.relations.local
from ._edge_sets import _graph as _graph  # also used by spec.relations.local
from ._graph_backgrounds import independent_neighbourhood_edges, near_regular_edges
from ._moves_graphs import toggled

__all__ = [
    "EXACT_COVER_LIMIT",
    "EdgeNeighbouring",
    "MAX_EXHAUSTIVE_NODES",
    "NodeNeighbouring",
]

#: Largest number of nodes for which :meth:`NodeNeighbouring.neighbours` enumerates.
MAX_EXHAUSTIVE_NODES = 8
#: Random tries before the generators fall back on a deterministic choice.
_RANDOM_TRIES = 256


# ----------------------------------------------------------------------------------------
# edge-neighbouring
# ----------------------------------------------------------------------------------------
class EdgeNeighbouring(NeighbouringRelationBase):
    """Graphs on the same node set whose edge sets differ in at most one edge.

    The distance is ``|E Δ E′|``.  Generated neighbours respect the domain's degree bound.
    """

    kind: Literal["edge"] = "edge"

    def supports_domain(self, domain: Any) -> bool:
        """True for :class:`~spec.domains.GraphDomain`."""
        return isinstance(domain, GraphDomain)

    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        """Related iff ``|E(x) Δ E(y)| ≤ 1``.

        ``validated``: see :meth:`NeighbouringRelationBase.decide`.
        """
        checked = _require_graph_domain(self, domain)
        graphs = self._validated_inputs(checked, x, y, validated)
        difference = _edge_set(graphs[0]) ^ _edge_set(graphs[1])
        count = len(difference)
        if count == 0:
            return NeighbourDecision(True, "graphs are identical", 0.0)
        if count == 1:
            return NeighbourDecision(
                True, f"edge sets differ in edge {_show_edges(difference)}", 1.0
            )
        return NeighbourDecision(
            False, f"edge sets differ in {count} edges: {_show_edges(difference)}", float(count)
        )

    @staticmethod
    def _toggle_allowed(graph: nx.Graph, u: int, v: int, bound: int) -> bool:
        allowed: bool = graph.has_edge(u, v) or (
            graph.degree(u) < bound and graph.degree(v) < bound
        )
        return allowed

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> nx.Graph:
        """Toggle a uniformly random node pair among those the degree bound allows."""
        checked = _require_graph_domain(self, domain)
        graph = checked.validate(x)
        n, bound = checked.n_nodes, checked.degree_bound
        if n < 2:
            return graph
        gen = as_generator(rng)
        for _ in range(_RANDOM_TRIES):
            u, v = (int(i) for i in gen.choice(n, size=2, replace=False))
            if self._toggle_allowed(graph, u, v, bound):
                return toggled(graph, u, v)
        allowed = [
            (u, v)
            for u, v in itertools.combinations(range(n), 2)
            if self._toggle_allowed(graph, u, v, bound)
        ]
        if not allowed:
            return graph
        u, v = allowed[int(gen.integers(len(allowed)))]
        return toggled(graph, u, v)

    def neighbours(self, x: Any, domain: Any) -> Iterator[nx.Graph]:
        """Every single-pair toggle the degree bound allows (``C(n, 2)`` without a bound)."""
        checked = _require_graph_domain(self, domain)
        graph = checked.validate(x)
        bound = checked.degree_bound
        pairs = itertools.combinations(range(checked.n_nodes), 2)
        return (toggled(graph, u, v) for u, v in pairs if self._toggle_allowed(graph, u, v, bound))

    # -- adversarial neighbours and moves (see NeighbouringRelationBase) --------------------
    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """At a max-degree node of each extreme graph: drop its first edge, add its first
        non-edge (origin ``"extreme"``); deterministic, ``rng`` and the hints are unused."""
        return _moves.edge_extremes(_require_graph_domain(self, domain))

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterator[nx.Graph]:
        """Toggles at the nodes of highest degree first, each with every other node."""
        _require_graph_domain(self, domain)
        return _moves.edge_neighbours(x)

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """Moves by toggles (see :mod:`spec.relations._moves_graphs`).

        ``mutate``: one node pair toggled in both graphs (within the degree bound).
        ``target``: a random neighbour.  ``nudge``: the differing edge turns around one of
        its ends.
        """
        checked, gen = _require_graph_domain(self, domain), as_generator(rng)
        redraw = partial(self.random_neighbour, domain=checked, rng=gen)
        return LocalMoves(
            mutate=partial(_moves.mutated_graphs, x, y, checked.degree_bound, gen, node=False),
            target=partial(redraw, x),
            nudge=partial(_moves.nudged_graph, x, y, gen, node=False, redraw=redraw),
        )


# ----------------------------------------------------------------------------------------
# node-neighbouring
# ----------------------------------------------------------------------------------------
class _NodeRewiringBase(NeighbouringRelationBase):
    """Node-neighbouring logic shared by :class:`NodeNeighbouring` and ``LocalNodeRelation``."""

    max_degree: NonNegativeInt | None = None

    # -- bounds ---------------------------------------------------------------------------
    def supports_domain(self, domain: Any) -> bool:
        """True for :class:`~spec.domains.GraphDomain`."""
        return isinstance(domain, GraphDomain)

    def degree_bound(self, domain: GraphDomain) -> int:
        """The tighter of the relation's and the domain's degree bounds (at most ``n − 1``)."""
        bound = domain.degree_bound
        return bound if self.max_degree is None else min(bound, self.max_degree)

    def effective_domain(self, domain: Any) -> GraphDomain:
        """``domain`` with the relation's own degree bound folded in (:meth:`degree_bound`)."""
        checked = _require_graph_domain(self, domain)
        return GraphDomain(n_nodes=checked.n_nodes, max_degree=self.degree_bound(checked))

    def _bound_breach(self, graph: nx.Graph) -> tuple[int, int] | None:
        """``(node, degree)`` of the first node above ``max_degree``, if any."""
        if self.max_degree is None:
            return None
        for node, degree in sorted(graph.degree()):
            if degree > self.max_degree:
                return node, degree
        return None

    def _validated(self, x: Any, domain: Any) -> tuple[GraphDomain, nx.Graph]:
        """Validate ``x`` against ``domain`` and the relation's own degree bound.

        Raises
        ------
        InvalidGraphError
            If a node's degree exceeds the relation's ``max_degree``.
        """
        checked = _require_graph_domain(self, domain)
        graph = checked.validate(x)
        breach = self._bound_breach(graph)
        if breach is not None:
            raise InvalidGraphError(
                f"{type(self).__name__}: node {breach[0]} has degree {breach[1]}, "
                f"above max_degree={self.max_degree}"
            )
        return checked, graph

    # -- decide ---------------------------------------------------------------------------
    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        """Related iff one node ``v`` covers ``E(x) Δ E(y)`` and both graphs respect the bound.

        The distance is the minimum number of nodes covering the difference (0 for equal
        graphs, 1 for neighbours): exact up to :data:`EXACT_COVER_LIMIT`, otherwise a lower
        bound (the reason then says "at least").  ``validated``: see
        :meth:`NeighbouringRelationBase.decide`.
        """
        checked = _require_graph_domain(self, domain)
        graphs = self._validated_inputs(checked, x, y, validated)
        for which, graph in zip(("first", "second"), graphs, strict=True):
            breach = self._bound_breach(graph)
            if breach is not None:
                return NeighbourDecision(
                    False,
                    f"node {breach[0]} has degree {breach[1]} in the {which} graph, "
                    f"above max_degree={self.max_degree}",
                    float("inf"),
                )
        difference = _edge_set(graphs[0]) ^ _edge_set(graphs[1])
        if not difference:
            return NeighbourDecision(True, "graphs are identical", 0.0)
        common: set[int] = set(next(iter(difference)))
        for edge in difference:
            common.intersection_update(edge)
            if not common:
                break
        if common:
            centres = " or ".join(str(v) for v in sorted(common))
            return NeighbourDecision(
                True,
                f"edge sets differ in {len(difference)} edge(s), all at node {centres}: "
                f"{_show_edges(difference)}",
                1.0,
            )
        distance, exact = _rewiring_distance(difference)
        bound = "" if exact else "at least "
        return NeighbourDecision(
            False,
            f"edge sets differ in {len(difference)} edges with no common node "
            f"({_show_edges(difference)}); {bound}{distance} nodes must be rewired",
            float(distance),
        )

    # -- generation -----------------------------------------------------------------------
    @staticmethod
    def _rewired(graph: nx.Graph, v: int, neighbourhood: Iterable[int]) -> nx.Graph:
        """``graph`` with node ``v``'s neighbourhood replaced by ``neighbourhood``."""
        result = graph.copy()
        result.remove_edges_from(list(result.edges(v)))
        result.add_edges_from((v, u) for u in neighbourhood)
        return result

    @staticmethod
    def _rewiring_candidates(graph: nx.Graph, v: int, bound: int) -> list[int]:
        """Nodes that may be adjacent to ``v`` after a rewiring without breaking the bound.

        Node ``u``'s degree without its edge to ``v`` must be below the bound.
        """
        return [
            u for u in graph.nodes if u != v and graph.degree(u) - int(graph.has_edge(u, v)) < bound
        ]

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> nx.Graph:
        """Rewire a uniformly random node ``v`` to a random new neighbourhood.

        The new neighbourhood has a size ``k`` uniform in ``0 … min(bound, #candidates)``
        and is a uniform ``k``-subset of the nodes whose degree leaves room; draws that
        reproduce the old neighbourhood are retried.  The degree bound (relation's and
        domain's) holds for ``v`` and for every other node.
        """
        checked, graph = self._validated(x, domain)
        n, bound = checked.n_nodes, self.degree_bound(checked)
        gen = as_generator(rng)
        for _ in range(_RANDOM_TRIES):
            v = int(gen.integers(n))
            candidates = self._rewiring_candidates(graph, v, bound)
            k = int(gen.integers(0, min(bound, len(candidates)) + 1))
            chosen = {candidates[i] for i in gen.choice(len(candidates), size=k, replace=False)}
            if chosen != set(graph[v]):
                return self._rewired(graph, v, chosen)
        return self._fallback_neighbour(graph, n, bound)

    def random_pair(self, domain: Any, rng: RandomLike) -> tuple[nx.Graph, nx.Graph]:
        """A random graph within both degree bounds and a random node-neighbour of it."""
        checked = _require_graph_domain(self, domain)
        gen = as_generator(rng)
        x = self.effective_domain(checked).sample(gen)
        return x, self.random_neighbour(x, checked, gen)

    @staticmethod
    def _fallback_neighbour(graph: nx.Graph, n: int, bound: int) -> nx.Graph:
        """Drop one edge, or add one where the bound allows (``graph`` if neither exists)."""
        for u, v in sorted(_edge_set(graph)):
            result = graph.copy()
            result.remove_edge(u, v)
            return result
        if bound >= 1 and n >= 2:
            result = graph.copy()
            result.add_edge(0, 1)
            return result
        return graph.copy()

    def neighbours(self, x: Any, domain: Any) -> Iterator[nx.Graph]:
        """Every distinct graph obtained by rewiring one node, each once.

        Without a binding bound there are ``n · (2^{n−1} − 1) − C(n, 2)`` of them (a
        single-edge change is reachable from both of its endpoints).

        Raises
        ------
        UnsupportedCombinationError
            When ``n_nodes`` exceeds :data:`MAX_EXHAUSTIVE_NODES`.
        """
        checked, graph = self._validated(x, domain)
        n, bound = checked.n_nodes, self.degree_bound(checked)
        if n > MAX_EXHAUSTIVE_NODES:
            raise UnsupportedCombinationError(
                f"{type(self).__name__}.neighbours enumerates graphs of at most "
                f"{MAX_EXHAUSTIVE_NODES} nodes, got n_nodes={n}"
            )
        original = _edge_set(graph)

        def generate() -> Iterator[nx.Graph]:
            seen = {original}
            for v in range(n):
                old = set(graph[v])
                kept = frozenset(e for e in original if v not in e)
                candidates = self._rewiring_candidates(graph, v, bound)
                for k in range(min(bound, len(candidates)) + 1):
                    for chosen in itertools.combinations(candidates, k):
                        if set(chosen) == old:
                            continue
                        key = kept | {_edge(v, u) for u in chosen}
                        if key not in seen:
                            seen.add(key)
                            yield _graph(n, key)

        return generate()

    # -- adversarial neighbours and moves (see NeighbouringRelationBase) --------------------
    def threshold_hints(self, domain: Any, claimed_sensitivity: float | None = None) -> list[int]:
        """Degree thresholds worth trying first, from the claimed sensitivity and the bound.

        ``⌊Δ⌋`` and ``⌈Δ⌉`` for a claimed global sensitivity Δ, and ``max_degree − 1``
        for a bounded relation, kept in ``1 … n − 2`` (see
        :func:`spec.relations._moves_graphs.threshold_hints`).
        """
        n = _require_graph_domain(self, domain).n_nodes
        return _moves.threshold_hints(n, claimed_sensitivity, self.max_degree)

    def adversarial_pairs(
        self,
        domain: Any,
        rng: RandomLike = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ) -> Iterator[AdversarialPair]:
        """The node-neighbouring generators, most telling first, labelled by generator.

        Origins ``"star_toggle"``, ``"threshold_star_toggle"``,
        ``"threshold_complement_rewiring"``, ``"complement_rewiring"``,
        ``"hub_insertion"`` and ``"degree_preserving_swap"``, in the order of
        :func:`spec.relations._moves_graphs.node_extremes`; the thresholds of
        :meth:`threshold_hints` (from ``claimed_sensitivity``) come first.  Deterministic:
        ``rng`` is unused.
        """
        bounded = self.effective_domain(domain)
        hinted = self.threshold_hints(domain, claimed_sensitivity)
        return _moves.node_extremes(self, bounded, hinted)

    def extreme_neighbours(self, x: Any, domain: Any) -> Iterator[nx.Graph]:
        """Complement rewiring, isolation, hub insertion and degree-preserving swap of each
        node, highest degree first."""
        return _moves.node_neighbours(self, x, self.effective_domain(domain))

    def local_moves(self, x: Any, y: Any, domain: Any, rng: RandomLike) -> LocalMoves:
        """Moves by rewiring (see :mod:`spec.relations._moves_graphs`).

        ``mutate``: one node pair toggled in both graphs, unless it touches the rewired
        node (then ``y`` is redrawn).  ``target``: a complement rewiring, isolation, hub
        insertion or degree-preserving swap of a random node.  ``nudge``: one more edge at
        the rewired node is toggled.
        """
        checked, gen = _require_graph_domain(self, domain), as_generator(rng)
        bounded = self.effective_domain(checked)
        redraw = partial(self.random_neighbour, domain=checked, rng=gen)
        return LocalMoves(
            mutate=partial(_moves.mutated_graphs, x, y, bounded.degree_bound, gen, node=True),
            target=partial(_moves.targeted_node_move, self, x, checked.n_nodes, bounded, gen),
            nudge=partial(_moves.nudged_graph, x, y, gen, node=True, redraw=redraw),
        )

    # -- adversarial pair generators -----------------------------------------------------
    def _bound_for(self, n: int, domain: GraphDomain | None) -> int:
        bound = n - 1 if self.max_degree is None else min(self.max_degree, n - 1)
        return bound if domain is None else min(bound, domain.degree_bound)

    def star_toggle(self, n: int, v: int = 0) -> tuple[nx.Graph, nx.Graph]:
        """The empty graph on ``n`` nodes and the star centred at ``v``.

        The star joins ``v`` to the lowest-numbered other nodes, as many as ``max_degree``
        allows (all ``n − 1`` without a bound).

        Raises
        ------
        InvalidParameterError
            If ``n < 1`` or ``v`` is not a node.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidParameterError(f"star_toggle: n must be an integer >= 1, got {n!r}")
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
            raise InvalidParameterError(f"star_toggle: v must be a node in 0..{n - 1}, got {v!r}")
        leaves = [u for u in range(n) if u != v][: self._bound_for(n, None)]
        return _graph(n, []), _graph(n, [(v, u) for u in leaves])

    def _graph_and_node(
        self, graph: Any, v: int, domain: GraphDomain | None, what: str
    ) -> tuple[GraphDomain, nx.Graph]:
        if domain is None:
            if not isinstance(graph, nx.Graph):
                raise InvalidGraphError(
                    f"{what}: expected a networkx.Graph, got {type(graph).__name__}"
                )
            domain = GraphDomain(n_nodes=max(graph.number_of_nodes(), 1))
        checked, validated = self._validated(graph, domain)
        is_node = isinstance(v, (int, np.integer)) and not isinstance(v, bool)
        if not is_node or not 0 <= v < checked.n_nodes:
            raise InvalidParameterError(
                f"{what}: v must be a node in 0..{checked.n_nodes - 1}, got {v!r}"
            )
        return checked, validated

    def complement_rewiring(
        self, graph: Any, v: int, domain: GraphDomain | None = None
    ) -> tuple[nx.Graph, nx.Graph]:
        """``graph`` and ``graph`` with ``v``'s neighbourhood replaced by its complement.

        The new neighbourhood is ``V ∖ ({v} ∪ N(v))``, keeping only nodes with room under
        the degree bound and, if still too many, the ``bound`` lowest-numbered ones.
        """
        checked, validated = self._graph_and_node(graph, v, domain, "complement_rewiring")
        v = int(v)
        bound = self.degree_bound(checked)
        old = set(validated[v])
        complement = [u for u in self._rewiring_candidates(validated, v, bound) if u not in old][
            :bound
        ]
        return validated, self._rewired(validated, v, complement)

    def hub_insertion(
        self, background: Any, v: int, domain: GraphDomain | None = None
    ) -> tuple[nx.Graph, nx.Graph]:
        """``background`` with ``v`` isolated, and the same with ``v`` turned into a hub.

        The hub is joined to the lowest-numbered nodes that have room, up to the degree
        bound (to every other node without a bound).
        """
        checked, validated = self._graph_and_node(background, v, domain, "hub_insertion")
        v = int(v)
        bound = self.degree_bound(checked)
        isolated = self._rewired(validated, v, [])
        hub = self._rewiring_candidates(isolated, v, bound)[:bound]
        return isolated, self._rewired(isolated, v, hub)

    def degree_preserving_swap(
        self, graph: Any, v: int, domain: GraphDomain | None = None
    ) -> tuple[nx.Graph, nx.Graph]:
        """``graph`` and ``graph`` with ``v``'s neighbours swapped for as many non-neighbours.

        The ``k`` lowest-numbered neighbours of ``v`` are replaced by the ``k``
        lowest-numbered non-neighbours with room under the degree bound, ``k`` as large as
        possible, so ``v``'s degree is preserved and, when ``k = deg(v)``, the old and new
        neighbourhoods are disjoint (``docs/derivations.md`` §7, item 4).  A double-edge swap
        ``{a, b}, {c, d} → {a, c}, {b, d}`` touches four nodes and is not a node-neighbour
        pair in general; this one rewires ``v`` only, so ``2k`` other degrees move by one
        while ``v``'s own degree does not (the worst case of degrees-only mechanisms).

        Returns identical graphs when ``v`` is isolated or has no non-neighbour with room.
        """
        checked, validated = self._graph_and_node(graph, v, domain, "degree_preserving_swap")
        v = int(v)
        bound = self.degree_bound(checked)
        old = sorted(validated[v])
        fresh = [u for u in self._rewiring_candidates(validated, v, bound) if u not in old]
        k = min(len(old), len(fresh))
        return validated, self._rewired(validated, v, old[k:] + fresh[:k])

    def _threshold_arguments(
        self,
        n: Any,
        threshold: Any,
        v: Any,
        domain: GraphDomain | None,
        what: str,
        smallest: int,
        largest: Callable[[int], int],
    ) -> tuple[int, int, int, GraphDomain]:
        """Check ``(n, threshold, v)``; return them with the domain to use.

        ``largest(n)`` is the largest admissible threshold before the degree bound.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise InvalidParameterError(f"{what}: n must be an integer >= 2, got {n!r}")
        n = int(n)
        if domain is None:
            domain = GraphDomain(n_nodes=n)
        checked = _require_graph_domain(self, domain)
        if checked.n_nodes != n:
            raise InvalidParameterError(
                f"{what}: n = {n} differs from the domain's n_nodes = {checked.n_nodes}"
            )
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < n:
            raise InvalidParameterError(f"{what}: v must be a node in 0..{n - 1}, got {v!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)):
            raise InvalidParameterError(f"{what}: threshold must be an integer, got {threshold!r}")
        if not smallest <= threshold <= largest(n):
            raise InvalidParameterError(
                f"{what}: threshold must lie in {smallest}..{largest(n)}, got {threshold!r}"
            )
        bound = self.degree_bound(checked)
        if threshold >= bound:
            raise InvalidParameterError(
                f"{what}: threshold = {threshold} leaves no room to push a node above it "
                f"under the degree bound {bound} (need threshold < {bound})"
            )
        return n, int(threshold), int(v), checked

    def threshold_star_toggle(
        self, n: int, threshold: int, v: int = 0, domain: GraphDomain | None = None
    ) -> tuple[nx.Graph, nx.Graph]:
        """A background with every node but ``v`` at degree ``threshold``, then ``v`` a hub.

        The first graph is a near-regular graph of degree ``threshold`` on the other
        ``n − 1`` nodes (:func:`near_regular_edges`; one node at ``threshold − 1`` when
        parity forces) with ``v`` isolated; the second joins ``v`` to as many of them as
        the degree bound allows (all without a bound), those at exactly ``threshold``
        first, so up to ``n − 1`` nodes are pushed from ``threshold`` to
        ``threshold + 1`` (``docs/derivations.md`` §7, item 2: the worst case of
        truncation-based mechanisms that drop nodes of degree above a threshold).

        Parameters
        ----------
        n : int
            Number of nodes, ``≥ 2``.
        threshold : int
            ``0 ≤ threshold ≤ n − 2`` and below the degree bound.
        v : int
            The rewired node.
        domain : GraphDomain, optional
            Its degree bound is respected (``n`` must be its ``n_nodes``).

        Raises
        ------
        InvalidParameterError
            For ``n < 2``, a node ``v`` outside ``0 … n − 1``, a threshold outside
            ``0 … n − 2`` or not below the degree bound, or a domain of another size.
        """
        n, t, v, checked = self._threshold_arguments(
            n, threshold, v, domain, "threshold_star_toggle", 0, lambda size: size - 2
        )
        others = [u for u in range(n) if u != v]
        background = _graph(n, near_regular_edges(others, t))
        bound = self.degree_bound(checked)
        ranked = sorted(others, key=lambda u: (background.degree(u) != t, u))
        hub = [u for u in ranked if background.degree(u) < bound][:bound]
        return background, self._rewired(background, v, hub)

    def threshold_complement_rewiring(
        self, n: int, threshold: int, v: int = 0, domain: GraphDomain | None = None
    ) -> tuple[nx.Graph, nx.Graph]:
        """A near-regular background at degree ``threshold``, then ``v``'s complement rewiring.

        The background (:func:`independent_neighbourhood_edges`) has ``v`` and its
        ``threshold`` neighbours at degree exactly ``threshold``, no edge among those
        neighbours, and the other nodes at degree ``threshold`` as far as parity allows;
        the second graph replaces ``N(v)`` by its complement (within the degree bound), so
        up to ``n − 1 − threshold`` nodes are pushed to ``threshold + 1`` while ``v``'s old
        neighbours drop to ``threshold − 1``.  For a mechanism that drops the nodes of
        degree above ``threshold`` this takes the kept edge count from about
        ``n·threshold/2`` to (nearly) 0.

        Parameters
        ----------
        n : int
            Number of nodes, ``≥ 2``.
        threshold : int
            ``1 ≤ threshold ≤ n/2`` and below the degree bound.
        v : int
            The rewired node.
        domain : GraphDomain, optional
            Its degree bound is respected (``n`` must be its ``n_nodes``).

        Raises
        ------
        InvalidParameterError
            As :meth:`threshold_star_toggle`, with ``1 ≤ threshold ≤ n/2``.
        """
        n, t, v, checked = self._threshold_arguments(
            n, threshold, v, domain, "threshold_complement_rewiring", 1, lambda size: size // 2
        )
        background = _graph(n, independent_neighbourhood_edges(n, t, v))
        return self.complement_rewiring(background, v, checked)


class NodeNeighbouring(_NodeRewiringBase):
    """Graphs that differ only in the edges at one node ``v`` (``E Δ E′ ⊆ {{v, u}}``).

    Parameters
    ----------
    max_degree : int or None
        Optional degree bound that both graphs must respect (bounded-degree node DP);
        :meth:`decide` names the node that breaks it.

    Notes
    -----
    The distance is the minimum number of nodes whose rewiring turns one graph into the
    other, i.e. the minimum vertex cover of the difference graph ``E Δ E′`` (ignoring
    the bound in intermediate graphs).  It is exact up to :data:`EXACT_COVER_LIMIT` and a
    lower bound beyond.
    """

    kind: Literal["node"] = "node"
