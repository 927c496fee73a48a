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

from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir

# ``clopper_pearson`` is also a submodule: its names are bound here, at import, so that the
# function, not the module, is the package's attribute (the module needs scipy.special only).
from privaudit.statistics.clopper_pearson import (
    BinomialInterval,
    clopper_pearson,
    cp_lower,
    cp_upper,
)

# The other names are imported on first use (PEP 562): reading a certificate needs
# claimed_point, not the power calculations and their scipy.stats laws.
_LAZY: dict[str, str] = {
    "DEFAULT_REPORT_DELTA": "privaudit.statistics.epsilon_bounds",
    "EventPlan": "privaudit.statistics.allocation",
    "PooledBound": "privaudit.statistics.pooled",
    "claimed_point": "privaudit.statistics.epsilon_bounds",
    "default_margin_grid": "privaudit.statistics.epsilon_bounds",
    "detectable_epsilon": "privaudit.statistics.power",
    "detection_probability": "privaudit.statistics.power",
    "eb_lower_bound_from_sums": "privaudit.statistics.mean_bounds",
    "epsilon_lower_bound": "privaudit.statistics.epsilon_bounds",
    "garwood_lower": "privaudit.statistics.pooled",
    "garwood_upper": "privaudit.statistics.pooled",
    "mean_lower_bound": "privaudit.statistics.mean_bounds",
    "plan_events": "privaudit.statistics.allocation",
    "pooled_bound": "privaudit.statistics.pooled",
    "predicted_epsilon": "privaudit.statistics.allocation",
    "predicted_rate_ratio_epsilon": "privaudit.statistics.allocation",
    "rate_ratio_epsilon_lower_bound": "privaudit.statistics.rate_ratio",
    "rate_ratio_lower_bound": "privaudit.statistics.rate_ratio",
    "samples_to_detect": "privaudit.statistics.power",
    "tune_eb_bet": "privaudit.statistics.mean_bounds",
    "violation_margin": "privaudit.statistics.epsilon_bounds",
}

if _TYPE_CHECKING:  # pragma: no cover
    from privaudit.statistics.allocation import (
        EventPlan,
        plan_events,
        predicted_epsilon,
        predicted_rate_ratio_epsilon,
    )
    from privaudit.statistics.epsilon_bounds import (
        DEFAULT_REPORT_DELTA,
        claimed_point,
        default_margin_grid,
        epsilon_lower_bound,
        violation_margin,
    )
    from privaudit.statistics.mean_bounds import (
        eb_lower_bound_from_sums,
        mean_lower_bound,
        tune_eb_bet,
    )
    from privaudit.statistics.pooled import PooledBound, garwood_lower, garwood_upper, pooled_bound
    from privaudit.statistics.power import (
        detectable_epsilon,
        detection_probability,
        samples_to_detect,
    )
    from privaudit.statistics.rate_ratio import (
        rate_ratio_epsilon_lower_bound,
        rate_ratio_lower_bound,
    )


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)


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
