"""Monotone noisy argmax is audited under the monotone relation (issue 28).

``ExponentialMechanism(1.0, 1.0, 3, monotone=True)`` was accepted under the two-sided
query distance, where its audit found ε ≥ 1.79 > 1.  Now the relation carries the
direction: the mechanism passes its audit on one-directional pairs, every pair the
audit tested respects the direction, and a mechanism written here with half the declared
noise is still caught under the same relation.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import CI_STRENGTH, audit
from privaudit.mechanisms import ExponentialMechanism, ReportNoisyMax, declare_mechanism
from privaudit.spec import (
    GlobalSensitivity,
    Gumbel,
    MechanismSpec,
    NoisyArgmax,
    PureDP,
    QueryDistance,
    RealInterval,
    VectorDomain,
)
from privaudit.spec.errors import NonMonotoneRelationError


def _one_directional(x, y) -> bool:
    d = np.asarray(y, dtype=np.float64) - np.asarray(x, dtype=np.float64)
    return bool((d >= 0).all() or (d <= 0).all())


@pytest.mark.parametrize(
    "make",
    [
        lambda: ExponentialMechanism(1.0, 1.0, 3, monotone=True),
        lambda: ReportNoisyMax(1.0, 1.0, 3, monotone=True),
        lambda: ReportNoisyMax(1.0, 1.0, 4, noise="exponential", monotone=True),
    ],
    ids=["exponential", "rnm_laplace", "rnm_exponential"],
)
def test_monotone_selection_passes_under_the_monotone_relation(make):
    mechanism = make()
    assert mechanism.spec.relation.monotone
    report = audit(mechanism, config=CI_STRENGTH, seed=28)
    assert not report.violated, report.summary()
    assert report.epsilon_lower_bound <= 1.0
    worst = report.worst_pair
    assert worst is not None
    assert _one_directional(worst.x, worst.y), (worst.x, worst.y)
    assert mechanism.spec.relation.decide(worst.x, worst.y, mechanism.spec.input_domain)


def test_a_monotone_claim_cannot_be_declared_two_sided():
    with pytest.raises(NonMonotoneRelationError):
        MechanismSpec(
            name="em",
            input_domain=VectorDomain(element=RealInterval(), length=3),
            relation=QueryDistance(norm="linf", radius=1.0),
            sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
            noise=NoisyArgmax(law=Gumbel(scale=1.0), monotone=True),
            guarantee=PureDP(epsilon=1.0),
        )


def _gumbel_argmax(scale: float):
    def sampler(scores, size, rng):
        noisy = rng.gumbel(0.0, scale, size=(size, scores.shape[0])) + scores
        return np.argmax(noisy, axis=1)

    return sampler


def test_half_the_noise_is_caught_under_the_monotone_relation():
    """Declares the monotone exponential mechanism (Gumbel(Δ/ε)) but draws Gumbel(Δ/(2ε)):
    true ε = 2 on one-directional pairs (all but one score up by Δ)."""
    spec = MechanismSpec(
        name="half_noise_monotone_em",
        input_domain=VectorDomain(element=RealInterval(), length=3),
        relation=QueryDistance(norm="linf", radius=1.0, monotone=True),
        statistic="the score vector of 3 candidates",
        sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
        noise=NoisyArgmax(law=Gumbel(scale=1.0), monotone=True),
        guarantee=PureDP(epsilon=1.0),
    )
    broken = declare_mechanism(
        spec, sampler=_gumbel_argmax(0.5), statistic=lambda x: np.asarray(x, dtype=np.float64)
    )
    report = audit(broken, config=CI_STRENGTH, seed=28)
    assert report.violated, report.summary()
    assert report.epsilon_lower_bound > 1.0
    for check in report.violations:
        ce = check.counterexample
        if ce is not None and ce.x is not None and ce.y is not None:
            assert _one_directional(ce.x, ce.y), (ce.x, ce.y)
