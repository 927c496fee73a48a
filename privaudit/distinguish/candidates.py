"""Choosing the events to test, on the search split only.

:func:`select_events` builds candidate events from the search outputs of M(x) and M(y)
and keeps the K most promising per direction.  Families:

(a) **LLR thresholds** {L ≥ t} (x_vs_y) and {L ≤ t} (y_vs_x) of the declared
    log-likelihood ratio L, when densities are declared.  Thresholds run over quantiles
    of L on both search samples *and* the extreme order statistics of each side, so that
    events with tiny P[M(y) ∈ S] — exactly the events that certify ε far above the claim
    — are candidates.  There is deliberately no DP-Sniper c-fraction rule (which pins
    P[M(y) ∈ S] ≈ c and so caps the reportable ε at ln(1/c)).
(b) **Exact values** for discrete outputs (integer dtype, or at most 1000 distinct rows
    in the pooled search sample, each repeated four times on average): values ordered by the empirical ratio
    (count_x + ½)/(count_y + ½); every prefix of that order and every single value.
(c) **Continuous 1-D outputs**: half-lines {o ≥ t} and {o ≤ t} at quantiles of both
    samples (always), and — without declared densities — unions of histogram bins
    (quantile bins of the pooled sample) ordered by the same empirical ratio.
(d) **Continuous multi-dimensional outputs**: per-coordinate half-lines and — without
    declared densities — thresholds on a logistic-regression score learned on the
    search split (features o, o², |o| per coordinate, L2-regularised, Newton/IRLS).

**Ranking.**  Each candidate's search counts (a, b) — a on the side bounded from below,
b on the other — give its uncorrected ε estimate at the claimed δ: the CP bound
ln((cp_lower(a, n, α_e/2) − δ)/cp_upper(b, n, α_e/2)) computed on the search split at
the per-event test level α_e (no correction over candidates: this is selection, not
testing).  Small search counts are penalised exactly as they will be on the test split.
Ties are broken by the plug-in ratio, then by family (exact values first, so a discrete
event is reported by its values).  The top K per direction with distinct (a, b) are
kept.  To keep the cost linear in the number of candidates, they are first pre-selected
by a Wilson-score stand-in for the CP bound (the best 32·K) and only those are ranked by
the exact bound; none of this touches the test split, so it cannot affect validity.

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
from scipy import special

from privaudit.statistics.epsilon_bounds import epsilon_lower_bound
from spec.errors import AuditError

from .events import (
    BinIndex,
    Coordinate,
    DiscreteCode,
    Event,
    Feature,
    LinearScore,
    ThresholdEvent,
    ValueSetEvent,
    score_features,
)
from .logistic import fit_logistic

__all__ = ["DIRECTIONS", "SelectedEvents", "is_discrete", "select_events"]

#: The two directions: ``x_vs_y`` bounds P[M(x) ∈ S] below and P[M(y) ∈ S] above.
DIRECTIONS = ("x_vs_y", "y_vs_x")
#: Outputs with at most this many distinct rows (pooled search sample) count as discrete.
DISCRETE_ROWS = 1000
#: Largest number of distinct values for which exact-value sets are formed.
_MAX_VALUES = 100_000
#: Number of histogram bins for 1-D continuous outputs without densities.
_BINS = 64
#: Largest number of rows used to fit the logistic score.
_FIT_ROWS = 200_000
#: Largest number of coordinates given half-line events.
_MAX_COORDINATES = 64
#: Candidates per kept event that are ranked by the exact CP bound.
_PRESELECT = 32


@dataclass(frozen=True)
class SelectedEvents:
    """The events chosen on the search split, per direction, and the families tried."""

    x_vs_y: tuple[Event, ...]
    y_vs_x: tuple[Event, ...]
    families: tuple[str, ...]

    def for_direction(self, direction: str) -> tuple[Event, ...]:
        """The events of ``direction`` (``"x_vs_y"`` or ``"y_vs_x"``)."""
        return self.x_vs_y if direction == "x_vs_y" else self.y_vs_x


@dataclass
class _Candidates:
    """Candidates of one family in one direction: search counts and a builder."""

    a: np.ndarray
    b: np.ndarray
    build: Callable[[int], Event]
    priority: int


def _rows(outputs: np.ndarray) -> np.ndarray:
    o = np.asarray(outputs)
    if o.ndim == 2 and o.shape[1] == 1:
        o = o[:, 0]
    if o.ndim not in (1, 2):
        raise AuditError(f"outputs must have shape (N,) or (N, d), got {o.shape}")
    if o.dtype.kind not in "biuf":
        raise AuditError(f"outputs must be numeric, got dtype {o.dtype}")
    return o


def is_discrete(pooled: np.ndarray) -> bool:
    """Integer (or boolean) outputs, or at most :data:`DISCRETE_ROWS` distinct rows.

    For real-valued outputs the distinct rows must also repeat — at most a quarter as
    many distinct rows as outputs — so that a small sample of a continuous law (whose
    rows are all distinct) is not mistaken for a discrete one.
    """
    if pooled.dtype.kind in "biu":
        return True
    limit = min(DISCRETE_ROWS, pooled.shape[0] // 4)

    def distinct(rows: np.ndarray) -> int:
        if rows.ndim == 1:
            return int(np.unique(rows).size)
        return int(np.unique(rows, axis=0).shape[0])

    # a prefix with too many distinct rows settles it without sorting everything
    if distinct(pooled[: 8 * DISCRETE_ROWS]) > limit:
        return False
    return distinct(pooled) <= limit


# ----------------------------------------------------------------------------------------
# families
# ----------------------------------------------------------------------------------------
def _threshold_values(*samples: np.ndarray) -> np.ndarray:
    """Candidate thresholds: quantiles, the extreme order statistics, all values if few."""
    picks = []
    for s in samples:
        n = s.size
        if n == 0:
            continue
        if n <= 4096:
            picks.append(s)
            continue
        levels = np.concatenate([np.linspace(0.0, 1.0, 1025), np.geomspace(1.0 / n, 0.5, 160),
                                 1.0 - np.geomspace(1.0 / n, 0.5, 160)])
        idx = np.clip(np.round(levels * (n - 1)).astype(np.int64), 0, n - 1)
        picks.extend([s[idx], s[:64], s[-64:]])
    if not picks:
        return np.zeros(0)
    return np.unique(np.concatenate(picks))


@dataclass(frozen=True)
class _Sorted:
    """A real feature on both search samples, sorted once, with its candidate thresholds."""

    feature: Feature
    on_x: np.ndarray
    on_y: np.ndarray
    thresholds: np.ndarray

    @classmethod
    def of(cls, feature: Feature, vx: np.ndarray, vy: np.ndarray) -> _Sorted:
        sx = np.sort(np.asarray(vx, dtype=np.float64))
        sy = np.sort(np.asarray(vy, dtype=np.float64))
        sx, sy = sx[: np.searchsorted(sx, np.nan)], sy[: np.searchsorted(sy, np.nan)]
        return cls(feature, sx, sy, _threshold_values(sx, sy))


def _thresholds(sf: _Sorted, direction: str, side: str, priority: int) -> _Candidates:
    """{φ ≥ t} or {φ ≤ t} over the candidate t, counted on the direction's two sides."""
    sa, sb = (sf.on_x, sf.on_y) if direction == "x_vs_y" else (sf.on_y, sf.on_x)
    t = sf.thresholds
    if side == "ge":
        a = sa.size - np.searchsorted(sa, t, side="left")
        b = sb.size - np.searchsorted(sb, t, side="left")
    else:
        a = np.searchsorted(sa, t, side="right")
        b = np.searchsorted(sb, t, side="right")
    feature = sf.feature

    def build(i: int) -> Event:
        return ThresholdEvent(feature=feature, threshold=float(t[i]), side=side)  # type: ignore[arg-type]

    return _Candidates(a.astype(np.int64), b.astype(np.int64), build, priority)


def _value_sets(feature: DiscreteCode | BinIndex, ca: np.ndarray, cb: np.ndarray,
                priority: int) -> _Candidates | None:
    """Prefixes (by empirical ratio) and singletons of the codes seen on the search split."""
    pooled = np.concatenate([ca, cb])
    codes, inverse = np.unique(pooled, return_inverse=True)
    keep = codes >= 0
    if codes.size == 0 or codes.size > _MAX_VALUES:
        return None
    count_a = np.bincount(inverse[: ca.size], minlength=codes.size)
    count_b = np.bincount(inverse[ca.size:], minlength=codes.size)
    count_a, count_b, codes = count_a[keep], count_b[keep], codes[keep]
    if codes.size == 0:
        return None
    ratio = (count_a + 0.5) / (count_b + 0.5)
    order = np.argsort(-ratio, kind="stable")
    prefix_a = np.cumsum(count_a[order])
    prefix_b = np.cumsum(count_b[order])
    m = codes.size
    a = np.concatenate([prefix_a, count_a[order]])
    b = np.concatenate([prefix_b, count_b[order]])

    def build(i: int) -> Event:
        members = codes[order[: i + 1]] if i < m else codes[order[i - m: i - m + 1]]
        return ValueSetEvent(feature=feature, members=tuple(int(c) for c in members))

    return _Candidates(a.astype(np.int64), b.astype(np.int64), build, priority)


def _discrete_code(pooled: np.ndarray) -> DiscreteCode | None:
    cols = pooled.reshape(pooled.shape[0], -1)
    columns = tuple(np.unique(cols[:, j][~np.isnan(cols[:, j].astype(np.float64))])
                    for j in range(cols.shape[1]))
    if any(c.size == 0 for c in columns):
        return None
    if math.prod(int(c.size) for c in columns) >= 2**62:
        return None
    return DiscreteCode(columns=columns)


def _bin_index(pooled: np.ndarray) -> BinIndex:
    finite = pooled[np.isfinite(pooled)]
    if finite.size == 0:
        return BinIndex(edges=np.zeros(1))
    edges = np.unique(np.quantile(finite, np.linspace(0.0, 1.0, _BINS + 1)[1:-1],
                                  method="inverted_cdf"))
    return BinIndex(edges=edges)


def _logistic_score(ox: np.ndarray, oy: np.ndarray) -> LinearScore:
    fx, fy = ox[:_FIT_ROWS // 2], oy[:_FIT_ROWS // 2]
    pooled = np.concatenate([fx, fy]).astype(np.float64)
    finite = np.where(np.isfinite(pooled), pooled, np.nan)
    centre = np.nan_to_num(np.nanmean(finite, axis=0))
    scale = np.nan_to_num(np.nanstd(finite, axis=0), nan=1.0)
    scale = np.where(scale > 0, scale, 1.0)
    feats = score_features(pooled, centre, scale)
    spread = feats.std(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    labels = np.concatenate([np.ones(fx.shape[0]), np.zeros(fy.shape[0])])
    w, bias = fit_logistic(feats / spread, labels, l2=1.0)
    return LinearScore(centre=centre, scale=scale, weights=w / spread, bias=bias)


# ----------------------------------------------------------------------------------------
# ranking
# ----------------------------------------------------------------------------------------
def _approx_epsilon(a: np.ndarray, n_a: int, b: np.ndarray, n_b: int, alpha: float,
                    delta: float) -> np.ndarray:
    """Wilson-score stand-in for the CP ε bound: cheap, used only to pre-select."""
    z = float(special.ndtri(1.0 - alpha / 2.0))
    z2 = z * z

    def wilson(k: np.ndarray, n: int, sign: float) -> np.ndarray:
        centre = (k + z2 / 2.0) / (n + z2)
        half = z * np.sqrt(k * (n - k) / n + z2 / 4.0) / (n + z2)
        return centre + sign * half

    lower = wilson(a.astype(np.float64), n_a, -1.0) - delta
    upper = np.maximum(wilson(b.astype(np.float64), n_b, 1.0), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.where(lower > 0, lower, 1.0)) - np.log(upper)
    return np.where(lower > 0, np.maximum(eps, 0.0), 0.0)


def _rank(families: list[_Candidates], n_a: int, n_b: int, *, delta: float, alpha: float,
          k: int) -> tuple[Event, ...]:
    families = [f for f in families if f.a.size]
    if not families:
        return ()
    a = np.concatenate([f.a for f in families])
    b = np.concatenate([f.b for f in families])
    prio = np.concatenate([np.full(f.a.size, f.priority) for f in families])
    owner = np.concatenate([np.full(f.a.size, i) for i, f in enumerate(families)])
    local = np.concatenate([np.arange(f.a.size) for f in families])
    with np.errstate(divide="ignore", invalid="ignore"):
        plug = np.log(np.maximum(a / n_a - delta, 0.0)) - np.log((b + 0.5) / n_b)
    plug = np.where((a > 0) & np.isfinite(plug), plug, -np.inf)
    # pre-select by a cheap score, then rank the survivors by the exact CP bound
    approx = _approx_epsilon(a, n_a, b, n_b, alpha, delta)
    pool = np.lexsort((prio, -plug, -approx))[: _PRESELECT * k]
    pool = pool[a[pool] > 0]
    if pool.size == 0:
        return ()
    score = np.atleast_1d(epsilon_lower_bound(a[pool], n_a, b[pool], n_b, alpha=alpha,
                                              delta=delta))
    order = pool[np.lexsort((prio[pool], -plug[pool], -score))]
    chosen: list[Event] = []
    seen: set[tuple[int, int]] = set()
    for i in order:
        key = (int(a[i]), int(b[i]))
        if key in seen:
            continue
        seen.add(key)
        chosen.append(families[int(owner[i])].build(int(local[i])))
        if len(chosen) == k:
            break
    return tuple(chosen)


def select_events(search_x: np.ndarray, search_y: np.ndarray, *, delta: float, alpha: float,
                  events_per_direction: int = 8, llr: Feature | None = None,
                  llr_search: tuple[np.ndarray, np.ndarray] | None = None) -> SelectedEvents:
    """Choose up to K events per direction from the search outputs only.

    Parameters
    ----------
    search_x, search_y : numpy.ndarray
        Search-split outputs of M(x) and M(y), shape (n,) or (n, d).
    delta : float
        The claimed δ at which candidates are ranked.
    alpha : float
        The per-event test level α_e (each event's CP bounds at α_e/2 per side).
    events_per_direction : int
        K.
    llr : Feature, optional
        The declared log-likelihood ratio log p_x − log p_y (family (a)).
    llr_search : pair of arrays, optional
        ``llr`` already evaluated on ``search_x`` and ``search_y``.

    Returns
    -------
    SelectedEvents
    """
    ox, oy = _rows(search_x), _rows(search_y)
    if ox.ndim != oy.ndim or (ox.ndim == 2 and ox.shape[1] != oy.shape[1]):
        raise AuditError(f"outputs on x and y differ in shape: {ox.shape} vs {oy.shape}")
    n_x, n_y = ox.shape[0], oy.shape[0]
    pooled = np.concatenate([ox, oy])
    discrete = is_discrete(pooled)
    dims = 1 if ox.ndim == 1 else ox.shape[1]
    per_dir: dict[str, list[_Candidates]] = {d: [] for d in DIRECTIONS}
    families: list[str] = []

    def both(feature: Feature, vx: np.ndarray, vy: np.ndarray, priority: int) -> None:
        sf = _Sorted.of(feature, vx, vy)
        for direction in DIRECTIONS:
            for side in ("ge", "le"):
                per_dir[direction].append(_thresholds(sf, direction, side, priority))

    if discrete:
        code = _discrete_code(pooled)
        if code is not None:
            cx, cy = code(ox), code(oy)
            fam_xy = _value_sets(code, cx, cy, 0)
            fam_yx = _value_sets(code, cy, cx, 0)
            if fam_xy is not None and fam_yx is not None:
                per_dir["x_vs_y"].append(fam_xy)
                per_dir["y_vs_x"].append(fam_yx)
                families.append("exact values")
    if llr is not None:
        lx, ly = llr_search if llr_search is not None else (llr(ox), llr(oy))
        sf = _Sorted.of(llr, lx, ly)
        per_dir["x_vs_y"].append(_thresholds(sf, "x_vs_y", "ge", 1))
        per_dir["y_vs_x"].append(_thresholds(sf, "y_vs_x", "le", 1))
        families.append("LLR thresholds")
    if dims == 1:
        feature = Coordinate()
        both(feature, feature(ox), feature(oy), 2)
        families.append("half-lines")
        if not discrete and llr is None:
            bins = _bin_index(pooled.astype(np.float64))
            bx, by = bins(ox), bins(oy)
            fam_xy, fam_yx = _value_sets(bins, bx, by, 3), _value_sets(bins, by, bx, 3)
            if fam_xy is not None and fam_yx is not None:
                per_dir["x_vs_y"].append(fam_xy)
                per_dir["y_vs_x"].append(fam_yx)
                families.append("histogram bins")
    else:
        for j in range(min(dims, _MAX_COORDINATES)):
            feature = Coordinate(index=j, name=f"output[{j}]")
            both(feature, feature(ox), feature(oy), 2)
        families.append("coordinate half-lines")
        if not discrete and llr is None:
            score = _logistic_score(ox, oy)
            both(score, score(ox), score(oy), 3)
            families.append("logistic score")
    k = int(events_per_direction)
    return SelectedEvents(
        x_vs_y=_rank(per_dir["x_vs_y"], n_x, n_y, delta=delta, alpha=alpha, k=k),
        y_vs_x=_rank(per_dir["y_vs_x"], n_y, n_x, delta=delta, alpha=alpha, k=k),
        families=tuple(families))
