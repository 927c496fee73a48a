"""Goodness of fit of the vectorised exact samplers at 10⁸ draws (slow tier).

Each law is drawn 10⁸ times (in chunks of 10⁷, one seeded generator) and the counts of
every integer cell with expected count ≥ 5 (the two tails beyond pooled) are tested
against the probability mass function: by Pearson's χ² (α = 1e-4) and, cell by cell, by
exact two-sided binomial tests at Bonferroni level 1e-4 / #cells, so each law fails with
probability ≤ 2e-4 for a correct sampler and a random seed.  At 10⁸ draws a relative
error of the mass of ~1e-3 in a cell of mass 0.1 would be rejected.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from spec import DiscreteGaussian, DiscreteLaplace

ALPHA = 1e-4
DRAWS = 100_000_000
CHUNK = 10_000_000

LAWS = [DiscreteLaplace(scale=2.5), DiscreteLaplace(scale=1 / 0.3), DiscreteGaussian(sigma=3.0),
        DiscreteGaussian(sigma=0.8)]


@pytest.mark.slow
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_exact_sampler_matches_the_pmf_at_1e8_draws(law):
    lo = int(law.ppf(5.0 / DRAWS)) + 1
    hi = int(law.ppf(1.0 - 5.0 / DRAWS)) - 1
    counts = np.zeros(hi - lo + 3, dtype=np.int64)  # (−∞, lo), lo..hi, (hi, ∞)
    gen = np.random.default_rng(20240521)
    for _ in range(DRAWS // CHUNK):
        z = law.sample_exact(gen, CHUNK)
        counts += np.bincount(np.clip(z - lo + 1, 0, hi - lo + 2), minlength=counts.size)
    k = np.arange(lo, hi + 1, dtype=np.float64)
    probs = np.concatenate([[law.cdf(lo - 1)], law.density(k), [law.sf(hi)]])
    expected = probs * DRAWS
    assert expected.min() >= 5.0
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert stats.chi2.sf(chi2, counts.size - 1) > ALPHA
    level = ALPHA / counts.size
    for c, p in zip(counts, probs):
        assert stats.binomtest(int(c), DRAWS, float(p)).pvalue > level
