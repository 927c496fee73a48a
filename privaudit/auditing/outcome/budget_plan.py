"""How an audit was fitted to a time budget, as data: :class:`BudgetPlan` and its parts.
Models only (no engine import), so that the report's data model loads cheaply;
:mod:`~privaudit.auditing.time_budget` computes them.
"""

from __future__ import annotations

import math

from privaudit.spec import ExtendedEpsilon, SpecModel

__all__ = ["BudgetPlan", "ProcessingTiming", "ReleaseTiming", "StageCost"]


class ReleaseTiming(SpecModel):
    """The timing pilot: ``releases`` drawn in ``seconds``; ``seconds_per_release`` read
    from its largest batch (``batch`` releases)."""

    releases: int
    seconds: float
    batch: int
    seconds_per_release: float


class StageCost(SpecModel):
    """Releases (all sides together) and estimated seconds of one stage of the audit."""

    stage: str
    releases: int
    seconds: float


class ProcessingTiming(SpecModel):
    """The auditor's own cost: ``fixed_seconds`` per distinguishing test of a pair and
    ``seconds_per_output`` per output it reads, fitted on two timed tests of ``outputs``
    outputs per side (real clock: this is the auditor's CPU time, never simulated);
    zero when the pilot could not afford them (releases then dominate the cost)."""

    outputs: tuple[int, ...] = ()
    fixed_seconds: float = 0.0
    seconds_per_output: float = 0.0


class BudgetPlan(SpecModel):
    """How an audit was fitted to its time budget, and what the budget can detect.

    Attributes
    ----------
    time_budget : float
        The budget in seconds.
    timing : ReleaseTiming
        The pilot behind the cost of a release.
    processing : ProcessingTiming
        The auditor's own cost per distinguishing test and per output read.
    stages : tuple of StageCost
        The planned audit's stages (:func:`stage_releases`).
    planned_seconds : float
        Their total, pilot included (≤ ``RELEASE_SHARE · time_budget`` when ``shrunk``).
    default_seconds : float
        The estimated time of the configuration's audit without the budget.
    shrunk : bool
        Whether the configuration had to be shrunk to fit.
    samples, search_samples, pilot_samples, pair_budget, pairs_tested : int
        The planned configuration (``default_samples``: the configuration's test split).
    target_epsilon : float
        The true ε the audit must detect (``detect_epsilon``, default twice the claim).
    detectable_before, detectable_after : float or "inf"
        The smallest true ε the most favourable event detects with probability 0.9 at the
        configuration's size and at the planned size (module docstring).
    statement : str
        What the budget can and cannot detect, in words.
    """

    time_budget: float
    timing: ReleaseTiming
    processing: ProcessingTiming
    stages: tuple[StageCost, ...]
    planned_seconds: float
    default_seconds: float
    shrunk: bool
    default_samples: int
    samples: int
    search_samples: int
    pilot_samples: int
    pair_budget: int
    pairs_tested: int
    target_epsilon: float
    detectable_before: ExtendedEpsilon
    detectable_after: ExtendedEpsilon
    statement: str

    @property
    def can_detect_target(self) -> bool:
        """Whether the planned size can detect the target ε at all (best event)."""
        return math.isfinite(self.detectable_after) and self.detectable_after <= self.target_epsilon
