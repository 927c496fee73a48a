"""The advanced mechanisms' suite: every broken case over-spends its claim, every control
keeps it, names are unique, and the registry serves one entry per registered family."""

from __future__ import annotations

import pytest

from privaudit import suites
from privaudit.trust import registry

BROKEN = suites.advanced_broken_cases()
CONTROLS = suites.advanced_control_cases()


def test_names_are_unique():
    names = [case.name for case in BROKEN + CONTROLS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", BROKEN, ids=lambda c: c.name)
def test_a_broken_case_exceeds_its_claim(case):
    assert case.true_epsilon > case.claimed_epsilon
    assert not case.is_private


@pytest.mark.parametrize("case", CONTROLS, ids=lambda c: c.name)
def test_a_control_keeps_its_claim(case):
    assert case.is_private
    assert case.true_epsilon <= case.claimed_epsilon * (1 + suites.PRIVACY_REL_TOL)


@pytest.mark.parametrize(
    "family",
    ["ptr.", "sample_aggregate.", "partition_selection.", "inverse_sensitivity.", "matrix."],
)
def test_every_advanced_family_is_registered(family):
    names = [name for name in registry.names() if name.startswith(family)]
    assert names, f"no registry entry starts with {family!r}"
    for name in names:
        assert registry.entry(name).factory().spec.guarantee is not None
