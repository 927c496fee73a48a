"""LNDP Algorithms 1–9 (estimators.lndp): constants, accuracy by seeded simulation, errors.

Statistical assertions are seeded (never flaky) and use 5-standard-error or level-10⁻³
bands; the numeric reference values are recomputed from the paper's formulas
(Raskhodnikova, Smith, Wagaman & Zavyalov, arXiv:2602.15802).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from privaudit.estimators.lndp import (
    blur_weights,
    blurry_distribution,
    blurry_linear_mechanism,
    blurry_linear_sensitivity,
    bucket_count,
    cdf_factor,
    draw_regular_star_randomness,
    edge_count_mechanism,
    laplace_edge_count_mechanism,
    locate_window,
    private_average_degree,
    private_blurry_linear,
    private_clique_size,
    private_degree_cdf,
    private_degree_pmf,
    private_degree_thresholds,
    private_edge_count,
    private_erdos_renyi,
    private_laplace_edge_count,
    private_regular_vs_star,
    private_rr_edge_count,
    private_soft_threshold,
    regular_graph_tv_bound,
    regular_vs_star_mechanism,
    rr_edge_count_mechanism,
    rr_edge_epsilon0,
    rr_joint_delta,
    soft_threshold,
    soft_threshold_mechanism,
)
from privaudit.spec.errors import (
    InvalidGraphError,
    InvalidParameterError,
    UnsupportedCombinationError,
)

C_DELTA_6 = math.sqrt(2 * math.log(1.25e6))


def _empty(n: int) -> sp.csr_array:
    return sp.csr_array((n, n), dtype=np.int8)


def _clique(n: int, k: int) -> sp.csr_array:
    rows, cols = np.triu_indices(k, 1)
    a = sp.coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    return (a + a.T).tocsr()


# -- Algorithm 1 / 2 ------------------------------------------------------------------------
def test_soft_threshold_values_and_sigma():
    assert soft_threshold([0, 3, 4, 7, 9], 3, 7).tolist() == [0.0, 0.0, 0.25, 1.0, 1.0]
    mech = soft_threshold_mechanism(50, 0.5, 1e-6, 2, 6, calibration="classical")
    assert mech.spec.global_sensitivity.value == pytest.approx(math.sqrt(1 + 49 / 16))
    exact = math.sqrt(1 + 49 / 16) * C_DELTA_6 / 0.5  # σ is rounded up to the stable grid
    assert exact <= mech.noise_law.sigma <= exact * (1 + 1.1e-5)


def test_soft_threshold_is_exactly_gaussian_around_target():
    """200 seeded runs: standardised errors pass a KS test against N(0, 1) at level 10⁻³."""
    g = nx.random_regular_graph(3, 300, seed=0)
    z = [
        (e.estimate - 0.5) / e.standard_error
        for e in (private_soft_threshold(g, 0.5, 1e-6, 1, 5, rng=s) for s in range(200))
    ]
    assert stats.kstest(z, "norm").pvalue > 1e-3


def test_edge_count_unbiased_and_bias_on_unbounded_graphs():
    bounded = nx.random_regular_graph(4, 400, seed=1)
    runs = [private_edge_count(bounded, 0.5, 1e-6, 6, rng=s) for s in range(200)]
    mean = np.mean([r.estimate for r in runs])
    assert abs(mean - 800) < 5 * runs[0].standard_error / math.sqrt(200)
    star = nx.star_graph(399)  # centre degree 399 > D = 6
    runs = [private_edge_count(star, 0.5, 1e-6, 6, rng=s) for s in range(200)]
    target = (399 + 6) / 2  # Σ min(d_i, D)/2: bias −(399 − 6)/2
    band = 5 * runs[0].standard_error / math.sqrt(200)
    assert abs(np.mean([r.estimate for r in runs]) - target) < band


@pytest.mark.parametrize(
    ("n", "eps", "d", "sd_alg2", "sd_laplace", "sd_rr"),
    [
        (10**4, 0.5, 10, 5.32e4, 2.83e6, 1.49e7),
        (10**4, 0.5, 100, 7.49e4, 2.83e6, 1.49e7),
        (10**5, 0.9, 10, 2.95e5, 4.97e7, 2.61e8),
        (10**5, 0.9, 316, 4.16e5, 4.97e7, 2.61e8),
    ],
)
def test_reference_standard_deviations(n, eps, d, sd_alg2, sd_laplace, sd_rr):
    """The s.d. of m̂ for Algorithms 2, 8 and 9 at δ = 10⁻⁶ (3 significant digits)."""
    g = _empty(n)
    for result, expected in (
        (private_edge_count(g, eps, 1e-6, d, rng=0, calibration="classical"), sd_alg2),
        (private_laplace_edge_count(g, eps, rng=0), sd_laplace),
        (private_rr_edge_count(g, eps, 1e-6, rng=0), sd_rr),
    ):
        assert result.standard_error == pytest.approx(expected, rel=5e-3)


# -- blurry distribution, Algorithm 3, factorization -------------------------------------------
def test_blur_matrix_identities():
    g = nx.gnp_random_graph(60, 0.2, seed=2)
    degrees = np.array([d for _, d in sorted(g.degree)])
    for lam in (1, 3, 7):
        q = blurry_distribution(g, lam)
        assert q.shape == (bucket_count(60, lam),) and q.sum() == pytest.approx(1.0)
        assert lam * np.dot(np.arange(q.size), q) == pytest.approx(degrees.mean())  # Lemma 4.6(a)
    # duality: the soft threshold from (j0−1)λ to j0λ is the hard threshold ≥ j0λ on Q
    lam, j0 = 4, 3
    assert 60 * blurry_distribution(g, lam)[j0:].sum() == pytest.approx(
        soft_threshold(degrees, (j0 - 1) * lam, j0 * lam).sum()
    )
    assert bucket_count(10, 4) == 4  # ceiling: degree 9 rounds up to 12
    j, r = blur_weights([9], 4)
    assert (j[0], r[0]) == (2, 0.25)


def test_blurry_linear_unbiased_and_sensitivities():
    g = nx.random_regular_graph(5, 200, seed=3)
    lam = 4
    k = bucket_count(200, lam)
    runs = np.array(
        [private_blurry_linear(g, 0.5, 1e-6, lam, np.eye(k), rng=s).estimate for s in range(100)]
    )
    sd = private_blurry_linear(g, 0.5, 1e-6, lam, np.eye(k), rng=0).standard_error
    assert np.all(np.abs(runs.mean(axis=0) - blurry_distribution(g, lam)) < 5 * sd / 10)
    # Theorem 4.1's bound and the tighter one (√2 below it for W = I)
    paper = blurry_linear_sensitivity(200, lam, np.eye(k))
    tight = blurry_linear_sensitivity(200, lam, np.eye(k), "tight")
    # both rounded up to the stable grid: within 1e-5 of the formulas
    assert paper == pytest.approx(2 * math.sqrt(1 + 199 / 16), rel=1.1e-5)
    assert paper / tight == pytest.approx(math.sqrt(2), rel=2.2e-5)


@pytest.mark.parametrize(("size", "cost"), [(10, 1.79), (100, 2.53), (1000, 3.27)])
def test_cdf_factorization(size, cost):
    f = cdf_factor(size)
    assert np.allclose(f @ f, np.tril(np.ones((size, size))))
    assert (f**2).sum(axis=1).max() == pytest.approx(cost, abs=5e-3)


def test_pmf_reference_sigma():
    """σ̃ = 0.300 at n = 10⁴, ε = 0.5, λ = ⌈√n⌉ = 100, δ = 10⁻⁶."""
    mech = blurry_linear_mechanism(
        10**4, 0.5, 1e-6, 100, np.eye(bucket_count(10**4, 100)), calibration="classical"
    )
    assert mech.noise_law.sigma / 100 == pytest.approx(0.300, abs=5e-4)


def test_cdf_bicriterion_and_thresholds():
    g = nx.barabasi_albert_graph(3000, 5, seed=4)
    degrees = np.array([d for _, d in sorted(g.degree)])
    lam = 55
    est = private_degree_cdf(g, 0.5, 1e-6, lam, rng=5)
    alpha = 5 * np.max(est.standard_error)
    x = est.details["bucket_degrees"]
    below = np.array([np.mean(degrees <= t - lam) for t in x])
    above = np.array([np.mean(degrees <= t + lam) for t in x])
    assert np.all(below - alpha <= est.estimate) and np.all(est.estimate <= above + alpha)
    pmf = private_degree_pmf(g, 0.5, 1e-6, lam, rng=5)
    assert pmf.estimate.shape == x.shape
    counts = private_degree_thresholds(g, 0.5, 1e-6, lam, [lam, 2 * lam], rng=6)
    for tau, value, sd in zip((lam, 2 * lam), counts.estimate, counts.standard_error, strict=True):
        lo, hi = np.sum(degrees >= tau), np.sum(degrees > tau - lam)
        assert lo - 5 * sd <= value <= hi + 5 * sd


# -- Algorithms 4–6 --------------------------------------------------------------------------
def test_locate_window():
    assert locate_window([0.4, 0.0, 0.3, 0.3]) == (2, 0, 3)
    with pytest.raises(InvalidParameterError):
        locate_window([0.1, 0.2], window=4)


def test_average_degree_and_clique_size():
    n, k = 2000, 1800
    g = _clique(n, k)
    est = private_clique_size(g, 0.9, 1e-6, rng=7)
    assert abs(est.estimate - k) < 5 * est.standard_error
    avg = private_average_degree(g, 0.9, 1e-6, 45, nonisolated=k, rng=8)
    assert abs(avg.estimate - k * (k - 1) / n) < 5 * avg.standard_error


def test_erdos_renyi_error_scale():
    n, p = 2000, 0.1
    upper = sp.triu(sp.random_array((n, n), density=p, rng=9, format="csr"), k=1)
    upper.data[:] = 1
    g = (upper + upper.T).astype(np.int8).tocsr()
    p = g.nnz / (n * (n - 1))
    est = private_erdos_renyi(g, 0.9, 1e-6, rng=10)
    assert abs(est.estimate - p) < 5 * est.standard_error + 3 * math.sqrt(p / n**2)


# -- Algorithm 7 -----------------------------------------------------------------------------
def test_regular_vs_star_hits_and_lemma_7_4():
    """The noise-free bits are 1[N(i) ∩ S_t ≠ ∅]; on a k-regular graph their mean is p*."""
    n, k = 300, 30
    g = nx.random_regular_graph(k, n, seed=11)
    rho = draw_regular_star_randomness(n, 400, 7, rng=0)
    bits = regular_vs_star_mechanism(rho, 0.9, 1e-3).statistic(g).reshape(n, rho.sets)
    for t in (0, 1, 2):
        members = set(rho.members[t].tolist())
        assert bits[:, t].tolist() == [float(bool(set(g[i]) & members)) for i in range(n)]
    p_star = 1 - (1 - k / n) ** 7
    assert abs(bits.mean() - p_star) < 0.01
    est = private_regular_vs_star(g, 0.9, 1e-3, k, 50, draws=7, rng=1)
    assert est.details["p_star"] == pytest.approx(p_star)
    assert est.details["decision"] in ("regular", "starpartite")


# -- Algorithms 8 / 9 ------------------------------------------------------------------------
def test_baselines_unbiased():
    g = nx.random_regular_graph(6, 300, seed=12)
    for fn, args in ((private_laplace_edge_count, (0.9,)), (private_rr_edge_count, (0.9, 1e-6))):
        runs = [fn(g, *args, rng=s) for s in range(300)]
        band = 5 * runs[0].standard_error / math.sqrt(300)
        assert abs(np.mean([r.estimate for r in runs]) - 900) < band
    assert laplace_edge_count_mechanism(10, 0.5).noise_law.scale == 36.0


def test_rr_edge_count_mechanism_law_and_exact_privacy():
    """Algorithm 9's joint bits: the hook matches the sampler, and the exact audit's ε and
    δ(ε) at the star toggle are those of n − 1 changed RR bits (rr_joint_delta)."""
    from privaudit.auditing.exact.privacy import exact_privacy
    from privaudit.auditing.pairs import verified_pair
    from privaudit.spec import LocalNodeRelation

    n, eps, delta = 8, 1.0, 1e-3
    mech = rr_edge_count_mechanism(n, eps, delta)
    eps0 = rr_edge_epsilon0(n, eps, delta)
    assert mech.epsilon0 == eps0 and mech.spec.noise.law.epsilon == pytest.approx(7 * eps0)
    g = nx.path_graph(n)
    draws = mech.sample(g, 20_000, rng=3)
    assert draws.shape == (20_000, 28)
    p_one = mech.output_probabilities(g)[:, 1]
    # 28 coordinates, Bonferroni at 1e-4 overall: |mean - p| < 4.9 sd
    assert np.all(np.abs(draws.mean(axis=0) - p_one) < 4.9 * np.sqrt(p_one * (1 - p_one) / 20_000))
    star = verified_pair(mech.spec, *LocalNodeRelation().star_toggle(n, 0), "explicit")
    result = exact_privacy(mech, candidates=[star])
    assert float(result.epsilon_exact) == pytest.approx(7 * eps0)
    assert result.delta_at_claimed_epsilon == pytest.approx(rr_joint_delta(eps, eps0, 7), abs=1e-15)
    assert not result.violated


# -- errors ----------------------------------------------------------------------------------
def test_bad_inputs_raise_named_errors():
    with pytest.raises(UnsupportedCombinationError, match="epsilon=1.5"):
        soft_threshold_mechanism(10, 1.5, 1e-6, 0, 2, calibration="classical")
    with pytest.raises(InvalidParameterError, match="tau1"):
        soft_threshold_mechanism(10, 0.5, 1e-6, 3, 3)
    with pytest.raises(InvalidParameterError, match="max_degree"):
        edge_count_mechanism(10, 0.5, 1e-6, 0)
    with pytest.raises(InvalidParameterError, match="workload"):
        blurry_linear_mechanism(10, 0.5, 1e-6, 2, np.eye(3))
    with pytest.raises(InvalidParameterError, match="2 ln"):
        rr_edge_epsilon0(10, 30.0, 1e-6)
    with pytest.raises(InvalidGraphError):
        private_edge_count(np.array([[0, 1], [0, 0]]), 0.5, 1e-6, 2)
    with pytest.raises(InvalidParameterError, match="n must be"):
        soft_threshold_mechanism(1, 0.5, 1e-6, 0, 1)
    with pytest.raises(InvalidParameterError, match="thresholds"):
        private_degree_thresholds(nx.path_graph(10), 0.5, 1e-6, 3, [4])


@pytest.mark.parametrize(
    ("n", "d", "eps", "delta", "tv"),
    [(10**4, 2, 0.1, 1e-8, 0.100), (10**4, 4, 0.1, 1e-8, 0.197), (10**4, 10, 0.05, 1e-8, 0.245)],
)
def test_lemma_5_4_certificate_reference_values(n, d, eps, delta, tv):
    assert regular_graph_tv_bound(n, d, eps, delta) == pytest.approx(tv, abs=1e-3)


def test_histogram_bound_slack_is_attained_at_bucket_extremes():
    """Erratum: at λ = 1 the bucket-extreme pair attains the tight bound, √2 below Thm 4.1."""
    from privaudit.estimators.lndp import joint_accounting
    from privaudit.spec import GraphDomain, LocalNodeRelation

    mech = blurry_linear_mechanism(6, 0.9, 1e-3, 1, np.eye(6))
    shifts = [
        joint_accounting(mech, x, y).shift
        for x, y in LocalNodeRelation(bucket_width=1).bucket_extremes(GraphDomain(n_nodes=6), 1)
    ]
    tight = blurry_linear_sensitivity(6, 1, np.eye(6), "tight")  # rounded up: the stable grid
    assert max(shifts) <= tight and max(shifts) == pytest.approx(tight, rel=1.1e-5)
    assert mech.spec.global_sensitivity.value / max(shifts) == pytest.approx(
        math.sqrt(2), rel=1.1e-5
    )


def test_analytic_calibration_is_the_default_valid_at_every_epsilon_and_never_looser():
    """Balle & Wang (ICML 2018): the analytic σ is the smallest for (ε, δ); the classical
    formula (the paper's Lemma A.3) is kept for reproducing the paper, ε < 1 only."""
    g = nx.cycle_graph(200)
    est = private_edge_count(g, 1.0, 1e-6, 20, rng=0)  # refused classically
    assert est.details["soft_threshold"] is not None and est.message_noise > 0
    for eps in (0.1, 0.5, 0.9):
        analytic = soft_threshold_mechanism(50, eps, 1e-6, 2, 6)
        classical = soft_threshold_mechanism(50, eps, 1e-6, 2, 6, calibration="classical")
        assert analytic.spec.noise.calibration == "analytic"
        assert analytic.noise_law.sigma <= classical.noise_law.sigma
        pmf_a = blurry_linear_mechanism(60, eps, 1e-6, 5, np.eye(bucket_count(60, 5)))
        pmf_c = blurry_linear_mechanism(
            60, eps, 1e-6, 5, np.eye(bucket_count(60, 5)), calibration="classical"
        )
        assert pmf_a.noise_law.sigma <= pmf_c.noise_law.sigma
    assert private_degree_pmf(g, 2.0, 1e-6, 5, rng=1).details["calibration"] == "analytic"
    for fn in (private_average_degree,):
        assert fn(g, 3.0, 1e-6, 5, rng=2, calibration="analytic").message_noise > 0
    with pytest.raises(UnsupportedCombinationError, match="epsilon"):
        private_edge_count(g, 1.0, 1e-6, 20, rng=0, calibration="classical")
    with pytest.raises(InvalidParameterError, match="calibration"):
        private_edge_count(g, 0.5, 1e-6, 20, rng=0, calibration="exact")
