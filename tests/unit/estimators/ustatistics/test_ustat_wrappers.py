"""Wrapper 1, the CoinPress baselines A.2/A.3 and Corollaries 1–2 (private U-statistics)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.estimators.ustatistics import (
    SubsetFamily,
    clipped_kernel,
    coinpress_mechanism,
    coinpress_schedule,
    collision_kernel,
    concentration_bound,
    degenerate_mean_mechanism,
    degenerate_xi,
    local_hajek_statistic,
    median_of_means_chunk_count,
    median_of_means_mechanism,
    median_of_means_partition,
    private_coinpress_mean,
    private_degenerate_mean,
    private_median_of_means,
    private_subgaussian_mean,
    subgaussian_main_stage_mechanism,
    subgaussian_mean_mechanism,
    subgaussian_xi,
    table_kernel,
    variance_kernel,
)
from privaudit.estimators.ustatistics.coinpress import clipped_means
from privaudit.mechanisms.composition import basic_composition
from privaudit.spec import Categorical, Laplace, PureDP
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, UtilityConditionWarning

FAST = settings(max_examples=40, deadline=None)


# ----------------------------------------------------------------------------------------
# Wrapper 1
# ----------------------------------------------------------------------------------------
@FAST
@given(st.floats(1e-6, 0.999), st.integers(2, 5000), st.integers(1, 4))
def test_chunk_count_is_odd_and_leaves_k_records_per_chunk(alpha, n, k):
    if n < k:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityConditionWarning)
        count = median_of_means_chunk_count(alpha, n, k)
    wanted = max(1, math.ceil(8 * math.log(1 / alpha)))
    assert count.requested in (wanted, wanted + 1) and count.requested % 2 == 1
    assert count.chunks % 2 == 1 and 1 <= count.chunks <= count.requested
    assert n // count.chunks >= k
    assert count.clamped == (count.chunks < count.requested)
    if not count.clamped:
        assert count.failure_bound <= alpha


def test_clamping_warns():
    with pytest.warns(UtilityConditionWarning, match="fails with probability"):
        count = median_of_means_chunk_count(1e-6, 20, 2)
    assert (count.chunks, count.clamped) == (9, True)


@FAST
@given(st.integers(1, 300), st.integers(1, 25), st.integers(0, 2**31))
def test_partition_is_a_data_independent_balanced_partition(n, q, seed):
    if q > n:
        return
    blocks = median_of_means_partition(n, q, seed)
    again = median_of_means_partition(n, q, seed)
    assert all(np.array_equal(a, b) for a, b in zip(blocks, again, strict=True))
    joined = np.concatenate(blocks)
    assert sorted(joined.tolist()) == list(range(n))
    sizes = [b.size for b in blocks]
    assert max(sizes) - min(sizes) <= 1 and len(blocks) == q


def test_wrapper_chunks_are_fixed_before_seeing_data():
    kernel = variance_kernel(0.0, 1.0)
    a = median_of_means_mechanism(90, kernel, 1.0, alpha=0.5, xi=0.1, partition_seed=3)
    b = median_of_means_mechanism(90, kernel, 1.0, alpha=0.5, xi=0.1, partition_seed=3)
    assert [c.records.tolist() for c in a.chunks] == [c.records.tolist() for c in b.chunks]
    c = median_of_means_mechanism(90, kernel, 1.0, alpha=0.5, xi=0.1, partition_seed=4)
    assert [x.records.tolist() for x in a.chunks] != [x.records.tolist() for x in c.chunks]


def test_wrapper_statistic_release_and_spec():
    kernel = variance_kernel(0.0, 1.0)
    mech = median_of_means_mechanism(90, kernel, 1.5, alpha=0.5, xi=0.1)
    x = np.random.default_rng(0).random(90)
    stats = mech.statistic(x)
    assert len(mech.chunks) == 7 == stats.size
    for chunk, value in zip(mech.chunks, stats, strict=True):
        alone = local_hajek_statistic(x[chunk.records], kernel, xi=0.1, beta=mech.beta)
        assert value == alone.weighted_mean
    assert mech.smooth_sensitivity(x) == max(s.smooth_sensitivity for s in mech.evaluate(x))
    draws = mech.sample(x, 6, rng=5)
    np.testing.assert_array_equal(draws, np.median(mech.chunk_releases(x, 6, rng=5), axis=0))
    spec = mech.spec
    assert spec.guarantee == PureDP(epsilon=1.5)  # parallel composition, same ε per chunk
    assert spec.smooth_sensitivity_claim.norm == "linf"
    assert spec.smooth_sensitivity_claim.beta == mech.beta
    assert "parallel composition" in spec.notes and spec.proof_status == "proven"


def test_wrapper_paper_mode_is_unproven():
    mech = median_of_means_mechanism(
        60, variance_kernel(0, 1), 5.0, alpha=0.7, xi=0.1, sensitivity_mode="paper"
    )
    assert mech.spec.proof_status == "unproven" and mech.beta == 0.5


def test_wrapper_with_subsampled_families_never_returns_bottom():
    mech = median_of_means_mechanism(
        60,
        variance_kernel(0, 1),
        1.0,
        alpha=0.7,
        xi=0.1,
        family="subsampled",
        family_size=600,
        family_seed=2,
    )
    for chunk in mech.chunks:
        chunk.algorithm.family.check()  # raises if a chunk family fails the checks
        assert chunk.algorithm.family.size == 600
    assert np.isfinite(mech.release(np.linspace(0, 1, 60), rng=0))


def test_private_median_of_means_result():
    x = np.random.default_rng(1).random(400)
    r = private_median_of_means(x, variance_kernel(0, 1), 1.0, alpha=0.2, xi=0.05, rng=3)
    assert r.chunks == len(r.chunk_sizes) == r.chunk_releases.size == 13
    assert r.estimate == np.median(r.chunk_releases)
    assert r.noise_std == max(s.noise_scale for s in r.chunk_statistics)
    assert r.failure_bound == pytest.approx(math.exp(-13 / 8))


def test_wrapper_bad_inputs():
    kernel = variance_kernel(0, 1)
    for alpha in (0.0, 1.0, -0.5, 2.0):
        with pytest.raises(InvalidParameterError, match="alpha"):
            median_of_means_mechanism(50, kernel, 1.0, alpha=alpha, xi=0.1)
    with pytest.raises(InvalidParameterError, match="family"):
        median_of_means_mechanism(50, kernel, 1.0, alpha=0.5, xi=0.1, family="naive")
    with pytest.raises(InvalidParameterError, match="xi"):
        median_of_means_mechanism(50, kernel, 1.0, alpha=0.5, xi=-1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        median_of_means_mechanism(50, kernel, 0.0, alpha=0.5, xi=0.1)
    mech = median_of_means_mechanism(50, kernel, 1.0, alpha=0.5, xi=0.1)
    with pytest.raises(InvalidInputError):
        mech.statistic(np.full(50, np.nan))


# ----------------------------------------------------------------------------------------
# CoinPress A.2/A.3
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["naive", "all", "subsampled"])
@pytest.mark.parametrize("radius", [0.1, 1.0, 50.0])
def test_coinpress_accounting_sums_to_epsilon(family, radius):
    mech = coinpress_mechanism(
        40, variance_kernel(0, 1), 0.7, radius=radius, family=family, warn=False
    )
    sched = mech.schedule
    assert math.fsum(sched.epsilons) == pytest.approx(0.7, rel=1e-12)
    assert sched.epsilons[-1] == 0.35 and len(sched.epsilons) == sched.steps + 1
    assert sched.guarantee == basic_composition([PureDP(epsilon=e) for e in sched.epsilons])
    assert mech.spec.guarantee.epsilon == pytest.approx(0.7, rel=1e-12)
    q_gamma = concentration_bound(
        0.01, kind=sched.kind, n=40, degree=2, tau=1 / 16, family_size=mech.family_size
    )
    assert sched.steps == max(1, math.ceil(math.log2(radius / q_gamma)))


def test_coinpress_dependence_is_exact():
    kernel = variance_kernel(0, 1)
    assert (
        coinpress_mechanism(
            41, kernel, 1.0, radius=1.0, family="naive", warn=False
        ).schedule.dependence
        == 1 / 20
    )
    assert (
        coinpress_mechanism(
            40, kernel, 1.0, radius=1.0, family="all", warn=False
        ).schedule.dependence
        == 2 / 40
    )
    fam = SubsetFamily.subsampled(40, 2, 500, rng=3)
    mech = coinpress_mechanism(40, kernel, 1.0, radius=1.0, family=fam, warn=False)
    assert mech.schedule.dependence == np.bincount(fam.tuples.ravel()).max() / 500


def test_coinpress_sensitivities_follow_the_interval_lengths():
    sched = coinpress_schedule(
        epsilon=1.0,
        radius=100.0,
        tau=1.0,
        kind="all",
        n=400,
        degree=2,
        dependence=2 / 400,
        family_size=79800,
        warn=False,
    )
    assert sched.steps > 1
    for i in range(sched.steps + 1):
        # rounded up to the stable grid: at least the width of the clipping interval
        width = sched.dependence * (2 * sched.half_lengths[i] + 2 * sched.margins[i])
        assert width <= sched.sensitivities[i] <= width * (1 + 1.1e-5)
        assert sched.laplace_scales[i] == pytest.approx(sched.sensitivities[i] / sched.epsilons[i])
    assert sched.half_lengths[0] == 100.0
    assert sched.confidences == (0.01 / sched.steps,) * sched.steps + (0.01,)


def test_clipped_means_match_numpy():
    rng = np.random.default_rng(2)
    y = np.sort(rng.normal(size=300))
    prefix = np.concatenate([[0.0], np.cumsum(y)])
    lo = rng.normal(size=50) - 0.5
    hi = lo + rng.random(50) * 2
    want = np.clip(y[None, :], lo[:, None], hi[:, None]).mean(axis=1)
    np.testing.assert_allclose(clipped_means(y, prefix, lo, hi), want, rtol=1e-12, atol=1e-12)


def test_coinpress_sampler_matches_a_direct_implementation_of_algorithm_a2():
    kernel = variance_kernel(0, 1)
    mech = coinpress_mechanism(30, kernel, 1.0, radius=8.0, family="all", warn=False)
    x = np.random.default_rng(4).random(30)
    draws = mech.sample(x, 7, rng=9)
    sched = mech.schedule
    values = np.array([(x[i] - x[j]) ** 2 / 2 for i in range(30) for j in range(i + 1, 30)])
    gen = np.random.default_rng(9)
    lo, hi = np.full(7, -sched.radius), np.full(7, sched.radius)
    for step in range(sched.steps + 1):
        q = sched.margins[step]
        z = np.array([np.clip(values, a - q, b + q).mean() for a, b in zip(lo, hi, strict=True)])
        z = z + Laplace(scale=sched.laplace_scales[step]).sample(gen, 7)
        half = sched.half_lengths[step + 1] if step < sched.steps else sched.final_half_length
        lo, hi = z - half, z + half
    np.testing.assert_allclose(draws, (lo + hi) / 2, rtol=1e-12, atol=1e-12)


def test_coinpress_statistic_respects_its_global_sensitivity_on_every_neighbour():
    rng = np.random.default_rng(8)
    table = rng.random((3, 3))
    kernel = table_kernel((table + table.T) / 2)
    for family in ("naive", "all", "subsampled"):
        mech = coinpress_mechanism(10, kernel, 1.0, radius=0.3, family=family, warn=False)
        delta = mech.spec.global_sensitivity.value
        for _ in range(5):
            x = rng.integers(0, 3, 10)
            fx = mech.statistic(x)
            for i in range(10):
                for v in range(3):
                    y = x.copy()
                    y[i] = v
                    assert abs(mech.statistic(y) - fx) <= delta * (1 + 1e-12)


def test_coinpress_warns_when_theorem_a1_conditions_fail_and_not_otherwise():
    with pytest.warns(UtilityConditionWarning, match="Theorem A.1"):
        coinpress_mechanism(40, variance_kernel(0, 1), 1.0, radius=1.0, family="naive")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityConditionWarning)
        mech = coinpress_mechanism(2000, variance_kernel(0, 1), 1.0, radius=0.5, family="naive")
    assert mech.schedule.dependence_condition and mech.schedule.mean_condition


def test_private_coinpress_mean_result():
    x = np.random.default_rng(0).random(300)
    r = private_coinpress_mean(
        x, variance_kernel(0, 1), 1.0, radius=1.0, family="naive", rng=2, warn=False
    )
    assert r.noise_std == pytest.approx(math.sqrt(2) * r.schedule.laplace_scales[-1])
    assert r.steps == r.schedule.steps and r.spec.guarantee.epsilon == pytest.approx(1.0)


def test_coinpress_bad_inputs():
    kernel = variance_kernel(0, 1)
    with pytest.raises(InvalidParameterError, match="k <= n/2"):
        coinpress_mechanism(3, kernel, 1.0, radius=1.0)
    with pytest.raises(InvalidParameterError, match="radius"):
        coinpress_mechanism(20, kernel, 1.0, radius=0.0)
    with pytest.raises(InvalidParameterError, match="tau"):
        coinpress_mechanism(20, kernel, 1.0, radius=1.0, tau=-1.0)
    with pytest.raises(InvalidParameterError, match="family"):
        coinpress_mechanism(20, kernel, 1.0, radius=1.0, family="blocks")
    with pytest.raises(InvalidParameterError, match="epsilon"):
        coinpress_mechanism(20, kernel, -1.0, radius=1.0)


# ----------------------------------------------------------------------------------------
# Corollary 2 (degenerate) and Corollary 1 (sub-Gaussian)
# ----------------------------------------------------------------------------------------
def test_degenerate_xi_is_the_sum_of_the_two_explicit_bounds():
    n, k, c, g = 500, 3, 2.0, 0.01
    m_prime = (n - 1) // (k - 1)
    log_term = math.log(2 * n / (g / 2))
    lemma4 = 2 * (c / 2) * math.sqrt(log_term / m_prime) + (4 * c / 3) * log_term / m_prime
    m, lam = n // k, math.log(4 / g)
    t = ((2 * c * lam / 3) + math.sqrt((2 * c * lam / 3) ** 2 + 8 * m * (c * c / 4) * lam)) / (
        2 * m
    )
    # t solves Bernstein's equation m t² = (2ζ_k + 2Ct/3)·ln(4/γ) with ζ_k = C²/4
    assert m * t * t == pytest.approx((2 * c * c / 4 + 2 * c * t / 3) * lam)
    assert lemma4 + t < degenerate_xi(n, k, c, g) <= (lemma4 + t) * (1 + 1.1e-5)  # up: grid
    assert degenerate_xi(5000, k, c) < degenerate_xi(500, k, c)
    with pytest.raises(InvalidParameterError, match="k >= 2"):
        degenerate_xi(100, 1, 1.0)


def test_degenerate_mechanism_uses_the_explicit_xi_per_chunk():
    mech = degenerate_mean_mechanism(
        200, collision_kernel(), 1.0, alpha=0.5, record_domain=Categorical(size=8)
    )
    for chunk in mech.chunks:
        assert chunk.algorithm.xi == degenerate_xi(chunk.records.size, 2, 1.0)
    assert mech.spec.name == "ustat.degenerate.collision"
    x = np.random.default_rng(0).integers(0, 8, 200)
    r = private_degenerate_mean(
        x, collision_kernel(), 1.0, alpha=0.5, rng=1, record_domain=Categorical(size=8)
    )
    assert r.chunks == len(mech.chunks)


def test_subgaussian_xi_formula():
    exact = math.sqrt(4.0 * math.log(400 / 0.01)) + math.sqrt(4.0 * math.log(400) / 50)
    assert exact < subgaussian_xi(100, 2, 2.0) <= exact * (1 + 1.1e-5)  # up: the stable grid


def test_clipped_kernel_has_additive_range_exactly_twice_the_half_width():
    kernel = clipped_kernel(variance_kernel(0, 1), 0.1, 0.05)
    assert kernel.additive_range == pytest.approx(0.1) and kernel.lower == pytest.approx(0.05)
    x = np.array([0.0, 1.0, 0.5])
    values = kernel.evaluate(x, np.array([[0, 1], [0, 2], [1, 2]]))
    np.testing.assert_allclose(values, [0.15, 0.125, 0.125])


def test_subgaussian_pipeline_budget_and_projection_width():
    mech = subgaussian_mean_mechanism(48, variance_kernel(0, 1), 2.0, radius=1.0, alpha=0.6)
    plan = mech.plan
    assert plan.coarse.epsilon + plan.main_epsilon == pytest.approx(2.0)
    assert mech.spec.guarantee.epsilon == pytest.approx(2.0)
    # C := 2w, at least the width of the projection interval (critical for privacy)
    assert plan.additive_range == 2 * plan.half_width
    assert plan.half_width >= plan.coarse.schedule.final_half_length
    assert len(set(plan.coarse_records) | set(plan.main_records)) == 48
    assert not set(plan.coarse_records) & set(plan.main_records)


def test_subgaussian_batched_main_stage_matches_the_production_main_stage():
    mech = subgaussian_mean_mechanism(48, variance_kernel(0, 1), 2.0, radius=1.0, alpha=0.6)
    plan = mech.plan
    x = np.random.default_rng(0).random(48)
    centres = [0.05, 0.2, -3.0]
    means, scales = mech.main_stage_statistics(x, centres)
    for j, centre in enumerate(centres):
        stage = subgaussian_main_stage_mechanism(
            plan.main_records.size,
            variance_kernel(0, 1),
            plan.main_epsilon,
            centre=centre,
            half_width=plan.half_width,
            tau=plan.tau,
            alpha=plan.alpha / 2,
        )
        stats = stage.evaluate(x[plan.main_records])
        np.testing.assert_allclose(means[:, j], [s.weighted_mean for s in stats], rtol=1e-12)
        np.testing.assert_allclose(scales[:, j], [s.noise_scale for s in stats], rtol=1e-12)


def test_private_subgaussian_mean_reports_its_stages():
    x = np.random.default_rng(3).normal(0.2, 1.0, 2000)
    from privaudit.estimators.ustatistics import mean_kernel

    r = private_subgaussian_mean(
        x, mean_kernel(subgaussian_proxy=1.0), 2.0, radius=5.0, alpha=0.2, rng=4
    )
    assert r.spec.guarantee.epsilon == pytest.approx(2.0)
    assert r.main.spec.guarantee.epsilon == pytest.approx(1.0)
    assert r.estimate == r.main.estimate and np.isfinite(r.coarse_estimate)
    assert r.main.chunk_statistics[0].n == r.main.chunk_sizes[0]


# ----------------------------------------------------------------------------------------
# the examples in the docstrings
# ----------------------------------------------------------------------------------------
PRIVATE_MODULES = [
    "smooth_bounds",
    "local_hajek_weights",
    "batched_local_hajek",
    "local_hajek",
    "local_hajek_mechanism",
    "private_mean",
    "neighbour_enumeration",
    "partition",
    "median_of_means",
    "coinpress_schedule",
    "coinpress",
    "degenerate",
    "subgaussian",
    "kernel_domains",
]


@pytest.mark.parametrize("name", PRIVATE_MODULES)
def test_docstring_examples_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"privaudit.estimators.ustatistics.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
