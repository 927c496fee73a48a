"""Relations of local differential privacy: any two single inputs, or one node's view.

* :class:`LocalRelation`: in the local model each user randomises one value, and *any*
  two valid values are neighbours.
* :class:`LocalNodeRelation`: node-level local privacy on graphs; each node ``i`` holds
  its adjacency list ``N_G(i)``, and the graphs are node-neighbours (as in
  :class:`~spec.relations.graphs.NodeNeighbouring`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import networkx as nx
import numpy as np

from .._random import RandomLike, as_generator
from ..domains import Categorical, IntegerRange, RealInterval, VectorDomain
from ..errors import InvalidGraphError, UnsupportedCombinationError
from ._base import NeighbourDecision, NeighbouringRelationBase
from .graphs import _edge_set, _NodeRewiringBase

__all__ = ["LocalNodeRelation", "LocalRelation"]


class LocalRelation(NeighbouringRelationBase):
    """Any two valid single elements of a scalar or vector domain are neighbours.

    The distance is 0 for equal elements and 1 otherwise.
    """

    kind: Literal["local"] = "local"

    def supports_domain(self, domain: Any) -> bool:
        """True for scalar domains and :class:`~spec.domains.VectorDomain`."""
        return isinstance(domain, (RealInterval, IntegerRange, Categorical, VectorDomain))

    def _require_domain(self, domain: Any) -> Any:
        if not self.supports_domain(domain):
            shown = domain.label() if hasattr(domain, "label") else repr(domain)
            raise UnsupportedCombinationError(f"LocalRelation is not defined on {shown}")
        return domain

    def decide(
        self, x: Any, y: Any, domain: Any, *, validated: bool = False
    ) -> NeighbourDecision:
        """Always related once both inputs are valid elements of ``domain``.

        ``validated``: see :meth:`NeighbouringRelationBase.decide`.
        """
        checked = self._require_domain(domain)
        a, b = self._validated_inputs(checked, x, y, validated)
        if np.array_equal(a, b):
            return NeighbourDecision(True, "inputs are identical", 0.0)
        return NeighbourDecision(True, "any two valid inputs are neighbours (local model)", 1.0)

    def random_neighbour(self, x: Any, domain: Any, rng: RandomLike) -> Any:
        """A random element different from ``x`` (``x`` when the domain has one element)."""
        checked = self._require_domain(domain)
        return checked.sample_other(checked.validate(x), as_generator(rng))

    def neighbours(self, x: Any, domain: Any) -> Iterator[Any]:
        """Every other element of a finite domain.

        Raises
        ------
        UnsupportedCombinationError
            If the domain is infinite.
        """
        checked = self._require_domain(domain)
        value = checked.validate(x)
        if not checked.is_finite:
            raise UnsupportedCombinationError(
                f"LocalRelation neighbours over {checked.label()} are infinitely many"
            )
        return (element for element in checked.enumerate() if not np.array_equal(element, value))


class LocalNodeRelation(_NodeRewiringBase):
    """Node-neighbouring graphs seen through the nodes' own adjacency lists.

    Decides and generates exactly like
    :class:`~spec.relations.graphs.NodeNeighbouring` (optional ``max_degree``); adds
    the local views :meth:`adjacency_lists` and :meth:`changed_nodes`.
    """

    kind: Literal["local_node"] = "local_node"

    @staticmethod
    def _as_graph(graph: Any) -> nx.Graph:
        if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
            raise InvalidGraphError(
                f"expected a simple undirected networkx.Graph, got {type(graph).__name__}"
            )
        return graph

    def adjacency_lists(self, graph: Any) -> list[frozenset[int]]:
        """Node ``i``'s view ``N_G(i)`` for ``i = 0 … n − 1``.

        Raises
        ------
        InvalidGraphError
            If ``graph`` is not an undirected simple ``networkx.Graph`` on ``0 … n − 1``.
        """
        checked = self._as_graph(graph)
        n = checked.number_of_nodes()
        if set(checked.nodes) != set(range(n)):
            raise InvalidGraphError(f"the node set must be exactly 0..{n - 1}")
        return [frozenset(int(u) for u in checked[i]) for i in range(n)]

    def changed_nodes(self, graph: Any, other: Any) -> list[int]:
        """Sorted nodes whose adjacency lists differ between ``graph`` and ``other``.

        These are the endpoints of the differing edges.

        Raises
        ------
        InvalidGraphError
            If either input is not an undirected simple graph, or the node sets differ.
        """
        first, second = self._as_graph(graph), self._as_graph(other)
        if set(first.nodes) != set(second.nodes):
            raise InvalidGraphError(
                f"changed_nodes: the graphs have different node sets "
                f"({first.number_of_nodes()} vs {second.number_of_nodes()} nodes)"
            )
        difference = _edge_set(first) ^ _edge_set(second)
        return sorted({node for edge in difference for node in edge})
