"""The private uniformity test: ξ by hand, thresholds, the result object, bad inputs.

Deterministic: seeded generators, no assertion on a statistical outcome that could fail by
chance (the power study lives in ``scripts/uniformity_power_study.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from privaudit.estimators.hypothesis_tests import (
    UniformityTestResult,
    collision_u_statistic,
    private_uniformity_test,
    private_uniformity_test_mechanism,
    uniformity_threshold,
    uniformity_xi,
)
from privaudit.estimators.models.uniformity import (
    AlphabetDistribution,
    plus_minus_perturbation,
    uniform_distribution,
)
from privaudit.estimators.ustatistics import collision_kernel, u_statistic
from privaudit.estimators.ustatistics.local_hajek import local_hajek_algorithm
from privaudit.mechanisms import QUARTIC_CONSTANT
from privaudit.spec import SubstituteOne
from privaudit.spec.errors import InvalidInputError, InvalidParameterError


# ---- ξ (Lemma A.21 as three explicit terms) against hand computation --------------------
@pytest.mark.parametrize("n, m, gamma", [(1000, 100, 0.01), (57, 3, 0.2), (2, 2, 0.5)])
def test_uniformity_xi_by_hand(n, m, gamma):
    log_term = math.log(4 * n / gamma)
    expected = {
        "bernstein_variance": 2 * math.sqrt(log_term / (m * (n - 1))),
        "bernstein_range": 2 / 3 * log_term / (n - 1),
        "projection_spread": 2 / m,
        "chebyshev_mean": math.sqrt(2 / gamma * (8 / (m * m * n) + 8 / (m * n * n))),
    }
    xi = uniformity_xi(n, m, gamma=gamma)
    assert dict(xi.terms) == pytest.approx(expected, rel=1e-14)
    total = sum(expected.values())  # ξ is rounded up to the stable grid
    assert total < xi.value <= total * (1 + 1.1e-5)
    assert xi.n == n and xi.failure_probability == gamma


def test_uniformity_xi_bernstein_term_is_the_bernstein_solution():
    """√(2σ²L/(n−1)) + (2/3)L/(n−1) ≥ the root t of (n−1)t² = L(2σ² + 2t/3) with σ² = 2/m."""
    n, m, gamma = 500, 40, 0.01
    log_term, s2 = math.log(4 * n / gamma), 2 / m
    root = (log_term / 3 + math.sqrt(log_term**2 / 9 + 2 * s2 * log_term * (n - 1))) / (n - 1)
    xi = uniformity_xi(n, m, gamma=gamma)
    bound = xi.terms["bernstein_variance"] + xi.terms["bernstein_range"]
    assert root <= bound
    assert 2 * math.exp(-(n - 1) * bound**2 / (2 * s2 + 2 * bound / 3)) <= gamma / (2 * n) * (
        1 + 1e-12
    )


@pytest.mark.parametrize(
    "args, message",
    [
        ((1, 10), "n >= 2"),
        ((10, 1), "m=1"),
        ((10, 2.5), "m=2.5"),
        ((10.0, 5), "n=10.0"),
    ],
)
def test_uniformity_xi_bad_parameters(args, message):
    with pytest.raises(InvalidParameterError, match=message):
        uniformity_xi(*args)


# ---- thresholds and the collision statistic ----------------------------------------------
def test_thresholds_are_the_midpoints():
    m, delta = 50, 0.6
    tolerant_null, h1 = (1 + delta**2 / 2) / m, (1 + delta**2) / m
    assert uniformity_threshold(m, delta) == pytest.approx((tolerant_null + h1) / 2)
    assert uniformity_threshold(m, delta, "exact") == pytest.approx((1 / m + h1) / 2)


@given(st.lists(st.integers(0, 6), min_size=2, max_size=60))
def test_collision_statistic_matches_the_kernel(labels):
    x = np.array(labels)
    assert collision_u_statistic(x, 7) == pytest.approx(u_statistic(x, collision_kernel()))


@pytest.mark.parametrize("m, l2", [(10, 0.05), (11, 0.05), (100, 0.1 / 10), (2, 0.5)])
def test_plus_minus_perturbation_has_the_requested_distance(m, l2):
    p = plus_minus_perturbation(m, l2)
    assert p.l2_distance == pytest.approx(l2)
    assert p.probabilities.sum() == pytest.approx(1.0)
    a = p.probabilities * m - 1
    # Lemma A.19: theta = (1 + ||a||^2/m)/m
    assert p.collision_probability == pytest.approx((1 + np.sum(a * a) / m) / m)


def test_samplers_are_seeded_and_in_range():
    q = plus_minus_perturbation(20, 0.1)
    x, y = q.sample(5000, 3), q.sample(5000, 3)
    assert np.array_equal(x, y) and x.min() >= 0 and x.max() <= 19
    with pytest.raises(InvalidParameterError, match="amplitude"):
        plus_minus_perturbation(20, 1.0)
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        AlphabetDistribution(np.array([0.5, 0.6]))
    assert uniform_distribution(4).l2_distance == 0.0


# ---- the test ------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["local_hajek", "all_tuples"])
def test_result_object(method):
    x = uniform_distribution(30).sample(3000, 1)
    result = private_uniformity_test(
        x, 30, 0.8, 2.0, alpha=0.25, method=method, rng=4, calibration="threshold"
    )
    assert isinstance(result, UniformityTestResult)
    assert result.calibration == "threshold" and result.p_value is None
    assert result.threshold == uniformity_threshold(30, 0.8)
    assert result.reject == (result.statistic > result.threshold)
    assert result.decision == ("reject uniformity" if result.reject else "accept")
    assert bool(result) == result.reject
    assert result.chunks == 13 and result.n == 3000
    assert result.n_alpha == 3000 // 13
    assert result.guarantee.epsilon == pytest.approx(2.0)
    assert result.privacy.stages[0][1].epsilon == pytest.approx(2.0)
    assert (result.xi is None) == (method == "all_tuples")
    if result.xi is not None:
        assert set(result.xi) == {230, 231}
        assert result.xi[230] == uniformity_xi(230, 30)
    again = private_uniformity_test(
        x, 30, 0.8, 2.0, alpha=0.25, method=method, rng=4, calibration="threshold"
    )
    assert again == result


def test_custom_threshold_and_exact_null():
    x = uniform_distribution(5).sample(200, 0)
    custom = private_uniformity_test(
        x, 5, 0.5, 1.0, threshold=-1.0, alpha=0.9, rng=0, calibration="threshold"
    )
    assert custom.null == "custom" and custom.threshold == -1.0
    exact = private_uniformity_test(
        x, 5, 0.5, 1.0, null="exact", alpha=0.9, rng=0, calibration="threshold"
    )
    assert exact.null == "exact" and exact.threshold == uniformity_threshold(5, 0.5, "exact")
    assert exact.statistic == custom.statistic  # the threshold is post-processing


def test_the_statistic_is_algorithm_1_on_the_collision_kernel():
    x = plus_minus_perturbation(8, 0.1).sample(400, 2)
    mech = private_uniformity_test_mechanism(400, 8, 1.0, alpha=0.9)
    beta = 1.0 / QUARTIC_CONSTANT
    expected = local_hajek_algorithm(
        400, collision_kernel(), xi=uniformity_xi(400, 8).value, beta=beta
    ).evaluate(x)
    assert np.asarray(mech.statistic(x)).item() == pytest.approx(expected.weighted_mean)
    assert mech.smooth_sensitivity(x) == pytest.approx(expected.smooth_sensitivity)
    assert mech.spec.relation == SubstituteOne()
    assert mech.spec.input_domain.record.size == 8


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -2.0}, "epsilon"),
        ({"m": 1}, "m=1"),
        ({"m": 3.5}, "m=3.5"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"delta": float("nan")}, "delta"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.0}, "alpha"),
        ({"alpha": -0.1}, "alpha"),
        ({"null": "approximate"}, "null"),
        ({"threshold": float("inf")}, "threshold"),
        ({"method": "naive"}, "method"),
        ({"partition_seed": -3}, "partition_seed"),
        ({"calibration": "bootstrap"}, "calibration"),
        ({"null": "tolerant"}, "composite"),
        ({"threshold": 0.5}, "threshold=0.5"),
        ({"simulations": 0}, "simulations"),
        ({"simulations": 2.5}, "simulations"),
        ({"null": "approximate", "calibration": "threshold"}, "null"),
        ({"threshold": float("inf"), "calibration": "threshold"}, "threshold"),
    ],
)
def test_bad_parameters(kwargs, message):
    args = {"m": 6, "delta": 0.5, "epsilon": 1.0, **kwargs}
    x = np.zeros(50, dtype=int)
    with pytest.raises(InvalidParameterError, match=message):
        private_uniformity_test(
            x, args.pop("m"), args.pop("delta"), args.pop("epsilon"), rng=0, **args
        )


@pytest.mark.parametrize(
    "samples, message",
    [
        (np.array([0, 1, 6, 2]), "6"),  # outside [m] = {0, …, 5}
        (np.array([0, 1, -1, 2]), "-1"),
        (np.array([0.0, 1.0, np.nan, 2.0]), "nan"),
        (np.array([0.5, 1.0, 2.0]), "0.5"),
        (np.zeros((3, 2), dtype=int), "shape"),
        (np.array([], dtype=int), "empty"),
    ],
)
def test_bad_samples(samples, message):
    with pytest.raises(InvalidInputError, match=message):
        private_uniformity_test(samples, 6, 0.5, 1.0, rng=0)


def test_too_few_samples():
    with pytest.raises(InvalidParameterError, match="n >= 2"):
        private_uniformity_test(np.array([1]), 6, 0.5, 1.0, rng=0)
    with pytest.raises(InvalidParameterError, match="n >= 4"):
        private_uniformity_test(np.array([1, 2, 3]), 6, 0.5, 1.0, method="all_tuples", rng=0)


def test_mechanism_bad_parameters():
    with pytest.raises(InvalidParameterError, match="method"):
        private_uniformity_test_mechanism(100, 5, 1.0, method="subsampled")
    with pytest.raises(InvalidParameterError, match="gamma"):
        private_uniformity_test_mechanism(100, 5, 1.0, gamma=0.0)


# ---- Monte Carlo calibration ---------------------------------------------------------------
def test_monte_carlo_result_is_consistent_and_reproducible():
    x = uniform_distribution(10).sample(300, 3)
    result = private_uniformity_test(x, 10, 1.0, 4.0, alpha=0.1, simulations=39, rng=7)
    assert result.calibration == "monte_carlo" and result.null == "exact"
    assert result.simulations == 39
    assert result.p_value is not None and 1 / 40 <= result.p_value <= 1.0
    assert result.p_value * 40 == pytest.approx(round(result.p_value * 40))
    assert result.reject == (result.p_value <= 0.1) == (result.statistic > result.threshold)
    fixed = private_uniformity_test(x, 10, 1.0, 4.0, alpha=0.1, rng=7, calibration="threshold")
    assert fixed.statistic == result.statistic  # the statistic is drawn first
    again = private_uniformity_test(x, 10, 1.0, 4.0, alpha=0.1, simulations=39, rng=7)
    assert again == result


def test_monte_carlo_null_helper():
    from privaudit.estimators.hypothesis_tests import monte_carlo_null

    draws = np.arange(1.0, 20.0)  # B = 19 known null values
    result = monte_carlo_null(
        18.5, lambda g, b: draws[:b], alpha=0.1, simulations=19, rng=np.random.default_rng(0)
    )
    # one draw (19) is >= 18.5: p = 2/20 = 0.1 <= alpha
    assert result.exceedances == 1 and result.p_value == pytest.approx(0.1) and result.reject
    assert result.critical_value == 18.0  # K = floor(0.1 * 20) - 1 = 1: 2nd largest
    low = monte_carlo_null(
        17.0, lambda g, b: draws[:b], alpha=0.1, simulations=19, rng=np.random.default_rng(0)
    )
    assert not low.reject and low.p_value == pytest.approx(4 / 20)
    never = monte_carlo_null(
        1e9, lambda g, b: draws[:b], alpha=0.01, simulations=19, rng=np.random.default_rng(0)
    )
    assert not never.reject and math.isinf(never.critical_value)  # B too small for α
    with pytest.raises(InvalidParameterError, match="finite"):
        monte_carlo_null(
            1.0,
            lambda g, b: np.full(b, np.nan),
            alpha=0.1,
            simulations=9,
            rng=np.random.default_rng(0),
        )
    with pytest.raises(InvalidParameterError, match="statistic"):
        monte_carlo_null(
            float("nan"),
            lambda g, b: draws[:b],
            alpha=0.1,
            simulations=9,
            rng=np.random.default_rng(0),
        )


def test_monte_carlo_calibration_keeps_the_level_where_the_threshold_fails():
    """Level at n = 100 (m = 10, α = 0.1, ε = 4, δ = 1), 100 seeded runs, B = 19.

    The Monte Carlo p-value is valid for every B, so the false-rejection rate must be
    ≤ α up to sampling error: the exact (Clopper–Pearson) 99 % interval must reach α.
    The fixed threshold rejects uniform data far more often (its interval lies above α).
    """
    rng = np.random.default_rng(20261125)
    runs = 100
    mc = fixed = 0
    for _ in range(runs):
        x = rng.integers(0, 10, 100)
        mc += private_uniformity_test(x, 10, 1.0, 4.0, alpha=0.1, simulations=19, rng=rng).reject
        fixed += private_uniformity_test(
            x, 10, 1.0, 4.0, alpha=0.1, rng=rng, calibration="threshold"
        ).reject
    mc_ci = binomtest(mc, runs).proportion_ci(0.99, method="exact")
    fixed_ci = binomtest(fixed, runs).proportion_ci(0.99, method="exact")
    assert mc_ci.low <= 0.1, (mc, runs)
    assert fixed_ci.low > 0.1, (fixed, runs)
