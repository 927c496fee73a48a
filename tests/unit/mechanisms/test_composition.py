"""Composition over guarantees: basic, advanced, parallel and budget splits."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privaudit.mechanisms.composition import (
    advanced_composition,
    basic_composition,
    parallel_composition,
    split_budget,
)
from privaudit.spec import (
    ApproxDP,
    GaussianDP,
    InvalidParameterError,
    PureDP,
    RenyiDP,
    UnsupportedCombinationError,
    ZeroConcentratedDP,
)

eps_st = st.floats(min_value=1e-3, max_value=5.0)


def test_basic_composition_rules():
    assert basic_composition([PureDP(epsilon=0.5), PureDP(epsilon=0.25)]) == PureDP(epsilon=0.75)
    assert basic_composition([PureDP(epsilon=1.0), ApproxDP(epsilon=0.5, delta=1e-6)]) == ApproxDP(
        epsilon=1.5, delta=1e-6
    )
    assert basic_composition([ApproxDP(epsilon=1.0, delta=0.0)] * 2) == ApproxDP(
        epsilon=2.0, delta=0.0
    )
    assert basic_composition(
        [ZeroConcentratedDP(rho=0.1), GaussianDP(mu=1.0), PureDP(epsilon=1.0)]
    ) == ZeroConcentratedDP(rho=0.1 + 0.5 + 0.5)
    assert basic_composition([GaussianDP(mu=3.0), GaussianDP(mu=4.0)]) == GaussianDP(mu=5.0)
    assert basic_composition([RenyiDP(alpha=2.0, epsilon=0.1)] * 3).epsilon == pytest.approx(0.3)


@pytest.mark.parametrize(
    "mix",
    [
        [ApproxDP(epsilon=1.0, delta=1e-5), ZeroConcentratedDP(rho=0.1)],
        [RenyiDP(alpha=2.0, epsilon=0.1), RenyiDP(alpha=3.0, epsilon=0.1)],
        [GaussianDP(mu=1.0), ApproxDP(epsilon=1.0, delta=1e-5)],
    ],
)
def test_mixtures_without_a_lossless_rule_raise(mix):
    with pytest.raises(UnsupportedCombinationError):
        basic_composition(mix)
    with pytest.raises(UnsupportedCombinationError):
        parallel_composition(mix)


def test_empty_and_non_guarantees_raise():
    with pytest.raises(InvalidParameterError):
        basic_composition([])
    with pytest.raises(InvalidParameterError):
        basic_composition([1.0])  # type: ignore[list-item]  # a bad item on purpose


def test_advanced_composition_formula():
    g = advanced_composition(PureDP(epsilon=0.1), k=100, delta_slack=1e-6)
    expected = math.sqrt(2 * 100 * math.log(1e6)) * 0.1 + 100 * 0.1 * math.expm1(0.1)
    assert expected < g.epsilon <= expected * (1 + 1.1e-5)  # rounded up to the stable grid
    assert g.delta == pytest.approx(1e-6)
    assert g.epsilon < 100 * 0.1


@given(eps=eps_st, k=st.integers(min_value=1, max_value=10_000))
def test_advanced_composition_never_worse_than_basic(eps, k):
    g = advanced_composition(ApproxDP(epsilon=eps, delta=1e-9), k=k, delta_slack=1e-6)
    assert g.epsilon <= k * eps * (1 + 1e-12)
    assert g.delta == pytest.approx(k * 1e-9 + 1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(k=0, delta_slack=1e-6),
        dict(k=2.5, delta_slack=1e-6),
        dict(k=10, delta_slack=0.0),
        dict(k=10, delta_slack=1.0),
    ],
)
def test_advanced_composition_checks_arguments(kwargs):
    with pytest.raises(InvalidParameterError):
        advanced_composition(PureDP(epsilon=1.0), **kwargs)
    with pytest.raises(UnsupportedCombinationError):
        advanced_composition(ZeroConcentratedDP(rho=0.1), k=2, delta_slack=1e-6)  # type: ignore[arg-type]  # refused on purpose


def test_parallel_composition_takes_the_worst_part():
    assert parallel_composition([PureDP(epsilon=0.5), PureDP(epsilon=0.25)]) == PureDP(epsilon=0.5)
    assert parallel_composition(
        [ApproxDP(epsilon=1.0, delta=1e-6), PureDP(epsilon=2.0)]
    ) == ApproxDP(epsilon=2.0, delta=1e-6)
    assert parallel_composition([GaussianDP(mu=1.0), GaussianDP(mu=2.0)]) == GaussianDP(mu=2.0)


@given(
    total_eps=eps_st,
    weights=st.lists(st.floats(min_value=0.01, max_value=100.0), min_size=1, max_size=8),
)
def test_split_budget_composes_back_to_the_total(total_eps, weights):
    for total in (
        PureDP(epsilon=total_eps),
        ApproxDP(epsilon=total_eps, delta=1e-6),
        ZeroConcentratedDP(rho=total_eps),
        GaussianDP(mu=total_eps),
        RenyiDP(alpha=2.0, epsilon=total_eps),
    ):
        parts = split_budget(total, weights)
        assert len(parts) == len(weights)
        back = basic_composition(parts)
        assert type(back) is type(total)
        for field in type(total).model_fields:
            a, b = getattr(back, field), getattr(total, field)
            assert a == pytest.approx(b, rel=1e-12) if isinstance(a, float) else a == b


def test_split_budget_checks_weights():
    with pytest.raises(InvalidParameterError):
        split_budget(PureDP(epsilon=1.0), [])
    with pytest.raises(InvalidParameterError):
        split_budget(PureDP(epsilon=1.0), [1.0, 0.0])
