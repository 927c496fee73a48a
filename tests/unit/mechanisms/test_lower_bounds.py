"""The lower bounds of ``mechanisms/lower_bounds.py`` against hand computations
(``docs/derivations.md`` §13)."""

from __future__ import annotations

import math

import pytest

from privaudit.estimators import bounded_mean_mechanism
from privaudit.mechanisms import (
    LOWER_BOUNDS,
    accuracy_lower_bound,
    central_mean_bound,
    central_mean_rate,
    central_variance_bound,
    local_mean_bound,
    two_point_absolute_error_bound,
    two_point_quantile_bound,
)
from privaudit.spec import InvalidParameterError
from privaudit.spec.errors import DeltaRangeError, EpsilonRangeError


def test_mean_quantile_bound_by_hand():
    # ε = 1, β = 0.05: 1 > 0.05 (1 + e^k) for k = 1, 2 (e² = 7.39 < 19), not k = 3
    bound = central_mean_bound(1000, 1.0, failure_probability=0.05)
    assert bound.value == pytest.approx(2 / 2000, rel=1e-15)
    assert bound.explicit and bound.quantity == "error quantile" and bound.target == "statistic"
    # the Laplace mean's exact claim is 3.0 times the bound
    assert math.log(20) / 1000 / bound.value == pytest.approx(2.9957, abs=1e-4)


def test_mean_absolute_error_bound_by_hand():
    # max_k (k/(2n)) / (1 + e^k): k = 1 gives 1/(2n (1 + e)), larger than k = 2's 1/(n (1 + e²))
    bound = central_mean_bound(1000, 1.0)
    assert bound.value == pytest.approx(1 / (2000 * (1 + math.e)), rel=1e-12)
    assert bound.quantity == "mean absolute error"
    # width scales the bound
    assert central_mean_bound(1000, 1.0, width=4.0).value == pytest.approx(4 * bound.value)


def test_approximate_dp_uses_the_group_delta():
    # k = 1: 1 − δ > β (1 + e^ε) ⟺ δ < 1 − 2β at ε → 0; with δ = 0.5, β = 0.2, ε = 0.01:
    # k = 1: 0.5 > 0.2 (1 + e^0.01) = 0.402 holds; k = 2: δ_2 = 0.5 (1 + e^0.01) > 1 fails
    value = two_point_quantile_bound([1.0, 2.0], 0.01, 0.5, 0.2)
    assert value == 0.5
    mass = (1 - 0.5) / (1 + math.exp(0.01))
    assert two_point_absolute_error_bound([1.0, 2.0], 0.01, 0.5) == pytest.approx(0.5 * mass)


def test_small_epsilon_ratio_tends_to_the_derived_limit():
    n, eps, beta = 10_000, 0.001, 0.05
    bound = central_mean_bound(n, eps, failure_probability=beta).value
    laplace = math.log(1 / beta) / (n * eps)
    assert laplace / bound == pytest.approx(2 * math.log(1 / beta) / math.log(19), rel=1e-3)


def test_variance_separations_by_hand():
    # n = 4, w = 1: s_k = k (4 − k)/12 = 0.25, 1/3, 0.25, 0; ε = 1, β = 0.05: k ≤ 2 qualify
    bound = central_variance_bound(4, 1.0, failure_probability=0.05)
    assert bound.value == pytest.approx(1 / 6)
    mean_abs = central_variance_bound(4, 1.0)
    expected = max(0.125 / (1 + math.e), (1 / 6) / (1 + math.e**2), 0.125 / (1 + math.e**3))
    assert mean_abs.value == pytest.approx(expected)


def test_local_mean_bounds_by_hand():
    n, eps = 1000, 1.0
    spread = math.sqrt(2 * n) * (math.e - 1)
    assert local_mean_bound(n, eps).value == pytest.approx(1 / (8 * spread))
    assert local_mean_bound(n, eps, 0.05).value == pytest.approx(0.9 / spread)
    assert local_mean_bound(n, eps).target == "population"
    # tiny n, large ε: the τ ≤ 1/2 cap
    assert local_mean_bound(1, 0.01, 0.05).value == 0.5
    assert local_mean_bound(1, 0.01).value == pytest.approx(0.125)


def test_rate_is_marked_not_explicit():
    rate = central_mean_rate(100, 1.0)
    assert not rate.explicit
    assert rate.value == pytest.approx(math.sqrt(1 / 100 + 1 / 100**2))
    assert "Barber" in rate.source.citation
    assert "Cai" in central_mean_rate(100, 1.0, 1e-6).source.citation


def test_trivial_when_beta_is_large():
    # β ≥ 1/(1 + e^ε): no k qualifies, the argument gives nothing
    assert two_point_quantile_bound([1.0], 1.0, 0.0, 0.3) == 0.0


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: two_point_quantile_bound([], 1.0, 0.0, 0.05), InvalidParameterError),
        (lambda: two_point_quantile_bound([math.nan], 1.0, 0.0, 0.05), InvalidParameterError),
        (lambda: two_point_quantile_bound([1.0], 0.0, 0.0, 0.05), EpsilonRangeError),
        (lambda: two_point_quantile_bound([1.0], 1.0, 1.0, 0.05), DeltaRangeError),
        (lambda: two_point_quantile_bound([1.0], 1.0, 0.0, 1.0), InvalidParameterError),
        (lambda: central_mean_bound(0, 1.0), InvalidParameterError),
        (lambda: central_variance_bound(1, 1.0), InvalidParameterError),
        (lambda: local_mean_bound(10, 1.0, width=-1.0), InvalidParameterError),
    ],
)
def test_bad_parameters_are_refused(call, error):
    with pytest.raises(error):
        call()


def test_the_bounded_mean_names_its_bound():
    spec = bounded_mean_mechanism(1000, 0.0, 1.0, 1.0).spec
    found = accuracy_lower_bound(spec)
    assert found is not None and found.value == pytest.approx(0.001)
    assert spec.accuracy.lower_bound in LOWER_BOUNDS
    unknown = spec.model_copy(
        update={"accuracy": spec.accuracy.model_copy(update={"lower_bound": "nope"})}
    )
    with pytest.raises(InvalidParameterError, match="nope"):
        accuracy_lower_bound(unknown)
