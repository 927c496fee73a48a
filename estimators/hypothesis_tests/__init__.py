"""Private hypothesis tests built on private U-statistics.

* :func:`private_uniformity_test` — Algorithm A.4 of Chaudhuri, Loh, Pandey & Sarkar
  (2024): an ε-DP test of (tolerant) uniformity on [m] from the collision U-statistic,
  returning a :class:`UniformityTestResult`; ``method="all_tuples"`` is the all-tuples
  CoinPress baseline (Proposition 1);
* :func:`private_uniformity_test_mechanism` — the test's private statistic as an audited
  mechanism (substitute-one);
* :func:`uniformity_threshold`, :func:`uniformity_xi` (Lemma A.21 as three explicit
  terms), :func:`collision_u_statistic`;
* :func:`monte_carlo_null` — the rule for every private test of this package whose null
  is fully specified: calibrate the private statistic against its own null law simulated
  at the data's n (exact Monte Carlo p-value, valid for any number of simulations).
"""

from __future__ import annotations

from ._result import UniformityTestResult
from .concentration import uniformity_xi
from .monte_carlo import MonteCarloNull, monte_carlo_null
from .uniformity import (
    collision_u_statistic,
    private_uniformity_test,
    private_uniformity_test_mechanism,
    uniformity_threshold,
)

__all__ = [
    "MonteCarloNull",
    "UniformityTestResult",
    "collision_u_statistic",
    "monte_carlo_null",
    "private_uniformity_test",
    "private_uniformity_test_mechanism",
    "uniformity_threshold",
    "uniformity_xi",
]
