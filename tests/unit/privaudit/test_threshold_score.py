"""The halving's score of a real scalar output (:func:`threshold_score`)."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.pair_scores import threshold_score

SCORE = dict(final_samples=10_000_000, level=0.025, delta=0.0)


def _laplace_pair(shift, n, seed, scale=4.0):
    rng = np.random.default_rng(seed)
    return rng.laplace(0.0, scale, n), rng.laplace(shift, scale, n)


@pytest.mark.parametrize("seed", range(5))
def test_ranks_a_shift_of_true_epsilon_025_above_one_of_020(seed):
    # Laplace(4): a shift of 1 has true ε 0.25, a shift of 0.8 has 0.2 (ReportNoisyMax3's
    # lottery: the pairs that move all five queries against those that move four)
    high = threshold_score(*_laplace_pair(1.0, 400_000, seed), **SCORE)
    low = threshold_score(*_laplace_pair(0.8, 400_000, seed + 100), **SCORE)
    assert 0.15 < low < high <= 0.25 + 1e-9


def test_a_few_extreme_outputs_do_not_score_a_pair_high():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=200_000), rng.normal(size=200_000)
    y[:3] = 1e6  # three outputs no other sample reaches: a plug-in ratio of 3 to 0
    score = threshold_score(x, y, **SCORE)
    assert score is not None and score < 0.05


def test_only_one_real_column_is_scored():
    rng = np.random.default_rng(0)
    column = rng.normal(size=(1000, 1))
    assert threshold_score(column, column + 1.0, **SCORE) is not None
    assert threshold_score(rng.normal(size=(1000, 2)), rng.normal(size=(1000, 2)), **SCORE) is None
    assert threshold_score(np.arange(1000), np.arange(1000), **SCORE) is None
    assert threshold_score(np.zeros(2), np.zeros(2), **SCORE) is None


def _reference_score(x, y, *, final_samples, level, delta):
    """The score by its definition: every fold's halves sorted afresh, the pooled fit half
    sorted from scratch, thresholds at the same quantile levels."""
    from privaudit.auditing.pair_scores import (
        _PILOT_LEVEL,
        _STEADY_LEVEL,
        THRESHOLD_BODY_LEVELS,
        THRESHOLD_TAIL_LEVELS,
        predicted_epsilon,
        wilson_lower,
        wilson_upper,
    )

    hx, hy = x.size // 2, y.size // 2
    scores = []
    for fx, fy, ex, ey in ((x[:hx], y[:hy], x[hx:], y[hy:]), (x[hx:], y[hy:], x[:hx], y[:hy])):
        pooled = np.sort(np.concatenate([fx, fy]), kind="quicksort")
        n = pooled.size
        tail = np.geomspace(1.0 / n, 0.5, THRESHOLD_TAIL_LEVELS)
        levels = np.concatenate(
            [np.linspace(0.0, 1.0, THRESHOLD_BODY_LEVELS + 2)[1:-1], tail, 1.0 - tail]
        )
        t = np.unique(pooled[np.clip(np.round(levels * (n - 1)).astype(np.int64), 0, n - 1)])

        def counts(v, t=t):
            return np.array([[np.sum(v <= s) for s in t], [np.sum(v >= s) for s in t]])

        fit, ev = (counts(fx), counts(fy)), (counts(ex), counts(ey))
        fit_n, ev_n = (fx.size, fy.size), (ex.size, ey.size)
        best, chosen = -1.0, None
        for side in (0, 1):
            for first in (0, 1):
                pred = predicted_epsilon(
                    wilson_lower(fit[first][side], fit_n[first], _STEADY_LEVEL),
                    wilson_upper(fit[1 - first][side], fit_n[1 - first], _STEADY_LEVEL),
                    final_samples,
                    final_samples,
                    alpha=level,
                    delta=delta,
                )
                i = int(np.argmax(pred))
                if float(pred[i]) > best:
                    best, chosen = float(pred[i]), (side, first, i)
        side, first, i = chosen
        p_a = wilson_lower(ev[first][side][i], ev_n[first], _PILOT_LEVEL)
        p_b = wilson_upper(ev[1 - first][side][i], ev_n[1 - first], _PILOT_LEVEL)
        scores.append(
            float(
                predicted_epsilon(p_a, p_b, final_samples, final_samples, alpha=level, delta=delta)
            )
        )
    return float(np.mean(scores))


@pytest.mark.parametrize("seed", range(3))
def test_the_sorted_once_score_equals_the_score_by_its_definition(seed):
    # each half is sorted once for both folds and the pooled half merged in linear time;
    # the thresholds and counts, hence the score, are those of the definition to the bit
    # (ties and a repeated atom included)
    x, y = _laplace_pair(0.5, 3_001 + seed, seed)
    x[:50] = 0.0
    y[::7] = np.round(y[::7], 1)
    assert threshold_score(x, y, **SCORE) == _reference_score(x, y, **SCORE)
