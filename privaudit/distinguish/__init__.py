"""privaudit.distinguish: the (ε, δ) distinguishing engine for one neighbouring pair.

* :mod:`~privaudit.distinguish.densities` — the declared output densities, when the spec
  and the gray-box hooks determine them;
* :mod:`~privaudit.distinguish.events` — events (rejection regions) and the features
  they are defined through;
* :mod:`~privaudit.distinguish.candidates` — choosing events and their levels on the
  search split (LLR thresholds, exact values, half-lines, two-sided intervals, learned
  scores);
* :mod:`~privaudit.distinguish.scores` — learned scores: naive-Bayes (column-wise),
  grouped, joint-cell and whitened cell log-likelihood ratios, monotone fits, logistic
  regression on a non-collinear feature map;
* :mod:`~privaudit.distinguish.logistic` — the Newton/IRLS logistic regression behind
  the logistic score;
* :mod:`~privaudit.distinguish.privacy_loss` — the declared privacy-loss profile with
  lower confidence bounds;
* :mod:`~privaudit.distinguish.pair_test` — :func:`test_pair`, which ties them together
  with exact Clopper–Pearson tests on a disjoint test split.

Black-box evidence only ever bounds ε from below: a pair that passes is not certified.
"""

from __future__ import annotations

from .candidates import DIRECTIONS, SelectedEvents, is_discrete, select_events
from .densities import DensityPair, LogDensity, declared_llr, declared_log_densities
from .events import (
    BinIndex,
    Coordinate,
    DiscreteCode,
    Event,
    Feature,
    LinearScore,
    LogLikelihoodRatio,
    ThresholdEvent,
    ValueSetEvent,
)
from .logistic import fit_logistic
from .pair_test import EVENT_SHARE, PairTestResult, TradeoffPoint, test_pair
from .privacy_loss import LossMoments, loss_moments, profile_lower_bounds
from .scores import (
    AbsDeviation,
    CellScore,
    ColumnCoder,
    LogisticScore,
    fit_cell_score,
    fit_logistic_score,
)

__all__ = [
    "DIRECTIONS",
    "EVENT_SHARE",
    "AbsDeviation",
    "BinIndex",
    "CellScore",
    "ColumnCoder",
    "Coordinate",
    "DensityPair",
    "DiscreteCode",
    "Event",
    "Feature",
    "LinearScore",
    "LogDensity",
    "LogLikelihoodRatio",
    "LogisticScore",
    "LossMoments",
    "PairTestResult",
    "SelectedEvents",
    "ThresholdEvent",
    "TradeoffPoint",
    "ValueSetEvent",
    "declared_llr",
    "declared_log_densities",
    "fit_cell_score",
    "fit_logistic",
    "fit_logistic_score",
    "is_discrete",
    "loss_moments",
    "profile_lower_bounds",
    "select_events",
    "test_pair",
]
