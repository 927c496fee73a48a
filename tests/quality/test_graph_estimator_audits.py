"""The private graph estimators and the uniformity test pass their audits, and the audit bites.

Every graph estimator is audited under **node neighbouring** (rewire one node; changing one
latent point of a random geometric graph), the uniformity test's statistic under
substitute-one, with a fixed seed (deterministic).  Each audit reports a violation of a
true claim with probability at most 1 − confidence = 0.05; with the fixed seed the outcome
is reproducible.  The negative control — Algorithm 1 whose declared smooth sensitivity is
20 times too small — must be caught by the gray-box check on graph pairs, deterministically
(the sensitivity checks spend no error budget).
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import AuditConfig, audit, registry
from privaudit.estimators.graphs import private_edge_density_mechanism
from privaudit.estimators.graphs.local_hajek_network import NetworkStatisticMechanism
from privaudit.spec import GraphDomain, NodeNeighbouring

CONFIG = AuditConfig(
    samples=50_000, pilot_samples=2_000, pair_budget=24, pairs_tested=2, claim_budget=200, seed=11
)
GRAPH_ENTRIES = [name for name in registry.names() if name.startswith("graphs.")]
TEST_ENTRIES = [name for name in registry.names() if name.startswith("hypothesis_tests.")]


def _node_neighbours(report) -> bool:
    pair = report.worst_pair
    domain = report.spec.input_domain
    x, y = (_graph(pair.x, domain), _graph(pair.y, domain))
    return NodeNeighbouring().decide(x, y, domain).is_neighbour


def _graph(jsonable, domain: GraphDomain):
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(domain.n_nodes))
    graph.add_edges_from(tuple(e) for e in jsonable["graph"]["edges"])
    return graph


def test_every_graph_estimator_and_test_is_registered():
    expected = {
        f"graphs.{s}.{m}"
        for s in ("edge_density", "triangle_density")
        for m in ("local_hajek", "local_hajek.coarse_xi", "coinpress")
    }
    expected |= {"graphs.edge_density.local_hajek.wrapped", "graphs.coarse_edge_density"}
    assert expected <= set(GRAPH_ENTRIES)
    assert {
        "hypothesis_tests.uniformity.local_hajek",
        "hypothesis_tests.uniformity.all_tuples",
    } <= set(TEST_ENTRIES)


@pytest.mark.quality
@pytest.mark.parametrize("name", GRAPH_ENTRIES)
def test_graph_estimator_passes_its_audit_under_node_neighbouring(name):
    mech = registry.entry(name).create()
    assert mech.spec.relation == NodeNeighbouring()
    report = audit(mech, config=CONFIG)
    assert not report.violated, report.summary()
    assert _node_neighbours(report)
    ran = {c.name for c in report.checks if c.status != "skipped"}
    if mech.spec.smooth_sensitivity_claim is not None:
        assert {"sensitivity.smooth.upper_bound", "sensitivity.smooth.smoothness"} <= ran
    if mech.spec.global_sensitivity is not None:
        assert "sensitivity.global" in ran
    assert "distinguishability" in ran


@pytest.mark.quality
@pytest.mark.parametrize("name", TEST_ENTRIES)
def test_uniformity_statistic_passes_its_audit_under_substitute_one(name):
    mech = registry.entry(name).create()
    report = audit(mech, config=CONFIG)
    assert not report.violated, report.summary()
    assert mech.spec.relation.kind == "substitute_one"


class _UnderstatedSmoothSensitivity(NetworkStatisticMechanism):
    """Algorithm 1 whose declared (and used) smooth sensitivity is S/20: broken on purpose."""

    def smooth_sensitivity(self, data):
        return super().smooth_sensitivity(data) / 20.0

    def _sample(self, data, size, rng):
        stat = self.evaluate(data).chunks[0]
        z = np.asarray(self.spec.noise.law.sample(rng, size), dtype=float)
        return stat.weighted_mean + stat.noise_scale / 20.0 * z


@pytest.mark.quality
def test_an_understated_smooth_sensitivity_is_caught_on_graph_pairs():
    honest = private_edge_density_mechanism(40, 1.0, xi=0.02, alpha=0.9)
    broken = _UnderstatedSmoothSensitivity(honest.spec, honest.engine)
    report = audit(broken, config=CONFIG)
    check = report.check("sensitivity.smooth.upper_bound")
    assert check.violated, report.summary()
    assert check.ratio > 1.0
    x = _graph(check.counterexample.x, honest.spec.input_domain)
    y = _graph(check.counterexample.y, honest.spec.input_domain)
    assert NodeNeighbouring().decide(x, y, honest.spec.input_domain).is_neighbour
