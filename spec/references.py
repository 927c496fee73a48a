"""The citation model every claim points to: :class:`Reference`.

It lives in its own module so that the spec's parts that cite a source (the mechanism
spec, the accuracy claim of :mod:`spec.accuracy`) share one model without importing each
other; :mod:`spec.mechanism_spec` re-exports it.
"""

from __future__ import annotations

from pydantic import Field

from ._base import SpecModel

__all__ = ["Reference"]


class Reference(SpecModel):
    """A citation that supports a claim: the paper and, where it matters, the equation.

    Parameters
    ----------
    citation : str
        Authors, title, venue and year.
    locator : str, optional
        Lemma, theorem, algorithm or equation number (e.g. ``"Lemma 2"``).
    url : str, optional
        A stable address (DOI or arXiv).
    """

    citation: str = Field(min_length=1)
    locator: str = ""
    url: str = ""
