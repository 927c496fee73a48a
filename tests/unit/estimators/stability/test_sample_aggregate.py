"""Sample-and-aggregate: block values, the claims, one record moves one block, bad inputs.

Error rates: the law test is a Kolmogorov–Smirnov test at level 10⁻⁶ at a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privaudit.estimators.stability import (
    block_values,
    sample_and_aggregate,
    sample_and_aggregate_mechanism,
)
from privaudit.spec import ApproxDP, PureDP
from privaudit.spec.errors import InvalidParameterError, OutputShapeError, SampleSizeError


def _mean(blocks):
    return blocks.mean(axis=1)


@pytest.mark.parametrize("seed", [None, 3])
def test_one_record_moves_one_block_value(seed):
    rng = np.random.default_rng(0)
    perm = None if seed is None else np.random.default_rng(seed).permutation(60)
    for _ in range(50):
        x = rng.uniform(0, 1, 60)
        y = x.copy()
        y[rng.integers(60)] = rng.uniform()
        changed = block_values(x, _mean, 6, 0.0, 1.0, perm) != block_values(
            y, _mean, 6, 0.0, 1.0, perm
        )
        assert changed.sum() <= 1


def test_laplace_mean_claim_and_law():
    mech = sample_and_aggregate_mechanism(40, _mean, 5, 0.0, 1.0, 2.0, record_bounds=(0.0, 1.0))
    assert mech.spec.guarantee == PureDP(epsilon=2.0)
    assert mech.spec.global_sensitivity.value == pytest.approx(0.2)
    x = np.linspace(0, 1, 40)
    out = mech.sample(x, size=50_000, rng=5)
    centre = float(np.mean(np.clip(_mean(x.reshape(5, -1)), 0, 1)))
    assert stats.kstest(out, stats.laplace(loc=centre, scale=0.1).cdf).pvalue > 1e-6


def test_smooth_median_claim():
    mech = sample_and_aggregate_mechanism(
        45, _mean, 5, 0.0, 1.0, 1.0, delta=1e-6, aggregator="smooth_median"
    )
    assert mech.spec.guarantee == ApproxDP(epsilon=1.0, delta=1e-6)
    assert mech.sample(np.linspace(0, 1, 45), size=7, rng=0).shape == (7,)


def test_analyst_function():
    r = sample_and_aggregate(np.linspace(0, 1, 1000), _mean, 10, 0.0, 1.0, 1.0, rng=1)
    assert r.blocks == 10 and abs(r.estimate - 0.5) < 1.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(k=7), SampleSizeError),
        (dict(lo=1.0, hi=0.0), InvalidParameterError),
        (dict(aggregator="mode"), InvalidParameterError),
        (dict(aggregator="smooth_median"), InvalidParameterError),  # no delta
        (dict(aggregator="smooth_median", delta=1e-6, k=4), SampleSizeError),
        (dict(delta=1e-6), InvalidParameterError),  # delta with the pure aggregator
        (dict(f=lambda b: b.mean()), OutputShapeError),
    ],
)
def test_bad_inputs(kwargs, error):
    args = dict(f=_mean, k=5, lo=0.0, hi=1.0, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(error):
        sample_and_aggregate(np.linspace(0, 1, 40), rng=0, **args)
