"""The declared privacy-loss profile δ(ε) = E[(1 − e^{ε−L})₊] with lower confidence bounds.

With L the *declared* privacy loss and o ~ M(x), each (1 − e^{ε−L})₊ lies in [0, 1], so a
lower confidence bound on its mean (:mod:`~privaudit.statistics.mean_bounds`) bounds δ(ε)
from below, for a whole ε grid from one binning of the losses.  It refutes a claim only if
the implementation follows its declared law; the event tests of
:mod:`~privaudit.auditing.distinguish.pair` need no such assumption.

References: Balle, Barthe & Gaboardi, NeurIPS 2018; Waudby-Smith & Ramdas, JRSS-B 2024.
Details: ``docs/engine_notes.md``, "privaudit.auditing.distinguish.privacy_loss".
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from privaudit.statistics.mean_bounds import eb_lower_bound_from_sums, tune_eb_bet

__all__ = ["LOSS_STEP", "LossHistogram", "LossMoments", "loss_moments", "profile_lower_bounds"]


class LossMoments:
    """Σ X_ε and Σ X_ε² over n samples, for every ε of a grid."""

    def __init__(self, sum_x: np.ndarray, sum_sq: np.ndarray, n: int) -> None:
        self.sum_x = sum_x
        self.sum_sq = sum_sq
        self.n = n

    @property
    def mean(self) -> np.ndarray:
        """The estimates Σ X_ε / n."""
        return self.sum_x / self.n

    def __add__(self, other: LossMoments) -> LossMoments:
        """The moments of two samples together (sums add up)."""
        return LossMoments(self.sum_x + other.sum_x, self.sum_sq + other.sum_sq, self.n + other.n)

    def centred(self, centre: np.ndarray) -> np.ndarray:
        """Σ (X_ε − c_ε)²."""
        return np.maximum(self.sum_sq - 2.0 * centre * self.sum_x + self.n * centre**2, 0.0)


#: Uniform buckets used to place losses on the grid without a binary search each.
_BUCKETS = 8192


def _grid_rank(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """#{j : grid_j < v} for each v — ``searchsorted(grid, v, "left")``, without a binary
    search per value.

    Values and grid points are dropped into uniform buckets by the same monotone
    floating-point formula, so a grid point in a lower (higher) bucket than v is < v
    (> v); only the grid point sharing v's bucket needs a comparison.  Buckets holding
    two or more grid points fall back to ``searchsorted``.
    """
    g = grid
    if g.size == 1:
        return (values > g[0]).astype(np.int64)
    lo, hi = float(g[0]), float(g[-1])
    scale = _BUCKETS / (hi - lo)

    def bucket_of(v: np.ndarray) -> np.ndarray:
        u = np.subtract(v, lo)
        u *= scale
        np.maximum(u, 0.0, out=u)
        np.minimum(u, float(_BUCKETS), out=u)
        return u.astype(np.int64)

    touched = bucket_of(g)
    per_bucket = np.bincount(touched, minlength=_BUCKETS + 1)
    below = np.concatenate([[0], np.cumsum(per_bucket)[:-1]])  # grid points in lower buckets
    first = np.full(_BUCKETS + 1, np.inf)
    first[touched[::-1]] = g[::-1]  # smallest point per bucket
    b = bucket_of(values)
    rank = below[b] + (first[b] < values)
    crowded = per_bucket[b] > 1
    if crowded.any():
        rank[crowded] = np.searchsorted(g, values[crowded], side="left")
    return rank


def _lattice(grid: np.ndarray) -> tuple[float, float, int, np.ndarray] | None:
    """(g₀, h, m, extras) when the grid is g₀ + h·{0 … m−1} plus at most two extra points."""
    g = grid
    if g.size < 3:
        return None
    diffs = np.round(np.diff(g), 12)
    steps, counts = np.unique(diffs, return_counts=True)
    h = float(steps[np.argmax(counts)])
    if not h > 0:
        return None
    pos = (g - g[0]) / h
    on = np.abs(pos - np.round(pos)) < 1e-7
    m = int(np.count_nonzero(on))
    if not np.allclose(g[on], g[0] + h * np.arange(m), rtol=0, atol=1e-9 * max(1.0, abs(h))):
        return None
    extras = g[~on]
    if extras.size > 2:
        return None
    return float(g[0]), h, m, extras


def _loss_rank(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """#{j : g_j < v} up to floating-point ties, fast for the profile's lattice grids.

    A value within rounding of a grid point may be ranked on either side of it; its term
    (1 − e^{g−L})₊ is then 0 up to rounding (~10⁻¹⁶), so the moments do not change.
    """
    lat = _lattice(grid)
    if lat is None:
        return _grid_rank(values, grid)
    g0, h, m, extras = lat
    u = np.subtract(values, g0)
    u *= 1.0 / h
    np.ceil(u, out=u)
    np.clip(u, 0.0, float(m), out=u)
    rank = u.astype(np.int64)
    for e in extras:
        rank += values > e
    return rank


def loss_moments(
    losses: np.ndarray, grid: np.ndarray, weights: np.ndarray | None = None
) -> LossMoments:
    """Σ (1 − e^{ε−L})₊ and its square, summed over the losses, for each ε of ``grid``.

    Parameters
    ----------
    losses : array, shape (n,)
        Privacy losses (may be ±inf; NaN must already be resolved).
    grid : array
        Sorted, distinct ε ≥ 0.
    weights : array, shape (n,), optional
        Multiplicities of the losses (e.g. histogram counts); the sample size is then
        their sum.
    """
    g = np.asarray(grid, dtype=np.float64)
    loss = np.asarray(losses, dtype=np.float64)
    keep = loss > g[0]
    pos = loss[keep]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[keep]
    k = _loss_rank(pos, g)  # number of grid points below L
    e1 = np.negative(pos, out=pos)  # pos is a fresh copy: reuse it
    np.exp(e1, out=e1)
    size = g.size + 1
    cnt = np.bincount(k, weights=w, minlength=size).astype(np.float64)
    s1 = np.bincount(k, weights=e1 if w is None else e1 * w, minlength=size)
    np.multiply(e1, e1, out=e1)
    s2 = np.bincount(k, weights=e1 if w is None else e1 * w, minlength=size)

    def above(v: np.ndarray) -> np.ndarray:  # Σ over L > g_j, j = 0 … G − 1
        return np.cumsum(v[::-1])[::-1][1:]

    c, t1, t2 = above(cnt), above(s1), above(s2)
    with np.errstate(over="ignore", invalid="ignore"):
        growth = np.exp(g)
        sum_x = c - growth * t1
        sum_sq = c - 2.0 * growth * t1 + growth * growth * t2
    sum_x = np.clip(np.nan_to_num(sum_x), 0.0, c)
    sum_sq = np.clip(np.nan_to_num(sum_sq), 0.0, c)
    n = int(loss.size) if weights is None else round(float(np.sum(weights)))
    return LossMoments(sum_x, sum_sq, n)


#: Quantisation step of :class:`LossHistogram` (a power of two, so L/step is exact).
LOSS_STEP = 2.0**-12
#: Losses above max(grid) + LOSS_HEADROOM are counted at that value: their terms
#: (1 − e^{ε−L})₊ change by less than e^{−LOSS_HEADROOM}.
LOSS_HEADROOM = 30.0


_THREAD = threading.local()
#: Losses converted to bin indices per block (fits in cache).
_BLOCK = 1 << 15


def _workspace() -> dict[str, np.ndarray]:
    """Work buffers of :meth:`LossHistogram.add`, one set per thread: allocating (and
    page-faulting) fresh 16 MB buffers for every pair test costs more than the counting."""
    space = getattr(_THREAD, "loss_histogram", None)
    if space is None:
        space = _THREAD.loss_histogram = {"work": np.empty(0), "index": np.empty(0, dtype=np.intp)}
    return space


class LossHistogram:
    """The losses of a test split, floored to multiples of :data:`LOSS_STEP`, as counts.

    Accumulating a histogram costs a few passes per output instead of the exponentials
    and weighted bincounts of :func:`loss_moments` on every loss; the moments are then
    computed once from the bins.  Bin k holds the losses with ⌊L/h⌋ = k (h =
    :data:`LOSS_STEP`), for |k·h| up to max(grid) + :data:`LOSS_HEADROOM`; losses beyond
    (±inf included) are counted in the end bins.

    **Profile** (:meth:`moments`).  For the loss L (``sign=+1``) each loss is replaced by
    its bin's lower edge k·h ≤ L; for the reversed loss −L (``sign=−1``, the y-side
    profile) by −(k + 1)·h ≤ −L.  Either way the replacement is a fixed function of the
    output that is never larger than the loss, and since (1 − e^{ε−L})₊ grows with L the
    quantised terms X'_ε ≤ X_ε are i.i.d. in [0, 1] with E X'_ε ≤ E X_ε = δ(ε): a lower
    confidence bound on E X'_ε is one on δ(ε) (the quantisation costs at most
    h·P[L > ε] ≈ 2.4·10⁻⁴·P[L > ε] of the estimate).  End-bin losses are moved towards
    the middle, which again only lowers the terms that matter.

    **Event counts** (:meth:`count_at_least`, :meth:`count_below`).  For a lattice point
    t = k·h inside the range, #{L ≥ t} and #{L < t} are exact bin sums, because L/h is
    computed exactly (h is a power of two), so ⌊L/h⌋ ≥ k ⟺ L ≥ k·h.  Events planned on
    lattice thresholds are therefore counted without a pass over the outputs.

    **Touched bins.**  The losses of a pair usually fill a few thousand of the
    2·(max(grid) + 30)/h ≈ 2.7·10⁵ bins.  :meth:`add` counts each call's losses relative
    to its smallest bin (a short ``bincount``, added into that stretch of ``counts``
    only), and the readers look at the stretch of bins touched so far
    (``counts`` is zero outside it): the untouched memory of ``counts`` is never
    written or read, which spares the page faults of a full-length ``bincount`` and
    update on every call.

    Parameters
    ----------
    grid : array
        The profile's sorted ε grid (ε ≥ 0).
    """

    def __init__(self, grid: np.ndarray) -> None:
        g = np.asarray(grid, dtype=np.float64)
        self.grid = g
        reach = float(np.max(np.abs(g))) + LOSS_HEADROOM
        self.high = math.floor(reach / LOSS_STEP)
        self.low = -self.high - 1
        self.counts = np.zeros(self.high - self.low + 1, dtype=np.float64)
        # counts[first_touched:stop_touched] holds every non-zero bin (empty at first)
        self.first_touched = self.counts.size
        self.stop_touched = 0
        # work buffers, reused across chunks and calls (one set per thread)
        self._buffers = _workspace()

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps (a Dask worker sends a chunk's histogram to the client):
        the touched stretch of bins only, not the ≈ 2.7·10⁵ bins of zeros nor this
        thread's work buffers (tens of MB per chunk before)."""
        a, b = self.first_touched, self.stop_touched
        return {
            "grid": self.grid,
            "high": self.high,
            "low": self.low,
            "first": a,
            "stop": b,
            "touched": self.counts[a:b].copy() if b > a else np.empty(0),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.grid, self.high, self.low = state["grid"], state["high"], state["low"]
        self.counts = np.zeros(self.high - self.low + 1, dtype=np.float64)
        a, b = state["first"], state["stop"]
        if b > a:
            self.counts[a:b] = state["touched"]
        self.first_touched, self.stop_touched = a, b
        self._buffers = _workspace()

    @property
    def n(self) -> int:
        """Number of losses counted (sum of the multiplicities)."""
        return round(float(self.counts[self.first_touched : self.stop_touched].sum()))

    def add(self, losses: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Count ``losses``, with optional multiplicities.

        Raises
        ------
        ValueError
            If a loss is NaN.
        """
        values = np.asarray(losses, dtype=np.float64).reshape(-1)
        m = values.size
        if m == 0:
            return
        buffers = self._buffers
        if buffers["index"].size < m:
            buffers["index"] = np.empty(m, dtype=np.intp)
        if buffers["work"].size < _BLOCK:
            buffers["work"] = np.empty(_BLOCK)
        idx = buffers["index"][:m]
        lo, hi = float(self.low), float(self.high) + 0.5
        # the bin of the smallest loss is the smallest bin (every step below is
        # non-decreasing), computed by the same floating-point operations as the others
        smallest = float(values.min())
        if math.isnan(smallest):
            raise ValueError("LossHistogram.add: a loss is NaN")
        first = int(min(max(smallest * (1.0 / LOSS_STEP), lo), hi) - lo)
        # block by block, so the intermediate passes stay in cache; the indices are intp,
        # bincount's own type (it would copy int32 indices into a fresh intp array)
        for start in range(0, m, _BLOCK):
            stop = min(m, start + _BLOCK)
            k = buffers["work"][: stop - start]
            np.multiply(values[start:stop], 1.0 / LOSS_STEP, out=k)
            np.clip(k, lo, hi, out=k)
            np.subtract(k, lo, out=k)  # ≥ 0: truncation below is the floor
            block = idx[start:stop]
            block[...] = k
            block -= first  # exact: integers, no rounding
        counted = np.bincount(idx, weights=weights)
        self.counts[first : first + counted.size] += counted
        self.first_touched = min(self.first_touched, first)
        self.stop_touched = max(self.stop_touched, first + counted.size)

    def merge(self, other: LossHistogram) -> None:
        """Add the counts of ``other`` (a histogram on the same grid), e.g. of one chunk."""
        if other.counts.size != self.counts.size or other.low != self.low:
            raise ValueError("LossHistogram.merge: the histograms have different ranges")
        if other.stop_touched <= other.first_touched:
            return
        a, b = other.first_touched, other.stop_touched
        self.counts[a:b] += other.counts[a:b]
        self.first_touched = min(self.first_touched, a)
        self.stop_touched = max(self.stop_touched, b)

    def lattice(self, threshold: float) -> int | None:
        """k = ⌊t/h⌋ when strictly inside the range (end bins excluded), else ``None``."""
        if not math.isfinite(threshold):
            return None
        k = math.floor(threshold / LOSS_STEP)
        return k if self.low < k <= self.high else None

    def count_at_least(self, k: int) -> int:
        """#{L ≥ k·h} (k from :meth:`lattice`)."""
        start = max(k - self.low, self.first_touched)
        return round(float(self.counts[start : self.stop_touched].sum()))

    def count_below(self, k: int) -> int:
        """#{L < k·h} (k from :meth:`lattice`)."""
        stop = min(k - self.low, self.stop_touched)
        return round(float(self.counts[self.first_touched : stop].sum()))

    def moments(self, sign: int = 1) -> LossMoments:
        """The moments of the quantised loss (``sign=+1``) or reversed loss (``−1``)."""
        used = self.first_touched + np.flatnonzero(
            self.counts[self.first_touched : self.stop_touched]
        )
        k = used + self.low
        levels = k * LOSS_STEP if sign > 0 else -(k + 1) * LOSS_STEP
        return loss_moments(levels, self.grid, weights=self.counts[used])


def profile_lower_bounds(
    search: LossMoments, test: LossMoments, *, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per-ε lower confidence bounds (each at level ``alpha``) and point estimates.

    The bet of each ε is tuned on ``search`` (centre = its mean, variance about it) and
    applied to ``test``.

    Returns
    -------
    lower, estimate : numpy.ndarray
    """
    centre = np.clip(search.mean, 0.0, 1.0)
    variance = search.centred(centre) / search.n
    lam, c = tune_eb_bet(centre, variance, test.n, alpha=alpha)
    lam = np.atleast_1d(lam)
    c = np.atleast_1d(c)
    lower = eb_lower_bound_from_sums(
        test.sum_x, test.centred(c), test.n, alpha=alpha, lam=lam, centre=c
    )
    return np.atleast_1d(np.asarray(lower, dtype=np.float64)), test.mean
