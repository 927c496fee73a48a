"""Scores that rank neighbouring pairs for the distinguishing test, from fresh outputs.

:func:`pair_score` estimates the bound a pair is expected to give at the final test's size
from a few outputs per side, never touching the final test's samples: :func:`discrete_score`
for discrete outputs (and for the :func:`coarse_codes` of other real outputs),
:func:`threshold_score` for a real scalar, a small distinguishing test otherwise.

References: Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021; Chernozhukov et al.,
Econometrics Journal 2018 (cross-fitting).  Details: ``docs/engine_notes.md``,
"privaudit.auditing.choice.scores".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from privaudit.auditing.distinguish import (
    PairTestConfig,
    distinguish_pair,
    rate_ratio_applies,
    replay_pair_test,
)
from privaudit.auditing.distinguish.patterns import ATOM_SHARE, CATEGORICAL_VALUES
from privaudit.auditing.distinguish.rows import DISCRETE_ROWS, is_discrete, row_keys, row_table
from privaudit.auditing.pairs import CandidatePair
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms import Mechanism
from privaudit.statistics.allocation import predicted_epsilon, wilson_lower, wilson_upper

__all__ = [
    "COARSE_BINS",
    "SUPPORT_MISMATCH",
    "THRESHOLD_BODY_LEVELS",
    "THRESHOLD_TAIL_LEVELS",
    "coarse_codes",
    "discrete_score",
    "fold_score",
    "pair_score",
    "pair_score_task",
    "threshold_grid",
    "threshold_score",
]

#: Level of the conservative pilot estimates behind the halving score (one-sided).
_PILOT_LEVEL = 0.16
#: Objective given to a pair whose declared laws are a point mass against another law
#: (infinitely distinguishable as declared).
SUPPORT_MISMATCH = 1e6


def _pilot_score(
    result: Any, final_samples: int, level: float, delta: float, rate_ratio: bool = False
) -> float:
    """The best bound the pilot's tested events predict at the final size, from
    conservative (one-standard-error) estimates of their pilot counts."""
    best = 0.0
    for b in result.events:
        lo = wilson_lower(b.count_x, b.samples_x, _PILOT_LEVEL)
        hi = wilson_upper(b.count_y, b.samples_y, _PILOT_LEVEL)
        best = max(
            best,
            float(
                predicted_epsilon(
                    lo,
                    hi,
                    final_samples,
                    final_samples,
                    alpha=level,
                    delta=delta,
                    rate_ratio=rate_ratio,
                )
            ),
        )
    if result.epsilon_lower_bound_infinite:
        return SUPPORT_MISMATCH
    return best


def _dense_row_codes(
    outputs_x: np.ndarray, outputs_y: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """0, 1, 2, … for the distinct rows of both samples (equal rows, equal codes), or
    ``None`` when the outputs are not discrete: more than
    :data:`~privaudit.auditing.distinguish.rows.DISCRETE_ROWS` distinct rows, or real rows
    that do not repeat (:func:`~privaudit.auditing.distinguish.rows.is_discrete`).

    Small-integer rows get exact integer keys and one ``bincount``; other outputs are
    pooled and sorted by their rows' random projections.
    """
    table = row_table(outputs_x, outputs_y) if outputs_x.ndim == 2 and outputs_y.ndim == 2 else None
    if table is not None:
        # at most DISCRETE_ROWS rows, and real-valued rows must also repeat (is_discrete)
        repeat = (
            outputs_x.dtype.kind != "f"
            or table.size <= (outputs_x.shape[0] + outputs_y.shape[0]) // 4
        )
        few = table.size <= DISCRETE_ROWS and repeat
        return (table.index[0], table.index[1]) if few else None
    pooled = np.concatenate([outputs_x, outputs_y])
    if not is_discrete(pooled[: 1 << 17]):
        return None
    codes = np.unique(row_keys(pooled), return_inverse=True)[1].ravel()
    if int(codes.max()) + 1 > DISCRETE_ROWS:
        return None
    return codes[: outputs_x.shape[0]], codes[outputs_x.shape[0] :]


def discrete_score(
    outputs_x: np.ndarray,
    outputs_y: np.ndarray,
    *,
    final_samples: int,
    level: float,
    delta: float,
    rate_ratio: bool = False,
) -> float | None:
    """Cross-fitted plug-in estimate of the best bound on a pair with discrete outputs.

    The distinct output rows are counted on each half of both samples; on one half the
    rows are ordered by their likelihood ratio (each direction), and on the other half
    every prefix of that order — the likelihood-ratio events, among which the optimal one
    lies — gives plug-in probabilities and the bound they predict at ``final_samples``;
    the two halves swap roles and the scores are averaged.  Using every output for the
    estimate (rather than a test split) and ordering on data that are not scored makes
    it far less noisy than a small distinguishing test.  ``None`` when the outputs are
    not discrete (more than :data:`~privaudit.auditing.distinguish.rows.DISCRETE_ROWS`
    distinct rows).
    """
    ox, oy = np.asarray(outputs_x), np.asarray(outputs_y)
    coded = _dense_row_codes(ox, oy)
    if coded is None:
        return None
    cx, cy = coded
    cells = int(max(cx.max(initial=-1), cy.max(initial=-1))) + 1
    hx, hy = cx.size // 2, cy.size // 2
    halves = ((cx[:hx], cy[:hy], cx[hx:], cy[hy:]), (cx[hx:], cy[hy:], cx[:hx], cy[:hy]))
    scores = []
    for fit_x, fit_y, ev_x, ev_y in halves:
        fx = np.bincount(fit_x, minlength=cells) + 0.5
        fy = np.bincount(fit_y, minlength=cells) + 0.5
        ex = np.bincount(ev_x, minlength=cells) / max(ev_x.size, 1)
        ey = np.bincount(ev_y, minlength=cells) / max(ev_y.size, 1)
        best = 0.0
        for ratio, lower, upper in ((fx / fy, ex, ey), (fy / fx, ey, ex)):
            order = np.argsort(-ratio, kind="stable")
            pred = predicted_epsilon(
                np.cumsum(lower[order]),
                np.cumsum(upper[order]),
                final_samples,
                final_samples,
                alpha=level,
                delta=delta,
                rate_ratio=rate_ratio,
            )
            best = max(best, float(np.max(pred)))
        scores.append(best)
    return float(np.mean(scores))


#: One-sided level of the strict (three-standard-error) counts by which
#: :func:`threshold_score` chooses its event.
_STEADY_LEVEL = 0.00135
#: Quantile levels per tail (geometric, down to one output) and across the body of the
#: pooled fit half at which :func:`threshold_score` places its thresholds.
THRESHOLD_TAIL_LEVELS, THRESHOLD_BODY_LEVELS = 64, 63


def threshold_grid(pooled: np.ndarray) -> np.ndarray:
    """The distinct thresholds of :func:`threshold_score` on the sorted pooled fit half:
    :data:`THRESHOLD_BODY_LEVELS` quantiles across the body and
    :data:`THRESHOLD_TAIL_LEVELS` geometric levels in each tail, down to one output."""
    n = pooled.size
    tail = np.geomspace(1.0 / n, 0.5, THRESHOLD_TAIL_LEVELS)
    levels = np.concatenate(
        [np.linspace(0.0, 1.0, THRESHOLD_BODY_LEVELS + 2)[1:-1], tail, 1.0 - tail]
    )
    return np.unique(pooled[np.clip(np.round(levels * (n - 1)).astype(np.int64), 0, n - 1)])


def fold_score(
    fit_counts: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    eval_counts: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    sizes: tuple[tuple[int, int], tuple[int, int]],
    *,
    final_samples: int,
    level: float,
    delta: float,
    rate_ratio: bool = False,
) -> float:
    """One fold of :func:`threshold_score`: the half-line event and direction whose strict
    fit-half counts predict the largest bound, scored on the other half's conservative
    counts.  ``fit_counts[side]`` and ``eval_counts[side]`` are (#{o ≤ t}, #{o ≥ t}) of x
    (side 0) and y (side 1) at every threshold; ``sizes`` are ((fit x, fit y), (eval x,
    eval y))."""
    best, chosen = -1.0, (0, 0, 0)
    for side in (0, 1):  # {o ≤ t}, {o ≥ t}
        for first in (0, 1):  # bounded below on x (0) or on y (1)
            a, b = fit_counts[first][side], fit_counts[1 - first][side]
            pred = predicted_epsilon(
                wilson_lower(a, sizes[0][first], _STEADY_LEVEL),
                wilson_upper(b, sizes[0][1 - first], _STEADY_LEVEL),
                final_samples,
                final_samples,
                alpha=level,
                delta=delta,
                rate_ratio=rate_ratio,
            )
            i = int(np.argmax(pred))
            if float(pred[i]) > best:
                best, chosen = float(pred[i]), (side, first, i)
    side, first, i = chosen
    p_a = wilson_lower(eval_counts[first][side][i], sizes[1][first], _PILOT_LEVEL)
    p_b = wilson_upper(eval_counts[1 - first][side][i], sizes[1][1 - first], _PILOT_LEVEL)
    return float(
        predicted_epsilon(
            p_a, p_b, final_samples, final_samples, alpha=level, delta=delta, rate_ratio=rate_ratio
        )
    )


def _half_line_counts(values: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """#{o ≤ t} and #{o ≥ t} of sorted ``values`` at every threshold of ``t``."""
    below = np.searchsorted(values, t, side="right")
    return below, values.size - np.searchsorted(values, t, side="left")


def threshold_score(
    outputs_x: np.ndarray,
    outputs_y: np.ndarray,
    *,
    final_samples: int,
    level: float,
    delta: float,
    rate_ratio: bool = False,
) -> float | None:
    """Cross-fitted estimate of the bound a threshold event gives on a scalar output.

    The events are the half-lines {o ≤ t} and {o ≥ t}, the family the final test searches
    for a real scalar output (:mod:`~privaudit.auditing.distinguish.event_candidates`),
    with ``t`` at quantiles of the pooled fit half, refined geometrically in both tails
    down to a single output (:data:`THRESHOLD_TAIL_LEVELS`, :data:`THRESHOLD_BODY_LEVELS`).
    On one half of both samples the event and direction whose strict
    (three-standard-error) counts predict the largest bound at ``final_samples`` are
    chosen — the *steadiest* event, as the final test nominates for a scalar output,
    rather than the luckiest of hundreds of tail thresholds; the other half's
    conservative (one-standard-error) counts of that event give the score, so that an
    event of a few outputs (a plug-in ratio of 3 to 0) cannot score a pair high; the
    halves swap roles and the two scores are averaged.  Choosing on one half and scoring
    on the other removes the winner's curse of the best of many thresholds, so pairs are
    ranked by the bound their best event will give, not by the luck of its pilot counts.

    A few quartile cells (:func:`coarse_codes`) cannot see a tail, so they cannot tell
    apart pairs whose difference is in the tail (``docs/engine_notes.md``,
    "privaudit.auditing.choice.scores").

    Returns ``None`` unless both samples are one real column.
    """
    ox = np.asarray(outputs_x)
    oy = np.asarray(outputs_y)
    if ox.ndim == 2 and ox.shape[1] == 1:
        ox, oy = ox[:, 0], oy.reshape(oy.shape[0], -1)[:, 0]
    if ox.ndim != 1 or oy.ndim != 1 or ox.dtype.kind != "f" or min(ox.size, oy.size) < 4:
        return None
    vx, vy = ox.astype(np.float64), oy.astype(np.float64)
    hx, hy = vx.size // 2, vy.size // 2
    # each half sorted once, for both folds; the pooled fit half is the merge of two
    # sorted runs, which the stable sort (timsort for floats) does in linear time
    x0, x1, y0, y1 = (np.sort(v) for v in (vx[:hx], vx[hx:], vy[:hy], vy[hy:]))
    folds = ((x0, y0, x1, y1), (x1, y1, x0, y0))
    scores = []
    for fit_x, fit_y, ev_x, ev_y in folds:
        t = threshold_grid(np.sort(np.concatenate([fit_x, fit_y]), kind="stable"))

        fit_counts = (_half_line_counts(fit_x, t), _half_line_counts(fit_y, t))
        ev_counts = (_half_line_counts(ev_x, t), _half_line_counts(ev_y, t))
        sizes = ((fit_x.size, fit_y.size), (ev_x.size, ev_y.size))
        scores.append(
            fold_score(
                fit_counts,
                ev_counts,
                sizes,
                final_samples=final_samples,
                level=level,
                delta=delta,
                rate_ratio=rate_ratio,
            )
        )
    return float(np.mean(scores))


#: Quantile bins per continuous column in :func:`coarse_codes`.
COARSE_BINS = 4


def coarse_codes(outputs_x: np.ndarray, outputs_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The outputs with every continuous column cut into a few cells, for ranking pairs.

    Columns are classified by the rule of the pattern family
    (:mod:`~privaudit.auditing.distinguish.patterns`): a column with at most
    ``CATEGORICAL_VALUES`` = 16 distinct values is kept as it is; otherwise its atom (the
    most common value, when it carries ≥ ``ATOM_SHARE`` = 5 % of the pooled column —
    the zeros of a sparse-vector output) keeps a code of its own and the other values are
    cut at the pooled quartiles.  Mixed discrete/continuous outputs (sparse-vector patterns with
    released values) then become discrete rows, which :func:`discrete_score` can score
    from every output instead of a small distinguishing test.  The cells are a function
    of the pilot outputs, which are not reused by the final test.
    """
    ox = np.asarray(outputs_x, dtype=np.float64).reshape(np.shape(outputs_x)[0], -1)
    oy = np.asarray(outputs_y, dtype=np.float64).reshape(np.shape(outputs_y)[0], -1)
    # a fresh C-ordered array: the continuous columns are coded in place, the others kept
    codes = np.ascontiguousarray(np.concatenate([ox, oy]))
    for j in range(codes.shape[1]):
        values, counts = np.unique(codes[:4096, j], return_counts=True)
        if values.size <= CATEGORICAL_VALUES:
            continue
        col = np.ascontiguousarray(codes[:, j])
        atom = values[np.argmax(counts)]
        is_atom = col == atom
        if np.mean(is_atom) < ATOM_SHARE:
            is_atom = np.zeros(col.size, dtype=bool)
        rest = col[~is_atom]
        edges = (
            np.unique(np.quantile(rest, np.arange(1, COARSE_BINS) / COARSE_BINS))
            if rest.size
            else np.zeros(0)
        )
        codes[:, j] = np.where(is_atom, -1.0, np.searchsorted(edges, col, side="right"))
    return codes[: ox.shape[0]], codes[ox.shape[0] :]


def pair_score(mechanism: Mechanism, pair: CandidatePair, **options: Any) -> float:
    """How strongly fresh outputs suggest the pair will refute the claim: the score of
    :func:`pair_score_task` (``options`` are its keywords), computed at once."""
    score = pair_score_task(mechanism, pair, **options)
    return score if isinstance(score, float) else score()


def pair_score_task(
    mechanism: Mechanism,
    pair: CandidatePair,
    *,
    samples: int,
    final_samples: int,
    level: float,
    delta: float,
    rng: np.random.Generator,
    events_per_direction: int = 8,
    projected: bool = True,
) -> float | Callable[[], float]:
    """How strongly ``samples`` fresh outputs per side suggest the pair will refute the
    claim at ``final_samples``: :func:`discrete_score` for discrete outputs,
    :func:`threshold_score` for a real scalar output, :func:`discrete_score` of the
    :func:`coarse_codes` for other real outputs, otherwise a
    pilot :func:`distinguish_pair` (half the outputs to choose events, half to count them)
    scored by :func:`_pilot_score` (or, with ``projected=False``, by its own ε lower
    bound at level 1/2, which favours the certain evidence of events one side never
    reaches — what a short pilot can see — over projections of small counts).

    Everything the score draws from ``rng`` is drawn now: the score itself is returned
    when it is a cheap counting score, or else the pilot test's remaining work, as a
    zero-argument callable that draws nothing (its search split, sizes and seeds come
    held by :func:`~privaudit.auditing.distinguish.draws.replay_pair_test`).  The callable
    gives :func:`pair_score`'s value, and ``rng`` is left where :func:`pair_score` leaves
    it, so the callables of several pairs may run anywhere, in any order (the
    ``processes`` executor's halving,
    :func:`~privaudit.auditing.choice.halving.successive_halving`)."""
    half = max(1, samples // 2)
    sx = draw_outputs(mechanism, pair.x, samples, rng)
    sy = draw_outputs(mechanism, pair.y, samples, rng)
    usable = sx.ndim in (1, 2) and sx.shape == sy.shape and sx.dtype.kind in "biuf"
    ratio = rate_ratio_applies(mechanism.spec.guarantee, final_samples)
    score = (
        discrete_score(
            sx, sy, final_samples=final_samples, level=level, delta=delta, rate_ratio=ratio
        )
        if usable
        else None
    )
    if score is None and usable:
        score = threshold_score(
            sx, sy, final_samples=final_samples, level=level, delta=delta, rate_ratio=ratio
        )
    if score is None and usable:
        cx, cy = coarse_codes(sx, sy)
        score = discrete_score(
            cx, cy, final_samples=final_samples, level=level, delta=delta, rate_ratio=ratio
        )
    if score is not None:
        return float(score)
    draws = replay_pair_test(sx, sy, search_samples=half)
    config = PairTestConfig(events_per_direction=events_per_direction)

    def pilot_test() -> float:
        result = distinguish_pair(mechanism, pair, draws, alpha=0.5, config=config)
        if not projected:
            return float(result.epsilon_lower_bound)
        return _pilot_score(result, final_samples, level, delta, ratio)

    return pilot_test
