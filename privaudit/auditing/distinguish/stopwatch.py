"""Seconds per stage of a pair test (:class:`Stopwatch`), reported in its result's timings."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["STAGES", "Stopwatch"]

#: The stages of :func:`~privaudit.auditing.distinguish.pair.distinguish_pair`, in order.
STAGES = (
    "sampling",
    "densities",
    "planning",
    "selection",
    "event_tests",
    "bounds",
    "profile",
    "power",
)


@dataclass
class Stopwatch:
    """Seconds spent per stage: :meth:`tick` charges the time since the last tick."""

    timings: dict[str, float] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    last: float = 0.0

    def __post_init__(self) -> None:
        self.last = self.started

    def tick(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now

    def stages(self) -> dict[str, float]:
        """Seconds per stage, and in total since the stopwatch started."""
        timings = {stage: self.timings.get(stage, 0.0) for stage in STAGES}
        timings["total"] = time.perf_counter() - self.started
        return timings
