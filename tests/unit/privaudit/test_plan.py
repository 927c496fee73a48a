"""The audit as a plan: computed once, executed by the auditor and the group audit, priced
by the time budget, recorded in the report (privaudit.auditing.plan)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privaudit import AuditConfig, audit
from privaudit.auditing.outcome.audit_plan import (
    CONFORMANCE_SHARE,
    RANKED_LAW_SHARE,
    STREAMS,
    AuditPlan,
    Claim,
)
from privaudit.auditing.plan import plan_audit
from privaudit.auditing.search import candidate_pairs
from privaudit.auditing.time_budget import budget_epsilon, stage_releases
from privaudit.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponseMechanism,
    declare_mechanism,
)
from privaudit.spec import ApproxDP, MechanismSpec, PureDP, QueryDistance, RealInterval

from .test_auditor import _noisy_sum  # a noisy sum under substitute-one (group pairs)

FAST = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=12, pairs_tested=2, claim_budget=40, seed=3
)
#: The statistical checks and the plan's share each spends.
STATISTICAL = (
    "noise_law",
    "floating_point.image",
    "noise_law.spike",
    "lndp.locality",
    "noise_law.ranked_pairs",
    "distinguishability",
)


def _black_box(delta: float = 0.0):
    spec = MechanismSpec(
        name="black_box_laplace",
        input_domain=RealInterval(lo=-5.0, hi=5.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        guarantee=PureDP(epsilon=1.0) if delta == 0 else ApproxDP(epsilon=1.0, delta=delta),
    )
    return declare_mechanism(spec, lambda x, size, rng: x + rng.laplace(0.0, 1.0, size))


def _plan(mechanism, cfg=FAST, group=None) -> AuditPlan:
    pairs = candidate_pairs(mechanism.spec, np.random.default_rng(0), budget=2)
    return plan_audit(mechanism, cfg, pairs[0], group=group)


CASES = {
    "laplace": lambda: LaplaceMechanism(1.0, 1.0),
    "gaussian": lambda: GaussianMechanism(1.0, 1e-5, 1.0),
    "randomized_response": lambda: RandomizedResponseMechanism(1.0, categories=4),
    "black_box": _black_box,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_shares_add_up_to_alpha(name):
    plan = _plan(CASES[name]())
    assert math.isclose(sum(plan.shares.values()), plan.alpha, rel_tol=1e-12)
    assert all(v > 0 for v in plan.shares.values())
    assert plan.share("distinguishability") > 0.5 * plan.alpha
    assert plan.streams == STREAMS


def test_the_predicates_follow_the_declaration():
    laplace = _plan(LaplaceMechanism(1.0, 1.0))
    assert laplace.claim == Claim(epsilon=1.0, delta=0.0)
    assert laplace.ranking == "statistic shift" and not laplace.black_box
    assert laplace.share("noise_law") == pytest.approx(CONFORMANCE_SHARE * FAST.alpha)
    assert laplace.share("noise_law.ranked_pairs") == pytest.approx(
        RANKED_LAW_SHARE * (1 - CONFORMANCE_SHARE) * FAST.alpha
    )
    rr = _plan(RandomizedResponseMechanism(1.0, categories=4))
    assert rr.exact and rr.conformance_inputs == 2 and rr.ranking == "declared bound"
    box = _plan(_black_box())
    assert box.black_box and not box.conformance and box.shares == {"distinguishability": box.alpha}
    assert box.alpha_ranking == box.alpha
    gaussian = _plan(GaussianMechanism(1.0, 1e-5, 1.0))
    assert gaussian.spike and gaussian.share("noise_law.spike") > 0
    # a group audit runs no distance-1 check
    group = _plan(_noisy_sum(1.0), group=2)
    assert group.group == 2 and not (group.float_image or group.spike or group.local_node)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_audit_spends_what_its_plan_says(name):
    report = audit(CASES[name](), config=FAST)
    plan = report.plan
    assert plan is not None and plan.alpha == pytest.approx(FAST.alpha)
    spent = {}
    for check in report.checks:
        if check.name in STATISTICAL and check.error_rate > 0:  # the image check may be exact
            spent[check.name] = spent.get(check.name, 0.0) + check.error_rate
    assert spent.keys() <= plan.shares.keys()
    for stage, alpha in spent.items():
        assert alpha == pytest.approx(plan.share(stage), rel=1e-12), stage
    # the report's JSON carries the plan and reads back the same
    assert type(report).model_validate_json(report.model_dump_json()).plan == plan


def test_the_group_audit_executes_a_group_plan_with_the_ranked_law():
    report = audit(_noisy_sum(1.0), config=FAST, group=2)
    plan = report.plan
    assert plan.group == 2 and plan.ranking == "statistic shift"
    ranked = report.check("noise_law.ranked_pairs")
    assert ranked.status == "passed" and ranked.error_rate == pytest.approx(
        plan.share("noise_law.ranked_pairs")
    )
    assert report.check("distinguishability").error_rate == pytest.approx(
        plan.share("distinguishability")
    )


def test_the_time_budget_prices_the_plan():
    """The recipe of docs/architecture.md ("Adding a check"), as followed by the declared
    law at the ranked inputs: a share in the plan, the check where the auditor executes
    the plan, its releases priced by the time budget, its assumption in the report."""
    mechanism = LaplaceMechanism(1.0, 1.0)
    plan = _plan(mechanism)
    releases = stage_releases(plan, FAST)
    assert releases["declared law at the ranked pairs"] >= 2 * FAST.samples
    assert "pair ranking" not in releases
    assert "declared law at the ranked pairs" not in stage_releases(_plan(_black_box()), FAST)
    # the detectable ε is planned at the distinguishing test's share of the plan
    wider = plan.model_copy(update={"shares": {**plan.shares, "distinguishability": plan.alpha}})
    assert budget_epsilon(wider, FAST) < budget_epsilon(plan, FAST)
    report = audit(mechanism, config=FAST)
    assert any(a.check == "noise_law.ranked_pairs" for a in report.assumptions)
