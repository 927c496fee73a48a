"""Quality tier for the inverse-sensitivity mechanisms and the winsorised mean.

Correct mechanisms (grid and continuous medians, a grid quantile, a grid trimmed mean, the
winsorised mean with a private range) must pass; the broken cases of
``privaudit/suites/_robust_cases.py`` (the /2 of the exponential mechanism forgotten,
the rank imbalance taken for the path length, pieces drawn without their widths) must
be caught.

Error rates.  Every audit runs at confidence 0.95 with a fixed seed, so a correct
mechanism is flagged with probability at most 0.05 and the outcome is deterministic.
Detection is power: the catch rate over 10 seeds is in ``docs/robust_mechanisms.md``.
"""

from __future__ import annotations

import pytest

from privaudit import AuditConfig, audit
from privaudit.estimators.robust import robust_mean_mechanism
from privaudit.mechanisms import (
    inverse_sensitivity_median_mechanism,
    inverse_sensitivity_quantile_mechanism,
    inverse_sensitivity_trimmed_mean_mechanism,
)
from privaudit.suites._robust_cases import robust_broken_cases, robust_control_cases

CORRECT = {
    "median_grid": lambda: inverse_sensitivity_median_mechanism(21, 0.0, 1.0, 1.0, grid=64),
    "median_continuous": lambda: inverse_sensitivity_median_mechanism(21, 0.0, 1.0, 1.0),
    "quantile_grid": lambda: inverse_sensitivity_quantile_mechanism(
        21, 0.0, 1.0, 1.0, quantile=0.25, grid=64
    ),
    "trimmed_mean_grid": lambda: inverse_sensitivity_trimmed_mean_mechanism(
        21, 0.0, 1.0, 1.0, trim=4, grid=64
    ),
    "winsorised_mean": lambda: robust_mean_mechanism(21, 0.0, 1.0, 1.0),
}


@pytest.mark.quality
@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_mechanisms_pass(name):
    report = audit(CORRECT[name](), config=AuditConfig(samples=50_000, seed=0))
    assert not report.violated


@pytest.mark.quality
@pytest.mark.parametrize("case", robust_control_cases(), ids=lambda c: c.name)
def test_control_cases_pass(case):
    report = audit(case.mechanism, config=AuditConfig(samples=50_000, seed=0))
    assert not report.violated
    assert report.epsilon_lower_bound <= case.true_epsilon


@pytest.mark.quality
@pytest.mark.parametrize("case", robust_broken_cases(), ids=lambda c: c.name)
def test_wrong_path_lengths_are_caught(case):
    report = audit(case.mechanism, config=AuditConfig(samples=20_000, seed=0))
    assert report.violated
    assert report.epsilon_lower_bound > case.claimed_epsilon
    assert report.epsilon_lower_bound <= case.true_epsilon
