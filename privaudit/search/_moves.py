"""Relation-aware moves on pairs of inputs, shared by the candidate generator and the searches.

Every function returns raw inputs (or ``None`` when it has nothing to offer); callers turn
them into pairs with :func:`~privaudit.search._common.try_pair`, which discards anything
that is not a pair of distinct neighbours.  All randomness comes from the ``gen`` argument.

Moves
-----
:func:`redrawn_neighbour`
    A fresh random neighbour of ``x`` (the relation's own generator).
:func:`mutated_pair`
    Change ``x`` by one step and carry ``y`` along when the relation allows.
:func:`targeted_neighbour`
    A neighbour of ``x`` built from domain extremes (substitute an extreme record, a
    StatDP-style vector, a complement rewiring …).
:func:`nudged_neighbour`
    A small change of ``y`` that keeps ``x`` fixed (for maximising over one neighbourhood).
:func:`targeted_neighbours`
    The deterministic list of extreme-built neighbours of ``x``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from spec import (
    AddRemoveOne,
    DatasetDomain,
    EdgeNeighbouring,
    GraphDomain,
    LocalNodeRelation,
    LocalRelation,
    MechanismSpec,
    NodeNeighbouring,
    QueryDistance,
    SubstituteOne,
    VectorDomain,
)
from spec.domains import ScalarDomainBase

from ._common import (
    added_or_removed_record,
    differing_edges,
    differing_index,
    effective_graph_domain,
    rewired_node,
)

__all__ = [
    "NODE_RELATIONS",
    "mutated_pair",
    "nudged_neighbour",
    "redrawn_neighbour",
    "targeted_neighbour",
    "targeted_neighbours",
]

#: The relations that rewire one node's neighbourhood.
NODE_RELATIONS = (NodeNeighbouring, LocalNodeRelation)

#: Probabilities of a new scalar value being an extreme, a fresh sample, or a nudge.
_EXTREME, _FRESH = 0.4, 0.3
#: A bounded real value is nudged by a normal step of this fraction of the width.
_NUDGE_FRACTION = 0.125


# ----------------------------------------------------------------------------------------
# values and records
# ----------------------------------------------------------------------------------------
def _random_extreme(domain: Any, gen: np.random.Generator) -> Any:
    extremes = domain.extremes()
    return extremes[int(gen.integers(len(extremes)))]


def _nudged_scalar(element: ScalarDomainBase, value: Any, gen: np.random.Generator) -> Any:
    """``value`` moved a small random step, kept inside ``element``."""
    lo, hi = element.value_bounds()
    if element.is_integer_valued:
        step = int(gen.geometric(0.5)) * (1 if gen.random() < 0.5 else -1)
        moved = min(max(int(value) + step, lo), hi)
        return element.validate(int(moved))
    width = hi - lo
    scale = width * _NUDGE_FRACTION if math.isfinite(width) else max(1.0, abs(float(value)) / 4)
    return element.validate(float(np.clip(float(value) + gen.normal(0.0, scale), lo, hi)))


def _new_scalar(element: ScalarDomainBase, value: Any, gen: np.random.Generator) -> Any:
    """An extreme, a fresh sample or a nudge of ``value`` (probabilities 0.4, 0.3, 0.3)."""
    u = gen.random()
    if u < _EXTREME:
        return _random_extreme(element, gen)
    if u < _EXTREME + _FRESH:
        return element.sample(gen)
    return _nudged_scalar(element, value, gen)


def _new_record(record: Any, value: Any, gen: np.random.Generator) -> Any:
    """A new record near or far from ``value`` (vector records: an extreme, or one coordinate)."""
    if isinstance(record, VectorDomain):
        if gen.random() < _EXTREME:
            return _random_extreme(record, gen)
        moved = np.array(value, copy=True)
        j = int(gen.integers(record.length))
        moved[j] = _new_scalar(record.element, moved[j], gen)
        return moved
    return _new_scalar(record, value, gen)


def _appended(data: npt.NDArray[Any], record: Any) -> npt.NDArray[Any]:
    return np.concatenate([data, np.asarray(record, dtype=data.dtype)[None]], axis=0)


def _first_index_of(data: npt.NDArray[Any], record: Any) -> int | None:
    matches = data == np.asarray(record, dtype=data.dtype)
    if matches.ndim > 1:
        matches = matches.all(axis=1)
    found = np.flatnonzero(matches)
    return int(found[0]) if found.size else None


def _distinct_first_indices(data: npt.NDArray[Any]) -> list[int]:
    """Every index, those holding a record's first occurrence first (in order of index)."""
    _, first = np.unique(data, axis=0, return_index=True)
    leading = sorted(int(i) for i in first)
    chosen = set(leading)
    return leading + [i for i in range(data.shape[0]) if i not in chosen]


# ----------------------------------------------------------------------------------------
# vectors (query distance and local on scalar/vector domains)
# ----------------------------------------------------------------------------------------
def _element_of(domain: Any) -> ScalarDomainBase:
    return domain.element if isinstance(domain, VectorDomain) else domain


def _as_vector(value: Any) -> npt.NDArray[Any]:
    return np.atleast_1d(np.array(value, copy=True))


def _as_domain_value(vector: npt.NDArray[Any], domain: Any) -> Any:
    return vector if isinstance(domain, VectorDomain) else vector[0]


def _pulled_into_ball(relation: QueryDistance, x: Any, y: Any, domain: Any) -> Any:
    """``y`` moved towards ``x`` until the pair is related (real coordinates only)."""
    distance = relation.distance(x, y, domain)
    if distance <= relation.radius or relation.norm == "l0":
        return y
    element = _element_of(domain)
    if element.is_integer_valued:
        return None
    vx, vy = _as_vector(x).astype(np.float64), _as_vector(y).astype(np.float64)
    lo, hi = element.value_bounds()
    shrunk = vx + (vy - vx) * (relation.radius / distance) * (1.0 - 1e-9)
    return _as_domain_value(np.clip(shrunk, lo, hi) + 0.0, domain)


# ----------------------------------------------------------------------------------------
# graphs
# ----------------------------------------------------------------------------------------
def _toggled(graph: nx.Graph, u: int, v: int) -> nx.Graph:
    result = graph.copy()
    if result.has_edge(u, v):
        result.remove_edge(u, v)
    else:
        result.add_edge(u, v)
    return result


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


def _node_moves(relation: Any, graph: nx.Graph, v: int, domain: GraphDomain) -> list[nx.Graph]:
    """Complement rewiring, isolation, hub insertion and degree-preserving swap of ``v``."""
    _, complement = relation.complement_rewiring(graph, v, domain)
    isolated, hub = relation.hub_insertion(graph, v, domain)
    _, swapped = relation.degree_preserving_swap(graph, v, domain)
    return [complement, isolated, hub, swapped]


def _nodes_by_degree(graph: nx.Graph) -> list[int]:
    """Nodes by decreasing degree, ties by number."""
    return [v for v, _ in sorted(graph.degree(), key=lambda item: (-item[1], item[0]))]


# ----------------------------------------------------------------------------------------
# the moves
# ----------------------------------------------------------------------------------------
def redrawn_neighbour(spec: MechanismSpec, x: Any, gen: np.random.Generator) -> Any:
    """A fresh random neighbour of ``x`` from the relation's generator."""
    return spec.relation.random_neighbour(x, spec.input_domain, gen)


def mutated_pair(
    spec: MechanismSpec, x: Any, y: Any, gen: np.random.Generator
) -> tuple[Any, Any | None]:
    """``x`` changed by one step, and ``y`` changed alike (``None``: redraw it).

    Datasets: one random record of ``x`` becomes a record-domain extreme, a fresh record
    or a nudge.  Under substitute-one ``y`` takes the same record, unless the change hits
    the differing index: then ``y`` is kept (so only the values at that index move) or
    redrawn, with probability 1/2 each.  Under add/remove-one the added record is
    re-added, or the removed position removed again.  Vectors: one coordinate moves and
    ``y`` is translated alike (clamped into the domain, which only shrinks the
    difference).  Graphs: one node pair is toggled in both, unless (node relations) it
    touches the rewired node.  The local relation keeps ``y``.
    """
    domain, relation = spec.input_domain, spec.relation
    if isinstance(domain, DatasetDomain):
        return _mutated_datasets(relation, domain, x, y, gen)
    if isinstance(domain, GraphDomain):
        return _mutated_graphs(spec, x, y, gen)
    element = _element_of(domain)
    vx = _as_vector(x)
    j = int(gen.integers(vx.size))
    new_x = vx.copy()
    new_x[j] = _new_scalar(element, vx[j], gen)
    if isinstance(relation, LocalRelation):
        return _as_domain_value(new_x, domain), y
    vy = _as_vector(y)
    lo, hi = element.value_bounds()
    if element.is_integer_valued:
        moved = int(vy[j]) + int(new_x[j]) - int(vx[j])
        vy[j] = int(min(max(moved, lo), hi))
    else:
        vy[j] = float(np.clip(float(vy[j]) + float(new_x[j]) - float(vx[j]), lo, hi))
    return _as_domain_value(new_x, domain), _as_domain_value(vy, domain)


def _mutated_datasets(
    relation: Any, domain: DatasetDomain, x: Any, y: Any, gen: np.random.Generator
) -> tuple[Any, Any | None]:
    i = int(gen.integers(x.shape[0]))
    record = _new_record(domain.record, x[i], gen)
    new_x = x.copy()
    new_x[i] = record
    if isinstance(relation, SubstituteOne):
        d = differing_index(x, y)
        if d is None or (d == i and gen.random() < 0.5):
            return new_x, None
        if d == i:
            return new_x, y
        new_y = y.copy()
        new_y[i] = record
        return new_x, new_y
    change = added_or_removed_record(x, y)
    if change is None:
        return new_x, None
    kind, changed = change
    if kind == "added":
        return new_x, _appended(new_x, changed)
    position = _first_index_of(x, changed)
    return new_x, (None if position is None else np.delete(new_x, position, axis=0))


def _mutated_graphs(
    spec: MechanismSpec, x: nx.Graph, y: nx.Graph, gen: np.random.Generator
) -> tuple[Any, Any | None]:
    bound = effective_graph_domain(spec).degree_bound
    toggle = _random_toggle(x, bound, gen)
    if toggle is None:
        return x, None
    new_x = _toggled(x, *toggle)
    if isinstance(spec.relation, NODE_RELATIONS):
        centre = rewired_node(x, y)
        if centre is None or centre in toggle:
            return new_x, None
    return new_x, _toggled(y, *toggle)


def targeted_neighbour(spec: MechanismSpec, x: Any, y: Any, gen: np.random.Generator) -> Any:
    """A neighbour of ``x`` built from extremes, chosen at random.

    Substitute-one: the differing record of ``y`` (a random one when ``x == y``) becomes a
    record-domain extreme.  Add/remove-one: an extreme record is added.  Query distance:
    one of :meth:`~spec.relations.QueryDistance.extreme_neighbours`.  Node relations: a
    complement rewiring, isolation, hub insertion or degree-preserving swap of a random
    node.  Local: an extreme
    of the domain.  Edge: a random neighbour.
    """
    domain, relation = spec.input_domain, spec.relation
    if isinstance(relation, SubstituteOne):
        d = differing_index(x, y)
        d = int(gen.integers(x.shape[0])) if d is None else d
        new_y = x.copy()
        new_y[d] = _random_extreme(domain.record, gen)
        return new_y
    if isinstance(relation, AddRemoveOne):
        return _appended(x, _random_extreme(domain.record, gen))
    if isinstance(relation, QueryDistance):
        options = relation.extreme_neighbours(x, domain)
        return options[int(gen.integers(len(options)))] if options else None
    if isinstance(relation, NODE_RELATIONS):
        v = int(gen.integers(domain.n_nodes))
        options = _node_moves(relation, x, v, effective_graph_domain(spec))
        return options[int(gen.integers(len(options)))]
    if isinstance(relation, LocalRelation):
        return _random_extreme(domain, gen)
    return redrawn_neighbour(spec, x, gen)


def nudged_neighbour(spec: MechanismSpec, x: Any, y: Any, gen: np.random.Generator) -> Any:
    """A small change of ``y`` that should keep it a neighbour of the fixed ``x``.

    Substitute-one: the differing record moves to a new value, or to another index.
    Add/remove-one: the added record changes, or another record is removed.  Query
    distance: one coordinate of ``y`` moves (pulled back into the ball for real values).
    Edge: the differing edge turns around one of its ends.  Node relations: one more
    edge at the rewired node is toggled.  Local: one coordinate of ``y`` changes.
    """
    domain, relation = spec.input_domain, spec.relation
    if isinstance(relation, SubstituteOne):
        d = differing_index(x, y)
        if d is None:
            return redrawn_neighbour(spec, x, gen)
        new_y = x.copy()
        if gen.random() < 0.5:
            new_y[d] = _new_record(domain.record, y[d], gen)
        else:
            new_y[int(gen.integers(x.shape[0]))] = y[d]
        return new_y
    if isinstance(relation, AddRemoveOne):
        change = added_or_removed_record(x, y)
        if change is None:
            return redrawn_neighbour(spec, x, gen)
        kind, record = change
        if kind == "added":
            return _appended(x, _new_record(domain.record, record, gen))
        return np.delete(x, int(gen.integers(x.shape[0])), axis=0)
    if isinstance(domain, GraphDomain):
        return _nudged_graph(spec, x, y, gen)
    vy = _as_vector(y)
    j = int(gen.integers(vy.size))
    vy[j] = _new_scalar(_element_of(domain), vy[j], gen)
    moved = _as_domain_value(vy, domain)
    if isinstance(relation, QueryDistance):
        return _pulled_into_ball(relation, x, moved, domain)
    return moved


def _nudged_graph(spec: MechanismSpec, x: nx.Graph, y: nx.Graph, gen: np.random.Generator) -> Any:
    n = x.number_of_nodes()
    if n < 2:
        return None
    if isinstance(spec.relation, EdgeNeighbouring):
        difference = sorted(differing_edges(x, y))
        if not difference:
            return redrawn_neighbour(spec, x, gen)
        u = difference[0][int(gen.integers(2))]
    else:
        centre = rewired_node(x, y)
        u = int(gen.integers(n)) if centre is None else centre
        x = y
    w = int(gen.integers(n - 1))
    w = w + 1 if w >= u else w
    return _toggled(x, u, w)


def targeted_neighbours(spec: MechanismSpec, x: Any) -> Iterator[Any]:
    """Neighbours of ``x`` built from extremes, in a fixed order (lazily).

    Substitute-one: every index (first occurrences of distinct records first) × every
    record-domain extreme.  Add/remove-one: removal of each distinct record, addition of
    each record extreme.  Query distance: the StatDP-style extreme neighbours.  Edge:
    toggles at the nodes of highest degree first.  Node relations: complement rewiring,
    isolation, hub insertion and degree-preserving swap of each node, highest degree
    first.  Local: the domain's
    extremes.
    """
    domain, relation = spec.input_domain, spec.relation
    if isinstance(relation, SubstituteOne):
        for i in _distinct_first_indices(x):
            for record in domain.record.extremes():
                y = x.copy()
                y[i] = record
                yield y
    elif isinstance(relation, AddRemoveOne):
        if x.shape[0] > domain.min_size:
            _, first = np.unique(x, axis=0, return_index=True)
            for i in sorted(int(k) for k in first):
                yield np.delete(x, i, axis=0)
        for record in domain.record.extremes():
            yield _appended(x, record)
    elif isinstance(relation, QueryDistance):
        yield from relation.extreme_neighbours(x, domain)
    elif isinstance(relation, EdgeNeighbouring):
        for u in _nodes_by_degree(x):
            for v in range(x.number_of_nodes()):
                if v != u:
                    yield _toggled(x, u, v)
    elif isinstance(relation, NODE_RELATIONS):
        bounded = effective_graph_domain(spec)
        for v in _nodes_by_degree(x):
            yield from _node_moves(relation, x, v, bounded)
    elif isinstance(relation, LocalRelation):
        yield from domain.extremes()
