"""Computed claims are on the stable grid, still hold, and do not move with the last bits.

Every value a numerical routine puts into a spec is rounded outward to the grid of
``spec.stable_values`` (docs/derivations.md §10).  These tests check that each
rounded claim still holds with the routine that produced it, and that perturbing the last
bits of every such routine (its output times 1 ± 1e-13, as another CPU, BLAS or libm may
give) changes no spec hash of the built-in registry.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from privaudit.estimators.local_ustatistics import all_pairs_epsilon0
from privaudit.mechanisms import (
    DiscreteGaussianMechanism,
    GaussianMechanism,
    RandomizedResponseMechanism,
    advanced_composition,
    smooth_median_mechanism,
)
from privaudit.mechanisms.accounting import (
    gaussian_sigma_for_composition,
    laplace_scale_for_composition,
    optimal_composition,
)
from privaudit.mechanisms.calibration import (
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    discrete_gaussian_sigma,
)
from privaudit.mechanisms.dpsgd import partition_epsilon, partition_mu, poisson_epsilon
from privaudit.spec import GaussianDP, PureDP, ZeroConcentratedDP
from privaudit.spec.noise import DiscreteGaussian, Gaussian
from privaudit.spec.stable_values import is_stable
from privaudit.trust import builtin_registry
from privaudit.trust import registry as reg

#: The relative size of the last-bit perturbations (a few hundred ulp).
_WOBBLE = 1e-13


# ----------------------------------------------------------------------------------------
# the rounded claims still hold
# ----------------------------------------------------------------------------------------
def _pld_delta(sigma: float, q: float, steps: int, epsilon: float) -> float:
    """δ(ε) of the Poisson-subsampled Gaussian by dp_accounting's PLD (as poisson_epsilon)."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    pld = pld_mod.from_gaussian_mechanism(
        sigma,
        sensitivity=1.0,
        sampling_prob=q,
        value_discretization_interval=1e-3,
        neighboring_relation=NeighboringRelation.REPLACE_ONE,
    ).self_compose(steps)
    return float(pld.get_delta_for_epsilon(epsilon))


@pytest.mark.parametrize(("sigma", "q", "steps"), [(4.0, 0.1, 10), (4.0, 0.2, 5), (1.0, 0.05, 20)])
def test_poisson_epsilon_is_on_the_grid_and_still_holds(sigma, q, steps):
    eps = poisson_epsilon(sigma, q, steps, 1e-5)
    assert is_stable(eps)
    assert _pld_delta(sigma, q, steps, eps) <= 1e-5


def test_partition_epsilon_is_on_the_grid_and_still_holds():
    eps = partition_epsilon(4.0, 1, 1e-5)
    assert is_stable(eps)
    assert GaussianDP(mu=partition_mu(4.0, 1)).delta_for_epsilon(eps) <= 1e-5
    # and it is the root rounded up: at most one grid step (relative 1e-5) above it
    exact = GaussianDP(mu=partition_mu(4.0, 1)).epsilon_for_delta(1e-5)
    assert exact < eps <= exact * (1 + 1.1e-5)


@pytest.mark.parametrize(
    ("eps", "delta", "sens"), [(1.0, 1e-5, 1.0), (0.3, 1e-8, 2.5), (4.0, 1e-3, 0.1)]
)
def test_calibrated_gaussian_sigmas_are_on_the_grid_and_meet_the_target(eps, delta, sens):
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    assert is_stable(sigma)
    assert Gaussian(sigma=sigma).privacy_profile(eps, sens) <= delta
    # within one grid step of the exact calibration: the profile is just above δ below it
    assert Gaussian(sigma=sigma * (1 - 2e-5)).privacy_profile(eps, sens) > delta
    if eps < 1:
        classical = classical_gaussian_sigma(eps, delta, sens)
        assert is_stable(classical)
        assert classical >= sens * math.sqrt(2 * math.log(1.25 / delta)) / eps
    sigma_k = gaussian_sigma_for_composition(3, eps, delta, sens)
    assert is_stable(sigma_k)
    assert GaussianDP(mu=math.sqrt(3) * sens / sigma_k).delta_for_epsilon(eps) <= delta


def test_discrete_gaussian_sigmas_are_on_the_grid_and_meet_the_target():
    sigma = discrete_gaussian_sigma(1.0, 1e-5, 1)
    assert is_stable(sigma)
    assert DiscreteGaussian(sigma=sigma).privacy_profile(1.0, 1) <= 1e-5
    vector = discrete_gaussian_sigma(1.0, 1e-5, 1, dimension=3)
    rho = 1.0 / (2 * vector**2)
    assert ZeroConcentratedDP(rho=rho).delta_for_epsilon(1.0) <= 1e-5


def test_laplace_scale_for_composition_is_on_the_grid():
    scale = laplace_scale_for_composition(4, 1.0, 1e-5)
    assert is_stable(scale)
    assert scale <= 4.0  # never worse than basic composition


def test_accountant_claims_are_on_the_grid_and_hold():
    composed = optimal_composition(PureDP(epsilon=0.1), 20)
    guarantee = composed.guarantee(1e-6)
    assert is_stable(guarantee.epsilon)
    assert composed.delta_for_epsilon(guarantee.epsilon) <= 1e-6
    advanced = advanced_composition(PureDP(epsilon=0.1), 100, 1e-6)
    assert is_stable(advanced.epsilon)
    exact = math.sqrt(200 * math.log(1e6)) * 0.1 + 10 * math.expm1(0.1)
    assert exact < advanced.epsilon <= exact * (1 + 1.1e-5)
    # a pure claim converted at δ stays at most its own ε
    assert PureDP(epsilon=1.0).to_approx_dp(0.0).epsilon == 1.0


def test_smaller_parameters_rounded_down_keep_their_claims():
    rr = RandomizedResponseMechanism(1.0, 4)
    law = rr.spec.noise.law
    assert is_stable(law.keep_probability)
    assert law.epsilon <= 1.0
    quartic = smooth_median_mechanism(101, 0.0, 1.0, 1.0)
    assert 3 * quartic.beta + 3**0.75 * quartic.alpha <= 1.0
    assert is_stable(quartic.beta) and is_stable(quartic.alpha)
    laplace = smooth_median_mechanism(101, 0.0, 1.0, 1.0, 1e-6, noise="laplace")
    assert laplace.beta <= 1.0 / (2 * math.log(2 / 1e-6))
    eps0 = all_pairs_epsilon0(6, 1.0, 1e-8)
    assert is_stable(eps0)
    assert advanced_composition(PureDP(epsilon=eps0), 5, 1e-8).epsilon <= 1.0


# ----------------------------------------------------------------------------------------
# perturbing the last bits changes no spec hash
# ----------------------------------------------------------------------------------------
def _scaled(fn: Callable[..., Any], factor: float) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if isinstance(out, tuple):  # brentq(..., full_output=True)
            return (out[0] * factor, *out[1:])
        if hasattr(out, "x") and hasattr(out, "fun"):  # minimize_scalar's result
            out.fun = out.fun * factor
            return out
        return out * factor

    return wrapper


def _pld_class() -> Any:
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    return pld_mod.PrivacyLossDistribution


_TWO_PARTY = "privaudit.estimators.local_ustatistics.two_party"

#: (label, object, attribute): every routine whose output can reach a spec.
_ROUTINES: list[tuple[str, Callable[[], Any], str]] = [
    ("math.exp", lambda: math, "exp"),
    ("math.log", lambda: math, "log"),
    ("math.expm1", lambda: math, "expm1"),
    ("math.log1p", lambda: math, "log1p"),
    ("math.cosh", lambda: math, "cosh"),
    ("math.lgamma", lambda: math, "lgamma"),
    ("scipy.special.gammaln", lambda: scipy.special, "gammaln"),
    ("numpy.exp", lambda: np, "exp"),
    ("numpy.log", lambda: np, "log"),
    ("scipy.special.log_ndtr", lambda: scipy.special, "log_ndtr"),
    ("scipy.special.ndtr", lambda: scipy.special, "ndtr"),
    ("scipy.special.logsumexp", lambda: scipy.special, "logsumexp"),
    ("scipy.optimize.brentq", lambda: scipy.optimize, "brentq"),
    ("scipy.optimize.minimize_scalar", lambda: scipy.optimize, "minimize_scalar"),
    ("two_party.brentq", lambda: sys.modules[_TWO_PARTY], "brentq"),
    ("PLD.get_epsilon_for_delta", _pld_class, "get_epsilon_for_delta"),
    ("PLD.get_delta_for_epsilon", _pld_class, "get_delta_for_epsilon"),
    ("cdf_factor", lambda: builtin_registry, "cdf_factor"),
]

#: Module constants computed once at import through libm's pow.
_CONSTANTS = [
    ("privaudit.mechanisms.smooth_sensitivity", "QUARTIC_CONSTANT"),
    ("privaudit.mechanisms.smooth_sensitivity", "_QUARTIC_LIPSCHITZ"),
    ("privaudit.spec.noise_application", "_QUARTIC_LIPSCHITZ"),
]


def _clear_caches() -> None:
    """Forget every memoised answer of privaudit's own functions (lru_cache)."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("privaudit") or module is None:
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", "") == name:
                clear()


def _registry_hashes() -> dict[str, str]:
    _clear_caches()
    return {entry.name: entry.create().spec.content_hash for entry in reg.entries()}


@pytest.fixture(scope="module")
def reference_hashes() -> dict[str, str]:
    return _registry_hashes()


def _builtin_names() -> Iterator[str]:
    return (e.name for e in reg.entries() if e.builtin)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["up", "down"])
@pytest.mark.parametrize("routine", _ROUTINES, ids=[r[0] for r in _ROUTINES])
def test_last_bits_of_a_routine_change_no_registry_spec_hash(
    routine, sign, reference_hashes, monkeypatch
):
    label, owner, attribute = routine
    target = owner()
    monkeypatch.setattr(target, attribute, _scaled(getattr(target, attribute), 1 + sign * _WOBBLE))
    try:
        found = _registry_hashes()
    finally:
        monkeypatch.undo()
        _clear_caches()
    changed = sorted(n for n in _builtin_names() if found[n] != reference_hashes[n])
    assert not changed, f"perturbing {label} by {sign * _WOBBLE:+g} changed the specs of {changed}"


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["up", "down"])
def test_last_bits_of_the_pow_constants_change_no_registry_spec_hash(
    sign, reference_hashes, monkeypatch
):
    for module, name in _CONSTANTS:
        value = getattr(sys.modules[module], name)
        monkeypatch.setattr(sys.modules[module], name, value * (1 + sign * _WOBBLE))
    try:
        found = _registry_hashes()
    finally:
        monkeypatch.undo()
        _clear_caches()
    changed = sorted(n for n in _builtin_names() if found[n] != reference_hashes[n])
    assert not changed, f"perturbing 3^(3/4) changed the specs of {changed}"


def test_the_perturbations_reach_the_routines(reference_hashes, monkeypatch):
    """The harness is live: a perturbation larger than the grid spacing changes hashes."""
    pld = _pld_class()
    monkeypatch.setattr(pld, "get_epsilon_for_delta", _scaled(pld.get_epsilon_for_delta, 1 + 1e-4))
    try:
        found = _registry_hashes()
    finally:
        monkeypatch.undo()
        _clear_caches()
    assert found["dpsgd.ablq.poisson"] != reference_hashes["dpsgd.ablq.poisson"]
    assert found["dpsgd.logistic.poisson"] != reference_hashes["dpsgd.logistic.poisson"]
    assert found["laplace"] == reference_hashes["laplace"]


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["up", "down"])
def test_last_bits_change_no_constructor_spec_hash(sign, monkeypatch):
    """Constructors outside the registry, at other parameters."""

    def build() -> list[str]:
        _clear_caches()
        mechs = [
            GaussianMechanism(0.5, 1e-6, 2.0),
            GaussianMechanism(0.5, 1e-6, 2.0, calibration="classical"),
            DiscreteGaussianMechanism(0.7, 1e-6, 3),
            DiscreteGaussianMechanism(0.7, 1e-6, 1, output_dimension=4),
            RandomizedResponseMechanism(0.3, 7),
            smooth_median_mechanism(51, -1.0, 1.0, 0.5, 1e-7, noise="laplace"),
            smooth_median_mechanism(51, -1.0, 1.0, 0.5),
        ]
        hashes = [m.spec.content_hash for m in mechs]
        hashes.append(repr(optimal_composition(PureDP(epsilon=0.2), 7).guarantee(1e-7)))
        hashes.append(repr(advanced_composition(PureDP(epsilon=0.05), 50, 1e-7)))
        hashes.append(repr(GaussianDP(mu=0.8).to_approx_dp(1e-6)))
        hashes.append(repr(ZeroConcentratedDP(rho=0.05).to_approx_dp(1e-6)))
        hashes.append(repr(laplace_scale_for_composition(3, 1.0, 1e-6)))
        hashes.append(repr(poisson_epsilon(2.0, 0.05, 30, 1e-6)))
        return hashes

    before = build()
    for _, owner, attribute in _ROUTINES:
        target = owner()
        monkeypatch.setattr(
            target, attribute, _scaled(getattr(target, attribute), 1 + sign * _WOBBLE)
        )
    try:
        after = build()
    finally:
        monkeypatch.undo()
        _clear_caches()
    assert after == before
