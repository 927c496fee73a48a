"""Random geometric graphs on S²: result object, exactness of the edge set, ground-truth
formulas, reproducibility and bad parameters."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import pdist, squareform

from privaudit.estimators.models import (
    SMALL_RADIUS_TRIANGLE_CONSTANT,
    RandomGeometricGraph,
    random_geometric_graph,
    rgg_edge_probability,
    rgg_triangle_density_small_radius,
    rgg_triangle_probability,
    sample_sphere_points,
)
from privaudit.spec import GraphDomain, adjacency_matrix
from privaudit.spec.errors import InvalidParameterError


def test_sphere_points_are_unit_vectors_and_reproducible():
    points = sample_sphere_points(1000, 3)
    assert points.shape == (1000, 3) and points.dtype == np.float64
    assert np.allclose(np.linalg.norm(points, axis=1), 1.0, atol=1e-12)
    assert np.array_equal(points, sample_sphere_points(1000, np.random.default_rng(3)))
    assert not np.array_equal(points, sample_sphere_points(1000, 4))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.floats(0.0, 2.5), st.integers(0, 2**32 - 1))
def test_edges_are_exactly_the_pairs_within_the_radius(n, radius, seed):
    graph = random_geometric_graph(n, radius, seed, return_points=True)
    assert isinstance(graph, RandomGeometricGraph)
    distances = squareform(pdist(graph.points)) if n > 1 else np.zeros((1, 1))
    expected = {(i, j) for i in range(n) for j in range(i + 1, n) if distances[i, j] <= radius}
    assert {tuple(e) for e in graph.edges.tolist()} == expected
    assert graph.edges.dtype == np.int64 and graph.edges.shape == (len(expected), 2)
    assert np.all(graph.edges[:, 0] < graph.edges[:, 1])
    order = np.lexsort((graph.edges[:, 1], graph.edges[:, 0]))
    assert np.array_equal(order, np.arange(len(expected)))
    # the adjacency is the validated canonical one
    canonical = adjacency_matrix(graph.adjacency, n)
    assert isinstance(graph.adjacency, sp.csr_array) and graph.adjacency.dtype == np.int8
    assert (canonical != graph.adjacency).nnz == 0
    assert np.array_equal(graph.degrees, np.asarray(graph.adjacency.sum(axis=1)).ravel())
    assert graph.n_edges == len(expected)


def test_result_object_views():
    graph = random_geometric_graph(400, 0.3, 11)
    assert graph.points is None and graph.n_nodes == 400 and graph.radius == 0.3
    as_nx = graph.to_networkx()
    assert GraphDomain(n_nodes=400).validate(as_nx).number_of_edges() == graph.n_edges
    assert graph.triangle_count() == sum(nx.triangles(as_nx).values()) // 3
    assert graph.edge_density == graph.n_edges / math.comb(400, 2)
    assert math.isnan(random_geometric_graph(1, 1.0, 0).edge_density)
    again = random_geometric_graph(400, 0.3, np.random.default_rng(11))
    assert np.array_equal(again.edges, graph.edges)
    assert repr(graph) == "RandomGeometricGraph(n_nodes=400, radius=0.3)"


def test_extreme_radii():
    assert random_geometric_graph(50, 0.0, 0).n_edges == 0
    assert random_geometric_graph(50, 2.0, 0).n_edges == math.comb(50, 2)
    assert random_geometric_graph(50, 7.5, 0).n_edges == math.comb(50, 2)
    single = random_geometric_graph(1, 0.5, 0)
    assert single.edges.shape == (0, 2) and single.adjacency.shape == (1, 1)


def test_edge_probability_formula():
    assert rgg_edge_probability(0.0) == 0.0
    assert rgg_edge_probability(0.4) == pytest.approx(0.04, rel=1e-15)
    assert rgg_edge_probability(2.0) == 1.0 and rgg_edge_probability(3.0) == 1.0
    # the cap of chord radius r has area π r² out of 4π
    for r in (0.1, 0.7, 1.3, 1.9):
        theta = 2 * math.asin(r / 2)  # angular radius
        cap_area = 2 * math.pi * (1 - math.cos(theta))
        assert rgg_edge_probability(r) == pytest.approx(cap_area / (4 * math.pi), rel=1e-12)


def test_triangle_density_formulas():
    assert pytest.approx(0.03666, abs=5e-6) == SMALL_RADIUS_TRIANGLE_CONSTANT
    assert rgg_triangle_density_small_radius(0.4) == pytest.approx(9.384e-4, rel=1e-3)
    # the planar-lens average: E A(d) = r²(π − 3√3/4) for d with density 2d/r² on [0, r]
    d = np.linspace(0.0, 1.0, 200_001)
    lens = 2 * np.arccos(d / 2) - (d / 2) * np.sqrt(4 - d**2)
    mean_lens = float(np.sum((lens * 2 * d)[1:] + (lens * 2 * d)[:-1]) / 2 * (d[1] - d[0]))
    assert mean_lens == pytest.approx(math.pi - 3 * math.sqrt(3) / 4, rel=1e-8)
    # the exact value tends to the small-r one, with a relative gap of order r²
    for r in (0.05, 0.1, 0.2, 0.4):
        gap = rgg_triangle_probability(r) / rgg_triangle_density_small_radius(r) - 1
        assert 0 < gap < 0.08 * r * r
    assert rgg_triangle_probability(0.0) == 0.0 and rgg_triangle_probability(2.0) == 1.0
    assert 0.99 < rgg_triangle_probability(1.999) < 1.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: random_geometric_graph(0, 0.1, 0), "n must be an integer >= 1, got 0"),
        (lambda: random_geometric_graph(-3, 0.1, 0), "n must be an integer >= 1, got -3"),
        (lambda: random_geometric_graph(10.0, 0.1, 0), "n must be an integer >= 1, got 10.0"),
        (lambda: random_geometric_graph(True, 0.1, 0), "n must be an integer >= 1, got True"),
        (lambda: random_geometric_graph(10, -0.1, 0), "radius must be >= 0 (not NaN), got -0.1"),
        (lambda: random_geometric_graph(10, float("nan"), 0), "radius must be >= 0 (not NaN)"),
        (lambda: random_geometric_graph(10, math.inf, 0), "radius must be finite, got inf"),
        (lambda: random_geometric_graph(10, "0.1", 0), "radius must be a real number"),
        (lambda: random_geometric_graph(10, None, 0), "radius must be a real number"),
        (lambda: random_geometric_graph(10, 0.1, 0, return_points=1), "return_points must be"),
        (lambda: sample_sphere_points(0, 0), "n must be an integer >= 1, got 0"),
        (lambda: rgg_edge_probability(-1.0), "radius must be >= 0"),
        (lambda: rgg_triangle_density_small_radius(float("nan")), "radius must be >= 0"),
        (lambda: rgg_triangle_probability(-0.5), "radius must be >= 0"),
    ],
)
def test_bad_parameters_are_refused(call, message):
    with pytest.raises(InvalidParameterError) as caught:
        call()
    assert message in str(caught.value)


def test_bad_generators_are_refused():
    with pytest.raises(InvalidParameterError):
        random_geometric_graph(10, 0.1, "seed")
