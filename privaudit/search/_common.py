"""Helpers shared by the search modules: pair keys, checked construction, pair anatomy.

Nothing here draws random numbers; the functions only look at pairs of validated inputs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from spec import GraphDomain, LocalNodeRelation, MechanismSpec, NodeNeighbouring
from spec.errors import InvalidInputError, InvalidParameterError

from ..pairs import CandidatePair, to_jsonable, verified_pair

__all__ = [
    "PairKey",
    "PairRegistry",
    "added_or_removed_record",
    "check_count",
    "differing_edges",
    "differing_index",
    "effective_graph_domain",
    "ordered_key",
    "rewired_node",
    "score_order",
    "try_pair",
    "unordered_key",
]

#: The canonical key of an ordered pair: the reprs of both inputs' JSON forms.
PairKey = tuple[str, str]


def ordered_key(x: Any, y: Any) -> PairKey:
    """``(repr(to_jsonable(x)), repr(to_jsonable(y)))``."""
    return repr(to_jsonable(x)), repr(to_jsonable(y))


def unordered_key(x: Any, y: Any) -> PairKey:
    """The ordered key of ``(x, y)`` or of ``(y, x)``, whichever sorts first."""
    forward = ordered_key(x, y)
    backward = (forward[1], forward[0])
    return min(forward, backward)


def check_count(value: Any, name: str, minimum: int) -> int:
    """Return ``value`` as an int ``≥ minimum``, or raise naming it.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer (booleans are refused) or is below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def try_pair(spec: MechanismSpec, x: Any, y: Any, origin: str) -> CandidatePair | None:
    """A verified pair of *distinct* neighbours, or ``None`` when ``(x, y)`` is not one.

    Inputs outside the domain, unrelated inputs and identical inputs (distance 0) all
    give ``None``: generators use this to discard what they should not return.
    """
    if x is None or y is None:
        return None
    try:
        pair = verified_pair(spec, x, y, origin)
    except InvalidInputError:
        return None
    return pair if pair.decision.distance > 0 else None


def score_order(pair: CandidatePair) -> float:
    """Sort key for "best first": the negated score, with ``nan`` after everything."""
    return math.inf if math.isnan(pair.score) else -pair.score


class PairRegistry:
    """Distinct pairs in the order they were first added (a pair and its swap count once).

    Parameters
    ----------
    capacity : int or None
        Largest number of pairs kept; :meth:`add` refuses more unless forced.
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity
        self.pairs: list[CandidatePair] = []
        self._keys: set[PairKey] = set()

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def full(self) -> bool:
        """True when no more pairs fit."""
        return self.capacity is not None and len(self.pairs) >= self.capacity

    def add(self, pair: CandidatePair | None, *, force: bool = False) -> bool:
        """Keep ``pair`` if it is new (and, unless ``force``, there is room); True if kept."""
        if pair is None or (self.full and not force):
            return False
        key = unordered_key(pair.x, pair.y)
        if key in self._keys:
            return False
        self._keys.add(key)
        self.pairs.append(pair)
        return True

    def add_all(self, pairs: Iterable[CandidatePair | None]) -> None:
        """:meth:`add` each pair until full."""
        for pair in pairs:
            if self.full:
                return
            self.add(pair)


# ----------------------------------------------------------------------------------------
# the anatomy of a pair
# ----------------------------------------------------------------------------------------
def differing_index(x: npt.NDArray[Any], y: npt.NDArray[Any]) -> int | None:
    """The first position where two equal-size datasets hold different records."""
    if x.shape != y.shape:
        return None
    unequal = x != y
    if unequal.ndim > 1:
        unequal = unequal.any(axis=tuple(range(1, unequal.ndim)))
    positions = np.flatnonzero(unequal)
    return int(positions[0]) if positions.size else None


def added_or_removed_record(
    x: npt.NDArray[Any], y: npt.NDArray[Any]
) -> tuple[str, npt.NDArray[Any]] | None:
    """``("added", r)`` when ``y`` is ``x`` plus record ``r``, ``("removed", r)`` when minus.

    ``None`` when the sizes do not differ by one or the multisets do not nest.
    """
    if abs(x.shape[0] - y.shape[0]) != 1:
        return None
    big, small, change = (y, x, "added") if y.shape[0] > x.shape[0] else (x, y, "removed")
    together = np.concatenate([big, small], axis=0)
    distinct, inverse = np.unique(together, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    counts_big = np.bincount(inverse[: big.shape[0]], minlength=distinct.shape[0])
    counts_small = np.bincount(inverse[big.shape[0] :], minlength=distinct.shape[0])
    excess = counts_big - counts_small
    if (excess < 0).any() or int(excess.sum()) != 1:
        return None
    return change, distinct[int(np.flatnonzero(excess)[0])]


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


def effective_graph_domain(spec: MechanismSpec) -> GraphDomain:
    """The spec's graph domain with the node relation's own degree bound folded in."""
    domain = spec.input_domain
    relation = spec.relation
    if isinstance(relation, (NodeNeighbouring, LocalNodeRelation)):
        return GraphDomain(n_nodes=domain.n_nodes, max_degree=relation.degree_bound(domain))
    return domain
