"""Propose-test-release: the sampler's law, the claim, the analyst functions, bad inputs.

Error rates.  The law tests draw at fixed seeds and use exact binomial tests at level
10⁻⁶ (a correct sampler fails with probability ≤ 10⁻⁶ per test; the outcome is fixed by
the seed).  The value test is a Kolmogorov–Smirnov test at level 10⁻⁶.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privaudit.estimators.stability import (
    ptr_iqr,
    ptr_iqr_mechanism,
    ptr_median,
    ptr_median_mechanism,
    ptr_threshold,
    release_probability,
)
from privaudit.estimators.stability.order_statistics import distance_to_instability
from privaudit.spec import ApproxDP
from privaudit.spec.errors import (
    DeltaRangeError,
    EpsilonRangeError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteInputError,
    SampleSizeError,
)

LEVEL = 1e-6
X41 = np.linspace(0.0, 1.0, 41)  # spacing 0.025: d = 12 at b = 0.3


def test_threshold_and_release_probability_closed_form():
    tau = ptr_threshold(1.0, 1e-3)
    assert tau == pytest.approx(2 * math.log(500))
    # at d = 0 the release probability is exactly delta: the proof's delta
    assert release_probability(0.0, 1.0, 1e-3) == pytest.approx(1e-3)
    assert release_probability(math.inf, 1.0, 1e-3) == 1.0
    assert release_probability(tau + 1, 1.0, 1e-3) == pytest.approx(1 - 0.5 * math.exp(-0.5))


@pytest.mark.parametrize(("kind", "bound"), [("median", 0.3), ("iqr", 0.3), ("median", 0.1)])
def test_refusal_probability_matches_closed_form(kind, bound):
    make = ptr_median_mechanism if kind == "median" else ptr_iqr_mechanism
    mech = make(41, 0.0, 1.0, 1.0, 1e-3, bound)
    out = mech.sample(X41, size=200_000, rng=11)
    assert out.shape == (200_000, 2)
    r = 21 if kind == "median" else None
    d = (
        distance_to_instability(X41, r, 0.0, 1.0, bound)
        if r
        else min(distance_to_instability(X41, q, 0.0, 1.0, bound) for q in (11, 31))
    )
    p = release_probability(d, 1.0, 1e-3)
    released = int(out[:, 0].sum())
    assert stats.binomtest(released, out.shape[0], p).pvalue > LEVEL
    assert np.all(out[out[:, 0] == 0, 1] == 0.0)


def test_released_values_follow_laplace_around_the_median():
    mech = ptr_median_mechanism(41, 0.0, 1.0, 1.0, 1e-3, 0.3)
    out = mech.sample(X41, size=100_000, rng=12)
    values = out[out[:, 0] == 1, 1]
    assert stats.kstest(values, stats.laplace(loc=0.5, scale=0.3 / 0.5).cdf).pvalue > LEVEL


def test_spec_claims_total_epsilon_delta():
    mech = ptr_median_mechanism(11, 0.0, 1.0, 1.0, 1e-6, 0.05)
    assert mech.spec.guarantee == ApproxDP(epsilon=1.0, delta=1e-6)
    assert mech.spec.output_dimension == 2
    assert mech.statistic(np.arange(11) / 10) == pytest.approx(0.5)
    assert mech.local_sensitivity_bound(np.arange(11) / 10) == pytest.approx(0.1)


def test_analyst_functions_report_refusal():
    refused = ptr_median([0.0] * 5 + [1.0] * 6, 0.0, 1.0, 1.0, 1e-6, proposed_bound=0.05, rng=0)
    assert not refused.released and refused.estimate is None
    good = ptr_iqr(np.linspace(0, 1, 401), 0.0, 1.0, 1.0, 1e-6, proposed_bound=0.1, rng=0)
    assert good.released and abs(good.estimate - 0.5) < 2.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(x=[0.1, 0.2]), SampleSizeError),
        (dict(x=[0.1, float("nan"), 0.3]), NonFiniteInputError),
        (dict(x=[0.1, 0.2, 3.0]), InvalidInputError),
        (dict(x=[]), InvalidInputError),
        (dict(epsilon=0.0), EpsilonRangeError),
        (dict(delta=0.6), DeltaRangeError),
        (dict(delta=0.0), DeltaRangeError),
        (dict(proposed_bound=-1.0), InvalidParameterError),
        (dict(lo=1.0, hi=0.0), InvalidParameterError),
    ],
)
def test_bad_inputs(kwargs, error):
    args = dict(x=[0.1, 0.2, 0.3], lo=0.0, hi=1.0, epsilon=1.0, delta=1e-6, proposed_bound=0.1)
    args.update(kwargs)
    x = args.pop("x")
    with pytest.raises(error):
        ptr_median(
            x,
            args["lo"],
            args["hi"],
            args["epsilon"],
            args["delta"],
            proposed_bound=args["proposed_bound"],
            rng=0,
        )
