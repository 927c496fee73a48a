"""The auditor on the private U-statistic estimators (Chaudhuri et al. 2024).

* Every registered ``ustat.*`` entry passes its CI audit.  Each audit reports a violation
  of a true claim with probability at most 1 − confidence (0.05 at CI strength); the runs
  are seeded, so the outcome is deterministic.
* Paper mode — Algorithm 1 with the printed smooth bound (constant prefactor 1, unproven,
  ``docs/derivations.md`` §3) — is flagged by the deterministic smooth-sensitivity check on its
  own: the auditor is given the mechanism only, never the bad input, and its
  counterexample is confirmed by exact enumeration (error rate 0: a counterexample is a
  concrete pair of neighbours).  Rigorous mode on the same configuration passes.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import CI_STRENGTH, audit, registry
from privaudit.estimators.ustatistics import (
    exact_local_sensitivity,
    median_of_means_mechanism,
    private_mean_local_hajek_mechanism,
    table_kernel,
)
from privaudit.mechanisms.smooth_sensitivity import QUARTIC_CONSTANT

USTAT = [e for e in registry.entries() if e.name.startswith("ustat.")]
#: The documented paper-mode counterexample configuration
#: (tests/unit/estimators/ustatistics/test_ustat_private.py).
TABLE = [[0.0, 0.5, 1.0], [0.5, 0.0, 0.875], [1.0, 0.875, 1.0]]
BETA = 1.0


def test_the_ustat_entries_are_registered():
    names = {e.name for e in USTAT}
    assert {
        "ustat.local_hajek.variance",
        "ustat.local_hajek.collision",
        "ustat.local_hajek.subsampled",
        "ustat.median_of_means.variance",
        "ustat.degenerate.collision",
        "ustat.coinpress.naive.variance",
        "ustat.coinpress.all.variance",
        "ustat.coinpress.subsampled.variance",
        "ustat.subgaussian.variance",
        "ustat.subgaussian.variance.main",
    } <= names
    assert not any(name.endswith(".paper") for name in names)  # paper mode is not registered


@pytest.mark.quality
@pytest.mark.parametrize("entry", USTAT, ids=[e.name for e in USTAT])
def test_registered_ustat_entry_passes_its_ci_audit(entry):
    report = audit(entry.create(), config=entry.audit_config, pairs=entry.pairs)
    assert not report.violated, report.summary()
    smooth = [c for c in report.checks if c.name.startswith("sensitivity.")]
    assert smooth and all(c.status == "passed" for c in smooth)


@pytest.mark.quality
def test_paper_mode_is_flagged_on_its_smooth_sensitivity_claim():
    kernel = table_kernel(TABLE)
    mech = private_mean_local_hajek_mechanism(
        20, kernel, 10.0 * BETA, xi=0.0, sensitivity_mode="paper"
    )
    report = audit(mech, config=CI_STRENGTH)
    upper = report.check("sensitivity.smooth.upper_bound")
    assert upper.violated and report.violated
    x = np.asarray(upper.counterexample.x)
    exact = exact_local_sensitivity(mech.algorithm, x, np.arange(3))
    assert exact.value > mech.smooth_sensitivity(x)  # confirmed: LS(x) > S_paper(x)
    assert report.check("sensitivity.smooth.smoothness").status == "passed"


@pytest.mark.quality
def test_rigorous_mode_passes_on_the_paper_counterexample_configuration():
    kernel = table_kernel(TABLE)
    mech = private_mean_local_hajek_mechanism(20, kernel, QUARTIC_CONSTANT * BETA, xi=0.0)
    report = audit(mech, config=CI_STRENGTH)
    assert not report.violated, report.summary()


@pytest.mark.quality
def test_paper_mode_inside_wrapper_1_is_flagged():
    kernel = table_kernel(TABLE)
    mech = median_of_means_mechanism(
        60, kernel, 10.0 * BETA, alpha=0.7, xi=0.0, sensitivity_mode="paper", record_domain=None
    )
    report = audit(mech, config=CI_STRENGTH)
    assert report.check("sensitivity.smooth.upper_bound").violated
