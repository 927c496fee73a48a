"""The audit itself: :func:`~privaudit.auditing.auditor.audit`, the configuration, the checks,
the neighbour search, the (ε, δ) tests of one pair, the exact audit and the report objects.

Import public names from :mod:`privaudit`; this package is a room of the layout drawn in
``docs/architecture.md``, kept cheap to import.
"""
