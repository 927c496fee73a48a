"""privaudit: the auditor, certificates, registry and command line of the privaudit project.

Mechanisms declare their claims as :mod:`spec` models; :func:`audit` checks them and
returns an :class:`AuditReport`.  Black-box testing can refute a privacy claim, never
prove one.

Layout: :mod:`privaudit.search` (neighbour search), :mod:`privaudit.checks` (claim and
noise-law checks), :mod:`privaudit.distinguish` (the (ε, δ) tests),
:mod:`privaudit.statistics` (exact binomial and mean bounds, power),
:mod:`privaudit.suites` (benchmark mechanisms with known ε), :mod:`privaudit.report`.
"""

from __future__ import annotations

from ._version import __version__
from .auditor import audit
from .config import CERTIFICATE_STRENGTH, CI_STRENGTH, AuditConfig
from .pairs import CandidatePair
from .report import DISCLAIMER, AuditReport
from .results import CheckOutcome, Counterexample, EventBound, PowerStatement, ProfilePoint

__all__ = [
    "AuditConfig",
    "AuditReport",
    "CERTIFICATE_STRENGTH",
    "CI_STRENGTH",
    "CandidatePair",
    "CheckOutcome",
    "Counterexample",
    "DISCLAIMER",
    "EventBound",
    "PowerStatement",
    "ProfilePoint",
    "__version__",
    "audit",
]
