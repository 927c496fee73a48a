"""Budgets that know their neighbouring relation, pure compositions, and the analyst's
vocabulary (issue 29).  Every number compared here is exact (GDP, pure ε) or dp_accounting's
own PLD; nothing is random except the seeded audits at the end."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld_mod

import privaudit
from privaudit.estimators import private_bounded_mean
from privaudit.mechanisms import LaplaceMechanism
from privaudit.mechanisms.accounting import (
    BudgetReport,
    ComposedMechanism,
    PrivacyBudget,
    RemainingBudget,
    SumMechanism,
    decide_conversion,
    discrete_gaussian,
    discrete_laplace,
    gaussian,
    laplace,
    poisson_subsample,
    randomized_response,
    repeated,
    subsample_without_replacement,
    subsampled,
)
from privaudit.spec import GaussianDP
from privaudit.spec.errors import (
    BudgetExceededError,
    InvalidParameterError,
    RelationConversionError,
    UnsupportedCombinationError,
)

X = np.random.default_rng(0).uniform(0.0, 1.0, 400)


# -- 1. a budget carries its relation ------------------------------------------------------
def test_budget_relation_defaults_to_substitute_one_and_is_validated():
    assert PrivacyBudget(1.0).relation == "substitute_one"
    assert PrivacyBudget(1.0, relation="add_remove_one").relation == "add_remove_one"
    assert PrivacyBudget(1.0, relation="node").relation == "node"  # graph units (issue 45)
    with pytest.raises(InvalidParameterError, match="relation"):
        PrivacyBudget(1.0, relation="local")


def test_add_remove_release_costs_its_group_of_two_under_substitute_one():
    """A substitution is a removal plus an addition: Gaussian(σ) of add/remove sensitivity 1
    costs exactly 2/σ-GDP under substitute-one (dp_accounting's REPLACE_ONE is the same)."""
    mech = gaussian(4.0, declare_both=False)
    sub = PrivacyBudget(10.0, 1e-6)
    entry = sub.charge(mech)
    assert entry.relation == "add_remove_one"
    assert entry.conversion == "add_remove_one → substitute_one: group of 2"
    assert entry.epsilon == pytest.approx(GaussianDP(mu=2 / 4.0).epsilon_for_delta(1e-6), rel=1e-9)
    ar = PrivacyBudget(10.0, 1e-6, relation="add_remove_one")
    assert ar.charge(mech).conversion == "as stated"
    assert ar.spent_epsilon == pytest.approx(GaussianDP(mu=0.25).epsilon_for_delta(1e-6))
    # Laplace: exact PLD at sensitivity 2, pure ε doubled
    pure = PrivacyBudget(5.0)
    assert pure.charge(laplace(2.0, declare_both=False)).epsilon == pytest.approx(1.0, abs=1e-5)


def test_issue_example_mixed_budget_converts_the_poisson_releases():
    """The issue's measurement: a substitute-one estimator and 100 Poisson-subsampled
    add/remove releases in one budget.  The subsampled releases now cost their substitute-one
    guarantee (dp_accounting's REPLACE_ONE PLD), recorded in the ledger."""
    sub = poisson_subsample(gaussian(1.0, declare_both=False).spec, 0.01)
    mixed = PrivacyBudget(3.0, 1e-6)
    private_bounded_mean(X, 0.0, 1.0, 1.0, rng=1, budget=mixed)
    entry = mixed.charge(sub, count=100)
    assert mixed.ledger[0].relation == "substitute_one"
    assert mixed.ledger[0].conversion == "as stated"
    assert "group of 2" in entry.conversion
    ar_cost = PrivacyBudget(3.0, 1e-6, relation="add_remove_one").charge(sub, count=100).epsilon
    assert entry.epsilon > 1.1 * ar_cost
    reference = (
        pld_mod.from_gaussian_mechanism(
            1.0, sampling_prob=0.01, neighboring_relation=pld_mod.NeighborRel.REPLACE_ONE
        )
        .self_compose(100)
        .get_epsilon_for_delta(1e-6)
    )
    assert entry.epsilon == pytest.approx(reference, rel=1e-5)


def test_substitute_one_charge_is_refused_by_an_add_remove_budget_unless_declared():
    budget = PrivacyBudget(50.0, 1e-6, relation="add_remove_one")
    with pytest.raises(RelationConversionError, match="substitute_one") as info:
        private_bounded_mean(X, 0.0, 1.0, 1.0, rng=1, budget=budget)
    assert isinstance(info.value, UnsupportedCombinationError)
    assert budget.ledger == ()
    with pytest.raises(RelationConversionError):
        budget.charge(laplace(1.0, relation="substitute_one", declare_both=False))
    with pytest.raises(RelationConversionError):
        budget.charge(randomized_response(1.0))  # local randomizer: size is public
    # a mechanism that also declares an add/remove-one claim is charged by that claim
    entry = budget.charge(laplace(1.0, relation="substitute_one"))
    assert entry.relation == "substitute_one" and "declared claim" in entry.conversion
    assert entry.epsilon == pytest.approx(1.0, abs=1e-5)
    assert decide_conversion(laplace(1.0), "substitute_one").rule == "group of 2"
    assert (
        decide_conversion(laplace(1.0, relation="substitute_one"), "add_remove_one").rule
        == "declared claim"
    )


def test_query_level_and_bounded_relations():
    """A query-distance spec or a bare guarantee carries the analyst's sensitivity: charged
    as stated under either relation; graph and local relations keep a public size."""
    for relation in ("substitute_one", "add_remove_one"):
        budget = PrivacyBudget(5.0, relation=relation)
        assert budget.charge(LaplaceMechanism(1.0, 1.0)).conversion == "query level"
    rr = PrivacyBudget(5.0).charge(randomized_response(1.0))
    assert rr.relation == "local" and "bounded relation" in rr.conversion


def test_subsampling_uses_the_same_rule():
    # a query-level spec may be Poisson-subsampled (its sensitivity is add/remove-one's) ...
    assert poisson_subsample(LaplaceMechanism(1.0, 1.0).spec, 0.1).rate == 0.1
    # ... a substitute-one spec may not, unless the mechanism declares add/remove-one too
    sub_only = laplace(1.0, relation="substitute_one", declare_both=False)
    with pytest.raises(RelationConversionError, match="Poisson-subsampled"):
        poisson_subsample(sub_only.spec, 0.1)
    declared = poisson_subsample(laplace(1.0, relation="substitute_one"), 0.1)
    assert declared.base.relation.kind == "add_remove_one"
    with pytest.raises(UnsupportedCombinationError, match="without replacement"):
        subsample_without_replacement(gaussian(1.0).spec, 100)
    # the subsampled Laplace under substitute-one: group of 2 of its pure amplified ε
    eps1 = math.log1p(0.1 * math.expm1(1.0))
    entry = PrivacyBudget(5.0).charge(subsampled(laplace(1.0, declare_both=False), 0.1))
    assert entry.epsilon == pytest.approx(2 * eps1, rel=1e-4)


def test_composition_converts_mixed_parts_and_refuses_the_unconvertible():
    sub = gaussian(2.0, relation="substitute_one", declare_both=False)
    # the same release (records in [0, 1]) stated under add/remove-one only
    ar = SumMechanism(gaussian(2.0, relation="substitute_one").relation_specs[0], ())
    assert ar.spec.relation.kind == "add_remove_one"
    mixed = ComposedMechanism([ar, sub], delta=1e-6)
    assert mixed.spec.relation.kind == "substitute_one"
    mu = math.hypot(2 / 2.0, 1 / 2.0)  # group of 2 for the add/remove part
    exact = GaussianDP(mu=mu).epsilon_for_delta(1e-6)  # the claim: up to the stable grid
    assert exact <= mixed.accounting["epsilon"] <= exact * (1 + 1.1e-5)
    with pytest.raises(RelationConversionError):
        ComposedMechanism([ar, sub], relation="add_remove_one")
    report = privaudit.audit([ar, sub], seed=0, samples=4_000)
    assert report.accounting is not None and report.verdict != "violation"


# -- 2. pure stays pure ------------------------------------------------------------------------
def test_pure_composition_claims_pure_epsilon_and_fits_a_pure_budget():
    parts = [LaplaceMechanism(0.3, 1.0), LaplaceMechanism(0.2, 1.0), LaplaceMechanism(0.3, 1.0)]
    composed = ComposedMechanism(parts)
    assert composed.spec.guarantee.kind == "pure_dp"
    assert composed.spec.guarantee.epsilon == pytest.approx(0.8)
    budget = PrivacyBudget(epsilon=5.0)  # δ = 0
    budget.charge(composed)
    assert budget.spent_epsilon == pytest.approx(0.8, abs=1e-4)
    assert repeated(laplace(10.0), 3).spec.guarantee.kind == "pure_dp"


def test_a_charged_composition_costs_what_its_parts_cost():
    """The 'later charges looser' effect: charging a composition (at its claim's δ) used to
    make later totals looser than charging the parts one by one."""
    parts = [LaplaceMechanism(0.3, 1.0), LaplaceMechanism(0.2, 1.0), LaplaceMechanism(0.3, 1.0)]
    later = [gaussian(3.0, relation="substitute_one")] * 5
    one = PrivacyBudget(5.0, 1e-6)
    one.charge(ComposedMechanism(parts, delta=1e-6))
    for m in later:
        one.charge(m)
    two = PrivacyBudget(5.0, 1e-6)
    for m in parts + later:
        two.charge(m)
    assert one.spent_epsilon == pytest.approx(two.spent_epsilon, rel=1e-9)
    # sampling a composition with a budget charges the parts, too
    three = PrivacyBudget(5.0, 1e-6)
    ComposedMechanism(parts, delta=1e-6).sample(0.0, 1, rng=0, budget=three)
    assert three.spent_epsilon == pytest.approx(
        ComposedMechanism(parts).accounting["epsilon"], abs=1e-4
    )


# -- 3. vocabulary, accuracy, remaining, report -------------------------------------------------
def test_constructors_state_their_laws():
    assert gaussian(2.0, sensitivity=3.0).noise_law.sigma == 2.0
    assert gaussian(2.0).spec.guarantee == GaussianDP(mu=0.5)
    assert laplace(4.0).noise_law.scale == 4.0 and laplace(4.0).spec.guarantee.epsilon == 0.25
    assert discrete_laplace(2.0).noise_law.scale == 2.0
    assert discrete_gaussian(3.0).spec.guarantee.rho == pytest.approx(1 / 18)
    assert discrete_gaussian(scale=3.0).noise_law.sigma == gaussian(scale=3.0).noise_law.sigma
    with pytest.raises(InvalidParameterError, match="one of them"):
        gaussian(1.0, scale=2.0)
    assert randomized_response(1.0, categories=3).spec.guarantee.epsilon == 1.0
    rep = repeated(subsampled(gaussian(1.0), 0.01), 100)
    assert len(rep.mechanisms) == 100 and rep.spec.relation.kind == "add_remove_one"
    with pytest.raises(InvalidParameterError, match="sigma"):
        gaussian(0.0)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        discrete_laplace(1.0, sensitivity=1.5)
    with pytest.raises(RelationConversionError, match="randomized response"):
        subsampled(randomized_response(1.0), 0.1)
    with pytest.raises(InvalidParameterError, match="k must"):
        repeated(laplace(1.0), 0)


def test_constructors_match_dp_accounting():
    budget = PrivacyBudget(10.0, 1e-6, relation="add_remove_one")
    budget.charge(repeated(subsampled(gaussian(1.0), 0.01), 100))
    budget.charge(laplace(10.0))
    pld = (
        pld_mod.from_gaussian_mechanism(1.0, sampling_prob=0.01)
        .self_compose(100)
        .compose(pld_mod.from_laplace_mechanism(10.0))
    )
    assert budget.spent_epsilon == pytest.approx(pld.get_epsilon_for_delta(1e-6), rel=1e-5)


def test_constructor_releases_sample_and_charge():
    data = np.array([0.2, 0.9, 0.4])
    budget = PrivacyBudget(2.0, 1e-6, relation="add_remove_one")
    out = subsampled(gaussian(5.0), 0.5).sample(data, 4, rng=0, budget=budget)
    assert out.shape == (4,) and budget.ledger[0].count == 4
    assert discrete_laplace(1.0).release(np.array([0, 1, 1]), rng=0) == pytest.approx(
        discrete_laplace(1.0).release(np.array([0, 1, 1]), rng=0)
    )
    with pytest.raises(BudgetExceededError):
        laplace(0.1).sample(data, 1, rng=0, budget=budget)


def test_accuracy_sets_the_pld_grid():
    fine = PrivacyBudget(10.0, 1e-6, relation="add_remove_one", accuracy=1e-4)
    coarse = PrivacyBudget(10.0, 1e-6, relation="add_remove_one", accuracy=1e-2)
    assert coarse.accuracy == 1e-2 and fine.accuracy == 1e-4
    for b in (fine, coarse):
        b.charge(laplace(5.0), count=20)
    assert fine.spent_epsilon <= coarse.spent_epsilon <= 1.05 * fine.spent_epsilon
    with pytest.raises(InvalidParameterError, match="accuracy"):
        PrivacyBudget(1.0, accountant="rdp", accuracy=1e-3)
    with pytest.raises(InvalidParameterError, match="accuracy"):
        PrivacyBudget(1.0, accuracy=0.0)


def test_remaining_is_what_one_more_release_may_use():
    budget = PrivacyBudget(2.0, 1e-6)
    assert budget.remaining().epsilon == pytest.approx(2.0)
    budget.charge(laplace(1.0, relation="substitute_one"))
    left = budget.remaining()
    assert isinstance(left, RemainingBudget) and left.delta == 0.0
    assert 0.9 < left.epsilon <= 1.0 + 1e-6
    assert budget.can_afford(LaplaceMechanism(left.epsilon * (1 - 1e-6), 1.0))
    assert not budget.can_afford(LaplaceMechanism(left.epsilon * 1.01, 1.0))
    approx = budget.remaining(delta=5e-7)
    assert approx.epsilon >= left.epsilon and "delta = 5e-07" in str(approx)
    with pytest.raises(InvalidParameterError, match="below the budget"):
        budget.remaining(delta=1e-6)


def test_report_renders_each_charge_its_relation_and_the_running_total():
    budget = PrivacyBudget(3.0, 1e-6)
    budget.charge(laplace(2.0, declare_both=False), estimator="first")
    budget.charge(randomized_response(0.5), estimator="second")
    report = budget.report()
    assert isinstance(report, BudgetReport) and len(report.rows) == 2
    assert isinstance(report, str) and "group of 2" in report
    text = str(report)
    lines = text.splitlines()
    assert "rows do not add up" in lines[0]
    assert "stated under" in lines[1] and "total eps" in lines[1]
    assert "group of 2" in lines[3] and "add_remove_one" in lines[3]
    assert "local" in lines[4]
    assert f"{budget.spent_epsilon:.6g}" in lines[4]
    assert report.rows[-1].total_epsilon == pytest.approx(budget.spent_epsilon)
    assert "(no charges)" in str(PrivacyBudget(1.0).report())
