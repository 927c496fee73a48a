"""Random geometric graphs on S² reproduce their documented ground truth (seeded).

* **Edge probability r²/4, exactly.**  Disjoint pairs of sampled points are i.i.d., so the
  number of pairs within chord distance r is exactly Binomial(m, r²/4): an exact two-sided
  binomial test at α = 1e-6 per radius.  Together with the unit test that the KD-tree edge
  set equals the brute-force set of pairs within r, this pins the graph's edge law.
* **Edge density of whole graphs.**  The edge density U = m/C(n, 2) is a U-statistic with
  ζ₁ = 0 and exact variance 2p(1 − p)/(n(n − 1)) (``docs/derivations.md`` §6); the mean of K
  independent replicates is compared with p by a z-test with that known variance at
  α = 1e-6 two-sided (|z| ≤ 4.89; normal approximation of a mean of K i.i.d. replicates).
* **Triangle density.**  Against the exact spherical value
  (:func:`~estimators.models.rgg_triangle_probability`, quadrature): a t-test over K
  replicates at α = 1e-6 two-sided; against the small-r planar formula
  r⁴(π − 3√3/4)/(16π): within 3 % at r = 0.3 and 0.4 (its own bias there is 0.5 % and
  1.0 %, and the replicate standard error about 0.2 %, so the margin is > 8 standard
  errors).

Measured with these seeds (K = 20 graphs of n = 3000 nodes): r = 0.3: 2.9857e-4 ± 0.0064e-4
(exact 2.9851e-4, small-r 2.9692e-4); r = 0.4: 9.4730e-4 ± 0.0157e-4 (exact 9.4741e-4,
small-r 9.3841e-4; ``docs/derivations.md`` §6 reports a Monte Carlo 9.5e-4).

Every test uses fixed seeds, so it is deterministic; α is the probability that a correct
sampler fails over the choice of seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privaudit.estimators.models import (
    random_geometric_graph,
    rgg_edge_probability,
    rgg_triangle_density_small_radius,
    rgg_triangle_probability,
    sample_sphere_points,
)

ALPHA = 1e-6
Z_CRITICAL = stats.norm.ppf(1 - ALPHA / 2)  # 4.89


@pytest.mark.parametrize("radius", [0.1, 0.3, 0.7, 1.5, 1.99])
def test_pairs_of_sphere_points_are_within_r_with_probability_r2_over_4(radius):
    """Exact binomial test, α = 1e-6; m = 10⁶ pairs detect relative errors of about
    5/√(m p) (3 % at r = 0.3, 0.1 % at r = 1.5)."""
    m = 1_000_000
    rng = np.random.default_rng([20, int(radius * 100)])
    first, second = sample_sphere_points(m, rng), sample_sphere_points(m, rng)
    within = int(np.count_nonzero(np.linalg.norm(first - second, axis=1) <= radius))
    p = rgg_edge_probability(radius)
    assert stats.binomtest(within, m, p).pvalue >= ALPHA, (within / m, p)


def test_sphere_points_are_uniform_by_archimedes():
    """Each coordinate of a uniform point on S² is Uniform[−1, 1] (KS test, α = 1e-6)."""
    points = sample_sphere_points(200_000, 5)
    for axis in range(3):
        assert stats.kstest(points[:, axis], stats.uniform(-1, 2).cdf).pvalue >= ALPHA / 3


@pytest.mark.parametrize("radius", [0.2, 0.5])
def test_edge_density_of_graphs_matches_r2_over_4(radius):
    n, replicates = 2000, 40
    p = rgg_edge_probability(radius)
    densities = np.array(
        [
            random_geometric_graph(n, radius, np.random.default_rng([21, k])).edge_density
            for k in range(replicates)
        ]
    )
    standard_error = math.sqrt(2 * p * (1 - p) / (n * (n - 1)) / replicates)
    z = (densities.mean() - p) / standard_error
    assert abs(z) <= Z_CRITICAL, (densities.mean(), p, z)
    # the replicate spread agrees with the exact variance: (K − 1)s²/σ² ~ χ²₃₉ (normal
    # replicates) lies in its two-sided 1e-6 range
    statistic = (replicates - 1) * densities.var(ddof=1) / (2 * p * (1 - p) / (n * (n - 1)))
    low, high = stats.chi2.ppf([ALPHA / 2, 1 - ALPHA / 2], replicates - 1)
    assert low <= statistic <= high, statistic


@pytest.mark.parametrize("radius", [0.3, 0.4])
def test_triangle_density(radius):
    n, replicates = 3000, 20
    densities = np.array(
        [
            random_geometric_graph(n, radius, np.random.default_rng([1, k])).triangle_count()
            / math.comb(n, 3)
            for k in range(replicates)
        ]
    )
    mean = densities.mean()
    standard_error = densities.std(ddof=1) / math.sqrt(replicates)
    exact = rgg_triangle_probability(radius)
    t_critical = stats.t.ppf(1 - ALPHA / 2, replicates - 1)  # 7.07
    assert abs(mean - exact) <= t_critical * standard_error, (mean, exact, standard_error)
    small_radius = rgg_triangle_density_small_radius(radius)
    assert abs(mean / small_radius - 1) <= 0.03


@pytest.mark.slow
def test_large_sparse_graphs_at_the_benchmark_scale():
    """n = 10⁵ with expected degree 30 (the benchmark's graph), 8 replicates.

    Edge density: z-test with the exact variance, α = 1e-6.  Triangles at r ≈ 0.035: the
    small-r formula is exact to 0.01 % there, so the mean of the replicates must match it
    within a t-test at α = 1e-6 (7 degrees of freedom: critical value 13.2).
    """
    n, degree, replicates = 100_000, 30, 8
    radius = 2 * math.sqrt(degree / (n - 1))
    p = rgg_edge_probability(radius)
    graphs = [
        random_geometric_graph(n, radius, np.random.default_rng([22, k])) for k in range(replicates)
    ]
    densities = np.array([g.edge_density for g in graphs])
    z = (densities.mean() - p) / math.sqrt(2 * p * (1 - p) / (n * (n - 1)) / replicates)
    assert abs(z) <= Z_CRITICAL
    triangles = np.array([g.triangle_count() / math.comb(n, 3) for g in graphs])
    t_critical = stats.t.ppf(1 - ALPHA / 2, replicates - 1)
    standard_error = triangles.std(ddof=1) / math.sqrt(replicates)
    assert abs(triangles.mean() - rgg_triangle_probability(radius)) <= t_critical * standard_error
    assert triangles.mean() / rgg_triangle_density_small_radius(radius) == pytest.approx(
        1, abs=0.02
    )
