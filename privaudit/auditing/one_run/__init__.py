"""One-run audits: ε lower bounds from the guesses made on the canaries of one release.

* :mod:`~privaudit.auditing.one_run.audit`: the (ε, δ) one-run bound and its audit;
* :mod:`~privaudit.auditing.one_run.fdp`: the f-DP one-run bound;
* :mod:`~privaudit.auditing.one_run.canaries`: canaries and scores for DP-SGD;
* :mod:`~privaudit.auditing.one_run.gaussian_tradeoff`: an ε estimate that assumes a
  Gaussian trade-off curve, labelled as such.
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir

#: Public names, imported on first use (PEP 562): the package stays cheap to import.
_LAZY: dict[str, str] = {
    "OneRunResult": "privaudit.auditing.one_run.audit",
    "ablq_canaries": "privaudit.auditing.one_run.canaries",
    "gaussian_canaries": "privaudit.auditing.one_run.audit",
    "gaussian_tradeoff_estimate": "privaudit.auditing.one_run.gaussian_tradeoff",
    "laplace_canaries": "privaudit.auditing.one_run.audit",
    "logistic_canaries": "privaudit.auditing.one_run.canaries",
    "one_run_audit": "privaudit.auditing.one_run.audit",
    "one_run_epsilon": "privaudit.auditing.one_run.audit",
}

__all__ = [
    "OneRunResult",
    "ablq_canaries",
    "gaussian_canaries",
    "gaussian_tradeoff_estimate",
    "laplace_canaries",
    "logistic_canaries",
    "one_run_audit",
    "one_run_epsilon",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)
