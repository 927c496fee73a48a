"""Exact U-statistics and all local Hájek projections ĥ(i): time per call.

Run with ``python -m pytest benchmarks/test_bench_ustatistics.py -q --benchmark-only``.
Targets (ours; the paper states O(n^k) time, Section 4.2): all ĥ(i) at k = 2, n = 10⁴ by the generic
blocked path in about a second; fast paths far below; triangle projections on an n = 2,000
random geometric graph on par with networkx's triangle counting.  The speed-up over a
direct Python double loop is tabulated by ``scripts/ustat_speed.py`` in
``docs/ustat_speed.md``.  Nothing here asserts on time; each benchmark checks its result.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from privaudit.estimators.models import sample_sphere_points
from privaudit.estimators.ustatistics import (
    SubsetFamily,
    adjacency_triangle_kernel,
    auc_kernel,
    collision_kernel,
    default_subsample_size,
    gini_mean_difference_kernel,
    kendall_tau_kernel,
    local_hajek_projections,
    rgg_triangle_kernel,
    variance_kernel,
    weighted_tuple_sum,
    wilcoxon_signed_rank_kernel,
)
from privaudit.estimators.ustatistics.fast_paths import adjacency_from_points

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from ustat_speed import python_double_loop_inline  # the speed table's baseline

N_LARGE = 10_000
N_LOOP = 2_000
N_GRAPH = 2_000


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    return np.random.default_rng(0).uniform(0, 1, N_LARGE)


def test_projections_k2_n10000_blocked(benchmark, sample):
    kernel = variance_kernel(0, 1)
    result = benchmark.pedantic(
        local_hajek_projections,
        args=(sample, kernel),
        kwargs={"method": "blocked"},
        rounds=3,
        iterations=1,
    )
    assert result.method == "blocked"
    assert result.u_statistic == pytest.approx(np.var(sample, ddof=1), rel=1e-10)


FAST_CASES = {
    "variance": (variance_kernel(0, 1), lambda rng: rng.uniform(0, 1, N_LARGE)),
    "gini": (gini_mean_difference_kernel(0, 1), lambda rng: rng.uniform(0, 1, N_LARGE)),
    "kendall": (kendall_tau_kernel(), lambda rng: np.round(rng.normal(size=(N_LARGE, 2)), 2)),
    "wilcoxon": (wilcoxon_signed_rank_kernel(), lambda rng: rng.normal(size=N_LARGE)),
    "collision": (collision_kernel(), lambda rng: rng.integers(0, 100, N_LARGE)),
    "auc": (
        auc_kernel(),
        lambda rng: np.column_stack([rng.normal(size=N_LARGE), rng.integers(0, 2, N_LARGE)]),
    ),
}


@pytest.mark.parametrize("name", list(FAST_CASES))
def test_projections_k2_n10000_fast(benchmark, name):
    kernel, draw = FAST_CASES[name]
    data = draw(np.random.default_rng(1))
    result = benchmark(local_hajek_projections, data, kernel)
    assert result.method.startswith("fast:") and result.projections.shape == (N_LARGE,)
    assert result.projections.mean() == pytest.approx(result.u_statistic, rel=1e-9, abs=1e-12)


def test_python_double_loop_n2000(benchmark, sample):
    values = sample[:N_LOOP].tolist()
    projections = benchmark.pedantic(
        python_double_loop_inline, args=(values,), rounds=1, iterations=1
    )
    # for k = 2 the mean of the ĥ(i) is U_n, here the unbiased sample variance
    assert math.fsum(projections) / N_LOOP == pytest.approx(
        np.var(sample[:N_LOOP], ddof=1), rel=1e-9
    )


def test_blocked_path_n2000(benchmark, sample):
    data = sample[:N_LOOP]
    result = benchmark(local_hajek_projections, data, variance_kernel(0, 1), method="blocked")
    assert result.u_statistic == pytest.approx(np.var(data, ddof=1), rel=1e-10)


@pytest.fixture(scope="module")
def rgg() -> tuple[np.ndarray, float]:
    points = sample_sphere_points(N_GRAPH, np.random.default_rng(2))
    return points, N_GRAPH**-0.25  # expected degree ≈ n·r²/4 ≈ 11


def test_triangle_projections_from_adjacency_n2000(benchmark, rgg):
    points, radius = rgg
    adjacency = adjacency_from_points(points, radius)
    result = benchmark(local_hajek_projections, adjacency, adjacency_triangle_kernel())
    triangles = nx.triangles(nx.from_scipy_sparse_array(adjacency))
    np.testing.assert_allclose(
        result.projections * math.comb(N_GRAPH - 1, 2), [triangles[i] for i in range(N_GRAPH)]
    )


def test_triangle_projections_from_points_n2000(benchmark, rgg):
    points, radius = rgg
    result = benchmark(local_hajek_projections, points, rgg_triangle_kernel(radius))
    assert result.method == "fast:rgg_kdtree_triangle_counts"


def test_networkx_triangles_n2000(benchmark, rgg):
    points, radius = rgg
    graph = nx.from_scipy_sparse_array(adjacency_from_points(points, radius))
    triangles = benchmark(nx.triangles, graph)
    assert len(triangles) == N_GRAPH


def test_weighted_tuple_sum_k2_n10000_one_percent_downweighted(benchmark, sample):
    weights = np.ones(N_LARGE)
    weights[np.random.default_rng(3).choice(N_LARGE, N_LARGE // 100, replace=False)] = 0.5
    total = benchmark(weighted_tuple_sum, sample, variance_kernel(0, 1), weights)
    assert 0 < total <= np.var(sample, ddof=1) * math.comb(N_LARGE, 2)


def test_subsampled_family_check_default_size_n500(benchmark):
    n, k = 500, 2
    size = default_subsample_size(n, k, 0.05)

    def draw_and_check():
        return SubsetFamily.subsampled(n, k, size, 4).check()

    result = benchmark.pedantic(draw_and_check, rounds=2, iterations=1)
    assert result.passed
