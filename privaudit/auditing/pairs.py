"""Neighbouring pairs as the auditor passes them around, and their JSON form.

Every pair the auditor uses is a :class:`CandidatePair`, built only through
:func:`verified_pair`, which asks the relation's own ``decide`` method: an unrelated pair
raises :class:`~spec.errors.NotNeighboursError` and never reaches a check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx
import numpy as np

from privaudit.spec import MechanismSpec, NeighbourDecision

__all__ = [
    "CandidatePair",
    "from_jsonable_input",
    "input_key",
    "pair_key",
    "to_jsonable",
    "verified_pair",
]


@dataclass(frozen=True)
class CandidatePair:
    """Two inputs related by the spec's neighbouring relation.

    Attributes
    ----------
    x, y : object
        Canonical (validated) inputs; ``y`` is the neighbour of ``x``.
    origin : str
        Where the pair came from: ``"explicit"``, ``"random"``, ``"extreme"``, ``"split"``,
        ``"local_search"``, ``"hypothesis"``, ``"exhaustive"`` or a generator name such as
        ``"star_toggle"``.
    decision : NeighbourDecision
        The relation's verdict on the pair (always a neighbour).
    score : float
        The value of the objective the pair was selected for (``nan`` when none).
    """

    x: Any = field(repr=False)
    y: Any = field(repr=False)
    origin: str
    decision: NeighbourDecision
    score: float = math.nan

    def with_score(self, score: float) -> CandidatePair:
        """A copy carrying ``score``."""
        return replace(self, score=float(score))

    def swapped(self) -> CandidatePair:
        """The same pair in the other order (neighbouring relations are symmetric)."""
        return replace(self, x=self.y, y=self.x)


def verified_pair(
    spec: MechanismSpec, x: Any, y: Any, origin: str, score: float = math.nan
) -> CandidatePair:
    """Validate ``x`` and ``y`` against the spec's domain and check they are neighbours.

    Raises
    ------
    InvalidInputError
        If either input is not in the domain.
    NotNeighboursError
        If the relation does not relate them.
    """
    domain = spec.input_domain
    xv, yv = domain.validate(x), domain.validate(y)
    # both were just validated: the relation need not validate them again
    decision = spec.relation.require_neighbours(xv, yv, domain, validated=True)
    return CandidatePair(x=xv, y=yv, origin=origin, decision=decision, score=float(score))


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible rendering of an input or output (arrays, graphs, numpy scalars).

    Graphs become ``{"graph": {"nodes": n, "edges": [[u, v], ...]}}`` with sorted edges;
    non-finite floats become the strings ``"inf"``, ``"-inf"`` and ``"nan"``.
    """
    if isinstance(value, nx.Graph):
        edges = sorted((min(u, v), max(u, v)) for u, v in value.edges())
        return {"graph": {"nodes": value.number_of_nodes(), "edges": [list(e) for e in edges]}}
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.ndim else to_jsonable(value.item())
    if isinstance(value, (np.generic,)):
        return to_jsonable(value.item())
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted(to_jsonable(v) for v in value)
    return value


def input_key(value: Any) -> str:
    """A hashable identity of an input: equal for equal inputs of any type (arrays, graphs)."""
    return repr(to_jsonable(value))


def pair_key(x: Any, y: Any) -> str:
    """A hashable identity of the ordered pair (x, y) (:func:`input_key` of both)."""
    return repr((to_jsonable(x), to_jsonable(y)))


def from_jsonable_input(value: Any) -> Any:
    """Undo :func:`to_jsonable` for a graph input (``{"graph": {...}}`` → ``networkx.Graph``).

    Anything else is returned unchanged (the input domain's ``validate`` reads it).
    """
    if isinstance(value, dict) and set(value) == {"graph"} and isinstance(value["graph"], dict):
        graph = nx.Graph()
        graph.add_nodes_from(range(int(value["graph"]["nodes"])))
        graph.add_edges_from((int(u), int(v)) for u, v in value["graph"]["edges"])
        return graph
    return value
