"""End-to-end time of the private network statistics on a random geometric graph.

Run with ``python3 -m pytest benchmarks/test_bench_graph_estimators.py --benchmark-only -q``.
The headline case is private triangle density with n = 2,000 nodes (RGG on S², radius
n^{−1/4}, expected degree ≈ 11): graph validation and conversion to the sparse adjacency,
the private coarse estimate that sets ξ, Wrapper 1's node partition (q = 19 chunks at the
default α = 0.1), Algorithm 1 on every induced subgraph (triangle counts by sparse
products) and the noise.  No assertion is made on time.
"""

from __future__ import annotations

import pytest

from privaudit.estimators.graphs import private_edge_density, private_triangle_density
from privaudit.estimators.models import random_geometric_graph

N_NODES = 2_000


@pytest.fixture(scope="module")
def rgg():
    """The benchmark graph: n = 2,000, radius n^(-1/4), seed 0."""
    return random_geometric_graph(N_NODES, N_NODES**-0.25, rng=0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"r_max": N_NODES**-0.25},
        {"r_max": N_NODES**-0.25, "alpha": 0.9},
        {"method": "coinpress"},
    ],
    ids=["coarse_xi", "public_r_max", "one_chunk", "coinpress"],
)
def test_private_triangle_density_end_to_end(benchmark, rgg, kwargs):
    graph = rgg.to_networkx()
    result = benchmark(private_triangle_density, graph, 1.0, rng=1, **kwargs)
    assert result.n == N_NODES


def test_private_triangle_density_from_adjacency(benchmark, rgg):
    result = benchmark(private_triangle_density, rgg.adjacency, 1.0, rng=1)
    assert result.n == N_NODES


def test_private_edge_density_end_to_end(benchmark, rgg):
    result = benchmark(private_edge_density, rgg.to_networkx(), 1.0, rng=1)
    assert result.n == N_NODES
