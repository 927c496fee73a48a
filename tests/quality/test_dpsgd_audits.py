"""Quality tier for DP-SGD batch sampling: "shuffling accounted as Poisson" is refuted
black-box, the Poisson mechanism passes, at the settings of
:data:`privaudit.suites.dpsgd.DPSGD_GAP_SETTINGS` (Chua et al., ICML 2024).

No pairs are given: the auditor finds the paper's pair (all records at one extreme, one
at the other) from the relation's own moves.  Error rates: every audit runs at
confidence 0.95 with a fixed seed, so a correct mechanism is flagged with probability at
most 0.05 and the outcome is deterministic.  Each audit costs minutes (10⁵ outputs of
50 coordinates per side, black box): slow tier.  The measured table is
``docs/dpsgd_audit.md`` (``scripts/dpsgd_audit.py``).
"""

from __future__ import annotations

import pytest

from privaudit import AuditConfig, audit
from privaudit.suites.dpsgd import dpsgd_broken_cases, dpsgd_control_cases

CONFIG = AuditConfig(samples=100_000, confidence=0.95, seed=0)


@pytest.mark.slow
@pytest.mark.quality
@pytest.mark.parametrize("case", dpsgd_broken_cases(), ids=lambda c: c.name)
def test_shuffling_accounted_as_poisson_is_refuted_without_pairs(case):
    report = audit(case.mechanism, config=CONFIG)
    assert report.violated
    assert report.epsilon_lower_bound > case.claimed_epsilon


@pytest.mark.slow
@pytest.mark.quality
@pytest.mark.parametrize("case", [c for c in dpsgd_control_cases() if ".poisson." in c.name],
                         ids=lambda c: c.name)
def test_poisson_batches_with_the_poisson_accountant_pass(case):
    assert not audit(case.mechanism, config=CONFIG).violated
