"""The private uniformity test keeps its level at every n (Monte Carlo calibration).

For n ∈ {50, 100, 300, 1000, 3000} (m = 10, α = 0.1, ε = 4, δ = 1), 300 seeded runs on
uniform data each: the false-rejection rate must be ≤ α up to sampling error, i.e. the
exact Clopper–Pearson interval of each rate, at confidence 1 − 0.01/5 (Bonferroni over the
five n, so the whole test fails a correct implementation with probability ≤ 1 %), must
reach α.  B = 19 null simulations per test: the Monte Carlo p-value is valid for every B,
so the smallest B that allows a rejection at α = 0.1 (α(B + 1) = 2) tests the level as
well as a large one, at a tenth of the cost.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from privaudit.estimators.hypothesis_tests import private_uniformity_test

ALPHA = 0.1
RUNS = 300
NS = (50, 100, 300, 1000, 3000)


@pytest.mark.slow
@pytest.mark.parametrize("n", NS)
def test_false_rejection_rate_is_at_most_alpha(n):
    rng = np.random.default_rng(np.random.SeedSequence([20261125, n]))
    rejections = sum(
        private_uniformity_test(
            rng.integers(0, 10, n), 10, 1.0, 4.0, alpha=ALPHA, simulations=19, rng=rng
        ).reject
        for _ in range(RUNS)
    )
    interval = binomtest(int(rejections), RUNS).proportion_ci(1 - 0.01 / len(NS), method="exact")
    assert interval.low <= ALPHA, (n, rejections, RUNS)
