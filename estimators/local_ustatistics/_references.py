"""The paper every module of this package implements, as a spec :class:`~spec.Reference`."""

from __future__ import annotations

from privaudit.spec import Reference

__all__ = ["BELL_2020", "CITATION", "reference"]

#: Short citation used in docstrings and error messages.
CITATION = (
    "Bell, Bellet, Gascón & Kulkarni, 'Private Protocols for U-Statistics in the "
    "Local Model and Beyond', AISTATS 2020"
)


def reference(locator: str) -> Reference:
    """The paper with a section / equation / theorem locator."""
    return Reference(citation=CITATION, locator=locator)


BELL_2020 = reference("")
