"""Adversarial node-neighbouring generators, their use by the auditor's candidate search, and
hypothesis shrinking of graph counterexamples towards few edges."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from privaudit.auditing.pairs import verified_pair
from privaudit.auditing.search import candidate_pairs, domain_elements, pair_complexity, shrink_pair
from privaudit.auditing.search.pair_sources import extreme_pairs
from privaudit.spec import (
    GlobalSensitivity,
    GraphDomain,
    LocalNodeRelation,
    MechanismSpec,
    NodeNeighbouring,
    PureDP,
)
from privaudit.spec.errors import InvalidGraphError, InvalidParameterError
from privaudit.spec.relations import (
    independent_neighbourhood_edges,
    near_regular_edges,
)
from privaudit.suites._graph_statistics import edge_count, truncated_edge_count

FAST = settings(max_examples=40, deadline=None)
NODE_MODELS = [NodeNeighbouring, LocalNodeRelation]
GENERATOR_ORIGINS = {
    "star_toggle",
    "threshold_star_toggle",
    "threshold_complement_rewiring",
    "complement_rewiring",
    "hub_insertion",
    "degree_preserving_swap",
    # LocalNodeRelation.local_node_pairs (the relation's own local-node moves)
    "focused_star_toggle",
    "bucket_extremes",
    "focused_degree_preserving_swap",
    "degree_space",
}


def _degrees(graph: nx.Graph) -> dict[int, int]:
    return dict(graph.degree())


def _assert_node_pair(relation, x, y, n: int) -> None:
    decision = relation.decide(x, y, GraphDomain(n_nodes=n))
    assert decision.is_neighbour, decision.reason
    assert decision.distance == 1.0


def make_spec(n: int, relation, sensitivity: float | None = None) -> MechanismSpec:
    claims = () if sensitivity is None else (GlobalSensitivity(value=sensitivity),)
    return MechanismSpec(
        name="graph-generators",
        input_domain=GraphDomain(n_nodes=n),
        relation=relation,
        sensitivity=claims,
        guarantee=PureDP(epsilon=1.0),
    )


# ----------------------------------------------------------------------------------------
# backgrounds
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", range(1, 12))
def test_near_regular_edges_have_the_target_degree(m):
    nodes = list(range(100, 100 + m))
    for degree in range(m):
        graph = nx.Graph(near_regular_edges(nodes, degree))
        graph.add_nodes_from(nodes)
        degrees = sorted(_degrees(graph).values())
        short = 1 if degree * m % 2 else 0
        assert degrees == [degree - 1] * short + [degree] * (m - short)
        assert graph.number_of_edges() == len(near_regular_edges(nodes, degree))


@pytest.mark.parametrize("n", range(2, 13))
def test_independent_neighbourhood_backgrounds(n):
    for degree in range(1, n // 2 + 1):
        for v in (0, n - 1):
            graph = nx.empty_graph(n)
            graph.add_edges_from(independent_neighbourhood_edges(n, degree, v))
            neighbours = sorted(graph[v])
            assert len(neighbours) == degree
            assert all(graph.degree(u) == degree for u in neighbours)
            assert graph.subgraph(neighbours).number_of_edges() == 0
            assert max(_degrees(graph).values()) == degree
            if n % 2 == 0:  # an even n always gets an exactly regular background here
                assert set(_degrees(graph).values()) == {degree}


# ----------------------------------------------------------------------------------------
# degree-preserving swap
# ----------------------------------------------------------------------------------------
@FAST
@given(
    st.sampled_from(NODE_MODELS),
    st.integers(2, 9),
    st.none() | st.integers(0, 5),
    st.integers(0, 2**32 - 1),
)
def test_degree_preserving_swaps_are_neighbours_that_keep_the_degree(model, n, bound, seed):
    relation = model(max_degree=bound)
    domain = GraphDomain(n_nodes=n)
    background = GraphDomain(n_nodes=n, max_degree=bound).sample(seed)
    v = seed % n
    x, y = relation.degree_preserving_swap(background, v, domain)
    assert relation.decide(x, y, domain).is_neighbour
    assert x.degree(v) == y.degree(v)
    old, new = set(x[v]), set(y[v])
    effective = relation.degree_bound(domain)
    room = {u for u in range(n) if u != v and u not in old and x.degree(u) < effective}
    swapped = min(len(old), len(room))
    assert len(old - new) == len(new - old) == swapped
    assert max(_degrees(y).values(), default=0) <= effective
    changed = {u for u in range(n) if u != v and x.degree(u) != y.degree(u)}
    assert len(changed) == 2 * swapped


def test_degree_preserving_swap_makes_disjoint_neighbourhoods_when_there_is_room():
    relation = NodeNeighbouring()
    half_star = nx.empty_graph(9)
    half_star.add_edges_from((0, u) for u in range(1, 5))
    x, y = relation.degree_preserving_swap(half_star, 0)
    assert sorted(x[0]) == [1, 2, 3, 4] and sorted(y[0]) == [5, 6, 7, 8]
    isolated = relation.degree_preserving_swap(nx.empty_graph(4), 2)
    assert isolated[0].number_of_edges() == isolated[1].number_of_edges() == 0


# ----------------------------------------------------------------------------------------
# threshold backgrounds
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", NODE_MODELS)
@pytest.mark.parametrize("n", [2, 3, 5, 8, 10, 11])
@pytest.mark.parametrize("bound", [None, 2, 4])
def test_threshold_star_toggle_pushes_the_threshold_nodes_over(model, n, bound):
    relation = model(max_degree=bound)
    domain = GraphDomain(n_nodes=n)
    effective = relation.degree_bound(domain)
    for t in range(min(n - 2, effective - 1) + 1):
        for v in (0, n // 2):
            x, y = relation.threshold_star_toggle(n, t, v, domain)
            _assert_node_pair(relation, x, y, n)
            assert x.degree(v) == 0
            others = [u for u in range(n) if u != v]
            at_threshold = [u for u in others if x.degree(u) == t]
            assert len(at_threshold) >= n - 2 and all(x.degree(u) >= t - 1 for u in others)
            assert y.degree(v) == min(effective, n - 1)
            pushed = [u for u in at_threshold if y.degree(u) == t + 1]
            assert len(pushed) == min(effective, len(at_threshold))
            assert max(_degrees(y).values()) <= effective


@pytest.mark.parametrize("model", NODE_MODELS)
@pytest.mark.parametrize("n", [2, 4, 7, 10, 12])
@pytest.mark.parametrize("bound", [None, 3, 5])
def test_threshold_complement_rewiring_pushes_the_other_nodes_over(model, n, bound):
    relation = model(max_degree=bound)
    domain = GraphDomain(n_nodes=n)
    effective = relation.degree_bound(domain)
    for t in range(1, min(n // 2, effective - 1) + 1):
        x, y = relation.threshold_complement_rewiring(n, t, 0, domain)
        _assert_node_pair(relation, x, y, n)
        old = set(x[0])
        assert len(old) == t and x.subgraph(old).number_of_edges() == 0
        assert max(_degrees(x).values()) == t
        assert not set(y[0]) & old
        assert len(y[0]) == min(effective, n - 1 - t)
        assert all(y.degree(u) == t - 1 for u in old)
        assert all(y.degree(u) == x.degree(u) + 1 for u in y[0])
        assert max(_degrees(y).values()) <= effective


def test_threshold_complement_attains_the_truncated_edge_count_maximum():
    """n = 10, D = 3: the kept edges fall from nD/2 = 15 to 0 (the suite's worst pair)."""
    x, y = NodeNeighbouring().threshold_complement_rewiring(10, 3)
    assert truncated_edge_count(x, 3) == 15 and truncated_edge_count(y, 3) == 0
    x, y = NodeNeighbouring().threshold_star_toggle(10, 3)
    assert truncated_edge_count(x, 3) == 13 and truncated_edge_count(y, 3) == 0


def test_threshold_generators_check_their_arguments():
    relation = NodeNeighbouring(max_degree=3)
    star, complement = relation.threshold_star_toggle, relation.threshold_complement_rewiring
    cases = [
        (lambda: star(1, 0), "n must be an integer >= 2, got 1"),
        (lambda: star(True, 0), "n must be an integer >= 2, got True"),
        (lambda: star(6.0, 1), "n must be an integer >= 2, got 6.0"),
        (lambda: star(6, 1, 6), "v must be a node in 0..5, got 6"),
        (lambda: star(6, 1, -1), "v must be a node in 0..5, got -1"),
        (lambda: star(6, 1.5), "threshold must be an integer, got 1.5"),
        (lambda: star(6, 3), "threshold = 3 leaves no room to push a node above it"),
        (lambda: star(6, -1), "threshold must lie in 0..4, got -1"),
        (lambda: NodeNeighbouring().threshold_star_toggle(6, 5), "threshold must lie in 0..4"),
        (lambda: complement(6, 0), "threshold must lie in 1..3, got 0"),
        (
            lambda: NodeNeighbouring().threshold_complement_rewiring(6, 4),
            "threshold must lie in 1..3, got 4",
        ),
        (lambda: star(6, 1, 0, GraphDomain(n_nodes=7)), "n = 6 differs from the domain's"),
        (
            lambda: star(6, 2, 0, GraphDomain(n_nodes=6, max_degree=2)),
            "threshold = 2 leaves no room to push a node above it under the degree bound 2",
        ),
    ]
    for call, message in cases:
        with pytest.raises(InvalidParameterError) as caught:
            call()
        assert message in str(caught.value)
    with pytest.raises(InvalidGraphError):
        relation.degree_preserving_swap(nx.DiGraph([(0, 1)]), 0)
    with pytest.raises(InvalidParameterError, match="v must be a node in 0..2"):
        relation.degree_preserving_swap(nx.empty_graph(3), 3)


# ----------------------------------------------------------------------------------------
# the auditor's candidate generation
# ----------------------------------------------------------------------------------------
def threshold_hints(spec: MechanismSpec) -> list[int]:
    claim = spec.global_sensitivity
    return spec.relation.threshold_hints(spec.input_domain, claim and claim.value)


def test_threshold_hints_come_from_the_claims():
    assert threshold_hints(make_spec(10, NodeNeighbouring(), 3)) == [3]
    assert threshold_hints(make_spec(10, NodeNeighbouring(), 2.5)) == [2, 3]
    assert threshold_hints(make_spec(10, NodeNeighbouring(max_degree=5), 5)) == [5, 4]
    assert threshold_hints(make_spec(10, NodeNeighbouring(), 36)) == []
    assert threshold_hints(make_spec(10, NodeNeighbouring())) == []


@pytest.mark.parametrize("model", NODE_MODELS)
@pytest.mark.parametrize("bound", [None, 2, 4])
def test_candidate_pairs_use_every_generator_and_verify_every_pair(model, bound):
    spec = make_spec(9, model(max_degree=bound), 3)
    raw = list(extreme_pairs(spec))
    origins = {origin for *_, origin in raw}
    expected = {
        "star_toggle",
        "complement_rewiring",
        "hub_insertion",
        "degree_preserving_swap",
        "threshold_star_toggle",
    }
    if bound != 2:
        expected.add("threshold_complement_rewiring")
    assert expected <= origins <= GENERATOR_ORIGINS
    pairs = candidate_pairs(spec, 0, budget=200)
    kept = {p.origin for p in pairs}
    assert kept - {"random"} <= GENERATOR_ORIGINS
    for pair in pairs:
        decision = spec.relation.decide(pair.x, pair.y, spec.input_domain)
        assert decision.is_neighbour and decision.distance == 1.0
        assert pair.decision == decision


def test_hinted_thresholds_come_before_the_others():
    spec = make_spec(10, NodeNeighbouring(), 3)
    pairs = candidate_pairs(spec, 0, budget=24)
    assert [p.origin for p in pairs[:3]] == [
        "star_toggle",
        "threshold_star_toggle",
        "threshold_complement_rewiring",
    ]
    worst = max(
        pairs, key=lambda p: abs(truncated_edge_count(p.x, 3) - truncated_edge_count(p.y, 3))
    )
    assert worst.origin == "threshold_complement_rewiring"


# ----------------------------------------------------------------------------------------
# hypothesis: graphs shrink towards few edges
# ----------------------------------------------------------------------------------------
SHRINK = settings(max_examples=300, database=None, derandomize=True, deadline=None)


@pytest.mark.parametrize("bound", [None, 3])
def test_graph_strategy_shrinks_towards_few_edges(bound):
    domain = GraphDomain(n_nodes=7, max_degree=bound)
    many = find(domain_elements(domain), lambda g: g.number_of_edges() >= 4, settings=SHRINK)
    assert many.number_of_edges() == 4
    hub = find(domain_elements(domain), lambda g: max(_degrees(g).values()) >= 3, settings=SHRINK)
    assert hub.number_of_edges() == 3 and max(_degrees(hub).values()) == 3
    triangle = find(
        domain_elements(domain), lambda g: sum(nx.triangles(g).values()) > 0, settings=SHRINK
    )
    assert triangle.number_of_edges() == 3


def test_shrinking_an_edge_count_counterexample_gives_a_small_star():
    """|E(x)| − |E(y)| > D = 3 needs D + 1 = 4 edges at the rewired node, and no more."""
    spec = make_spec(10, NodeNeighbouring(), 3)
    start = next(p for p in candidate_pairs(spec, 0, budget=24) if p.origin == "star_toggle")

    def breaks_the_claim(x, y) -> bool:
        return abs(edge_count(x) - edge_count(y)) > 3

    small = shrink_pair(spec, breaks_the_claim, start)
    assert small.origin == "hypothesis"
    assert breaks_the_claim(small.x, small.y)
    assert small.x.number_of_edges() + small.y.number_of_edges() == 4
    assert pair_complexity(small.x, small.y) < pair_complexity(start.x, start.y)
    assert spec.relation.decide(small.x, small.y, spec.input_domain).distance == 1.0


def test_shrinking_a_truncation_counterexample_keeps_a_valid_witness():
    spec = make_spec(10, NodeNeighbouring(), 3)
    x, y = NodeNeighbouring().threshold_complement_rewiring(10, 3)
    start = verified_pair(spec, x, y, "threshold_complement_rewiring")

    def breaks_the_claim(a, b) -> bool:
        return abs(truncated_edge_count(a, 3) - truncated_edge_count(b, 3)) > 3

    small = shrink_pair(spec, breaks_the_claim, start, max_examples=500)
    assert breaks_the_claim(small.x, small.y)
    assert spec.relation.decide(small.x, small.y, spec.input_domain).is_neighbour
    assert pair_complexity(small.x, small.y) <= pair_complexity(start.x, start.y)
    assert np.isfinite(pair_complexity(small.x, small.y)[0])
