"""Quality tier for partition selection: correct keyed releases pass, no threshold is caught.

The correct cases are the thresholded Laplace, thresholded Gaussian and optimal partition
selections on K = 4 keys, each exactly (1, 10⁻³)-DP under add/remove-one
(:func:`privaudit.suites._partition_cases.partition_control_cases`); the broken case releases
every present key (δ(ε) = 1).  Outputs are the presence-bit + value encoding of
:class:`privaudit.spec.KeyedRelease`.

Error rates.  Each audit runs at confidence 0.95 with a fixed seed: a correct case is
flagged with probability at most 0.05, and the outcome is deterministic.  Detection is
power: the broken case was caught at 5 of 5 seeds at 2·10⁴ outputs per side
(``docs/partition_selection.md``).
"""

from __future__ import annotations

import pytest

from privaudit import AuditConfig, audit
from privaudit.suites._partition_cases import partition_broken_cases, partition_control_cases

CONFIG = AuditConfig(samples=20_000, confidence=0.95, seed=0)


@pytest.mark.quality
@pytest.mark.parametrize("case", partition_control_cases(), ids=lambda c: c.name)
def test_correct_partition_selection_passes(case):
    report = audit(case.mechanism, config=CONFIG)
    assert not report.violated
    assert report.epsilon_lower_bound <= case.true_epsilon


@pytest.mark.quality
@pytest.mark.parametrize("case", partition_broken_cases(), ids=lambda c: c.name)
def test_histogram_without_threshold_is_caught(case):
    report = audit(case.mechanism, config=CONFIG)
    assert report.violated
    dist = next(c for c in report.checks if c.name == "distinguishability")
    assert dist.counterexample is not None
    assert report.epsilon_lower_bound > 5.0
