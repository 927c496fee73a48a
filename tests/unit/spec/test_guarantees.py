"""Privacy guarantees: validation, JSON round-trip, hashing, profiles and conversions."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from scipy import integrate, stats

from privaudit.spec import (
    ApproxDP,
    GaussianDP,
    InvalidParameterError,
    PrivacyGuarantee,
    PureDP,
    RenyiDP,
    SpecError,
    ZeroConcentratedDP,
    pure_to_zcdp,
    zcdp_to_renyi,
)

GUARANTEES = [
    PureDP(epsilon=1.0),
    ApproxDP(epsilon=0.5, delta=1e-6),
    ApproxDP(epsilon=2.0, delta=0.0),
    RenyiDP(alpha=4.0, epsilon=0.3),
    ZeroConcentratedDP(rho=0.125),
    GaussianDP(mu=0.8),
]
ADAPTER = TypeAdapter(PrivacyGuarantee)
eps_st = st.floats(min_value=1e-3, max_value=20.0)
delta_st = st.floats(min_value=1e-12, max_value=0.5)


@pytest.mark.parametrize("g", GUARANTEES, ids=lambda g: g.kind)
def test_json_round_trip_and_union(g):
    assert type(g).from_json(g.to_json()) == g
    assert ADAPTER.validate_json(g.to_json()) == g


@pytest.mark.parametrize("g", GUARANTEES, ids=lambda g: g.kind)
def test_hash_is_stable_and_sensitive(g):
    same = type(g).from_json(g.to_json())
    assert same.content_hash == g.content_hash
    field = next(k for k in type(g).model_fields if k != "kind")
    changed = g.model_copy(update={field: getattr(g, field) * 1.5})
    changed = type(g).model_validate(changed.model_dump())
    assert changed.content_hash != g.content_hash


def test_hash_is_a_known_constant():
    # Guards against accidental changes of the canonical serialisation: if this fails,
    # every shipped certificate goes stale, so bump HASH_SCHEMA on purpose.
    assert PureDP(epsilon=1.0).canonical_json() == '{"epsilon":1.0,"kind":"pure_dp"}'


def test_models_are_frozen_and_forbid_extra():
    g = PureDP(epsilon=1.0)
    with pytest.raises(ValidationError, match="frozen"):
        g.epsilon = 2.0  # type: ignore[misc]  # frozen: the assignment must fail
    with pytest.raises(InvalidParameterError, match="Extra inputs"):
        PureDP(epsilon=1.0, delta=0.1)


@pytest.mark.parametrize(
    "build",
    [
        lambda: PureDP(epsilon=0.0),
        lambda: PureDP(epsilon=-1.0),
        lambda: PureDP(epsilon=math.nan),
        lambda: PureDP(epsilon=math.inf),
        lambda: PureDP(epsilon=True),
        lambda: PureDP(epsilon="1"),
        lambda: ApproxDP(epsilon=1.0, delta=1.0),
        lambda: ApproxDP(epsilon=1.0, delta=-1e-9),
        lambda: ApproxDP(epsilon=1.0, delta=math.nan),
        lambda: RenyiDP(alpha=1.0, epsilon=1.0),
        lambda: RenyiDP(alpha=0.5, epsilon=1.0),
        lambda: ZeroConcentratedDP(rho=0.0),
        lambda: GaussianDP(mu=-1.0),
    ],
)
def test_invalid_parameters_are_refused_with_the_value(build):
    with pytest.raises(InvalidParameterError) as info:
        build()
    assert isinstance(info.value, SpecError) and isinstance(info.value, ValueError)
    assert "must" in str(info.value)


def test_kind_mismatch_is_refused():
    with pytest.raises(InvalidParameterError):
        PureDP.model_validate({"kind": "approx_dp", "epsilon": 1.0})


@given(eps0=eps_st, eps=st.floats(min_value=0.0, max_value=25.0))
def test_pure_profile_is_randomized_response(eps0, eps):
    # RR with p = e^ε0/(1+e^ε0) is the worst ε0-DP mechanism (Kairouz et al. 2015).
    # the hockey-stick divergence of RR, summed over its two outputs in 50-digit arithmetic
    getcontext().prec = 50
    e0, e = Decimal(eps0).exp(), Decimal(eps).exp()
    p = e0 / (1 + e0)
    rr = max(Decimal(0), p - e * (1 - p)) + max(Decimal(0), (1 - p) - e * p)
    assert PureDP(epsilon=eps0).delta_for_epsilon(eps) == pytest.approx(
        float(rr), rel=1e-12, abs=1e-40
    )


@given(eps0=eps_st, d0=st.floats(min_value=0.0, max_value=0.5))
def test_approx_profile_endpoints(eps0, d0):
    g = ApproxDP(epsilon=eps0, delta=d0)
    assert g.delta_for_epsilon(eps0) == pytest.approx(d0)
    assert g.delta_for_epsilon(0.0) >= g.delta_for_epsilon(eps0 / 2) >= d0
    assert g.epsilon_for_delta(d0 / 2) == (math.inf if d0 > 0 else g.epsilon_for_delta(0.0))


@pytest.mark.parametrize("g", GUARANTEES, ids=lambda g: g.kind)
def test_profile_is_non_increasing(g):
    grid = np.linspace(0.0, 10.0, 201)
    prof = g.privacy_profile(grid)
    assert np.all(np.diff(prof) <= 1e-12)
    assert np.all((prof >= 0) & (prof <= 1))


@pytest.mark.parametrize("g", GUARANTEES, ids=lambda g: g.kind)
@pytest.mark.parametrize("delta", [1e-9, 1e-5, 1e-2])
def test_epsilon_for_delta_inverts_the_profile(g, delta):
    eps = g.epsilon_for_delta(delta)
    if math.isinf(eps):
        assert isinstance(g, ApproxDP) and g.delta > delta
        return
    assert g.delta_for_epsilon(eps) <= delta * (1 + 1e-6)
    if eps > 1e-6:  # and it is the smallest such ε (within the solvers' tolerance)
        assert g.delta_for_epsilon(eps * (1 - 1e-3) - 1e-9) > delta * (1 - 1e-6) or isinstance(
            g, (RenyiDP, ZeroConcentratedDP)
        )


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_gdp_profile_matches_numerical_hockey_stick(mu, eps):
    # E_{e^ε}(N(μ,1) ‖ N(0,1)) = ∫ (φ(x−μ) − e^ε φ(x))₊ dx.
    def f(x):
        return max(0.0, stats.norm.pdf(x - mu) - math.exp(eps) * stats.norm.pdf(x))

    expected, _ = integrate.quad(f, -30, 30, points=[eps / mu + mu / 2], limit=400)
    assert GaussianDP(mu=mu).delta_for_epsilon(eps) == pytest.approx(expected, rel=1e-7, abs=1e-13)


@given(rho=st.floats(min_value=1e-3, max_value=5.0), delta=delta_st)
def test_zcdp_conversion_is_at_least_as_good_as_the_simple_bound(rho, delta):
    eps = ZeroConcentratedDP(rho=rho).epsilon_for_delta(delta)
    assert eps <= rho + 2 * math.sqrt(rho * math.log(1 / delta)) + 1e-9


@given(mu=st.floats(min_value=0.05, max_value=5.0), eps=st.floats(min_value=0.0, max_value=10.0))
def test_zcdp_of_a_gaussian_upper_bounds_its_exact_profile(mu, eps):
    # μ-GDP ⇒ μ²/2-zCDP; the zCDP conversion must never be tighter than the exact profile.
    exact = GaussianDP(mu=mu).delta_for_epsilon(eps)
    assert ZeroConcentratedDP(rho=mu**2 / 2).delta_for_epsilon(eps) >= exact - 1e-12


@given(
    alpha=st.floats(min_value=1.01, max_value=64.0),
    ea=st.floats(min_value=1e-3, max_value=5.0),
    eps=st.floats(min_value=0.0, max_value=20.0),
)
def test_rdp_conversion_is_at_least_as_good_as_mironov(alpha, ea, eps):
    mironov = min(1.0, math.exp((alpha - 1) * (ea - eps)))
    assert RenyiDP(alpha=alpha, epsilon=ea).delta_for_epsilon(eps) <= mironov + 1e-15


def test_named_conversions():
    assert pure_to_zcdp(PureDP(epsilon=0.5)) == ZeroConcentratedDP(rho=0.125)
    assert zcdp_to_renyi(ZeroConcentratedDP(rho=0.1), 3.0) == RenyiDP(
        alpha=3.0, epsilon=0.30000000000000004
    )
    assert GaussianDP(mu=1.0).to_zcdp() == ZeroConcentratedDP(rho=0.5)
    converted = ZeroConcentratedDP(rho=0.5).to_approx_dp(1e-5)
    assert isinstance(converted, ApproxDP) and converted.delta == 1e-5
    with pytest.raises(InvalidParameterError):
        ApproxDP(epsilon=1.0, delta=0.1).to_approx_dp(0.01)


@pytest.mark.parametrize("bad", [-0.1, math.nan, True])
def test_profile_arguments_are_checked(bad):
    with pytest.raises(InvalidParameterError):
        PureDP(epsilon=1.0).delta_for_epsilon(bad)
