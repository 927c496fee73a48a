"""Events (rejection regions) S and the output features they are defined through.

An :class:`Event` has a ``description`` and a vectorised ``contains(outputs)``; the concrete
events are a feature followed by a cheap test (:class:`ThresholdEvent`,
:class:`ValueSetEvent`), so each feature is computed once per sample and K events are K
masks (:meth:`mask`).  Features: :class:`LogLikelihoodRatio` (rounded, :func:`llr_from`),
:class:`Coordinate`, :class:`LinearScore`, :class:`AbsDeviation`, :class:`DiscreteCode`,
:class:`BinIndex`.  Every event is fixed before the test split is looked at.

References: Ding, Wang, Wang, Zhang & Kifer, ACM CCS 2018; Bichsel, Steffen, Bogunovic &
Vechev, IEEE S&P 2021.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.distinguish.events".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from privaudit.auditing.distinguish.densities import LogDensity
from privaudit.auditing.distinguish.rows import squeeze_rows

__all__ = [
    "LLR_DECIMALS",
    "AbsDeviation",
    "BinIndex",
    "Coordinate",
    "DiscreteCode",
    "Event",
    "Feature",
    "LinearScore",
    "LogLikelihoodRatio",
    "OrderStatistic",
    "ThresholdEvent",
    "ValueSetEvent",
    "event_mask",
    "fill_feature_cache",
    "llr_from",
    "llr_round",
    "score_features",
]

#: Largest code space for which membership is a table lookup (beyond: ``np.isin``).
_TABLE_LIMIT = 1 << 24


@runtime_checkable
class Event(Protocol):
    """A rejection region S: a description and a vectorised membership test."""

    @property
    def description(self) -> str:
        """What S is, in words (read-only: events are frozen)."""

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        """Boolean array of shape (N,): which of the N outputs lie in S."""


@runtime_checkable
class Feature(Protocol):
    """A function of one output, vectorised: outputs (N,) or (N, d) → array (N,)."""

    @property
    def name(self) -> str:
        """The feature's name, in words (read-only: features are frozen)."""

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        """The feature of each output."""


# ----------------------------------------------------------------------------------------
# features
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LogLikelihoodRatio:
    """L(o) = log p_x(o) − log p_y(o) under the declared law (NaN → 0).

    ``direct``, when given, computes log p_x − log p_y in one go (e.g. on the differing
    coordinates only, :func:`~privaudit.auditing.distinguish.densities.declared_llr`); the same
    rounding is applied either way.
    """

    log_p_x: LogDensity = field(repr=False)
    log_p_y: LogDensity = field(repr=False)
    name: str = "LLR"
    direct: LogDensity | None = field(default=None, repr=False)
    #: Round ``direct`` values as :func:`llr_from` does.  Only needed when the loss has
    #: atoms (Laplace noise: ±Δ/b on whole half-lines); without atoms a difference of
    #: one ulp between the two samples' granularities has probability zero, so NaN → 0
    #: is all that is applied.
    round_direct: bool = True

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        if self.direct is not None:
            if self.round_direct:
                return llr_round(self.direct(outputs))
            value = np.atleast_1d(np.asarray(self.direct(outputs), dtype=np.float64))
            np.copyto(value, 0.0, where=np.isnan(value))
            return value
        return llr_from(self.log_p_x(outputs), self.log_p_y(outputs))


#: Decimals kept in log-likelihood ratios (see :func:`llr_from`).
LLR_DECIMALS = 9


def llr_from(log_px: np.ndarray, log_py: np.ndarray) -> np.ndarray:
    """log p_x − log p_y, rounded to :data:`LLR_DECIMALS` decimals; NaN (∞ − ∞) read as 0.

    The rounding matters.  Outputs of M(x) and M(y) carry different floating-point
    granularity (f(x) + Z and f(y) + Z round differently), so an LLR with atoms — the
    Laplace LLR is exactly ±Δ/b on whole half-lines — comes out as ±Δ/b ± 1 ulp with
    *different frequencies* on the two samples, and a threshold one ulp above the atom
    separates them perfectly.  That is a genuine floating-point leak of the sampler
    (Mironov 2012), but it is not what an idealized-numerics claim is about and not what
    the declared LLR means; rounding to 10⁻⁹ merges such atoms again on both sides.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        value = np.atleast_1d(
            np.subtract(np.asarray(log_px, dtype=np.float64), np.asarray(log_py, dtype=np.float64))
        )
    return llr_round(value)


def llr_round(value: np.ndarray) -> np.ndarray:
    """NaN → 0 and rounding to :data:`LLR_DECIMALS` decimals (in place when possible)."""
    value = np.atleast_1d(np.asarray(value, dtype=np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        np.copyto(value, 0.0, where=np.isnan(value))
        # np.round(value, 9): multiply by 10⁹, round half to even, divide (in place)
        value *= _SCALE
        np.rint(value, out=value)
        value /= _SCALE
        return value


_SCALE = 10.0**LLR_DECIMALS


@dataclass(frozen=True, eq=False)
class Coordinate:
    """The output itself (``index=None``, 1-D outputs) or its column ``index``."""

    index: int | None = None
    name: str = "output"

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = squeeze_rows(outputs)
        if self.index is None:
            return np.asarray(o, dtype=np.float64).reshape(o.shape[0])
        return np.asarray(o[:, self.index], dtype=np.float64)


@dataclass(frozen=True, eq=False)
class OrderStatistic:
    """The largest (``kind="max"``) or smallest (``kind="min"``) coordinate of a row.

    Its half-lines are the shape of the most powerful test against a shift of one
    coordinate whose position is random and unknown (a mixture over positions, as in
    DP-SGD with shuffled batches: Chua et al., "How Private are DP-SGD
    Implementations?", ICML 2024, §4, test on the maximum batch answer), which no
    per-coordinate or linear score catches.
    """

    kind: str = "max"
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("max", "min"):
            raise ValueError(f"kind must be 'max' or 'min', got {self.kind!r}")
        if not self.name:
            object.__setattr__(self, "name", f"{self.kind} coordinate")

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs, dtype=np.float64)
        o = o.reshape(o.shape[0], -1)
        return o.max(axis=1) if self.kind == "max" else o.min(axis=1)


@dataclass(frozen=True, eq=False)
class LinearScore:
    """s(o) = b + Σ_j w_j ψ_j(o) with ψ = (z, z², |z|), z = (o − centre)/scale per column."""

    centre: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    bias: float = 0.0
    name: str = "learned score"

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self.bias + score_features(outputs, self.centre, self.scale) @ self.weights


def score_features(outputs: np.ndarray, centre: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """ψ(o) = (z, z², |z|) per column, z = (o − centre)/scale; shape (N, 3d)."""
    o = np.asarray(outputs, dtype=np.float64)
    o = o.reshape(o.shape[0], -1)
    z = (o - centre) / scale
    z = np.where(np.isfinite(z), z, 0.0)
    return np.concatenate([z, z * z, np.abs(z)], axis=1)


@dataclass(frozen=True, eq=False)
class AbsDeviation:
    """|o − centre| for a 1-D output: its thresholds are two-sided events."""

    centre: float
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"|output - {self.centre:.6g}|")

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs, dtype=np.float64).reshape(np.asarray(outputs).shape[0])
        return np.abs(o - self.centre)


@dataclass(frozen=True, eq=False)
class DiscreteCode:
    """Integer code of an output value or row: a mixed-radix index into per-column values.

    ``columns[j]`` holds the sorted distinct values seen in column j on the search split;
    a row is coded by its per-column positions, and rows with any unseen value get −1.
    """

    columns: tuple[np.ndarray, ...] = field(repr=False)
    name: str = "output"

    @property
    def size(self) -> int:
        """Number of possible codes (the product of the column sizes)."""
        return int(np.prod([c.size for c in self.columns], dtype=np.float64))

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = squeeze_rows(outputs)
        o2 = o.reshape(o.shape[0], -1)
        if len(self.columns) == 1 and o2.dtype.kind in "iu":
            lookup = self._lookup()
            if lookup is not None:  # small integer span: a table lookup
                lo, table = lookup
                col = o2[:, 0].astype(np.int64) - lo
                inside = (col >= 0) & (col < table.size)
                return np.where(inside, table[np.where(inside, col, 0)], -1)
        code = np.zeros(o2.shape[0], dtype=np.int64)
        valid = np.ones(o2.shape[0], dtype=bool)
        for j, values in enumerate(self.columns):
            col = o2[:, j]
            pos = np.searchsorted(values, col)
            pos_c = np.minimum(pos, values.size - 1)
            valid &= values[pos_c] == col
            code = code * values.size + pos_c
        return np.where(valid, code, -1)

    def _lookup(self) -> tuple[int, np.ndarray] | None:
        """(lowest value, code of every integer from it) for one integer column of span
        ≤ 2¹⁶ (−1 for integers never seen), else ``None``."""
        values = self.columns[0]
        if values.dtype.kind not in "iu" or values.size == 0:
            return None
        lo, hi = int(values[0]), int(values[-1])
        if hi - lo >= 1 << 16:
            return None
        table = np.full(hi - lo + 1, -1, dtype=np.int64)
        table[values.astype(np.int64) - lo] = np.arange(values.size)
        return lo, table

    def decode(self, code: int) -> tuple:
        """The output value (1 column) or row tuple of a code."""
        parts = []
        for values in reversed(self.columns):
            code, r = divmod(int(code), values.size)
            parts.append(values[r].item())
        parts.reverse()
        return parts[0] if len(parts) == 1 else tuple(parts)


@dataclass(frozen=True, eq=False)
class BinIndex:
    """Index of the bin of a 1-D output: bin i is [edges[i−1], edges[i]) (open ends)."""

    edges: np.ndarray = field(repr=False)
    name: str = "output"

    @property
    def size(self) -> int:
        """Number of bins (len(edges) + 1)."""
        return int(self.edges.size + 1)

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(squeeze_rows(outputs), dtype=np.float64)
        idx = np.searchsorted(self.edges, o, side="right").astype(np.int64)
        return np.where(np.isnan(o), -1, idx)

    def interval(self, first: int, last: int | None = None) -> str:
        """Bins ``first`` … ``last`` (default: just ``first``) as one interval, as text."""
        last = first if last is None else last
        lo = "-inf" if first == 0 else f"{self.edges[first - 1]:.6g}"
        hi = "inf" if last == self.edges.size else f"{self.edges[last]:.6g}"
        return f"[{lo}, {hi})"


# ----------------------------------------------------------------------------------------
# events
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ThresholdEvent:
    """S = {φ(o) ≥ t} (``side="ge"``) or {φ(o) ≤ t} (``side="le"``)."""

    feature: Feature
    threshold: float
    side: Literal["ge", "le"]
    description: str = ""

    def __post_init__(self) -> None:
        if not self.description:
            op = ">=" if self.side == "ge" else "<="
            object.__setattr__(
                self, "description", f"{self.feature.name} {op} {self.threshold:.6g}"
            )

    def mask(self, values: np.ndarray) -> np.ndarray:
        """Membership from precomputed feature values."""
        if self.side == "ge":
            return values >= self.threshold
        return values <= self.threshold

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        """Which outputs lie in S."""
        return self.mask(self.feature(outputs))


@dataclass(frozen=True, eq=False)
class ValueSetEvent:
    """S = {code(o) ∈ members} for an integer-coded feature (values, rows or bins)."""

    feature: DiscreteCode | BinIndex
    members: tuple[int, ...]
    description: str = ""
    _table: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        members = np.asarray(self.members, dtype=np.int64)
        if self.feature.size <= _TABLE_LIMIT:
            table = np.zeros(self.feature.size + 1, dtype=bool)  # slot 0 is code −1
            table[members + 1] = True
        else:
            table = np.sort(members)
        object.__setattr__(self, "_table", table)
        if not self.description:
            object.__setattr__(self, "description", self._describe())

    def _describe(self) -> str:
        feature = self.feature
        members = sorted(self.members)
        if isinstance(feature, BinIndex):
            runs: list[list[int]] = []  # merge adjacent bins
            for i in members:
                if runs and i == runs[-1][1] + 1:
                    runs[-1][1] = i
                else:
                    runs.append([i, i])
            shown = [feature.interval(lo, hi) for lo, hi in runs[:6]]
            more = f" ∪ … ({len(runs)} intervals)" if len(runs) > 6 else ""
            return f"{feature.name} in {' ∪ '.join(shown)}{more}"
        values = ", ".join(repr(feature.decode(c)) for c in members[:8])
        more = f", … ({len(members)} values)" if len(members) > 8 else ""
        return f"{feature.name} in {{{values}{more}}}"

    def mask(self, values: np.ndarray) -> np.ndarray:
        """Membership from precomputed codes."""
        codes = np.asarray(values, dtype=np.int64)
        if self._table.dtype == bool:
            return self._table[codes + 1]
        return np.isin(codes, self._table)

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        """Which outputs lie in S."""
        return self.mask(self.feature(outputs))


def fill_feature_cache(
    events: Iterable[Event], outputs: np.ndarray, cache: dict[int, np.ndarray]
) -> None:
    """Put into ``cache`` (as :func:`event_mask` keys it) the values of the features of
    ``events`` that share work with one another, computed together.

    A feature shares work when it has a ``joint_key`` and a static ``evaluate_jointly(
    features, outputs)`` (:class:`~privaudit.auditing.distinguish.patterns.
    PatternAndValue`: several features on one pattern score); two or more distinct
    features of one type and key are evaluated in one pass.  Every other feature is left
    to :func:`event_mask`, which computes it when first asked.  The values are those of
    each feature's own evaluation, so the masks do not depend on this call.
    """
    groups: dict[tuple[type, object], dict[int, Any]] = {}
    for event in events:
        feature = getattr(event, "feature", None)
        key = getattr(feature, "joint_key", None)
        if key is None or not hasattr(event, "mask") or id(feature) in cache:
            continue
        groups.setdefault((type(feature), key), {})[id(feature)] = feature
    for (kind, _key), members in groups.items():
        if len(members) < 2:
            continue
        shared = list(members.values())
        joint = getattr(kind, "evaluate_jointly")  # noqa: B009 — every joint_key has one
        for member, values in zip(shared, joint(shared, outputs), strict=True):
            cache[id(member)] = values


def event_mask(event: Event, outputs: np.ndarray, cache: dict[int, np.ndarray]) -> np.ndarray:
    """Membership of ``outputs`` in ``event``, computing each feature once per ``cache``.

    Events with a ``feature`` and a ``mask`` share the feature's values through ``cache``
    (keyed by the feature's identity); any other event falls back to ``contains``.
    """
    feature = getattr(event, "feature", None)
    if feature is None or not hasattr(event, "mask"):
        return np.asarray(event.contains(outputs), dtype=bool)
    values = cache.get(id(feature))
    if values is None:
        values = cache[id(feature)] = feature(outputs)
    return event.mask(values)
