"""Every registered mechanism and estimator passes its CI audit.

This is how the project's own CI audits the registry: one test per entry of
:func:`privaudit.trust.registry.entries`, run through the ``privacy_audit`` fixture of the
privaudit pytest plugin, with the entry's own CI configuration and explicit pairs and a
seed derived from the test's node id (rerun a failure with the ``--privaudit-seed`` the
message prints).

As in ``privaudit audit --registry``, the confidence is shared by Bonferroni over the
entries (:func:`privaudit.trust.registry.family_wise_config`): each audit reports a violation
of a true claim with probability at most ``(1 − confidence) / len(ENTRIES)``, so the whole
test reports a false violation with probability at most ``1 − confidence``; a failure here
is either a broken mechanism or that rare event, and the counterexample in the message
tells which.
"""

from __future__ import annotations

import pytest

from privaudit import registry

ENTRIES = registry.entries()


def test_the_registry_is_not_empty():
    assert ENTRIES, "privaudit.trust.registry.entries() returned no entry to audit"


@pytest.mark.quality
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_registered_entry_passes_its_ci_audit(entry, privacy_audit):
    config = registry.family_wise_config(entry.audit_config, len(ENTRIES))
    privacy_audit(entry.create(), pairs=entry.pairs, config=config).assert_no_violation()
