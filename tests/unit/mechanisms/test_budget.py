"""PrivacyBudget: charged by every registry mechanism and every private_* estimator, before
any randomness is drawn; refused calls raise BudgetExceededError and change nothing.
Also the composed mechanisms that audits use to measure the tightness of accounting."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import networkx as nx
import numpy as np
import pytest

import privaudit
from privaudit import estimators
from privaudit.estimators import (
    lndp,
    private_bounded_mean,
    private_linear_workload,
    private_prefix_sums,
)
from privaudit.estimators import local_ustatistics as lu
from privaudit.estimators.graphs import (
    private_coarse_edge_density,
    private_edge_density,
    private_triangle_density,
)
from privaudit.estimators.histograms import private_histogram, private_partition_selection
from privaudit.estimators.hypothesis_tests import private_uniformity_test
from privaudit.estimators.robust import (
    private_median,
    private_quantile,
    private_robust_mean,
    private_trimmed_mean,
)
from privaudit.estimators.ustatistics import (
    collision_kernel,
    mean_kernel,
    private_coinpress_mean,
    private_degenerate_mean,
    private_mean_local_hajek,
    private_median_of_means,
    private_subgaussian_mean,
    variance_kernel,
)
from privaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponseMechanism
from privaudit.mechanisms.accounting import ComposedMechanism, PrivacyBudget
from privaudit.spec.errors import (
    BudgetExceededError,
    InvalidParameterError,
    PrivauditError,
    UnsupportedCombinationError,
)

X = np.random.default_rng(0).uniform(0.0, 1.0, 400)
LABELS = np.random.default_rng(0).integers(0, 4, 400)
GRAPH = nx.gnp_random_graph(30, 0.3, seed=0)


def _ABS(a, b):
    return np.abs(a - b)


def _GREATER(a, b):
    return (a > b).astype(float)


#: Every public private_* estimator, called with a budget far below its ε.
ESTIMATORS = {
    "private_bounded_mean": lambda b, g: private_bounded_mean(X, 0.0, 1.0, 1.0, rng=g, budget=b),
    "private_mean_local_hajek": lambda b, g: private_mean_local_hajek(
        X, variance_kernel(0.0, 1.0), 1.0, xi=0.05, rng=g, budget=b
    ),
    "private_median_of_means": lambda b, g: private_median_of_means(
        X, variance_kernel(0.0, 1.0), 1.0, alpha=0.5, xi=0.05, rng=g, budget=b
    ),
    "private_degenerate_mean": lambda b, g: private_degenerate_mean(
        LABELS, collision_kernel(), 1.0, alpha=0.5, rng=g, budget=b
    ),
    "private_coinpress_mean": lambda b, g: private_coinpress_mean(
        X[:60],
        variance_kernel(0.0, 1.0),
        1.0,
        radius=1.0,
        family="naive",
        rng=g,
        warn=False,
        budget=b,
    ),
    "private_subgaussian_mean": lambda b, g: private_subgaussian_mean(
        X, mean_kernel(subgaussian_proxy=1.0), 2.0, radius=10.0, alpha=0.5, rng=g, budget=b
    ),
    "private_edge_density": lambda b, g: private_edge_density(
        GRAPH, 1.0, xi=0.1, alpha=0.9, rng=g, budget=b
    ),
    "private_triangle_density": lambda b, g: private_triangle_density(
        GRAPH, 1.0, xi=0.1, alpha=0.9, rng=g, budget=b
    ),
    "private_coarse_edge_density": lambda b, g: private_coarse_edge_density(
        GRAPH, 1.0, rng=g, budget=b
    ),
    "private_uniformity_test": lambda b, g: private_uniformity_test(
        LABELS, 4, 1.0, 1.0, rng=g, budget=b
    ),
    # locally private U-statistics (per-user ε-LDP randomizers, the 2PC central views)
    "private_ustatistic_rr": lambda b, g: lu.private_ustatistic_rr(
        LABELS, lu.collision_table(4), 1.0, rng=g, budget=b
    ),
    "private_gini_mean_difference_rr": lambda b, g: lu.private_gini_mean_difference_rr(
        X, 1.0, 4, rng=g, budget=b
    ),
    "private_kendall_tau_rr": lambda b, g: lu.private_kendall_tau_rr(
        LABELS, LABELS[::-1].copy(), 4, 1.0, rng=g, budget=b
    ),
    "private_renyi2_rr": lambda b, g: lu.private_renyi2_rr(LABELS, 4, 1.0, rng=g, budget=b),
    "private_auc_rr": lambda b, g: lu.private_auc_rr(X, LABELS % 2, 1.0, 4, rng=g, budget=b),
    "private_auc_hierarchical": lambda b, g: lu.private_auc_hierarchical(
        LABELS, LABELS % 2, 2, 1.0, rng=g, budget=b
    ),
    "private_ustatistic_2pc": lambda b, g: lu.private_ustatistic_2pc(
        X[:40], _ABS, 1.0, rng=g, budget=b
    ),
    "private_ustatistic_2pc_discrete": lambda b, g: lu.private_ustatistic_2pc_discrete(
        X[:40], _GREATER, [0.0, 1.0], 1.0, rng=g, budget=b
    ),
    "private_ustatistic_2pc_all_pairs": lambda b, g: lu.private_ustatistic_2pc_all_pairs(
        X[:40], _ABS, 1.0, 1e-5, rng=g, budget=b
    ),
    # local node DP (the joint messages' (ε, δ))
    "private_soft_threshold": lambda b, g: lndp.private_soft_threshold(
        GRAPH, 0.5, 1e-3, 0, 4, rng=g, budget=b
    ),
    "private_edge_count": lambda b, g: lndp.private_edge_count(
        GRAPH, 0.5, 1e-3, 8, rng=g, budget=b
    ),
    "private_blurry_linear": lambda b, g: lndp.private_blurry_linear(
        GRAPH, 0.5, 1e-3, 5, np.eye(lndp.bucket_count(30, 5)), rng=g, budget=b
    ),
    "private_degree_pmf": lambda b, g: lndp.private_degree_pmf(
        GRAPH, 0.5, 1e-3, 5, rng=g, budget=b
    ),
    "private_degree_cdf": lambda b, g: lndp.private_degree_cdf(
        GRAPH, 0.5, 1e-3, 5, rng=g, budget=b
    ),
    "private_degree_thresholds": lambda b, g: lndp.private_degree_thresholds(
        GRAPH, 0.5, 1e-3, 5, [5, 10], rng=g, budget=b
    ),
    "private_average_degree": lambda b, g: lndp.private_average_degree(
        GRAPH, 0.5, 1e-3, 5, rng=g, budget=b
    ),
    "private_erdos_renyi": lambda b, g: lndp.private_erdos_renyi(GRAPH, 0.5, 1e-3, rng=g, budget=b),
    "private_clique_size": lambda b, g: lndp.private_clique_size(GRAPH, 0.5, 1e-3, rng=g, budget=b),
    "private_regular_vs_star": lambda b, g: lndp.private_regular_vs_star(
        GRAPH, 0.5, 1e-3, 3, 4, rng=g, budget=b
    ),
    "private_laplace_edge_count": lambda b, g: lndp.private_laplace_edge_count(
        GRAPH, 0.5, rng=g, budget=b
    ),
    "private_rr_edge_count": lambda b, g: lndp.private_rr_edge_count(
        GRAPH, 0.5, 1e-3, rng=g, budget=b
    ),
    # robustness (inverse sensitivity) and partition selection (add/remove-one users)
    "private_median": lambda b, g: private_median(X, 0.0, 1.0, 1.0, rng=g, budget=b),
    "private_quantile": lambda b, g: private_quantile(
        X, 0.0, 1.0, 1.0, quantile=0.25, rng=g, budget=b
    ),
    "private_trimmed_mean": lambda b, g: private_trimmed_mean(X, 0.0, 1.0, 1.0, rng=g, budget=b),
    "private_robust_mean": lambda b, g: private_robust_mean(X, 0.0, 1.0, 1.0, rng=g, budget=b),
    "private_partition_selection": lambda b, g: private_partition_selection(
        LABELS, 1.0, 1e-7, rng=g, budget=b
    ),
    "private_histogram": lambda b, g: private_histogram(LABELS, 1.0, 1e-7, rng=g, budget=b),
    # matrix mechanisms: prefix sums and a linear workload by a factorization
    "private_prefix_sums": lambda b, g: private_prefix_sums(
        X[:64], 1.0, 1e-6, method="sqrt_toeplitz", rng=g, budget=b
    ),
    "private_linear_workload": lambda b, g: private_linear_workload(
        X[:8],
        np.tril(np.ones((8, 8))),
        np.tril(np.ones((8, 8))),
        np.eye(8),
        1.0,
        1e-6,
        rng=g,
        budget=b,
    ),
}

#: ``private_*`` functions without an ε of their own: post-processing of released values,
#: which costs nothing (here: Protocol B's recursion on already private level estimates).
POST_PROCESSING = {"private_uauc"}


def _public_private_functions() -> dict[str, object]:
    """Every ``private_*`` estimator in the ``__all__`` of every estimator (sub)package
    (``*_mechanism`` constructors draw nothing; their releases charge a budget)."""
    found: dict[str, object] = {}
    packages = [estimators] + [
        importlib.import_module(f"privaudit.estimators.{info.name}")
        for info in pkgutil.iter_modules(estimators.__path__)
        if info.ispkg
    ]
    for package in packages:
        for name in package.__all__:
            obj = getattr(package, name)
            if (
                name.startswith("private_")
                and not name.endswith("_mechanism")
                and inspect.isfunction(obj)
            ):
                found[name] = obj
    return found


def test_every_public_private_function_takes_a_budget_and_is_tested_here():
    found = _public_private_functions()
    assert {"private_soft_threshold", "private_ustatistic_2pc"} <= set(found)
    assert set(found) - POST_PROCESSING == set(ESTIMATORS)
    for name, function in found.items():
        parameters = inspect.signature(function).parameters
        if name in POST_PROCESSING:
            assert "epsilon" not in parameters, name
            continue
        assert parameters["budget"].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert parameters["budget"].default is None, name


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_is_refused_before_drawing_any_randomness(name):
    budget = PrivacyBudget(epsilon=0.05, delta=1e-6)
    gen = np.random.default_rng(123)
    before = gen.bit_generator.state
    with pytest.raises(BudgetExceededError, match="left epsilon = 0.05"):
        ESTIMATORS[name](budget, gen)
    assert gen.bit_generator.state == before  # nothing was drawn
    assert budget.ledger == () and budget.spent_epsilon == 0.0


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_an_affordable_call_charges_once_and_names_itself(name):
    budget = PrivacyBudget(epsilon=50.0, delta=0.01)
    assert ESTIMATORS[name](budget, np.random.default_rng(5)) is not None
    assert len(budget.ledger) == 1
    assert 0.0 < budget.spent_epsilon <= 50.0 and budget.ledger[0].count == 1


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
    assert 0.95 < budget.ledger[0].epsilon <= 1.0  # PLD: below 10 × 0.1 at δ = 1e-5
    assert not budget.can_afford(mech.spec, count=5)
    g = GaussianMechanism(1.0, 1e-5, 1.0)
    with pytest.raises(BudgetExceededError, match="no finite epsilon"):
        g.release(0.0, rng=0, budget=PrivacyBudget(epsilon=10.0))  # δ = 0 budget
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
        private_mean_local_hajek(
            X,
            variance_kernel(0.0, 1.0),
            1.0,
            xi=0.05,
            rng=1,
            sensitivity_mode="paper",
            budget=PrivacyBudget(epsilon=10.0),
        )


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


@pytest.mark.parametrize("count", [True, False, 1.5, "2", 0, -1])
def test_a_count_that_is_no_positive_integer_is_refused_by_name(count):
    """``count=True`` once charged one release (True * k == k): a bool is no count."""
    from privaudit.mechanisms.accounting import gaussian
    from privaudit.spec.errors import ParameterTypeError, SampleSizeError

    budget = PrivacyBudget(epsilon=1.0, delta=1e-6)
    with pytest.raises((ParameterTypeError, SampleSizeError), match="count must be an integer"):
        budget.charge(gaussian(sigma=5.0), count=count)
    with pytest.raises((ParameterTypeError, SampleSizeError), match="count must be an integer"):
        budget.can_afford(gaussian(sigma=5.0), count=count)
    assert budget.spent_epsilon == 0.0


# -- node-level and edge-level releases: one unit per budget ---------------------------------
def _graph_release(kind: str, nodes: int, epsilon: float, max_degree=None):
    from privaudit.mechanisms import declare_mechanism
    from privaudit.spec import (
        AdditiveNoise,
        GlobalSensitivity,
        GraphDomain,
        Laplace,
        MechanismSpec,
        PureDP,
    )
    from privaudit.spec.relations import EdgeNeighbouring, NodeNeighbouring

    sensitivity = 1.0 if kind == "edge" else float(nodes - 1)
    spec = MechanismSpec(
        name=f"{kind}_level_count",
        input_domain=GraphDomain(n_nodes=nodes, max_degree=max_degree),
        relation=EdgeNeighbouring() if kind == "edge" else NodeNeighbouring(),
        statistic="number of edges",
        sensitivity=(GlobalSensitivity(value=sensitivity),),
        noise=AdditiveNoise(law=Laplace(scale=sensitivity / epsilon)),
        guarantee=PureDP(epsilon=epsilon),
    )
    return declare_mechanism(spec, sampler=lambda g, size, rng: rng.laplace(0.0, 1.0, size))


@pytest.mark.parametrize("nodes", [20, 50])
def test_a_substitute_one_budget_refuses_to_add_node_and_edge_level_releases(nodes):
    from privaudit.spec.errors import RelationConversionError

    for first, second in (("node", "edge"), ("edge", "node")):
        budget = PrivacyBudget(epsilon=5.0, delta=0.0)
        budget.charge(_graph_release(first, nodes, 0.5))
        with pytest.raises(RelationConversionError, match="protect different units"):
            budget.charge(_graph_release(second, nodes, 0.5))
        assert len(budget.ledger) == 1  # nothing charged by the refused call


def test_a_node_level_release_counts_as_edge_level_under_an_edge_budget():
    budget = PrivacyBudget(epsilon=2.0, delta=0.0, relation="edge")
    entry = budget.charge(_graph_release("node", 30, 0.5))
    assert entry.conversion == "node → edge: node implies edge"
    budget.charge(_graph_release("edge", 30, 0.5))
    assert budget.spent_epsilon == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("nodes, degree, k", [(50, 3, 6), (50, 49, 49), (12, 4, 8)])
def test_an_edge_level_release_is_converted_by_group_privacy_under_a_node_budget(nodes, degree, k):
    from privaudit.spec.errors import RelationConversionError

    budget = PrivacyBudget(epsilon=100.0, delta=0.0, relation="node")
    with pytest.raises(RelationConversionError, match="without a degree bound"):
        budget.charge(_graph_release("edge", nodes, 0.5))
    entry = budget.charge(_graph_release("edge", nodes, 0.5, max_degree=degree))
    assert entry.conversion == f"edge → node: group of {k}"  # min(2D, n − 1) edge flips
    assert entry.epsilon == pytest.approx(k * 0.5, rel=1e-3)


def test_group_privacy_of_an_approximate_guarantee_sums_the_delta_terms():
    from privaudit.mechanisms.accounting.relations import group_curves
    from privaudit.spec import ApproxDP

    curves = group_curves(ApproxDP(epsilon=0.3, delta=1e-6), 4)
    eps, delta = curves.approx
    assert eps == pytest.approx(1.2)
    assert delta == pytest.approx(1e-6 * sum(np.exp(i * 0.3) for i in range(4)))


def test_stability_releases_charge_before_drawing():
    from privaudit.estimators.stability import ptr_iqr, ptr_median, sample_and_aggregate

    calls = {
        "ptr_median": lambda b, g: ptr_median(
            X[:399], 0.0, 1.0, 1.0, 1e-6, proposed_bound=0.05, rng=g, budget=b
        ),
        "ptr_iqr": lambda b, g: ptr_iqr(
            X[:399], 0.0, 1.0, 1.0, 1e-6, proposed_bound=0.05, rng=g, budget=b
        ),
        "sample_and_aggregate": lambda b, g: sample_and_aggregate(
            X, lambda blocks: blocks.mean(axis=1), 10, 0.0, 1.0, 1.0, rng=g, budget=b
        ),
    }
    for name, call in calls.items():
        small = PrivacyBudget(epsilon=0.05, delta=1e-6)
        gen = np.random.default_rng(1)
        before = gen.bit_generator.state
        with pytest.raises(BudgetExceededError):
            call(small, gen)
        assert gen.bit_generator.state == before and small.ledger == (), name
        large = PrivacyBudget(epsilon=50.0, delta=0.01)
        assert call(large, np.random.default_rng(1)) is not None
        assert len(large.ledger) == 1, name
