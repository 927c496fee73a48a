"""Goodness of fit of the vectorised exact samplers at 10⁸ draws (slow tier).

Each law is drawn 10⁸ times (in chunks of 10⁷, one seeded generator) and the counts of
every integer cell with expected count ≥ 5 (the two tails pooled into the outermost
cells) are tested
against the probability mass function: by Pearson's χ² (α = 1e-4) and, cell by cell, by
exact two-sided binomial tests at Bonferroni level 1e-4 / #cells, so each law fails with
probability ≤ 2e-4 for a correct sampler and a random seed.  At 10⁸ draws a relative
error of the mass of ~1e-3 in a cell of mass 0.1 would be rejected.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from privaudit.spec import DiscreteGaussian, DiscreteLaplace

ALPHA = 1e-4
DRAWS = 100_000_000
CHUNK = 10_000_000

LAWS = [
    DiscreteLaplace(scale=2.5),
    DiscreteLaplace(scale=1 / 0.3),
    DiscreteGaussian(sigma=3.0),
    DiscreteGaussian(sigma=0.8),
]


@pytest.mark.slow
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_exact_sampler_matches_the_pmf_at_1e8_draws(law):
    # cells: (−∞, lo], lo+1 .. hi−1, [hi, ∞) with lo..hi the integers of mass ≥ 5/DRAWS
    wide = np.arange(int(law.ppf(1e-12)), int(law.ppf(1.0 - 1e-12)) + 1)
    dense = wide[law.density(wide.astype(np.float64)) * DRAWS >= 5.0]
    lo, hi = int(dense.min()), int(dense.max())
    counts = np.zeros(hi - lo + 1, dtype=np.int64)
    gen = np.random.default_rng(20240521)
    for _ in range(DRAWS // CHUNK):
        z = law.sample_exact(gen, CHUNK)
        counts += np.bincount(np.clip(z, lo, hi) - lo, minlength=counts.size)
    k = np.arange(lo + 1, hi, dtype=np.float64)
    probs = np.concatenate([[law.cdf(lo)], law.density(k), [law.sf(hi - 1)]])
    expected = probs * DRAWS
    assert expected.min() >= 5.0 and abs(probs.sum() - 1.0) < 1e-12
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert stats.chi2.sf(chi2, counts.size - 1) > ALPHA
    level = ALPHA / counts.size
    for c, p in zip(counts, probs, strict=True):
        assert stats.binomtest(int(c), DRAWS, float(p)).pvalue > level
