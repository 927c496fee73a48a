"""privaudit.statistics: exact and non-asymptotic bounds used by the auditor.

* :mod:`~privaudit.statistics.clopper_pearson` — exact binomial bounds (Clopper & Pearson
  1934), vectorised;
* :mod:`~privaudit.statistics.epsilon_bounds` — ε lower bounds and profile-violation
  margins from the counts of one event (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath
  2015), never capped;
* :mod:`~privaudit.statistics.rate_ratio` — the exact conditional bound on p_x/p_y when
  the sample sizes are Poisson (Przyborowski & Wilenski 1940), a tighter ε lower bound
  for pure-DP claims than two Clopper–Pearson bounds;
* :mod:`~privaudit.statistics.mean_bounds` — lower confidence bounds on the mean of
  [0, 1]-valued samples (the predictable plug-in empirical-Bernstein bound of
  Waudby-Smith & Ramdas 2024), for the privacy profile δ(ε) = E[(1 − e^{ε−L})₊];
* :mod:`~privaudit.statistics.power` — the smallest true ε an event test detects with a
  given probability, from the exact law of the two binomial counts, and the sample size
  at which it detects a given ε (the same calculation inverted in n);
* :mod:`~privaudit.statistics.allocation` — predicted ε bounds and the weighted-Bonferroni
  plan (which events to test, at which levels) made from the search split;
* :mod:`~privaudit.statistics.pooled` — two disjoint events of opposite directions pooled
  into one exact test of an (ε, δ) claim on a Poissonised split (Garwood 1936).
"""

from __future__ import annotations

from .allocation import EventPlan, plan_events, predicted_epsilon, predicted_rate_ratio_epsilon
from .clopper_pearson import BinomialInterval, clopper_pearson, cp_lower, cp_upper
from .epsilon_bounds import (
    DEFAULT_REPORT_DELTA,
    claimed_point,
    default_margin_grid,
    epsilon_lower_bound,
    violation_margin,
)
from .mean_bounds import eb_lower_bound_from_sums, mean_lower_bound, tune_eb_bet
from .pooled import PooledBound, garwood_lower, garwood_upper, pooled_bound
from .power import detectable_epsilon, detection_probability, samples_to_detect
from .rate_ratio import rate_ratio_epsilon_lower_bound, rate_ratio_lower_bound

__all__ = [
    "DEFAULT_REPORT_DELTA",
    "BinomialInterval",
    "EventPlan",
    "PooledBound",
    "claimed_point",
    "clopper_pearson",
    "cp_lower",
    "cp_upper",
    "default_margin_grid",
    "detectable_epsilon",
    "detection_probability",
    "eb_lower_bound_from_sums",
    "epsilon_lower_bound",
    "garwood_lower",
    "garwood_upper",
    "mean_lower_bound",
    "plan_events",
    "pooled_bound",
    "predicted_epsilon",
    "predicted_rate_ratio_epsilon",
    "rate_ratio_epsilon_lower_bound",
    "rate_ratio_lower_bound",
    "samples_to_detect",
    "tune_eb_bet",
    "violation_margin",
]
