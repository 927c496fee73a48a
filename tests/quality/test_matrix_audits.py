"""Quality tier for matrix mechanisms: correct ones pass, an omitted worst column is caught.

Cases: :func:`privaudit.suites._matrix_cases.matrix_control_cases` (binary tree and
square-root factorization under substitute-one on a stream and add/remove-one on event
times) and :func:`~privaudit.suites._matrix_cases.matrix_broken_cases` (the sensitivity
taken without the worst column: true ε 1.006 and 2.15 for a claimed 1).

Error rates.  Every audit runs at confidence 0.95 with a fixed seed (5·10⁴ samples per
side), so a correct case is flagged with probability at most 0.05 and the outcome here is
deterministic.  The broken cases are caught by the deterministic gray-box sensitivity check
(‖R(x − x')‖ on the pair differing at t = 0 exceeds the claim) whatever the seed; the
tree case is also caught by the statistical privacy-profile test (5 of 5 seeds measured,
``docs/matrix_mechanisms.md``).
"""

from __future__ import annotations

import pytest

from privaudit import AuditConfig, audit
from privaudit.suites._matrix_cases import matrix_broken_cases, matrix_control_cases

CONFIG = AuditConfig(samples=50_000, confidence=0.95, seed=0)


@pytest.mark.quality
@pytest.mark.parametrize("case", matrix_control_cases(), ids=lambda c: c.name)
def test_correct_factorizations_pass(case):
    report = audit(case.mechanism, config=CONFIG)
    assert not report.violated
    assert report.epsilon_lower_bound <= case.true_epsilon


@pytest.mark.quality
@pytest.mark.parametrize("case", matrix_broken_cases(), ids=lambda c: c.name)
def test_omitted_worst_column_is_caught(case):
    assert not case.is_private
    report = audit(case.mechanism, config=CONFIG)
    assert report.violated
    violated = {c.name for c in report.checks if c.status == "violated"}
    assert "sensitivity.global" in violated
