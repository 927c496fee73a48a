"""The halving's score of a real scalar output (:func:`threshold_score`)."""

from __future__ import annotations

import numpy as np
import pytest

from privaudit.auditing.choice.scores import fold_score, threshold_grid, threshold_score

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


def _reference_score(x, y, **score):
    """The score by its definition: every fold's halves unsorted and counted by
    comparison, the pooled fit half sorted from scratch."""
    hx, hy = x.size // 2, y.size // 2
    scores = []
    for fx, fy, ex, ey in ((x[:hx], y[:hy], x[hx:], y[hy:]), (x[hx:], y[hy:], x[:hx], y[:hy])):
        t = threshold_grid(np.sort(np.concatenate([fx, fy]), kind="quicksort"))

        def counts(v, t=t):
            return np.array([np.sum(v[:, None] <= t, axis=0), np.sum(v[:, None] >= t, axis=0)])

        fit, ev = (counts(fx), counts(fy)), (counts(ex), counts(ey))
        scores.append(fold_score(fit, ev, ((fx.size, fy.size), (ex.size, ey.size)), **score))
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
