"""PrivacyBudget: charged by every registry mechanism and every private_* estimator, before
any randomness is drawn; refused calls raise BudgetExceededError and change nothing.
Also the composed mechanisms that audits use to measure the tightness of accounting."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import privaudit
from estimators import private_bounded_mean
from estimators.graphs import private_coarse_edge_density, private_edge_density
from estimators.graphs import private_triangle_density
from estimators.hypothesis_tests import private_uniformity_test
from estimators.ustatistics import (
    collision_kernel,
    mean_kernel,
    private_coinpress_mean,
    private_degenerate_mean,
    private_mean_local_hajek,
    private_median_of_means,
    private_subgaussian_mean,
    variance_kernel,
)
from mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponseMechanism
from mechanisms.accounting import ComposedMechanism, PrivacyBudget
from spec.errors import (
    BudgetExceededError,
    InvalidParameterError,
    PrivauditError,
    UnsupportedCombinationError,
)

X = np.random.default_rng(0).uniform(0.0, 1.0, 400)
LABELS = np.random.default_rng(0).integers(0, 4, 400)
GRAPH = nx.gnp_random_graph(30, 0.3, seed=0)

#: Every public private_* estimator, called with a budget far below its ε.
ESTIMATORS = {
    "private_bounded_mean": lambda b, g: private_bounded_mean(X, 0.0, 1.0, 1.0, rng=g, budget=b),
    "private_mean_local_hajek": lambda b, g: private_mean_local_hajek(
        X, variance_kernel(0.0, 1.0), 1.0, xi=0.05, rng=g, budget=b),
    "private_median_of_means": lambda b, g: private_median_of_means(
        X, variance_kernel(0.0, 1.0), 1.0, alpha=0.5, xi=0.05, rng=g, budget=b),
    "private_degenerate_mean": lambda b, g: private_degenerate_mean(
        LABELS, collision_kernel(), 1.0, alpha=0.5, rng=g, budget=b),
    "private_coinpress_mean": lambda b, g: private_coinpress_mean(
        X[:60], variance_kernel(0.0, 1.0), 1.0, radius=1.0, family="naive", rng=g, warn=False,
        budget=b),
    "private_subgaussian_mean": lambda b, g: private_subgaussian_mean(
        X, mean_kernel(subgaussian_proxy=1.0), 2.0, radius=10.0, alpha=0.5, rng=g, budget=b),
    "private_edge_density": lambda b, g: private_edge_density(GRAPH, 1.0, xi=0.1, alpha=0.9, rng=g,
                                                              budget=b),
    "private_triangle_density": lambda b, g: private_triangle_density(GRAPH, 1.0, xi=0.1, alpha=0.9,
                                                                      rng=g, budget=b),
    "private_coarse_edge_density": lambda b, g: private_coarse_edge_density(GRAPH, 1.0, rng=g,
                                                                            budget=b),
    "private_uniformity_test": lambda b, g: private_uniformity_test(LABELS, 4, 1.0, 1.0, rng=g,
                                                                    budget=b),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_is_refused_before_drawing_any_randomness(name):
    budget = PrivacyBudget(epsilon=0.05, delta=1e-6)
    gen = np.random.default_rng(123)
    before = gen.bit_generator.state
    with pytest.raises(BudgetExceededError, match="left epsilon = 0.05"):
        ESTIMATORS[name](budget, gen)
    assert gen.bit_generator.state == before          # nothing was drawn
    assert budget.ledger == () and budget.spent_epsilon == 0.0


def test_two_estimators_drawn_from_one_budget():
    budget = privaudit.PrivacyBudget(epsilon=2.0, delta=1e-6)
    private_bounded_mean(X, 0.0, 1.0, 1.0, rng=1, budget=budget)
    private_mean_local_hajek(X, variance_kernel(0.0, 1.0), 0.9, xi=0.05, rng=2, budget=budget)
    names = [e.estimator for e in budget.ledger]
    assert names == ["bounded_mean", "ustat.local_hajek.variance"]
    assert budget.ledger[0].spec_hash.startswith("sha256:")
    assert budget.spent_epsilon == pytest.approx(1.9, abs=1e-4)
    assert budget.spent_epsilon <= 1.9 + 1e-6
    with pytest.raises(BudgetExceededError) as info:
        private_bounded_mean(X, 0.0, 1.0, 0.5, rng=3, budget=budget)
    assert isinstance(info.value, PrivauditError)
    assert "left epsilon = 0.1" in str(info.value) and "alone costs epsilon = " in str(info.value)
    assert len(budget.ledger) == 2


def test_registry_mechanisms_charge_per_release():
    mech = LaplaceMechanism(0.1, 1.0)
    budget = PrivacyBudget(epsilon=1.0, delta=1e-5)
    mech.sample(0.0, size=10, rng=0, budget=budget)
    assert budget.ledger[0].count == 10
    assert 0.95 < budget.ledger[0].epsilon <= 1.0          # PLD: below 10 × 0.1 at δ = 1e-5
    assert not budget.can_afford(mech.spec, count=5)
    g = GaussianMechanism(1.0, 1e-5, 1.0)
    with pytest.raises(BudgetExceededError, match="no finite epsilon"):
        g.release(0.0, rng=0, budget=PrivacyBudget(epsilon=10.0))      # δ = 0 budget
    zc = PrivacyBudget(epsilon=5.0, delta=1e-6, accountant="zcdp")
    for seed in range(3):
        g.release(0.0, rng=seed, budget=zc)
    assert zc.adaptive and not budget.adaptive
    assert zc.remaining_epsilon == pytest.approx(5.0 - zc.spent_epsilon)


def test_budget_rejects_bad_arguments():
    with pytest.raises(InvalidParameterError):
        PrivacyBudget(epsilon=-1.0)
    with pytest.raises(InvalidParameterError, match="unknown accountant"):
        PrivacyBudget(epsilon=1.0, accountant="moments")
    with pytest.raises(InvalidParameterError, match="PrivacyBudget"):
        private_bounded_mean(X, 0.0, 1.0, 1.0, rng=1, budget=1.0)
    with pytest.raises(UnsupportedCombinationError, match="unproven"):
        private_mean_local_hajek(X, variance_kernel(0.0, 1.0), 1.0, xi=0.05, rng=1,
                                 sensitivity_mode="paper", budget=PrivacyBudget(epsilon=10.0))


def test_composed_mechanism_claims_the_accountant_bound():
    mech = ComposedMechanism([LaplaceMechanism(0.5, 1.0)] * 4, delta=1e-6)
    info = mech.accounting
    assert info["releases"] == 4 and info["basic_epsilon"] == pytest.approx(2.0)
    assert info["epsilon"] < 2.0
    assert mech.spec.guarantee.epsilon == pytest.approx(info["epsilon"])
    out = mech.sample(0.0, size=7, rng=0)
    assert out.shape == (7, 4)
    with pytest.raises(UnsupportedCombinationError, match="input domain"):
        ComposedMechanism([LaplaceMechanism(0.5, 1.0), RandomizedResponseMechanism(1.0, 4)])
    with pytest.raises(InvalidParameterError):
        ComposedMechanism([])


def test_audit_of_a_composition_reports_its_tightness():
    report = privaudit.audit([LaplaceMechanism(0.5, 1.0)] * 3, seed=0, samples=20_000)
    acc = report.accounting
    assert acc is not None and acc.releases == 3 and acc.accountant == "pld"
    assert report.verdict == "no_violation"
    assert acc.tightness == pytest.approx(report.epsilon_lower_bound / acc.epsilon_bound)
    assert 0.5 < acc.tightness <= 1.1
    assert "tightness" in report.summary()
    assert type(report).from_json(report.to_json()) == report
