"""Quality tier, graphs: broken node-DP graph mechanisms are flagged, controls pass.

Each case (:mod:`privaudit.suites.graphs`: n = 10, D = 3, claimed ε = 1) is audited with
the quality tier's seeded configuration (10⁵ samples per side, confidence 0.999, seed 7),
starting from one *benign* explicit pair, so any counterexample must come from the
auditor's own graph generators (:mod:`privaudit.auditing.search.pair_sources`).

Error rates.  The gray-box sensitivity check is deterministic and never flags a true claim;
the distributional test flags a correct mechanism with probability ≤ 10⁻³ per audit, so
over the five controls a false alarm has probability ≤ 5·10⁻³.  The seeds are fixed, so the
outcome is deterministic.  Soundness: the certified ε lower bound of every case must not
exceed its true ε (it would with probability ≤ 10⁻³ if the statistics were right).

The table of ε lower bounds against the true ε (``scripts/graph_audit_table.py``) is
rebuilt from these audits and must match ``docs/graph_audit_table.md``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import networkx as nx
import numpy as np
import pytest

from privaudit.auditing.search.pair_sources import extreme_pairs
from privaudit.spec import EdgeNeighbouring, NodeNeighbouring
from privaudit.suites import (
    WORST_PAIR_GENERATORS,
    BenchmarkCase,
    graph_broken_cases,
    graph_control_cases,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR_ORIGINS = {
    "star_toggle",
    "threshold_star_toggle",
    "threshold_complement_rewiring",
    "complement_rewiring",
    "hub_insertion",
    "degree_preserving_swap",
    "extreme",
}


def _load_table_script():
    spec = importlib.util.spec_from_file_location(
        "graph_audit_table", ROOT / "scripts" / "graph_audit_table.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


TABLE = _load_table_script()
BROKEN = graph_broken_cases()
CONTROLS = graph_control_cases()


@pytest.fixture(scope="module")
def reports():
    """Every graph case audited once (about 3 s in all)."""
    return {case.name: report for case, report in TABLE.audit_graph_cases()}


def _graph(value) -> nx.Graph:
    """A graph from its JSON form ``{"graph": {"nodes": n, "edges": [[u, v], ...]}}``."""
    graph = nx.empty_graph(value["graph"]["nodes"])
    graph.add_edges_from(tuple(e) for e in value["graph"]["edges"])
    return graph


def _true_sensitivity(case: BenchmarkCase) -> float:
    return case.true_epsilon / case.claimed_epsilon * case.spec.global_sensitivity.value


def _shift(case: BenchmarkCase, x: nx.Graph, y: nx.Graph) -> float:
    difference = np.subtract(case.mechanism.statistic(x), case.mechanism.statistic(y))
    return float(np.abs(np.atleast_1d(difference)).sum())


def test_the_suite_is_registered_and_matches_the_config():
    from privaudit.suites import all_cases

    names = {c.name for c in all_cases()}
    assert {c.name for c in BROKEN + CONTROLS} <= names
    assert set(WORST_PAIR_GENERATORS) == {c.name for c in BROKEN + CONTROLS}
    assert all(not c.is_private for c in BROKEN) and all(c.is_private for c in CONTROLS)


@pytest.mark.parametrize("case", BROKEN + CONTROLS, ids=lambda c: c.name)
def test_recorded_generators_are_exactly_those_attaining_the_true_sensitivity(case):
    """Every generator pair is verified by decide; the recorded ones reach the true Δ."""
    spec = case.spec
    best: dict[str, float] = {}
    for x, y, origin in extreme_pairs(spec):
        decision = spec.relation.decide(x, y, spec.input_domain)
        assert decision.is_neighbour, (origin, decision.reason)
        best[origin] = max(best.get(origin, 0.0), _shift(case, x, y))
    true = _true_sensitivity(case)
    assert max(best.values()) == true
    assert {o for o, v in best.items() if v == true} == set(WORST_PAIR_GENERATORS[case.name])


@pytest.mark.quality
@pytest.mark.parametrize("case", BROKEN, ids=lambda c: c.name)
def test_broken_graph_mechanisms_are_flagged_with_generated_node_pairs(case, reports):
    report = reports[case.name]
    assert report.violated, report.summary()
    # 1. the gray-box sensitivity check: a node-neighbouring pair from a generator that
    #    attains the true sensitivity exactly
    sensitivity = report.check("sensitivity.global")
    assert sensitivity.violated
    example = sensitivity.counterexample
    assert example.origin in WORST_PAIR_GENERATORS[case.name]
    x, y = _graph(example.x), _graph(example.y)
    decision = NodeNeighbouring().decide(x, y, case.spec.input_domain)
    assert decision.is_neighbour and decision.distance == 1.0
    assert _shift(case, x, y) == example.values["norm_of_difference"] == _true_sensitivity(case)
    # 2. the distributional test refutes the claimed ε on a generated node pair, soundly
    dist = report.check("distinguishability")
    assert dist.violated
    assert case.claimed_epsilon < report.epsilon_lower_bound <= case.true_epsilon
    witness = dist.counterexample
    assert witness.origin in GENERATOR_ORIGINS - {"extreme"}
    assert (
        NodeNeighbouring()
        .decide(_graph(witness.x), _graph(witness.y), case.spec.input_domain)
        .distance
        == 1.0
    )


@pytest.mark.quality
@pytest.mark.parametrize("case", CONTROLS, ids=lambda c: c.name)
def test_correct_graph_mechanisms_pass(case, reports):
    report = reports[case.name]
    assert not report.violated, report.summary()
    assert report.epsilon_lower_bound <= case.true_epsilon * (1 + 1e-9)
    # the sensitivity search reached the true sensitivity: the pass is not vacuous
    assert report.check("sensitivity.global").statistic == _true_sensitivity(case)
    relation = case.spec.relation
    assert isinstance(relation, (NodeNeighbouring, EdgeNeighbouring))


@pytest.mark.quality
def test_graph_audit_table_is_current(reports):
    cases = {c.name: c for c in BROKEN + CONTROLS}
    audits = [(cases[name], report) for name, report in reports.items()]
    expected = TABLE.render(TABLE.table_rows(audits))
    assert (ROOT / "docs" / "graph_audit_table.md").read_text(encoding="utf-8") == expected
    for row in TABLE.table_rows(audits):
        assert row.epsilon_lower_bound <= row.true_epsilon * (1 + 1e-9)
        assert row.found_sensitivity == row.true_sensitivity
