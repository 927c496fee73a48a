"""Partition selection: exact δ formulas, the optimal π(n), the samplers' laws, bad inputs.

Sampler laws are checked by a two-sided exact binomial test at level 10⁻⁶ per count with
fixed seeds (false-failure rate ≤ 10⁻⁶ × the number of tests; deterministic given seeds).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from privaudit.mechanisms import (
    KeyedHistogramMechanism,
    laplace_threshold_delta,
    optimal_release_probabilities,
    optimal_release_probability,
)
from privaudit.mechanisms.partition_selection import (
    gaussian_threshold_delta,
    gaussian_threshold_for_delta,
    laplace_threshold_for_delta,
    thresholded_gaussian_profile,
    thresholded_laplace_profile,
)
from privaudit.spec import KeyedRelease
from privaudit.spec.errors import (
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
    OutOfDomainError,
)

GRID = [(1.0, 1e-5), (0.1, 1e-6), (2.0, 1e-3), (0.5, 0.2), (5.0, 1e-8), (math.log(3), 1e-5)]


@pytest.mark.parametrize(("eps", "delta"), GRID)
def test_recursion_matches_closed_form(eps, delta):
    rec = optimal_release_probabilities(3000, eps, delta)
    closed = optimal_release_probability(np.arange(3001), eps, delta)
    np.testing.assert_allclose(rec, closed, rtol=0, atol=1e-12)
    assert rec[0] == 0.0 and rec[1] == pytest.approx(delta) and rec[-1] == 1.0
    assert np.all(np.diff(rec) >= 0)


@pytest.mark.parametrize(("eps", "delta"), GRID)
def test_optimal_satisfies_both_constraints_tightly(eps, delta):
    pi = optimal_release_probabilities(3000, eps, delta)
    e = math.exp(eps)
    up = pi[1:] - e * pi[:-1]
    down = (1 - pi[:-1]) - e * (1 - pi[1:])
    slack = 1e-14 * e  # round-off of evaluating (1 - pi) - e^eps (1 - pi')
    assert max(up.max(), down.max()) <= delta * (1 + 1e-9) + slack
    assert max(up.max(), down.max()) >= delta * (1 - 1e-9) - slack  # some constraint binds
    mech = KeyedHistogramMechanism(2, eps, delta, method="optimal") if delta < 0.5 else None
    if mech is not None:
        assert mech.privacy_profile(eps) <= delta  # the margin covers the round-off


@pytest.mark.parametrize(("eps", "delta"), GRID[:4])
def test_optimal_dominates_laplace(eps, delta):
    if delta >= 0.5:
        pytest.skip("no Laplace threshold")
    lap = KeyedHistogramMechanism(3, eps, delta, method="laplace")
    opt = KeyedHistogramMechanism(3, eps, delta, method="optimal")
    n = np.arange(0, 400)
    # up to the relative 1e-5 the optimal rule gives up against round-off
    assert np.all(opt.release_probability(n) >= lap.release_probability(n) * (1 - 2e-5))


def test_laplace_delta_formula_and_inverse():
    assert laplace_threshold_delta(1.0, 1.0) == 0.5
    assert laplace_threshold_delta(2.0, 3.0) == pytest.approx(0.5 * math.exp(-4.0))
    assert laplace_threshold_delta(1.0, 0.0) == pytest.approx(1 - 0.5 * math.exp(-1.0))
    tau = laplace_threshold_for_delta(0.7, 1e-6)
    assert tau == pytest.approx(1 + math.log(1 / 2e-6) / 0.7, rel=1e-5)
    assert laplace_threshold_delta(0.7, tau) <= 1e-6


def test_gaussian_delta_formula_and_inverse():
    tau = gaussian_threshold_for_delta(2.0, 1e-4)
    assert gaussian_threshold_delta(2.0, tau) <= 1e-4
    assert gaussian_threshold_delta(2.0, tau) == pytest.approx(1e-4, rel=1e-4)
    assert gaussian_threshold_delta(1.0, 1.0) == 0.5


def test_profiles_are_max_of_the_two_cases():
    lap = KeyedHistogramMechanism(2, 1.0, 1e-4, method="laplace")
    assert lap.privacy_profile(1.0) <= 1e-4
    assert lap.privacy_profile(0.5) == pytest.approx(1 - math.exp(-0.25))
    gau = KeyedHistogramMechanism(2, 1.0, 1e-4, method="gaussian")
    assert gau.privacy_profile(1.0) <= 1e-4
    assert thresholded_gaussian_profile(gau.noise_scale, gau.threshold, 1.0) <= 1e-4
    assert thresholded_laplace_profile(1.0, lap.threshold, 2.0) == pytest.approx(
        laplace_threshold_delta(1.0, lap.threshold)
    )
    opt = KeyedHistogramMechanism(2, 1.0, 1e-4, method="optimal")
    assert opt.privacy_profile(1.0) <= 1e-4


@pytest.mark.parametrize("method", ["laplace", "gaussian", "optimal"])
def test_sampler_release_law(method):
    mech = KeyedHistogramMechanism(4, 1.0, 0.05, method=method)
    data = np.array([1] * 1 + [2] * 3 + [3] * 6)  # counts 0, 1, 3, 6
    out = mech.sample(data, 200_000, rng=11)
    assert out.shape == (200_000, mech.keyed_release.output_dimension)
    hits = out[:, :4].sum(axis=0)
    expected = mech.release_probability(np.array([0, 1, 3, 6]))
    assert hits[0] == 0  # absent keys are never released
    for k in range(1, 4):
        p = stats.binomtest(int(hits[k]), 200_000, float(expected[k])).pvalue
        assert p > 1e-6, (k, hits[k], expected[k])
    if method != "optimal":
        vals = out[:, 4:]
        assert np.all(vals[out[:, :4] == 0] == 0.0)
        assert np.all(vals[out[:, :4] == 1] >= mech.threshold)


def test_gaussian_release_probability_is_normal_tail():
    mech = KeyedHistogramMechanism(2, 1.0, 1e-3, method="gaussian")
    got = mech.release_probability(np.array([5]))[0]
    assert got == pytest.approx(special.ndtr((5 - mech.threshold) / mech.noise_scale))


def test_seeded_sample_is_reproducible():
    mech = KeyedHistogramMechanism(3, 1.0, 1e-3)
    data = np.array([0] * 20 + [1])
    np.testing.assert_array_equal(mech.sample(data, 5, rng=3), mech.sample(data, 5, rng=3))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"universe_size": 0},
        {"universe_size": True},
        {"epsilon": 0.0},
        {"epsilon": float("nan")},
        {"delta": 0.0},
        {"delta": 0.5},
        {"delta": 1.5},
        {"method": "median"},
    ],
)
def test_bad_parameters(kwargs):
    args = {"universe_size": 3, "epsilon": 1.0, "delta": 1e-3} | kwargs
    method = args.pop("method", "laplace")
    with pytest.raises(InvalidParameterError, match="must|expected|got"):
        KeyedHistogramMechanism(**args, method=method)


def test_bad_math_inputs():
    with pytest.raises(InvalidParameterError, match="n_max"):
        optimal_release_probabilities(-1, 1.0, 1e-3)
    with pytest.raises(InvalidParameterError, match="user counts"):
        optimal_release_probability(np.array([1.5]), 1.0, 1e-3)
    with pytest.raises(InvalidParameterError, match="threshold"):
        laplace_threshold_delta(1.0, float("inf"))
    with pytest.raises(InvalidParameterError, match="sigma"):
        gaussian_threshold_delta(-1.0, 2.0)
    with pytest.raises(InvalidParameterError, match="0.5"):
        laplace_threshold_for_delta(1.0, 0.6)


def test_bad_data():
    mech = KeyedHistogramMechanism(3, 1.0, 1e-3)
    with pytest.raises(InvalidInputError):
        mech.sample(np.array([0, 5]), 2, rng=0)  # key outside the universe
    with pytest.raises(InvalidInputError):
        mech.sample(np.array([0.0, np.nan]), 2, rng=0)
    with pytest.raises(InvalidInputError):
        mech.sample(np.array([], dtype=int), 2, rng=0)


def test_keyed_release_round_trip_and_errors():
    layout = KeyedRelease(universe_size=3)
    enc = layout.encode_mappings([{0: 2.5, 2: 7.0}, {}])
    np.testing.assert_array_equal(enc, [[1, 0, 1, 2.5, 0, 7.0], [0, 0, 0, 0, 0, 0]])
    assert layout.decode(enc) == [{0: 2.5, 2: 7.0}, {}]
    assert layout.describe_coordinate(1) == "key 1 appears"
    assert layout.describe_coordinate(4) == "noisy count of key 1"
    keys_only = KeyedRelease(universe_size=2, with_values=False)
    assert keys_only.decode(keys_only.encode_mappings([{1: None}])) == [{1: None}]
    with pytest.raises(OutOfDomainError, match="outside"):
        layout.encode_mappings([{3: 1.0}])
    with pytest.raises(OutOfDomainError, match="not an integer"):
        layout.encode_mappings([{"a": 1.0}])
    with pytest.raises(OutOfDomainError, match="coordinate 6"):
        layout.describe_coordinate(6)
    with pytest.raises(InputShapeError, match="shape"):
        layout.encode(np.ones((2, 2), bool), np.ones((2, 2)))
    with pytest.raises(InputShapeError, match="carries values"):
        layout.encode(np.ones((2, 3), bool))
    with pytest.raises(InputShapeError, match="shape"):
        layout.decode(np.ones((2, 5)))
    assert KeyedRelease.from_json(layout.to_json()) == layout
