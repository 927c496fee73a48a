"""Throughput of the random geometric graph sampler and of graph-input conversion.

Run with ``python -m pytest benchmarks -q --benchmark-only``.  The sampler draws n = 10⁵
points uniform on S² with radius r = 2·sqrt(d/(n − 1)), so the expected degree is d
(each edge has probability r²/4): d = 10 and d = 30, about 5·10⁵ and 1.5·10⁶ edges.
``extra_info`` records the edges drawn.  The conversion benchmarks validate the sampled
graph's sparse adjacency and its networkx form with :func:`spec.adjacency_matrix`.
Nothing here asserts on time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.estimators.models import random_geometric_graph
from privaudit.spec import adjacency_matrix

N = 100_000


def _radius(expected_degree: float) -> float:
    return 2.0 * math.sqrt(expected_degree / (N - 1))


@pytest.mark.parametrize("expected_degree", [10, 30])
def test_random_geometric_graph_sampling(benchmark, expected_degree):
    radius = _radius(expected_degree)
    rng = np.random.default_rng(0)
    graph = benchmark(random_geometric_graph, N, radius, rng)
    benchmark.extra_info.update(
        n=N, radius=radius, edges=graph.n_edges, mean_degree=float(graph.degrees.mean())
    )
    assert graph.n_nodes == N


def test_adjacency_validation_of_a_sparse_input(benchmark):
    graph = random_geometric_graph(N, _radius(30), 1)
    matrix = benchmark(adjacency_matrix, graph.adjacency, N)
    benchmark.extra_info.update(n=N, edges=graph.n_edges)
    assert matrix.nnz == 2 * graph.n_edges


def test_adjacency_conversion_of_a_networkx_graph(benchmark):
    graph = random_geometric_graph(N, _radius(10), 2)
    as_networkx = graph.to_networkx()
    matrix = benchmark.pedantic(adjacency_matrix, args=(as_networkx, N), rounds=3, iterations=1)
    benchmark.extra_info.update(n=N, edges=graph.n_edges)
    assert matrix.nnz == 2 * graph.n_edges
