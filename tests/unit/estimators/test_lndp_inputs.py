"""Every LNDP estimator accepts a networkx graph, a sparse adjacency and an edge array, with
identical results from the same seed (issue 27)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from privaudit.estimators.lndp import (
    private_average_degree,
    private_clique_size,
    private_degree_cdf,
    private_edge_count,
    private_erdos_renyi,
    private_laplace_edge_count,
    private_regular_vs_star,
    private_rr_edge_count,
)

N = 400
LAM = math.ceil(math.sqrt(N))
RUNS = {
    "edge_count": lambda g: private_edge_count(g, 0.5, 1e-6, 8, rng=1),
    "average_degree": lambda g: private_average_degree(g, 0.5, 1e-6, LAM, rng=1),
    "degree_cdf": lambda g: private_degree_cdf(g, 0.5, 1e-6, LAM, rng=1),
    "erdos_renyi": lambda g: private_erdos_renyi(g, 0.5, 1e-6, rng=1),
    "clique_size": lambda g: private_clique_size(g, 0.5, 1e-6, rng=1),
    "regular_vs_star": lambda g: private_regular_vs_star(g, 0.5, 1e-6, 4, 20, rng=1),
    "laplace_edge_count": lambda g: private_laplace_edge_count(g, 0.5, rng=1),
    "rr_edge_count": lambda g: private_rr_edge_count(g, 0.5, 1e-6, rng=1),
}


def _inputs():
    graph = nx.random_regular_graph(8, N, seed=3)
    edges = np.array(graph.edges(), dtype=np.int64)
    sparse = sp.csr_array(nx.to_scipy_sparse_array(graph, nodelist=range(N), dtype=np.int8))
    return graph, sparse, edges


@pytest.mark.parametrize("name", list(RUNS))
def test_the_three_input_types_give_the_same_release(name):
    graph, sparse, edges = _inputs()
    results = [np.asarray(RUNS[name](g).estimate, dtype=float) for g in (graph, sparse, edges)]
    assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[2])


def test_the_gaussian_message_sum_has_the_law_of_n_messages():
    """Σ_i Z_i ~ N(0, nσ²): the one-call draw has the right spread (seeded, 4000 draws;
    the sample variance of 4000 normals is within 10 % of the truth with prob. > 0.999)."""
    from privaudit.estimators.lndp._common import gaussian_message_sum

    rng = np.random.default_rng(0)
    draws = np.array([gaussian_message_sum(np.zeros(1), 10_000, 2.0, rng)[0] for _ in range(4_000)])
    assert abs(draws.var() / (10_000 * 4.0) - 1) < 0.1
