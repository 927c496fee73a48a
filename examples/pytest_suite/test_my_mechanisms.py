"""A test suite of several mechanisms under the privaudit pytest plugin.

Copy this file into your project's tests.  With privaudit installed the plugin is active
(it registers through the ``pytest11`` entry point); run::

    pytest examples/pytest_suite -v                       # every audit, at CI strength
    pytest examples/pytest_suite -m privacy               # just the audits
    pytest examples/pytest_suite --privaudit-seed 1234    # reproduce a reported failure

Each ``privacy_audit(...)`` runs :func:`privaudit.audit` at ``CI_STRENGTH`` (5·10⁴ outputs
per side, 95 % confidence) with a seed derived from the test's id, so every run draws
the same samples.  A violation that the audit finds with statistical checks only is then
*confirmed* on an independent random stream with 4× the samples at level 0.01/50 before
the test fails, so that a suite of up to 50 correct mechanisms fails with probability at
most 1 % (``--privaudit-session-alpha``, ``--privaudit-suite-size``; ``docs/ci_false_alarms.md``).
The failure message shows both stages, the violated checks with their counterexamples,
and the seed that reproduces them.

The mechanisms: a noisy mean declared in a few lines, the library's monotone exponential
mechanism (audited under the monotone relation its spec declares), report-noisy-max and
k-ary randomized response — and one deliberately broken mechanism that the suite
expects the audit to catch.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.mechanisms import (
    ExponentialMechanism,
    RandomizedResponseMechanism,
    ReportNoisyMax,
    declare_mechanism,
)
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)

N, EPSILON = 100, 1.0


def noisy_mean(noise_scale: float):
    """The mean of N records in [0, 1] with Laplace noise; the spec claims ε = 1."""
    spec = MechanismSpec(
        name="noisy_mean",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(),
        statistic="mean of the records",
        sensitivity=(GlobalSensitivity(value=1.0 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1.0 / (N * EPSILON))),
        guarantee=PureDP(epsilon=EPSILON),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: x.mean() + rng.laplace(0.0, noise_scale, size),
        statistic=lambda x: x.mean(),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: noisy_mean(1.0 / (N * EPSILON)),
        lambda: ExponentialMechanism(EPSILON, 1.0, 4, monotone=True),
        lambda: ReportNoisyMax(EPSILON, 1.0, 4, noise="exponential"),
        lambda: RandomizedResponseMechanism(EPSILON, 3),
    ],
    ids=["noisy_mean", "monotone_exponential", "permute_and_flip", "randomized_response"],
)
def test_mechanism_keeps_its_claim(make, privacy_audit):
    privacy_audit(make()).assert_no_violation()


def test_half_the_noise_is_caught(privacy_audit):
    """The code draws half the noise its spec declares: the audit must refute the claim."""
    broken = noisy_mean(0.5 / (N * EPSILON))
    outcome = privacy_audit(broken, pairs=[(np.zeros(N), np.r_[1.0, np.zeros(N - 1)])])
    outcome.assert_violation()
