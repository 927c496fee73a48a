"""The declared output densities (privaudit.auditing.distinguish.densities).

Every audit here is seeded.  Where an assertion is statistical, its docstring or comment
states the error rate: for "a correct mechanism is not flagged" it is the family-wise
α of the call (the probability of a false violation is at most α whatever the seed);
for "a broken mechanism is flagged" it is the power at the stated sample size.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit.auditing.distinguish import declared_log_densities
from privaudit.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    declare_mechanism,
    smooth_median_mechanism,
)
from privaudit.spec import (
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
)


# ----------------------------------------------------------------------------------------
# declared densities
# ----------------------------------------------------------------------------------------
def test_laplace_and_gaussian_densities():
    lap = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    lp_x, lp_y = declared_log_densities(lap, 0.0, 1.0)
    o = np.array([-3.0, 0.0, 0.5, 1.0, 4.0])
    np.testing.assert_allclose(lp_x(o) - lp_y(o), np.abs(o - 1) - np.abs(o))
    gauss = GaussianMechanism(1.0, 1e-5, 1.0, output_dimension=2)
    gx, gy = declared_log_densities(gauss, [0.0, 0.0], [1.0, 0.0])
    sigma = gauss.noise_law.sigma
    pts = np.array([[0.3, -1.0], [2.0, 5.0]])
    want = (-(pts[:, 0] ** 2) + (pts[:, 0] - 1) ** 2) / (2 * sigma**2)
    np.testing.assert_allclose(gx(pts) - gy(pts), want, rtol=1e-12)


def test_randomized_response_and_argmax_densities():
    rr = RandomizedResponseMechanism(epsilon=1.0, categories=4)
    lx, _ = declared_log_densities(rr, 0, 1)
    o = np.array([0, 1, 2, 3, 7])
    np.testing.assert_allclose(np.exp(lx(o[:4])), rr.law.pmf_given(o[:4], 0))
    assert lx(o)[-1] == -np.inf  # not a category
    em = ExponentialMechanism(1.0, 1.0, 3)
    sx, _ = declared_log_densities(em, [0.0, 1.0, 2.0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(np.exp(sx(np.arange(3))), em.probabilities([0.0, 1.0, 2.0]))
    assert declared_log_densities(ReportNoisyMax(1.0, 1.0, 3), [0.0] * 3, [1.0] * 3) is None


def test_smooth_sensitivity_density_and_missing_information():
    med = smooth_median_mechanism(5, 0.0, 1.0, epsilon=1.0, delta=1e-6)
    x = [0.1, 0.2, 0.5, 0.6, 0.9]
    lx, _ = declared_log_densities(med, x, [0.1, 0.2, 0.6, 0.6, 0.9])
    s = med.smooth_sensitivity(x) / med.alpha
    assert float(lx(np.array([0.5]))[0]) == pytest.approx(math.log(0.5 / s))
    lap = LaplaceMechanism(1.0, 1.0)
    blind = declare_mechanism(lap.spec, sampler=lambda v, n, rng: v + rng.laplace(0, 1, n))
    assert declared_log_densities(blind, 0.0, 1.0) is None  # no statistic hook
    spec = MechanismSpec(
        name="none",
        input_domain=RealInterval(),
        relation=QueryDistance(norm="l1", radius=1.0),
        guarantee=PureDP(epsilon=1.0),
    )
    assert (
        declared_log_densities(
            declare_mechanism(spec, sampler=None, statistic=lambda v: v), 0.0, 1.0
        )
        is None
    )
