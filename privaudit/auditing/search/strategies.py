"""Hypothesis strategies for domain elements and neighbouring pairs.

For users' property tests (``@given(neighbouring_pairs(spec))``) and for
:func:`~privaudit.auditing.search.shrink_pair`: :func:`domain_elements` draws canonical
elements of any input domain, :func:`neighbouring_pairs` draws ``(x, y)`` neighbours by
construction (no filtering), from one dispatch table of the built-in relations or the
relation's own :meth:`~spec.relations.NeighbouringRelationBase.neighbour_strategy`.  Values
shrink towards simple ones.  Needs the ``hypothesis`` package (a test dependency).

Details: ``docs/engine_notes.md``, "privaudit.auditing.search.strategies".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privaudit.auditing.search._common import check_count
from privaudit.spec import (
    AddRemoveOne,
    Categorical,
    DatasetDomain,
    EdgeNeighbouring,
    GraphDomain,
    IntegerRange,
    LocalNodeRelation,
    LocalRelation,
    MechanismSpec,
    NodeNeighbouring,
    QueryDistance,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.domains import UNBOUNDED_REACH, ScalarDomainBase
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

__all__ = ["DEFAULT_EXTRA_RECORDS", "domain_elements", "neighbouring_pairs"]

#: Records beyond ``min_size`` that a variable-size dataset may get by default.
DEFAULT_EXTRA_RECORDS = 4

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
#: Halvings of a real difference tried before a vector pair falls back on ``y = x``.
_REPAIR_HALVINGS = 64


# ----------------------------------------------------------------------------------------
# elements
# ----------------------------------------------------------------------------------------
def _check_reach(reach: Any) -> None:
    """Refuse an ``unbounded_reach`` that is not ``None`` or a finite number > 0."""
    if reach is None:
        return
    if (
        isinstance(reach, bool)
        or not isinstance(reach, numbers.Real)
        or not (math.isfinite(reach) and float(reach) > 0)
    ):
        raise InvalidParameterError(
            f"unbounded_reach must be a finite number > 0 or None, got {reach!r}"
        )


def _reach_bounds(element: ScalarDomainBase, reach: float | None) -> tuple[float, float]:
    """The element's bounds, unbounded sides cut ``reach`` beyond the other side (or 0)."""
    lo, hi = element.value_bounds()
    if reach is None:
        return lo, hi
    low = lo if math.isfinite(lo) else (hi if math.isfinite(hi) else 0.0) - reach
    high = hi if math.isfinite(hi) else (lo if math.isfinite(lo) else 0.0) + reach
    return low, high


def _scalar_values(element: ScalarDomainBase, reach: float | None) -> st.SearchStrategy[Any]:
    """Raw Python numbers of a scalar domain (ints for integer domains)."""
    lo, hi = _reach_bounds(element, reach)
    if isinstance(element, RealInterval):
        return st.floats(
            min_value=None if math.isinf(lo) else lo,
            max_value=None if math.isinf(hi) else hi,
            allow_nan=False,
            allow_infinity=False,
        )
    low = _INT64_MIN if math.isinf(lo) else max(_INT64_MIN, math.ceil(lo))
    high = _INT64_MAX if math.isinf(hi) else min(_INT64_MAX, math.floor(hi))
    return st.integers(min_value=low, max_value=high)


def _dtype_of(element: ScalarDomainBase) -> type:
    return np.int64 if element.is_integer_valued else np.float64


def _array_values(
    element: ScalarDomainBase, shape: Any, reach: float | None
) -> st.SearchStrategy[np.ndarray]:
    """Arrays of ``shape`` (an int, tuple or strategy) over ``element``; shrink to zeros."""
    values = _scalar_values(element, reach)
    return hnp.arrays(_dtype_of(element), shape, elements=values, fill=values)


def _graphs(domain: GraphDomain) -> st.SearchStrategy[nx.Graph]:
    """Graphs on ``n_nodes`` nodes: a list of node pairs kept while degrees allow."""
    n, bound = domain.n_nodes, domain.degree_bound
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    if not pairs or bound == 0:
        return st.just(n).map(lambda size: domain.validate(nx.empty_graph(size)))

    def build(chosen: list[tuple[int, int]]) -> nx.Graph:
        graph = nx.empty_graph(n)
        for u, v in chosen:
            if graph.degree(u) < bound and graph.degree(v) < bound:
                graph.add_edge(u, v)
        return domain.validate(graph)

    return st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)).map(build)


def domain_elements(
    domain: Any,
    *,
    max_extra_records: int = DEFAULT_EXTRA_RECORDS,
    unbounded_reach: float | None = UNBOUNDED_REACH,
) -> st.SearchStrategy[Any]:
    """A strategy drawing canonical elements of ``domain``.

    Parameters
    ----------
    domain : RealInterval, IntegerRange, Categorical, VectorDomain, DatasetDomain or GraphDomain
        The domain; every drawn value is ``domain.validate``-d (numpy scalars, arrays,
        fresh ``networkx.Graph`` objects).
    max_extra_records : int
        A variable-size dataset has ``min_size`` to ``min_size + max_extra_records``
        records (a fixed-size one exactly ``size``).
    unbounded_reach : float or None
        Unbounded sides of numeric domains are cut this far beyond the finite side (or
        0), as in :meth:`~spec.domains.RealInterval.extremes`; ``None`` draws from the
        whole (finite) range.

    Raises
    ------
    UnsupportedCombinationError
        For an object that is not one of the domains above.
    InvalidParameterError
        If ``max_extra_records`` is negative or ``unbounded_reach`` is not ``None`` or a
        finite number > 0.
    """
    extra = check_count(max_extra_records, "max_extra_records", 0)
    _check_reach(unbounded_reach)
    build = _lookup(_ELEMENTS, domain)
    if build is None:
        shown = domain.label() if hasattr(domain, "label") else repr(domain)
        raise UnsupportedCombinationError(f"domain_elements: no strategy for {shown}")
    return build(domain, extra, unbounded_reach)


def _scalar_elements(
    domain: ScalarDomainBase, extra: int, reach: float | None
) -> st.SearchStrategy[Any]:
    return _scalar_values(domain, reach).map(domain.validate)


def _vector_elements(
    domain: VectorDomain, extra: int, reach: float | None
) -> st.SearchStrategy[Any]:
    return _array_values(domain.element, domain.length, reach).map(domain.validate)


def _dataset_elements(
    domain: DatasetDomain, extra: int, reach: float | None
) -> st.SearchStrategy[Any]:
    record = domain.record
    element = record.element if isinstance(record, VectorDomain) else record
    sizes = (
        st.just(domain.size)
        if domain.size is not None
        else st.integers(domain.min_size, domain.min_size + extra)
    )
    shapes = sizes.map(lambda n: (n, *domain.record_shape))
    return _array_values(element, shapes, reach).map(domain.validate)


def _graph_elements(domain: GraphDomain, extra: int, reach: float | None) -> st.SearchStrategy[Any]:
    return _graphs(domain)


#: The one dispatch table of element strategies: domain type → builder
#: ``(domain, max_extra_records, unbounded_reach) → strategy``.
_ELEMENTS: dict[type, Callable[[Any, int, float | None], st.SearchStrategy[Any]]] = {
    RealInterval: _scalar_elements,
    IntegerRange: _scalar_elements,
    Categorical: _scalar_elements,
    VectorDomain: _vector_elements,
    DatasetDomain: _dataset_elements,
    GraphDomain: _graph_elements,
}


def _lookup(table: dict[type, Any], obj: Any) -> Any:
    """The entry of ``obj``'s class, or of its nearest base class in the table, or ``None``."""
    for cls in type(obj).__mro__:
        if cls in table:
            return table[cls]
    return None


def _record_elements(domain: DatasetDomain, reach: float | None) -> st.SearchStrategy[Any]:
    return domain_elements(domain.record, unbounded_reach=reach)


# ----------------------------------------------------------------------------------------
# neighbouring pairs
# ----------------------------------------------------------------------------------------
def _checked(spec: MechanismSpec, x: Any, y: Any) -> tuple[Any, Any]:
    """``(x, y)`` validated; raise :class:`~spec.errors.NotNeighboursError` if unrelated."""
    domain = spec.input_domain
    xv, yv = domain.validate(x), domain.validate(y)
    spec.relation.require_neighbours(xv, yv, domain, validated=True)
    return xv, yv


def neighbouring_pairs(
    spec: MechanismSpec,
    *,
    max_extra_records: int = DEFAULT_EXTRA_RECORDS,
    unbounded_reach: float | None = UNBOUNDED_REACH,
) -> st.SearchStrategy[tuple[Any, Any]]:
    """A strategy drawing ``(x, y)``: ``x`` from the domain, ``y`` a neighbour of ``x``.

    A relation that offers its own strategy
    (:meth:`~spec.relations.NeighbouringRelationBase.neighbour_strategy`) is used as it
    is, each pair validated and checked.  For the built-in relations the neighbour is drawn
    by the strategy of the dispatch table :data:`_NEIGHBOURS`: substitute-one — an index
    and a new record; add/remove-one — add a record at a position or remove one; query
    distance — a difference inside the ball (ℓ0: up to ``⌊radius⌋`` coordinates redrawn);
    edge — a node pair toggled (if the degree bound allows); node and local-node — a node
    and a new neighbourhood among the nodes with room; local — a second element.  ``x``
    is drawn from the relation's
    :meth:`~spec.relations.NeighbouringRelationBase.effective_domain`.

    Parameters
    ----------
    spec : MechanismSpec
        Supplies the domain and the relation.
    max_extra_records, unbounded_reach
        As in :func:`domain_elements`.

    Raises
    ------
    UnsupportedCombinationError
        For a relation without a strategy of its own or here.
    InvalidParameterError
        As in :func:`domain_elements`.
    """
    _check_reach(unbounded_reach)
    relation, domain = spec.relation, spec.input_domain
    own = relation.neighbour_strategy(domain)
    if own is not None:
        return own.map(lambda pair: _checked(spec, *pair))
    drawer = _lookup(_NEIGHBOURS, relation)
    if drawer is None:
        raise UnsupportedCombinationError(
            f"neighbouring_pairs: no strategy for the relation {type(relation).__name__}"
        )
    bounded = relation.effective_domain(domain)
    elements = domain_elements(
        bounded, max_extra_records=max_extra_records, unbounded_reach=unbounded_reach
    )

    @st.composite
    def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
        x = draw(elements)
        return _checked(spec, x, drawer(draw, relation, bounded, x, unbounded_reach))

    return pairs()


def _substituted(draw: st.DrawFn, domain: DatasetDomain, x: Any, reach: float | None) -> Any:
    index = draw(st.integers(0, x.shape[0] - 1))
    y = x.copy()
    y[index] = draw(_record_elements(domain, reach))
    return y


def _added_or_removed(draw: st.DrawFn, domain: DatasetDomain, x: Any, reach: float | None) -> Any:
    n = x.shape[0]
    add = draw(st.booleans()) or n <= domain.min_size
    if not add:
        return np.delete(x, draw(st.integers(0, n - 1)), axis=0)
    position = draw(st.integers(0, n))
    record = np.asarray(draw(_record_elements(domain, reach)), dtype=x.dtype)
    return np.insert(x, position, record, axis=0)


def _norm(step: np.ndarray, norm: str) -> float:
    magnitude = np.abs(step.astype(np.float64))
    if norm == "l0":
        return float(np.count_nonzero(magnitude))
    if norm == "l1":
        return float(magnitude.sum())
    if norm == "l2":
        return float(np.sqrt(np.sum(magnitude**2)))
    return float(magnitude.max(initial=0.0))


def _within_ball(
    draw: st.DrawFn, relation: QueryDistance, domain: Any, x: Any, reach: float | None
) -> Any:
    """A neighbour in the ball; for a monotone relation, moves against its direction undone."""
    y = _within_two_sided_ball(draw, relation, domain, x, reach)
    if not relation.monotone:
        return y
    directed = relation.one_sided(np.atleast_1d(x), np.atleast_1d(y).copy())
    return directed if isinstance(domain, VectorDomain) else directed[0]


def _within_two_sided_ball(
    draw: st.DrawFn, relation: QueryDistance, domain: Any, x: Any, reach: float | None
) -> Any:
    """``x`` plus a drawn difference of norm ≤ radius, clamped into the domain."""
    element = domain.element if isinstance(domain, VectorDomain) else domain
    vx = np.atleast_1d(x).copy()
    d = vx.size
    budget = math.floor(relation.radius * (1.0 + 1e-12))
    if relation.norm == "l0":
        chosen = draw(st.lists(st.integers(0, d - 1), unique=True, max_size=min(budget, d)))
        for j in chosen:
            vx[j] = draw(domain_elements(element, unbounded_reach=reach))
        return vx if isinstance(domain, VectorDomain) else vx[0]
    lo, hi = element.value_bounds()
    if element.is_integer_valued:
        lo, hi = max(lo, _INT64_MIN), min(hi, _INT64_MAX)
        steps = draw(st.lists(st.integers(-budget, budget), min_size=d, max_size=d))
        while _norm(np.array(steps, dtype=np.int64), relation.norm) > relation.radius:
            k = int(np.argmax(np.abs(steps)))
            steps[k] -= 1 if steps[k] > 0 else -1
        moved = [min(max(int(a) + s, lo), hi) for a, s in zip(vx.tolist(), steps, strict=True)]
        y = np.array([int(v) for v in moved], dtype=np.int64)
        return y if isinstance(domain, VectorDomain) else y[0]
    radius = relation.radius
    raw = draw(st.lists(st.floats(-radius, radius), min_size=d, max_size=d))
    step = np.array(raw, dtype=np.float64)
    size = _norm(step, relation.norm)
    if size > radius:
        step = step * (radius / size)
    for _ in range(_REPAIR_HALVINGS):
        moved_vector = np.clip(vx + step, lo, hi) + 0.0
        candidate = moved_vector if isinstance(domain, VectorDomain) else moved_vector[0]
        if relation.decide(x, candidate, domain):
            return candidate
        step = step / 2.0
    return x


def _edge_toggled(draw: st.DrawFn, domain: GraphDomain, x: nx.Graph) -> nx.Graph:
    n, bound = domain.n_nodes, domain.degree_bound
    if n < 2:
        return x
    u = draw(st.integers(0, n - 2))
    v = draw(st.integers(u + 1, n - 1))
    y = x.copy()
    if y.has_edge(u, v):
        y.remove_edge(u, v)
    elif y.degree(u) < bound and y.degree(v) < bound:
        y.add_edge(u, v)
    return y


def _node_rewired(draw: st.DrawFn, bounded: GraphDomain, x: nx.Graph) -> nx.Graph:
    """``x`` with a drawn node's neighbourhood replaced by a drawn set of nodes with room."""
    n, bound = bounded.n_nodes, bounded.degree_bound
    v = draw(st.integers(0, n - 1))
    room = [u for u in range(n) if u != v and x.degree(u) - int(x.has_edge(u, v)) < bound]
    chosen: list[int] = []
    if room and bound > 0:
        chosen = draw(st.lists(st.sampled_from(room), unique=True, max_size=min(bound, len(room))))
    y = x.copy()
    y.remove_edges_from(list(y.edges(v)))
    y.add_edges_from((v, u) for u in chosen)
    return y


def _other_element(
    draw: st.DrawFn, relation: LocalRelation, domain: Any, x: Any, reach: float | None
) -> Any:
    return draw(domain_elements(domain, unbounded_reach=reach))


#: A neighbour drawer: ``(draw, relation, domain, x, unbounded_reach) → y``, where
#: ``domain`` is the relation's effective domain.
_NeighbourDrawer = Callable[[st.DrawFn, Any, Any, Any, "float | None"], Any]

#: The one dispatch table of neighbour strategies of the built-in relations (a relation
#: outside it offers its own ``neighbour_strategy``).
_NEIGHBOURS: dict[type, _NeighbourDrawer] = {
    SubstituteOne: lambda draw, relation, domain, x, reach: _substituted(draw, domain, x, reach),
    AddRemoveOne: lambda draw, relation, domain, x, reach: _added_or_removed(
        draw, domain, x, reach
    ),
    QueryDistance: _within_ball,
    EdgeNeighbouring: lambda draw, relation, domain, x, reach: _edge_toggled(draw, domain, x),
    NodeNeighbouring: lambda draw, relation, domain, x, reach: _node_rewired(draw, domain, x),
    LocalNodeRelation: lambda draw, relation, domain, x, reach: _node_rewired(draw, domain, x),
    LocalRelation: _other_element,
}
