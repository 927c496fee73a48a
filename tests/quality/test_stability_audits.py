"""Quality tier for the stability mechanisms: broken PTR medians are caught, correct pass.

Cases: :func:`privaudit.suites._stability_cases.ptr_broken_cases` (no test, a test of
LS(x) > b itself, a threshold halved so that the δ-event has probability 7·10⁻⁴ against
a claimed 10⁻⁶) and the correct PTR median, PTR IQR and sample-and-aggregate mechanisms.

Error rates.  Every audit runs at confidence 0.95 with seed 0 and 10⁵ outputs per side,
so a correct case is flagged with probability at most 0.05 and the outcome is fixed by
the seed.  Detection is power; the catch rate over seeds 0–4 is in
``docs/stability_mechanisms.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.estimators.stability import (
    ptr_iqr_mechanism,
    sample_and_aggregate_mechanism,
)
from privaudit.suites._stability_cases import PTR_PAIRS, ptr_broken_cases, ptr_control_cases

CONFIG = AuditConfig(samples=100_000, confidence=0.95, seed=0)
#: The δ-type leak (halved threshold) needs 4·10⁵ per side: 5/5 seeds there, 1/5 at 10⁵.
BROKEN = AuditConfig(samples=400_000, confidence=0.95, seed=0)


@pytest.mark.quality
@pytest.mark.parametrize("case", ptr_broken_cases(), ids=lambda c: c.name)
def test_broken_ptr_is_caught(case):
    report = audit(case.mechanism, config=BROKEN, pairs=case.input_pairs)
    assert report.violated
    assert report.epsilon_lower_bound > case.claimed_epsilon


def _correct_mechanisms():
    (control,) = ptr_control_cases()
    yield control.mechanism, control.input_pairs
    yield ptr_iqr_mechanism(11, 0.0, 1.0, 1.0, 1e-6, 0.05), PTR_PAIRS
    yield (
        sample_and_aggregate_mechanism(
            40, lambda b: b.mean(axis=1), 5, 0.0, 1.0, 1.0, record_bounds=(0.0, 1.0)
        ),
        (),
    )
    yield (
        sample_and_aggregate_mechanism(
            45,
            lambda b: b.mean(axis=1),
            5,
            0.0,
            1.0,
            1.0,
            delta=1e-6,
            aggregator="smooth_median",
            record_bounds=(0.0, 1.0),
        ),
        (),
    )


@pytest.mark.quality
@pytest.mark.parametrize("index", range(4))
def test_correct_stability_mechanisms_pass(index):
    mechanism, pairs = list(_correct_mechanisms())[index]
    report = audit(mechanism, config=CONFIG, pairs=[tuple(map(np.asarray, p)) for p in pairs])
    assert not report.violated
    assert report.epsilon_lower_bound <= mechanism.spec.guarantee.epsilon
