"""Graph quality cases: node-DP mechanisms calibrated to the wrong sensitivity, and controls.

Every mechanism is the Laplace mechanism f(G) + Lap(Δ/ε) on a graph statistic
(:mod:`privaudit.suites._graph_statistics`) with its ``statistic`` hook exposed; a broken
case claims the wrong Δ under its relation, so its true ε is (Δ_true / Δ_claimed)·ε
(Dwork, McSherry, Nissim & Smith, TCC 2006).  :func:`graph_broken_cases`: the edge count
without projection or with naive truncation, the degree histogram and the triangle count
with edge-level sensitivity under node-neighbouring; :func:`graph_control_cases`: the same
statistics with the correct Δ.  Each case's ``input_pairs`` is one benign pair: the auditor
must find the worst with its own generators (:data:`WORST_PAIR_GENERATORS`).  References:
Kasiviswanathan et al., TCC 2013; Blocki et al., ITCS 2013; Raskhodnikova et al., arXiv 2026.

Details (each case's Δ and true ε): ``docs/engine_notes.md``, "privaudit.suites.graphs".
"""

from __future__ import annotations

from functools import partial
from types import MappingProxyType

import networkx as nx

from privaudit.mechanisms import LaplaceMechanism
from privaudit.spec import EdgeNeighbouring, GraphDomain, NodeNeighbouring, Reference
from privaudit.suites._base import BenchmarkCase
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

__all__ = [
    "GRAPH_DEGREE_BOUND",
    "GRAPH_EPSILON",
    "GRAPH_NODES",
    "WORST_PAIR_GENERATORS",
    "graph_broken_cases",
    "graph_control_cases",
]

#: Nodes of every graph in the suite (small, so searches are cheap).
GRAPH_NODES = 10
#: The public degree bound D of the bounded and truncating cases.
GRAPH_DEGREE_BOUND = 3
#: The claimed ε of every case.
GRAPH_EPSILON = 1.0

#: For each case, every candidate generator (origin in
#: :func:`privaudit.auditing.search.pair_sources.extreme_pairs`) with a pair attaining the true
#: Δ.
WORST_PAIR_GENERATORS = MappingProxyType(
    {
        "graphs.edge_count_no_projection": (
            "complement_rewiring",
            "hub_insertion",
            "star_toggle",
            "threshold_star_toggle",
        ),
        "graphs.edge_count_naive_truncation": ("threshold_complement_rewiring",),
        "graphs.degree_histogram_edge_sensitivity": (
            "complement_rewiring",
            "hub_insertion",
            "star_toggle",
            "threshold_complement_rewiring",
            "threshold_star_toggle",
        ),
        "graphs.triangle_count_edge_sensitivity": (
            "complement_rewiring",
            "hub_insertion",
            "threshold_star_toggle",
        ),
        "graphs.control.edge_count_bounded_degree": (
            "complement_rewiring",
            "hub_insertion",
            "star_toggle",
            "threshold_star_toggle",
        ),
        "graphs.control.edge_count_edge_dp": ("extreme",),
        "graphs.control.degree_histogram_node": (
            "complement_rewiring",
            "hub_insertion",
            "star_toggle",
            "threshold_complement_rewiring",
            "threshold_star_toggle",
        ),
        "graphs.control.triangle_count_edge_dp": ("extreme",),
        "graphs.control.triangle_count_node": (
            "complement_rewiring",
            "hub_insertion",
            "threshold_star_toggle",
        ),
    }
)

KNRS_2013 = Reference(
    citation="Kasiviswanathan, Nissim, Raskhodnikova & Smith, 'Analyzing graphs with node "
    "differential privacy', TCC 2013",
    url="https://doi.org/10.1007/978-3-642-36594-2_26",
)
BBDS_2013 = Reference(
    citation="Blocki, Blum, Datta & Sheffet, 'Differentially private data analysis of social "
    "networks via restricted sensitivity', ITCS 2013",
    url="https://arxiv.org/abs/1208.4586",
)

_SOURCE = "privaudit graph quality suite (privaudit/suites/graphs.py)"


def _benign_pair(n: int) -> tuple[nx.Graph, nx.Graph]:
    """The path 0–1–2 and the triangle 0–1–2: node- and edge-neighbours, a small shift."""
    path = nx.empty_graph(n)
    path.add_edges_from([(0, 1), (1, 2)])
    triangle = path.copy()
    triangle.add_edge(0, 2)
    return path, triangle


def _laplace_case(
    name: str,
    *,
    statistic,
    description: str,
    sensitivity: float,
    true_sensitivity: float,
    relation,
    domain: GraphDomain,
    notes: str,
    output_dimension: int = 1,
) -> BenchmarkCase:
    """A Laplace mechanism on a graph statistic, packaged as a case with its true ε."""
    mechanism = LaplaceMechanism(
        GRAPH_EPSILON,
        sensitivity,
        statistic=statistic,
        input_domain=domain,
        relation=relation,
        output_dimension=output_dimension,
        name=name,
        statistic_description=description,
        summary=f"{description} plus Laplace noise of scale {sensitivity:g}/epsilon",
        references=(KNRS_2013, BBDS_2013),
    )
    true_epsilon = true_sensitivity / sensitivity * GRAPH_EPSILON
    return BenchmarkCase(
        name=name,
        mechanism=mechanism,
        true_epsilon=true_epsilon,
        claimed_epsilon=GRAPH_EPSILON,
        input_pairs=(_benign_pair(domain.n_nodes),),
        source=_SOURCE,
        notes=notes,
    )


def graph_broken_cases() -> tuple[BenchmarkCase, ...]:
    """The four broken graph mechanisms, each with its true ε (n = 10, D = 3, ε = 1).

    Returns
    -------
    tuple of BenchmarkCase
        ``graphs.edge_count_no_projection`` (true ε 3),
        ``graphs.edge_count_naive_truncation`` (5),
        ``graphs.degree_histogram_edge_sensitivity`` (5),
        ``graphs.triangle_count_edge_sensitivity`` (4.5).

    References
    ----------
    Kasiviswanathan, Nissim, Raskhodnikova & Smith, TCC 2013; ``docs/derivations.md`` §7.
    """
    n, d = GRAPH_NODES, GRAPH_DEGREE_BOUND
    domain = GraphDomain(n_nodes=n)
    node = NodeNeighbouring()
    edge_true = edge_count_node_sensitivity(n)
    truncated_true = truncated_edge_count_node_sensitivity(n, d)
    histogram_claim = degree_histogram_edge_sensitivity()
    histogram_true = degree_histogram_node_sensitivity(n)
    triangle_claim = triangle_count_edge_sensitivity(n)
    triangle_true = triangle_count_node_sensitivity(n)
    return (
        _laplace_case(
            "graphs.edge_count_no_projection",
            statistic=edge_count,
            description="number of edges (no projection to degree <= D)",
            sensitivity=d,
            true_sensitivity=edge_true,
            relation=node,
            domain=domain,
            notes=f"Edge count under node-neighbouring on all graphs of {n} nodes, calibrated "
            f"to the degree bound D = {d} although no projection enforces it. Rewiring "
            f"one node changes |E| by up to n - 1 = {edge_true} (star toggle: empty "
            f"graph against the star), so true eps = {edge_true}/{d} * eps = "
            f"{edge_true / d:g}.",
        ),
        _laplace_case(
            "graphs.edge_count_naive_truncation",
            statistic=partial(truncated_edge_count, max_degree=d),
            description=f"number of edges among the nodes of degree <= {d} (naive truncation)",
            sensitivity=d,
            true_sensitivity=truncated_true,
            relation=node,
            domain=domain,
            notes=f"Nodes of degree > D = {d} are dropped and the remaining edges counted; the "
            f"claim Delta = D ignores that one rewiring moves n - 1 other degrees. Every "
            f"kept subgraph has max degree <= D, so 0 <= T <= nD/2 = {truncated_true}; a "
            f"{d}-regular background whose node v has independent neighbours, with v "
            f"rewired to the complement of its neighbourhood, pushes the other "
            f"{n - 1 - d} nodes (and v) above D and leaves no kept edge: T goes from "
            f"{truncated_true} to 0 (threshold_complement_rewiring). True eps = "
            f"{truncated_true}/{d} * eps = {truncated_true / d:g}. The threshold star "
            f"toggle (v isolated -> hub) reaches floor((n-1)D/2) = {(n - 1) * d // 2}.",
        ),
        _laplace_case(
            "graphs.degree_histogram_edge_sensitivity",
            statistic=degree_histogram,
            description="degree histogram (counts of degrees 0..n-1)",
            sensitivity=histogram_claim,
            true_sensitivity=histogram_true,
            relation=node,
            domain=domain,
            output_dimension=n,
            notes=f"Laplace(4/eps) per bin: the edge-level l1 sensitivity (one edge moves two "
            f"nodes by one bin each), claimed for node-DP. Rewiring v moves v and up to "
            f"n - 1 other nodes one bin each: l1 change <= 2n = {histogram_true}, "
            f"attained by the star toggle (bin 0: -n, bin 1: +(n-1), bin n-1: +1). True "
            f"eps = {histogram_true}/{histogram_claim} * eps = "
            f"{histogram_true / histogram_claim:g}.",
        ),
        _laplace_case(
            "graphs.triangle_count_edge_sensitivity",
            statistic=triangle_count,
            description="number of triangles",
            sensitivity=triangle_claim,
            true_sensitivity=triangle_true,
            relation=node,
            domain=domain,
            notes=f"Calibrated to the edge-DP sensitivity n - 2 = {triangle_claim} (triangles "
            f"through one edge) but claimed node-DP. Rewiring v changes the triangles "
            f"through v, up to C(n-1, 2) = {triangle_true} (K_(n-1) plus isolated v "
            f"against K_n: complement rewiring or hub insertion on the complete graph). "
            f"True eps = {triangle_true}/{triangle_claim} * eps = "
            f"{triangle_true / triangle_claim:g}.",
        ),
    )


def graph_control_cases() -> tuple[BenchmarkCase, ...]:
    """The correct graph mechanisms (true ε = claimed ε = 1), n = 10, D = 3.

    Returns
    -------
    tuple of BenchmarkCase
        ``graphs.control.edge_count_bounded_degree`` (node-DP, degree bound D, Δ = D),
        ``graphs.control.edge_count_edge_dp`` (Δ = 1),
        ``graphs.control.degree_histogram_node`` (node-DP, Δ = 2n),
        ``graphs.control.triangle_count_edge_dp`` (Δ = n − 2),
        ``graphs.control.triangle_count_node`` (node-DP, Δ = C(n − 1, 2)).
    """
    n, d = GRAPH_NODES, GRAPH_DEGREE_BOUND
    domain = GraphDomain(n_nodes=n)
    bounded_domain = GraphDomain(n_nodes=n, max_degree=d)
    node, edge = NodeNeighbouring(), EdgeNeighbouring()
    histogram = degree_histogram_node_sensitivity(n)
    triangle_edge = triangle_count_edge_sensitivity(n)
    triangle_node = triangle_count_node_sensitivity(n)
    return (
        _laplace_case(
            "graphs.control.edge_count_bounded_degree",
            statistic=edge_count,
            description=f"number of edges of a graph with degrees <= {d}",
            sensitivity=d,
            true_sensitivity=min(d, n - 1),
            relation=NodeNeighbouring(max_degree=d),
            domain=bounded_domain,
            notes=f"Bounded-degree node-DP (both graphs have degrees <= D = {d}): rewiring v "
            f"changes |E| by d_v - d'_v, at most D (star toggle under the bound). "
            f"Delta = D, true eps = eps.",
        ),
        _laplace_case(
            "graphs.control.edge_count_edge_dp",
            statistic=edge_count,
            description="number of edges",
            sensitivity=1,
            true_sensitivity=1,
            relation=edge,
            domain=domain,
            notes="Edge-DP: one edge changes |E| by 1. True eps = eps.",
        ),
        _laplace_case(
            "graphs.control.degree_histogram_node",
            statistic=degree_histogram,
            description="degree histogram (counts of degrees 0..n-1)",
            sensitivity=histogram,
            true_sensitivity=histogram,
            relation=node,
            domain=domain,
            output_dimension=n,
            notes=f"Node-DP degree histogram with l1 sensitivity 2n = {histogram} (v and up to "
            f"n - 1 neighbours each move one bin; star toggle attains it; verified "
            f"exhaustively for n <= 6). True eps = eps.",
        ),
        _laplace_case(
            "graphs.control.triangle_count_edge_dp",
            statistic=triangle_count,
            description="number of triangles",
            sensitivity=triangle_edge,
            true_sensitivity=triangle_edge,
            relation=edge,
            domain=domain,
            notes=f"Edge-DP triangle count, Delta = n - 2 = {triangle_edge} (K_n minus an edge "
            f"against K_n). True eps = eps.",
        ),
        _laplace_case(
            "graphs.control.triangle_count_node",
            statistic=triangle_count,
            description="number of triangles",
            sensitivity=triangle_node,
            true_sensitivity=triangle_node,
            relation=node,
            domain=domain,
            notes=f"Node-DP triangle count, Delta = C(n-1, 2) = {triangle_node}. True eps = eps.",
        ),
    )
