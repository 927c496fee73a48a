"""The state that the stages of :func:`~privaudit.auditing.distinguish.pair.distinguish_pair` hand
to each other, in the order they are built: the stopwatch of the stages, the search split
(``_Search``), the pair's error budget (``_Budget``), the events fixed before the test split
(``_Tests``) and the test split's counts (``_Split``).  Private to the pair test.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .declared_plan import DeclaredPlan
from .densities import DensityPair
from .events import Event, LogLikelihoodRatio
from .privacy_loss import LossHistogram
from .rare_events import RareCandidate

__all__: list[str] = []


@dataclass
class _Stopwatch:
    """Seconds spent per stage: :meth:`tick` charges the time since the last tick."""

    timings: dict[str, float] = field(default_factory=dict)
    last: float = field(default_factory=time.perf_counter)

    def tick(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now

    def stages(self, started: float) -> dict[str, float]:
        """Seconds per stage of :func:`distinguish_pair`, and in total since ``started``."""
        stages = [
            "sampling",
            "densities",
            "planning",
            "selection",
            "event_tests",
            "bounds",
            "profile",
            "power",
        ]
        timings = {stage: self.timings.get(stage, 0.0) for stage in stages}
        timings["total"] = time.perf_counter() - started
        return timings


@dataclass(frozen=True)
class _Search:
    """The search split and the declared law's view of it.

    ``llr`` is the declared log-likelihood ratio (``None`` without declared densities,
    or when they cannot score the outputs), ``direct`` its direct form for additive
    noise of full support, and ``tune`` the loss on a prefix of the search split (the
    profile's bets).
    """

    sx: np.ndarray
    sy: np.ndarray
    densities: DensityPair | None
    direct: Any
    llr: LogLikelihoodRatio | None
    tune: tuple[np.ndarray, np.ndarray] | None


@dataclass(frozen=True)
class _Budget:
    """The pair's α split between rare events, declared-law events, data-driven events
    and the profile (see the module docstring's "Error budget"), with the rare events
    and the declared plan that decide it."""

    rare: tuple[RareCandidate, ...]
    pool_rare: bool
    rare_levels: tuple[float, ...]
    alpha_rare: float
    plan: DeclaredPlan | None
    alpha_profile: float
    alpha_declared: float
    alpha_search: float
    alpha_events: float
    equal_level: float


@dataclass(frozen=True)
class _Tests:
    """Every event to test on the test split, fixed before it is drawn.

    ``events[i]`` is tested in direction ``dirs[i]`` at level ``levels[i]``;
    ``from_histogram`` maps the index of a planned LLR threshold counted from the loss
    histograms to ("ge", k) for {L ≥ k·h} or ("lt", k) for {L < k·h}; ``pooled`` holds
    (primary, mirror) index pairs tested pooled; ``grid`` and ``histograms`` are the
    profile's ε grid and per-side loss histograms (declared densities only).
    """

    events: list[Event]
    dirs: list[str]
    levels: list[float]
    from_histogram: dict[int, tuple[str, int]]
    pooled: list[tuple[int, int]]
    grid: np.ndarray | None
    histograms: dict[str, LossHistogram]


@dataclass(frozen=True)
class _Split:
    """The test split's sizes and per-event counts, and which events' outputs all have
    declared probability 0 under the other input (``support_gap``)."""

    sizes: dict[str, int]
    counts: dict[str, np.ndarray]
    support_gap: np.ndarray
