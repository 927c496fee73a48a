"""Float-safe mechanisms and lattice laws.

Exact rounding, lattice outputs, the spec's accounting.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.mechanisms import FloatSafeGaussianMechanism, FloatSafeLaplaceMechanism
from privaudit.mechanisms.float_safe import lattice_sensitivity, round_to_lattice
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    LatticeGaussian,
    LatticeLaplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
)
from privaudit.spec.errors import InconsistentSpecError, InvalidInputError, InvalidParameterError


def test_round_half_up_is_exact_and_shift_equivariant():
    g = 2.0**-3
    v = np.array([0.0, 0.0625, 0.0624999, -0.0625, 1.1875, -1.1875, 2.0**40 + 0.0625])
    idx = round_to_lattice(v, g)
    np.testing.assert_array_equal(idx, [0, 1, 0, 0, 10, -9, 2**43 + 1])
    gen = np.random.default_rng(0)
    y = gen.integers(-(2**30), 2**30, 10_000) * 2.0**-20  # y + m·g is exact
    for m in (1, 7, 1024):  # r(v + m·g) = r(v) + m exactly
        np.testing.assert_array_equal(
            round_to_lattice(y + m * g, g) - round_to_lattice(y, g), np.full(y.size, m)
        )
    with pytest.raises(InvalidInputError, match="2\\*\\*52"):
        round_to_lattice(2.0**60, g)
    with pytest.raises(InvalidInputError):
        round_to_lattice(np.nan, g)


@pytest.mark.parametrize("delta_f, g", [(1.0, 2.0**-10), (0.3, 2.0**-4), (3.0, 1.0), (0.01, 0.5)])
def test_rounded_statistic_sensitivity_bound(delta_f, g):
    """|r(a) − r(b)| ≤ ⌈Δ/g⌉·g for |a − b| ≤ Δ: seeded pairs, including pairs at distance
    exactly Δ straddling rounding boundaries."""
    m = lattice_sensitivity(delta_f, g)
    assert m == max(1, math.ceil(delta_f / g))
    gen = np.random.default_rng(1)
    a = np.concatenate(
        [
            gen.uniform(-50, 50, 20_000),
            (np.arange(-200, 200) + 0.5) * g,  # exact half-points
            (np.arange(-200, 200) + 0.5) * g - delta_f,
        ]
    )
    b = np.concatenate([a[:20_000] + gen.uniform(-delta_f, delta_f, 20_000), a[20_000:] + delta_f])
    b = np.where(np.abs(b - a) <= delta_f, b, a)  # keep float-rounded pairs neighbours
    gap = np.abs(round_to_lattice(a, g) - round_to_lattice(b, g))
    assert gap.max() <= m


def test_granularity_must_be_a_power_of_two():
    with pytest.raises(InvalidParameterError, match="power of two"):
        LatticeLaplace(scale=1.0, granularity=0.3)
    with pytest.raises(InvalidParameterError, match="power of two"):
        FloatSafeLaplaceMechanism(1.0, 1.0, granularity=2.0**-70)


def test_spec_refuses_a_sensitivity_off_the_lattice_and_an_underscaled_law():
    g = 2.0**-4
    base = {
        "name": "x",
        "input_domain": RealInterval(),
        "relation": QueryDistance(norm="l1", radius=1.0),
        "guarantee": PureDP(epsilon=1.0),
        "numerics": "exact",
    }
    with pytest.raises(InconsistentSpecError, match="multiple of the granularity"):
        MechanismSpec(
            **base,
            sensitivity=(GlobalSensitivity(value=1.01, norm="l1"),),
            noise=AdditiveNoise(law=LatticeLaplace(scale=2.0, granularity=g)),
        )
    with pytest.raises(InconsistentSpecError, match="epsilon"):
        MechanismSpec(
            **base,
            sensitivity=(GlobalSensitivity(value=1.0625, norm="l1"),),
            noise=AdditiveNoise(law=LatticeLaplace(scale=1.0, granularity=g)),
        )
    ok = MechanismSpec(
        **base,
        sensitivity=(GlobalSensitivity(value=1.0625, norm="l1"),),
        noise=AdditiveNoise(law=LatticeLaplace(scale=1.0625, granularity=g)),
    )
    assert ok.numerics == "exact"


def test_float_safe_mechanisms_release_lattice_points_from_the_exact_sampler():
    for mech in (
        FloatSafeLaplaceMechanism(0.5, 0.3, granularity=2.0**-6),
        FloatSafeGaussianMechanism(1.0, 1e-6, 2.0),
    ):
        g = mech.granularity
        out = mech.sample(0.123456, 50_000, rng=3)
        assert out.dtype == np.float64
        assert np.all(out / g == np.round(out / g))
        assert mech.statistic(0.123456) == round_to_lattice(0.123456, g) * g
        np.testing.assert_array_equal(out, mech.sample(0.123456, 50_000, rng=3))
        assert mech.spec.numerics == "exact"
        m = lattice_sensitivity(mech.spec.relation.radius, g)
        assert mech.spec.global_sensitivity.value == m * g
        # residuals follow the declared lattice law: mean ≈ 0, variance within 3 %
        z = out - mech.statistic(0.123456)
        assert abs(z.var() / mech.noise_law.variance - 1.0) < 0.03


def test_lattice_law_formulas_are_the_unit_law_at_x_over_g():
    law = LatticeGaussian(sigma=1.5, granularity=0.25)
    unit = law.unit_law
    assert unit.sigma == 6.0
    assert law.density(0.25) == unit.density(1.0) and law.density(0.3) == 0.0
    assert law.cdf(0.6) == unit.cdf(2.0) and law.sf(-0.5) == unit.sf(-2.0)
    assert law.ppf(0.9) == 0.25 * unit.ppf(0.9)
    assert law.privacy_profile(1.0, 0.5) == unit.privacy_profile(1.0, 2)
    with pytest.raises(InvalidParameterError, match="multiple"):
        law.privacy_profile(1.0, 0.3)
