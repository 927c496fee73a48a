"""One home for each rule: the claimed (ε, δ) point, the configuration override merge,
the error-level validators and the one-line texts of ε and of a claim.

Each rule has exactly one implementation; these tests check the rule itself and that
its users agree with it (the same error for the same bad α everywhere, the report and
the certificate writing a claim the same way).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from privaudit import AuditConfig
from privaudit.auditing.checks.conformance import check_noise_law
from privaudit.auditing.outcome.texts import (
    claim_text,
    format_epsilon,
    guarantee_text,
    relation_text,
)
from privaudit.mechanisms import LaplaceMechanism
from privaudit.spec import (
    ApproxDP,
    GaussianDP,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
    check_alpha,
    check_confidence,
)
from privaudit.spec.errors import InvalidParameterError, ParameterTypeError
from privaudit.statistics import (
    DEFAULT_REPORT_DELTA,
    claimed_point,
    epsilon_lower_bound,
    garwood_lower,
    mean_lower_bound,
    pooled_bound,
    rate_ratio_lower_bound,
)


# -- the claimed (ε, δ) point ------------------------------------------------------------------
@pytest.mark.parametrize(
    "guarantee, expected",
    [
        (PureDP(epsilon=2.0), (2.0, 0.0)),
        (ApproxDP(epsilon=1.0, delta=1e-5), (1.0, 1e-5)),
    ],
)
def test_claimed_point_quotes_native_parameters(guarantee, expected):
    assert claimed_point(guarantee) == expected


@pytest.mark.parametrize(
    "guarantee", [RenyiDP(alpha=8.0, epsilon=0.5), ZeroConcentratedDP(rho=0.5), GaussianDP(mu=1.0)]
)
def test_claimed_point_of_curves_is_their_epsilon_at_the_report_delta(guarantee):
    eps, delta = claimed_point(guarantee)
    assert delta == DEFAULT_REPORT_DELTA == 1e-6
    assert eps == guarantee.epsilon_for_delta(DEFAULT_REPORT_DELTA)


def test_claimed_point_refuses_what_is_not_a_guarantee():
    with pytest.raises(InvalidParameterError, match="not a privacy guarantee"):
        claimed_point(0.5)


# -- the configuration override merge ---------------------------------------------------------
def test_merged_without_overrides_is_the_same_object():
    config = AuditConfig(samples=5_000)
    assert config.merged() is config and config.merged({}) is config


def test_merged_replaces_only_the_named_fields():
    config = AuditConfig(samples=5_000, seed=4)
    merged = config.merged({"confidence": 0.99, "seed": 7})
    assert (merged.samples, merged.confidence, merged.seed) == (5_000, 0.99, 7)
    assert merged.model_dump() == {**config.model_dump(), "confidence": 0.99, "seed": 7}
    assert config.seed == 4  # frozen: the original is unchanged


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"bogus": 1}, "bogus"),
        ({"samples": -1}, "samples"),
        ({"confidence": 0.3}, "0.3"),
        ({"pairs_tested": 100}, "pair_budget"),
    ],
)
def test_merged_validates_again(overrides, message):
    with pytest.raises(InvalidParameterError, match=message):
        AuditConfig().merged(overrides)


# -- the error-level validators ----------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [0.05, 1e-300, 0.999, np.float64(0.1), np.float32(0.5), Fraction(1, 3)]
)
def test_check_alpha_accepts_levels_in_the_open_unit_interval(value):
    assert check_alpha(value) == float(value) and type(check_alpha(value)) is float


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -0.1, 2.0, math.nan, math.inf])
def test_check_alpha_refuses_levels_outside_it_naming_the_value(value):
    with pytest.raises(InvalidParameterError, match=r"alpha must lie in \(0, 1\)"):
        check_alpha(value)


@pytest.mark.parametrize("value", ["0.05", None, True, 0.05j, [0.05]])
def test_check_alpha_refuses_non_numbers(value):
    with pytest.raises(ParameterTypeError, match="alpha must be a real number"):
        check_alpha(value)


def test_check_confidence_interval():
    assert check_confidence(0.5) == 0.5 and check_confidence(0.999) == 0.999
    for bad in (0.49, 1.0, math.nan):
        with pytest.raises(InvalidParameterError, match=r"confidence must lie in \[0.5, 1\)"):
            check_confidence(bad)
    with pytest.raises(ParameterTypeError):
        check_confidence(True)
    with pytest.raises(InvalidParameterError, match="confidence"):
        AuditConfig(confidence=1.0)


_LEVEL_USERS = {
    "epsilon_lower_bound": lambda a: epsilon_lower_bound(5, 10, 1, 10, alpha=a),
    "rate_ratio_lower_bound": lambda a: rate_ratio_lower_bound(5, 1, 10.0, 10.0, alpha=a),
    "garwood_lower": lambda a: garwood_lower(3, a),
    "pooled_bound": lambda a: pooled_bound(3, 1, 2, 1, poisson_mean=10.0, alpha=a, delta=0.0),
    "mean_lower_bound": lambda a: mean_lower_bound(np.full(10, 0.5), alpha=a),
    "check_noise_law": lambda a: check_noise_law(
        LaplaceMechanism(1.0, 1.0), 0.0, 0, samples=100, alpha=a
    ),
}


@pytest.mark.parametrize("user", sorted(_LEVEL_USERS))
@pytest.mark.parametrize("bad", [0.0, 1.5, math.nan, "0.05", True])
def test_every_user_of_an_error_level_refuses_the_same_values_the_same_way(user, bad):
    with pytest.raises(InvalidParameterError) as expected:
        check_alpha(bad)
    with pytest.raises(type(expected.value), match=r"alpha must (lie in|be a real)"):
        _LEVEL_USERS[user](bad)


# -- the one-line texts ------------------------------------------------------------------------
def test_format_epsilon():
    assert format_epsilon(1.23456) == "1.235" and format_epsilon(1.23456, 6) == "1.23456"
    assert format_epsilon(math.inf) == "inf" and format_epsilon(0.0) == "0"


def test_claim_text_is_the_guarantee_under_the_relation():
    spec = LaplaceMechanism(0.5, 2.0).spec
    assert guarantee_text(spec) == "pure_dp(epsilon=0.5)"
    assert relation_text(spec) == "query_distance(norm=l1, radius=2)"
    assert claim_text(spec) == f"{guarantee_text(spec)} under {relation_text(spec)}"


def test_certificates_re_export_the_one_claim_text():
    from privaudit.trust import certificates

    assert certificates.claim_text is claim_text
    assert certificates.guarantee_text is guarantee_text
    assert certificates.relation_text is relation_text
