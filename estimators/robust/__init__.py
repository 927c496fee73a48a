"""estimators.robust: private order statistics and robust means.

* :func:`private_median`, :func:`private_quantile` — the inverse-sensitivity mechanism
  (Asi & Duchi, NeurIPS 2020), or the smooth-sensitivity median (Nissim,
  Raskhodnikova & Smith, STOC 2007) for comparison;
* :func:`private_trimmed_mean` — the inverse-sensitivity trimmed mean;
* :func:`private_robust_mean` — a mean winsorised to a private quantile range, plus
  Laplace noise (sequential composition, Dwork & Roth 2014, Thm. 3.16);
* :func:`robust_mean_mechanism` — that release as an auditable mechanism;
* :class:`RobustEstimate` — their result object.

The mechanisms themselves are in :mod:`privaudit.mechanisms.inverse_sensitivity`; the
study is ``docs/robust_mechanisms.md``.
"""

from __future__ import annotations

from .order_statistics import (
    RobustEstimate,
    private_median,
    private_quantile,
    private_robust_mean,
    private_trimmed_mean,
)
from .robust_mean import (
    clipped_means,
    robust_mean_budget,
    robust_mean_mechanism,
    sample_robust_mean,
)

__all__ = [
    "RobustEstimate",
    "clipped_means",
    "private_median",
    "private_quantile",
    "private_robust_mean",
    "private_trimmed_mean",
    "robust_mean_budget",
    "robust_mean_mechanism",
    "sample_robust_mean",
]
