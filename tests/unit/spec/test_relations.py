"""Unit tests of spec.relations: serialisation, deciding, and generating neighbours."""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import privaudit.spec.relations as relations
from privaudit.spec.domains import (
    Categorical,
    DatasetDomain,
    GraphDomain,
    IntegerRange,
    RealInterval,
    VectorDomain,
)
from privaudit.spec.errors import (
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    NotNeighboursError,
    UnsupportedCombinationError,
)
from privaudit.spec.relations import (
    AddRemoveOne,
    EdgeNeighbouring,
    LocalNodeRelation,
    LocalRelation,
    NeighbourDecision,
    NeighbouringRelation,
    NeighbouringRelationBase,
    NodeNeighbouring,
    QueryDistance,
    SubstituteOne,
)

FAST = settings(max_examples=30, deadline=None)
seeds = st.integers(0, 2**32 - 1)

RELATIONS = [
    SubstituteOne(),
    AddRemoveOne(),
    QueryDistance(norm="l0", radius=1),
    QueryDistance(norm="l1", radius=2.5),
    QueryDistance(norm="l2", radius=0.5),
    QueryDistance(norm="linf", radius=3),
    EdgeNeighbouring(),
    NodeNeighbouring(),
    NodeNeighbouring(max_degree=3),
    LocalRelation(),
    LocalNodeRelation(),
    LocalNodeRelation(max_degree=2),
]
RELATION_ADAPTER = TypeAdapter(NeighbouringRelation)


def _edges(graph: nx.Graph) -> frozenset[tuple[int, int]]:
    return frozenset(tuple(sorted(e)) for e in graph.edges())


def _on_nodes(n: int, edges: list[tuple[int, int]]) -> nx.Graph:
    graph = nx.empty_graph(n)
    graph.add_edges_from(edges)
    return graph


def _assert_related(relation, x, y, domain):
    """Check that y is a valid, related neighbour of x, and decide agrees in both directions."""
    assert domain.contains(y)
    forward, backward = relation.decide(x, y, domain), relation.decide(y, x, domain)
    assert forward.is_neighbour, forward.reason
    assert backward.is_neighbour and backward.distance == forward.distance
    return forward


# ----------------------------------------------------------------------------------------
# façade, serialisation, parameters
# ----------------------------------------------------------------------------------------
def test_facade_exports_a_sorted_explicit_all():
    assert relations.__all__ == sorted(relations.__all__)
    assert {"NeighbourDecision", "NeighbouringRelationBase", "NeighbouringRelation"} <= set(
        relations.__all__
    )
    assert all(hasattr(relations, name) for name in relations.__all__)
    assert all(isinstance(r, NeighbouringRelationBase) for r in RELATIONS)


@pytest.mark.parametrize("relation", RELATIONS, ids=repr)
def test_relation_json_round_trip_and_union(relation):
    assert type(relation).from_json(relation.to_json()) == relation
    assert RELATION_ADAPTER.validate_json(relation.to_json()) == relation
    assert RELATION_ADAPTER.validate_python(relation.model_dump()) == relation
    assert type(relation).from_json(relation.to_json()).content_hash == relation.content_hash


def test_relation_hashes_differ_by_any_field_and_kind():
    hashes = [r.content_hash for r in RELATIONS]
    assert len(set(hashes)) == len(hashes)
    assert QueryDistance(norm="l1", radius=1).content_hash == (
        QueryDistance(norm="l1", radius=1.0).content_hash
    )
    assert QueryDistance(norm="l1", radius=1).content_hash != (
        QueryDistance(norm="l1", radius=1.0000001).content_hash
    )
    node, local = NodeNeighbouring(max_degree=2), LocalNodeRelation(max_degree=2)
    assert node.content_hash != local.content_hash


@pytest.mark.parametrize(
    ("model", "kwargs", "named"),
    [
        (QueryDistance, {"norm": "l1", "radius": 0}, "radius"),
        (QueryDistance, {"norm": "l1", "radius": -1}, "-1"),
        (QueryDistance, {"norm": "l2", "radius": math.nan}, "nan"),
        (QueryDistance, {"norm": "l2", "radius": math.inf}, "inf"),
        (QueryDistance, {"norm": "l3", "radius": 1}, "l3"),
        (QueryDistance, {"radius": 1}, "norm"),
        (NodeNeighbouring, {"max_degree": -1}, "-1"),
        (NodeNeighbouring, {"max_degree": 1.5}, "1.5"),
        (LocalNodeRelation, {"max_degree": True}, "True"),
        (SubstituteOne, {"extra": 1}, "extra"),
        (EdgeNeighbouring, {"kind": "node"}, "node"),
    ],
)
def test_invalid_relation_parameters(model, kwargs, named):
    with pytest.raises(InvalidParameterError) as info:
        model(**kwargs)
    assert named in str(info.value)


#: A relation with a domain it is not defined on, for every relation.
UNSUPPORTED_COMBINATIONS = [
    (SubstituteOne(), GraphDomain(n_nodes=3)),
    (AddRemoveOne(), DatasetDomain(record=Categorical(size=2), size=3)),
    (QueryDistance(norm="l1", radius=1), DatasetDomain(record=Categorical(size=2))),
    (EdgeNeighbouring(), VectorDomain(element=Categorical(size=2), length=2)),
    (NodeNeighbouring(), DatasetDomain(record=Categorical(size=2))),
    (LocalRelation(), GraphDomain(n_nodes=3)),
    (LocalNodeRelation(), Categorical(size=3)),
]


@pytest.mark.parametrize(
    ("relation", "domain"),
    UNSUPPORTED_COMBINATIONS,
)
def test_unsupported_domains_are_refused(relation, domain):
    assert not relation.supports_domain(domain)
    x = domain.sample(0)
    with pytest.raises(UnsupportedCombinationError):
        relation.decide(x, x, domain)


# ----------------------------------------------------------------------------------------
# datasets: substitute one
# ----------------------------------------------------------------------------------------
@st.composite
def finite_records(draw: st.DrawFn):
    element = draw(
        st.sampled_from([Categorical(size=3), IntegerRange(lo=-1, hi=2), Categorical(size=1)])
    )
    if draw(st.booleans()):
        return VectorDomain(element=element, length=draw(st.integers(1, 2)))
    return element


any_records = st.one_of(
    finite_records(),
    st.sampled_from(
        [
            RealInterval(lo=-1, hi=1),
            IntegerRange(lo=0),
            VectorDomain(element=RealInterval(lo=0, hi=1), length=3),
        ]
    ),
)


@FAST
@given(any_records, st.integers(1, 6), seeds)
def test_substitute_one_random_neighbours_are_neighbours(record, n, seed):
    domain = DatasetDomain(record=record, size=n)
    relation = SubstituteOne()
    x, y = relation.random_pair(domain, seed)
    decision = _assert_related(relation, x, y, domain)
    assert decision.distance == (0.0 if record.cardinality == 1 else 1.0)


@FAST
@given(finite_records(), st.integers(1, 4), seeds)
def test_substitute_one_exhaustive_count_is_n_times_m_minus_one(record, n, seed):
    domain = DatasetDomain(record=record, size=n)
    relation = SubstituteOne()
    x = domain.sample(seed)
    found = list(relation.neighbours(x, domain))
    assert len(found) == n * (record.cardinality - 1)
    assert len({y.tobytes() for y in found}) == len(found)
    for y in found:
        assert relation.decide(x, y, domain).distance == 1.0


def test_substitute_one_exhaustive_matches_brute_force():
    domain = DatasetDomain(record=Categorical(size=3), size=3)
    relation = SubstituteOne()
    x = np.array([0, 2, 1])
    generated = {y.tobytes() for y in relation.neighbours(x, domain)}
    brute = {
        y.tobytes()
        for y in domain.enumerate()
        if not np.array_equal(x, y) and relation.decide(x, y, domain)
    }
    assert generated == brute and len(brute) == 3 * 2


def test_substitute_one_rejects_two_changes_and_size_changes():
    relation = SubstituteOne()
    domain = DatasetDomain(record=RealInterval(lo=0, hi=1))
    x = np.array([0.1, 0.2, 0.3, 0.4])
    two = x.copy()
    two[[1, 3]] = 0.9
    decision = relation.decide(x, two, domain)
    assert not decision and decision.distance == 2.0 and "indices 1, 3" in decision.reason
    sizes = relation.decide(x, x[:3], domain)
    assert not sizes and "sizes differ (4 vs 3)" in sizes.reason and sizes.distance == math.inf
    with pytest.raises(NotNeighboursError) as info:
        relation.require_neighbours(x, two, domain)
    assert "indices 1, 3" in str(info.value)
    assert relation.require_neighbours(x, x, domain).distance == 0.0


def test_substitute_one_vector_records_compare_whole_rows():
    relation = SubstituteOne()
    domain = DatasetDomain(record=VectorDomain(element=Categorical(size=4), length=2), size=3)
    x = np.array([[0, 1], [2, 3], [1, 1]])
    y = x.copy()
    y[1] = [3, 0]
    assert relation.decide(x, y, domain).distance == 1.0
    y[2, 0] = 0
    assert relation.decide(x, y, domain).distance == 2.0
    assert len(list(relation.neighbours(x, domain))) == 3 * (16 - 1)


def test_substitute_one_refuses_infinite_exhaustion_and_bad_data():
    relation = SubstituteOne()
    domain = DatasetDomain(record=RealInterval(lo=0, hi=1), size=2)
    with pytest.raises(UnsupportedCombinationError):
        relation.neighbours(np.array([0.1, 0.2]), domain)
    with pytest.raises(InvalidInputError):
        relation.decide(np.array([0.1, np.nan]), np.array([0.1, 0.2]), domain)
    with pytest.raises(InvalidInputError):
        relation.decide(np.array([0.1, 0.2]), np.array([0.1, 0.2, 0.3]), domain)


def test_dataset_decide_is_vectorised():
    rng = np.random.default_rng(0)
    domain = DatasetDomain(record=RealInterval(lo=0, hi=1))
    x = rng.random(1_000_000)
    y = x.copy()
    y[123_456] = 0.5
    start = time.perf_counter()
    assert SubstituteOne().decide(x, y, domain).distance == 1.0
    assert AddRemoveOne().decide(x, np.delete(x, 999), domain).is_neighbour
    assert time.perf_counter() - start < 5.0


# ----------------------------------------------------------------------------------------
# datasets: add or remove one
# ----------------------------------------------------------------------------------------
@FAST
@given(any_records, st.integers(1, 3), seeds)
def test_add_remove_one_random_neighbours_are_neighbours(record, min_size, seed):
    domain = DatasetDomain(record=record, min_size=min_size)
    relation = AddRemoveOne()
    x, y = relation.random_pair(domain, seed)
    decision = _assert_related(relation, x, y, domain)
    assert abs(len(x) - len(y)) == 1 and decision.distance == 1.0


@FAST
@given(finite_records(), st.integers(1, 5), seeds)
def test_add_remove_one_exhaustive_count(record, n, seed):
    domain = DatasetDomain(record=record, min_size=1)
    relation = AddRemoveOne()
    x = DatasetDomain(record=record, size=n).sample(seed)
    found = list(relation.neighbours(x, domain))
    distinct = len(np.unique(x, axis=0))
    assert len(found) == (distinct if n > 1 else 0) + record.cardinality
    multisets = {tuple(sorted(map(tuple, np.atleast_2d(y.T).T.tolist()))) for y in found}
    assert len(multisets) == len(found)
    for y in found:
        _assert_related(relation, x, y, domain)


def test_add_remove_one_compares_multisets():
    relation = AddRemoveOne()
    domain = DatasetDomain(record=IntegerRange(lo=0, hi=9))
    x = np.array([3, 1, 4, 1, 5])
    assert relation.decide(x, np.array([1, 5, 4, 3]), domain).is_neighbour  # one 1 removed
    assert relation.decide(x, np.array([5, 1, 4, 1, 3]), domain).distance == 0.0
    added = relation.decide(x, np.array([3, 1, 4, 1, 5, 9]), domain)
    assert added and "9" in added.reason and "added" in added.reason
    swapped = relation.decide(x, np.array([3, 1, 4, 1]), domain)
    assert swapped.is_neighbour
    wrong = relation.decide(x, np.array([3, 1, 4, 2]), domain)
    assert not wrong and wrong.distance == 3.0 and "not contained" in wrong.reason
    by_two = relation.decide(x, x[:3], domain)
    assert not by_two and "5 and 3" in by_two.reason and by_two.distance == 2.0
    same_size = relation.decide(x, np.array([3, 1, 4, 1, 6]), domain)
    assert not same_size and same_size.distance == 2.0
    with pytest.raises(NotNeighboursError):
        relation.require_neighbours(x, x[:3], domain)


def test_add_remove_one_vector_records_and_min_size():
    relation = AddRemoveOne()
    record = VectorDomain(element=RealInterval(lo=0, hi=1), length=2)
    domain = DatasetDomain(record=record, min_size=2)
    x = np.array([[0.1, 0.2], [0.3, 0.4]])
    y = relation.random_neighbour(x, domain, 0)
    assert y.shape == (3, 2)  # at min_size only additions are possible
    assert relation.decide(x, y, domain).is_neighbour
    assert not relation.decide(x, np.array([[0.1, 0.2], [0.4, 0.3]]), domain)


# ----------------------------------------------------------------------------------------
# query distance
# ----------------------------------------------------------------------------------------
norms = st.sampled_from(["l0", "l1", "l2", "linf"])
radii = st.sampled_from([0.3, 1.0, 1.5, 2.0, 3.7, 50.0])
elements = st.sampled_from(
    [
        RealInterval(lo=-1, hi=1),
        RealInterval(lo=0, hi=1e-3),
        RealInterval(),
        RealInterval(lo=0),
        IntegerRange(lo=0, hi=3),
        IntegerRange(lo=-5),
        IntegerRange(),
        Categorical(size=2),
        Categorical(size=1),
    ]
)


@FAST
@given(norms, radii, elements, st.integers(0, 5), seeds)
def test_query_distance_random_neighbours_are_neighbours(norm, radius, element, length, seed):
    domain = element if length == 0 else VectorDomain(element=element, length=length)
    relation = QueryDistance(norm=norm, radius=radius)
    rng = np.random.default_rng(seed)
    x = domain.sample(rng)
    for _ in range(5):
        y = relation.random_neighbour(x, domain, rng)
        decision = _assert_related(relation, x, y, domain)
        assert decision.distance <= radius * (1 + 1e-12)
        can_move = element.cardinality != 1 and (
            radius >= 1 or (isinstance(element, RealInterval) and norm != "l0")
        )
        if can_move:
            assert not np.array_equal(np.asarray(x), np.asarray(y))


@FAST
@given(norms, radii, elements, st.integers(1, 4), seeds)
def test_query_distance_extreme_neighbours_are_neighbours(norm, radius, element, length, seed):
    domain = VectorDomain(element=element, length=length)
    relation = QueryDistance(norm=norm, radius=radius)
    x = domain.sample(seed)
    found = relation.extreme_neighbours(x, domain)
    assert len({y.tobytes() for y in found}) == len(found)
    for y in found:
        _assert_related(relation, x, y, domain)
        assert not np.array_equal(x, y)


def test_query_distance_extreme_patterns_linf():
    relation = QueryDistance(norm="linf", radius=1)
    domain = VectorDomain(element=RealInterval(lo=-10, hi=10), length=4)
    found = {tuple(y.tolist()) for y in relation.extreme_neighbours(np.zeros(4), domain)}
    assert found == {
        (1, 0, 0, 0),
        (-1, 0, 0, 0),
        (1, 1, 1, 1),
        (-1, -1, -1, -1),
        (1, -1, -1, -1),
        (-1, 1, 1, 1),
        (-1, -1, -1, 1),
        (1, 1, 1, -1),
        (1, 1, -1, -1),
    }
    ordered = [tuple(y.tolist()) for y in relation.extreme_neighbours(np.zeros(4), domain)]
    # half-half is the ninth pattern (after the "last coordinate" ones): audits without
    # input pairs need a pair budget of at least 9 from the zero vector to reach it
    assert ordered.index((1, 1, -1, -1)) == 8
    l1 = QueryDistance(norm="l1", radius=1).extreme_neighbours(np.zeros(4), domain)
    assert any(np.allclose(y, 0.25) for y in l1)
    clipped = relation.extreme_neighbours(np.full(4, 10.0), domain)
    assert all(domain.contains(y) for y in clipped) and len(clipped) < 9


@FAST
@given(norms, radii, elements, st.integers(1, 4))
def test_query_distance_split_pairs_are_neighbours_without_swaps(norm, radius, element, length):
    domain = VectorDomain(element=element, length=length)
    relation = QueryDistance(norm=norm, radius=radius)
    found = relation.split_pairs(domain)
    keys = {frozenset((x.tobytes(), y.tobytes())) for x, y in found}
    assert len(keys) == len(found)  # neither a repeat nor a swap of another pair
    for x, y in found:
        _assert_related(relation, x, y, domain)
        assert domain.contains(x) and domain.contains(y) and not np.array_equal(x, y)


def test_query_distance_split_pairs_are_dp_snipers_sparse_vector_pairs():
    relation = QueryDistance(norm="linf", radius=1)
    domain = VectorDomain(element=RealInterval(), length=10)
    found = [(tuple(x.tolist()), tuple(y.tolist())) for x, y in relation.split_pairs(domain)]
    ones, zeros = (1.0,) * 5, (0.0,) * 5
    # DP-Sniper's best pair on SVT34Parallel: (1⁵0⁵, 0⁵1⁵), both inputs on a {0, 1} base
    assert (ones + zeros, zeros + ones) in found
    assert ((1.0,) + (0.0,) * 9, (0.0,) + (1.0,) * 9) in found
    assert ((0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,)) in found
    assert len(found) == 3
    # the most balanced split comes first: the pair choice's prior pair
    assert found[0] == (ones + zeros, zeros + ones)
    # they come right after the zero vector's patterns, before the extremes' patterns,
    # with origin "split" (the others are "extreme")
    generated = list(relation.adversarial_pairs(domain))
    zero_patterns = len(relation.extreme_neighbours(np.zeros(10), domain))
    assert zero_patterns == 9
    after = [(tuple(x.tolist()), tuple(y.tolist())) for x, y, _ in generated[9:12]]
    assert after == found
    origins = [origin for _, _, origin in generated]
    assert origins[9:12] == ["split"] * 3
    assert set(origins[:9]) == set(origins[12:]) == {"extreme"}
    # one-directional relations and ℓ0 have no split pairs; nor do domains without 0
    assert QueryDistance(norm="linf", radius=1, monotone=True).split_pairs(domain) == ()
    assert QueryDistance(norm="l0", radius=1).split_pairs(domain) == ()
    positive = VectorDomain(element=RealInterval(lo=0.5, hi=3.0), length=4)
    assert relation.split_pairs(positive) == ()


def _closed_form_box(x, lo, hi, r):
    return math.prod(min(hi, v + r) - max(lo, v - r) + 1 for v in x) - 1


@pytest.mark.parametrize("r", [1, 2, 3.5])
def test_query_distance_exhaustive_counts(r):
    element = IntegerRange(lo=0, hi=4)
    domain = VectorDomain(element=element, length=3)
    x = np.array([0, 2, 4])
    budget = math.floor(r)
    counts = {
        norm: len(list(QueryDistance(norm=norm, radius=r).neighbours(x, domain)))
        for norm in ("l0", "l1", "linf")
    }
    assert counts["linf"] == _closed_form_box(x, 0, 4, budget)
    assert counts["l0"] == sum(math.comb(3, k) * 4**k for k in range(1, min(budget, 3) + 1))
    for norm, count in counts.items():
        relation = QueryDistance(norm=norm, radius=r)
        brute = [
            y
            for y in domain.enumerate()
            if not np.array_equal(x, y) and relation.decide(x, y, domain)
        ]
        assert count == len(brute)
    # ℓ1 with radius 1: one unit step along each coordinate that has room
    assert len(list(QueryDistance(norm="l1", radius=1).neighbours(x, domain))) == 1 + 2 + 1


def test_query_distance_categorical_l0_and_scalar_domain():
    domain = VectorDomain(element=Categorical(size=5), length=4)
    relation = QueryDistance(norm="l0", radius=1)
    assert len(list(relation.neighbours(np.zeros(4, dtype=int), domain))) == 4 * (5 - 1)
    scalar = IntegerRange(lo=-3, hi=3)
    near = list(QueryDistance(norm="l1", radius=2).neighbours(0, scalar))
    assert sorted(int(v) for v in near) == [-2, -1, 1, 2]
    assert np.ndim(near[0]) == 0
    moved = QueryDistance(norm="l2", radius=0.25).random_neighbour(0.5, RealInterval(lo=0, hi=1), 0)
    assert np.ndim(moved) == 0 and abs(moved - 0.5) <= 0.25 + 1e-12


@pytest.mark.parametrize(
    ("norm", "element"),
    [
        ("l2", Categorical(size=3)),
        ("l1", RealInterval(lo=0, hi=1)),
        ("linf", IntegerRange(lo=0)),
        ("l0", IntegerRange()),
    ],
)
def test_query_distance_refuses_infinite_or_unsupported_exhaustion(norm, element):
    domain = VectorDomain(element=element, length=2)
    with pytest.raises(UnsupportedCombinationError):
        QueryDistance(norm=norm, radius=1).neighbours(domain.sample(0), domain)


def test_query_distance_rejects_pairs_beyond_the_radius():
    domain = VectorDomain(element=RealInterval(lo=-10, hi=10), length=3)
    x = np.array([0.0, 0.0, 0.0])
    cases = {
        "l0": (np.array([1.0, 1.0, 0.0]), 2.0),
        "l1": (np.array([0.6, 0.5, 0.0]), 1.1),
        "l2": (np.array([0.8, 0.7, 0.0]), math.hypot(0.8, 0.7)),
        "linf": (np.array([0.0, 0.0, -1.2]), 1.2),
    }
    for norm, (y, distance) in cases.items():
        relation = QueryDistance(norm=norm, radius=1)
        decision = relation.decide(x, y, domain)
        assert not decision and "> radius 1.0" in decision.reason
        assert decision.distance == pytest.approx(distance)
        assert not relation.decide(y, x, domain)
        with pytest.raises(NotNeighboursError):
            relation.require_neighbours(x, y, domain)


def test_query_distance_tolerance_is_relative_1e_minus_12():
    domain = VectorDomain(element=RealInterval(lo=-10, hi=10), length=1)
    relation = QueryDistance(norm="l1", radius=1)
    assert relation.decide([0.0], [1.0 + 1e-13], domain)
    assert not relation.decide([0.0], [1.0 + 1e-9], domain)


# ----------------------------------------------------------------------------------------
# graphs: edge-neighbouring
# ----------------------------------------------------------------------------------------
graph_domains = st.builds(
    GraphDomain, n_nodes=st.integers(1, 8), max_degree=st.none() | st.integers(0, 4)
)


@FAST
@given(graph_domains, seeds)
def test_edge_random_neighbours_are_neighbours(domain, seed):
    relation = EdgeNeighbouring()
    x, y = relation.random_pair(domain, seed)
    decision = _assert_related(relation, x, y, domain)
    if domain.n_nodes >= 2 and (domain.max_degree is None or domain.max_degree > 0):
        assert decision.distance == 1.0


@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_edge_exhaustive_count_is_n_choose_2(n):
    domain = GraphDomain(n_nodes=n)
    relation = EdgeNeighbouring()
    for x in (nx.empty_graph(n), nx.complete_graph(n), nx.path_graph(n)):
        found = list(relation.neighbours(x, domain))
        assert len(found) == n * (n - 1) // 2
        assert len({_edges(y) for y in found}) == len(found)
        for y in found:
            assert relation.decide(x, y, domain).distance == 1.0


def test_edge_exhaustive_with_degree_bound_matches_brute_force():
    domain = GraphDomain(n_nodes=5, max_degree=2)
    relation = EdgeNeighbouring()
    x = nx.Graph([(0, 1), (1, 2), (3, 4)])
    x.add_nodes_from(range(5))
    generated = {_edges(y) for y in relation.neighbours(x, domain)}
    brute = {
        _edges(y)
        for y in domain.enumerate()
        if _edges(y) != _edges(x) and relation.decide(x, y, domain)
    }
    assert generated == brute


def test_edge_rejects_two_edges():
    relation = EdgeNeighbouring()
    domain = GraphDomain(n_nodes=4)
    x = nx.empty_graph(4)
    y = nx.Graph([(0, 1), (2, 3)])
    decision = relation.decide(x, y, domain)
    assert not decision and decision.distance == 2.0 and "(0, 1), (2, 3)" in decision.reason
    with pytest.raises(NotNeighboursError):
        relation.require_neighbours(x, y, domain)


# ----------------------------------------------------------------------------------------
# graphs: node-neighbouring (and its local twin)
# ----------------------------------------------------------------------------------------
node_relations = st.sampled_from([NodeNeighbouring, LocalNodeRelation])


@FAST
@given(node_relations, graph_domains, st.none() | st.integers(0, 4), seeds)
def test_node_random_neighbours_are_neighbours(model, domain, bound, seed):
    relation = model(max_degree=bound)
    rng = np.random.default_rng(seed)
    x = domain.sample(rng)
    effective = relation.degree_bound(domain)
    # trim x to the relation's bound so that it is a valid input
    for node in range(domain.n_nodes):
        for neighbour in sorted(x[node])[effective:]:
            x.remove_edge(node, neighbour)
    y = relation.random_neighbour(x, domain, rng)
    decision = _assert_related(relation, x, y, domain)
    assert max(dict(y.degree()).values()) <= effective
    if domain.n_nodes >= 2 and effective >= 1:
        assert decision.distance == 1.0


def _brute_force_node_neighbours(relation, x, domain):
    return {
        _edges(y)
        for y in GraphDomain(n_nodes=domain.n_nodes).enumerate()
        if _edges(y) != _edges(x) and domain.contains(y) and relation.decide(x, y, domain)
    }


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_node_exhaustive_count_matches_closed_form_and_brute_force(n):
    relation = NodeNeighbouring()
    domain = GraphDomain(n_nodes=n)
    closed_form = n * (2 ** (n - 1) - 1) - math.comb(n, 2)
    for x in (nx.empty_graph(n), nx.path_graph(n), nx.complete_graph(n)):
        found = [_edges(y) for y in relation.neighbours(x, domain)]
        assert len(found) == len(set(found)) == closed_form
        assert set(found) == _brute_force_node_neighbours(relation, x, domain)


@pytest.mark.parametrize(("n", "bound"), [(4, 1), (5, 2), (5, 3)])
def test_node_exhaustive_with_degree_bound_matches_brute_force(n, bound):
    relation = NodeNeighbouring(max_degree=bound)
    domain = GraphDomain(n_nodes=n)
    for seed in range(3):
        x = GraphDomain(n_nodes=n, max_degree=bound).sample(seed)
        found = [_edges(y) for y in relation.neighbours(x, domain)]
        assert len(found) == len(set(found))
        bounded = GraphDomain(n_nodes=n, max_degree=bound)
        assert set(found) == _brute_force_node_neighbours(relation, x, bounded)


def test_node_exhaustive_refuses_large_graphs():
    domain = GraphDomain(n_nodes=9)
    with pytest.raises(UnsupportedCombinationError):
        NodeNeighbouring().neighbours(nx.empty_graph(9), domain)


def test_node_rejects_edges_without_common_node_and_reports_cover():
    relation = NodeNeighbouring()
    domain = GraphDomain(n_nodes=8)
    x = nx.empty_graph(8)
    two = relation.decide(x, _on_nodes(8, [(0, 1), (2, 3)]), domain)
    assert not two and two.distance == 2.0 and "no common node" in two.reason
    triangle = relation.decide(x, _on_nodes(8, [(0, 1), (1, 2), (0, 2)]), domain)
    assert not triangle and triangle.distance == 2.0
    matching = _on_nodes(8, [(0, 1), (2, 3), (4, 5), (6, 7)])
    assert relation.decide(x, matching, domain).distance == 4.0
    star = relation.decide(x, nx.star_graph(7), domain)
    assert star and star.distance == 1.0 and "node 0" in star.reason
    with pytest.raises(NotNeighboursError):
        relation.require_neighbours(x, matching, domain)


def test_node_decide_names_the_node_that_breaks_the_bound():
    relation = NodeNeighbouring(max_degree=2)
    domain = GraphDomain(n_nodes=5)
    x = nx.empty_graph(5)
    y = nx.star_graph(4)
    decision = relation.decide(x, y, domain)
    assert not decision and "node 0 has degree 4 in the second graph" in decision.reason
    assert not relation.decide(y, x, domain)
    with pytest.raises(InvalidGraphError):
        relation.random_neighbour(y, domain, 0)
    with pytest.raises(InvalidGraphError):
        GraphDomain(n_nodes=5, max_degree=2).validate(y)


@pytest.mark.parametrize("bound", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("model", [NodeNeighbouring, LocalNodeRelation])
def test_adversarial_node_pairs_are_neighbours(bound, model):
    relation = model(max_degree=bound)
    n = 7
    domain = GraphDomain(n_nodes=n)
    empty, star = relation.star_toggle(n, v=2)
    _assert_related(relation, empty, star, domain)
    assert star.degree(2) == (n - 1 if bound is None else bound)
    for seed in range(4):
        background = GraphDomain(n_nodes=n, max_degree=bound).sample(seed)
        for v in (0, 3):
            g, h = relation.complement_rewiring(background, v)
            _assert_related(relation, g, h, domain)
            free = {u for u in range(n) if u != v} - set(g[v])
            assert set(h[v]) <= free
            if bound is None:
                assert set(h[v]) == free
            isolated, hub = relation.hub_insertion(background, v, domain)
            _assert_related(relation, isolated, hub, domain)
            assert isolated.degree(v) == 0
            if bound is None:
                assert hub.degree(v) == n - 1
            if bound is not None:
                for graph in (h, hub):
                    assert max(dict(graph.degree()).values()) <= bound


def test_adversarial_generators_check_their_arguments():
    relation = NodeNeighbouring()
    with pytest.raises(InvalidParameterError):
        relation.star_toggle(0)
    with pytest.raises(InvalidParameterError):
        relation.star_toggle(3, v=3)
    with pytest.raises(InvalidParameterError):
        relation.hub_insertion(nx.empty_graph(3), 5)
    with pytest.raises(InvalidGraphError):
        relation.complement_rewiring(nx.DiGraph([(0, 1)]), 0)


def test_local_node_views():
    relation = LocalNodeRelation()
    x = nx.path_graph(4)
    assert relation.adjacency_lists(x) == [
        frozenset({1}),
        frozenset({0, 2}),
        frozenset({1, 3}),
        frozenset({2}),
    ]
    y = relation.complement_rewiring(x, 0)[1]
    assert relation.changed_nodes(x, y) == [0, 1, 2, 3]
    assert relation.changed_nodes(x, x) == []
    assert relation.changed_nodes(x, nx.Graph([(0, 1), (1, 2), (2, 3), (0, 2)])) == [0, 2]
    with pytest.raises(InvalidGraphError):
        relation.adjacency_lists(nx.DiGraph([(0, 1)]))
    with pytest.raises(InvalidGraphError):
        relation.changed_nodes(x, nx.path_graph(5))


# ----------------------------------------------------------------------------------------
# local relation
# ----------------------------------------------------------------------------------------
local_domains = st.sampled_from(
    [
        RealInterval(lo=0, hi=1),
        RealInterval(),
        IntegerRange(lo=-2, hi=2),
        IntegerRange(),
        Categorical(size=4),
        Categorical(size=1),
        VectorDomain(element=Categorical(size=2), length=3),
        VectorDomain(element=RealInterval(lo=-1, hi=1), length=2),
    ]
)


@FAST
@given(local_domains, seeds)
def test_local_relation_random_neighbours(domain, seed):
    relation = LocalRelation()
    x, y = relation.random_pair(domain, seed)
    decision = _assert_related(relation, x, y, domain)
    assert decision.distance == (0.0 if domain.cardinality == 1 else 1.0)


def test_local_relation_exhaustive_and_validity():
    relation = LocalRelation()
    domain = VectorDomain(element=Categorical(size=3), length=2)
    found = list(relation.neighbours(np.array([1, 2]), domain))
    assert len(found) == 9 - 1
    assert len(list(relation.neighbours(2, Categorical(size=5)))) == 4
    with pytest.raises(UnsupportedCombinationError):
        relation.neighbours(0.5, RealInterval(lo=0, hi=1))
    with pytest.raises(InvalidInputError):
        relation.decide(0.5, 1.5, RealInterval(lo=0, hi=1))
    assert relation.decide(0.0, 1.0, RealInterval(lo=0, hi=1)).is_neighbour


# ----------------------------------------------------------------------------------------
# cross-cutting properties
# ----------------------------------------------------------------------------------------
PAIR_CASES = [
    (SubstituteOne(), DatasetDomain(record=Categorical(size=3), size=4)),
    (AddRemoveOne(), DatasetDomain(record=RealInterval(lo=0, hi=1))),
    (QueryDistance(norm="l2", radius=1), VectorDomain(element=RealInterval(lo=-1, hi=1), length=3)),
    (QueryDistance(norm="l1", radius=2), VectorDomain(element=IntegerRange(lo=0, hi=5), length=3)),
    (EdgeNeighbouring(), GraphDomain(n_nodes=5, max_degree=2)),
    (NodeNeighbouring(max_degree=2), GraphDomain(n_nodes=6)),
    (LocalRelation(), Categorical(size=3)),
    (LocalNodeRelation(), GraphDomain(n_nodes=4)),
]


@FAST
@given(st.sampled_from(PAIR_CASES), seeds, seeds)
def test_decide_is_symmetric_on_arbitrary_pairs(case, seed_x, seed_y):
    relation, domain = case
    x, y = domain.sample(seed_x), domain.sample(seed_y)
    forward, backward = relation.decide(x, y, domain), relation.decide(y, x, domain)
    assert isinstance(forward, NeighbourDecision)
    assert forward.is_neighbour == backward.is_neighbour
    assert forward.distance == backward.distance
    assert forward.reason
    same = relation.decide(x, x, domain)
    assert same.distance == 0.0 or "above max_degree" in same.reason


@pytest.mark.parametrize(("relation", "domain"), PAIR_CASES, ids=lambda v: repr(v)[:40])
def test_random_pairs_are_reproducible_and_checked(relation, domain):
    first = relation.random_pair(domain, 11)
    second = relation.random_pair(domain, 11)
    for a, b in zip(first, second, strict=True):
        if isinstance(a, nx.Graph):
            assert _edges(a) == _edges(b)
        else:
            np.testing.assert_array_equal(a, b)
    assert relation.require_neighbours(*first, domain).is_neighbour


# ----------------------------------------------------------------------------------------
# deciding on inputs that are already validated
# ----------------------------------------------------------------------------------------
VALIDATED_CASES = PAIR_CASES + [
    (QueryDistance(norm="l2", radius=1), RealInterval(lo=-2, hi=2)),
    (QueryDistance(norm="l0", radius=1), VectorDomain(element=Categorical(size=3), length=2)),
    (SubstituteOne(), DatasetDomain(record=RealInterval(lo=0, hi=1), size=3)),
    (NodeNeighbouring(), GraphDomain(n_nodes=5)),
    (LocalRelation(), RealInterval(lo=0, hi=1)),
]


def _same_decision(first: NeighbourDecision, second: NeighbourDecision) -> bool:
    return (first.is_neighbour, first.reason, first.distance) == (
        second.is_neighbour,
        second.reason,
        second.distance,
    )


@FAST
@given(st.sampled_from(VALIDATED_CASES), seeds, seeds)
def test_decide_on_validated_inputs_gives_the_same_decision(case, seed_x, seed_y):
    """``validated=True`` skips the second validation only: same verdict, reason and distance
    on unrelated pairs, on related pairs and on a pair of equal inputs."""
    relation, domain = case
    x, y = domain.sample(seed_x), domain.sample(seed_y)
    related = relation.random_pair(domain, seed_x)
    for a, b in [(x, y), related, (x, x)]:
        av, bv = domain.validate(a), domain.validate(b)
        plain = relation.decide(a, b, domain)
        assert _same_decision(relation.decide(av, bv, domain, validated=True), plain)
        assert _same_decision(relation.decide(av, bv, domain, validated=False), plain)
        if plain.is_neighbour:
            assert _same_decision(
                relation.require_neighbours(av, bv, domain, validated=True), plain
            )


@pytest.mark.parametrize(
    ("relation", "domain", "bad"),
    [
        (
            SubstituteOne(),
            DatasetDomain(record=Categorical(size=3), size=4),
            np.array([0, 1, 2, 3]),
        ),
        (AddRemoveOne(), DatasetDomain(record=RealInterval(lo=0, hi=1)), np.array([0.5, np.nan])),
        (QueryDistance(norm="l2", radius=1), RealInterval(lo=-2, hi=2), 2.5),
        (
            QueryDistance(norm="l1", radius=2),
            VectorDomain(element=IntegerRange(lo=0, hi=5), length=3),
            np.array([0, 1]),
        ),
        (EdgeNeighbouring(), GraphDomain(n_nodes=5, max_degree=2), nx.star_graph(4)),
        (NodeNeighbouring(max_degree=2), GraphDomain(n_nodes=6), nx.path_graph(4)),
        (LocalRelation(), Categorical(size=3), 3),
        (LocalNodeRelation(), GraphDomain(n_nodes=4), nx.DiGraph([(0, 1)])),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_decide_called_directly_still_refuses_invalid_inputs(relation, domain, bad):
    """The validated path is opt-in: ``decide`` and ``require_neighbours`` called without it
    (and :func:`privaudit.auditing.pairs.verified_pair`) still raise the domain's own errors."""
    from privaudit.auditing.pairs import verified_pair
    from privaudit.spec import MechanismSpec

    good = domain.sample(3)
    for x, y in [(bad, good), (good, bad)]:
        with pytest.raises(InvalidInputError):
            relation.decide(x, y, domain)
        with pytest.raises(InvalidInputError):
            relation.decide(x, y, domain, validated=False)
        with pytest.raises(InvalidInputError):
            relation.require_neighbours(x, y, domain)
    spec = MechanismSpec.model_construct(input_domain=domain, relation=relation)
    with pytest.raises(InvalidInputError):
        verified_pair(spec, bad, good, "explicit")


@pytest.mark.parametrize(
    ("relation", "domain"),
    UNSUPPORTED_COMBINATIONS,
    ids=lambda v: repr(v)[:30],
)
def test_decide_on_validated_inputs_still_refuses_unsupported_domains(relation, domain):
    x = domain.validate(domain.sample(0))
    with pytest.raises(UnsupportedCombinationError):
        relation.decide(x, x, domain, validated=True)
    with pytest.raises(UnsupportedCombinationError):
        relation.require_neighbours(x, x, domain, validated=True)


def test_local_node_adversarial_pairs_are_realisable_neighbours():
    """Every pair LocalNodeRelation offers is a node-neighbour pair within the degree bound."""
    from privaudit.spec import GraphDomain, LocalNodeRelation

    for relation in (
        LocalNodeRelation(focus_nodes=(3,), bucket_width=2),
        LocalNodeRelation(max_degree=3),
    ):
        domain = GraphDomain(n_nodes=7)
        origins = set()
        for x, y, origin in relation.local_node_pairs(domain):
            assert relation.decide(x, y, domain).is_neighbour, origin
            origins.add(origin)
        assert "degree_space" in origins
    focused = dict(
        (o, (x, y))
        for x, y, o in LocalNodeRelation(focus_nodes=(3,)).local_node_pairs(GraphDomain(n_nodes=7))
    )
    x, y = focused["focused_degree_preserving_swap"]
    assert x.degree(3) == y.degree(3) == 3 and not set(x[3]) & set(y[3])
    x, y = focused["focused_star_toggle"]
    assert x.number_of_edges() == 0 and y.degree(3) == 6
