"""Goodness of fit: every sampler in ``spec.noise`` against its own law's CDF / mass.

Every test uses a fixed seed, so the suite is deterministic; the significance level
stated with each test is the probability that a *correct* sampler would fail it for a
random seed.  All tests use α = 1e-4 per test (per law and sampler).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privaudit.spec.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    Gaussian,
    Gumbel,
    InverseQuartic,
    Laplace,
    NoiseLaw,
    RandomizedResponseLaw,
)

ALPHA = 1e-4

CONTINUOUS = [
    Laplace(scale=1.3),
    Gaussian(sigma=0.7),
    InverseQuartic(),
    InverseQuartic(scale=2.5),
    InverseQuartic(scale=1e-3),
    Gumbel(scale=1.1),
    Exponential(scale=0.6),
]
DISCRETE_FAST = [
    DiscreteLaplace(scale=0.4),
    DiscreteLaplace(scale=2.5),
    DiscreteLaplace(scale=10.0),
    DiscreteGaussian(sigma=0.3),
    DiscreteGaussian(sigma=1.7),
    DiscreteGaussian(sigma=3.0),
    DiscreteGaussian(sigma=12.5),
    DiscreteGaussian(sigma=1000.0),
]
DISCRETE_EXACT = [
    DiscreteLaplace(scale=0.4),
    DiscreteLaplace(scale=2.5),
    DiscreteGaussian(sigma=0.3),
    DiscreteGaussian(sigma=1.7),
    DiscreteGaussian(sigma=12.5),
]


def law_id(law: object) -> str:
    return repr(law)


def _seed(law: NoiseLaw, salt: int) -> int:
    """A fixed seed per law (stable across runs and platforms)."""
    return int(law.content_hash[7:15], 16) ^ salt


def _discrete_bins(law: NoiseLaw, n: int, min_expected: float = 10.0) -> np.ndarray:
    """Right-closed integer bin edges with expected count ≥ ``min_expected`` each.

    Bins are ``(e_{i−1}, e_i]`` with ``e_0 = −inf`` and the last edge ``+inf``, so the
    expected counts ``n·(cdf(e_i) − cdf(e_{i−1}))`` sum to n.
    """
    lo, hi = law.ppf(1e-7), law.ppf(1 - 1e-7)
    edges = [-np.inf]
    last = -np.inf
    for k in np.arange(lo, hi + 1):
        if n * (law.cdf(k) - law.cdf(last)) >= min_expected and n * law.sf(k) >= min_expected:
            edges.append(k)
            last = k
    edges.append(np.inf)
    return np.array(edges)


def _chi2_pvalue(sample: np.ndarray, law: NoiseLaw) -> float:
    edges = _discrete_bins(law, sample.size)
    cdf = law.cdf(edges)
    expected = sample.size * np.diff(cdf)
    observed = np.array(
        [
            np.count_nonzero((sample > a) & (sample <= b))
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
    )
    assert observed.sum() == sample.size
    assert expected.min() >= 10.0 - 1e-9 and len(expected) >= 2
    return float(stats.chisquare(observed, expected * sample.size / expected.sum()).pvalue)


@pytest.mark.parametrize("law", CONTINUOUS, ids=law_id)
def test_continuous_sampler_kolmogorov_smirnov(law):
    """KS test of 20 000 draws against ``law.cdf``; α = 1e-4 (fixed seed)."""
    x = law.sample(np.random.default_rng(_seed(law, 1)), 20_000)
    assert x.dtype == np.float64
    assert np.all(np.isfinite(x))
    assert stats.kstest(x, law.cdf).pvalue > ALPHA


@pytest.mark.parametrize("law", CONTINUOUS, ids=law_id)
def test_continuous_sampler_equiprobable_chi_square(law):
    """χ² of 20 000 draws over 40 equiprobable bins from ``law.ppf`` (tail-sensitive);
    α = 1e-4 (fixed seed)."""
    x = law.sample(np.random.default_rng(_seed(law, 2)), 20_000)
    inner = law.ppf(np.linspace(0, 1, 41)[1:-1])
    observed = np.bincount(np.searchsorted(inner, x), minlength=40)
    assert stats.chisquare(observed).pvalue > ALPHA


def test_inverse_quartic_far_tail_frequency():
    """P(|Z| > 10) = 2·sf(10) ≈ 3.0e-4 with 10⁶ draws (≈ 300 expected): two-sided exact
    binomial test at α = 1e-4 (fixed seed)."""
    law = InverseQuartic()
    z = law.sample(np.random.default_rng(77), 1_000_000)
    p = 2 * float(law.sf(10.0))
    hits = int(np.count_nonzero(np.abs(z) > 10.0))
    assert stats.binomtest(hits, z.size, p).pvalue > ALPHA


@pytest.mark.parametrize("law", DISCRETE_FAST, ids=law_id)
def test_vectorised_discrete_sampler_chi_square(law):
    """χ² of 20 000 vectorised draws over integer bins with ≥ 10 expected each;
    α = 1e-4 (fixed seed)."""
    x = law.sample(np.random.default_rng(_seed(law, 3)), 20_000)
    assert x.dtype == np.int64
    assert _chi2_pvalue(x, law) > ALPHA


@pytest.mark.parametrize("law", DISCRETE_EXACT, ids=law_id)
def test_exact_discrete_sampler_chi_square(law):
    """χ² of 3 000 exact (CKS20, rational arithmetic) draws; α = 1e-4 (fixed seed)."""
    x = law.sample_exact(np.random.default_rng(_seed(law, 4)), 3_000)
    assert x.dtype == np.int64
    assert _chi2_pvalue(x, law) > ALPHA


@pytest.mark.parametrize("law", DISCRETE_EXACT, ids=law_id)
def test_exact_and_vectorised_samplers_agree(law):
    """Two-sample χ² (contingency table) between 3 000 exact and 20 000 vectorised draws;
    α = 1e-4 (fixed seed)."""
    exact = law.sample_exact(np.random.default_rng(_seed(law, 5)), 3_000)
    fast = law.sample(np.random.default_rng(_seed(law, 6)), 20_000)
    edges = _discrete_bins(law, 3_000, min_expected=20.0)
    table = np.array(
        [
            [
                np.count_nonzero((s > a) & (s <= b))
                for a, b in zip(edges[:-1], edges[1:], strict=True)
            ]
            for s in (exact, fast)
        ]
    )
    assert stats.chi2_contingency(table).pvalue > ALPHA


@pytest.mark.parametrize("law", DISCRETE_FAST[:3] + DISCRETE_FAST[4:7], ids=law_id)
def test_discrete_sample_variance(law):
    """Sample variance of 200 000 draws within 5 standard errors of ``law.variance``
    (SE from the sample fourth moment; two-sided level ≈ 6e-7, fixed seed)."""
    x = law.sample(np.random.default_rng(_seed(law, 7)), 200_000).astype(np.float64)
    m4 = np.mean(x**4)
    se = np.sqrt(max(m4 - law.variance**2, 1e-300) / x.size)
    assert abs(np.mean(x**2) - law.variance) < 5 * se


@pytest.mark.parametrize("x_true", [0, 3])
def test_randomized_response_given_chi_square(x_true):
    """χ² of 20 000 responses to a fixed input over the 5 categories; α = 1e-4 (fixed seed)."""
    law = RandomizedResponseLaw(categories=5, keep_probability=0.4)
    y = law.sample_given(np.full(20_000, x_true), np.random.default_rng(100 + x_true))
    observed = np.bincount(y, minlength=5)
    expected = 20_000 * np.array([law.pmf_given(k, x_true) for k in range(5)])
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_randomized_response_mixed_inputs():
    """Per-input χ² for a mixed input vector (3 inputs × 3 categories, 30 000 draws);
    α = 1e-4 per input (fixed seed)."""
    law = RandomizedResponseLaw.from_epsilon(0.7, 3)
    x = np.tile(np.arange(3), 10_000)
    y = law.sample_given(x, np.random.default_rng(5))
    for v in range(3):
        observed = np.bincount(y[x == v], minlength=3)
        expected = observed.sum() * np.array([law.pmf_given(k, v) for k in range(3)])
        assert stats.chisquare(observed, expected).pvalue > ALPHA
