"""privaudit: the auditor, certificates, registry and command line of the privaudit project.

Mechanisms declare their claims as :mod:`spec` models; :func:`audit` checks them and
returns an :class:`AuditReport`.  Black-box testing can refute a privacy claim, never
prove one.

Layout: :mod:`privaudit.auditing.search` (neighbour search),
:mod:`privaudit.auditing.checks` (claim and noise-law checks),
:mod:`privaudit.auditing.distinguish` (the (ε, δ) tests),
:mod:`privaudit.statistics` (exact binomial and mean bounds, power),
:mod:`privaudit.auditing.exact.privacy` (exact ε and δ(ε) of finite local randomizers, no
sampling),
:mod:`privaudit.suites` (benchmark mechanisms with known ε),
:mod:`privaudit.auditing.outcome.report`,
:mod:`privaudit.trust.certificates` (:func:`certify`, :class:`Certificate`; what they cover is
found by :mod:`privaudit.trust.tracing`, checked by :mod:`privaudit.trust.consistency`,
:mod:`privaudit.trust.verify` and :mod:`privaudit.trust.mutations`) and
:mod:`privaudit.trust.registry` (``registry.get(name)``: the one way to get an audited
mechanism or estimator for use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir
from privaudit._version import __version__

# Names are imported on first use (PEP 562), so that importing ``privaudit`` — which
# pytest does for the plugin at every start-up — costs nothing until the auditor is used.
_LAZY: dict[str, tuple[str, str | None]] = {
    "AuditConfig": (".auditing.config", "AuditConfig"),
    "AuditReport": (".auditing.outcome.report", "AuditReport"),
    "CERTIFICATE_STRENGTH": (".auditing.config", "CERTIFICATE_STRENGTH"),
    "CI_STRENGTH": (".auditing.config", "CI_STRENGTH"),
    "CandidatePair": (".auditing.pairs", "CandidatePair"),
    "Certificate": (".trust.certificates", "Certificate"),
    "CheckOutcome": (".auditing.outcome.results", "CheckOutcome"),
    "Counterexample": (".auditing.outcome.results", "Counterexample"),
    "DISCLAIMER": (".auditing.outcome.report", "DISCLAIMER"),
    "EventBound": (".auditing.outcome.results", "EventBound"),
    "ExactAuditResult": (".auditing.outcome.exact_result", "ExactAuditResult"),
    "GDPAccountant": (".mechanisms.accounting", "GDPAccountant"),
    "NoiseRecorder": (".auditing.replay.recorder", "NoiseRecorder"),
    "PLDAccountant": (".mechanisms.accounting", "PLDAccountant"),
    "PrivacyBudget": (".mechanisms.accounting", "PrivacyBudget"),
    "RDPAccountant": (".mechanisms.accounting", "RDPAccountant"),
    "ReplayReport": (".auditing.replay.result", "ReplayReport"),
    "ReplayTarget": (".auditing.replay.target", "ReplayTarget"),
    "ZCDPAccountant": (".mechanisms.accounting", "ZCDPAccountant"),
    "accounting": (".mechanisms.accounting", None),
    "PowerStatement": (".auditing.outcome.results", "PowerStatement"),
    "ProfilePoint": (".auditing.outcome.results", "ProfilePoint"),
    "audit": (".auditing.auditor", "audit"),
    "certify": (".trust.certificates", "certify"),
    "exact_privacy": (".auditing.exact.privacy", "exact_privacy"),
    "registry": (".trust.registry", None),
    "replay": (".auditing.replay_audit", "replay"),
}

if _TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.auditor import audit
    from privaudit.auditing.config import CERTIFICATE_STRENGTH, CI_STRENGTH, AuditConfig
    from privaudit.auditing.exact.privacy import ExactAuditResult, exact_privacy
    from privaudit.auditing.outcome.report import DISCLAIMER, AuditReport
    from privaudit.auditing.outcome.results import (
        CheckOutcome,
        Counterexample,
        EventBound,
        PowerStatement,
        ProfilePoint,
    )
    from privaudit.auditing.pairs import CandidatePair
    from privaudit.auditing.replay.recorder import NoiseRecorder
    from privaudit.auditing.replay.result import ReplayReport
    from privaudit.auditing.replay.target import ReplayTarget
    from privaudit.auditing.replay_audit import replay
    from privaudit.mechanisms import accounting
    from privaudit.mechanisms.accounting import (
        GDPAccountant,
        PLDAccountant,
        PrivacyBudget,
        RDPAccountant,
        ZCDPAccountant,
    )
    from privaudit.trust import registry
    from privaudit.trust.certificates import Certificate, certify


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)


__all__ = [
    "AuditConfig",
    "AuditReport",
    "CERTIFICATE_STRENGTH",
    "CI_STRENGTH",
    "CandidatePair",
    "Certificate",
    "CheckOutcome",
    "Counterexample",
    "DISCLAIMER",
    "EventBound",
    "ExactAuditResult",
    "GDPAccountant",
    "NoiseRecorder",
    "PLDAccountant",
    "PowerStatement",
    "PrivacyBudget",
    "ProfilePoint",
    "RDPAccountant",
    "ReplayReport",
    "ReplayTarget",
    "ZCDPAccountant",
    "__version__",
    "accounting",
    "audit",
    "certify",
    "exact_privacy",
    "registry",
    "replay",
]
