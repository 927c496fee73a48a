"""Quality tier for local randomizers with finite output laws (exact audit).

The exact ε equals the hand-derived true ε of every local case (broken and control); the
broken ones are flagged by the exact check.  The slow test cross-checks the sampling audit
against the exact ε at 10⁶ samples per side: the sampling lower bound must be ≤ the exact ε
(soundness; it fails with probability ≤ 5 % per case at the audit's 95 % confidence, the
seed is fixed) and ≥ 0.97 of it (tightness), measured for k-RR at k ∈ {2, 4, 8, 36}.
"""

from __future__ import annotations

import pytest

from estimators.local_ustatistics import rr_randomizer_mechanism
from mechanisms import RandomizedResponseMechanism
from privaudit import AuditConfig, audit
from privaudit.exact_audit import exact_privacy
from privaudit.suites import local_broken_cases, local_control_cases

CASES = local_broken_cases() + local_control_cases()


@pytest.mark.quality
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_exact_epsilon_is_the_true_epsilon(case):
    res = exact_privacy(case.mechanism)
    assert res.coverage == "all_pairs"
    assert res.epsilon_exact == pytest.approx(case.true_epsilon, rel=1e-9)
    assert res.violated is (not case.is_private)


CROSS = AuditConfig(samples=1_000_000, pilot_samples=5_000, pair_budget=16, pairs_tested=1,
                    claim_budget=100, confidence=0.95, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", [
    RandomizedResponseMechanism(1.0, 2), RandomizedResponseMechanism(1.0, 4),
    rr_randomizer_mechanism(1.0, bins=8), rr_randomizer_mechanism(1.0, cells=36),
], ids=["rr2", "rr4", "quantized8", "joint36"])
def test_sampling_bound_is_within_three_percent_of_the_exact_epsilon(mechanism):
    report = audit(mechanism, config=CROSS)
    exact = report.exact.epsilon_exact
    assert report.epsilon_lower_bound <= exact * (1 + 1e-9), report.summary()
    assert report.epsilon_lower_bound >= 0.97 * exact, report.summary()
