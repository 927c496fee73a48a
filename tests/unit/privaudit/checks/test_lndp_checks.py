"""The LNDP checks of the audit report (privaudit.auditing.checks.local_node) and the relation's
generators they use: deterministic except the Lemma 5.4 certificate, whose error rate is
stated (10⁻⁶) and whose draws here are seeded."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from privaudit.auditing.checks.local_node import (
    CERTIFICATE_ERROR,
    check_global_certificate,
    check_joint_accounting,
    check_local_node,
    check_locality,
    local_node_checks_apply,
    message_blocks,
)
from privaudit.estimators.lndp import (
    regular_graph_tv_bound,
    rr_edge_count_mechanism,
    soft_threshold,
    soft_threshold_mechanism,
)
from privaudit.mechanisms import GaussianMechanism
from privaudit.spec import GraphDomain, LocalNodeRelation
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites.local_node import (
    global_threshold_soft_threshold,
    neighbours_copies_ignored,
    node_degrees,
)

N = 8


def _status(outcomes):
    return {c.name: c.status for c in outcomes}


def test_correct_mechanisms_pass_every_check():
    honest = soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1)
    assert local_node_checks_apply(honest)
    assert set(_status(check_local_node(honest, [], np.random.default_rng(0))).values()) == {
        "passed"
    }
    rr = _status(
        check_local_node(rr_edge_count_mechanism(N, 1.0, 1e-3), [], np.random.default_rng(0))
    )
    assert rr.pop("lndp.joint_accounting") == "skipped"  # exact.privacy covers it
    assert set(rr.values()) == {"passed"}


def test_rr_message_blocks_are_the_upper_triangle_rows():
    blocks = message_blocks(rr_edge_count_mechanism(N, 1.0, 1e-3))
    assert [b.size for b in blocks] == list(range(N - 1, -1, -1))
    assert np.array_equal(np.sort(np.concatenate(blocks)), np.arange(N * (N - 1) // 2))


def test_locality_catches_a_randomizer_reading_other_lists():
    outcome = check_locality(global_threshold_soft_threshold(N))
    assert outcome.status == "violated" and outcome.statistic == pytest.approx(1.0)
    node = outcome.counterexample.values["node"]
    x, y = (
        nx.Graph([tuple(e) for e in g["graph"]["edges"]])
        for g in (outcome.counterexample.x, outcome.counterexample.y)
    )
    assert set(x[node]) == set(y[node])  # the node's own view is equal


def test_joint_accounting_catches_ignored_neighbour_copies():
    outcome = check_joint_accounting(neighbours_copies_ignored(N))
    assert outcome.status == "violated"
    assert outcome.statistic > 10 * 1e-3  # exact δ(0.9) = 0.0429


def test_global_certificate_catches_far_too_little_noise():
    """A claimed Δ₂ = 1 for messages 10·f(d_i): on a perfect matching (D = 1) all 8 messages
    move by 10, so the joint TV ≈ 1 exceeds Lemma 5.4's 0.45 for every (0.9, 10⁻³) claim."""
    loud = GaussianMechanism(
        0.9,
        1e-3,
        1.0,
        calibration="classical",
        statistic=lambda g: 10.0 * soft_threshold(node_degrees(g), 0, 1),
        input_domain=GraphDomain(n_nodes=N),
        relation=LocalNodeRelation(),
        output_dimension=N,
        name="broken.loud",
    )
    outcome = check_global_certificate(loud, np.random.default_rng(1))
    assert outcome.status == "violated" and outcome.statistic > 0.7  # Hoeffding lower bound
    assert outcome.details["degrees"][0]["mean_tv"] > 0.99
    assert outcome.error_rate == CERTIFICATE_ERROR


def test_global_certificate_values_for_the_honest_soft_threshold():
    honest = soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1)
    outcome = check_global_certificate(honest, np.random.default_rng(1))
    assert outcome.status == "passed"
    rows = {r["D"]: r for r in outcome.details["degrees"]}
    assert rows[1]["bound"] == pytest.approx(regular_graph_tv_bound(N, 1, 0.9, 1e-3))
    # D = 1: every node has degree 1 and sends f(1) = 1: shift √8, TV = 2Φ(√8/(2σ)) − 1
    sigma = honest.noise_law.sigma
    assert rows[1]["mean_tv"] == pytest.approx(
        math.erf(math.sqrt(8) / (2 * sigma * math.sqrt(2))), rel=1e-9
    )


# -- the relation's generators ------------------------------------------------------------
def test_same_view_graphs_keep_the_node_list_only():
    rel, dom = LocalNodeRelation(), GraphDomain(n_nodes=N, max_degree=3)
    g = nx.cycle_graph(N)
    others = rel.same_view_graphs(dom, g, 2)
    assert len(others) == 2
    for h in others:
        assert set(h[2]) == set(g[2]) and max(d for _, d in h.degree()) <= 3
        assert set(h.edges()) != set(g.edges())


@pytest.mark.parametrize("k", [1, 2, 3])
def test_group_pairs_are_at_node_distance_k(k):
    rel, dom = LocalNodeRelation(), GraphDomain(n_nodes=N)
    pairs = rel.group_pairs(dom, k)
    assert {o for _, _, o in pairs} == {"empty_vs_starpartite", "empty_vs_clique", "clique_growth"}
    assert all(rel.decide(x, y, dom).distance == k for x, y, _ in pairs)
    with pytest.raises(InvalidParameterError, match="k must be"):
        rel.group_pairs(dom, N)


def test_regular_graphs_are_regular_and_seeded():
    rel, dom = LocalNodeRelation(), GraphDomain(n_nodes=N)
    first = rel.regular_graphs(dom, 3, 4, 7)
    assert all(set(dict(g.degree()).values()) == {3} for g in first)
    assert [sorted(g.edges()) for g in first] == [
        sorted(g.edges()) for g in rel.regular_graphs(dom, 3, 4, 7)
    ]
    with pytest.raises(InvalidParameterError, match="degree"):
        rel.regular_graphs(GraphDomain(n_nodes=7), 3, 1, 0)


def _one_non_local_node(nodes: int, reader: int, read: int):
    """Every node sends its degree plus Laplace noise, except ``reader``, which sends
    ``read``'s degree: one non-local node, anywhere."""
    from privaudit.mechanisms import declare_mechanism
    from privaudit.spec import AdditiveNoise, GlobalSensitivity, Laplace, MechanismSpec, PureDP

    def degrees(graph):
        d = np.array([graph.degree(v) for v in range(nodes)], dtype=float)
        d[reader] = d[read]
        return d

    spec = MechanismSpec(
        name="degrees_one_reader",
        input_domain=GraphDomain(n_nodes=nodes),
        relation=LocalNodeRelation(),
        statistic="each node's degree",
        output_dimension=nodes,
        sensitivity=(GlobalSensitivity(value=float(2 * (nodes - 1)), norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=float(2 * (nodes - 1)))),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        lambda g, size, rng: degrees(g) + rng.laplace(0.0, 2.0 * (nodes - 1), (size, nodes)),
        statistic=degrees,
        layout=1,
    )


@pytest.mark.parametrize("nodes, reader, read", [(8, 3, 0), (8, 5, 2), (12, 7, 11), (20, 18, 1)])
def test_locality_examines_every_node_of_a_declared_law(nodes, reader, read):
    outcome = check_locality(_one_non_local_node(nodes, reader, read))
    assert outcome.status == "violated", outcome.summary
    assert outcome.counterexample.values["node"] == reader
    assert outcome.details["nodes_examined"] == nodes


def test_locality_on_samples_states_which_nodes_it_examined():
    mech = _one_non_local_node(40, 3, 0)
    mech._statistic = None  # no gray-box hook: the sampled test, on some nodes only
    outcome = check_locality(mech, [], np.random.default_rng(1), alpha=0.01, samples=2_000)
    assert outcome.details["nodes_examined"] < 40
    assert (
        "random: any other node is examined with probability" in (outcome.details["node_coverage"])
    )


@pytest.mark.parametrize("nodes, hot", [(10, 3), (16, 11)])
def test_black_box_exposure_sees_a_node_whose_signal_is_in_the_spread(nodes, hot):
    """Under the public randomness the hot node's own bit sets the SPREAD of every
    message (mean zero either way): a mean-shift estimate sees nothing, the
    per-coordinate distributional distance ranks the hot node first."""
    from privaudit.auditing.checks.local_node_blackbox import exposure_weights
    from privaudit.mechanisms import declare_mechanism
    from privaudit.spec import (
        GraphDomain,
        MechanismSpec,
        PublicRandomness,
        PureDP,
    )

    spec = MechanismSpec(
        name="spread_leak",
        input_domain=GraphDomain(n_nodes=nodes),
        relation=LocalNodeRelation(),
        statistic="noise whose spread follows the hot node's degree",
        output_dimension=nodes,
        guarantee=PureDP(epsilon=1.0),
    )

    def sample(graph, size, rng):
        spread = 1.0 + 3.0 * float(graph.degree(hot) >= 2)  # only the star at the hot node
        return rng.laplace(0.0, spread, (size, nodes))

    mech = declare_mechanism(
        spec,
        sample,
        layout=1,
        public_randomness=PublicRandomness(drawn="the hot node", reveals="which node is hot"),
        rho=np.array([hot]),
    )
    relation = mech.spec.relation
    weights, how = exposure_weights(
        mech, relation, mech.spec.input_domain, np.random.default_rng(4)
    )
    assert "Kolmogorov-Smirnov" in how
    assert int(np.argmax(weights)) == hot


def test_column_ks_statistics_match_scipy_with_ties():
    from scipy.stats import ks_2samp

    from privaudit.auditing.checks.local_node_blackbox import column_ks_statistics

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(300, 3)), rng.normal(size=(250, 3))
    b[:, 1] *= 2.0
    a[:, 2], b[:, 2] = np.round(a[:, 2]), np.round(b[:, 2] + 0.3)
    expected = [ks_2samp(a[:, j], b[:, j]).statistic for j in range(3)]
    assert np.allclose(column_ks_statistics(a, b), expected, atol=1e-12)


def test_law_figures_are_set_aside_when_the_samples_refute_the_law():
    """The white-box LNDP figures are computed from the declared law; a sampler that draws
    a quarter of the declared noise at every node gets them set aside, never "passed"
    beside the noise-law and distinguishing violations."""
    from privaudit import AuditConfig, audit

    mechanism = soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1)
    honest = mechanism._sample

    def quiet(data, size, rng):
        out = np.asarray(honest(data, size, rng), float).reshape(size, -1)
        centre = np.asarray(mechanism.statistic(data), float).reshape(1, -1)
        return centre + (out - centre) / 4

    mechanism._sample = quiet
    cfg = AuditConfig(
        samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=40
    )
    report = audit(mechanism, config=cfg)
    assert report.check("noise_law").violated and report.check("distinguishability").violated
    for name in ("lndp.per_node", "lndp.joint_accounting", "lndp.global_certificate"):
        check = report.check(name)
        assert check.status == "skipped" and check.summary.startswith("REFUTED by noise_law")
    # an honest sampler keeps its figures
    honest_report = audit(soft_threshold_mechanism(N, 0.9, 1e-3, 0, 1), config=cfg)
    assert honest_report.check("lndp.per_node").status == "passed"
    assert honest_report.check("lndp.joint_accounting").status == "passed"


def test_a_joint_figure_is_set_aside_by_a_sampling_violation_alone():
    from privaudit.auditing.exact.privacy import set_aside_law_figures
    from privaudit.auditing.outcome.results import CheckOutcome

    def outcome(name, status):
        return CheckOutcome(name=name, status=status, summary=f"{name} {status}")

    checks = [
        outcome("lndp.per_node", "passed"),
        outcome("lndp.joint_accounting", "passed"),
        outcome("distinguishability", "violated"),
    ]
    set_aside_law_figures(checks)
    assert [c.status for c in checks] == ["passed", "skipped", "violated"]
    assert "REFUTED by distinguishability" in checks[1].summary
    assert "[was: lndp.joint_accounting passed]" in checks[1].summary
