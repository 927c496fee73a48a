"""The trust chain: certificates, what they hash (tracing, source units), their consistency,
re-verification, mutation and soundness studies, and the registry that hands out only
certified mechanisms.

Import public names from :mod:`privaudit`; this package is a room of the layout drawn in
``docs/architecture.md``, kept cheap to import.
"""
