"""Candidate *events* of one pair — and the level of each — chosen on the search split only.

(Candidate *pairs* of inputs are :mod:`privaudit.auditing.search.candidates`' job.)

:func:`select_events` builds candidate events from the search outputs of M(x) and M(y),
ranks them, and returns the events to test per direction together with the share of
the error budget each gets.  Nothing here looks at the test split, so whatever is
chosen, the exact tests of :mod:`~privaudit.auditing.distinguish.pair` remain valid.

**Split of the search sample.**  Scores that are *learned* (their form depends on the
data: value orders, histogram and cell log-likelihood ratios, logistic regression) are
fitted on the first half of each search sample (part A) and their thresholds counted
on the second half (part B), so their candidate counts are honest estimates and compete
fairly with fixed features, whose thresholds are counted on the whole search sample.

**Distinct rows.**  When the outputs are rows of small integers with few distinct rows
(sparse-vector codes, bit vectors; at most 4096 in the search split), the search split
is held as a :class:`~privaudit.auditing.distinguish.rows.RowTable`: every feature, value set,
learned fit (weighted counts) and judging count is computed once per distinct row and
weighted by the row's multiplicity in the part at hand — exactly the counts of a pass
over every row — and two candidates that hold the same distinct rows are tested once.

**Families.**

(a) **LLR thresholds** {L ≥ t} (x_vs_y) and {L ≤ t} (y_vs_x) of the declared
    log-likelihood ratio L, when densities are declared.  Thresholds run over quantiles
    of L on both search samples *and* the extreme order statistics of each side, so
    that events with tiny P[M(y) ∈ S] — exactly the events that certify ε far above the
    claim — are candidates.  There is deliberately no DP-Sniper c-fraction rule (which
    pins P[M(y) ∈ S] ≈ c and so caps the reportable ε at ln(1/c)).
(b) **Exact values** for discrete outputs (integer dtype, or at most 1000 distinct rows
    among the first 2¹⁶ search outputs of each side, each repeated four times on
    average): the values
    ordered by the empirical ratio on part A, every prefix of that order (counted on
    part B), and every single value (counted on the whole search sample).
(c) **1-D outputs**: half-lines {o ≥ t}, {o ≤ t} and two-sided events |o − m| ≥ r at
    quantiles of both samples, refined geometrically in both tails (always); without
    declared densities, thresholds of a histogram LLR with tail-refined quantile bins —
    unions of intervals, the shape of DP-Sniper's optimal attack on a 1-D output.
(d) **Multi-dimensional outputs**: per-coordinate half-lines; without declared
    densities, half-lines of the largest and smallest coordinate (one shifted coordinate
    at an unknown position, as with shuffled DP-SGD batches); the naive-Bayes
    (column-wise) LLR of :mod:`~privaudit.auditing.distinguish.cell_score`; and without declared
    densities a grouped LLR (dependent categorical columns joined, values scored given
    that they are released), a joint-cell LLR when the discretised rows are few, a
    whitened naive-Bayes LLR for correlated continuous outputs, a logistic score on
    a non-collinear feature map, and — for outputs made of categorical pattern columns
    and value columns with an atom (sparse vectors releasing noisy values) —
    pattern-conditional value thresholds {pattern LLR ≥ s, min released value ≤ t} and
    {pattern LLR ≥ s, max released value ≥ t} (:mod:`~privaudit.auditing.distinguish.patterns`;
    the pattern LLR adds the LLRs of independent blocks of pattern columns).

**Ranking.**  Each candidate's search counts (a, b) — a on the side bounded from below,
b on the other — are turned into conservative estimates of (p_x, p_y) (one-sided Wilson
bounds at 97.5 %), and the candidate is ranked by the ε bound those would give on the
*test* split (:func:`~privaudit.statistics.allocation.predicted_epsilon`), so small
search counts are penalised as they will be on the test split, at the test's size.
Ties are broken by the plug-in ratio, then by family (exact values first, so a
discrete event is reported by its values).  At most K candidates per direction (three
per feature) with distinct counts are kept.  With a budget, each feature keeps its best
candidate per octave of probability (its best three octaves and its best above 1/8);
for a one-dimensional output each feature also nominates its *steadiest* candidate, the
best by strict (three-standard-error) estimates.  A scalar output's ratio is often flat
over a whole tail (the noisy maximum of shifted queries: e^{5/b} for every threshold
below the smallest query), and among hundreds of thresholds of that tail the one-SE
ranking keeps the luckiest small ones; the steadiest is the largest threshold of the
plateau, the one the test can bound most tightly (ReportNoisyMax3: 0.2303 → 0.2476 on
the same pair).  The half-lines and intervals of a black-box scalar output are counted
on up to ``_SCALAR_RANK_ROWS`` rows per side, so that this ranking sees the tail.

**Levels.**  With a ``budget`` (the α shared by the event tests),
:func:`~privaudit.statistics.allocation.plan_events` decides from the search counts how
many of the kept candidates to test and at which levels (weighted Bonferroni, Σ α_i =
budget): one event with all of α when the search split clearly points to it, up to 2K
when it is unsure.  Without a budget every kept event is tested at the given ``alpha``
(the classical 2K events at α/(2K)).

References
----------
.. [1] Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (StatDP: select on one sample, test on
   another).
.. [2] Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021 (DP-Sniper: learned scores;
   the ln(1/c) cap we avoid).
.. [3] Lokna, Paradis, Dimitrov & Vechev, CCS 2023 (Delta-Siege).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privaudit.statistics.allocation import (
    equal_rate_prior,
    plan_events,
    predicted_epsilon,
    wilson_lower,
    wilson_upper,
)
from privaudit.statistics.epsilon_bounds import epsilon_lower_bound
from spec.errors import AuditError

from .cell_score import MI_ROWS, CellFit, CellScore, fit_cell_score
from .events import (
    AbsDeviation,
    Coordinate,
    DiscreteCode,
    Event,
    Feature,
    OrderStatistic,
    ThresholdEvent,
    ValueSetEvent,
    event_mask,
)
from .logistic import fit_logistic_score
from .patterns import (
    PatternAndValue,
    PatternStructure,
    PatternValueEvent,
    ReleasedValue,
    candidate_grid,
    fit_pattern_llr,
    pattern_counts,
    pattern_structure,
)
from .rows import checked_rows, is_discrete, row_keys, row_table

__all__ = ["DIRECTIONS", "SelectedEvents", "select_events"]

#: The two directions: ``x_vs_y`` bounds P[M(x) ∈ S] below and P[M(y) ∈ S] above.
DIRECTIONS = ("x_vs_y", "y_vs_x")
#: Largest number of distinct values for which exact-value sets are formed.
_MAX_VALUES = 100_000
#: Rows per side on which the kind of output (discrete or not, the values of each
#: column for exact-value sets) is decided.
_KIND_ROWS = 1 << 16
#: Rows probed to decide whether exact-value sets are worth forming.
_PROBE = 20_000
#: Largest number of coordinates given half-line events.
_MAX_COORDINATES = 64
#: Candidates per direction that reach the exact ranking / the plan.
_PRESELECT = 32
#: With a declared LLR, outputs of at most this many columns also get a naive-Bayes score.
_LLR_LEARNED_DIMS = 8
#: Learned scores whose candidates reach the plan (each costs a pass over the test split).
_MAX_LEARNED = 2
#: At most this many kept candidates per feature and direction.
_PER_FEATURE = 3
#: At most this many kept candidates per direction from one group of features (the
#: per-coordinate half-lines of a multi-dimensional output).
_PER_GROUP = 4
#: Level of the conservative search estimates used for ranking (one-sided).
_SEARCH_LEVEL = 0.16
#: Level of the strict (three-standard-error) estimates that nominate each feature's
#: steadiest candidate.
_STRICT_LEVEL = 0.00135
#: Largest number of rows per side on which a fixed feature's thresholds are counted.
_RANK_ROWS = 1 << 17
#: The same for the half-lines and intervals of a black-box scalar output (one sort of
#: at most this many values per side).
_SCALAR_RANK_ROWS = 1 << 22
#: The same for learned scores (counted on part B only).
_LEARNED_RANK_ROWS = 1 << 20
#: Share of the search split that fits learned scores (part A).
_FIT_SHARE = 0.5
#: Share of the search split that judges the kept candidates (part C, with a budget).
_JUDGE_SHARE = 0.25
#: Pseudo-count of the joint-cell LLR (joint cells are many and small).
_JOINT_SMOOTHING = 5.0
#: Level of the conservative estimates on part C that centre the plan's posterior.
_JUDGE_LEVEL = 0.025
#: Fewest rows per side in part A for learned scores to be fitted.
_MIN_FIT_ROWS = 200
#: Rows per side of part A from which the pattern family's grids are cut.
_PATTERN_GRID_ROWS = 1 << 17
#: Most distinct rows of a search split counted through a row table (every distinct value
#: of a feature is then a candidate threshold).
_TABLE_ROWS = 4096


@dataclass(frozen=True)
class SelectedEvents:
    """The events chosen on the search split, per direction, their levels, the families.

    ``levels_x_vs_y[i]`` is the error share α_i spent on ``x_vs_y[i]`` (its two CP bounds
    at α_i/2 each), likewise for ``y_vs_x``; empty level tuples mean "the ``alpha``
    passed to :func:`select_events`, for every event".  ``expected_epsilon`` (planned
    selections only) is the plan's objective: the posterior mean, from the judging part
    of the search split, of the best bound the test will report.
    """

    x_vs_y: tuple[Event, ...]
    y_vs_x: tuple[Event, ...]
    families: tuple[str, ...]
    levels_x_vs_y: tuple[float, ...] = ()
    levels_y_vs_x: tuple[float, ...] = ()
    expected_epsilon: float = 0.0

    def for_direction(self, direction: str) -> tuple[Event, ...]:
        """The events of ``direction`` (``"x_vs_y"`` or ``"y_vs_x"``)."""
        return self.x_vs_y if direction == "x_vs_y" else self.y_vs_x

    def levels_for(self, direction: str) -> tuple[float, ...]:
        """The levels of ``direction``'s events (empty: the common ``alpha``)."""
        return self.levels_x_vs_y if direction == "x_vs_y" else self.levels_y_vs_x


@dataclass
class _Candidates:
    """Candidates of one family in one direction: search counts, sizes and a builder."""

    a: np.ndarray
    b: np.ndarray
    n_a: int
    n_b: int
    build: Callable[[int], Event]
    priority: int
    feature: int
    group: str = ""
    learned_id: int = 0


# ----------------------------------------------------------------------------------------
# families
# ----------------------------------------------------------------------------------------
def _threshold_values(*samples: np.ndarray) -> np.ndarray:
    """Candidate thresholds: quantiles, fine tail levels, extreme order statistics."""
    picks = []
    for s in samples:
        n = s.size
        if n == 0:
            continue
        if n <= 4096:
            picks.extend([s, np.nextafter(s[:1], -np.inf), np.nextafter(s[-1:], np.inf)])
            continue
        tail = np.geomspace(1.0 / n, 0.5, 256)
        levels = np.concatenate([np.linspace(0.0, 1.0, 1025), tail, 1.0 - tail])
        idx = np.clip(np.round(levels * (n - 1)).astype(np.int64), 0, n - 1)
        picks.extend([s[idx], s[:64], s[-64:]])
        # just outside the extremes too: events that hold none of this sample's extremes
        picks.extend([np.nextafter(s[:8], -np.inf), np.nextafter(s[-8:], np.inf)])
    if not picks:
        return np.zeros(0)
    return np.unique(np.concatenate(picks))


@dataclass(frozen=True)
class _Sorted:
    """A real feature on two count samples, sorted once, with its candidate thresholds.

    With weights (the counts of distinct rows, :mod:`~privaudit.auditing.distinguish.rows`) the
    values are those of the distinct rows and ``cum_x[i]`` is the weight of the i
    smallest, so counts are read off the cumulative weights instead of positions.
    """

    feature: Feature
    on_x: np.ndarray
    on_y: np.ndarray
    thresholds: np.ndarray
    cum_x: np.ndarray | None = None
    cum_y: np.ndarray | None = None

    @classmethod
    def of(cls, feature: Feature, vx: np.ndarray, vy: np.ndarray,
           wx: np.ndarray | None = None, wy: np.ndarray | None = None) -> _Sorted:
        if wx is None or wy is None:
            sx = np.sort(np.asarray(vx, dtype=np.float64))
            sy = np.sort(np.asarray(vy, dtype=np.float64))
            sx, sy = sx[: np.searchsorted(sx, np.nan)], sy[: np.searchsorted(sy, np.nan)]
            return cls(feature, sx, sy, _threshold_values(sx, sy))
        sides = []
        for v, w in ((vx, wx), (vy, wy)):
            v = np.asarray(v, dtype=np.float64)
            keep = (np.asarray(w) > 0) & ~np.isnan(v)
            order = np.argsort(v[keep], kind="stable")
            values = v[keep][order]
            cum = np.concatenate([[0], np.cumsum(np.asarray(w)[keep][order])]).astype(np.int64)
            sides.append((values, cum))
        (sx, cx), (sy, cy) = sides
        # few distinct values: every one of them (and just outside the extremes) is a
        # candidate threshold
        return cls(feature, sx, sy, _threshold_values(np.unique(sx), np.unique(sy)), cx, cy)

    def count(self, side: str, which: str, t: np.ndarray) -> np.ndarray:
        """#{φ ≥ t} (``which="ge"``) or #{φ ≤ t} (``"le"``) on ``side`` ("x" or "y")."""
        values, cum = (self.on_x, self.cum_x) if side == "x" else (self.on_y, self.cum_y)
        total = values.size if cum is None else int(cum[-1])
        if which == "ge":
            pos = np.searchsorted(values, t, side="left")
            return total - (pos if cum is None else cum[pos])
        pos = np.searchsorted(values, t, side="right")
        return pos if cum is None else cum[pos]


class _Ids:
    """Fresh feature ids (one per feature, side and direction)."""

    def __init__(self) -> None:
        self.next = 0

    def __call__(self) -> int:
        self.next += 1
        return self.next


def _thresholds(sf: _Sorted, direction: str, side: str, priority: int, fid: int,
                n_x: int, n_y: int, group: str = "") -> _Candidates:
    """{φ ≥ t} or {φ ≤ t} over the candidate t, counted on the direction's two sides."""
    first, second = ("x", "y") if direction == "x_vs_y" else ("y", "x")
    na, nb = (n_x, n_y) if direction == "x_vs_y" else (n_y, n_x)
    t = sf.thresholds
    a = np.asarray(sf.count(first, side, t))
    b = np.asarray(sf.count(second, side, t))
    feature = sf.feature

    def build(i: int) -> Event:
        return ThresholdEvent(feature=feature, threshold=float(t[i]), side=side)  # type: ignore[arg-type]

    return _Candidates(a.astype(np.int64), b.astype(np.int64), na, nb, build, priority, fid,
                       group)


#: A part of the search split as codes, with the multiplicity of each (``None``: one).
_Coded = tuple[np.ndarray, "np.ndarray | None"]


def _value_sets(feature: DiscreteCode, fit_a: _Coded, fit_b: _Coded, cnt_a: _Coded,
                cnt_b: _Coded, all_a: _Coded, all_b: _Coded, priority: int, ids: _Ids
                ) -> list[_Candidates]:
    """Prefixes of the codes ordered by their ratio on part A (counted on part B), and
    single codes (counted on the whole search sample).  Each part is (codes, weights):
    the codes of its outputs, or of its distinct rows with their counts."""
    pooled = np.concatenate([all_a[0], all_b[0]])
    pooled = pooled[pooled >= 0]
    if pooled.size and int(pooled.max()) < 1 << 22:     # small codes: bincount, no sort
        codes = np.flatnonzero(np.bincount(pooled)).astype(pooled.dtype)
    else:
        codes = np.unique(pooled)
    if codes.size == 0 or codes.size > _MAX_VALUES:
        return []

    top = int(codes[-1]) + 1

    def counts(part: _Coded) -> np.ndarray:
        v, w = part
        if top <= 1 << 22:                                 # codes are small integers
            inside = v >= 0
            weights = None if w is None else w[inside]
            return np.bincount(v[inside], weights=weights, minlength=top)[codes]
        pos = np.searchsorted(codes, v)
        pos = np.minimum(pos, codes.size - 1)
        ok = codes[pos] == v
        return np.bincount(pos[ok], weights=None if w is None else w[ok],
                           minlength=codes.size)

    def size(part: _Coded) -> int:
        return int(part[0].size if part[1] is None else part[1].sum())

    ratio = (counts(fit_a) + 0.5) / (counts(fit_b) + 0.5)
    order = np.argsort(-ratio, kind="stable")
    prefix_a = np.cumsum(counts(cnt_a)[order])
    prefix_b = np.cumsum(counts(cnt_b)[order])
    single_a, single_b = counts(all_a), counts(all_b)

    def build_prefix(i: int) -> Event:
        return ValueSetEvent(feature=feature, members=tuple(int(c) for c in codes[order[: i + 1]]))

    def build_single(i: int) -> Event:
        return ValueSetEvent(feature=feature, members=(int(codes[i]),))

    return [_Candidates(np.rint(prefix_a).astype(np.int64), np.rint(prefix_b).astype(
                np.int64), size(cnt_a), size(cnt_b), build_prefix, priority, ids()),
            _Candidates(np.rint(single_a).astype(np.int64), np.rint(single_b).astype(
                np.int64), size(all_a), size(all_b), build_single, priority, ids())]


def _pattern_values(structure: PatternStructure, fit_x: np.ndarray, fit_y: np.ndarray,
                    cnt_x: np.ndarray, cnt_y: np.ndarray, ids: _Ids,
                    grouped: CellScore | None = None) -> dict[str, list[_Candidates]]:
    """Pattern-conditional value thresholds (:mod:`~privaudit.auditing.distinguish.patterns`):
    the pattern score is fitted on part A, levels and value thresholds are cut from
    part A, every (level, threshold) event is counted on part B.  ``grouped`` (the
    grouped LLR fitted on part A) supplies the per-column value LLRs of the third
    value feature."""
    score = fit_pattern_llr(fit_x, fit_y, structure.categorical)
    out: dict[str, list[_Candidates]] = {d: [] for d in DIRECTIONS}
    # some released value low / high (min ≤ t, max ≥ t), every released value high / low
    # (min ≥ t, max ≤ t), and the fitted value LLR in the direction's sense
    values: list[tuple[ReleasedValue, dict[str, str]]] = [
        (ReleasedValue(structure.value_columns, structure.atoms, how),  # type: ignore[arg-type]
         {"x_vs_y": side, "y_vs_x": side})
        for how in ("min", "max") for side in ("le", "ge")]
    value_llr = grouped.restricted(structure.value_columns) if grouped is not None else None
    if value_llr is not None:
        values.append((ReleasedValue(structure.value_columns, structure.atoms, "score",
                                     score=value_llr), {"x_vs_y": "ge", "y_vs_x": "le"}))
    feature = PatternAndValue(score, tuple(v for v, _ in values))
    # the events carry one value feature each (shared by the events of that kind), so the
    # judge and the test split compute only the kinds that were chosen
    singles = [PatternAndValue(score, (v,)) for v, _ in values]
    # every feature once per part: (pattern score, value features...) per row; part A
    # only supplies the grids' quantiles, for which a slice of it is plenty
    fitted = np.concatenate([feature(fit_x[:_PATTERN_GRID_ROWS]),
                             feature(fit_y[:_PATTERN_GRID_ROWS])])
    counted_x, counted_y = feature(cnt_x), feature(cnt_y)
    on_x, on_y = counted_x[:, 0], counted_y[:, 0]
    for index, (_value, sides) in enumerate(values):
        levels, thresholds = candidate_grid(fitted[:, 0], fitted[:, 1 + index])
        if levels.size == 0:
            continue
        vx, vy = counted_x[:, 1 + index], counted_y[:, 1 + index]
        for direction, pattern_side in (("x_vs_y", "ge"), ("y_vs_x", "le")):
            side = sides[direction]
            (sa, va), (sb, vb) = ((on_x, vx), (on_y, vy)) if direction == "x_vs_y" else \
                ((on_y, vy), (on_x, vx))
            na, nb = (cnt_x.shape[0], cnt_y.shape[0]) if direction == "x_vs_y" else \
                (cnt_y.shape[0], cnt_x.shape[0])
            a = pattern_counts(sa, va, levels, thresholds, pattern_side=pattern_side, side=side)
            b = pattern_counts(sb, vb, levels, thresholds, pattern_side=pattern_side, side=side)

            def build(i: int, levels: np.ndarray = levels, thresholds: np.ndarray = thresholds,
                      pattern_side: str = pattern_side, side: str = side,
                      index: int = index) -> Event:
                li, ti = divmod(int(i), thresholds.size)
                return PatternValueEvent(feature=singles[index], level=float(levels[li]),
                                         pattern_side=pattern_side,  # type: ignore[arg-type]
                                         value=0, threshold=float(thresholds[ti]),
                                         side=side)  # type: ignore[arg-type]

            out[direction].append(_Candidates(a.ravel().astype(np.int64),
                                              b.ravel().astype(np.int64), na, nb, build, 2,
                                              ids()))
    return out


def _distinct(col: np.ndarray) -> np.ndarray:
    """Sorted distinct non-NaN values of a column (bincount for small integer spans)."""
    if col.dtype.kind in "iub" and col.size:
        lo, hi = int(col.min()), int(col.max())
        if hi - lo < 1 << 16:
            seen = np.bincount((col - lo).astype(np.intp), minlength=hi - lo + 1)
            return (np.flatnonzero(seen) + lo).astype(col.dtype)
        return np.unique(col)
    return np.unique(col[~np.isnan(col.astype(np.float64))])


def _discrete_code(pooled: np.ndarray) -> DiscreteCode | None:
    cols = pooled.reshape(pooled.shape[0], -1)
    columns = tuple(_distinct(cols[:, j]) for j in range(cols.shape[1]))
    if any(c.size == 0 for c in columns):
        return None
    if math.prod(int(c.size) for c in columns) >= 2**62:
        return None
    return DiscreteCode(columns=columns)


def _few_rows(rows: np.ndarray) -> bool:
    """Whether exact-value sets are worth forming: a probe of the rows repeats (at most a
    quarter as many distinct rows as rows probed)."""
    probe = rows[:_PROBE]
    distinct = np.unique(row_keys(probe)).size
    return distinct <= max(16, probe.shape[0] // 4)


# ----------------------------------------------------------------------------------------
# ranking
# ----------------------------------------------------------------------------------------
def _conservative(a: np.ndarray, n_a: np.ndarray, b: np.ndarray, n_b: np.ndarray,
                  level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    lv = _SEARCH_LEVEL if level is None else level
    return (wilson_lower(a, n_a, lv), wilson_upper(b, n_b, lv))


def _pool(families: list[_Candidates], *, delta: float, alpha: float, k: int,
          test_samples: int | None, exact: bool, rate_ratio: bool = False,
          steady: bool = False) -> list[tuple[_Candidates, int, float]]:
    """The kept candidates of one direction, best first: (family, index, score)."""
    families = [f for f in families if f.a.size]
    if not families:
        return []
    a = np.concatenate([f.a for f in families])
    b = np.concatenate([f.b for f in families])
    na = np.concatenate([np.full(f.a.size, f.n_a, dtype=np.float64) for f in families])
    nb = np.concatenate([np.full(f.a.size, f.n_b, dtype=np.float64) for f in families])
    prio = np.concatenate([np.full(f.a.size, f.priority) for f in families])
    owner = np.concatenate([np.full(f.a.size, i) for i, f in enumerate(families)])
    local = np.concatenate([np.arange(f.a.size) for f in families])
    with np.errstate(divide="ignore", invalid="ignore"):
        plug = np.log(np.maximum(a / na - delta, 0.0)) - np.log((b + 0.5) / nb)
    plug = np.where((a > 0) & np.isfinite(plug), plug, -np.inf)
    if test_samples is None:
        # classical ranking: the CP bound on the search split at the test level
        approx = _wilson_search(a, na, b, nb, alpha, delta)
        pool = np.lexsort((prio, -plug, -approx))[: _PRESELECT * k]
        pool = pool[a[pool] > 0]
        if pool.size == 0:
            return []
        score = np.atleast_1d(epsilon_lower_bound(a[pool].astype(np.int64), na[pool].astype(
            np.int64), b[pool].astype(np.int64), nb[pool].astype(np.int64), alpha=alpha,
            delta=delta))
    else:
        return _stratified_pool(families, a, b, na, nb, prio, owner, local, plug,
                                delta=delta, alpha=alpha, k=k, test_samples=test_samples,
                                rate_ratio=rate_ratio, steady=steady)
    order = pool[np.lexsort((prio[pool], -plug[pool], -score))]
    scored = dict(zip(pool.tolist(), score.tolist()))
    chosen: list[tuple[_Candidates, int, float]] = []
    seen: set[tuple[int, int, int, int]] = set()
    per_feature: dict[int, int] = {}
    for i in order:
        fam = families[int(owner[i])]
        key = (int(a[i]), int(b[i]), int(na[i]), int(nb[i]))
        if key in seen or (not exact and per_feature.get(fam.feature, 0) >= _PER_FEATURE):
            continue
        seen.add(key)
        per_feature[fam.feature] = per_feature.get(fam.feature, 0) + 1
        chosen.append((fam, int(local[i]), float(scored[int(i)])))
        if len(chosen) == k:
            break
    return chosen


def _stratified_pool(families: list[_Candidates], a: np.ndarray, b: np.ndarray,
                     na: np.ndarray, nb: np.ndarray, prio: np.ndarray, owner: np.ndarray,
                     local: np.ndarray, plug: np.ndarray, *, delta: float, alpha: float,
                     k: int, test_samples: int, rate_ratio: bool = False,
                     steady: bool = False) -> list[tuple[_Candidates, int, float]]:
    """Up to 2K candidates, diverse in feature and in probability scale.

    Thresholds of one feature differ mostly in how much mass they hold; among many
    small-mass thresholds the luckiest looks best.  So each feature contributes its best
    candidate per octave of P[M(·) ∈ S] (ranked by the bound they predict at the test
    size, from conservative estimates) — its best three octaves and its best octave
    above 1/8 — and part C of the search split, which played no part in this, judges.
    Per-coordinate half-lines of a multi-dimensional output are many features of one
    kind; together they get at most :data:`_PER_GROUP` places, so that their luckiest
    tails cannot crowd out the scores that use every coordinate.  With ``steady`` (scalar
    outputs) each feature also keeps its best candidate by strict estimates at
    :data:`_STRICT_LEVEL`: the widest threshold of a plateau of equal ratio, which the
    one-standard-error ranking loses to the luckiest small thresholds.
    """
    lo, hi = _conservative(a, na, b, nb)
    pred = predicted_epsilon(lo, hi, test_samples, test_samples, alpha=alpha, delta=delta,
                             rate_ratio=rate_ratio)
    strict = predicted_epsilon(*_conservative(a, na, b, nb, _STRICT_LEVEL), test_samples,
                               test_samples, alpha=alpha, delta=delta, rate_ratio=rate_ratio) \
        if steady else None
    octave = np.clip(np.floor(np.log2(np.maximum(a, 0.5) / na)), -30, 0).astype(np.int64)
    order = np.lexsort((prio, -plug, -pred))
    order = order[a[order] > 0]
    if order.size == 0:
        return []
    cell = owner[order] * 64 - octave[order]
    _, first = np.unique(cell, return_index=True)
    best = order[np.sort(first)]                       # best per (feature, octave), best first
    kept: list[int] = []
    for fam_i in np.unique(owner[best]):
        mine = best[owner[best] == fam_i]              # still best first
        take = list(mine[:3])
        wide = mine[octave[mine] >= -3]
        if wide.size and int(wide[0]) not in take:
            take.append(int(wide[0]))
        if steady:
            own = np.flatnonzero((owner == fam_i) & (a > 0))
            steadiest = int(own[np.argmax(strict[own])])
            if steadiest not in take:
                take.append(steadiest)
        kept.extend(int(i) for i in take)
    kept_arr = np.asarray(kept, dtype=np.int64)
    kept_arr = kept_arr[np.lexsort((prio[kept_arr], -plug[kept_arr], -pred[kept_arr]))]
    chosen: list[tuple[_Candidates, int, float]] = []
    seen: set[tuple[int, int, int, int]] = set()
    per_group: dict[str, int] = {}
    for i in kept_arr:
        key = (int(a[i]), int(b[i]), int(na[i]), int(nb[i]))
        group = families[int(owner[i])].group
        if key in seen or (group and per_group.get(group, 0) >= _PER_GROUP):
            continue
        seen.add(key)
        if group:
            per_group[group] = per_group.get(group, 0) + 1
        chosen.append((families[int(owner[i])], int(local[i]), float(pred[i])))
        if len(chosen) == 2 * k:
            break
    return chosen


def _wilson_search(a: np.ndarray, na: np.ndarray, b: np.ndarray, nb: np.ndarray,
                   alpha: float, delta: float) -> np.ndarray:
    """Wilson stand-in for the CP ε bound on the search split itself (pre-selection)."""
    lo = wilson_lower(a, na, alpha / 2.0) - delta
    hi = np.maximum(wilson_upper(b, nb, alpha / 2.0), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi)
    return np.where(lo > 0, np.maximum(eps, 0.0), 0.0)


def _drop_copies(flat: list[tuple[str, Event, int]], rows: np.ndarray,
                 cache: dict[int, np.ndarray]) -> list[tuple[str, Event, int]]:
    """The candidates without later copies: two candidates of one direction that hold the
    same distinct rows (say a learned-score threshold and a set of values) are one event,
    and testing both would split the budget over copies.  The first (best-ranked) stays.
    """
    seen: set[tuple[str, bytes]] = set()
    kept = []
    for d, e, f in flat:
        key = (d, np.packbits(event_mask(e, rows, cache)).tobytes())
        if key not in seen:
            seen.add(key)
            kept.append((d, e, f))
    return kept


# ----------------------------------------------------------------------------------------
# selection
# ----------------------------------------------------------------------------------------
def select_events(search_x: np.ndarray, search_y: np.ndarray, *, delta: float, alpha: float,
                  events_per_direction: int = 8, llr: Feature | None = None,
                  llr_search: tuple[np.ndarray, np.ndarray] | None = None,
                  budget: float | None = None, test_samples: int | None = None,
                  learned: bool = True, llr_thresholds: bool = True,
                  rate_ratio: bool = False, prior_outputs: float = 0.0) -> SelectedEvents:
    """Choose up to K events per direction (and their levels) from the search outputs only.

    Parameters
    ----------
    search_x, search_y : numpy.ndarray
        Search-split outputs of M(x) and M(y), shape (n,) or (n, d).
    delta : float
        The claimed δ at which candidates are ranked.
    alpha : float
        The per-event test level α_e used when no ``budget`` is given (each event's CP
        bounds at α_e/2 per side); with a budget, the reference level of the ranking.
    events_per_direction : int
        K: candidates kept per direction (with a budget: at most 2K are tested).
    llr : Feature, optional
        The declared log-likelihood ratio log p_x − log p_y (family (a)).
    llr_search : pair of arrays, optional
        ``llr`` already evaluated on ``search_x`` and ``search_y``.
    budget : float, optional
        The α shared by all event tests; the levels are then planned from the search
        counts (see the module docstring) and returned with the events.
    test_samples : int, optional
        Test outputs per side (default: the search size); candidates are ranked by the
        bound they are expected to give at this size.
    learned : bool
        Fit learned scores (histogram, cell, logistic); off, only fixed features and
        exact values are used.
    llr_thresholds : bool
        Include family (a) when ``llr`` is given.  Off when the caller tests LLR
        thresholds planned from the declared law already: the declared LLR then only
        marks the densities as declared (so the black-box families are not needed).
    rate_ratio : bool
        The test split is Poissonised and the claim pure, so each event may be bounded
        with the rate-ratio bound: candidates are ranked and planned by the larger of
        the two predicted bounds.
    prior_outputs : float
        Pseudo-outputs at equal rates added to the judging counts before the plan
        (:func:`~privaudit.statistics.allocation.equal_rate_prior`; default 0).

    Returns
    -------
    SelectedEvents
    """
    ox, oy = checked_rows(search_x), checked_rows(search_y)
    if ox.ndim != oy.ndim or (ox.ndim == 2 and ox.shape[1] != oy.shape[1]):
        raise AuditError(f"outputs on x and y differ in shape: {ox.shape} vs {oy.shape}")
    found = _Search(ox, oy, planned=budget is not None, learned=learned)
    if found.discrete and _few_rows(found.rank_x):
        found.exact_values()
    if llr is not None and llr_thresholds:
        lx, ly = llr_search if llr_search is not None else (llr(ox), llr(oy))
        found.thresholds(llr, 0, 0, 1, {"x_vs_y": ("ge",), "y_vs_x": ("le",)},
                         values=(lx, ly))
        found.families.append("LLR thresholds")
    if found.dims == 1:
        found.scalar_families(llr)
    else:
        found.vector_families(llr)
    k = int(events_per_direction)
    if budget is None:
        chosen = {d: _pool(found.per_dir[d], delta=delta, alpha=alpha, k=k,
                           test_samples=None, exact=True) for d in DIRECTIONS}
        return SelectedEvents(
            x_vs_y=tuple(f.build(i) for f, i, _ in chosen["x_vs_y"]),
            y_vs_x=tuple(f.build(i) for f, i, _ in chosen["y_vs_x"]),
            families=tuple(found.families))
    return _planned_selection(found, delta=delta, k=k, budget=budget,
                              test_samples=test_samples, rate_ratio=rate_ratio,
                              prior_outputs=prior_outputs)


class _Search:
    """The search split cut into its parts, and the candidates found on them so far.

    Parts: A = [0, h) fits learned scores, B = [h, r) counts their thresholds, fixed
    features are counted on [0, r); with a budget, C = [r, n) judges the kept candidates.
    Outputs of few distinct small-integer rows (sparse-vector codes, bit vectors) are
    held as a :class:`~privaudit.auditing.distinguish.rows.RowTable` (``table``): every feature is
    evaluated once per distinct row and counted with the rows' multiplicities in each
    part — exactly the counts of a pass over the rows.
    """

    def __init__(self, ox: np.ndarray, oy: np.ndarray, *, planned: bool, learned: bool
                 ) -> None:
        self.ox, self.oy = ox, oy
        n_x, n_y = ox.shape[0], oy.shape[0]
        self.n_x, self.n_y = n_x, n_y
        # the kind of output is decided on a probe of each side (a full pass over millions
        # of rows for np.unique(axis=0) would cost more than everything else)
        self.pooled = np.concatenate([ox[:_KIND_ROWS], oy[:_KIND_ROWS]])
        self.discrete = is_discrete(self.pooled)
        self.dims = 1 if ox.ndim == 1 else ox.shape[1]
        self.per_dir: dict[str, list[_Candidates]] = {d: [] for d in DIRECTIONS}
        self.families: list[str] = []
        self.ids = _Ids()
        self.hx, self.hy = hx, hy = int(n_x * _FIT_SHARE), int(n_y * _FIT_SHARE)
        self.rx, self.ry = rx, ry = (n_x - int(n_x * _JUDGE_SHARE),
                                     n_y - int(n_y * _JUDGE_SHARE)) if planned else (n_x, n_y)
        self.fit_x, self.fit_y = ox[:hx], oy[:hy]
        self.cnt_x, self.cnt_y = ox[hx:rx], oy[hy:ry]
        self.rank_x, self.rank_y = ox[:rx], oy[:ry]
        self.can_learn = learned and min(hx, hy) >= _MIN_FIT_ROWS and \
            min(rx - hx, ry - hy) > 0
        self.table = row_table(ox, oy, max_rows=_TABLE_ROWS) \
            if self.discrete and ox.ndim == 2 else None

    def thresholds(self, feature: Feature, start_x: int, start_y: int, priority: int,
                   sides: dict[str, tuple[str, ...]] | None = None,
                   limit: int = _RANK_ROWS, group: str = "",
                   values: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Threshold candidates of ``feature`` counted on rows [start, start + limit) of
        each side's ranking part (``values``: the feature on the whole search split,
        already computed).  With a row table the feature is evaluated once per distinct
        row and counted with the rows' multiplicities: the same counts."""
        table = self.table
        stop_x, stop_y = min(self.rx, start_x + limit), min(self.ry, start_y + limit)
        if table is not None and values is None:
            on_rows = feature(table.rows)
            wx, wy = table.counts(0, start_x, stop_x), table.counts(1, start_y, stop_y)
            sf = _Sorted.of(feature, on_rows, on_rows, wx, wy)
            nx_, ny_ = int(wx.sum()), int(wy.sum())
        else:
            vx = values[0][start_x:stop_x] if values is not None else \
                feature(self.ox[start_x:stop_x])
            vy = values[1][start_y:stop_y] if values is not None else \
                feature(self.oy[start_y:stop_y])
            sf = _Sorted.of(feature, vx, vy)
            nx_, ny_ = len(vx), len(vy)
        for direction in DIRECTIONS:
            for side in (sides or {}).get(direction, ("ge", "le")):
                self.per_dir[direction].append(
                    _thresholds(sf, direction, side, priority, self.ids(), nx_, ny_, group))

    def learned_score(self, score: Feature | None, family: str) -> None:
        """Threshold candidates of a score fitted on part A, counted on part B."""
        if score is None:
            return
        start = {d: len(self.per_dir[d]) for d in DIRECTIONS}
        self.thresholds(score, self.hx, self.hy, 3, limit=_LEARNED_RANK_ROWS)
        for d in DIRECTIONS:
            for fam in self.per_dir[d][start[d]:]:
                fam.learned_id = id(score)
        self.families.append(family)

    def exact_values(self) -> None:
        """Sets of exact values (or rows) of a discrete output: prefixes by ratio, and
        single values (:func:`_value_sets`)."""
        code = _discrete_code(self.pooled)
        if code is None:
            return
        table, hx, hy, rx, ry = self.table, self.hx, self.hy, self.rx, self.ry
        if table is None:
            cx, cy = code(self.rank_x), code(self.rank_y)
            fx, fy = (cx[:hx], None), (cy[:hy], None)
            kx, ky = (cx[hx:], None), (cy[hy:], None)
            ax, ay = (cx, None), (cy, None)
        else:
            on_rows = code(table.rows)
            fx, fy = (on_rows, table.counts(0, 0, hx)), (on_rows, table.counts(1, 0, hy))
            kx = (on_rows, table.counts(0, hx, rx))
            ky = (on_rows, table.counts(1, hy, ry))
            ax, ay = (on_rows, table.counts(0, 0, rx)), (on_rows, table.counts(1, 0, ry))
        if min(hx, hy) < 1 or min(rx - hx, ry - hy) < 1:
            fx, fy, kx, ky = ax, ay, ax, ay
        fam_xy = _value_sets(code, fx, fy, kx, ky, ax, ay, 0, self.ids)
        fam_yx = _value_sets(code, fy, fx, ky, kx, ay, ax, 0, self.ids)
        if fam_xy and fam_yx:
            self.per_dir["x_vs_y"].extend(fam_xy)
            self.per_dir["y_vs_x"].extend(fam_yx)
            self.families.append("exact values")

    def scalar_families(self, llr: Feature | None) -> None:
        """Half-lines of a 1-D output; without a declared LLR also two-sided intervals
        and (continuous outputs) a histogram LLR."""
        feature = Coordinate()
        vx, vy = feature(self.rank_x), feature(self.rank_y)
        hx, hy = self.hx, self.hy
        # with a declared LLR these are a robustness check: fewer rows suffice
        self.thresholds(feature, 0, 0, 2, values=(vx, vy),
                        limit=_RANK_ROWS // 2 if llr is not None else _SCALAR_RANK_ROWS)
        self.families.append("half-lines")
        if not self.discrete and llr is None:
            centre = float(np.median(np.concatenate([vx[:hx], vy[:hy]]))) if hx and hy \
                else float(np.median(np.concatenate([vx, vy])))
            dev = AbsDeviation(centre)
            self.thresholds(dev, 0, 0, 2, limit=_SCALAR_RANK_ROWS)
            self.families.append("two-sided intervals")
        if not self.discrete and llr is None and self.can_learn:
            self.learned_score(fit_cell_score(self.fit_x, self.fit_y, groups="columns",
                                              bins=64, name="histogram LLR"),
                               "histogram LLR")

    def vector_families(self, llr: Feature | None) -> None:
        """Coordinate half-lines of a d-dimensional output and the learned scores."""
        # with a declared LLR, per-coordinate half-lines only guard against a deviating
        # implementation, which the naive-Bayes score below covers: a few coordinates do
        coords = min(self.dims, _MAX_COORDINATES if llr is None else 4)
        for j in range(coords):
            self.thresholds(Coordinate(index=j, name=f"output[{j}]"), 0, 0, 2,
                            group="coordinates")
        self.families.append("coordinate half-lines")
        if llr is None and not self.discrete:
            # one shifted coordinate at an unknown position (shuffled batches)
            for kind in ("max", "min"):
                self.thresholds(OrderStatistic(kind=kind), 0, 0, 2, group="order statistics")
            self.families.append("order statistics")
        # with a declared LLR the naive-Bayes score is a cheap check of the declared law
        # (it would cost a pass over every column of the test split if chosen)
        if self.can_learn and (llr is None or self.dims <= _LLR_LEARNED_DIMS):
            self.learned_families(llr)

    def learned_families(self, llr: Feature | None) -> None:
        """The cell scores (naive Bayes; without a declared LLR also monotone, grouped,
        joint, whitened), the logistic score and pattern-conditional value thresholds."""
        table, hx, hy = self.table, self.hx, self.hy
        fit_x, fit_y, discrete = self.fit_x, self.fit_y, self.discrete
        ctx = None
        if table is not None:
            # the first MI_ROWS pooled fitting rows (x's first) feed the G-test
            ctx = CellFit.from_distinct_rows(
                table.rows, table.counts(0, 0, hx), table.counts(1, 0, hy),
                table.counts(0, 0, min(hx, MI_ROWS)),
                table.counts(1, 0, min(hy, max(0, MI_ROWS - hx))))
        if ctx is None:
            ctx = CellFit(fit_x, fit_y)
        self.learned_score(fit_cell_score(None, None, groups="columns", context=ctx),
                           "naive-Bayes LLR")
        if llr is not None:
            return
        self.learned_score(fit_cell_score(None, None, groups="columns", monotone=True,
                                          context=ctx), "monotone naive-Bayes LLR")
        grouped = fit_cell_score(None, None, groups="grouped", monotone=True, context=ctx)
        self.learned_score(grouped, "grouped LLR")
        self.learned_score(fit_cell_score(None, None, groups="joint", bins=8,
                                          smoothing=_JOINT_SMOOTHING, context=ctx),
                           "joint-cell LLR")
        continuous = not any(c.exact for c in ctx.coded(32)[0])
        if not discrete and continuous:
            self.learned_score(fit_cell_score(fit_x, fit_y, groups="columns", whiten=True,
                                              monotone=True), "whitened naive-Bayes LLR")
        if not discrete:
            self.learned_score(fit_logistic_score(fit_x, fit_y), "logistic score")
        structure = pattern_structure(self.pooled) if not discrete else None
        if structure is not None:
            for d, fams in _pattern_values(structure, fit_x, fit_y, self.cnt_x, self.cnt_y,
                                           self.ids, grouped).items():
                self.per_dir[d].extend(fams)
            self.families.append("pattern-conditional value thresholds")


def _planned_selection(found: _Search, *, delta: float, k: int, budget: float,
                       test_samples: int | None, rate_ratio: bool, prior_outputs: float
                       ) -> SelectedEvents:
    """Rank the candidates, keep at most :data:`_MAX_LEARNED` learned scores, judge the
    kept candidates on part C and plan how many to test and at which levels
    (:func:`~privaudit.statistics.allocation.plan_events`)."""
    ox, oy, table, rx, ry = found.ox, found.oy, found.table, found.rx, found.ry
    per_dir, families = found.per_dir, found.families
    n_test = int(test_samples) if test_samples is not None else max(found.n_x, found.n_y)
    reference = budget / 4.0
    chosen = {d: _pool(per_dir[d], delta=delta, alpha=reference, k=k, test_samples=n_test,
                       exact=False, rate_ratio=rate_ratio, steady=found.dims == 1)
              for d in DIRECTIONS}
    # learned scores cost a pass over every test output each: keep the candidates of at
    # most _MAX_LEARNED of them (the best-ranked), fixed features are cheap
    ranked = sorted(((s_, d, f, i) for d in DIRECTIONS for f, i, s_ in chosen[d]),
                    key=lambda t: -t[0])
    allowed: list[int] = []
    for _s, _d, f, _i in ranked:
        if f.priority == 3 and f.learned_id not in allowed and len(allowed) < _MAX_LEARNED:
            allowed.append(f.learned_id)
    flat = [(d, f.build(i), f.feature) for d in DIRECTIONS for f, i, _ in chosen[d]
            if f.priority != 3 or f.learned_id in allowed]
    if not flat:
        return SelectedEvents((), (), tuple(families))
    # judge the kept candidates on part C, which took no part in choosing them
    judge = {"x": ox[rx:], "y": oy[ry:]}
    caches: dict[str, dict[int, np.ndarray]] = {"x": {}, "y": {}}
    judge_weights = None if table is None else {"x": table.counts(0, rx), "y": table.counts(1, ry)}

    def count(event: Event, side: str) -> int:
        if judge_weights is not None:
            mask = event_mask(event, table.rows, caches["x"])   # one cache: same rows
            return int(judge_weights[side][mask].sum())
        return int(np.count_nonzero(event_mask(event, judge[side], caches[side])))

    if table is not None:
        flat = _drop_copies(flat, table.rows, caches["x"])

    count_a = np.array([count(e, "x" if d == "x_vs_y" else "y") for d, e, _ in flat])
    count_b = np.array([count(e, "y" if d == "x_vs_y" else "x") for d, e, _ in flat])
    size_a = np.array([judge["x" if d == "x_vs_y" else "y"].shape[0] for d, _e, _f in flat])
    size_b = np.array([judge["y" if d == "x_vs_y" else "x"].shape[0] for d, _e, _f in flat])
    fid = np.array([f for _d, _e, f in flat])
    # a posterior centred on raw counts rewards wide posteriors (the max of noisy values);
    # centring it on conservative estimates keeps the plan from betting on small counts
    if prior_outputs > 0:
        count_a, count_b = equal_rate_prior(count_a, size_a, count_b, size_b, prior_outputs)
    lo, hi = _conservative(count_a, size_a, count_b, size_b, _JUDGE_LEVEL)
    plan = plan_events(lo * size_a, size_a, hi * size_b, size_b, feature=fid, budget=budget,
                       test_a=n_test, test_b=n_test, delta=delta, max_events=2 * k,
                       rate_ratio=rate_ratio)
    events: dict[str, list[Event]] = {d: [] for d in DIRECTIONS}
    levels: dict[str, list[float]] = {d: [] for d in DIRECTIONS}
    for j, level in zip(plan.chosen, plan.levels):
        d, e, _f = flat[j]
        events[d].append(e)
        levels[d].append(float(level))
    return SelectedEvents(
        x_vs_y=tuple(events["x_vs_y"]), y_vs_x=tuple(events["y_vs_x"]),
        families=tuple(families), levels_x_vs_y=tuple(levels["x_vs_y"]),
        levels_y_vs_x=tuple(levels["y_vs_x"]), expected_epsilon=float(plan.objective))
