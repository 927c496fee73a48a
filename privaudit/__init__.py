"""privaudit: the auditor, certificates, registry and command line of the privaudit project.

Mechanisms declare their claims as :mod:`spec` models; :func:`audit` checks them and
returns an :class:`AuditReport`.  Black-box testing can refute a privacy claim, never
prove one.

Layout: :mod:`privaudit.auditing.search` (neighbour search),
:mod:`privaudit.auditing.checks` (claim and noise-law checks),
:mod:`privaudit.auditing.distinguish` (the (ε, δ) tests),
:mod:`privaudit.statistics` (exact binomial and mean bounds, power),
:mod:`privaudit.auditing.exact_audit` (exact ε and δ(ε) of finite local randomizers, no
sampling),
:mod:`privaudit.suites` (benchmark mechanisms with known ε), :mod:`privaudit.auditing.report`,
:mod:`privaudit.trust.certificates` (:func:`certify`, :class:`Certificate`; what they cover is
found by :mod:`privaudit.trust.tracing`, checked by :mod:`privaudit.trust.consistency`,
:mod:`privaudit.trust.verify` and :mod:`privaudit.trust.mutations`) and
:mod:`privaudit.trust.registry` (``registry.get(name)``: the one way to get an audited
mechanism or estimator for use).
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from ._version import __version__

# Names are imported on first use (PEP 562), so that importing ``privaudit`` — which
# pytest does for the plugin at every start-up — costs nothing until the auditor is used.
_LAZY: dict[str, tuple[str, str | None]] = {
    "AuditConfig": (".auditing.config", "AuditConfig"),
    "AuditReport": (".auditing.report", "AuditReport"),
    "CERTIFICATE_STRENGTH": (".auditing.config", "CERTIFICATE_STRENGTH"),
    "CI_STRENGTH": (".auditing.config", "CI_STRENGTH"),
    "CandidatePair": (".auditing.pairs", "CandidatePair"),
    "Certificate": (".trust.certificates", "Certificate"),
    "CheckOutcome": (".auditing.results", "CheckOutcome"),
    "Counterexample": (".auditing.results", "Counterexample"),
    "DISCLAIMER": (".auditing.report", "DISCLAIMER"),
    "EventBound": (".auditing.results", "EventBound"),
    "ExactAuditResult": (".auditing.exact_audit", "ExactAuditResult"),
    "GDPAccountant": (".mechanisms.accounting", "GDPAccountant"),
    "PLDAccountant": (".mechanisms.accounting", "PLDAccountant"),
    "PrivacyBudget": (".mechanisms.accounting", "PrivacyBudget"),
    "RDPAccountant": (".mechanisms.accounting", "RDPAccountant"),
    "ZCDPAccountant": (".mechanisms.accounting", "ZCDPAccountant"),
    "accounting": (".mechanisms.accounting", None),
    "PowerStatement": (".auditing.results", "PowerStatement"),
    "ProfilePoint": (".auditing.results", "ProfilePoint"),
    "audit": (".auditing.auditor", "audit"),
    "certify": (".trust.certificates", "certify"),
    "exact_privacy": (".auditing.exact_audit", "exact_privacy"),
    "registry": (".trust.registry", None),
}

if _TYPE_CHECKING:  # pragma: no cover
    from privaudit.mechanisms import accounting
    from privaudit.mechanisms.accounting import (
        GDPAccountant,
        PLDAccountant,
        PrivacyBudget,
        RDPAccountant,
        ZCDPAccountant,
    )

    from .auditing.auditor import audit
    from .auditing.config import CERTIFICATE_STRENGTH, CI_STRENGTH, AuditConfig
    from .auditing.exact_audit import ExactAuditResult, exact_privacy
    from .auditing.pairs import CandidatePair
    from .auditing.report import DISCLAIMER, AuditReport
    from .auditing.results import (
        CheckOutcome,
        Counterexample,
        EventBound,
        PowerStatement,
        ProfilePoint,
    )
    from .trust import registry
    from .trust.certificates import Certificate, certify


def __getattr__(name: str) -> _Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'privaudit' has no attribute {name!r}") from None
    module = _importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    "PLDAccountant",
    "PowerStatement",
    "PrivacyBudget",
    "ProfilePoint",
    "RDPAccountant",
    "ZCDPAccountant",
    "__version__",
    "accounting",
    "audit",
    "certify",
    "exact_privacy",
    "registry",
]
