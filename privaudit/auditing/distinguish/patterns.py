"""Pattern-conditional value thresholds: events for outputs made of a code pattern plus values.

For outputs made of categorical *pattern* columns and *value* columns with an atom
(:func:`pattern_structure`, keyed on the output's columns, never on a mechanism), the events
{score(pattern) ≥ s} ∩ {released value ≤ t or ≥ t} (:class:`PatternValueEvent`), with the
pattern scored by a sum of block log-likelihood ratios (:class:`PatternLLR`).  Thresholding
the two parts separately is more robust than thresholding their sum.

References: Lyu, Su & Li, PVLDB 2017; Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021.
Details: ``docs/engine_notes.md``, "privaudit.auditing.distinguish.patterns".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from privaudit.auditing.distinguish.columns import (
    CATEGORICAL_VALUES,
    PROBE_ROWS,
    PackedSum,
    digit_range,
    small_integer_digits,
)
from privaudit.auditing.distinguish.dependence import dependence_groups
from privaudit.auditing.distinguish.rows import output_rows
from privaudit.spec.errors import InvalidParameterError

__all__ = [
    "ATOM_SHARE",
    "CATEGORICAL_VALUES",
    "PatternAndValue",
    "PatternCounts",
    "PatternLLR",
    "PatternStructure",
    "PatternValueEvent",
    "ReleasedValue",
    "candidate_grid",
    "fit_pattern_llr",
    "pattern_counts",
    "pattern_structure",
]

#: A value carrying at least this share of a non-categorical column is its atom.
ATOM_SHARE = 0.05
#: Pseudo-count of the block LLR tables.
_SMOOTHING = 0.5
#: Rows per block when features are evaluated (the block's temporaries stay in cache).
_BLOCK_ROWS = 1 << 14
#: At most this many pattern-score levels and value thresholds per feature.
_MAX_LEVELS = 96
_MAX_THRESHOLDS = 96
#: Rows from which the grids of levels and thresholds are cut.
_GRID_ROWS = 1 << 18


@dataclass(frozen=True)
class PatternStructure:
    """Which columns form the pattern and which hold released values (with their atoms)."""

    categorical: tuple[int, ...]
    value_columns: tuple[int, ...]
    atoms: tuple[float, ...]


def pattern_structure(probe: np.ndarray) -> PatternStructure | None:
    """Split the columns of ``probe`` (rows of both sides) into pattern and value columns.

    Returns ``None`` unless there is at least one categorical column and one value column
    (a column with many values and an atom); other columns are ignored by the family.
    """
    o = np.asarray(probe)
    if o.ndim != 2 or o.shape[1] < 2 or o.dtype.kind not in "biuf":
        return None
    o = o[: PROBE_ROWS * 2]
    categorical, values, atoms = [], [], []
    for j in range(o.shape[1]):
        col = np.asarray(o[:, j], dtype=np.float64)
        col = col[~np.isnan(col)]
        if col.size == 0:
            continue
        distinct, counts = np.unique(col, return_counts=True)
        if distinct.size <= CATEGORICAL_VALUES:
            if distinct.size > 1:
                categorical.append(j)
            continue
        top = int(np.argmax(counts))
        if counts[top] >= ATOM_SHARE * col.size:
            values.append(j)
            atoms.append(float(distinct[top]))
    if not categorical or not values:
        return None
    return PatternStructure(tuple(categorical), tuple(values), tuple(atoms))


@dataclass(frozen=True, eq=False)
class ReleasedValue:
    """One number per row from its released values (the values of the value columns that
    differ from their atoms), NaN when the row releases none.

    ``how="min"`` / ``"max"``: the smallest / largest released value; ``"score"``: a
    fitted function of the released values (``score``, e.g. the sum of per-column value
    LLRs given that a value is released, whose direction may differ per column).
    """

    columns: tuple[int, ...]
    atoms: tuple[float, ...]
    how: Literal["min", "max", "score"] = "min"
    score: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    name: str = ""

    def __post_init__(self) -> None:
        if self.how == "score" and self.score is None:
            raise ValueError("how='score' needs a score")
        if not self.name:
            label = "released-value LLR" if self.how == "score" else f"{self.how} released value"
            object.__setattr__(self, "name", label)

    def released(self, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows as 2-D, value columns as float, mask of released entries); the last two
        are transposed, one contiguous row per value column."""
        o = output_rows(outputs)
        vals = np.take(o, self.columns, axis=1).T.astype(np.float64, order="C")
        return o, vals, vals != np.asarray(self.atoms, dtype=np.float64)[:, None]

    def __call__(
        self, outputs: np.ndarray, read: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    ) -> np.ndarray:
        """The feature per row; ``read`` is :meth:`released` of ``outputs``, if at hand."""
        o, vals, released = read if read is not None else self.released(outputs)
        if self.how == "score":
            if self.score is None:
                raise InvalidParameterError("a released-value feature of how='score' needs a score")
            out = np.asarray(self.score(o), dtype=np.float64).copy()
        else:
            fill = np.inf if self.how == "min" else -np.inf
            pick = np.minimum if self.how == "min" else np.maximum
            # column by column (min and max do not round: the order is immaterial)
            out = np.full(vals.shape[1], fill)
            for column, mask in zip(vals, released, strict=True):
                pick(out, np.where(mask, column, fill), out=out)
        out[~np.logical_or.reduce(released, axis=0)] = np.nan
        return out


@dataclass(frozen=True, eq=False)
class _Block:
    """One block of dependent categorical columns: per-column sorted values and an LLR
    per joint cell (mixed-radix key)."""

    columns: tuple[int, ...]
    values: tuple[np.ndarray, ...] = field(repr=False)
    table: np.ndarray = field(repr=False)  # LLR per key; unseen keys score 0
    _lookups: tuple[_CellLookup, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # each column's value lookup, built once (key() runs once per block of rows)
        object.__setattr__(self, "_lookups", tuple(_CellLookup.of(v) for v in self.values))

    def key(self, o: np.ndarray) -> np.ndarray:
        k = np.zeros(o.shape[0], dtype=np.int64)
        for j, lookup in zip(self.columns, self._lookups, strict=True):
            k *= lookup.values.size + 1
            k += lookup(np.asarray(o[:, j], dtype=np.float64))
        return k

    def packed_key(self, positions: tuple[int, ...], lo: int, base: int, width: int) -> PackedSum:
        """:meth:`key` from a digit matrix (:func:`~privaudit.auditing.distinguish.columns.
        small_integer_digits` with ``lo``; the block's columns at ``positions``): the
        mixed-radix key is Σ_c code_c(lo + d_c) · (product of the later radices)."""
        terms = []
        multiplier = 1
        decoded = lo + np.arange(base, dtype=np.float64)
        for lookup in reversed(self._lookups):
            terms.append(lookup(decoded) * multiplier)
            multiplier *= lookup.values.size + 1
        return PackedSum.of(positions, terms[::-1], base, width)


@dataclass(frozen=True, eq=False)
class _CellLookup:
    """Index of each value in the sorted ``values`` (``values.size`` when absent): a table
    lookup for small integer codes (the usual ⊤ / ⊥ / aborted), else a search."""

    values: np.ndarray
    table: np.ndarray | None = None  # code of each integer lo … lo + span, if small

    @classmethod
    def of(cls, values: np.ndarray) -> _CellLookup:
        lo, span = float(values[0]), float(values[-1] - values[0])
        if span < 64 and np.all(values == np.round(values)):
            table = np.full(int(span) + 1, values.size, dtype=np.int64)
            table[(values - lo).astype(np.int64)] = np.arange(values.size)
            return cls(values, table)
        return cls(values)

    def __call__(self, col: np.ndarray) -> np.ndarray:
        vals = self.values
        if self.table is not None:
            shifted = col - vals[0]
            ok = (shifted >= 0) & (shifted < self.table.size) & (shifted == np.round(shifted))
            return np.where(ok, self.table[np.where(ok, shifted, 0).astype(np.int64)], vals.size)
        pos = np.minimum(np.searchsorted(vals, col), vals.size - 1)
        # a value never seen on the fitting rows takes the extra cell (LLR 0)
        return np.where(vals[pos] == col, pos, vals.size)


@dataclass(frozen=True, eq=False)
class _PackedBlocks:
    """Every block's key from one digit matrix of the pattern's columns (entries
    ``lo`` … ``hi``): a few table lookups per row instead of a lookup per column."""

    columns: tuple[int, ...]
    lo: int
    hi: int
    keys: tuple[PackedSum, ...] = field(repr=False)

    @classmethod
    def of(cls, blocks: tuple[_Block, ...]) -> _PackedBlocks | None:
        """``None`` unless every column's values are integers of one small range
        (:func:`~privaudit.auditing.distinguish.columns.digit_range`; sparse-vector codes)."""
        lookups = [lk for b in blocks for lk in b._lookups]
        if not lookups or any(lk.table is None for lk in lookups):
            return None
        bounds = digit_range([lk.values[0] for lk in lookups], [lk.values[-1] for lk in lookups])
        if bounds is None:
            return None
        lo, hi = bounds
        columns = tuple(dict.fromkeys(j for b in blocks for j in b.columns))
        where = {j: i for i, j in enumerate(columns)}
        keys = tuple(
            b.packed_key(tuple(where[j] for j in b.columns), lo, hi - lo + 1, len(columns))
            for b in blocks
        )
        return cls(columns=columns, lo=lo, hi=hi, keys=keys)


@dataclass(frozen=True, eq=False)
class PatternLLR:
    """Σ over blocks of the estimated log-likelihood ratio of the block's cell.

    When the pattern columns hold small integers (:class:`_PackedBlocks`) each block of
    rows reads them once, as digits, and every block's key comes from packed table
    lookups; a block of rows holding any other value is keyed column by column.  Both
    give the same keys, so the scores are the same to the bit.
    """

    blocks: tuple[_Block, ...] = field(repr=False)
    name: str = "pattern LLR"

    def _packed(self) -> _PackedBlocks | None:
        """The packed keys, built on first use (an unpickled score builds them too)."""
        if "_packed_blocks" not in self.__dict__:
            object.__setattr__(self, "_packed_blocks", _PackedBlocks.of(self.blocks))
        return self.__dict__["_packed_blocks"]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        total = np.zeros(o.shape[0], dtype=np.float64)
        packed = self._packed()
        for start in range(0, o.shape[0], _BLOCK_ROWS):  # blocks that stay in cache
            part = o[start : start + _BLOCK_ROWS]
            acc = total[start : start + _BLOCK_ROWS]
            if (
                packed is None
                or (digits := small_integer_digits(part, packed.columns, packed.lo, packed.hi))
                is None
            ):
                keys = [b.key(part) for b in self.blocks]
            else:
                keys = [key(digits) for key in packed.keys]
            for b, key in zip(self.blocks, keys, strict=True):
                acc += b.table[key]
        return total


def fit_pattern_llr(
    fit_x: np.ndarray,
    fit_y: np.ndarray,
    columns: tuple[int, ...],
    *,
    smoothing: float = _SMOOTHING,
    pooled_columns: np.ndarray | None = None,
) -> PatternLLR:
    """Fit :class:`PatternLLR` on the categorical ``columns`` of the fitting rows.

    Blocks are the connected components of significantly dependent columns
    (:func:`~privaudit.auditing.distinguish.dependence.dependence_groups`, G-test at level 10⁻⁶);
    each block's table is log((n_x(c) + λ)/(N_x + λm)) − log((n_y(c) + λ)/(N_y + λm)).

    ``pooled_columns``, when given, holds the same fitting rows column by column, shape
    (d, n_x + n_y) with x's rows first (:class:`~privaudit.auditing.distinguish.
    cell_score.CellFit`'s ``columns``): each pattern column is then read from it, one
    contiguous row, instead of from a copy of the rows (the same values, so the same
    score).
    """
    ox = np.asarray(fit_x).reshape(np.shape(fit_x)[0], -1)
    oy = np.asarray(fit_y).reshape(np.shape(fit_y)[0], -1)
    n_x, n_y = ox.shape[0], oy.shape[0]
    if pooled_columns is not None:
        if pooled_columns.ndim != 2 or pooled_columns.shape[1] != n_x + n_y:
            raise InvalidParameterError(
                f"pooled_columns of shape {pooled_columns.shape} do not hold the "
                f"{n_x} + {n_y} fitting rows column by column"
            )
        pattern_columns = [np.asarray(pooled_columns[j], dtype=np.float64) for j in columns]
    else:
        pooled = np.concatenate([ox[:, list(columns)], oy[:, list(columns)]]).astype(np.float64)
        pattern_columns = [pooled[:, i] for i in range(len(columns))]
    values, codes = [], []
    for column in pattern_columns:
        # categorical columns: their values from a probe, the rest share an extra cell
        v = np.unique(column[:PROBE_ROWS])
        v = v[~np.isnan(v)] if v.size else np.zeros(1)
        values.append(v)
        codes.append(_CellLookup.of(v)(column))
    sizes = [v.size + 1 for v in values]
    groups = dependence_groups(codes, sizes, max_cells=max(16, (n_x + n_y) // 20))
    blocks = []
    for g in groups:
        radix = [sizes[i] for i in g]
        space = math.prod(radix)
        key = np.zeros(n_x + n_y, dtype=np.int64)
        for i, r in zip(g, radix, strict=True):
            key = key * r + codes[i]
        cx = np.bincount(key[:n_x], minlength=space).astype(np.float64)
        cy = np.bincount(key[n_x:], minlength=space).astype(np.float64)
        seen = int(np.count_nonzero(cx + cy)) + 1
        table = (np.log(cx + smoothing) - math.log(n_x + smoothing * seen)) - (
            np.log(cy + smoothing) - math.log(n_y + smoothing * seen)
        )
        table[(cx + cy) == 0] = 0.0
        blocks.append(
            _Block(
                columns=tuple(columns[i] for i in g),
                values=tuple(values[i] for i in g),
                table=table,
            )
        )
    return PatternLLR(blocks=tuple(blocks))


@dataclass(frozen=True, eq=False)
class PatternAndValue:
    """The pattern score and every value feature of each row, shape (N, 1 + len(values)):
    one evaluation serves every :class:`PatternValueEvent` built on it."""

    pattern: PatternLLR
    values: tuple[ReleasedValue, ...]
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"{self.pattern.name} and released values")

    @property
    def joint_key(self) -> int:
        """Features with equal keys share their pattern score: :meth:`evaluate_jointly`
        computes it once for all of them (:func:`~privaudit.auditing.distinguish.events.
        fill_feature_cache`)."""
        return id(self.pattern)

    @staticmethod
    def evaluate_jointly(
        features: Sequence[PatternAndValue], outputs: np.ndarray
    ) -> list[np.ndarray]:
        """Each feature's rows, from one pass over ``outputs``: the shared pattern score and
        each value column's read once per block of rows, every distinct value feature
        once.  Each feature's columns equal its own evaluation's bit for bit (every entry
        is computed by the same functions on the same row)."""
        pattern = features[0].pattern
        if any(f.pattern is not pattern for f in features):
            raise InvalidParameterError("features evaluated jointly must share their pattern score")
        distinct = list({id(v): v for f in features for v in f.values}.values())
        position = {id(v): 1 + i for i, v in enumerate(distinct)}
        rows = PatternAndValue(pattern, tuple(distinct), name="joint")(outputs)
        return [rows[:, [0, *(position[id(v)] for v in f.values)]] for f in features]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = output_rows(outputs)
        out = np.empty((o.shape[0], 1 + len(self.values)), dtype=np.float64)
        for start in range(0, o.shape[0], _BLOCK_ROWS):  # blocks that stay in cache
            part = o[start : start + _BLOCK_ROWS]
            rows = out[start : start + _BLOCK_ROWS]
            rows[:, 0] = self.pattern(part)
            shared: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
            for i, v in enumerate(self.values):
                key = (v.columns, v.atoms)  # value columns read once
                if key not in shared:
                    shared[key] = v.released(part)
                rows[:, 1 + i] = v(part, shared[key])
        return out


@dataclass(frozen=True, eq=False)
class PatternValueEvent:
    """S = {pattern score ⋚ level} ∩ {value feature ``value`` ⋚ threshold} (a row
    without a released value is in S when its pattern is)."""

    feature: PatternAndValue
    level: float
    pattern_side: Literal["ge", "le"]
    value: int
    threshold: float
    side: Literal["ge", "le"]
    description: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.value < len(self.feature.values):
            raise ValueError(f"value feature index {self.value} out of range")
        if not self.description:
            ps = ">=" if self.pattern_side == "ge" else "<="
            vs = ">=" if self.side == "ge" else "<="
            value = (
                ""
                if math.isinf(self.threshold)
                else f" and {self.feature.values[self.value].name} {vs} {self.threshold:.6g}"
            )
            object.__setattr__(
                self, "description", f"{self.feature.pattern.name} {ps} {self.level:.6g}{value}"
            )

    def mask(self, values: np.ndarray) -> np.ndarray:
        """Membership from precomputed feature rows (:class:`PatternAndValue`)."""
        score, v = values[:, 0], values[:, 1 + self.value]
        inside = score >= self.level if self.pattern_side == "ge" else score <= self.level
        with np.errstate(invalid="ignore"):
            ok = v <= self.threshold if self.side == "le" else v >= self.threshold
        return inside & (ok | np.isnan(v))

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        """Which outputs lie in S."""
        return self.mask(self.feature(outputs))


@dataclass(frozen=True)
class PatternCounts:
    """Counts of every (level, threshold) event on the counting rows of one side.

    ``counts[i, k]`` counts the rows with pattern score on the event's side of
    ``levels[i]`` and released value on its side of ``thresholds[k]`` (or no value).
    """

    levels: np.ndarray
    thresholds: np.ndarray
    counts: np.ndarray


def _grid(values: np.ndarray, limit: int) -> np.ndarray:
    """At most ``limit`` cut points: quantiles with geometrically refined tails."""
    v = np.sort(values[np.isfinite(values)])
    if v.size == 0:
        return np.zeros(0)
    if np.unique(v).size <= limit:
        return np.unique(v)
    half = limit // 4
    tail = np.geomspace(min(1.0, 8.0 / v.size), 0.25, half)
    levels = np.unique(np.concatenate([np.linspace(0.0, 1.0, limit - 2 * half), tail, 1.0 - tail]))
    return np.unique(np.quantile(v, levels, method="inverted_cdf"))


def pattern_counts(
    score: np.ndarray,
    value: np.ndarray,
    levels: np.ndarray,
    thresholds: np.ndarray,
    *,
    pattern_side: str,
    side: str,
) -> np.ndarray:
    """Counts of {score ⋚ level} ∩ {value ⋚ threshold, or no value} for every (level,
    threshold), shape (levels, thresholds), from one 2-D histogram (no loop over rows).

    A row's level index l is such that it lies in the events of levels i < l (``"ge"``:
    l = #levels ≤ score) or i ≥ l (``"le"``: l = #levels < score); likewise for the
    thresholds, and a row without a released value lies in every threshold's event.
    """
    nl, nt = levels.size, thresholds.size
    li = np.searchsorted(levels, score, side="right" if pattern_side == "ge" else "left")
    ti = np.searchsorted(thresholds, value, side="left" if side == "le" else "right")
    ti = np.where(np.isnan(value), 0 if side == "le" else nt, ti)
    hist = np.bincount(li * (nt + 1) + ti, minlength=(nl + 1) * (nt + 1)).reshape(nl + 1, nt + 1)
    if pattern_side == "ge":
        by_level = np.cumsum(hist[::-1], axis=0)[::-1][1:]  # rows with l > i
    else:
        by_level = np.cumsum(hist, axis=0)[:nl]  # rows with l ≤ i
    if side == "le":
        return np.cumsum(by_level, axis=1)[:, :nt]  # rows with t ≤ k
    return np.cumsum(by_level[:, ::-1], axis=1)[:, ::-1][:, 1:]  # rows with t > k


def candidate_grid(fit_score: np.ndarray, fit_value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pattern-score levels and value thresholds (±∞ included) from the fitting rows (an
    evenly spaced subsample of at most :data:`_GRID_ROWS` of them: quantiles need no
    more)."""
    step = max(1, fit_score.size // _GRID_ROWS)
    levels = _grid(fit_score[::step], _MAX_LEVELS)
    thresholds = np.concatenate([[-np.inf], _grid(fit_value[::step], _MAX_THRESHOLDS), [np.inf]])
    return levels, thresholds
