"""The inverse-sensitivity mechanism: path lengths against brute force, laws, bad inputs.

Path lengths are checked by enumerating every substitution of up to n records on small
inputs.  The samplers are checked against the exact laws at fixed seeds with a
chi-square / Kolmogorov–Smirnov test at level 10⁻³ (a correct sampler fails with
probability 10⁻³; the seeds are fixed, so the outcome is deterministic).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from privaudit.mechanisms.inverse_sensitivity import (
    grid_probabilities,
    inverse_sensitivity_median_mechanism,
    inverse_sensitivity_quantile_mechanism,
    inverse_sensitivity_trimmed_mean_mechanism,
    path_length,
    piecewise_density,
    public_grid,
    quantile_path_intervals,
    quantile_rank,
    sample_piecewise_density,
    trimmed_mean_path_intervals,
)
from privaudit.spec.errors import (
    EpsilonRangeError,
    InvalidParameterError,
    OutOfDomainError,
    ParameterTypeError,
    PrivauditError,
    SampleSizeError,
)

VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


def _brute_quantile_length(x, k, t):
    """Least c such that substituting c records (values from VALUES ∪ {t}) makes x'_(k) = t."""
    n = len(x)
    pool = sorted(set(VALUES) | {t})
    for c in range(n + 1):
        for idx in itertools.combinations(range(n), c):
            for vals in itertools.product(pool, repeat=c):
                y = np.array(x, dtype=float)
                y[list(idx)] = vals
                if np.sort(y)[k - 1] == t:
                    return c
    raise AssertionError("unreachable")


def test_quantile_length_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(40):
        n = int(rng.integers(1, 6))
        x = rng.choice(VALUES, n)
        k = int(rng.integers(1, n + 1))
        lower, upper = quantile_path_intervals(np.sort(x), k, 0.0, 1.0)
        for t in (*VALUES, 0.1, 0.6):
            assert path_length(lower, upper, t) == _brute_quantile_length(x, k, t), (x, k, t)


def test_trimmed_mean_intervals_match_brute_force():
    """u_c and l_c are the largest and smallest trimmed means after c substitutions (the
    trimmed mean is non-decreasing in every record, so the extremes use lo and hi)."""
    rng = np.random.default_rng(1)
    for _ in range(25):
        n = int(rng.integers(1, 7))
        a = int(rng.integers(0, (n + 1) // 2))
        x = rng.uniform(0.0, 1.0, n)
        lower, upper = trimmed_mean_path_intervals(np.sort(x), a, 0.0, 1.0)
        assert lower.size == n - a + 1
        for c in range(n - a + 1):
            means = []
            for idx in itertools.combinations(range(n), c):
                for vals in itertools.product((0.0, 1.0), repeat=c):
                    y = x.copy()
                    y[list(idx)] = vals
                    means.append(np.sort(y)[a : n - a].mean())
            assert math.isclose(upper[c], max(means), abs_tol=1e-12)
            assert math.isclose(lower[c], min(means), abs_tol=1e-12)


@pytest.mark.parametrize("rho", [0.0, 0.05])
@pytest.mark.parametrize("kind", ["quantile", "trimmed"])
def test_length_moves_by_at_most_one_between_neighbours(kind, rho):
    rng = np.random.default_rng(2)
    t = np.linspace(0.0, 1.0, 401)
    for _ in range(200):
        n = int(rng.integers(2, 15))
        x = rng.choice(np.linspace(0, 1, 9), n)  # ties included
        y = x.copy()
        y[rng.integers(n)] = rng.choice([0.0, 1.0, rng.uniform()])
        if kind == "quantile":
            k = int(rng.integers(1, n + 1))
            lx = path_length(*quantile_path_intervals(np.sort(x), k, 0, 1), t, rho)
            ly = path_length(*quantile_path_intervals(np.sort(y), k, 0, 1), t, rho)
        else:
            a = int(rng.integers(0, (n + 1) // 2))
            lx = path_length(*trimmed_mean_path_intervals(np.sort(x), a, 0, 1), t, rho)
            ly = path_length(*trimmed_mean_path_intervals(np.sort(y), a, 0, 1), t, rho)
        assert np.abs(lx - ly).max() <= 1


def test_smoothed_length_is_the_minimum_over_the_window():
    x = np.sort(np.random.default_rng(3).uniform(0, 1, 9))
    lower, upper = quantile_path_intervals(x, 5, 0.0, 1.0)
    t = np.linspace(0.0, 1.0, 301)
    rho = 0.04
    # len is smallest at the records themselves: they belong in the fine grid
    fine = np.unique(np.concatenate([np.linspace(0.0, 1.0, 30001), x]))
    brute = [path_length(lower, upper, fine[np.abs(fine - s) <= rho]).min() for s in t]
    # the fine grid may miss a window end by < 1e-4: compare away from those ends
    smoothed = path_length(lower, upper, t, rho)
    assert np.mean(smoothed == np.asarray(brute)) > 0.98
    assert np.all(smoothed <= np.asarray(brute))


def test_quantile_rank_conventions():
    assert quantile_rank(11, 0.5) == 6  # x_((n+1)/2)
    assert quantile_rank(10, 0.5) == 5  # lower median
    assert quantile_rank(10, 0.25) == 3
    assert quantile_rank(10, 0.01) == 1


def test_grid_law_is_epsilon_dp_on_random_neighbours():
    rng = np.random.default_rng(4)
    grid = np.linspace(0, 1, 17)
    eps = 0.7
    worst = 0.0
    for _ in range(300):
        x = rng.choice(np.linspace(0, 1, 9), 7)
        y = x.copy()
        y[rng.integers(7)] = rng.uniform()
        px = grid_probabilities(*quantile_path_intervals(np.sort(x), 4, 0, 1), grid, eps)
        py = grid_probabilities(*quantile_path_intervals(np.sort(y), 4, 0, 1), grid, eps)
        worst = max(worst, float(np.max(np.abs(np.log(px) - np.log(py)))))
    assert worst <= eps + 1e-12
    assert worst > 0.5 * eps  # the /2 is not slack on these pairs


def test_grid_sampler_matches_output_probabilities():
    mech = inverse_sensitivity_median_mechanism(11, 0.0, 1.0, 1.0, grid=11)
    x = np.random.default_rng(5).uniform(0.2, 0.8, 11)
    p = mech.output_probabilities(x)[0]
    counts = np.bincount(mech.sample(x, 200_000, rng=6), minlength=11)
    keep = p * 200_000 >= 5
    expected = p[keep] * 200_000
    chi2 = float((((counts[keep] - expected) ** 2) / expected).sum())
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


@pytest.mark.parametrize("rho", [0.0, 0.03])
def test_continuous_sampler_matches_the_density(rho):
    x = np.sort(np.random.default_rng(7).uniform(0.0, 1.0, 15))
    left, right, mass = piecewise_density(*quantile_path_intervals(x, 8, 0.0, 1.0), 1.0, 0, 1, rho)
    assert math.isclose(mass.sum(), 1.0)
    order = np.argsort(left)
    left, right, mass = left[order], right[order], mass[order]

    def cdf(t):
        t = np.asarray(t)[:, None]
        width = np.where(right > left, right - left, 1.0)
        share = np.clip((t - left) / width, 0.0, 1.0)
        return (mass * share).sum(axis=1)

    draws = sample_piecewise_density(left, right, mass, 50_000, np.random.default_rng(8))
    assert stats.kstest(draws, cdf).pvalue > 1e-3
    # the density is exp(−ε len_ρ/2) up to its constant, at every piece
    mids = (left + right) / 2
    lengths = path_length(*quantile_path_intervals(x, 8, 0.0, 1.0), mids, rho)
    wide = right - left > 1e-9
    ratio = mass[wide] / (right - left)[wide] / np.exp(-0.5 * lengths[wide])
    assert np.allclose(ratio, ratio[0])


def test_trimmed_mean_release_concentrates_near_the_trimmed_mean():
    x = np.random.default_rng(9).uniform(0.3, 0.5, 101)
    mech = inverse_sensitivity_trimmed_mean_mechanism(101, 0.0, 1.0, 2.0, trim=10)
    out = mech.sample(x, 2000, rng=10)
    assert abs(np.median(out) - mech.statistic(x)) < 0.02


def test_public_grid_and_spec():
    mech = inverse_sensitivity_quantile_mechanism(9, -1.0, 1.0, 0.5, quantile=0.3, grid=[-1, 0, 1])
    assert mech.spec.noise.law.alphabet == 3
    assert "sha256" not in mech.spec.summary
    odd = inverse_sensitivity_median_mechanism(9, 0.0, 1.0, 0.5, grid=[0.0, 0.3, 1.0])
    assert "sha256" in odd.spec.summary
    assert np.array_equal(public_grid(3, 0.0, 1.0), [0.0, 0.5, 1.0])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(n=0), SampleSizeError),
        (dict(epsilon=0.0), EpsilonRangeError),
        (dict(epsilon=float("nan")), PrivauditError),
        (dict(lo=1.0, hi=0.0), InvalidParameterError),
        (dict(lo=float("nan")), InvalidParameterError),
        (dict(quantile=1.0), InvalidParameterError),
        (dict(quantile="0.5"), ParameterTypeError),
        (dict(grid=1), InvalidParameterError),
        (dict(grid=[0.5, 0.2]), InvalidParameterError),
        (dict(grid=[0.0, 2.0]), InvalidParameterError),
        (dict(grid="abc"), InvalidParameterError),
        (dict(rho=-0.1), InvalidParameterError),
        (dict(rho=float("inf")), InvalidParameterError),
    ],
)
def test_bad_parameters(kwargs, error):
    args = dict(n=5, lo=0.0, hi=1.0, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(error):
        inverse_sensitivity_quantile_mechanism(**args)


@pytest.mark.parametrize("trim", [-1, 3, 1.5, True])
def test_bad_trim(trim):
    with pytest.raises(PrivauditError):
        inverse_sensitivity_trimmed_mean_mechanism(5, 0.0, 1.0, 1.0, trim=trim)


@pytest.mark.parametrize(
    "data", [[0.1, 0.2, float("nan"), 0.3, 0.4], [0.1, 0.2, 1.5, 0.3, 0.4], [0.1, 0.2]]
)
def test_bad_data(data):
    mech = inverse_sensitivity_median_mechanism(5, 0.0, 1.0, 1.0, grid=5)
    with pytest.raises(PrivauditError):
        mech.sample(data, 3, rng=0)


def test_out_of_domain_is_named():
    mech = inverse_sensitivity_median_mechanism(3, 0.0, 1.0, 1.0)
    with pytest.raises(OutOfDomainError, match="1.5"):
        mech.sample([0.1, 1.5, 0.2], 2, rng=0)
