"""Catch and false-alarm rates of the mutant families, at the size of ``docs/mutant_table.md``.

Slow tier (``python -m pytest -m slow tests/statistical/test_mutant_rates.py``, about
20 minutes on two cores).  For each family of :mod:`privaudit.suites.mutants`, M = 50
parameter draws from the family's numpy sampler (seed = family index, as
``scripts/mutant_table.py --mutants 50 --samples 20000 --seed 0``), each audited broken
and correct at audit seed i and 20,000 samples per side.  Deterministic (fixed seeds):

* the broken variants' catch rate is at least 0.95;
* the correct variants' false-alarm count is consistent with the audit's α = 0.05: the
  one-sided 95 % Clopper–Pearson lower bound of the rate does not exceed α.
"""

from __future__ import annotations

import numpy as np
import pytest

from privaudit import audit
from privaudit.statistics.clopper_pearson import cp_lower
from privaudit.suites.mutants import MUTANT_AUDIT, MUTANT_FAMILIES

MUTANTS = 50
SAMPLES = 20_000
ALPHA = 0.05

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("index, name", list(enumerate(MUTANT_FAMILIES)))
def test_broken_variants_are_caught_and_correct_ones_alarm_at_most_at_alpha(index, name):
    family = MUTANT_FAMILIES[name]
    rng = np.random.default_rng(index)
    caught, alarms, missed = 0, 0, []
    for i in range(MUTANTS):
        params = family.sample_params(rng)
        mech, kwargs = family.broken(params)
        if audit(mech, samples=SAMPLES, seed=i, **MUTANT_AUDIT, **kwargs).violated:
            caught += 1
        else:
            missed.append(params)
        mech, kwargs = family.correct(params)
        alarms += int(audit(mech, samples=SAMPLES, seed=i, **MUTANT_AUDIT, **kwargs).violated)
    assert caught >= 0.95 * MUTANTS, missed
    assert float(cp_lower(alarms, MUTANTS, 0.05)) <= ALPHA, alarms
