"""privaudit.auditing.distinguish: the (ε, δ) test of one neighbouring pair, a job per module:

* :mod:`~privaudit.auditing.distinguish.densities` — the declared output densities;
* :mod:`~privaudit.auditing.distinguish.events` — events and the features they use;
* :mod:`~privaudit.auditing.distinguish.declared_plan` — events from the declared law alone;
* :mod:`~privaudit.auditing.distinguish.event_candidates`, built in
  :mod:`~privaudit.auditing.distinguish.event_families`, ranked in
  :mod:`~privaudit.auditing.distinguish.event_ranking` — events chosen on the search split;
* :mod:`~privaudit.auditing.distinguish.columns` — output columns as integer cells
  (compiled in :mod:`~privaudit.auditing.distinguish._column_kernel`);
* learned scores: :mod:`~privaudit.auditing.distinguish.cell_score`, with
  :mod:`~privaudit.auditing.distinguish.dependence`,
  :mod:`~privaudit.auditing.distinguish.whitening` and
  :mod:`~privaudit.auditing.distinguish.isotonic`;
  :mod:`~privaudit.auditing.distinguish.logistic`; :mod:`~privaudit.auditing.distinguish.patterns`;
* declared losses: :mod:`~privaudit.auditing.distinguish.product_loss`,
  :mod:`~privaudit.auditing.distinguish.privacy_loss` (the profile);
* :mod:`~privaudit.auditing.distinguish.rare_events` — atoms, spikes, unsupported outputs;
* :mod:`~privaudit.auditing.distinguish.rows` — outputs as rows, counted per distinct row;
* the test of one pair, :mod:`~privaudit.auditing.distinguish.pair`, by stage:
  :mod:`~privaudit.auditing.distinguish.draws`, :mod:`~privaudit.auditing.distinguish.config`,
  :mod:`~privaudit.auditing.distinguish.search_split`,
  :mod:`~privaudit.auditing.distinguish.error_budget`,
  :mod:`~privaudit.auditing.distinguish.tested_events`,
  :mod:`~privaudit.auditing.distinguish.counting`, :mod:`~privaudit.auditing.distinguish.bounds`,
  :mod:`~privaudit.auditing.distinguish.result`, :mod:`~privaudit.auditing.distinguish.stopwatch`.

Pairs are chosen by :mod:`privaudit.auditing.search`.  Black-box evidence only bounds ε from
below: a pair that passes is not certified.  Details: ``docs/engine_notes.md``.
"""

from __future__ import annotations

from privaudit.auditing.distinguish.bounds import rate_ratio_applies
from privaudit.auditing.distinguish.cell_score import CellScore, fit_cell_score
from privaudit.auditing.distinguish.columns import ColumnCoder
from privaudit.auditing.distinguish.config import PLAN_PRIOR_OUTPUTS, PairTestConfig
from privaudit.auditing.distinguish.declared_plan import (
    DeclaredEvent,
    DeclaredPlan,
    LossLaw,
    declared_loss_law,
    plan_declared_events,
)
from privaudit.auditing.distinguish.densities import (
    DensityPair,
    LogDensity,
    declared_llr,
    declared_log_densities,
    declared_tables,
)
from privaudit.auditing.distinguish.draws import PairDraws, draw_pair_test, replay_pair_test
from privaudit.auditing.distinguish.error_budget import DECLARED_SHARE, EVENT_SHARE, PROFILE_SHARE
from privaudit.auditing.distinguish.event_candidates import (
    DIRECTIONS,
    SelectedEvents,
    select_events,
)
from privaudit.auditing.distinguish.events import (
    AbsDeviation,
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
from privaudit.auditing.distinguish.logistic import LogisticScore, fit_logistic, fit_logistic_score
from privaudit.auditing.distinguish.pair import distinguish_pair
from privaudit.auditing.distinguish.patterns import (
    PatternAndValue,
    PatternLLR,
    PatternStructure,
    PatternValueEvent,
    ReleasedValue,
    fit_pattern_llr,
    pattern_structure,
)
from privaudit.auditing.distinguish.privacy_loss import (
    LossHistogram,
    LossMoments,
    loss_moments,
    profile_lower_bounds,
)
from privaudit.auditing.distinguish.rare_events import RareCandidate, find_rare_events
from privaudit.auditing.distinguish.result import PairTestResult, TradeoffPoint
from privaudit.auditing.distinguish.rows import (
    DISCRETE_ROWS,
    RowTable,
    distinct_outputs,
    distinct_rows,
    distinct_values,
    is_discrete,
    row_keys,
    row_table,
    small_integer_row_keys,
)

__all__ = [
    "AbsDeviation",
    "BinIndex",
    "CellScore",
    "ColumnCoder",
    "Coordinate",
    "DECLARED_SHARE",
    "DIRECTIONS",
    "DISCRETE_ROWS",
    "DeclaredEvent",
    "DeclaredPlan",
    "DensityPair",
    "DiscreteCode",
    "EVENT_SHARE",
    "Event",
    "Feature",
    "LinearScore",
    "LogDensity",
    "LogLikelihoodRatio",
    "LogisticScore",
    "LossHistogram",
    "LossLaw",
    "LossMoments",
    "PLAN_PRIOR_OUTPUTS",
    "PROFILE_SHARE",
    "PairDraws",
    "PairTestConfig",
    "PairTestResult",
    "PatternAndValue",
    "PatternLLR",
    "PatternStructure",
    "PatternValueEvent",
    "RareCandidate",
    "ReleasedValue",
    "RowTable",
    "SelectedEvents",
    "ThresholdEvent",
    "TradeoffPoint",
    "ValueSetEvent",
    "declared_llr",
    "declared_log_densities",
    "declared_loss_law",
    "declared_tables",
    "distinct_outputs",
    "distinct_rows",
    "distinct_values",
    "distinguish_pair",
    "draw_pair_test",
    "find_rare_events",
    "fit_cell_score",
    "fit_logistic",
    "fit_logistic_score",
    "fit_pattern_llr",
    "is_discrete",
    "loss_moments",
    "pattern_structure",
    "plan_declared_events",
    "profile_lower_bounds",
    "rate_ratio_applies",
    "replay_pair_test",
    "row_keys",
    "row_table",
    "select_events",
    "small_integer_row_keys",
]
