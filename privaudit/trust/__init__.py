"""The trust chain: certificates, what they hash (tracing, source units), their consistency,
re-verification, mutation and soundness studies, and the registry that hands out only
certified mechanisms.

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
    "CHECK_SEED": ("privaudit.trust.mutations", "CHECK_SEED"),
    "CORRECT_BLACK_BOX_MECHANISMS": ("privaudit.trust.soundness", "CORRECT_BLACK_BOX_MECHANISMS"),
    "CORRECT_DELTA_MECHANISMS": ("privaudit.trust.soundness", "CORRECT_DELTA_MECHANISMS"),
    "CORRECT_FINITE_MECHANISMS": ("privaudit.trust.soundness", "CORRECT_FINITE_MECHANISMS"),
    "CORRECT_MECHANISMS": ("privaudit.trust.soundness", "CORRECT_MECHANISMS"),
    "mutation_check": ("privaudit.trust.mutations", "mutation_check"),
    "soundness_run": ("privaudit.trust.soundness", "soundness_run"),
}

__all__ = [
    "CHECK_SEED",
    "CORRECT_BLACK_BOX_MECHANISMS",
    "CORRECT_DELTA_MECHANISMS",
    "CORRECT_FINITE_MECHANISMS",
    "CORRECT_MECHANISMS",
    "mutation_check",
    "soundness_run",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)
