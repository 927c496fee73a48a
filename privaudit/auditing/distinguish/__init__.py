"""privaudit.auditing.distinguish: the (ε, δ) distinguishing engine for one neighbouring pair.

One job per module:

* :mod:`~privaudit.auditing.distinguish.densities` — the declared output densities, when the spec
  and the gray-box hooks determine them;
* :mod:`~privaudit.auditing.distinguish.events` — events (rejection regions) and the features
  they are defined through;
* :mod:`~privaudit.auditing.distinguish.declared_plan` — events planned from the declared law
  alone (LLR thresholds optimal for the claimed δ, with hedges), no sample involved;
* :mod:`~privaudit.auditing.distinguish.event_candidates` — choosing candidate *events* and their
  levels on the search split (LLR thresholds, exact values, half-lines, two-sided
  intervals, learned scores); candidate *pairs* are :mod:`privaudit.auditing.search`'s job; the
  families are built in :mod:`~privaudit.auditing.distinguish.event_families` and ranked in
  :mod:`~privaudit.auditing.distinguish.event_ranking`;
* :mod:`~privaudit.auditing.distinguish.columns` — output columns as integer cells (exact values,
  atoms, tail-refined quantile bins) and sums over small-integer columns as packed table
  lookups; its compiled (numba) kernels, with the NumPy path's results to the bit, in
  :mod:`~privaudit.auditing.distinguish._column_kernel`;
* :mod:`~privaudit.auditing.distinguish.cell_score` — the cell score: naive-Bayes (column-wise),
  grouped, joint-cell and whitened cell log-likelihood ratios;
* :mod:`~privaudit.auditing.distinguish.dependence` — which coded columns the cell score
  joins (G-test of independence), and one key per row from a group's cells;
* :mod:`~privaudit.auditing.distinguish.whitening` — the linear whitening of correlated continuous
  columns that the cell score applies first;
* :mod:`~privaudit.auditing.distinguish.isotonic` — pool-adjacent-violators and the monotone bin
  log-likelihood ratios of the cell score;
* :mod:`~privaudit.auditing.distinguish.logistic` — the logistic score: Newton/IRLS logistic
  regression on a non-collinear feature map;
* :mod:`~privaudit.auditing.distinguish.patterns` — pattern-conditional value thresholds for
  outputs made of code-pattern columns and released-value columns (sparse vectors that
  release noisy values), with a pattern LLR summed over independent blocks;
* :mod:`~privaudit.auditing.distinguish.product_loss` — the exact declared privacy-loss law of a
  finite product randomizer (Hadamard response under composition), by convolution of the
  coordinates' loss laws, so the declared plan can pick its Neyman–Pearson level sets;
* :mod:`~privaudit.auditing.distinguish.privacy_loss` — the declared privacy-loss profile with
  lower confidence bounds;
* :mod:`~privaudit.auditing.distinguish.rare_events` — rare events of (ε, δ) claims (atoms,
  neighbourhoods of f, excess over the declared density, unsupported outputs) found on
  the search split;
* :mod:`~privaudit.auditing.distinguish.rows` — outputs as rows: shapes, row keys, and outputs
  with few distinct values or rows (sparse-vector codes, bit vectors) counted once per
  distinct row, exactly;
* the test of one pair, :func:`~privaudit.auditing.distinguish.pair.distinguish_pair`, one
  module per stage: :mod:`~privaudit.auditing.distinguish.draws` (where the outputs come
  from: the search split, and the test split in seeded blocks),
  :mod:`~privaudit.auditing.distinguish.config` (its options),
  :mod:`~privaudit.auditing.distinguish.search_split` (the declared law's view of the search
  split), :mod:`~privaudit.auditing.distinguish.error_budget` (the pair's α, split),
  :mod:`~privaudit.auditing.distinguish.tested_events` (the events and their levels, fixed
  before the test split), :mod:`~privaudit.auditing.distinguish.counting` (the test split
  counted), :mod:`~privaudit.auditing.distinguish.bounds` (bounds, best event, profile,
  power), :mod:`~privaudit.auditing.distinguish.result` (:class:`PairTestResult`) and
  :mod:`~privaudit.auditing.distinguish.stopwatch` (seconds per stage).

Black-box evidence only ever bounds ε from below: a pair that passes is not certified.
"""

from __future__ import annotations

from .bounds import rate_ratio_applies
from .cell_score import CellScore, fit_cell_score
from .columns import ColumnCoder
from .config import PLAN_PRIOR_OUTPUTS, PairTestConfig
from .declared_plan import (
    DeclaredEvent,
    DeclaredPlan,
    LossLaw,
    declared_loss_law,
    plan_declared_events,
)
from .densities import (
    DensityPair,
    LogDensity,
    declared_llr,
    declared_log_densities,
    declared_tables,
)
from .draws import PairDraws, draw_pair_test, replay_pair_test
from .error_budget import DECLARED_SHARE, EVENT_SHARE, PROFILE_SHARE
from .event_candidates import DIRECTIONS, SelectedEvents, select_events
from .events import (
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
from .logistic import LogisticScore, fit_logistic, fit_logistic_score
from .pair import distinguish_pair
from .patterns import (
    PatternAndValue,
    PatternLLR,
    PatternStructure,
    PatternValueEvent,
    ReleasedValue,
    fit_pattern_llr,
    pattern_structure,
)
from .privacy_loss import LossHistogram, LossMoments, loss_moments, profile_lower_bounds
from .rare_events import RareCandidate, find_rare_events
from .result import PairTestResult, TradeoffPoint
from .rows import (
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
