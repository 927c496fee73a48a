"""How a sequential audit ran, as data: its looks and why it stopped
(:class:`SequentialRecord`).  Models only; :mod:`~privaudit.auditing.sequential` runs the
looks.  The error control is derived in ``docs/derivations.md`` §12.
"""

from __future__ import annotations

from typing import Literal

from privaudit.spec import ExtendedEpsilon, SpecModel

__all__ = ["LookResult", "PlannedLook", "SequentialRecord", "StoppingReason"]

#: Why a sequential audit stopped: a look refuted the claim; the last look, at the
#: configuration's ``samples``, ran without refuting it (its verdict, ``no_violation`` or
#: ``inconclusive``, is the audit's); the next look would not fit the time budget.
StoppingReason = Literal["violation", "sample budget", "time budget"]


class PlannedLook(SpecModel):
    """One look of the schedule, fixed before the first draw: its test-split size per side
    (``samples``), its share ``alpha`` of the audit's error budget, and its seed."""

    samples: int
    alpha: float
    seed: int


class LookResult(SpecModel):
    """What one look found: its verdict, ε lower bound and seconds."""

    look: int
    samples: int
    alpha: float
    seed: int
    verdict: Literal["violation", "no_violation", "inconclusive"]
    epsilon_lower_bound: ExtendedEpsilon
    seconds: float


class SequentialRecord(SpecModel):
    """A sequential audit's schedule, the looks it ran and why it stopped.

    Attributes
    ----------
    schedule : tuple of PlannedLook
        Every look the audit could run, smallest first; their ``alpha`` sum to at most
        the audit's α = 1 − confidence.
    looks : tuple of LookResult
        The looks that ran, in order; the report's other fields are the last one's.
    stopping_reason : {"violation", "sample budget", "time budget"}
    samples_drawn : int
        Test-split outputs per side of each tested pair, summed over the looks that ran
        (each look draws afresh: no output is tested twice).
    """

    schedule: tuple[PlannedLook, ...]
    looks: tuple[LookResult, ...]
    stopping_reason: StoppingReason
    samples_drawn: int

    @property
    def stopped_at(self) -> int:
        """Index of the look the audit stopped at (0 for the first)."""
        return self.looks[-1].look

    def text(self) -> str:
        """One line: looks run, samples drawn and the stopping reason."""
        sizes = ", ".join(f"{look.samples:,}" for look in self.looks)
        return (
            f"sequential: {len(self.looks)} of {len(self.schedule)} looks ({sizes} per side; "
            f"{self.samples_drawn:,} drawn), stopped: {self.stopping_reason}"
        )
