"""A relation defined here, outside ``spec``, is searched through its own moves and audited.

The relation :class:`SwapAdjacent` relates two datasets of the same size when one is the
other with two adjacent records swapped (a model of "the order of arrival is private").
It implements only what :class:`~spec.relations.NeighbouringRelationBase` asks: deciding,
generating, and its own adversarial neighbours (``adversarial_pairs``,
``extreme_neighbours``, ``local_moves``, ``neighbour_strategy``).  Nothing in
:mod:`privaudit.auditing.search` knows it: the candidate generator, both local searches and the
audit reach its moves through that interface only.

The mechanism releases ``f(x) = x₀ − x₁ + Laplace(b)`` for records in ``[0, 1]``.  A swap
changes ``f`` by ``2·|x₀ − x₁| ≤ 2``, attained only at a swap of an extreme pair at
position 0, which the relation's ``adversarial_pairs`` offers (origin ``"adjacent_swap"``).
The broken version claims sensitivity 1 and calibrates ``b = 1/ε`` (true ε = 2ε); the
correct one claims 2 with ``b = 2/ε``.  Audits are seeded (deterministic); the correct
mechanism is flagged with probability at most ``1 − confidence`` = 5 % by construction of
the audit, and not at all with these seeds.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

import numpy as np
import pytest
from hypothesis import given, settings

from privaudit import audit
from privaudit.auditing.search import (
    candidate_pairs,
    maximise_over_neighbours,
    maximise_pair_objective,
    neighbouring_pairs,
)
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
)
from privaudit.spec.errors import UnsupportedCombinationError
from privaudit.spec.relations import LocalMoves, NeighbourDecision, NeighbouringRelationBase

N = 6
EPSILON = 1.0
DOMAIN = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N)

#: Names of the relation's moves, appended each time the search calls one.
CALLS: list[str] = []


def _swapped(x: np.ndarray, i: int) -> np.ndarray:
    y = np.array(x, copy=True)
    y[[i, i + 1]] = y[[i + 1, i]]
    return y


class SwapAdjacent(NeighbouringRelationBase):
    """Equal-size datasets, one the other with two adjacent records swapped."""

    kind: Literal["swap_adjacent"] = "swap_adjacent"

    def supports_domain(self, domain: Any) -> bool:
        return isinstance(domain, DatasetDomain) and domain.size is not None and domain.size >= 2

    def _checked(self, domain: Any) -> DatasetDomain:
        if not self.supports_domain(domain):
            raise UnsupportedCombinationError(f"SwapAdjacent is not defined on {domain!r}")
        return domain

    def decide(self, x: Any, y: Any, domain: Any, *, validated: bool = False) -> NeighbourDecision:
        a, b = self._validated_inputs(self._checked(domain), x, y, validated)
        differ = np.flatnonzero(a != b)
        if differ.size == 0:
            return NeighbourDecision(True, "datasets are identical", 0.0)
        i = int(differ[0])
        if differ.size == 2 and differ[1] == i + 1 and np.array_equal(_swapped(a, i), b):
            return NeighbourDecision(True, f"records {i} and {i + 1} are swapped", 1.0)
        return NeighbourDecision(
            False, f"records differ at {differ.tolist()}, not one adjacent swap", float(differ.size)
        )

    def random_neighbour(self, x: Any, domain: Any, rng: Any) -> np.ndarray:
        data = self._checked(domain).validate(x)
        # default_rng returns a Generator unaltered, so the search's stream advances
        return _swapped(data, int(np.random.default_rng(rng).integers(N - 1)))

    def neighbours(self, x: Any, domain: Any):
        data = self._checked(domain).validate(x)
        return (_swapped(data, i) for i in range(data.shape[0] - 1))

    # -- the relation's own adversarial neighbours -----------------------------------------
    def adversarial_pairs(
        self,
        domain: Any,
        rng: Any = None,
        budget: int | None = None,
        *,
        claimed_sensitivity: float | None = None,
    ):
        """A record extreme among the other extreme, swapped at each position."""
        CALLS.append("adversarial_pairs")
        low, high = self._checked(domain).record.low_and_high()
        for a, b in ((low, high), (high, low)):
            x = np.full(N, a, dtype=np.float64)
            x[0] = b
            yield x, _swapped(x, 0), "adjacent_swap"

    def extreme_neighbours(self, x: Any, domain: Any):
        CALLS.append("extreme_neighbours")
        return self.neighbours(x, domain)

    def local_moves(self, x: Any, y: Any, domain: Any, rng: Any) -> LocalMoves:
        """mutate: push the swapped records of ``x`` to the extremes, swap them in ``y``."""
        checked = self._checked(domain)
        return LocalMoves(
            mutate=partial(self._pushed, x, y, checked, rng),
            target=partial(self._widest_swap, x),
            nudge=partial(self.random_neighbour, x, checked, rng),
        )

    def neighbour_strategy(self, domain: Any):
        """Hypothesis pairs: a dataset and one of its adjacent swaps."""
        from hypothesis import strategies as st

        data = st.lists(st.floats(0.0, 1.0), min_size=N, max_size=N).map(np.array)
        return st.tuples(data, st.integers(0, N - 2)).map(lambda t: (t[0], _swapped(*t)))

    def _pushed(self, x, y, domain, gen):
        CALLS.append("mutate")
        differ = np.flatnonzero(x != y)
        i = int(differ[0]) if differ.size else int(gen.integers(N - 1))
        new_x = np.array(x, copy=True)
        new_x[i], new_x[i + 1] = (
            domain.record.random_extreme(gen),
            domain.record.random_extreme(gen),
        )
        return new_x, _swapped(new_x, i)

    def _widest_swap(self, x):
        CALLS.append("target")
        return _swapped(x, int(np.argmax(np.abs(np.diff(x)))))


class SwapSpec(MechanismSpec):
    """A spec whose relation is the test's own (not one of the built-in union)."""

    relation: SwapAdjacent


def first_difference(x: np.ndarray) -> float:
    return float(x[0] - x[1])


def first_difference_gap(x: np.ndarray, y: np.ndarray) -> float:
    """The search objective: how far apart the two datasets' first differences are."""
    return abs(first_difference(x) - first_difference(y))


def mechanism(claimed: float):
    scale = claimed / EPSILON
    spec = SwapSpec(
        name="first_difference",
        input_domain=DOMAIN,
        relation=SwapAdjacent(),
        statistic="x0 - x1",
        sensitivity=(GlobalSensitivity(value=claimed),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=EPSILON),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: first_difference(x) + rng.laplace(0.0, scale, size),
        statistic=first_difference,
    )


BROKEN, CORRECT = mechanism(1.0), mechanism(2.0)
_CALM = np.array([0.5, 0.5, 0.4, 0.6, 0.5, 0.5])
#: A pair that does not move the statistic (the swap is away from positions 0 and 1).
BENIGN = (_CALM, _swapped(_CALM, 2))


def test_candidate_pairs_come_from_the_relations_own_patterns():
    pairs = candidate_pairs(BROKEN.spec, 0, budget=6)
    assert [p.origin for p in pairs[:2]] == ["adjacent_swap", "adjacent_swap"]
    assert {p.origin for p in pairs[2:]} == {"random"}
    assert all(p.decision.is_neighbour for p in pairs)


def test_local_searches_use_the_relations_moves():
    CALLS.clear()
    found = maximise_pair_objective(BROKEN.spec, first_difference_gap, 3, start=[BENIGN], budget=60)
    assert found[0].score == pytest.approx(2.0)
    assert {"mutate", "target"} <= set(CALLS)
    best = maximise_over_neighbours(
        BROKEN.spec,
        np.array([1.0, 0, 0, 0, 0, 0]),
        lambda y: abs(1.0 - first_difference(y)),
        5,
        budget=3,
    )
    assert best.value == pytest.approx(2.0) and best.best.origin == "extreme"
    assert not best.exhaustive
    assert "extreme_neighbours" in CALLS


@settings(max_examples=20, deadline=None, derandomize=True)
@given(neighbouring_pairs(BROKEN.spec))
def test_hypothesis_pairs_come_from_the_relations_strategy(pair):
    x, y = pair
    assert SwapAdjacent().decide(x, y, DOMAIN).is_neighbour


def test_broken_mechanism_is_caught_under_the_new_relation():
    report = audit(BROKEN, pairs=[BENIGN], seed=11, samples=20_000)
    assert report.violated
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["sensitivity.global"] == "violated"
    assert statuses["distinguishability"] == "violated"
    witness = {c.name: c.counterexample for c in report.checks}["distinguishability"]
    assert witness.origin == "adjacent_swap" and report.worst_pair.origin == "adjacent_swap"
    assert abs(first_difference(witness.x) - first_difference(witness.y)) == pytest.approx(2.0)


def test_correct_mechanism_is_not_flagged_under_the_new_relation():
    report = audit(CORRECT, pairs=[BENIGN], seed=11, samples=20_000)
    assert not report.violated


class PlainSwap(SwapAdjacent):
    """The same relation without moves of its own: the interface's defaults apply."""

    kind: Literal["plain_swap"] = "plain_swap"

    adversarial_pairs = NeighbouringRelationBase.adversarial_pairs
    extreme_neighbours = NeighbouringRelationBase.extreme_neighbours
    local_moves = NeighbouringRelationBase.local_moves
    neighbour_strategy = NeighbouringRelationBase.neighbour_strategy


class PlainSpec(MechanismSpec):
    relation: PlainSwap


def test_a_relation_without_moves_is_searched_with_the_defaults():
    spec = PlainSpec.model_validate(BROKEN.spec.model_dump() | {"relation": PlainSwap()})
    assert list(spec.relation.adversarial_pairs(DOMAIN)) == []
    assert tuple(spec.relation.extreme_neighbours(_CALM, DOMAIN)) == ()
    moves = spec.relation.local_moves(*BENIGN, DOMAIN, 0)
    new_x, new_y = moves.mutate()
    assert new_y is None and spec.relation.decide(_CALM, new_x, DOMAIN).is_neighbour
    assert spec.relation.decide(_CALM, moves.target(), DOMAIN).is_neighbour
    pairs = candidate_pairs(spec, 0, budget=4)
    assert pairs and {p.origin for p in pairs} == {"random"}
    found = maximise_pair_objective(spec, first_difference_gap, 3, start=[BENIGN], budget=30)
    assert found[0].score > 0
    with pytest.raises(UnsupportedCombinationError, match="no strategy for the relation PlainSwap"):
        neighbouring_pairs(spec)
