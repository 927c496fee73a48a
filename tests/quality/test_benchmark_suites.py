"""Quality tier: the auditor catches known-broken mechanisms and passes correct ones.

The cases are the public benchmark suites (StatDP, DP-Sniper) and our own broken
mechanisms and controls, from :mod:`privaudit.suites`, each with its true ε.

Error rates.  Every audit here runs at family-wise confidence 0.999, so a correct case
is flagged with probability at most 10⁻³; over the ≤ 40 correct cases the chance of any
false alarm is at most 4 %.  The seeds are fixed, so the outcome is deterministic: a
failure is a real change of behaviour, never flakiness.

Soundness and power.  For every case, correct or broken, the certified ε lower bound
must not exceed the true ε.  The cases in :data:`MUST_DETECT` (violations large enough
for 10⁵ samples) must be flagged at CI strength.  Weak violations (true ε within a
factor of about 2.5 of the claim) need millions of samples; they run in the ``slow``
tier and in ``scripts/power_table.py``, which records which the auditor catches.
"""

from __future__ import annotations

import math

import pytest

from privaudit import AuditConfig, audit
from privaudit.suites import CI_MUST_DETECT, BenchmarkCase, all_cases

QUALITY = AuditConfig(
    samples=100_000,
    pilot_samples=2_000,
    pair_budget=24,
    pairs_tested=2,
    claim_budget=100,
    confidence=0.999,
    seed=7,
)
STRONG = AuditConfig(
    samples=1_000_000,
    pilot_samples=5_000,
    pair_budget=32,
    pairs_tested=2,
    claim_budget=200,
    confidence=0.95,
    seed=11,
)

#: Broken cases whose violation is large enough to be caught at CI strength.
MUST_DETECT = CI_MUST_DETECT


def _case_id(case: BenchmarkCase) -> str:
    """Unique id: StatDP cases repeat once per claimed ε₀."""
    if case.name.startswith("statdp."):
        return f"{case.name}[eps0={case.claimed_epsilon:g}]"
    return case.name


CASES = {_case_id(c): c for c in all_cases()}


def _audit(case: BenchmarkCase, config: AuditConfig):
    return audit(case.mechanism, config=config, pairs=case.input_pairs)


def test_case_names_are_unique_and_must_detect_exists():
    names = [_case_id(c) for c in all_cases()]
    assert len(names) == len(set(names))
    assert set(names) >= MUST_DETECT, MUST_DETECT - set(names)
    assert all(not CASES[n].is_private for n in MUST_DETECT)


@pytest.mark.quality
@pytest.mark.parametrize("case", [c for c in all_cases() if c.is_private], ids=_case_id)
def test_correct_mechanisms_are_not_flagged(case):
    report = _audit(case, QUALITY)
    assert report.epsilon_lower_bound <= case.true_epsilon * (1 + 1e-9), report.summary()
    # Privacy itself is never refuted for a private case.
    assert not report.check("distinguishability").violated, report.summary()
    # The remaining checks compare the code with its declared law; a case whose code
    # deliberately departs from its declared noise (StatDP's histogram_eps at a claim it
    # happens to meet) may be flagged there, and only there.
    honest_law = case.name.split("[")[0] != "statdp.histogram_eps"
    if honest_law:
        assert not report.violated, report.summary()
    else:
        assert {c.name for c in report.violations} <= {
            "noise_law",
            "noise_law.ranked_pairs",
            "noise_law.spike",
            "privacy_profile",
        }


@pytest.mark.quality
@pytest.mark.parametrize("case", [c for c in all_cases() if not c.is_private], ids=_case_id)
def test_broken_mechanisms_are_flagged_and_bounds_are_sound(case):
    report = _audit(case, QUALITY)
    # Soundness: the certified ε lower bound never exceeds the true ε (it would with
    # probability ≤ 10⁻³ if the statistics were right; an unsound bound fails here).
    if not math.isinf(case.true_epsilon):
        assert report.epsilon_lower_bound <= case.true_epsilon * (1 + 1e-9), report.summary()
    if _case_id(case) in MUST_DETECT:
        assert report.violated, report.summary()
        assert report.violations
        dist = report.check("distinguishability")
        if dist.violated:
            assert report.epsilon_lower_bound > case.claimed_epsilon
            assert dist.counterexample is not None


def _strong_param(case: BenchmarkCase):
    """Weak violations (true ε < 3× the claim) need more than 10⁶ samples for some cases:
    after issue 3 (declared-law events, pair ranking by successive halving) 16 of the 18
    are caught at seed 11 (noisy_max_v1b at ε₀ = 0.2 and gaussian_classical_eps10 are
    not), so they stay expected failures, not strict."""
    weak = not math.isinf(case.true_epsilon) and case.true_epsilon < 3 * case.claimed_epsilon
    marks = (
        [pytest.mark.xfail(reason="weak violation: not always caught at 10⁶ samples", strict=False)]
        if weak
        else []
    )
    return pytest.param(case, id=_case_id(case), marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_strong_param(c) for c in all_cases() if not c.is_private])
def test_broken_mechanisms_at_a_million_samples(case):
    """Slow tier: every broken case at N = 10⁶ per side must be flagged (95 % confidence)."""
    report = _audit(case, STRONG)
    if not math.isinf(case.true_epsilon):
        assert report.epsilon_lower_bound <= case.true_epsilon * (1 + 1e-9), report.summary()
    assert report.violated, report.summary()
