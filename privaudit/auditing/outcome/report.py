"""The audit report: verdict, checks, ε lower bound, privacy profile, power statement.

An :class:`AuditReport` is a frozen pydantic model.  Its JSON form is the stable schema
the command line writes with ``--json`` (top-level keys ``verdict``,
``epsilon_lower_bound``, ``epsilon_claimed``, ``delta_claimed``, ``confidence``,
``samples``, ``seed``, ``spec_hash``, ``checks`` and more; see :data:`REPORT_SCHEMA_VERSION`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.assumptions import Assumption
from privaudit.auditing.outcome.audit_plan import AuditPlan
from privaudit.auditing.outcome.budget_plan import BudgetPlan
from privaudit.auditing.outcome.exact_result import ExactAuditResult
from privaudit.auditing.outcome.results import (
    CheckOutcome,
    Counterexample,
    EventBound,
    PowerStatement,
    ProfilePoint,
)
from privaudit.auditing.outcome.sequential_record import SequentialRecord
from privaudit.auditing.outcome.texts import claim_text, format_epsilon
from privaudit.auditing.outcome.verdicts import Verdict, inconclusive_text
from privaudit.spec import ExtendedEpsilon, MechanismSpec, SpecModel

__all__ = ["DISCLAIMER", "REPORT_SCHEMA_VERSION", "AccountingTightness", "AuditReport"]

#: Bumped whenever a field of the JSON report changes meaning or disappears (2: the
#: verdict ``"inconclusive"``; ``"no_violation"`` now also means the audit was powerful
#: enough to detect its target ε).
REPORT_SCHEMA_VERSION = 2

DISCLAIMER = (
    "Black-box testing can refute a privacy claim, never prove one: 'no violation found' "
    "means that no test at the stated confidence and power rejected the claim, not that "
    "the mechanism is private."
)


class AccountingTightness(SpecModel):
    """For an audited composition: the accountant's bound beside the measured ε lower bound.

    Attributes
    ----------
    accountant : str
        The accountant whose bound the composition claims (``docs/accounting.md``).
    releases : int
        How many releases were composed.
    epsilon_bound, delta : float
        The accountant's ε at δ (the claim).
    basic_epsilon : float
        What basic composition would claim at the same δ (``inf`` if it does not apply).
    epsilon_lower_bound : float
        The audit's certified ε lower bound.
    tightness : float
        epsilon_lower_bound / epsilon_bound: 1 means the accounting cannot be improved on
        the pairs tested; lower values bound how loose it can be.
    """

    accountant: str
    releases: int
    epsilon_bound: float
    delta: float
    basic_epsilon: ExtendedEpsilon
    epsilon_lower_bound: ExtendedEpsilon
    tightness: ExtendedEpsilon

    @classmethod
    def of(cls, mechanism: Any, epsilon_lower_bound: float) -> AccountingTightness | None:
        """The tightness of a composed mechanism's accounting (None for other mechanisms)."""
        info = getattr(mechanism, "accounting", None)
        if not isinstance(info, dict) or "accountant" not in info:
            return None
        bound = float(info["epsilon"])
        return cls(
            accountant=str(info["accountant"]),
            releases=int(info["releases"]),
            epsilon_bound=bound,
            delta=float(info["delta"]),
            basic_epsilon=float(info["basic_epsilon"]),
            epsilon_lower_bound=epsilon_lower_bound,
            tightness=epsilon_lower_bound / bound if bound > 0 else math.inf,
        )


class AuditReport(SpecModel):
    """Everything an audit found, with the numbers to reproduce it.

    Attributes
    ----------
    verdict : {"violation", "no_violation", "inconclusive"}
        ``"violation"`` when any check refuted a claim; ``"no_violation"`` when none did
        and the audit could have detected a true ε of ``power.target_epsilon`` (twice the
        claim unless ``config.detect_epsilon`` says otherwise); ``"inconclusive"`` when
        none did but it could not (:mod:`privaudit.auditing.outcome.verdicts`).
    epsilon_lower_bound : float or "inf"
        The largest ε lower bound certified on any tested pair, at the claimed δ and the
        report's family-wise confidence.
    checks : tuple of CheckOutcome
        One entry per claim check.
    worst_pair, worst_event, events : the pair and rejection regions behind the bound.
    privacy_profile : tuple of ProfilePoint
        Claimed δ(ε) against a lower confidence bound on the actual δ(ε) at the worst pair
        (empty when the privacy loss is not computable).
    power : PowerStatement
        Which true ε this audit would have detected with probability ≥ 0.9, the target ε
        it had to detect, whether it could, and the samples that would make it conclusive.
    audit_mode : {"statistical", "exact"}
        ``"exact"`` when the spec declares a finite output law and the mechanism exposes
        it: ``exact`` then holds the exact ε and δ(ε) (no sampling), and the statistical
        fields are the sampling cross-check.
    exact : ExactAuditResult, optional
    unmet_requirements : tuple of str
        Checks the claim requires that could not run, each with the reason and what would
        make the audit conclusive; when any is listed, a verdict without a violation is
        ``"inconclusive"`` (never ``"no_violation"``).
    assumptions : tuple of Assumption
        The shortcuts the audit took and on what each rests (proven from the
        declaration, checked on the samples, or unchecked; ``docs/trust.md``).
    budget : BudgetPlan, optional
        For an audit run with ``time_budget``: the timed cost of a release, the releases
        and seconds of every stage, the planned sizes, and the smallest detectable ε at
        the configuration's size and at the planned size
        (:mod:`privaudit.auditing.time_budget`); ``None`` otherwise.
    plan : AuditPlan, optional
        What the audit ran and each statistical stage's share of α, computed once before
        the first draw (:mod:`privaudit.auditing.plan`).
    sequential : SequentialRecord, optional
        For a sequential audit (``config.sequential``): the schedule of looks, the looks
        run and why it stopped (:mod:`privaudit.auditing.sequential`); the other fields
        are those of the last look, except ``config``, ``confidence``, ``seed`` and
        ``runtime_seconds``, which are the whole audit's.
    """

    schema_version: int = REPORT_SCHEMA_VERSION
    mechanism: str
    spec: MechanismSpec
    spec_hash: str
    verdict: Verdict
    epsilon_lower_bound: ExtendedEpsilon
    epsilon_claimed: float
    delta_claimed: float
    confidence: float
    samples: int
    seed: int
    config: AuditConfig
    checks: tuple[CheckOutcome, ...]
    worst_pair: Counterexample | None = None
    worst_event: EventBound | None = None
    events: tuple[EventBound, ...] = ()
    privacy_profile: tuple[ProfilePoint, ...] = ()
    power: PowerStatement | None = None
    infinite_evidence: str = ""
    accounting: AccountingTightness | None = None
    audit_mode: Literal["statistical", "exact"] = "statistical"
    exact: ExactAuditResult | None = None
    unmet_requirements: tuple[str, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    budget: BudgetPlan | None = None
    plan: AuditPlan | None = None
    sequential: SequentialRecord | None = None
    runtime_seconds: float = 0.0
    versions: dict[str, str] = Field(default_factory=dict)
    disclaimer: str = DISCLAIMER

    # -- convenience ----------------------------------------------------------------------
    @property
    def violated(self) -> bool:
        """True when the audit found a violation."""
        return self.verdict == "violation"

    @property
    def inconclusive(self) -> bool:
        """True when no violation was found but the audit could not have detected one."""
        return self.verdict == "inconclusive"

    @property
    def samples_to_conclude(self) -> int | None:
        """Samples per side that would make an inconclusive audit conclusive (else None)."""
        return self.power.samples_to_conclude if self.power is not None else None

    @property
    def verdict_text(self) -> str:
        """``VIOLATION FOUND``, ``INCONCLUSIVE`` or ``no violation found``."""
        return {"violation": "VIOLATION FOUND", "inconclusive": "INCONCLUSIVE"}.get(
            self.verdict, "no violation found"
        )

    @property
    def violations(self) -> tuple[CheckOutcome, ...]:
        """The checks that found a violation."""
        return tuple(c for c in self.checks if c.violated)

    def check(self, name: str) -> CheckOutcome:
        """The outcome of the check called ``name``."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check named {name!r}; have {[c.name for c in self.checks]}")

    # -- presentation ---------------------------------------------------------------------
    def summary(self) -> str:
        """A readable multi-line text report."""
        pct = f"{100 * self.confidence:g}%"
        eps = format_epsilon(self.epsilon_lower_bound)
        lines = [f"privaudit audit of {self.mechanism!r} (spec {self.spec_hash[:19]}…)"]
        lines.append(f"  claim          : {claim_text(self.spec)}")
        if self.spec.accuracy is not None:
            lines.append(f"  accuracy claim : {self.spec.accuracy.describe()}")
        lines.append(f"  verdict        : {self.verdict_text} (family-wise confidence {pct})")
        if self.inconclusive:
            for reason in self.unmet_requirements:
                lines.append(f"  why            : inconclusive: required check skipped: {reason}")
            if not self.unmet_requirements or not (self.power and self.power.conclusive):
                lines.append(f"  why            : {inconclusive_text(self.power)}")
        if self.budget is not None:
            lines.append(f"  budget         : {self.budget.statement}")
        if self.sequential is not None:
            lines.append(
                f"  sequential     : {self.sequential.text().removeprefix('sequential: ')}"
            )
        lines.append(
            f"  ε lower bound  : {eps} at δ = {self.delta_claimed:g} "
            f"(claimed ε = {self.epsilon_claimed:.6g})"
        )
        if self.exact is not None and self.exact.refuted:
            lines.append(
                f"  exact ε        : {format_epsilon(self.exact.epsilon_exact)} "
                f"REFUTED: {self.exact.refutation}"
            )
        elif self.exact is not None:
            lines.append(
                f"  exact ε        : {format_epsilon(self.exact.epsilon_exact)} "
                f"({self.exact.statement})"
            )
        if self.infinite_evidence:
            lines.append(f"  support        : {self.infinite_evidence}")
        for item in self.assumptions:
            if item.status == "unchecked":
                lines.append(f"  assumption     : {item.shortcut}: unchecked ({item.basis})")
        if self.accounting is not None:
            acc = self.accounting
            lines.append(
                f"  accounting     : {acc.releases} releases, {acc.accountant} bound ε = "
                f"{acc.epsilon_bound:.4g} (basic {format_epsilon(acc.basic_epsilon)}); "
                f"measured ε ≥ {eps}: tightness {format_epsilon(acc.tightness)}"
            )
        if self.worst_event is not None:
            ev = self.worst_event
            lines.append(
                f"  worst event    : {ev.description} [{ev.direction}]: "
                f"{ev.count_x}/{ev.samples_x} vs {ev.count_y}/{ev.samples_y}"
            )
        if self.power is not None:
            lines.append(f"  power          : {self.power.statement}")
        lines.append("  checks:")
        width = max((len(c.name) for c in self.checks), default=10)
        for c in self.checks:
            lines.append(f"    [{c.status:^8}] {c.name:<{width}}  {c.summary}")
        bad = [c for c in self.checks if c.violated and c.counterexample is not None]
        for c in bad[:3]:
            ce = c.counterexample
            assert ce is not None
            lines.append(f"  counterexample ({c.name}, {ce.origin}):")
            lines.append(f"    x = {_short(ce.x)}")
            lines.append(f"    y = {_short(ce.y)}")
            if ce.values:
                vals = ", ".join(f"{k} = {_short(v, 40)}" for k, v in ce.values.items())
                lines.append(f"    {vals}")
        if self.worst_pair is not None and not bad:
            lines.append(
                f"  worst pair ({self.worst_pair.origin}): x = {_short(self.worst_pair.x)}, "
                f"y = {_short(self.worst_pair.y)}"
            )
        lines.append(
            f"  samples {self.samples} per side, seed {self.seed}, {self.runtime_seconds:.2f} s"
        )
        lines.append(f"  {self.disclaimer}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def write_json(self, path: str | Path) -> None:
        """Write the report as JSON (the schema of :data:`REPORT_SCHEMA_VERSION`)."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    def plot_tradeoff(self, path: str | Path | None = None) -> Any:
        """Plot the empirical trade-off points (α₀, α₁) against the claimed region.

        Needs matplotlib (``pip install privaudit[plot]``).  Returns the figure; saves it
        to ``path`` when given.
        """
        from privaudit.auditing.outcome.plotting import plot_tradeoff

        return plot_tradeoff(self, path)


def _short(value: Any, limit: int = 100) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
