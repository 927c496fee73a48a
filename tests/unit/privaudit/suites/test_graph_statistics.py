"""The graph suite's statistics and their sensitivities, verified by exhaustive enumeration.

Every graph on n ≤ 6 nodes (2^15 = 32,768 of them at n = 6) is enumerated as a 0/1 edge
mask; node-neighbouring pairs are the graphs that agree on every edge not at some node v
(groups of 2^(n−1) graphs), edge-neighbouring pairs differ in one bit.  The statistics are
recomputed here from the masks, independently of the suite's sparse-matrix code, and the
maximum change over all neighbouring pairs must equal the sensitivity the suite claims.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.spec import GraphDomain
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites import graph_broken_cases, graph_control_cases
from privaudit.suites._graph_statistics import (
    degree_histogram,
    degree_histogram_edge_sensitivity,
    degree_histogram_node_sensitivity,
    edge_count,
    edge_count_node_sensitivity,
    triangle_count,
    triangle_count_edge_sensitivity,
    triangle_count_node_sensitivity,
    truncated_edge_count,
    truncated_edge_count_node_sensitivity,
)


class AllGraphs:
    """Every graph on n nodes as rows of an edge mask, with vectorised statistics."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.pairs = list(itertools.combinations(range(n), 2))
        p = len(self.pairs)
        codes = np.arange(2**p, dtype=np.int64)
        self.masks = ((codes[:, None] >> np.arange(p)) & 1).astype(bool)
        self.codes = codes
        incidence = np.zeros((p, n), dtype=np.int64)
        for e, (u, v) in enumerate(self.pairs):
            incidence[e, u] = incidence[e, v] = 1
        self.incidence = incidence
        self.degrees = self.masks.astype(np.int64) @ incidence

    def edge_count(self) -> np.ndarray:
        return self.masks.sum(axis=1)

    def histogram(self) -> np.ndarray:
        return (self.degrees[:, :, None] == np.arange(self.n)).sum(axis=1)

    def triangles(self) -> np.ndarray:
        index = {pair: e for e, pair in enumerate(self.pairs)}
        total = np.zeros(len(self.codes), dtype=np.int64)
        for a, b, c in itertools.combinations(range(self.n), 3):
            total += (
                self.masks[:, index[(a, b)]]
                & self.masks[:, index[(b, c)]]
                & self.masks[:, index[(a, c)]]
            )
        return total

    def truncated_edges(self, max_degree: int) -> np.ndarray:
        kept = self.degrees <= max_degree
        us = np.array([u for u, _ in self.pairs], dtype=np.int64).reshape(-1)
        vs = np.array([v for _, v in self.pairs], dtype=np.int64).reshape(-1)
        return (self.masks & kept[:, us] & kept[:, vs]).sum(axis=1)

    def within(self, bound: int) -> np.ndarray:
        return self.degrees.max(axis=1, initial=0) <= bound

    # -- sensitivities ------------------------------------------------------------------
    def node_sensitivity(self, values: np.ndarray, allowed: np.ndarray | None = None) -> float:
        """max ‖f(G) − f(G′)‖₁ over node-neighbours (both graphs ``allowed``)."""
        values = values.reshape(len(self.codes), -1).astype(np.float64)
        allowed = np.ones(len(self.codes), bool) if allowed is None else allowed
        worst = 0.0
        for v in range(self.n):
            at_v = sum(1 << e for e, pair in enumerate(self.pairs) if v in pair)
            order = np.argsort(self.codes & ~at_v, kind="stable")
            size = 2 ** (self.n - 1)
            groups = values[order].reshape(-1, size, values.shape[1])
            ok = allowed[order].reshape(-1, size)
            gaps = np.abs(groups[:, :, None, :] - groups[:, None, :, :]).sum(axis=3)
            gaps[~(ok[:, :, None] & ok[:, None, :])] = 0.0
            worst = max(worst, float(gaps.max(initial=0.0)))
        return worst

    def edge_sensitivity(self, values: np.ndarray) -> float:
        """max ‖f(G) − f(G′)‖₁ over pairs differing in one edge."""
        values = values.reshape(len(self.codes), -1).astype(np.float64)
        worst = 0.0
        for e in range(len(self.pairs)):
            partner = self.codes ^ (1 << e)
            worst = max(worst, float(np.abs(values - values[partner]).sum(axis=1).max()))
        return worst


GRAPHS = {n: AllGraphs(n) for n in range(1, 7)}


@pytest.mark.parametrize("n", range(1, 7))
def test_edge_count_sensitivities(n):
    graphs = GRAPHS[n]
    assert graphs.node_sensitivity(graphs.edge_count()) == edge_count_node_sensitivity(n)
    assert graphs.edge_sensitivity(graphs.edge_count()) == (1 if n >= 2 else 0)
    for bound in range(n):
        within = graphs.within(bound)
        assert graphs.node_sensitivity(graphs.edge_count(), within) == min(bound, n - 1)


@pytest.mark.parametrize("n", range(1, 7))
def test_degree_histogram_sensitivities(n):
    graphs = GRAPHS[n]
    assert graphs.node_sensitivity(graphs.histogram()) == degree_histogram_node_sensitivity(n)
    expected_edge = degree_histogram_edge_sensitivity() if n >= 2 else 0
    assert graphs.edge_sensitivity(graphs.histogram()) == expected_edge


@pytest.mark.parametrize("n", range(1, 7))
def test_triangle_count_sensitivities(n):
    graphs = GRAPHS[n]
    triangles = graphs.triangles()
    assert graphs.node_sensitivity(triangles) == triangle_count_node_sensitivity(n)
    assert graphs.edge_sensitivity(triangles) == triangle_count_edge_sensitivity(n)


@pytest.mark.parametrize(("n", "max_degree"), [(2, 0), (4, 1), (6, 2)])
def test_truncated_edge_count_sensitivity(n, max_degree):
    graphs = GRAPHS[n]
    exhaustive = graphs.node_sensitivity(graphs.truncated_edges(max_degree))
    assert exhaustive == truncated_edge_count_node_sensitivity(n, max_degree) == n * max_degree // 2


def test_truncated_edge_count_sensitivity_refuses_unproven_sizes():
    for n, d in [(5, 1), (6, 3), (3, 1), (7, 2)]:
        with pytest.raises(InvalidParameterError):
            truncated_edge_count_node_sensitivity(n, d)
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidParameterError, match="max_degree"):
            truncated_edge_count_node_sensitivity(10, bad)
    for function in (
        edge_count_node_sensitivity,
        degree_histogram_node_sensitivity,
        triangle_count_edge_sensitivity,
        triangle_count_node_sensitivity,
    ):
        with pytest.raises(InvalidParameterError, match="n must be an integer >= 1"):
            function(0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.data())
def test_suite_statistics_match_the_mask_implementation(n, data):
    graphs = GRAPHS[n]
    g = data.draw(st.integers(0, len(graphs.codes) - 1))
    graph = nx.empty_graph(n)
    graph.add_edges_from(p for p, keep in zip(graphs.pairs, graphs.masks[g], strict=True) if keep)
    assert edge_count(graph) == graphs.edge_count()[g]
    assert np.array_equal(degree_histogram(graph), graphs.histogram()[g])
    assert triangle_count(graph) == graphs.triangles()[g]
    for d in range(n):
        assert truncated_edge_count(graph, d) == graphs.truncated_edges(d)[g]


def test_statistics_on_known_graphs():
    assert edge_count(nx.complete_graph(10)) == 45
    assert triangle_count(nx.complete_graph(10)) == math.comb(10, 3)
    assert np.array_equal(degree_histogram(nx.star_graph(4)), [0, 4, 0, 0, 1])
    assert truncated_edge_count(nx.star_graph(4), 3) == 0
    assert truncated_edge_count(nx.cycle_graph(6), 2) == 6


def test_cases_record_true_epsilon_from_the_sensitivities():
    """true ε = (true Δ / claimed Δ)·ε for every graph case (Laplace on the worst pair)."""
    expected = {
        "graphs.edge_count_no_projection": 9 / 3,
        "graphs.edge_count_naive_truncation": 15 / 3,
        "graphs.degree_histogram_edge_sensitivity": 20 / 4,
        "graphs.triangle_count_edge_sensitivity": 36 / 8,
    }
    for case in graph_broken_cases():
        assert case.true_epsilon == pytest.approx(expected[case.name], rel=1e-12)
        assert not case.is_private
        assert isinstance(case.spec.input_domain, GraphDomain)
    for case in graph_control_cases():
        assert case.true_epsilon == case.claimed_epsilon == 1.0 and case.is_private
