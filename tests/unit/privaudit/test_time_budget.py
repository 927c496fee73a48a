"""Audits planned to a time budget (privaudit/auditing/time_budget.py).

The cost of a release is simulated with an injected clock (a mechanism that advances it
by 10 ms per release), so the planning logic is tested without sleeping; one test times
a mechanism that really costs time.
"""

from __future__ import annotations

import inspect
import time
from collections import Counter

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.outcome.report import AuditReport
from privaudit.auditing.plan import plan_audit
from privaudit.auditing.time_budget import (
    RELEASE_SHARE,
    max_tested_pairs,
    plan_to_budget,
    stage_releases,
)
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    DatasetDomain,
    GlobalSensitivity,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import AuditError, PrivauditError

N, EPS = 10, 1.0


class FakeClock:
    """A clock that a simulated mechanism advances by its cost."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def black_box_mean(cost: float = 0.0, clock: FakeClock | None = None, log: list | None = None):
    """A correct Laplace mean exposing no hook (a black box): ``cost`` seconds per
    release on ``clock``; ``log`` collects (stage, releases) of every draw."""
    spec = MechanismSpec(
        name="slow_mean",
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=N),
        relation=SubstituteOne(),
        statistic="mean of the records",
        sensitivity=(GlobalSensitivity(value=1 / N),),
        guarantee=PureDP(epsilon=EPS),
    )

    def sampler(x, size, rng):
        if clock is not None:
            clock.now += cost * size
        if log is not None:
            names = {f.function for f in inspect.stack()[1:30]}
            log.append(
                (
                    "pair ranking"
                    if "choose_pairs" in names
                    else "distinguishing test"
                    if names & {"distinguish_pair", "draw_pair_test"}
                    else "other",
                    size,
                )
            )
        return x.mean() + rng.laplace(0.0, 1 / (N * EPS), size)

    return declare_mechanism(spec, sampler=sampler)


def test_ten_ms_per_release_in_sixty_seconds_says_what_the_budget_can_and_cannot_detect():
    clock = FakeClock()
    mech = black_box_mean(0.010, clock)
    report = audit(mech, time_budget=60, clock=clock)
    plan = report.budget
    assert plan is not None and plan.shrunk
    assert plan.timing.seconds_per_release == pytest.approx(0.010)
    # the simulated cost of every release drawn (pilot included) stays within the budget
    assert clock.now <= 60.0
    assert plan.planned_seconds <= RELEASE_SHARE * 60 + 1e-9
    assert clock.now == pytest.approx(plan.planned_seconds, rel=0.05)
    # the audit ran at the planned size, and records it so that it reruns from the seed
    assert report.samples == plan.samples == report.config.samples < plan.default_samples
    assert report.config.time_budget is None and report.config.pairs_tested == 1
    # a binding budget plans exactly the pairs it counted: no near ties
    assert report.config.pair_tolerance == 0.0
    # before: the default 2·10⁵ per side; after: what 60 s buy
    assert 1.0 < plan.detectable_before < plan.detectable_after < plan.target_epsilon == 2.0
    for needle in (
        "time budget 60 s at 10 ms per release",
        "does not fit",
        f"cannot detect a true ε below {plan.detectable_after:.4g}",
        f"ε ≥ {plan.detectable_before:.4g}",
    ):
        assert needle in plan.statement
    assert plan.statement in report.summary()
    assert plan.default_seconds > 3600  # the default audit would take hours
    back = AuditReport.from_json(report.to_json())
    assert back.budget == plan
    from privaudit.interfaces.html_report import render_html_report

    html = render_html_report(report, figures="builtin")
    assert 'id="budget"' in html and "10 ms per release" in html
    # the a-priori statement agrees with the power of the event the audit found
    assert report.power is not None
    assert report.power.detectable_epsilon >= plan.detectable_after - 0.05


def test_a_budget_that_cannot_even_detect_the_target_says_so():
    clock = FakeClock()
    report = audit(
        black_box_mean(0.010, clock), time_budget=30, detect_epsilon=1.2, clock=clock, seed=1
    )
    plan = report.budget
    assert not plan.can_detect_target and plan.target_epsilon == 1.2
    assert "cannot detect the target ε = 1.2 (claim 1)" in plan.statement
    assert report.verdict == "inconclusive"  # the found event agrees


def test_the_cost_model_counts_the_releases_each_stage_draws():
    """stage_releases is read off the code of the auditor: the ranking exactly, the
    Poissonised test split to within a few standard deviations."""
    log: list = []
    mech = black_box_mean(log=log)
    cfg = AuditConfig(samples=4000, pilot_samples=100, pair_budget=8, pairs_tested=2)
    report = audit(mech, config=cfg)
    drawn = Counter()
    for stage, size in log:
        drawn[stage] += size
    pool = audit_pool(mech, cfg)
    tested = report.check("distinguishability").details["pairs_tested"]
    model = stage_releases(plan_audit(mech, cfg), cfg, pool=pool, tested=tested)
    assert drawn["pair ranking"] == model["pair ranking"]
    assert abs(drawn["distinguishing test"] - model["distinguishing test"]) < 5 * np.sqrt(
        model["distinguishing test"]
    )
    # a plan counts the most pairs the robust choice can test (near ties: up to 2k)
    assert 2 <= tested <= max_tested_pairs(plan_audit(mech, cfg), cfg, pool) == 4
    planned = stage_releases(plan_audit(mech, cfg), cfg, pool=pool)
    assert planned["distinguishing test"] == 4 * model["distinguishing test"] // tested
    plain = cfg.merged({"pair_tolerance": 0.0})
    assert max_tested_pairs(plan_audit(mech, cfg), plain, pool) == 2
    # at CI strength the ranking costs 400 × pilot_samples (the default: 696 ×)
    ci = AuditConfig(samples=50_000, pilot_samples=2_000, pair_budget=24, pairs_tested=2)
    assert stage_releases(plan_audit(mech, cfg), ci)["pair ranking"] == 400 * 2_000
    assert stage_releases(plan_audit(mech, cfg), AuditConfig())["pair ranking"] == 696 * 4_000


def audit_pool(mech, cfg) -> int:
    """Candidate pairs up to swaps, as choose_pairs sees them."""
    from privaudit.auditing.auditor import _streams
    from privaudit.auditing.choice.halving import _dedupe
    from privaudit.auditing.search import candidate_pairs

    cands = candidate_pairs(mech.spec, _streams(cfg.seed)["search"], budget=cfg.pair_budget)
    return len(_dedupe(cands, swaps=True))


def test_an_ample_budget_keeps_the_configuration():
    clock = FakeClock()
    mech = black_box_mean(1e-7, clock)
    cfg = AuditConfig(samples=5000, pilot_samples=200, pair_budget=8, pairs_tested=1)
    planned, plan = plan_to_budget(mech, cfg, 60.0, clock=clock)
    assert not plan.shrunk and planned == cfg
    assert plan.detectable_after == plan.detectable_before
    assert "the configured audit fits" in plan.statement


def test_too_small_a_budget_and_bad_budgets_are_clear_errors():
    clock = FakeClock()
    with pytest.raises(AuditError, match="time_budget = 10 s is too small"):
        plan_to_budget(black_box_mean(0.010, clock), AuditConfig(), 10.0, clock=clock)
    for bad in (0, -1.0, float("nan"), "60"):
        with pytest.raises(PrivauditError, match="time_budget"):
            plan_to_budget(black_box_mean(), AuditConfig(), bad)
    with pytest.raises(PrivauditError):
        AuditConfig(time_budget=-5)


def test_a_mechanism_that_really_costs_time_is_planned_from_its_timed_pilot():
    """Real clock: about 20 µs per release (a busy loop), a 2-second budget.  Only the
    plan's consistency is asserted, never a wall-clock time."""
    spec = black_box_mean().spec

    def sampler(x, size, rng):
        end = time.perf_counter() + 2e-5 * size
        while time.perf_counter() < end:
            pass
        return x.mean() + rng.laplace(0.0, 1 / (N * EPS), size)

    report = audit(
        declare_mechanism(spec, sampler=sampler),
        time_budget=2.0,
        samples=50_000,
        pilot_samples=2_000,
        pair_budget=24,
        pairs_tested=2,
    )
    plan = report.budget
    assert plan.shrunk and plan.timing.seconds_per_release > 1e-5
    assert report.samples == plan.samples < 50_000
    assert (
        sum(c.releases for c in plan.stages) * plan.timing.seconds_per_release
        <= RELEASE_SHARE * 2.0
    )
