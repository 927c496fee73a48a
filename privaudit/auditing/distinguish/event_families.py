"""The candidate-event families of :func:`~privaudit.auditing.distinguish.event_candidates.
select_events`, each counted on the search split: thresholds of a real feature (quantiles,
fine tail levels and extreme order statistics, so that events of tiny mass are candidates),
sets of exact values ordered by their ratio on part A, and pattern-conditional value
thresholds (:mod:`~privaudit.auditing.distinguish.patterns`).  Each family is a ``_Candidates``:
search counts in one direction and a builder of the event at each index.  The families
and the split of the search sample are described in ``docs/engine_notes.md``,
"privaudit.auditing.distinguish.event_candidates";
:mod:`~privaudit.auditing.distinguish.event_ranking` ranks them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privaudit.auditing.distinguish.cell_score import CellScore
from privaudit.auditing.distinguish.events import (
    DiscreteCode,
    Event,
    Feature,
    ThresholdEvent,
    ValueSetEvent,
)
from privaudit.auditing.distinguish.patterns import (
    PatternAndValue,
    PatternStructure,
    PatternValueEvent,
    ReleasedValue,
    candidate_grid,
    fit_pattern_llr,
    pattern_counts,
)
from privaudit.auditing.distinguish.rows import row_keys

#: Which tail an event takes: {φ ≥ t} or {φ ≤ t}.
Side = Literal["ge", "le"]

__all__ = ["DIRECTIONS"]

#: The two directions: ``x_vs_y`` bounds P[M(x) ∈ S] below and P[M(y) ∈ S] above.
DIRECTIONS = ("x_vs_y", "y_vs_x")
#: Largest number of distinct values for which exact-value sets are formed.
_MAX_VALUES = 100_000
#: Rows probed to decide whether exact-value sets are worth forming.
_PROBE = 20_000
#: Rows per side of part A from which the pattern family's grids are cut.
_PATTERN_GRID_ROWS = 1 << 17


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
    def of(
        cls,
        feature: Feature,
        vx: np.ndarray,
        vy: np.ndarray,
        wx: np.ndarray | None = None,
        wy: np.ndarray | None = None,
    ) -> _Sorted:
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


def _thresholds(
    sf: _Sorted,
    direction: str,
    side: str,
    priority: int,
    fid: int,
    n_x: int,
    n_y: int,
    group: str = "",
) -> _Candidates:
    """{φ ≥ t} or {φ ≤ t} over the candidate t, counted on the direction's two sides."""
    first, second = ("x", "y") if direction == "x_vs_y" else ("y", "x")
    na, nb = (n_x, n_y) if direction == "x_vs_y" else (n_y, n_x)
    t = sf.thresholds
    a = np.asarray(sf.count(first, side, t))
    b = np.asarray(sf.count(second, side, t))
    feature = sf.feature

    def build(i: int) -> Event:
        return ThresholdEvent(feature=feature, threshold=float(t[i]), side=side)  # type: ignore[arg-type]  # str from the callers, 'ge'/'le'

    return _Candidates(a.astype(np.int64), b.astype(np.int64), na, nb, build, priority, fid, group)


#: A part of the search split as codes, with the multiplicity of each (``None``: one).
_Coded = tuple[np.ndarray, "np.ndarray | None"]


def _value_sets(
    feature: DiscreteCode,
    fit_a: _Coded,
    fit_b: _Coded,
    cnt_a: _Coded,
    cnt_b: _Coded,
    all_a: _Coded,
    all_b: _Coded,
    priority: int,
    ids: _Ids,
) -> list[_Candidates]:
    """Prefixes of the codes ordered by their ratio on part A (counted on part B), and
    single codes (counted on the whole search sample).  Each part is (codes, weights):
    the codes of its outputs, or of its distinct rows with their counts."""
    pooled = np.concatenate([all_a[0], all_b[0]])
    pooled = pooled[pooled >= 0]
    if pooled.size and int(pooled.max()) < 1 << 22:  # small codes: bincount, no sort
        codes = np.flatnonzero(np.bincount(pooled)).astype(pooled.dtype)
    else:
        codes = np.unique(pooled)
    if codes.size == 0 or codes.size > _MAX_VALUES:
        return []

    top = int(codes[-1]) + 1

    def counts(part: _Coded) -> np.ndarray:
        v, w = part
        if top <= 1 << 22:  # codes are small integers
            inside = v >= 0
            weights = None if w is None else w[inside]
            return np.bincount(v[inside], weights=weights, minlength=top)[codes]
        pos = np.searchsorted(codes, v)
        pos = np.minimum(pos, codes.size - 1)
        ok = codes[pos] == v
        return np.bincount(pos[ok], weights=None if w is None else w[ok], minlength=codes.size)

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

    return [
        _Candidates(
            np.rint(prefix_a).astype(np.int64),
            np.rint(prefix_b).astype(np.int64),
            size(cnt_a),
            size(cnt_b),
            build_prefix,
            priority,
            ids(),
        ),
        _Candidates(
            np.rint(single_a).astype(np.int64),
            np.rint(single_b).astype(np.int64),
            size(all_a),
            size(all_b),
            build_single,
            priority,
            ids(),
        ),
    ]


def _pattern_values(
    structure: PatternStructure,
    fit_x: np.ndarray,
    fit_y: np.ndarray,
    cnt_x: np.ndarray,
    cnt_y: np.ndarray,
    ids: _Ids,
    grouped: CellScore | None = None,
    pooled_columns: np.ndarray | None = None,
) -> dict[str, list[_Candidates]]:
    """Pattern-conditional value thresholds (:mod:`~privaudit.auditing.distinguish.patterns`):
    the pattern score is fitted on part A, levels and value thresholds are cut from
    part A, every (level, threshold) event is counted on part B.  ``grouped`` (the
    grouped LLR fitted on part A) supplies the per-column value LLRs of the third
    value feature; ``pooled_columns`` (part A column by column, x's rows first), when
    given, is what the pattern score is fitted from (:func:`~privaudit.auditing.
    distinguish.patterns.fit_pattern_llr`)."""
    score = fit_pattern_llr(fit_x, fit_y, structure.categorical, pooled_columns=pooled_columns)
    out: dict[str, list[_Candidates]] = {d: [] for d in DIRECTIONS}
    # some released value low / high (min ≤ t, max ≥ t), every released value high / low
    # (min ≥ t, max ≤ t), and the fitted value LLR in the direction's sense
    values: list[tuple[ReleasedValue, dict[str, Side]]] = [
        (
            ReleasedValue(structure.value_columns, structure.atoms, how),
            {"x_vs_y": side, "y_vs_x": side},
        )
        for how in ("min", "max")
        for side in ("le", "ge")
    ]
    value_llr = grouped.restricted(structure.value_columns) if grouped is not None else None
    if value_llr is not None:
        values.append(
            (
                ReleasedValue(structure.value_columns, structure.atoms, "score", score=value_llr),
                {"x_vs_y": "ge", "y_vs_x": "le"},
            )
        )
    feature = PatternAndValue(score, tuple(v for v, _ in values))
    # the events carry one value feature each (shared by the events of that kind), so the
    # judge and the test split compute only the kinds that were chosen
    singles = [PatternAndValue(score, (v,)) for v, _ in values]
    # every feature once per part: (pattern score, value features...) per row; part A
    # only supplies the grids' quantiles, for which a slice of it is plenty
    fitted = np.concatenate(
        [feature(fit_x[:_PATTERN_GRID_ROWS]), feature(fit_y[:_PATTERN_GRID_ROWS])]
    )
    counted_x, counted_y = feature(cnt_x), feature(cnt_y)
    on_x, on_y = counted_x[:, 0], counted_y[:, 0]
    for index, (_value, sides) in enumerate(values):
        levels, thresholds = candidate_grid(fitted[:, 0], fitted[:, 1 + index])
        if levels.size == 0:
            continue
        vx, vy = counted_x[:, 1 + index], counted_y[:, 1 + index]
        directions: tuple[tuple[str, Side], ...] = (("x_vs_y", "ge"), ("y_vs_x", "le"))
        for direction, pattern_side in directions:
            side = sides[direction]
            (sa, va), (sb, vb) = (
                ((on_x, vx), (on_y, vy)) if direction == "x_vs_y" else ((on_y, vy), (on_x, vx))
            )
            na, nb = (
                (cnt_x.shape[0], cnt_y.shape[0])
                if direction == "x_vs_y"
                else (cnt_y.shape[0], cnt_x.shape[0])
            )
            a = pattern_counts(sa, va, levels, thresholds, pattern_side=pattern_side, side=side)
            b = pattern_counts(sb, vb, levels, thresholds, pattern_side=pattern_side, side=side)

            def build(
                i: int,
                levels: np.ndarray = levels,
                thresholds: np.ndarray = thresholds,
                pattern_side: Side = pattern_side,
                side: Side = side,
                index: int = index,
            ) -> Event:
                li, ti = divmod(int(i), thresholds.size)
                return PatternValueEvent(
                    feature=singles[index],
                    level=float(levels[li]),
                    pattern_side=pattern_side,
                    value=0,
                    threshold=float(thresholds[ti]),
                    side=side,
                )

            out[direction].append(
                _Candidates(
                    a.ravel().astype(np.int64), b.ravel().astype(np.int64), na, nb, build, 2, ids()
                )
            )
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
