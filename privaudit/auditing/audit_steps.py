"""The audit's steps before the distributional test: sensitivity claims, noise-law checks.

:func:`sensitivity_checks` checks the declared sensitivities and replays a mechanism that
exposes its primitives (:mod:`~privaudit.auditing.replay.check`; deterministic, no α).
:func:`noise_law_checks` runs the noise-law conformance test, the spike windows at f for
(ε, δ) claims (:mod:`~privaudit.auditing.checks.spike`), the floating-point image of the
outputs (:mod:`~privaudit.auditing.checks.float_image`) and the local-node checks
(:mod:`~privaudit.auditing.checks.local_node`), each at its share of α in the audit's
plan (:mod:`~privaudit.auditing.plan`, ``docs/derivations.md`` §8);
:func:`accuracy_checks` tests the spec's accuracy claim on samples at its share of α
(:mod:`~privaudit.auditing.checks.accuracy`).  :func:`exposed_search_spec` focuses a
local-node relation on the nodes its public randomness exposes most before the pair
search.  All are called by
:func:`~privaudit.auditing.auditor.audit`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from privaudit.auditing.checks import (
    check_accuracy,
    check_float_image,
    check_global_sensitivity,
    check_local_node,
    check_local_sensitivity_bound,
    check_noise_law,
    check_smooth_sensitivity,
    check_spike,
    exposed_nodes,
    float_image_unavailable,
    local_node_checks_apply,
)
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.outcome.audit_plan import AuditPlan
from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.auditing.replay.check import check_replay
from privaudit.execution.streaming import Executor, throttled
from privaudit.mechanisms import Mechanism
from privaudit.spec import LocalNodeRelation

__all__ = [
    "accuracy_checks",
    "exposed_search_spec",
    "noise_law_checks",
    "sensitivity_checks",
]

Progress = Callable[[str], None]


def exposed_search_spec(
    mechanism: Mechanism, rng: np.random.Generator, checks: list[CheckOutcome], say: Progress
) -> tuple[Any, Any]:
    """(spec for the pair search, focused relation or None).

    A local-node spec's relation is focused on the nodes its public randomness exposes
    most, asked of the mechanism or measured
    (:func:`~privaudit.auditing.checks.local_node.exposed_nodes`), so that its pairs come first; the
    ``lndp.exposure`` outcome says which and how.
    """
    spec = mechanism.spec
    # local_node_checks_apply implies a LocalNodeRelation; the isinstance narrows the type
    if not local_node_checks_apply(mechanism) or not isinstance(spec.relation, LocalNodeRelation):
        return spec, None
    say("asking the mechanism which nodes its public randomness exposes")
    focus, exposure = exposed_nodes(mechanism, rng)
    relation = spec.relation.focused(focus)
    checks.append(
        CheckOutcome(
            name="lndp.exposure",
            status="passed",
            summary=(
                f"nodes {list(focus)} rewired first ({exposure['exposure']})"
                if focus
                else f"no node singled out ({exposure['exposure']})"
            ),
            details=exposure,
        )
    )
    return spec.model_copy(update={"relation": relation}), relation


def sensitivity_checks(
    mechanism: Mechanism,
    cfg: AuditConfig,
    candidates: Sequence[Any],
    rng: np.random.Generator,
    checks: list[CheckOutcome],
    say: Progress,
) -> None:
    """Step 3 of :func:`~privaudit.auditing.auditor.audit`: the declared global, local and
    smooth sensitivities on the candidate pairs and their inputs, appended to ``checks``
    (deterministic: they spend no α)."""
    spec = mechanism.spec
    inputs = [p.x for p in candidates[: max(4, cfg.pairs_tested * 2)]]
    if spec.global_sensitivity is not None:
        say("checking the global sensitivity claim")
        checks.append(
            check_global_sensitivity(
                mechanism, rng, pairs=candidates, search_budget=cfg.claim_budget
            )
        )
    if spec.local_sensitivity_claim is not None:
        say("checking the local sensitivity bound")
        checks.append(
            check_local_sensitivity_bound(mechanism, rng, inputs=inputs, budget=cfg.claim_budget)
        )
    if spec.smooth_sensitivity_claim is not None:
        say("checking the smooth sensitivity claim")
        checks.extend(
            check_smooth_sensitivity(
                mechanism, rng, inputs=inputs, pairs=candidates, budget=cfg.claim_budget
            )
        )
    if mechanism.provides("pipeline"):
        say("replaying the mechanism's primitives on the candidate pairs")
        replayed = check_replay(mechanism, candidates, cfg.seed)
        if replayed is not None:
            checks.append(replayed)


def noise_law_checks(
    mechanism: Mechanism,
    plan: AuditPlan,
    cfg: AuditConfig,
    candidates: Sequence[Any],
    conformance_inputs: Sequence[Any],
    rng: dict[str, Any],
    checks: list[CheckOutcome],
    say: Progress,
    progress: Progress | None,
    executor: Executor | None,
    relation: Any = None,
) -> None:
    """Step 4 of :func:`~privaudit.auditing.auditor.audit`: the checks of the declared noise
    law, appended to ``checks``, each at its share of α in ``plan``.

    The noise-law conformance test, the spike windows at f for (ε, δ) claims
    (:mod:`privaudit.auditing.checks.spike`), the floating-point image of the outputs and the
    local-node checks (whose black-box locality test has a share when the mechanism has no
    gray-box hook).
    """
    conformance_applies = plan.conformance
    # the floating-point image check (4b) is deterministic for pure-DP claims and claims with
    # idealized numerics; an (ε, δ) claim with exact numerics gives it half the
    # conformance share
    float_image = plan.float_image
    alpha_float = plan.share("floating_point.image")
    # 4c. spikes at f for (ε, δ) claims: with the statistic hook, the declared law bounds
    # the mass of every window around f(x), so both sides' outputs are counted in an
    # a-priori grid of windows
    claimed_delta = plan.claim.delta
    spike = plan.spike
    alpha_spike = plan.share("noise_law.spike")
    if conformance_applies:
        say(f"testing the noise law on {cfg.effective_conformance_samples} draws")
        share = plan.share("noise_law") / len(conformance_inputs)
        for x_conf in conformance_inputs:
            checks.append(
                check_noise_law(
                    mechanism,
                    x_conf,
                    rng["conformance"],
                    samples=cfg.effective_conformance_samples,
                    alpha=share,
                )
            )
    if spike:
        say(f"counting outputs near f on {cfg.samples} draws per side")
        checks.append(
            check_spike(
                mechanism,
                (candidates[0].x, candidates[0].y),
                rng["spike"],
                samples=cfg.samples,
                alpha=alpha_spike,
                allowance=claimed_delta,
                executor=executor,
                progress=None if progress is None else throttled(say, "spike check"),
            )
        )

    # 4b. floating-point image: outputs of M(x) the sampler cannot produce under y --------
    if float_image:
        say("checking the floating-point image of the outputs")
        checks.append(
            check_float_image(mechanism, candidates, rng["float_image"], alpha=alpha_float)
        )
    elif (unavailable := float_image_unavailable(mechanism)) is not None:
        checks.append(
            CheckOutcome(
                name="floating_point.image",
                status="skipped",
                summary=unavailable,
                details={"reason": unavailable},
            )
        )

    # 4c. local node privacy: structure, locality, exact joint accounting, Lemma 5.4 --------
    if plan.local_node:
        say("checking the local-node structure, locality and joint certificates")
        alpha_locality = plan.share("lndp.locality")
        checks.extend(
            check_local_node(
                mechanism,
                candidates,
                rng["local_node"],
                alpha=alpha_locality,
                samples=cfg.effective_conformance_samples,
                relation=relation,
            )
        )


def accuracy_checks(
    mechanism: Mechanism,
    plan: AuditPlan,
    cfg: AuditConfig,
    candidates: Sequence[Any],
    rng: np.random.Generator,
    checks: list[CheckOutcome],
    say: Progress,
) -> None:
    """Step 4b of :func:`~privaudit.auditing.auditor.audit`: the spec's accuracy claim at
    the first inputs of the candidate pairs, at ``plan.share("accuracy")`` (a claim the
    plan does not test, against a population parameter or without a ``statistic`` hook,
    gets a skipped outcome saying why); nothing for a spec without a claim."""
    if mechanism.spec.accuracy is None:
        return
    if plan.accuracy:
        say("testing the accuracy claim on samples")
    checks.append(
        check_accuracy(
            mechanism,
            [p.x for p in candidates],
            rng,
            samples=cfg.effective_conformance_samples,
            alpha=plan.share("accuracy"),
        )
    )
