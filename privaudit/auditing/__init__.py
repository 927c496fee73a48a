"""The audit itself: :func:`~privaudit.auditing.auditor.audit`, the configuration, the checks,
the neighbour search, the (ε, δ) tests of one pair, the exact audit and the report objects.

Import public names from :mod:`privaudit` or from this package (``__all__``); it is a room
of the layout drawn in ``docs/architecture.md``, kept cheap to import.
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir

# Public names are imported on first use (PEP 562), so that importing the package stays
# cheap (the command line and ``privaudit list`` import it); scripts and users import
# them from here, never from the modules, which may move.
_LAZY: dict[str, tuple[str, str]] = {
    "ConfirmationPolicy": ("privaudit.auditing.confirmation", "ConfirmationPolicy"),
    "PAIR_TOLERANCE": ("privaudit.auditing.config", "PAIR_TOLERANCE"),
    "SequentialRecord": ("privaudit.auditing.outcome.sequential_record", "SequentialRecord"),
    "look_schedule": ("privaudit.auditing.sequential", "look_schedule"),
    "audit_group_privacy": ("privaudit.auditing.checks.group_privacy", "audit_group_privacy"),
    "pair_key": ("privaudit.auditing.pairs", "pair_key"),
    "screened_audit": ("privaudit.auditing.confirmation", "screened_audit"),
    "to_jsonable": ("privaudit.auditing.pairs", "to_jsonable"),
    "verified_pair": ("privaudit.auditing.pairs", "verified_pair"),
}

__all__ = [
    "ConfirmationPolicy",
    "PAIR_TOLERANCE",
    "SequentialRecord",
    "audit_group_privacy",
    "look_schedule",
    "pair_key",
    "screened_audit",
    "to_jsonable",
    "verified_pair",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)
