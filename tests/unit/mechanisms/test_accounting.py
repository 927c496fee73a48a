"""Accounting: privacy curves, accountants, optimal composition, amplification, calibration.

Exact references: the noise laws' own exact profiles (``spec.noise``), the exact GDP
profile, and the optimal composition evaluated with mpmath at 60 digits.  Every
accountant answer must be an upper bound on the exact value ("never below"), and where
both are exact the ratio must be 1 within 1e-4.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from privaudit.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    advanced_composition,
    analytic_gaussian_sigma,
)
from privaudit.mechanisms.accounting import (
    BasicAccountant,
    GDPAccountant,
    PLDAccountant,
    RDPAccountant,
    ZCDPAccountant,
    gaussian_sigma_for_composition,
    laplace_scale_for_composition,
    make_accountant,
    optimal_composition,
    poisson_subsample,
    privacy_curves,
    randomized_response_rdp,
    subsample_without_replacement,
)
from privaudit.mechanisms.accounting.calibration import _laplace_spec
from privaudit.spec import (
    AdditiveNoise,
    AddRemoveOne,
    ApproxDP,
    DatasetDomain,
    Gaussian,
    GaussianDP,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    RenyiDP,
    SubstituteOne,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

EPS_GRID = (0.0, 0.25, 0.6, 0.95)


def _exact_profile(mech):
    law = mech.spec.noise.law
    if hasattr(law, "privacy_profile") and mech.spec.global_sensitivity is not None:
        return lambda e: law.privacy_profile(e, mech.spec.global_sensitivity.value)
    return law.privacy_profile


@pytest.mark.parametrize(
    "mech",
    [
        LaplaceMechanism(1.0, 1.0),
        GaussianMechanism(1.0, 1e-5, 1.0),
        DiscreteLaplaceMechanism(1.0, 1),
        DiscreteGaussianMechanism(1.0, 1e-5, 1),
        RandomizedResponseMechanism(1.0, 4),
    ],
    ids=lambda m: m.name,
)
def test_single_release_pld_matches_the_exact_profile_and_is_never_below(mech):
    acc = PLDAccountant().compose(mech)
    exact = _exact_profile(mech)
    for eps in EPS_GRID:
        got, want = acc.delta(eps), exact(eps)
        assert got >= want - 1e-12, (eps, got, want)
        assert got <= want + 2e-4 * max(want, 1e-3), (eps, got, want)


def test_gaussian_composition_is_exact_through_gdp():
    spec = GaussianMechanism(1.0, 1e-5, 1.0).spec
    sigma = spec.noise.law.sigma
    for k in (1, 10, 100):
        exact = GaussianDP(mu=math.sqrt(k) / sigma).epsilon_for_delta(1e-6)
        pld = PLDAccountant().compose(spec, k).epsilon(1e-6)
        gdp = GDPAccountant().compose(spec, k).epsilon(1e-6)
        assert gdp == pytest.approx(exact, rel=1e-12)
        assert exact * (1 - 1e-12) <= pld <= exact * (1 + 1e-4)
        for looser in (RDPAccountant(), ZCDPAccountant()):
            assert looser.compose(spec, k).epsilon(1e-6) >= exact


def _kov_mpmath(eps0: float, delta0: float, k: int, eps: float) -> float:
    mp.mp.dps = 60
    e0, total = mp.mpf(eps0), mp.mpf(0)
    for i in range(k + 1):
        v = mp.e ** ((k - i) * e0) - mp.e ** (eps + i * e0)
        if v > 0:
            total += mp.binomial(k, i) * v
    total /= (1 + mp.e**e0) ** k
    return float(1 - (1 - mp.mpf(delta0)) ** k * (1 - total))


@pytest.mark.parametrize("eps0, delta0, k", [(0.1, 0.0, 100), (0.5, 1e-7, 40), (1.0, 0.0, 7)])
def test_optimal_composition_matches_kov_in_60_digits(eps0, delta0, k):
    opt = optimal_composition(ApproxDP(epsilon=eps0, delta=delta0), k)
    for eps in (0.0, 0.3 * k * eps0, 0.6 * k * eps0, (k - 2) * eps0):
        want = _kov_mpmath(eps0, delta0, k, eps)
        assert opt.delta_for_epsilon(eps) == pytest.approx(want, rel=1e-9, abs=1e-300)
    eps = opt.epsilon_for_delta(1e-5)
    assert opt.delta_for_epsilon(eps) <= 1e-5
    assert _kov_mpmath(eps0, delta0, k, eps * (1 - 1e-9)) > 1e-5  # the smallest such ε


def test_optimal_composition_is_stable_for_large_k():
    opt = optimal_composition(PureDP(epsilon=0.01), 100_000)
    eps = opt.epsilon_for_delta(1e-6)
    assert math.isfinite(eps) and eps < 100_000 * 0.01
    assert opt.delta_for_epsilon(0.0) < 1.0


def test_pld_of_pure_releases_is_within_1_percent_of_optimal_and_never_below():
    for eps0, k in ((0.1, 100), (0.5, 100), (1.0, 20)):
        opt = optimal_composition(PureDP(epsilon=eps0), k).epsilon_for_delta(1e-5)
        pld = PLDAccountant().compose(PureDP(epsilon=eps0), k).epsilon(1e-5)
        assert opt * (1 - 1e-12) <= pld <= 1.01 * opt
    basic = 100 * 0.1
    adv = advanced_composition(PureDP(epsilon=0.1), 100, 1e-5).epsilon
    opt = optimal_composition(PureDP(epsilon=0.1), 100).epsilon_for_delta(1e-5)
    assert basic / opt > 2.3 and adv / opt > 1.3  # today's loose rules, for contrast


def test_accountants_answer_consistently():
    mix = [
        LaplaceMechanism(0.3, 1.0).spec,
        GaussianMechanism(0.5, 1e-6, 1.0).spec,
        ExponentialMechanism(0.4, 1.0, 5).spec,
    ]
    for acc in (PLDAccountant(), RDPAccountant(), ZCDPAccountant()):
        full = acc.compose_all(mix)
        eps = full.epsilon(1e-5)
        assert full.delta(eps) <= 1e-5 * (1 + 1e-6)
        assert full.releases == 3
    pld = PLDAccountant().compose_all(mix).epsilon(1e-5)
    rdp = RDPAccountant().compose_all(mix).epsilon(1e-5)
    assert pld <= rdp
    assert PLDAccountant().epsilon(1e-5) == 0.0 and PLDAccountant().delta(0.0) == 0.0


def test_curves_of_each_kind_of_spec():
    rr = privacy_curves(RandomizedResponseMechanism(1.0, 2))
    binary = randomized_response_rdp(1.0)
    for a in (1.5, 2.0, 10.0):
        # the keep probability is on the stable grid, rounded down: a little more private
        assert binary(a) * (1 - 2e-5) <= rr.rdp(a) <= binary(a)
        assert binary(a) <= 1.0
    em = privacy_curves(ExponentialMechanism(1.0, 1.0, 5))
    assert em.rho == pytest.approx(1.0 / 8.0)
    assert privacy_curves(ReportNoisyMax(1.0, 1.0, 5, noise="laplace")).rho == pytest.approx(0.5)
    declared = privacy_curves(ApproxDP(epsilon=1.0, delta=1e-6))
    assert declared.approx == (1.0, 1e-6) and declared.rdp is None
    assert privacy_curves(ZeroConcentratedDP(rho=0.5)).pld is None
    renyi = privacy_curves(RenyiDP(alpha=4.0, epsilon=0.5))
    assert renyi.rdp(2.0) == 0.5 and renyi.rdp(8.0) == math.inf


def test_mixed_declared_claims_compose_by_splitting_delta():
    acc = PLDAccountant().compose(ZeroConcentratedDP(rho=0.05)).compose(PureDP(epsilon=0.5))
    eps = acc.epsilon(1e-6)
    zc = ZeroConcentratedDP(rho=0.05).epsilon_for_delta(1e-6)
    assert eps <= (zc + 0.5) * (1 + 2e-6)  # never worse than spending all of δ on the zCDP part
    assert eps >= 0.5
    approx = RDPAccountant().compose(ApproxDP(epsilon=0.2, delta=1e-7), 3)
    assert approx.epsilon(1e-7) == math.inf and approx.epsilon(1e-6) == pytest.approx(0.6)


def test_accountants_refuse_what_they_cannot_express():
    with pytest.raises(UnsupportedCombinationError, match="GDP"):
        GDPAccountant().compose(LaplaceMechanism(1.0, 1.0))
    with pytest.raises(UnsupportedCombinationError, match="zCDP"):
        ZCDPAccountant().compose(RenyiDP(alpha=2.0, epsilon=0.1))
    with pytest.raises(UnsupportedCombinationError, match="basic"):
        BasicAccountant().compose(GaussianMechanism(1.0, 1e-5, 1.0))
    with pytest.raises(InvalidParameterError, match="count"):
        PLDAccountant().compose(PureDP(epsilon=1.0), 0)
    with pytest.raises(InvalidParameterError, match="unknown accountant"):
        make_accountant("moments")
    with pytest.raises(InvalidParameterError, match="orders"):
        RDPAccountant(orders=[0.5])
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PLDAccountant().compose(PureDP(epsilon=1.0)).delta(-1.0)
    with pytest.raises(InvalidParameterError, match="cannot account"):
        privacy_curves("laplace")


def _spec(relation, size=None, scale=1.0):
    return MechanismSpec(
        name="base",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=size),
        relation=relation,
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=1.0 / scale),
    )


def test_amplification_under_the_matching_relations_only():
    eps = 1.0
    wor = subsample_without_replacement(_spec(SubstituteOne(), size=10), 100)
    assert privacy_curves(wor).pure_epsilon == pytest.approx(math.log1p(0.1 * math.expm1(eps)))
    poisson = poisson_subsample(_spec(AddRemoveOne()), 0.1)
    amplified = PLDAccountant().compose(poisson).epsilon(0.0)
    assert amplified <= math.log1p(0.1 * math.expm1(eps)) * (1 + 1e-3)
    assert privacy_curves(poisson_subsample(_spec(AddRemoveOne()), 1.0)).pure_epsilon == 1.0
    with pytest.raises(UnsupportedCombinationError, match="add/remove"):
        poisson_subsample(_spec(SubstituteOne(), size=10), 0.1)
    with pytest.raises(UnsupportedCombinationError, match="substitute-one"):
        subsample_without_replacement(_spec(AddRemoveOne()), 100)
    with pytest.raises(InvalidParameterError, match="population_size"):
        subsample_without_replacement(_spec(SubstituteOne(), size=10), 5)


def test_subsampled_gaussian_matches_dp_accounting():
    import dp_accounting as dpa

    base = MechanismSpec(
        name="g",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0)),
        relation=AddRemoveOne(),
        sensitivity=(GlobalSensitivity(value=1.0, norm="l2"),),
        noise=AdditiveNoise(law=Gaussian(sigma=1.0)),
        guarantee=GaussianDP(mu=1.0),
    )
    spec = poisson_subsample(base, 0.01)
    ours = PLDAccountant().compose(spec, 200).epsilon(1e-5)
    acc = dpa.pld.PLDAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 200)
    assert ours == pytest.approx(acc.get_epsilon(1e-5), rel=1e-4)
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 200)
    assert RDPAccountant().compose(spec, 200).epsilon(1e-5) >= rdp.get_epsilon(1e-5) * (1 - 1e-9)


def test_gaussian_calibration_is_exact_and_safe():
    # both on the stable grid (rounded up): equal within one grid step, 1e-5 relative
    one = gaussian_sigma_for_composition(1, 1.0, 1e-5)
    assert one == pytest.approx(analytic_gaussian_sigma(1.0, 1e-5, 1.0), rel=1.1e-5)
    for k in (10, 100):
        sigma = gaussian_sigma_for_composition(k, 1.0, 1e-5, sensitivity=2.0)
        assert sigma == pytest.approx(2.0 * math.sqrt(k) * one, rel=2.2e-5)
        assert GaussianDP(mu=2.0 * math.sqrt(k) / sigma).delta_for_epsilon(1.0) <= 1e-5
    with pytest.raises(InvalidParameterError, match="delta"):
        gaussian_sigma_for_composition(3, 1.0, 0.0)


def test_laplace_calibration_is_private_and_tighter_than_basic():
    b = laplace_scale_for_composition(10, 1.0, 1e-5, rtol=1e-2)
    acc = PLDAccountant(value_discretization_interval=1e-3)
    assert acc.compose(_laplace_spec(b, 1.0), 10).epsilon(1e-5) <= 1.0
    assert acc.compose(_laplace_spec(b / 1.03, 1.0), 10).epsilon(1e-5) > 1.0
    assert b < 10.0
    assert laplace_scale_for_composition(10, 1.0, 0.0) == 10.0


def test_unproven_claims_are_not_accounted():
    from privaudit.estimators.ustatistics import private_mean_local_hajek_mechanism, variance_kernel

    mech = private_mean_local_hajek_mechanism(
        20, variance_kernel(0.0, 1.0), 1.0, xi=0.05, sensitivity_mode="paper"
    )
    with pytest.raises(UnsupportedCombinationError, match="unproven"):
        PLDAccountant().compose(mech)


def test_rdp_of_laplace_is_below_its_pure_bound():
    curves = privacy_curves(LaplaceMechanism(1.0, 1.0))
    for a in (1.5, 4.0, 64.0):
        assert curves.rdp(a) <= randomized_response_rdp(1.0)(a) + 1e-12 or curves.rdp(a) <= 1.0
    assert np.isfinite(RDPAccountant().compose(LaplaceMechanism(1.0, 1.0), 50).epsilon(1e-6))


def test_zcdp_accountant_agrees_with_opendp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    spec = GaussianMechanism(1.0, 1e-5, 1.0).spec
    sigma = spec.noise.law.sigma
    for k in (1, 10):
        comp = dp.c.make_composition([dp.m.make_gaussian(*space, scale=sigma)] * k)
        theirs = dp.c.make_zCDP_to_approxDP(comp).map(1.0).epsilon(1e-6)
        ours = ZCDPAccountant().compose(spec, k).epsilon(1e-6)
        assert ours == pytest.approx(theirs, rel=1e-4)


@pytest.mark.parametrize(
    "name",
    [
        "accountants",
        "amplification",
        "budget",
        "calibration",
        "composed",
        "curves",
        "optimal",
        "relations",
        "vocabulary",
    ],
)
def test_docstring_examples_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"privaudit.mechanisms.accounting.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
