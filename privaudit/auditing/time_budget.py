"""Audits planned to a time budget: a timed pilot, the cost of each stage, the plan.

``audit(mechanism, time_budget=seconds)`` times a pilot of releases (:func:`time_releases`)
and of the auditor's own processing (:func:`time_processing`), counts the releases every
stage draws from the code of the auditor (:func:`stage_releases`, not fitted), and shrinks
the configuration (never grows it) until the audit fits :data:`RELEASE_SHARE` of the
budget.  What the budget can and cannot detect is stated before the audit, from
:func:`~privaudit.statistics.power.detectable_epsilon`.

Details (the cost model and the shrinking order): ``docs/engine_notes.md``,
"privaudit.auditing.time_budget".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from privaudit.auditing.checks.accuracy import ACCURACY_INPUTS
from privaudit.auditing.choice.halving import halving_first_round, halving_pool_size
from privaudit.auditing.choice.ranked_law import RANKED_LAW_MIN_DRAWS
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.distinguish.error_budget import DECLARED_SHARE, RARE_SHARE
from privaudit.auditing.outcome.audit_plan import AuditPlan
from privaudit.auditing.outcome.budget_plan import (
    BudgetPlan,
    ProcessingTiming,
    ReleaseTiming,
    StageCost,
)
from privaudit.auditing.outcome.texts import format_epsilon
from privaudit.auditing.plan import plan_audit
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.auditing.search import candidate_pairs
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import AuditError, InvalidParameterError
from privaudit.statistics.power import detectable_epsilon

__all__ = [
    "PILOT_MAX_SECONDS",
    "PILOT_SHARE",
    "PROCESSING_SIZES",
    "RANKING_SHARE",
    "RELEASE_SHARE",
    "SAMPLES_PER_PAIR",
    "BudgetPlan",
    "ProcessingTiming",
    "ReleaseTiming",
    "StageCost",
    "budget_epsilon",
    "plan_to_budget",
    "stage_releases",
    "time_processing",
    "time_releases",
]

#: Share of the budget planned for releases (the rest: the auditor's own computation).
RELEASE_SHARE = 0.9
#: Largest share of the planned releases the black-box pair ranking gets in a shrunk plan.
RANKING_SHARE = 0.25
#: The timing pilot stops once it has used this share of the budget ...
PILOT_SHARE = 0.02
#: ... or this many seconds.
PILOT_MAX_SECONDS = 1.0
#: A shrunk plan tests fewer pairs while one would get fewer samples per side than this.
SAMPLES_PER_PAIR = 20_000
#: Smallest test split, search split and pilot of a plan (outputs per side).
MIN_SAMPLES, MIN_SEARCH, MIN_PILOT = 100, 100, 10
#: Float-image check: outputs per direction and pairs (``check_float_image`` defaults).
_FLOAT_IMAGE_RELEASES = 4_000 * 2 * 2
#: Largest pilot batch.
_PILOT_MAX_BATCH = 1 << 16
#: Event probabilities P[M(y) ∈ S] over which the most favourable event is sought.
_P_Y_GRID = (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4)

Clock = Callable[[], float]


def time_releases(
    mechanism: Mechanism,
    data: Any,
    rng: np.random.Generator,
    *,
    time_budget: float,
    clock: Clock = time.perf_counter,
) -> ReleaseTiming:
    """Time batches of 1, 2, 4, … releases on ``data`` (``docs/engine_notes.md``).

    At least two batches run, so that a first call's one-off cost (imports, a model's
    warm-up) is not read as the cost of a release."""
    limit = min(PILOT_SHARE * time_budget, PILOT_MAX_SECONDS)
    total, seconds, size, last = 0, 0.0, 1, (1, 0.0)
    while True:
        start = clock()
        draw_outputs(mechanism, data, size, rng)
        elapsed = max(clock() - start, 0.0)
        total, seconds, last = total + size, seconds + elapsed, (size, elapsed)
        if (seconds >= limit and size > 1) or size >= _PILOT_MAX_BATCH:
            break
        size *= 2
    per_release = max(last[1] / last[0], 1e-12)
    return ReleaseTiming(
        releases=total, seconds=seconds, batch=last[0], seconds_per_release=per_release
    )


def _search_share(shape: AuditPlan) -> int:
    """The search split's fraction of the test split (``AuditConfig.search_samples_for``)."""
    return 16 if shape.declared and shape.claim.delta == 0 else 4


def max_tested_pairs(shape: AuditPlan, cfg: AuditConfig, pool: int | None = None) -> int:
    """The most pairs the distinguishing test can test at ``cfg``: ``pairs_tested``, or for
    a black box with the robust pair choice an upper bound on the size of the halving's
    last round (the near ties within ``pair_tolerance`` of the ``pairs_tested``-th are
    tested too): ``2·pairs_tested``, or fewer when fewer pairs enter the halving."""
    k = cfg.pairs_tested
    if not shape.black_box or cfg.pair_tolerance <= 0:
        return k
    evaluations = (cfg.pair_budget if pool is None else pool) + cfg.pair_budget + 2 * k
    # the last round has at most 2k pairs, and no more than the halving started with
    return max(k, min(2 * k, halving_pool_size(k), evaluations))


def stage_releases(
    shape: AuditPlan, cfg: AuditConfig, *, pool: int | None = None, tested: int | None = None
) -> dict[str, int]:
    """Releases drawn by each stage of an audit at ``cfg`` (``docs/engine_notes.md``); ``pool``:
    candidate pairs up to swaps (default ``cfg.pair_budget``, their upper bound);
    ``tested``: pairs given the distinguishing test (default
    :func:`max_tested_pairs`)."""
    n = cfg.samples
    k = max_tested_pairs(shape, cfg, pool) if tested is None else tested
    search = cfg.search_samples_for(shape.declared, approximate=shape.claim.delta > 0)
    out: dict[str, int] = {}
    if shape.conformance:
        out["noise-law conformance"] = cfg.effective_conformance_samples * shape.conformance_inputs
    if shape.spike:
        out["spike windows"] = 2 * n
    if shape.float_image:
        out["floating-point image"] = _FLOAT_IMAGE_RELEASES
    if shape.accuracy:
        out["accuracy claim"] = cfg.effective_conformance_samples * ACCURACY_INPUTS
    if shape.black_box:
        out["pair ranking"] = _ranking_releases(
            cfg.pilot_samples,
            cfg.pair_budget,
            cfg.pairs_tested,
            n,
            cfg.pair_budget if pool is None else pool,
        )
    else:
        inputs = 2 * (cfg.pair_budget + 5 * cfg.pairs_tested)
        out["declared law at the ranked pairs"] = max(2 * n, RANKED_LAW_MIN_DRAWS * inputs)
    out["distinguishing test"] = 2 * k * (n + search)
    return out


def _ranking_releases(pilot: int, pair_budget: int, k: int, samples: int, pool: int) -> int:
    """The black-box pair ranking of :func:`~privaudit.auditing.choice.halving.choose_pairs`."""
    return _ranking(pilot, pair_budget, k, samples, pool)[0]


def _ranking(pilot: int, pair_budget: int, k: int, samples: int, pool: int) -> tuple[int, int]:
    """(releases, pair evaluations) of the black-box pair ranking."""
    evaluations = pool + pair_budget + 2 * k
    total, calls = evaluations * 2 * (2 * pilot), evaluations
    pairs, size = min(halving_pool_size(k), evaluations), halving_first_round(pilot, samples)
    while pairs > k:
        total += pairs * 2 * size
        calls += pairs
        pairs, size = max(k, math.ceil(pairs / 2)), 2 * size
    return total, calls


class _Cost:
    """Seconds of a stage: releases × (release + processing per output) + tests × fixed."""

    def __init__(self, release: float, processing: ProcessingTiming) -> None:
        self.per_release = release + processing.seconds_per_output
        self.per_call = processing.fixed_seconds

    def seconds(self, releases: float, calls: float) -> float:
        return releases * self.per_release + calls * self.per_call

    def of(
        self, shape: AuditPlan, cfg: AuditConfig, pool: int | None = None, ranking: bool = True
    ) -> float:
        """Seconds of the stages of an audit at ``cfg`` (without the ranking if not
        ``ranking``)."""
        releases = stage_releases(shape, cfg, pool=pool)
        calls = {"distinguishing test": max_tested_pairs(shape, cfg, pool)}
        if shape.black_box:
            calls["pair ranking"] = _ranking(
                cfg.pilot_samples,
                cfg.pair_budget,
                cfg.pairs_tested,
                cfg.samples,
                cfg.pair_budget if pool is None else pool,
            )[1]
        return sum(
            self.seconds(r, calls.get(stage, 0))
            for stage, r in releases.items()
            if ranking or stage != "pair ranking"
        )

    def ranking(self, pilot: int, pair_budget: int, k: int, samples: int) -> float:
        return self.seconds(*_ranking(pilot, pair_budget, k, samples, pair_budget))


#: Outputs per side of the two timed tests of :func:`time_processing`.
PROCESSING_SIZES = (400, 4000)


def time_processing(
    mechanism: Mechanism,
    pair: Any,
    rng: np.random.Generator,
    *,
    affordable: float,
    events_per_direction: int,
    clock: Clock = time.perf_counter,
) -> tuple[ProcessingTiming, int, float]:
    """Time the auditor's distinguishing test on the mechanism's own outputs.

    Two tests, of ``PROCESSING_SIZES`` outputs per side (scaled down to ``affordable``
    releases in all), give the fixed and per-output cost; skipped (zero cost) when fewer
    than 100 outputs per side are affordable — the releases then dominate.  Returns the
    timing and the releases drawn and their seconds on ``clock``.
    """

    from privaudit.auditing.distinguish import PairTestConfig, distinguish_pair, replay_pair_test

    scale = min(1.0, affordable / (2 * sum(PROCESSING_SIZES)))
    sizes = tuple(int(n * scale) for n in PROCESSING_SIZES)
    if sizes[0] < 100:
        return ProcessingTiming(), 0, 0.0
    drawn, drawn_seconds, took = 0, 0.0, []
    for n in sizes:
        start = clock()
        sx = draw_outputs(mechanism, pair.x, n, rng)
        sy = draw_outputs(mechanism, pair.y, n, rng)
        drawn, drawn_seconds = drawn + 2 * n, drawn_seconds + max(clock() - start, 0.0)
        draws = replay_pair_test(sx, sy, search_samples=n // 4)
        config = PairTestConfig(events_per_direction=events_per_direction)
        start = time.perf_counter()
        distinguish_pair(mechanism, pair, draws, alpha=0.05, config=config)
        took.append(time.perf_counter() - start)
    per_output = max((took[1] - took[0]) / (2 * (sizes[1] - sizes[0])), 0.0)
    fixed = max(took[0] - per_output * 2 * sizes[0], 0.0)
    return (
        ProcessingTiming(outputs=sizes, fixed_seconds=fixed, seconds_per_output=per_output),
        drawn,
        drawn_seconds,
    )


def budget_epsilon(shape: AuditPlan, cfg: AuditConfig, *, probability: float = 0.9) -> float:
    """The smallest true ε the most favourable event of an audit at ``cfg`` detects with
    ``probability`` (``docs/engine_notes.md``, "privaudit.auditing.time_budget")."""
    # the distinguishing test's share of the plan, at this configuration's α, per pair
    alpha = cfg.alpha * (shape.share("distinguishability") / shape.alpha) / cfg.pairs_tested
    if shape.claim.delta > 0:
        alpha *= 1.0 - RARE_SHARE
    level = DECLARED_SHARE * alpha if shape.declared else alpha / (2 * cfg.events_per_direction)
    n = cfg.samples
    best = math.inf
    for p_y in _P_Y_GRID:
        if p_y * n < 1.0 or math.exp(shape.claim.epsilon) * p_y + shape.claim.delta >= 1.0:
            continue
        best = min(
            best,
            detectable_epsilon(
                p_y,
                n,
                n,
                alpha=level,
                delta=shape.claim.delta,
                claimed_epsilon=shape.claim.epsilon,
                probability=probability,
                tolerance=1e-3,
            ),
        )
    return best


def _largest(fits: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """The largest integer in [lo, hi] with ``fits`` (monotone), or None."""
    if hi < lo or not fits(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _shrunk(shape: AuditPlan, cfg: AuditConfig, seconds: float, cost: _Cost) -> AuditConfig | None:
    """The largest configuration below ``cfg`` whose stages fit ``seconds``.

    The test split gets what the other stages leave, after reserving for a black box's
    pair ranking the larger of :data:`RANKING_SHARE` of the seconds and the smallest
    ranking (:data:`MIN_PILOT`, two candidate pairs); the ranking then gets the rest.
    """
    for k in range(cfg.pairs_tested, 0, -1):
        smallest = max(k, 2)

        def sized(n: int, k: int = k) -> AuditConfig:
            return cfg.merged(
                {
                    "samples": n,
                    "pairs_tested": k,
                    "search_samples": max(MIN_SEARCH, n // _search_share(shape)),
                    "pair_budget": max(k, min(cfg.pair_budget, 2)),
                    "pilot_samples": MIN_PILOT,
                    # a binding budget plans exactly k tested pairs: the samples are
                    # better spent on them than split over near ties the plan cannot
                    # foresee (and the plan's cost must hold whatever the pilot finds)
                    "pair_tolerance": 0.0,
                }
            )

        def fits(n: int, k: int = k, smallest: int = smallest) -> bool:
            reserve = (
                max(RANKING_SHARE * seconds, cost.ranking(MIN_PILOT, smallest, k, n))
                if shape.black_box
                else 0.0
            )
            return cost.of(shape, sized(n), ranking=False) + reserve <= seconds

        n = _largest(fits, MIN_SAMPLES, cfg.samples)
        if n is None or (n < SAMPLES_PER_PAIR * k and k > 1):
            continue
        base = sized(n)
        if not shape.black_box:
            return base.merged({"pair_budget": cfg.pair_budget, "pilot_samples": cfg.pilot_samples})
        left = seconds - cost.of(shape, base, ranking=False)
        budget, pilot = _ranking_plan(cfg, k, n, left, cost)
        return base.merged({"pair_budget": budget, "pilot_samples": pilot})
    return None


def _ranking_plan(cfg: AuditConfig, k: int, n: int, seconds: float, cost: _Cost) -> tuple[int, int]:
    """(pair_budget, pilot_samples) of a black-box ranking within ``seconds``: the most
    candidate pairs that leave a pilot of at least :data:`MIN_PILOT` outputs, with the
    longest such pilot (the smallest ranking, :data:`MIN_PILOT` on two candidates, was
    reserved by :func:`_shrunk`)."""
    budgets = sorted(
        {b for b in (cfg.pair_budget, 24, 16, 8, 4, 2) if max(k, 2) <= b <= cfg.pair_budget},
        reverse=True,
    )
    for budget in budgets:

        def fits(p: int, budget: int = budget) -> bool:
            return cost.ranking(p, budget, k, n) <= seconds

        pilot = _largest(fits, MIN_PILOT, cfg.pilot_samples)
        if pilot is not None:
            return budget, pilot
    return max(k, 2), MIN_PILOT


def plan_to_budget(
    mechanism: Mechanism,
    cfg: AuditConfig,
    time_budget: float,
    *,
    clock: Clock = time.perf_counter,
    explicit: int = 0,
) -> tuple[AuditConfig, BudgetPlan]:
    """Time a pilot of releases and fit ``cfg`` to ``time_budget`` seconds.

    Parameters
    ----------
    mechanism : Mechanism
    cfg : AuditConfig
        The configuration to fit (it is shrunk, never grown).
    time_budget : float
        Seconds for the whole audit, pilot included.
    clock : callable
        The time source (default ``time.perf_counter``; inject one to simulate a cost).
    explicit : int
        Explicit pairs the caller passes (they join the candidate pool).

    Returns
    -------
    (AuditConfig, BudgetPlan)
        The planned configuration (the audit runs at it, reproducibly from its seed) and
        the plan.

    Raises
    ------
    InvalidParameterError
        If ``time_budget`` is not a positive finite number.
    AuditError
        If even the smallest audit (:data:`MIN_SAMPLES` per side, one pair) does not fit.
    """
    if (
        isinstance(time_budget, bool)
        or not isinstance(time_budget, (int, float))
        or not math.isfinite(time_budget)
        or time_budget <= 0
    ):
        raise InvalidParameterError(
            f"time_budget must be a positive number of seconds, got {time_budget!r}"
        )
    budget = float(time_budget)
    rng = np.random.default_rng([cfg.seed, 0x7B0D6E7])  # a stream of its own
    pairs = candidate_pairs(mechanism.spec, rng, budget=2)
    shape = plan_audit(mechanism, cfg, pairs[0] if pairs else None)
    if not pairs:
        raise AuditError(f"no neighbouring pair of {mechanism.name!r} to time a pilot on")
    timing = time_releases(mechanism, pairs[0].x, rng, time_budget=budget, clock=clock)
    release = timing.seconds_per_release
    started = time.perf_counter()
    processing, drawn, drawn_seconds = time_processing(
        mechanism,
        pairs[0],
        rng,
        affordable=PILOT_SHARE * budget / release,
        events_per_direction=cfg.events_per_direction,
        clock=clock,
    )
    pilot_seconds = timing.seconds + drawn_seconds + (time.perf_counter() - started)
    cost = _Cost(release, processing)
    seconds = RELEASE_SHARE * budget - pilot_seconds
    pool = cfg.pair_budget + explicit
    default_seconds = pilot_seconds + cost.of(shape, cfg, pool=pool)
    shrunk = default_seconds > RELEASE_SHARE * budget
    planned = cfg
    if shrunk:
        found = _shrunk(shape, cfg, seconds, cost)
        if found is None:
            raise AuditError(
                f"time_budget = {budget:g} s is too small for {mechanism.name!r}: a release "
                f"takes {release:.3g} s, the pilot used {pilot_seconds:.3g} s, and the "
                f"{max(seconds, 0):.3g} s left (of {RELEASE_SHARE:g} of the budget) do not "
                f"hold the smallest audit ({MIN_SAMPLES} test and {MIN_SEARCH} search outputs "
                "per side on one pair, and the pair ranking)"
            )
        planned = found
    planned_pool = planned.pair_budget + explicit
    stages = stage_releases(shape, planned, pool=planned_pool)
    ranking_calls = _ranking(
        planned.pilot_samples,
        planned.pair_budget,
        planned.pairs_tested,
        planned.samples,
        planned_pool,
    )[1]
    calls = {
        "pair ranking": ranking_calls,
        "distinguishing test": max_tested_pairs(shape, planned, planned_pool),
    }
    costs = tuple(
        StageCost(stage=s, releases=r, seconds=cost.seconds(r, calls.get(s, 0)))
        for s, r in stages.items()
    )
    planned_seconds = pilot_seconds + sum(c.seconds for c in costs)
    target = cfg.detect_epsilon_for(shape.claim.epsilon)
    before = budget_epsilon(shape, cfg)
    after = before if not shrunk else budget_epsilon(shape, planned)
    search = planned.search_samples_for(shape.declared, approximate=shape.claim.delta > 0)
    plan = BudgetPlan(
        time_budget=budget,
        timing=timing,
        processing=processing,
        stages=costs,
        planned_seconds=planned_seconds,
        default_seconds=default_seconds,
        shrunk=shrunk,
        default_samples=cfg.samples,
        samples=planned.samples,
        search_samples=search,
        pilot_samples=planned.pilot_samples,
        pair_budget=planned.pair_budget,
        pairs_tested=planned.pairs_tested,
        target_epsilon=target,
        detectable_before=before,
        detectable_after=after,
        statement=_statement(
            budget,
            release,
            planned,
            cfg,
            shrunk,
            before,
            after,
            target,
            default_seconds,
            shape.claim.epsilon,
        ),
    )
    return planned, plan


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def _statement(
    budget: float,
    cost: float,
    planned: AuditConfig,
    cfg: AuditConfig,
    shrunk: bool,
    before: float,
    after: float,
    target: float,
    default_seconds: float,
    claimed: float,
) -> str:
    pct = f"{100 * cfg.confidence:g}%"
    head = f"time budget {_duration(budget)} at {cost * 1e3:.3g} ms per release: "
    if not shrunk:
        return head + (
            f"the configured audit fits (about {_duration(default_seconds)}); "
            f"at {cfg.samples} samples per side it detects a true ε ≥ "
            f"{format_epsilon(before)} at confidence {pct} with probability "
            f"0.9 on the most favourable event"
        )
    text = head + (
        f"the configured audit ({cfg.samples} samples per side, about "
        f"{_duration(default_seconds)}) does not fit, so it was planned at {planned.samples} "
        f"samples per side on {planned.pairs_tested} pair(s); at confidence {pct} and "
        f"probability 0.9 on the most favourable event it detects a true ε ≥ "
        f"{format_epsilon(after)} (the configured size: ε ≥ {format_epsilon(before)}), "
        f"so it cannot detect a true ε below {format_epsilon(after)}"
    )
    if not (math.isfinite(after) and after <= target):
        text += (
            f", and cannot detect the target ε = {target:.4g} (claim {claimed:.4g}): "
            "no violation found within this budget means little"
        )
    return text
