"""The robust pair choice (issue 31): near ties of the halving are tested, α split over them."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.choice.halving import (
    PRIOR_ORIGIN,
    PairChoice,
    _prior_pair,
    _with_prior,
    choose_pairs,
    successive_halving,
)
from privaudit.auditing.pairs import to_jsonable, verified_pair
from privaudit.auditing.search import candidate_pairs
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    InvalidParameterError,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    VectorDomain,
)

#: Output probabilities of the mirrored box: (0, 1) and (8, 9) are equally distinguishable
#: (0.2 vs 0.42 is 0.8 vs 0.58 with the outputs flipped); every other pair is 0.5 vs 0.5.
_P = {0: 0.2, 1: 0.42, 8: 0.58, 9: 0.8}


def _mirrored_box():
    spec = MechanismSpec(
        name="mirrored_box",
        input_domain=RealInterval(lo=0.0, hi=9.0),
        relation=QueryDistance(norm="l1", radius=9.0),
        noise=None,
        guarantee=PureDP(epsilon=0.1),
    )
    return declare_mechanism(
        spec,
        sampler=lambda v, n, rng: (rng.random(n) < _P.get(int(round(float(v))), 0.5)).astype(
            np.int64
        ),
    )


def _pairs(mech):
    return [verified_pair(mech.spec, float(a), float(a + 1), "test") for a in range(9)]


def _ends(pair):
    return frozenset((float(pair.x), float(pair.y)))


def test_halving_without_tolerance_keeps_exactly_one_of_two_tied_pairs():
    mech = _mirrored_box()
    kept, rounds = successive_halving(
        mech,
        _pairs(mech),
        keep=1,
        samples=4_000,
        final_samples=100_000,
        level=0.05,
        delta=0.0,
        rng=np.random.default_rng(1),
    )
    assert rounds == 4 and len(kept) == 1
    assert _ends(kept[0]) in ({0.0, 1.0}, {8.0, 9.0})


def test_halving_with_tolerance_tests_the_near_tie_too():
    mech = _mirrored_box()
    kept, rounds = successive_halving(
        mech,
        _pairs(mech),
        keep=1,
        samples=4_000,
        final_samples=100_000,
        level=0.05,
        delta=0.0,
        rng=np.random.default_rng(1),
        tolerance=0.3,
    )
    assert rounds == 4
    assert {_ends(p) for p in kept} == {frozenset({0.0, 1.0}), frozenset({8.0, 9.0})}
    # the survivor first, then the near tie, both scored by the last round
    assert kept[0].score >= kept[1].score >= 0.7 * kept[0].score


def test_tolerance_keeps_no_pair_far_from_the_best():
    """A pair 0.5 vs 0.5 never comes within 30 % of a pair 0.8 vs 0.58."""
    mech = _mirrored_box()
    pairs = [p for p in _pairs(mech) if _ends(p) != {0.0, 1.0}]
    kept, _ = successive_halving(
        mech,
        pairs,
        keep=1,
        samples=4_000,
        final_samples=100_000,
        level=0.05,
        delta=0.0,
        rng=np.random.default_rng(2),
        tolerance=0.3,
    )
    assert [_ends(p) for p in kept] == [frozenset({8.0, 9.0})]


def test_audit_splits_alpha_over_the_pairs_actually_tested():
    cfg = AuditConfig(
        samples=20_000,
        pilot_samples=2_000,
        pair_budget=12,
        pairs_tested=1,
        claim_budget=40,
        seed=3,
        pair_tolerance=0.3,
    )
    report = audit(_mirrored_box(), config=cfg)
    dist = report.check("distinguishability")
    tested = dist.details["pairs_tested"]
    near = dist.details["near_ties"]
    levels = dist.details["alpha_per_pair"]
    assert 1 <= tested <= 2 and 0 <= near < tested
    assert len(levels) == tested
    # weighted Bonferroni: the levels sum to the distinguishing test's α ...
    assert sum(levels) == pytest.approx(dist.error_rate)
    # ... the kept pairs share 3/4 of it and the near ties 1/4 (even without near ties)
    if near:
        assert levels[:-near] == pytest.approx(
            [0.75 * dist.error_rate / (tested - near)] * (tested - near)
        )
        assert levels[-near:] == pytest.approx([0.25 * dist.error_rate / near] * near)
    else:
        assert levels == pytest.approx([dist.error_rate / tested] * tested)
    assert report.violated


def test_near_ties_get_a_quarter_of_alpha_between_them():
    mech = _mirrored_box()
    cfg = AuditConfig(
        samples=100_000, pilot_samples=2_000, pair_budget=12, pairs_tested=1, pair_tolerance=0.3
    )
    choice = choose_pairs(
        mech, cfg, _pairs(mech), [], np.random.default_rng(1), alpha=0.05, delta=0.0
    )
    shares = choice.shares()
    assert sum(shares) == pytest.approx(1.0)
    # the mirrored pairs (0, 1) and (8, 9) tie: one is kept, the other is a near tie
    assert choice.near_ties == len(choice.pairs) - 1 == 1
    assert shares[0] == pytest.approx(0.75)
    assert shares[1:] == pytest.approx([0.25 / choice.near_ties] * choice.near_ties)
    # without explicit shares every pair gets an even share
    plain = PairChoice(pairs=tuple(_pairs(mech)[:3]), objective="test", ties=False)
    assert plain.shares() == pytest.approx((1 / 3, 1 / 3, 1 / 3))


@pytest.mark.parametrize("bad", [1.0, 1.5, -0.1])
def test_pair_tolerance_must_be_a_fraction(bad):
    with pytest.raises((InvalidParameterError, ValueError), match="pair_tolerance"):
        AuditConfig(pair_tolerance=bad)


def _vector_pairs(spec, origins):
    """Pairs (0⁴, e_i) of distinct i, with the given origins."""
    return [
        verified_pair(spec, np.zeros(4), np.eye(1, 4, i).ravel(), origin)
        for i, origin in enumerate(origins)
    ]


def _vector_spec():
    return MechanismSpec(
        name="vector_box",
        input_domain=VectorDomain(element=RealInterval(), length=4),
        relation=QueryDistance(norm="linf", radius=1.0),
        output_dimension=4,
        noise=None,
        guarantee=PureDP(epsilon=1.0),
    )


def test_the_prior_pair_takes_the_last_kept_slot_unless_kept():
    spec = _vector_spec()
    a, b, near, prior = _vector_pairs(spec, ["extreme", "extreme", "extreme", PRIOR_ORIGIN])
    key = repr((to_jsonable(prior.x), to_jsonable(prior.y)))
    # the halving kept a and b (near tie: near): the prior pair replaces b
    assert _with_prior([a, b, near], prior, keep=2) == ([a, prior, near], key)
    # kept already (or its swap): nothing changes
    assert _with_prior([prior, a, near], prior, keep=2) == ([prior, a, near], None)
    assert _with_prior([a, prior.swapped()], prior, keep=2) == ([a, prior.swapped()], None)
    # a near tie equal to the prior pair is not tested twice
    assert _with_prior([a, b, prior], prior, keep=2) == ([a, prior], key)
    # no prior pair: the halving's choice stands
    assert _with_prior([a, b], None, keep=2) == ([a, b], None)
    # the prior is the relation's first split pair, whatever its origin, else the first
    # candidate of origin "split"
    balanced = verified_pair(
        spec, np.array([1.0, 1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0]), "explicit"
    )
    assert _prior_pair(spec, [a, prior, balanced.swapped()]) == balanced.swapped()
    assert _prior_pair(spec, [a, b, prior]) == prior
    assert _prior_pair(spec, [a, b]) is None


def test_a_vector_black_box_gets_the_balanced_split_pair_tested():
    mech = declare_mechanism(
        _vector_spec(),
        sampler=lambda v, n, rng: np.asarray(v, float) + rng.laplace(0.0, 4.0, (n, 4)),
    )
    balanced = ((1.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 1.0))
    candidates = candidate_pairs(mech.spec, np.random.default_rng(0), budget=24)
    assert candidates[0].origin == "extreme"
    assert next(p for p in candidates if p.origin == PRIOR_ORIGIN) is not None
    for tolerance in (0.15, 0.0):
        cfg = AuditConfig(
            samples=20_000, pilot_samples=2_000, pairs_tested=2, pair_tolerance=tolerance
        )
        choice = choose_pairs(
            mech, cfg, candidates, [], np.random.default_rng(5), alpha=0.05, delta=0.0
        )
        tested = [
            (tuple(np.ravel(p.x).tolist()), tuple(np.ravel(p.y).tolist())) for p in choice.pairs
        ]
        assert sum(choice.shares()) == pytest.approx(1.0)
        if tolerance > 0:
            # kept by the halving, or given the last kept slot
            assert balanced in tested or balanced[::-1] in tested
            if choice.prior_pair:  # it took the last kept slot (k − 1 = 1)
                assert tested[1] in (balanced, balanced[::-1])
        else:
            assert not choice.prior_pair  # only the robust choice uses the prior


def test_the_audit_reports_whether_the_prior_pair_was_tested():
    mech = declare_mechanism(
        _vector_spec(),
        sampler=lambda v, n, rng: np.asarray(v, float) + rng.laplace(0.0, 4.0, (n, 4)),
    )
    cfg = AuditConfig(samples=20_000, pilot_samples=2_000, pairs_tested=2, claim_budget=40, seed=5)
    details = audit(mech, config=cfg).check("distinguishability").details
    assert isinstance(details["prior_pair"], bool)
