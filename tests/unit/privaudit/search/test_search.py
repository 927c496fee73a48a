"""Unit tests of privaudit.auditing.search: candidate pairs, local search, strategies, shrinking."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from privaudit.auditing.pairs import CandidatePair, to_jsonable, verified_pair
from privaudit.auditing.search import (
    NeighbourhoodMaximum,
    candidate_pairs,
    domain_elements,
    maximise_over_neighbours,
    maximise_pair_objective,
    neighbouring_pairs,
    pair_complexity,
    shrink_pair,
)
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
    PureDP,
    QueryDistance,
    RealInterval,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    NotNeighboursError,
    UnsupportedCombinationError,
)

FAST = settings(max_examples=25, deadline=None)


def make_spec(domain, relation) -> MechanismSpec:
    return MechanismSpec(
        name="search-test", input_domain=domain, relation=relation, guarantee=PureDP(epsilon=1.0)
    )


UNIT_RECORDS = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=8)

SPECS = {
    "substitute_real": make_spec(UNIT_RECORDS, SubstituteOne()),
    "substitute_vector_records": make_spec(
        DatasetDomain(record=VectorDomain(element=IntegerRange(lo=-3, hi=3), length=2), size=5),
        SubstituteOne(),
    ),
    "substitute_variable_size": make_spec(
        DatasetDomain(record=RealInterval(lo=-1.0, hi=1.0), min_size=2), SubstituteOne()
    ),
    "add_remove_categorical": make_spec(DatasetDomain(record=Categorical(size=3)), AddRemoveOne()),
    "query_l0": make_spec(
        VectorDomain(element=IntegerRange(), length=4), QueryDistance(norm="l0", radius=2)
    ),
    "query_l1": make_spec(
        VectorDomain(element=RealInterval(), length=3), QueryDistance(norm="l1", radius=1.0)
    ),
    "query_l2_bounded": make_spec(
        VectorDomain(element=RealInterval(lo=0.0, hi=1.0), length=3),
        QueryDistance(norm="l2", radius=0.5),
    ),
    "query_linf_scalar_integer": make_spec(
        IntegerRange(lo=0, hi=10), QueryDistance(norm="linf", radius=2)
    ),
    "edge": make_spec(GraphDomain(n_nodes=6, max_degree=3), EdgeNeighbouring()),
    "node": make_spec(GraphDomain(n_nodes=6), NodeNeighbouring()),
    "node_bounded": make_spec(GraphDomain(n_nodes=7), NodeNeighbouring(max_degree=3)),
    "local_node": make_spec(GraphDomain(n_nodes=9, max_degree=4), LocalNodeRelation()),
    "local_vector": make_spec(
        VectorDomain(element=RealInterval(lo=-1.0, hi=1.0), length=2), LocalRelation()
    ),
    "local_categorical": make_spec(Categorical(size=4), LocalRelation()),
}
SPEC_IDS = sorted(SPECS)

ORIGINS = {
    "explicit",
    "extreme",
    "split",
    "random",
    "star_toggle",
    "complement_rewiring",
    "hub_insertion",
    "degree_preserving_swap",
    "threshold_star_toggle",
    "threshold_complement_rewiring",
    "local_search",
    "exhaustive",
    "hypothesis",
    # LocalNodeRelation.local_node_pairs
    "focused_star_toggle",
    "bucket_extremes",
    "focused_degree_preserving_swap",
    "degree_space",
}


def unordered(pair: CandidatePair) -> frozenset[str]:
    return frozenset((repr(to_jsonable(pair.x)), repr(to_jsonable(pair.y))))


def assert_neighbours(spec: MechanismSpec, pair: CandidatePair) -> None:
    decision = spec.relation.decide(pair.x, pair.y, spec.input_domain)
    assert decision.is_neighbour, decision.reason
    assert pair.origin in ORIGINS


def changed_edges(x: nx.Graph, y: nx.Graph) -> float:
    edges_x = {frozenset(e) for e in x.edges()}
    edges_y = {frozenset(e) for e in y.edges()}
    return float(len(edges_x ^ edges_y))


def sum_gap(x, y) -> float:
    return abs(float(np.sum(x)) - float(np.sum(y)))


# ----------------------------------------------------------------------------------------
# candidate_pairs
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SPEC_IDS)
def test_candidates_are_distinct_verified_neighbours_within_budget(name):
    spec = SPECS[name]
    pairs = candidate_pairs(spec, 7, budget=30)
    assert 0 < len(pairs) <= 30
    for pair in pairs:
        assert_neighbours(spec, pair)
        assert pair.decision.distance > 0
    keys = [unordered(p) for p in pairs]
    assert len(set(keys)) == len(keys), "a pair or its swap is repeated"


@pytest.mark.parametrize("name", SPEC_IDS)
def test_candidates_are_deterministic_given_the_seed(name):
    spec = SPECS[name]
    first = [unordered(p) for p in candidate_pairs(spec, 11, budget=25)]
    again = [unordered(p) for p in candidate_pairs(spec, np.random.default_rng(11), budget=25)]
    assert first == again


def test_candidates_come_in_order_explicit_adversarial_random():
    spec = SPECS["substitute_real"]
    x = np.full(8, 0.25)
    y = x.copy()
    y[3] = 0.75
    pairs = candidate_pairs(spec, 0, budget=40, explicit_pairs=[(x, y)])
    origins = [p.origin for p in pairs]
    assert origins[0] == "explicit"
    assert np.array_equal(pairs[0].y, y)
    last_extreme = max(i for i, o in enumerate(origins) if o == "extreme")
    first_random = origins.index("random")
    assert last_extreme < first_random
    # the adversarial phase pairs the all-low dataset with one record at the high extreme
    assert any(p.origin == "extreme" and sum_gap(p.x, p.y) == 1.0 for p in pairs)


def test_explicit_non_neighbours_raise_naming_the_pair():
    spec = SPECS["substitute_real"]
    x = np.zeros(8)
    good = x.copy()
    good[0] = 1.0
    bad = x.copy()
    bad[:2] = 1.0
    with pytest.raises(NotNeighboursError, match="explicit pair 1.*indices 0, 1"):
        candidate_pairs(spec, 0, explicit_pairs=[(x, good), (x, bad)])
    with pytest.raises(InvalidInputError, match="explicit pair 0"):
        candidate_pairs(spec, 0, explicit_pairs=[(x, np.full(8, 2.0))])
    with pytest.raises(InvalidInputError, match="explicit pair 0 must be an"):
        candidate_pairs(spec, 0, explicit_pairs=[x])


def test_explicit_pairs_are_kept_beyond_the_budget_and_deduplicated_with_swaps():
    spec = SPECS["substitute_real"]
    x = np.zeros(8)
    explicit = []
    for i in range(4):
        y = x.copy()
        y[i] = 1.0
        explicit.append((x, y))
    explicit.append((explicit[0][1], explicit[0][0]))  # a swap: counted once
    pairs = candidate_pairs(spec, 0, budget=2, explicit_pairs=explicit)
    assert [p.origin for p in pairs] == ["explicit"] * 4
    assert candidate_pairs(spec, 0, budget=0) == []
    with pytest.raises(InvalidParameterError, match="budget"):
        candidate_pairs(spec, 0, budget=-1)


def test_node_candidates_start_with_the_star_toggle_and_the_named_generators():
    spec = SPECS["node"]
    pairs = candidate_pairs(spec, 0, budget=40)
    assert pairs[0].origin == "star_toggle"
    assert changed_edges(pairs[0].x, pairs[0].y) == 5
    origins = {p.origin for p in pairs}
    assert {"complement_rewiring", "hub_insertion", "random"} <= origins


def test_small_domains_stop_the_random_phase():
    spec = make_spec(Categorical(size=2), LocalRelation())
    pairs = candidate_pairs(spec, 0, budget=50)
    assert len(pairs) == 1  # {0, 1} is the only pair of distinct inputs


# ----------------------------------------------------------------------------------------
# maximise_pair_objective
# ----------------------------------------------------------------------------------------
class CountingObjective:
    def __init__(self, function):
        self.function = function
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.function(*args)


@pytest.mark.parametrize("name", SPEC_IDS)
def test_pair_search_returns_sorted_verified_pairs_within_budget(name):
    spec = SPECS[name]
    graphs = isinstance(spec.input_domain, GraphDomain)
    objective = CountingObjective(changed_edges if graphs else sum_gap)
    start = candidate_pairs(spec, 3, budget=6)
    result = maximise_pair_objective(spec, objective, 5, start=start, budget=40)
    assert objective.calls == len(result) <= 40
    scores = [p.score for p in result]
    assert scores == sorted(scores, reverse=True)
    start_keys = {unordered(p) for p in start}
    for pair in result:
        assert_neighbours(spec, pair)
        if pair.origin not in {p.origin for p in start}:
            assert pair.origin == "local_search"
    assert any(unordered(p) in start_keys for p in result)


def test_pair_search_finds_the_maximum_sum_gap_at_the_extremes():
    spec = SPECS["substitute_real"]
    result = maximise_pair_objective(spec, sum_gap, 1, start=[], budget=250)
    assert result[0].score == pytest.approx(1.0, abs=1e-9)
    assert result[0].origin == "local_search"


def test_pair_search_finds_the_star_toggle_for_node_neighbours():
    n = 7
    spec = make_spec(GraphDomain(n_nodes=n), NodeNeighbouring())
    result = maximise_pair_objective(spec, changed_edges, 2, start=[], budget=200)
    assert result[0].score == n - 1


def test_pair_search_is_deterministic_and_checks_its_arguments():
    spec = SPECS["query_l1"]
    runs = [maximise_pair_objective(spec, sum_gap, 9, start=[], budget=30) for _ in range(2)]
    assert [unordered(p) for p in runs[0]] == [unordered(p) for p in runs[1]]
    with pytest.raises(InvalidParameterError, match="budget"):
        maximise_pair_objective(spec, sum_gap, 0, start=[], budget=0)
    with pytest.raises(InvalidParameterError, match="restarts"):
        maximise_pair_objective(spec, sum_gap, 0, start=[], budget=5, restarts=0)
    with pytest.raises(NotNeighboursError, match="start pair 0"):
        maximise_pair_objective(spec, sum_gap, 0, start=[(np.zeros(3), np.ones(3))], budget=5)


def test_pair_search_budget_smaller_than_the_start_list():
    spec = SPECS["substitute_real"]
    start = candidate_pairs(spec, 0, budget=10)
    objective = CountingObjective(sum_gap)
    result = maximise_pair_objective(spec, objective, 0, start=start, budget=4)
    assert objective.calls == 4
    assert {unordered(p) for p in result} <= {unordered(p) for p in start[:4]}


@pytest.mark.parametrize("budget", [3, 8, 60])
def test_start_scores_batch_gives_the_search_of_the_objective(budget):
    """A batch of the start pairs' objective (as the ``processes`` executor forks the
    pilots) gives the same search: the batch gets the new start pairs in order, each
    once, at most the budget, and the ranked pairs, scores and generator are those of
    calling the objective on each in turn."""
    spec = SPECS["query_l1"]
    start = candidate_pairs(spec, 0, budget=10)
    start = start + [start[1], verified_pair(spec, start[0].y, start[0].x, "explicit")]

    def noisy_gap(gen):
        # an objective that draws from the search's own stream, as the pilots do
        return lambda x, y: sum_gap(x, y) + float(gen.random())

    plain_gen = np.random.default_rng(4)
    plain = maximise_pair_objective(
        spec, noisy_gap(plain_gen), plain_gen, start=start, budget=budget
    )
    batches: list[list[CandidatePair]] = []
    batch_gen = np.random.default_rng(4)
    objective = noisy_gap(batch_gen)

    def start_scores(pairs):
        batches.append(list(pairs))
        return [objective(p.x, p.y) for p in pairs]

    batched = maximise_pair_objective(
        spec, objective, batch_gen, start=start, budget=budget, start_scores=start_scores
    )
    assert [(unordered(p), p.score, p.origin) for p in batched] == [
        (unordered(p), p.score, p.origin) for p in plain
    ]
    assert batch_gen.random() == plain_gen.random()
    assert len(batches) == 1
    keys = [(repr(to_jsonable(p.x)), repr(to_jsonable(p.y))) for p in batches[0]]
    assert len(keys) == len(set(keys)) == min(budget, len(start) - 1)
    with pytest.raises(InvalidParameterError, match="returned 0 values"):
        maximise_pair_objective(
            spec, sum_gap, 0, start=start, budget=budget, start_scores=lambda pairs: []
        )


# ----------------------------------------------------------------------------------------
# maximise_over_neighbours
# ----------------------------------------------------------------------------------------
def test_neighbourhood_search_is_exhaustive_on_small_categorical_datasets():
    n, m = 5, 3
    spec = make_spec(DatasetDomain(record=Categorical(size=m), size=n), SubstituteOne())
    x = np.array([0, 1, 2, 1, 0])
    objective = CountingObjective(lambda y: float(np.sum(y)))
    found = maximise_over_neighbours(spec, x, objective, 0, budget=50)
    assert isinstance(found, NeighbourhoodMaximum)
    assert found.exhaustive
    assert found.evaluated == objective.calls == n * (m - 1)
    assert found.value == float(np.sum(x)) + 2  # a 0 replaced by a 2
    assert found.best.origin == "exhaustive"
    assert_neighbours(spec, found.best)


def test_neighbourhood_search_finds_the_local_sensitivity_of_the_median():
    spec = make_spec(DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=5), SubstituteOne())
    x = np.array([0.0, 0.0, 0.5, 1.0, 1.0])
    objective = CountingObjective(lambda y: abs(float(np.median(y)) - float(np.median(x))))
    found = maximise_over_neighbours(spec, x, objective, 0, budget=40)
    assert not found.exhaustive
    assert found.value == pytest.approx(0.5)
    assert found.evaluated == objective.calls <= 40
    assert found.best.score == found.value
    i = int(np.flatnonzero(found.best.x != found.best.y)[0])
    assert found.best.y[i] in (0.0, 1.0)


@pytest.mark.parametrize("name", SPEC_IDS)
def test_neighbourhood_search_respects_the_budget_for_every_relation(name):
    spec = SPECS[name]
    x = next(iter(candidate_pairs(spec, 4, budget=1))).x
    graphs = isinstance(spec.input_domain, GraphDomain)
    objective = CountingObjective(
        (lambda y: changed_edges(x, y)) if graphs else (lambda y: sum_gap(x, y))
    )
    found = maximise_over_neighbours(spec, x, objective, 1, budget=25)
    assert found.evaluated == objective.calls <= 25
    assert_neighbours(spec, found.best)
    assert found.value == found.best.score
    if graphs:
        assert found.best.score >= 1


def test_neighbourhood_of_a_lone_element_is_itself():
    spec = make_spec(Categorical(size=1), LocalRelation())
    found = maximise_over_neighbours(spec, 0, lambda y: 3.0, 0, budget=5)
    assert found.exhaustive and found.evaluated == 1 and found.value == 3.0
    with pytest.raises(InvalidParameterError):
        maximise_over_neighbours(spec, 0, lambda y: 3.0, 0, budget=0)


# ----------------------------------------------------------------------------------------
# strategies
# ----------------------------------------------------------------------------------------
DOMAINS = {
    "real_unbounded": RealInterval(),
    "real_half": RealInterval(lo=2.0),
    "integer_half": IntegerRange(hi=-5),
    "categorical": Categorical(size=3),
    "vector": VectorDomain(element=IntegerRange(lo=0, hi=9), length=3),
    "dataset_fixed": DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=20),
    "dataset_variable_vectors": DatasetDomain(
        record=VectorDomain(element=RealInterval(), length=2), min_size=2
    ),
    "graph_bounded": GraphDomain(n_nodes=6, max_degree=2),
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
@FAST
@given(data=st.data())
def test_domain_elements_are_canonical_members(name, data):
    domain = DOMAINS[name]
    value = data.draw(domain_elements(domain))
    assert domain.contains(value)
    if isinstance(domain, DatasetDomain) and domain.size is None:
        assert domain.min_size <= value.shape[0] <= domain.min_size + 4
    if isinstance(domain, GraphDomain):
        assert max(d for _, d in value.degree()) <= 2


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_domain_elements_shrink_to_simple_values(name):
    domain = DOMAINS[name]
    simplest = find(domain_elements(domain), lambda _: True)
    if isinstance(domain, GraphDomain):
        assert simplest.number_of_edges() == 0
        return
    if isinstance(domain, DatasetDomain) and domain.size is None:
        assert simplest.shape[0] == domain.min_size
    assert np.all(np.abs(np.asarray(simplest)) == _nearest_to_zero(domain))


def _nearest_to_zero(domain) -> float:
    """|v| for the value v of the scalar domain nearest to 0."""
    element = domain
    while isinstance(element, (DatasetDomain, VectorDomain)):
        element = element.record if isinstance(element, DatasetDomain) else element.element
    lo, hi = element.value_bounds()
    return abs(float(min(max(0.0, lo), hi)))


def test_domain_elements_refuse_unknown_domains():
    with pytest.raises(UnsupportedCombinationError, match="no strategy"):
        domain_elements("not a domain")


@pytest.mark.parametrize("name", SPEC_IDS)
@FAST
@given(data=st.data())
def test_neighbouring_pairs_are_neighbours(name, data):
    spec = SPECS[name]
    x, y = data.draw(neighbouring_pairs(spec))
    assert spec.relation.decide(x, y, spec.input_domain).is_neighbour
    verified_pair(spec, x, y, "hypothesis")


@FAST
@given(neighbouring_pairs(SPECS["node_bounded"]))
def test_node_pairs_respect_the_relation_degree_bound(pair):
    for graph in pair:
        assert max(d for _, d in graph.degree()) <= 3


# ----------------------------------------------------------------------------------------
# shrink_pair
# ----------------------------------------------------------------------------------------
def differs_above_half(x, y) -> bool:
    if x.shape != y.shape:
        return False
    return bool(np.any((x != y) & ((x > 0.5) | (y > 0.5))))


def test_shrink_pair_returns_a_smaller_verified_pair():
    spec = make_spec(DatasetDomain(record=RealInterval(lo=0.0, hi=1.0)), SubstituteOne())
    gen = np.random.default_rng(3)
    x = gen.uniform(size=12)
    y = x.copy()
    y[7] = 0.93
    big = verified_pair(spec, x, y, "random")
    assert differs_above_half(big.x, big.y)
    small = shrink_pair(spec, differs_above_half, big)
    assert small.origin == "hypothesis"
    assert differs_above_half(small.x, small.y)
    assert_neighbours(spec, small)
    assert small.x.shape[0] == 1
    assert pair_complexity(small.x, small.y) < pair_complexity(big.x, big.y)
    again = shrink_pair(spec, differs_above_half, big)
    assert np.array_equal(again.x, small.x) and np.array_equal(again.y, small.y)


def test_shrink_pair_keeps_the_original_when_nothing_simpler_exists():
    spec = SPECS["substitute_real"]
    x = np.zeros(8)
    y = x.copy()
    y[0] = 1.0
    original = verified_pair(spec, x, y, "extreme")
    assert shrink_pair(spec, lambda a, b: False, original, max_examples=20) is original
    # hypothesis' simplest witness is this very pair (zeros against a single 1.0)
    assert shrink_pair(spec, differs_above_half, original) is original


def test_shrink_pair_shrinks_graph_pairs_towards_few_edges():
    spec = SPECS["node"]

    def many_changes(x, y) -> bool:
        return changed_edges(x, y) >= 3

    start = next(p for p in candidate_pairs(spec, 0, budget=40) if many_changes(p.x, p.y))
    small = shrink_pair(spec, many_changes, start)
    assert many_changes(small.x, small.y)
    assert_neighbours(spec, small)
    assert small.x.number_of_edges() + small.y.number_of_edges() == 3
    assert start.x.number_of_edges() + start.y.number_of_edges() > 3
    assert math.isnan(small.score)


# ----------------------------------------------------------------------------------------
# patience: climbs end on plateaus, never while they improve
# ----------------------------------------------------------------------------------------
def test_patience_ends_climbs_on_a_flat_objective_only():
    """|x − y| on the scalar relation |x − y| ≤ 1 is 1 on every extreme pair: with
    patience 10 the three climbs stop after 10 evaluations each that do not beat it (up
    to round-off, 1e-9); a steadily improving objective uses its whole budget."""
    from privaudit.mechanisms import LaplaceMechanism

    spec = LaplaceMechanism(1.0, 1.0).spec
    start = candidate_pairs(spec, np.random.default_rng(0), budget=8)
    flat = maximise_pair_objective(
        spec, lambda x, y: abs(float(x) - float(y)), 1, start=start, budget=200, patience=10
    )
    assert len(start) < len(flat) <= len(start) + 3 * 10
    assert flat[0].score == pytest.approx(1.0)
    full = maximise_pair_objective(
        spec, lambda x, y: abs(float(x) - float(y)), 1, start=start, budget=200
    )
    assert len(full) > len(flat)
    # an objective that keeps growing along the climbs: they go on well past the patience
    steady = maximise_pair_objective(
        spec, lambda x, y: float(x) + float(y), 1, start=start, budget=120, patience=10
    )
    assert len(steady) > len(start) + 3 * 10 + 40
    with pytest.raises(InvalidParameterError):
        maximise_pair_objective(spec, lambda x, y: 0.0, 1, start=start, budget=10, patience=0)


# ----------------------------------------------------------------------------------------
# move draws: WeightedChoice against Generator.choice
# ----------------------------------------------------------------------------------------
def test_weighted_choice_draws_exactly_what_generator_choice_draws():
    """Same index from the same uniform, and the same generator state afterwards, over many
    seeds and probability vectors (uneven, with zeros, one-hot, and the search's own)."""
    from privaudit.auditing.checks import _sensitivity_search as ratio_search
    from privaudit.auditing.search import local_search
    from privaudit.spec import WeightedChoice

    shapes = np.random.default_rng(2024)
    vectors = [
        local_search._PAIR_MOVE_WEIGHTS,
        local_search._NEIGHBOUR_MOVE_WEIGHTS,
        ratio_search._MOVES,
        np.array([1.0]),
        np.array([0.0, 1.0, 0.0]),
    ]
    for _ in range(300):
        k = int(shapes.integers(1, 12))
        p = shapes.random(k) ** shapes.uniform(0.2, 6.0)
        p[shapes.random(k) < 0.2] = 0.0
        if p.sum() == 0:
            p[0] = 1.0
        vectors.append(p / p.sum())
    for i, p in enumerate(vectors):
        weights = WeightedChoice(p)
        seed = int(shapes.integers(2**32))
        ours, numpy_draws = np.random.default_rng(seed), np.random.default_rng(seed)
        drawn = [weights.draw(ours) for _ in range(200)]
        expected = [int(numpy_draws.choice(p.size, p=p)) for _ in range(200)]
        assert drawn == expected, i
        assert ours.bit_generator.state == numpy_draws.bit_generator.state


@pytest.mark.parametrize("p", [[], [[0.5, 0.5]], [0.5, -0.1, 0.6], [0.5, np.nan], [0.3, 0.3]])
def test_weighted_choice_refuses_what_choice_refuses(p):
    from privaudit.spec import WeightedChoice

    with pytest.raises(InvalidParameterError):
        WeightedChoice(p)


@pytest.mark.parametrize("name", ["query_l1", "substitute_real"])
def test_pair_and_neighbourhood_searches_match_generator_choice_draws(name, monkeypatch):
    """The searches give the same pairs, scores and origins with their moves drawn by
    ``Generator.choice`` (the code before WeightedChoice) as with WeightedChoice."""
    from privaudit.auditing.search import local_search

    spec = SPECS[name]

    def run():
        pairs = maximise_pair_objective(
            spec, sum_gap, 4, start=candidate_pairs(spec, 1, budget=6), budget=60, patience=12
        )
        x = spec.input_domain.sample(3)
        best = maximise_over_neighbours(spec, x, lambda y: sum_gap(x, y), 6, budget=40)
        return (
            [(repr(to_jsonable(p.x)), repr(to_jsonable(p.y)), p.score, p.origin) for p in pairs],
            (repr(to_jsonable(best.best.y)), best.value, best.evaluated),
        )

    current = run()

    class ChoiceDraw:
        def __init__(self, weights):
            self.weights = weights

        def draw(self, gen):
            return int(gen.choice(len(self.weights), p=self.weights))

    monkeypatch.setattr(local_search, "_PAIR_MOVES", ChoiceDraw(local_search._PAIR_MOVE_WEIGHTS))
    monkeypatch.setattr(
        local_search, "_NEIGHBOUR_MOVES", ChoiceDraw(local_search._NEIGHBOUR_MOVE_WEIGHTS)
    )
    assert run() == current
