"""Exact audits of finite local randomizers: ε and δ(ε) computed from the declared
probability tables, no sampling (:mod:`~privaudit.auditing.exact.privacy`).  The result's
data model is in :mod:`privaudit.auditing.outcome.exact_result`."""

__all__: list[str] = []
