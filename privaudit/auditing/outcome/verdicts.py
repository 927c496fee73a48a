"""Verdicts: a violation, no violation found, or inconclusive.

An audit that finds no violation is only worth something if it could have found one.
Every audit therefore states whether it would have detected a true ε of
``AuditConfig.detect_epsilon`` (by default :data:`~privaudit.auditing.config.DETECT_FACTOR` = 2
times the claimed ε) with the power statement's probability (0.9) on its worst pair and
event.  If it could not, its verdict is ``"inconclusive"`` and it says how many samples
per side would make it conclusive: the exact power calculation of
:mod:`privaudit.statistics.power` inverted in n, holding the event, its error share
and its estimated P[M(y) ∈ S] fixed.

A violation stays a violation regardless of power: a refutation at the family-wise
confidence needs no power statement.
"""

from __future__ import annotations

import functools
import math
from typing import Literal

from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.results import PowerStatement
from privaudit.auditing.outcome.texts import format_epsilon

__all__ = ["Verdict", "conclusive_power", "decide_verdict", "inconclusive_text"]

Verdict = Literal["violation", "no_violation", "inconclusive"]
"""``violation``: a check refuted a claim; ``no_violation``: none did, and the audit would
have detected the target ε; ``inconclusive``: none did, but the audit could not have
detected the target ε (or had no event to test)."""


def conclusive_power(
    power: PowerStatement, config: AuditConfig, *, claimed_epsilon: float, claimed_delta: float
) -> PowerStatement:
    """``power`` completed with the target ε, whether it is met, and the samples it needs.

    Parameters
    ----------
    power : PowerStatement
        The power statement of the worst pair's best event (with ``p_y`` and ``alpha``).
    config : AuditConfig
        The audit's configuration (``detect_epsilon`` and ``samples``).
    claimed_epsilon, claimed_delta : float
        The claim the event test compares with.

    Returns
    -------
    PowerStatement
        With ``target_epsilon``, ``conclusive`` and, when not conclusive,
        ``samples_to_conclude`` (``None`` when no sample size would do).  When the event's
        estimated P[M(y) ∈ S] is too large for any event of that probability to show the
        target, the samples are planned for an event of half the largest probability that
        can.
    """
    target = config.detect_epsilon_for(claimed_epsilon)
    conclusive = not math.isinf(power.detectable_epsilon) and power.detectable_epsilon <= target
    needed = None
    if (
        not conclusive
        and power.p_y is not None
        and power.alpha is not None
        and 0.0 < power.alpha < 1.0
        and target > claimed_epsilon
    ):
        from privaudit.statistics.power import samples_to_detect  # the numerics, when used

        plan = functools.partial(
            samples_to_detect,
            alpha=power.alpha,
            delta=claimed_delta,
            claimed_epsilon=claimed_epsilon,
            probability=power.probability,
            start=power.samples,
        )
        needed = plan(target, power.p_y)
        if needed is None:
            # An event with e^target · P[M(y) ∈ S] + δ ≥ 1 cannot show the target at any n
            # (a small test split often estimates P[M(y) ∈ S] far above its value).  Plan
            # then for an event half as likely as the largest that can show it: the event
            # search picks events by their ratio, so a larger split lets it find one.
            attainable = (1.0 - claimed_delta) * math.exp(-target)
            needed = plan(target, min(power.p_y, attainable / 2.0))
    return power.model_copy(
        update={"target_epsilon": target, "conclusive": conclusive, "samples_to_conclude": needed}
    )


def decide_verdict(
    violated: bool, power: PowerStatement | None, unmet: tuple[str, ...] = ()
) -> Verdict:
    """``"violation"`` if ``violated``; else ``"no_violation"`` only when ``power`` is
    conclusive and no required check was skipped (``unmet`` lists those, with the reason
    and the remedy); ``"inconclusive"`` otherwise (no power statement included)."""
    if violated:
        return "violation"
    if unmet:
        return "inconclusive"
    if power is not None and power.conclusive:
        return "no_violation"
    return "inconclusive"


def inconclusive_text(power: PowerStatement | None) -> str:
    """One sentence that says why an audit is inconclusive and what would fix it."""
    if power is None:
        return (
            "inconclusive: no rejection region was tested, so the audit could not have "
            "detected any violation"
        )
    target = power.target_epsilon
    head = (
        f"inconclusive: the audit could not have detected a true ε of {target:.4g} with "
        f"probability ≥ {power.probability:g} (it detects ε ≥ "
        f"{format_epsilon(power.detectable_epsilon)} with {power.samples} samples per side)"
    )
    if power.samples_to_conclude is not None:
        return (
            head + f"; about {power.samples_to_conclude} samples per side would make it conclusive"
        )
    return head + (
        "; no sample size would, with this event: test more or other pairs, or raise detect_epsilon"
    )
