"""The exact rate-ratio bound (privaudit.statistics.rate_ratio) and its use in distinguish_pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import GaussianMechanism, LaplaceMechanism
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics import (
    predicted_rate_ratio_epsilon,
    rate_ratio_epsilon_lower_bound,
    rate_ratio_lower_bound,
)
from privaudit.statistics.allocation import predicted_epsilon, prefers_rate_ratio
from tests.unit.privaudit.distinguish._shared import run_pair_test


def test_matches_the_exact_binomial_interval_of_the_conditional_proportion():
    """π̲ is scipy's exact (Clopper–Pearson) lower end at one-sided level α."""
    for kx, ky, alpha in [(30, 10, 0.05), (1100, 1000, 0.01), (7, 0, 0.05), (1, 50, 0.2)]:
        low = (
            stats.binomtest(kx, kx + ky)
            .proportion_ci(confidence_level=1 - 2 * alpha, method="exact")
            .low
        )
        expected = low / (1 - low)
        got = float(rate_ratio_lower_bound(kx, ky, 5000.0, 5000.0, alpha=alpha))
        assert got == pytest.approx(expected, rel=1e-9)


def test_unequal_means_rescale_the_ratio():
    same = float(rate_ratio_lower_bound(300, 200, 1000.0, 1000.0, alpha=0.05))
    assert float(rate_ratio_lower_bound(300, 200, 1000.0, 2000.0, alpha=0.05)) == pytest.approx(
        2 * same
    )


def test_edge_counts():
    assert float(rate_ratio_lower_bound(0, 10, 100.0, 100.0, alpha=0.05)) == 0.0
    assert float(rate_ratio_lower_bound(0, 0, 100.0, 100.0, alpha=0.05)) == 0.0
    # count_y = 0: finite, π̲ = α^{1/m}
    r = float(rate_ratio_lower_bound(20, 0, 100.0, 100.0, alpha=0.05))
    pi = 0.05 ** (1 / 20)
    assert r == pytest.approx(pi / (1 - pi)) and math.isfinite(r)
    assert float(rate_ratio_epsilon_lower_bound(5, 50, 100.0, 100.0, alpha=0.05)) == 0.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"count_x": -1, "count_y": 2, "mean_x": 1.0, "mean_y": 1.0, "alpha": 0.05},
        {"count_x": 1.5, "count_y": 2, "mean_x": 1.0, "mean_y": 1.0, "alpha": 0.05},
        {"count_x": 1, "count_y": 2, "mean_x": 0.0, "mean_y": 1.0, "alpha": 0.05},
        {"count_x": 1, "count_y": 2, "mean_x": 1.0, "mean_y": np.nan, "alpha": 0.05},
        {"count_x": 1, "count_y": 2, "mean_x": 1.0, "mean_y": 1.0, "alpha": 1.0},
        {"count_x": 1, "count_y": 2, "mean_x": 1.0, "mean_y": 1.0, "alpha": True},
    ],
)
def test_bad_input_is_refused(kwargs):
    with pytest.raises(InvalidParameterError):
        rate_ratio_lower_bound(**kwargs)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5000), st.integers(0, 5000), st.integers(1, 50))
def test_monotone_in_the_counts(kx, ky, step):

    def f(a, b):
        return float(rate_ratio_lower_bound(a, b, 1e4, 1e4, alpha=0.05))

    assert f(kx + step, ky) >= f(kx, ky)
    assert f(kx, ky + step) <= f(kx, ky)
    assert float(rate_ratio_epsilon_lower_bound(kx, ky, 1e4, 1e4, alpha=0.05)) >= 0.0


def test_coverage_on_poisson_counts():
    """2·10⁵ seeded replicates at the boundary p_x = e·p_y (ε = 1 exactly), λ p_y = 2000
    and λ p_y = 20: the bound exceeds ln r = 1 with probability ≤ α = 0.05.  The
    assertion allows 3 binomial standard errors (≈ 0.0015) above α, so it fails with
    probability < 0.2 % for a valid bound (observed 0.0483 and 0.0370)."""
    rng = np.random.default_rng(20261121)
    reps = 200_000
    for mean_y in (2000.0, 20.0):
        kx = rng.poisson(math.e * mean_y, reps)
        ky = rng.poisson(mean_y, reps)
        eps = rate_ratio_epsilon_lower_bound(kx, ky, 1.0, 1.0, alpha=0.05)
        miss = float(np.mean(eps > 1.0))
        assert miss <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps), miss


def test_prediction_matches_the_exact_bound_at_large_counts():
    px, py, lam = 0.02, 0.018, 10**6
    predicted = float(predicted_rate_ratio_epsilon(px, py, lam, lam, alpha=0.01))
    exact = float(
        rate_ratio_epsilon_lower_bound(int(px * lam), int(py * lam), lam, lam, alpha=0.01)
    )
    assert predicted == pytest.approx(exact, abs=2e-4)


def test_rate_ratio_wins_on_small_probabilities_and_loses_near_one():
    """Small-p events: one bound at α beats two at α/2; p near 1 (variance p, not p(1−p))
    the classical pair wins."""
    assert bool(prefers_rate_ratio(0.01, 0.009, 10**6, 10**6, alpha=0.05))
    assert not bool(prefers_rate_ratio(0.97, 0.95, 10**6, 10**6, alpha=0.05))
    both = predicted_epsilon(0.01, 0.009, 10**6, 10**6, alpha=0.05, rate_ratio=True)
    cp = predicted_epsilon(0.01, 0.009, 10**6, 10**6, alpha=0.05)
    assert float(both) > float(cp)
    # never for a δ > 0 claim
    assert float(
        predicted_epsilon(0.01, 0.009, 10**6, 10**6, alpha=0.05, delta=1e-6, rate_ratio=True)
    ) == float(predicted_epsilon(0.01, 0.009, 10**6, 10**6, alpha=0.05, delta=1e-6))


def _pair(mech, x, y):
    return verified_pair(mech.spec, x, y, "explicit")


def test_pair_test_poissonises_and_uses_the_rate_ratio_for_pure_claims():
    mech = LaplaceMechanism(1.0, 1.0)
    r = run_pair_test(
        mech, _pair(mech, 0.0, 1.0), samples=20_000, search_samples=5000, rng=3, alpha=0.05
    )
    assert r.poissonized and r.test_sizes != (20_000, 20_000)
    assert abs(r.test_sizes[0] - 20_000) < 6 * math.sqrt(20_000)
    assert r.best_event.method == "rate_ratio" and r.best_event.poisson_mean == 20_000
    # its bound is the exact conditional one at the event's level
    b = r.best_event
    assert b.epsilon_lower_bound == pytest.approx(
        float(
            rate_ratio_epsilon_lower_bound(b.count_x, b.count_y, 20_000.0, 20_000.0, alpha=b.alpha)
        )
    )
    fixed = run_pair_test(
        mech,
        _pair(mech, 0.0, 1.0),
        samples=20_000,
        search_samples=5000,
        rng=3,
        alpha=0.05,
        poissonize=False,
    )
    assert not fixed.poissonized and fixed.test_sizes == (20_000, 20_000)
    assert all(e.method == "clopper_pearson" for e in fixed.events)


def test_approximate_claims_keep_the_clopper_pearson_pair():
    mech = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    r = run_pair_test(
        mech, _pair(mech, 0.0, 1.0), samples=20_000, search_samples=5000, rng=0, alpha=0.05
    )
    assert r.poissonized
    assert all(e.method in ("clopper_pearson", "pooled_poisson") for e in r.events)


def test_small_tests_are_not_poissonised():
    mech = LaplaceMechanism(1.0, 1.0)
    r = run_pair_test(
        mech, _pair(mech, 0.0, 1.0), samples=500, search_samples=500, rng=0, alpha=0.05
    )
    assert not r.poissonized and r.test_sizes == (500, 500)
