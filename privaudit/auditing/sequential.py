"""Sequential audits (``AuditConfig.sequential``): whole audits at growing sizes, the looks,
with α spent over them, stopping at the first look that refutes the claim
(:func:`sequential_audit`).  "No violation" is only concluded by the last look, at the
configuration's ``samples``: an earlier look's pair and event choice rest on fewer samples.

The schedule (sizes, α shares, seeds) is fixed from the configuration before the first
draw and every look draws afresh, so by Boole's inequality the probability that any look
reports a false violation, whatever the stopping rule, is at most Σ αⱼ ≤ α
(``docs/derivations.md`` §12; measured in ``docs/sequential_audits.md``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.report import AuditReport
from privaudit.auditing.outcome.sequential_record import (
    LookResult,
    PlannedLook,
    SequentialRecord,
    StoppingReason,
)

__all__ = [
    "FIRST_LOOK",
    "GROWTH",
    "LAST_JUMP",
    "LAST_LOOK_SHARE",
    "MIN_LOOK_PILOT",
    "look_config",
    "look_schedule",
    "sequential_audit",
]

#: Smallest look, in outputs per side: early looks stop shrinking before they go below it.
FIRST_LOOK = 500
#: The largest early look is ``samples / LAST_JUMP``; each earlier one is
#: :data:`GROWTH` times smaller.  Looks draw afresh, so an audit that runs them all draws
#: at most 1 + Σₖ 16⁻¹·4⁻ᵏ = 13/12 of its last look's test split.
LAST_JUMP = 16
#: Ratio of consecutive early looks' sizes.
GROWTH = 4
#: Share of α of the last look; the earlier looks share the rest equally.
LAST_LOOK_SHARE = 0.75
#: Smallest pilot of a look's pair ranking (pilots shrink with the look's size).
MIN_LOOK_PILOT = 50


def look_seed(seed: int, look: int) -> int:
    """The seed of an early look ``look``: a 32-bit word of ``SeedSequence(seed,
    spawn_key=(look,))``, independent of the other looks (the last look keeps ``seed``)."""
    words = np.random.SeedSequence(seed, spawn_key=(look,)).generate_state(1, np.uint32)
    return int(words[0])


def look_schedule(samples: int, alpha: float, seed: int) -> tuple[PlannedLook, ...]:
    """The looks of a sequential audit whose last look has ``samples`` outputs per side.

    Sizes, smallest first: ``samples / 16``, ``samples / 64``, … (÷ :data:`GROWTH`) while
    at least :data:`FIRST_LOOK`, then ``samples``.
    Shares of ``alpha``: the last look :data:`LAST_LOOK_SHARE` · α, the earlier looks the
    rest equally (a single look gets α).  Each share is rounded down to what
    ``confidence = 1 − αⱼ`` represents, so that they sum to at most α.  The last look keeps
    ``seed``: it is the fixed-size audit at ``seed``, at its share of α.

    Examples
    --------
    >>> [look.samples for look in look_schedule(50_000, 0.05, 0)]
    [782, 3125, 50000]
    >>> [round(look.alpha / 0.05, 4) for look in look_schedule(50_000, 0.05, 0)]
    [0.125, 0.125, 0.75]
    """
    sizes = [int(samples)]
    divisor = LAST_JUMP
    while samples / divisor >= FIRST_LOOK:
        sizes.append(math.ceil(samples / divisor))
        divisor *= GROWTH
    sizes.reverse()
    last = len(sizes) - 1
    shares = [(1.0 - LAST_LOOK_SHARE) / last] * last + [LAST_LOOK_SHARE] if last else [1.0]
    looks = []
    for j, (size, share) in enumerate(zip(sizes, shares, strict=True)):
        confidence = 1.0 - alpha * share
        if 1.0 - confidence > alpha * share:  # never spend more than the share
            confidence = math.nextafter(confidence, 1.0)
        own = seed if j == last else look_seed(seed, j)
        looks.append(PlannedLook(samples=size, alpha=1.0 - confidence, seed=own))
    return tuple(looks)


def look_config(cfg: AuditConfig, look: PlannedLook) -> AuditConfig:
    """The configuration of one look: ``cfg`` at the look's size, confidence 1 − αⱼ and
    seed, its pilot (at least :data:`MIN_LOOK_PILOT`) and any explicit search or
    noise-law sample scaled with it (their defaults follow ``samples`` already)."""
    scale = look.samples / cfg.samples
    update: dict[str, object] = {
        "samples": look.samples,
        "confidence": 1.0 - look.alpha,
        "seed": look.seed,
        "sequential": False,
        "time_budget": None,
    }
    if scale < 1.0:
        update["pilot_samples"] = min(
            cfg.pilot_samples, max(MIN_LOOK_PILOT, math.ceil(cfg.pilot_samples * scale))
        )
        for name in ("search_samples", "conformance_samples"):
            value = getattr(cfg, name)
            if value is not None:
                update[name] = max(100, math.ceil(value * scale))
    return cfg.merged(update)


def sequential_audit(
    cfg: AuditConfig,
    run_look: Callable[[AuditConfig, int], AuditReport],
    *,
    say: Callable[[str], None] = lambda _msg: None,
    clock: Callable[[], float] = time.perf_counter,
) -> AuditReport:
    """Run the looks of ``cfg`` (:func:`look_schedule`) until one stops the audit.

    Parameters
    ----------
    cfg : AuditConfig
        The audit's configuration: ``samples`` is the last look's size, ``confidence`` the
        family-wise level, ``time_budget`` (optional) the seconds after which no new look
        starts: a look is skipped when the seconds spent plus the previous look's seconds
        scaled by the size ratio would exceed it.
    run_look : callable
        ``run_look(look_cfg, index)`` runs one whole audit at a look's configuration.
    say : callable, optional
        Progress messages.
    clock : callable, optional
        Time source (default ``time.perf_counter``).

    Returns
    -------
    AuditReport
        The last look's report with ``sequential`` set, and the whole audit's ``config``,
        ``confidence``, ``seed`` and ``runtime_seconds``.
    """
    schedule = look_schedule(cfg.samples, cfg.alpha, cfg.seed)
    started = clock()
    results: list[LookResult] = []
    report: AuditReport | None = None
    reason: StoppingReason = "sample budget"
    for j, look in enumerate(schedule):
        if results and cfg.time_budget is not None:
            spent = clock() - started
            expected = results[-1].seconds * look.samples / schedule[j - 1].samples
            if spent + expected > cfg.time_budget:
                reason = "time budget"
                break
        say(
            f"look {j + 1}/{len(schedule)}: {look.samples:,} samples per side "
            f"at α = {look.alpha:.3g}"
        )
        begun = clock()
        report = run_look(look_config(cfg, look), j)
        results.append(
            LookResult(
                look=j,
                samples=look.samples,
                alpha=look.alpha,
                seed=look.seed,
                verdict=report.verdict,
                epsilon_lower_bound=report.epsilon_lower_bound,
                seconds=clock() - begun,
            )
        )
        if report.verdict == "violation":
            reason = "violation"
            break
    assert report is not None  # the first look always runs
    record = SequentialRecord(
        schedule=schedule,
        looks=tuple(results),
        stopping_reason=reason,
        samples_drawn=sum(r.samples for r in results),
    )
    say(record.text())
    return report.model_copy(
        update={
            "config": cfg,
            "confidence": cfg.confidence,
            "seed": cfg.seed,
            "sequential": record,
            "runtime_seconds": clock() - started,
        }
    )
