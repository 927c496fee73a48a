"""Soundness: audits of mechanisms that meet their claims rarely report a violation.

Each audit runs at confidence 0.95, so a correct mechanism is flagged with probability at
most 0.05.  Over n audits the count of false violations is then stochastically below
Binomial(n, 0.05); the thresholds below are exceeded with probability < 10⁻³ under that
law (computed in the test), so a failure means the auditor's error control is broken.
The seeds are fixed, so the outcome is deterministic.
"""

from __future__ import annotations

import pytest
from scipy import stats

from privaudit import AuditConfig
from privaudit.trust.soundness import CORRECT_MECHANISMS, soundness_run

CONFIG = AuditConfig(samples=20_000, pilot_samples=2_000, pair_budget=16, pairs_tested=2,
                     claim_budget=60, confidence=0.95)


def _threshold(n: int, rate: float = 0.05, tail: float = 1e-3) -> int:
    """Largest count k with P(Binomial(n, rate) > k) ≥ tail, plus one: exceeded w.p. < tail."""
    k = int(stats.binom.isf(tail, n, rate))
    assert stats.binom.sf(k, n, rate) < tail
    return k


@pytest.mark.quality
def test_false_violation_rate_fast_subset():
    result = soundness_run(10, config=CONFIG)
    assert result.audits == 10 * len(CORRECT_MECHANISMS)
    assert result.false_violations <= _threshold(result.audits), result.summary()


@pytest.mark.slow
def test_false_violation_rate_full_run():
    result = soundness_run(60, config=CONFIG, first_seed=1000)
    assert result.audits >= 200
    assert result.false_violations <= _threshold(result.audits), result.summary()
    assert result.rate_upper_bound < 0.05 or result.rate <= 0.05, result.summary()
