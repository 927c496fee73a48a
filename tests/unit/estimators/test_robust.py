"""Robust estimators: the winsorised mean's pieces, the analyst entry points, bad inputs,
and the exact true ε of the robustness benchmark cases against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from privaudit.estimators.robust import (
    RobustEstimate,
    clipped_means,
    private_median,
    private_quantile,
    private_robust_mean,
    private_trimmed_mean,
    robust_mean_budget,
    robust_mean_mechanism,
)
from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.spec import PureDP
from privaudit.spec.errors import (
    BudgetExceededError,
    EmptyInputError,
    InvalidParameterError,
    NonFiniteInputError,
    OutOfDomainError,
    ParameterTypeError,
    PrivauditError,
)
from privaudit.suites._robust_cases import (
    _grid_median,
    grid_true_epsilon,
    imbalance_log_weights,
    inverse_sensitivity_log_weights,
    robust_broken_cases,
    robust_control_cases,
)


def test_clipped_means_match_numpy():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 1, 50))
    a = rng.uniform(0, 0.5, 30)
    b = a + rng.uniform(0, 0.5, 30)
    direct = np.array([np.clip(x, lo, hi).mean() for lo, hi in zip(a, b, strict=True)])
    assert np.allclose(clipped_means(x, a, b), direct)


def test_clipped_mean_moves_by_at_most_range_over_n():
    """Stage 2's sensitivity for every fixed range [a, b] under substitute-one."""
    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(2, 20))
        x = rng.uniform(0, 1, n)
        y = x.copy()
        y[rng.integers(n)] = rng.uniform()
        a, b = np.sort(rng.uniform(0, 1, 2))
        gap = abs(np.clip(x, a, b).mean() - np.clip(y, a, b).mean())
        assert gap <= (b - a) / n + 1e-12


def test_robust_mean_mechanism_composes_its_budget():
    mech = robust_mean_mechanism(21, 0.0, 1.0, 2.0, range_share=0.3)
    assert mech.spec.guarantee == PureDP(epsilon=2.0)
    parts = robust_mean_budget(2.0, 0.3)
    assert math.isclose(sum(parts), 2.0)
    assert math.isclose(parts[0], 0.3)
    out = mech.sample(np.linspace(0, 1, 21), 1000, rng=2)
    assert out.shape == (1000,)
    assert abs(np.median(out) - 0.5) < 0.1


def test_entry_points_return_results():
    x = np.random.default_rng(3).uniform(0.4, 0.6, 101)
    for result in (
        private_median(x, 0.0, 1.0, 1.0, rng=4),
        private_median(x, 0.0, 1.0, 1.0, grid=65, rng=4),
        private_median(x, 0.0, 1.0, 1.0, method="smooth_sensitivity", rng=4),
        private_quantile(x, 0.0, 1.0, 1.0, quantile=0.75, rng=4),
        private_trimmed_mean(x, 0.0, 1.0, 1.0, trim_fraction=0.2, rng=4),
        private_robust_mean(x, 0.0, 1.0, 1.0, rng=4),
    ):
        assert isinstance(result, RobustEstimate)
        assert abs(result.estimate - 0.5) < 0.2
        assert "noise_std" not in repr(result)
    grid_value = private_median(x, 0.0, 1.0, 1.0, grid=65, rng=4).estimate
    assert grid_value in np.linspace(0.0, 1.0, 65)


def test_budget_is_charged():
    x = np.linspace(0, 1, 21)
    budget = PrivacyBudget(epsilon=1.5)
    private_robust_mean(x, 0.0, 1.0, 1.0, rng=0, budget=budget)
    with pytest.raises(BudgetExceededError):
        private_median(x, 0.0, 1.0, 1.0, rng=0, budget=budget)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: private_median([0.1, float("nan"), 0.3], 0, 1, 1.0), NonFiniteInputError),
        (lambda: private_median([], 0, 1, 1.0), EmptyInputError),
        (lambda: private_median([0.1, 2.0, 0.3], 0, 1, 1.0), OutOfDomainError),
        (lambda: private_median([0.1, 0.2], 0, 1, 1.0, method="mean"), InvalidParameterError),
        (lambda: private_median([0.1, 0.2, 0.3], 1, 0, 1.0), InvalidParameterError),
        (lambda: private_median([0.1, 0.2, 0.3], "0", 1, 1.0), ParameterTypeError),
        (lambda: private_quantile([0.1, 0.2], 0, 1, 1.0, quantile=0.0), InvalidParameterError),
        (lambda: private_trimmed_mean([0.1, 0.2], 0, 1, 1.0, trim_fraction=0.5), PrivauditError),
        (lambda: private_robust_mean([0.1, 0.2, 0.3], 0, 1, -1.0), PrivauditError),
        (
            lambda: private_robust_mean([0.1, 0.2, 0.3], 0, 1, 1.0, quantiles=(0.9, 0.1)),
            InvalidParameterError,
        ),
        (
            lambda: private_robust_mean([0.1, 0.2, 0.3], 0, 1, 1.0, range_share=1.0),
            InvalidParameterError,
        ),
    ],
)
def test_bad_inputs(call, error):
    with pytest.raises(error):
        call()


def _brute_epsilon(n, m, weights):
    """ε of a grid median by every ordered dataset of n records over the cell values and
    every substitution among them (the law's own output_probabilities)."""
    mech = _grid_median(n, m, 1.0, weights, "brute", "brute force")
    grid = np.linspace(0.0, 1.0, m)
    values = np.sort(np.concatenate([grid, (grid[1:] + grid[:-1]) / 2]))
    logs = {}
    for x in itertools.combinations_with_replacement(values, n):
        logs[x] = np.log(mech.output_probabilities(np.array(x))[0])
    best = 0.0
    for x, lx in logs.items():
        for i, v in itertools.product(range(n), values):
            y = tuple(sorted(x[:i] + (v,) + x[i + 1 :]))
            best = max(best, float(np.max(lx - logs[y])))
    return best


@pytest.mark.parametrize("which", ["correct", "no_half", "imbalance"])
def test_grid_true_epsilon_matches_brute_force(which):
    n, m = 3, 3
    weights = {
        "correct": inverse_sensitivity_log_weights(n, 2, 1.0, 0.5),
        "no_half": inverse_sensitivity_log_weights(n, 2, 1.0, 1.0),
        "imbalance": imbalance_log_weights(n, 1.0),
    }[which]
    exact, (x, y) = grid_true_epsilon(n, np.linspace(0.0, 1.0, m), 0.0, 1.0, weights)
    assert math.isclose(exact, _brute_epsilon(n, m, weights), rel_tol=1e-12)
    assert np.count_nonzero(x != y) == 1


def test_benchmark_cases():
    controls = robust_control_cases()
    broken = robust_broken_cases()
    assert all(c.is_private for c in controls)
    assert not any(c.is_private for c in broken)
    grid_control = controls[0]
    assert 0.9 < grid_control.true_epsilon <= 1.0
    assert all(c.true_epsilon > 1.9 for c in broken)
