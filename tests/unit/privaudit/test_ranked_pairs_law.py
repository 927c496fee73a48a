"""Pairs skipped on the declared law's word: the law is tested at every ranked input first.

Issue 45: pairs that tie with the tested one under the declared law (or rank below it)
were skipped without the sampler ever being run on their inputs, so a sampler that drew
less noise at one such input was certified.  The auditor now tests the declared law at
every input of the ranked pairs (``noise_law.ranked_pairs``) and tests the pairs at an
input where it fails.
"""

from __future__ import annotations

import numpy as np
import pytest

import privaudit.auditing.auditor as auditor_module
from privaudit import AuditConfig, audit
from privaudit.auditing.choice.ranked_law import (
    RANKED_LAW_MIN_DRAWS,
    RankedPairsLaw,
    check_ranked_pairs_law,
    ranked_law_draws,
)
from privaudit.auditing.outcome.audit_plan import RANKED_LAW_SHARE
from privaudit.mechanisms import LaplaceMechanism, RandomizedResponseMechanism, declare_mechanism
from privaudit.spec import MechanismSpec, PureDP, QueryDistance, RealInterval

FAST = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=24, pairs_tested=2, claim_budget=40, seed=5
)


def _ranking(mechanism, cfg=FAST):
    """The pair choice the auditor makes for ``mechanism`` (spied on, not recomputed)."""
    seen = {}
    original = auditor_module.check_ranked_pairs_law

    def spy(mech, choice, *args, **kwargs):
        seen["choice"] = choice
        return original(mech, choice, *args, **kwargs)

    auditor_module.check_ranked_pairs_law = spy
    try:
        audit(mechanism, config=cfg)
    finally:
        auditor_module.check_ranked_pairs_law = original
    return seen["choice"]


class _LessNoiseAt(LaplaceMechanism):
    """Laplace whose noise is divided by ``factor`` at one input only."""

    def __init__(self, at: float, factor: float) -> None:
        super().__init__(1.0, 1.0)
        self._at, self._factor = at, factor

    def _sample(self, data, size, rng):
        out = super()._sample(data, size, rng)
        if float(data) == self._at:
            f = float(data)
            out = f + (np.asarray(out) - f) / self._factor
        return out


@pytest.fixture(scope="module")
def laplace_ranking():
    return _ranking(LaplaceMechanism(1.0, 1.0))


def test_a_correct_gray_box_passes_and_states_the_check(laplace_ranking):
    assert laplace_ranking.ties and len(laplace_ranking.pairs) == 1
    assert len(laplace_ranking.declared_ranking) > 10
    report = audit(LaplaceMechanism(1.0, 1.0), config=FAST)
    check = report.check("noise_law.ranked_pairs")
    assert check.status == "passed" and report.verdict == "no_violation"
    inputs = {repr(float(v)) for p in laplace_ranking.declared_ranking for v in (p.x, p.y)}
    assert check.details["inputs_tested"] == len(inputs)
    assert check.details["pairs_ranked"] == len(laplace_ranking.declared_ranking)
    assert check.details["draws_per_input"] == ranked_law_draws(FAST, len(inputs))
    assert check.error_rate == pytest.approx(RANKED_LAW_SHARE * 0.9 * FAST.alpha)
    (assumption,) = [a for a in report.assumptions if a.check == "noise_law.ranked_pairs"]
    assert assumption.status == "checked" and "tied with them" in assumption.shortcut
    assert all(a.status != "unchecked" for a in report.assumptions)


@pytest.mark.parametrize(("rank", "side", "factor"), [(1, "x", 8.0), (5, "y", 6.0), (-1, "x", 5.0)])
def test_less_noise_at_a_skipped_input_is_caught_wherever_it_is(
    laplace_ranking, rank, side, factor
):
    """The leaky input sits in a pair the tie skipped: the 2nd, the 6th or the last
    ranked pair, on either side, with the noise cut by various factors."""
    tested = {repr(float(v)) for p in laplace_ranking.pairs for v in (p.x, p.y)}
    skipped = [
        p for p in laplace_ranking.declared_ranking if repr(float(getattr(p, side))) not in tested
    ]
    at = float(getattr(skipped[rank], side))
    report = audit(_LessNoiseAt(at, factor), config=FAST)
    check = report.check("noise_law.ranked_pairs")
    assert report.verdict == "violation" and check.violated
    assert check.details["rejected_inputs"] == [at]
    assert at in (check.counterexample.x, check.counterexample.y)
    # the pair holding it is tested too, and refutes the claim on its own samples
    dist = report.check("distinguishability")
    assert dist.details["pairs_tested"] >= 2 and dist.violated
    assert report.epsilon_lower_bound > 2.0


def test_without_the_check_the_same_sampler_was_certified(laplace_ranking, monkeypatch):
    """The measured failure: with the check replaced by the old shortcut, no violation."""
    skipped = laplace_ranking.declared_ranking[-1]

    def shortcut(mechanism, choice, cfg, rng, alpha, say=None):
        return RankedPairsLaw(choice, 0.0, ())

    monkeypatch.setattr(auditor_module, "check_ranked_pairs_law", shortcut)
    report = audit(_LessNoiseAt(float(skipped.y), 8.0), config=FAST)
    assert report.verdict == "no_violation"


class _TruthfulAt(RandomizedResponseMechanism):
    """k-ary randomized response that reports the truth with probability 0.9 at one input."""

    def __init__(self, at: int, categories: int) -> None:
        super().__init__(1.0, categories=categories)
        self._at = at

    def _sample(self, data, size, rng):
        out = super()._sample(data, size, rng)
        if int(data) == self._at:
            keep = rng.random(size) < 0.9
            out = np.where(keep, self._at, out)
        return out


@pytest.mark.parametrize(("categories", "at"), [(4, 1), (6, 4), (8, 6)])
def test_a_declared_bound_tie_is_checked_at_every_category(categories, at):
    """Randomized response: every pair of categories ties in the declared bound; the
    sampler departs from the law at one category only."""
    correct = audit(RandomizedResponseMechanism(1.0, categories=categories), config=FAST)
    assert correct.check("noise_law.ranked_pairs").status == "passed"
    assert correct.verdict == "no_violation"
    report = audit(_TruthfulAt(at, categories), config=FAST)
    check = report.check("noise_law.ranked_pairs")
    assert report.verdict == "violation" and check.violated
    assert at in check.details["rejected_inputs"]


def test_a_black_box_ranks_on_samples_and_has_no_such_check():
    spec = MechanismSpec(
        name="black_box_laplace",
        input_domain=RealInterval(lo=-5.0, hi=5.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        guarantee=PureDP(epsilon=1.0),
    )
    mechanism = declare_mechanism(spec, lambda x, size, rng: x + rng.laplace(0.0, 1.0, size))
    report = audit(mechanism, config=FAST)
    names = {c.name for c in report.checks}
    assert "noise_law.ranked_pairs" not in names
    assert report.check("distinguishability").details["pair_objective"] == "pilot ε estimates"


def test_draws_per_input_follow_the_audit_size():
    assert ranked_law_draws(AuditConfig(samples=200_000), 40) == 10_000
    assert ranked_law_draws(AuditConfig(samples=200_000), 400) == RANKED_LAW_MIN_DRAWS
    # never more than the conformance size: an audit of 10 samples draws 10 per input
    assert ranked_law_draws(AuditConfig(samples=10), 4) == 10
    assert ranked_law_draws(AuditConfig(samples=200_000, conformance_samples=3_000), 2) == 3_000


def test_nothing_is_checked_without_a_declared_ranking(laplace_ranking):
    from dataclasses import replace

    choice = replace(laplace_ranking, declared_ranking=())
    result = check_ranked_pairs_law(
        LaplaceMechanism(1.0, 1.0), choice, FAST, np.random.default_rng(0), 0.05
    )
    assert result.alpha == 0.0 and result.outcomes == () and result.choice is choice


def test_every_input_of_a_small_finite_domain_is_checked_generated_or_not():
    """Eleven categories, twelve candidate pairs: a category need not be in a generated
    pair, yet its pairs too are skipped on the law's word, so the law is tested at every
    category (the mutant table's one miss before this rule was category 9 of 11)."""
    cfg = AuditConfig(
        samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=50
    )
    report = audit(_TruthfulAt(9, 11), config=cfg, seed=0)
    check = report.check("noise_law.ranked_pairs")
    assert check.details["whole_domain"] and check.details["inputs_tested"] == 11
    assert report.verdict == "violation" and check.details["rejected_inputs"] == [9]
    assert 9 in (check.counterexample.x, check.counterexample.y)
    assert "finite domain" in next(
        a.basis for a in report.assumptions if a.check == "noise_law.ranked_pairs"
    )
