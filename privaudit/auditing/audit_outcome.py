"""The outcome of an audit: the ``distinguishability`` and ``privacy_profile`` checks of
the tested pairs, and the :class:`~privaudit.auditing.outcome.report.AuditReport` assembled from
every check (the power, the verdict, the assumptions).  Shared by the audit of a claim
and the group audit (:mod:`~privaudit.auditing.auditor`); it runs nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from privaudit._environment import library_versions
from privaudit.auditing.checks import is_required_skip
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.assumptions import audit_assumptions
from privaudit.auditing.outcome.audit_plan import Claim
from privaudit.auditing.outcome.report import AuditReport
from privaudit.auditing.outcome.results import (
    CheckOutcome,
    PowerStatement,
    counterexample_of,
)
from privaudit.auditing.outcome.verdicts import conclusive_power, decide_verdict
from privaudit.auditing.pairs import CandidatePair
from privaudit.mechanisms import Mechanism

__all__ = ["assemble_report", "distinguishability_check", "profile_check"]


def distinguishability_check(
    best: Any,
    best_pair: CandidatePair,
    violated: bool,
    claim: Claim,
    alpha: float,
    where: str,
    **details: Any,
) -> tuple[float, CheckOutcome]:
    """The ε lower bound of the worst tested pair and the ``distinguishability`` check
    (``where``: which pairs and claim the summary names; ``details``: the check's)."""
    eps_lb = math.inf if best.epsilon_lower_bound_infinite else float(best.epsilon_lower_bound)
    return eps_lb, CheckOutcome(
        name="distinguishability",
        status="violated" if violated else "passed",
        summary=f"ε ≥ {eps_lb:.4g} at δ = {claim.delta:g} {where}",
        statistic=eps_lb,
        threshold=claim.epsilon,
        ratio=(eps_lb / claim.epsilon) if claim.epsilon > 0 else None,
        error_rate=alpha,
        counterexample=counterexample_of(
            best_pair,
            event=best.best_event.description if best.best_event else "",
            epsilon_lower_bound=eps_lb,
        )
        if violated
        else None,
        details=details,
    )


def profile_check(best: Any) -> list[CheckOutcome]:
    """The ``privacy_profile`` check of the worst pair (none when its loss is not
    computable)."""
    if not best.profile:
        return []
    violated = any(p.violated for p in best.profile)
    return [
        CheckOutcome(
            name="privacy_profile",
            status="violated" if violated else "passed",
            summary=(
                "lower confidence bound on δ(ε) exceeds the claimed profile"
                if violated
                else f"estimated δ(ε) within the claimed profile at {len(best.profile)} values of ε"
            ),
            error_rate=best.alpha_profile,
        )
    ]


def assemble_report(
    mechanism: Mechanism,
    cfg: AuditConfig,
    checks: Sequence[CheckOutcome],
    results: Sequence[tuple[Any, Any]],
    best: Any,
    best_pair: CandidatePair,
    *,
    eps_lb: float,
    eps_claimed: float,
    delta_claimed: float,
    started: float,
    **extra: Any,
) -> AuditReport:
    """The report of an audit (of the claim, or of a group claim) from its checks and the
    results of its tested pairs: the power of the most sensitive pair, the verdict (a
    required check that could not run makes a clean verdict inconclusive), the worst pair
    and its events; ``extra`` holds the report fields only some audits have."""
    # the audit reports a violation when any tested pair does, so its power is (at least)
    # that of its most sensitive pair (privaudit.auditing.outcome.verdicts)
    powers = [r.power for _, r in results if isinstance(r.power, PowerStatement)]
    power = min(powers, key=lambda p: p.detectable_epsilon) if powers else None
    if power is not None:
        power = conclusive_power(
            power, cfg, claimed_epsilon=eps_claimed, claimed_delta=delta_claimed
        )
    unmet = tuple(
        f"{c.name}: {c.details.get('reason')}; to conclude: {c.details.get('remedy')}"
        for c in checks
        if is_required_skip(c)
    )
    spec = getattr(mechanism, "report_spec", mechanism.spec)  # a group claim: checks/group_privacy
    assumptions = audit_assumptions(checks, extra.get("exact"))
    return AuditReport(
        mechanism=mechanism.name,
        assumptions=assumptions,
        spec=spec,
        spec_hash=spec.content_hash,
        verdict=decide_verdict(any(c.violated for c in checks), power, unmet),
        unmet_requirements=unmet,
        epsilon_lower_bound=eps_lb,
        epsilon_claimed=eps_claimed,
        delta_claimed=delta_claimed,
        confidence=cfg.confidence,
        samples=cfg.samples,
        seed=cfg.seed,
        config=cfg,
        checks=tuple(checks),
        worst_pair=counterexample_of(best_pair),
        worst_event=best.best_event,
        events=tuple(best.events),
        privacy_profile=tuple(best.profile),
        power=power,
        infinite_evidence=best.infinite_evidence or "",
        runtime_seconds=time.perf_counter() - started,
        versions=library_versions(),
        **extra,
    )
