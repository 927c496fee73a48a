"""Limits of an audit that the command line checks before anything heavy is imported.
Standard library only."""

from __future__ import annotations

__all__ = ["MAX_SAMPLES"]

#: Largest number of outputs per side an audit may draw (``AuditConfig.samples``): one
#: float64 output per draw is already 8 GB per side at this size.
MAX_SAMPLES = 1_000_000_000
