"""What a replay audit found, as data: :class:`ReplayFinding` (one deterministic
counterexample) and :class:`ReplayReport` (the recorded calls, the findings and, when none,
the composed claim).  Models only; :mod:`~privaudit.auditing.replay.driver` computes them.
"""

from __future__ import annotations

from typing import Any, Literal

from privaudit.spec import ExtendedEpsilon, SpecModel

__all__ = ["IsolatedAudit", "RecordedCall", "ReplayCheck", "ReplayFinding", "ReplayReport"]

#: The replay checks, in the order they are read on each neighbour.
ReplayCheck = Literal[
    "non_finite_input",
    "control_flow",
    "parameters",
    "free_randomness",
    "sensitivity",
    "unprotected_release",
    "untrusted_primitive",
]


class IsolatedAudit(SpecModel):
    """The statistical audit of one untrusted primitive in isolation: its ``verdict``
    against its declared guarantee and the ε lower bound at ``confidence``, from
    ``samples`` outputs per side.  Empirical: it can refute the guarantee, never prove it."""

    index: int
    kind: str
    site: str
    verdict: str
    epsilon_lower_bound: ExtendedEpsilon
    samples: int
    confidence: float


class RecordedCall(SpecModel):
    """One primitive call of the recorded run, as declared."""

    index: int
    kind: str
    parameters: dict[str, float]
    sensitivity: float
    norm: str
    guarantee: str
    site: str
    largest_distance: float = 0.0
    trusted: bool = True


class ReplayFinding(SpecModel):
    """A deterministic counterexample: on the recorded input ``x`` and its neighbour ``y``
    (``move`` says how the relation made it), ``check`` failed at primitive call ``index``
    (−1 when no single call is to blame), called at ``site``; ``declared`` and ``measured``
    are the values compared (the sensitivity and the measured distance, for instance)."""

    check: ReplayCheck
    message: str
    x: Any
    y: Any
    move: str
    index: int = -1
    site: str = ""
    declared: float | None = None
    measured: float | None = None


class ReplayReport(SpecModel):
    """The result of :func:`~privaudit.auditing.replay.driver.replay`.

    Attributes
    ----------
    calls : tuple of RecordedCall
        The primitive calls of the recorded run, with the largest distance measured at
        each over the neighbours replayed.
    neighbours : int
        Neighbours replayed.
    findings : tuple of ReplayFinding
        Every failed check, first failure first (at most one per neighbour and check).
    epsilon, delta : the composed claim when nothing failed: the PLD composition of the
        primitives' declared guarantees (``epsilon`` at ``delta``); ``None`` otherwise.
    isolated : tuple of IsolatedAudit
        The statistical audits of the untrusted primitives: their guarantees enter the
        composition as *audited empirically*, not proven.
    statement : str
        The verdict in one sentence.
    """

    pipeline: str
    calls: tuple[RecordedCall, ...]
    neighbours: int
    findings: tuple[ReplayFinding, ...]
    epsilon: ExtendedEpsilon | None = None
    delta: float | None = None
    isolated: tuple[IsolatedAudit, ...] = ()
    statement: str

    @property
    def violated(self) -> bool:
        """Whether any check failed."""
        return bool(self.findings)

    @property
    def first(self) -> ReplayFinding | None:
        """The first failure, or ``None``."""
        return self.findings[0] if self.findings else None
