"""The monotone query-distance relation (issue 28): every score moves the same way.

Every neighbour the relation hands out — random, enumerated, adversarial, a local-search
move or a hypothesis draw — is decided neighbouring and one-directional; pairs that move
scores both ways are refused with a reason; a two-sided relation keeps its old hash.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.spec import (
    GlobalSensitivity,
    Gumbel,
    MechanismSpec,
    NoisyArgmax,
    PureDP,
    QueryDistance,
    RealInterval,
    VectorDomain,
)
from privaudit.spec.domains import IntegerRange

FAST = settings(max_examples=25, deadline=None)


def _one_directional(x, y) -> bool:
    d = np.atleast_1d(np.asarray(y, dtype=np.float64) - np.asarray(x, dtype=np.float64))
    return bool((d >= 0).all() or (d <= 0).all())


def _check(relation, x, y, domain):
    decision = relation.decide(x, y, domain)
    assert decision.is_neighbour, decision.reason
    assert _one_directional(x, y), (x, y)


norms = st.sampled_from(["l0", "l1", "l2", "linf"])
elements = st.sampled_from(
    [RealInterval(lo=-3.0, hi=3.0), RealInterval(), IntegerRange(lo=0, hi=4), IntegerRange(lo=-5)]
)


def test_decide_refuses_two_sided_moves_with_a_reason():
    relation = QueryDistance(norm="linf", radius=1.0, monotone=True)
    domain = VectorDomain(element=RealInterval(), length=3)
    refused = relation.decide([0.0, 0.0, 0.0], [1.0, 0.0, -0.5], domain)
    assert not refused.is_neighbour
    assert "monotone relation" in refused.reason and "coordinate 2" in refused.reason
    assert relation.decide([0.0, 0.0, 0.0], [1.0, 0.0, 0.5], domain).is_neighbour
    assert relation.decide([0.0, 0.0, 0.0], [-1.0, -1.0, 0.0], domain).is_neighbour
    assert not relation.decide([0.0, 0.0, 0.0], [1.5, 0.0, 0.0], domain).is_neighbour
    two_sided = QueryDistance(norm="linf", radius=1.0)
    assert two_sided.decide([0.0, 0.0, 0.0], [1.0, 0.0, -0.5], domain).is_neighbour


def test_a_two_sided_relation_serialises_and_hashes_as_before():
    two_sided = QueryDistance(norm="l1", radius=2.0)
    assert "monotone" not in two_sided.model_dump(mode="json")
    assert QueryDistance.model_validate(two_sided.model_dump(mode="json")) == two_sided
    one_way = QueryDistance(norm="l1", radius=2.0, monotone=True)
    assert one_way.model_dump(mode="json")["monotone"] is True
    assert QueryDistance.model_validate_json(one_way.model_dump_json()) == one_way
    assert one_way.content_hash != two_sided.content_hash


@FAST
@given(
    norms, st.sampled_from([0.5, 1.0, 2.0]), elements, st.integers(1, 5), st.integers(0, 2**32 - 1)
)
def test_random_and_extreme_neighbours_move_one_way(norm, radius, element, length, seed):
    relation = QueryDistance(norm=norm, radius=radius, monotone=True)
    domain = VectorDomain(element=element, length=length)
    rng = np.random.default_rng(seed)
    x = domain.sample(rng)
    for _ in range(5):
        _check(relation, x, relation.random_neighbour(x, domain, rng), domain)
    for y in relation.extreme_neighbours(x, domain):
        _check(relation, x, y, domain)
    moves = relation.local_moves(x, relation.random_neighbour(x, domain, rng), domain, rng)
    for _ in range(5):
        new_x, new_y = moves.mutate()
        if new_y is not None and relation.decide(new_x, new_y, domain).is_neighbour:
            assert _one_directional(new_x, new_y)
        for y in (moves.target(), moves.nudge()):
            if y is not None:  # neighbouring or not, a move is never two-sided
                assert _one_directional(x, y)


def test_adversarial_patterns_are_one_directional_and_include_all_but_one():
    relation = QueryDistance(norm="linf", radius=1.0, monotone=True)
    domain = VectorDomain(element=RealInterval(lo=-10.0, hi=10.0), length=3)
    found = [tuple(y.tolist()) for y in relation.extreme_neighbours(np.zeros(3), domain)]
    assert found == [
        (1, 0, 0),
        (-1, 0, 0),
        (1, 1, 1),
        (-1, -1, -1),
        (0, 1, 1),
        (0, -1, -1),
        (1, 1, 0),
        (-1, -1, 0),
    ]
    for x, y, _ in relation.adversarial_pairs(domain):
        _check(relation, x, y, domain)


def test_enumerated_neighbours_are_exactly_the_one_directional_ones():
    domain = VectorDomain(element=IntegerRange(lo=0, hi=3), length=3)
    x = np.array([1, 2, 0])
    both = list(QueryDistance(norm="l1", radius=2.0).neighbours(x, domain))
    one_way = list(QueryDistance(norm="l1", radius=2.0, monotone=True).neighbours(x, domain))
    expected = [y for y in both if _one_directional(x, y)]
    assert len(one_way) == len(expected) < len(both)
    assert all(np.array_equal(a, b) for a, b in zip(one_way, expected, strict=True))


@FAST
@given(st.data())
def test_the_search_strategy_draws_one_directional_pairs(data):
    from privaudit.auditing.search.strategies import neighbouring_pairs

    spec = MechanismSpec(
        name="monotone_select",
        input_domain=VectorDomain(element=RealInterval(), length=3),
        relation=QueryDistance(norm="linf", radius=1.0, monotone=True),
        sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
        noise=NoisyArgmax(law=Gumbel(scale=1.0), monotone=True),
        guarantee=PureDP(epsilon=1.0),
    )
    x, y = data.draw(neighbouring_pairs(spec))
    _check(spec.relation, x, y, spec.input_domain)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_scalar_domains_are_monotone_by_construction(norm):
    relation = QueryDistance(norm=norm, radius=1.0, monotone=True)
    domain = RealInterval(lo=0.0, hi=5.0)
    assert relation.decide(2.0, 3.0, domain).is_neighbour
    assert relation.decide(2.0, 1.0, domain).is_neighbour
