"""Slow tier: the confirmation stage keeps a suite of correct audits green and still
catches the broken mechanisms of the quality suites (issue 28).

Error rates.  Each correct audit fails (a confirmed violation) with probability at most
0.01/50 = 2·10⁻⁴ whatever its screen did, so the 200 audits here fail at all with
probability at most 4 % by Boole's inequality, and at most 0.2 % using the screen's own
level 0.05 and the independence of the two stages.  The seeds are fixed, so the outcome
is deterministic: a failure is a change of behaviour.  The full table over more seeds is
``scripts/ci_false_alarms.py`` (``docs/ci_false_alarms.md``).
"""

from __future__ import annotations

import pytest

from privaudit import CI_STRENGTH
from privaudit.auditing.confirmation import ConfirmationPolicy, screened_audit
from privaudit.suites import all_cases
from privaudit.suites.broken import control_cases

SEEDS = range(50)
#: Broken cases caught at CI strength by the quality tier, one per family.
CAUGHT = (
    "statdp.noisy_max_v1b",
    "dpsniper.NoisyHist2",
    "broken.range_scaled_mean",
    "broken.curator_truncated_laplace",
    "graphs.edge_count_no_projection",
    "local.rr_binary_keep_probability",
)


@pytest.mark.slow
@pytest.mark.parametrize("case", control_cases(), ids=lambda c: c.name)
def test_correct_controls_never_fail_after_confirmation(case):
    policy = ConfirmationPolicy()
    failed = [
        seed
        for seed in SEEDS
        if screened_audit(
            case.mechanism, config=CI_STRENGTH, pairs=case.input_pairs, policy=policy, seed=seed
        ).final.violated
    ]
    assert failed == []


@pytest.mark.slow
@pytest.mark.parametrize("name", CAUGHT)
def test_broken_cases_are_still_confirmed(name):
    case = next(c for c in all_cases() if c.name == name and not c.is_private)
    run = screened_audit(case.mechanism, config=CI_STRENGTH, pairs=case.input_pairs, seed=0)
    assert run.confirmed, run.final.summary()
