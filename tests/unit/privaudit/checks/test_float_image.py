"""The floating-point image check (Mironov's attack) on privaudit's own samplers."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import audit
from privaudit.auditing.checks import check_float_image, float_image_applies
from privaudit.auditing.checks.float_image import laplace_image_contains
from privaudit.auditing.pairs import verified_pair
from privaudit.mechanisms import (
    FloatSafeGaussianMechanism,
    FloatSafeLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    declare_mechanism,
)


@pytest.mark.parametrize("scale", [0.05, 1.0, 37.5])
@pytest.mark.parametrize("centre", [0.0, 0.3, -12.75, 1e6])
def test_model_reproduces_numpy_laplace_exactly(scale, centre):
    """Every float that fl(Generator.laplace(0, b) + c) draws is in the modelled image."""
    out = np.random.default_rng(7).laplace(0.0, scale, 3000) + centre
    possible, verified = laplace_image_contains(out, centre, scale)
    assert possible.all() and not verified.any()


def test_attack_finds_outputs_impossible_under_the_neighbour():
    out = np.random.default_rng(8).laplace(0.0, 1.0, 2000)  # M(0), b = 1 (ε = 1)
    possible, verified = laplace_image_contains(out, 1.0, 1.0)  # under M(1)?
    assert 0.5 < 1.0 - possible.mean() < 0.95  # ~ 80 % are witnesses
    assert verified.sum() == 200  # re-checked with math.log


def _pairs(mech, *xy):
    return [verified_pair(mech.spec, x, y, "explicit") for x, y in xy]


def test_idealized_laplace_leaks_reported_and_violated_when_strict():
    mech = LaplaceMechanism(1.0, 1.0)
    pairs = _pairs(mech, (0.0, 1.0))
    loose = check_float_image(mech, pairs, 0)
    assert loose.status == "skipped" and loose.details["leak_found"] is True
    strict = check_float_image(mech, pairs, 0, strict=True)
    assert strict.status == "violated" and strict.error_rate == 0.0
    witness = strict.counterexample.values["output"]
    assert not laplace_image_contains([witness], strict.counterexample.y, 1.0)[0][0]
    assert laplace_image_contains([witness], strict.counterexample.x, 1.0)[0][0]


@pytest.mark.parametrize(
    "mech",
    [FloatSafeLaplaceMechanism(1.0, 1.0), FloatSafeGaussianMechanism(0.5, 1e-6, 2.0)],
    ids=["laplace", "gaussian"],
)
def test_float_safe_mechanisms_pass_even_when_strict(mech):
    pairs = _pairs(mech, (0.0, 1.0), (0.1234, -0.8766))
    out = check_float_image(mech, pairs, 1, strict=True)
    assert out.status == "passed" and out.details["leak_found"] is False


def test_a_sampler_the_model_does_not_describe_is_skipped_not_blamed():
    mech0 = LaplaceMechanism(1.0, 1.0)
    # same law, other float sampler: b·S·E with E exponential (not Generator.laplace)
    other = declare_mechanism(
        mech0.spec,
        statistic=lambda x: x,
        sampler=lambda x, size, rng: x + rng.exponential(1.0, size) * rng.choice([-1.0, 1.0], size),
    )
    out = check_float_image(other, _pairs(other, (0.0, 1.0)), 2, strict=True)
    assert out.status == "skipped" and "model" in out.summary


def test_only_modelled_laws_apply_and_the_audit_integrates_the_check():
    assert not float_image_applies(GaussianMechanism(1.0, 1e-5, 1.0))
    assert float_image_applies(LaplaceMechanism(1.0, 1.0))
    report = audit(FloatSafeLaplaceMechanism(1.0, 1.0), samples=20_000, seed=3)
    names = {c.name: c.status for c in report.checks}
    assert names["floating_point.image"] == "passed" and report.verdict == "no_violation"
    leaky = audit(LaplaceMechanism(1.0, 1.0), samples=20_000, seed=3)
    fp = next(c for c in leaky.checks if c.name == "floating_point.image")
    assert fp.details["leak_found"] is True and leaky.verdict == "no_violation"
