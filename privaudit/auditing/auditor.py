"""The auditor: from a mechanism and its spec to an :class:`~privaudit.auditing.report.AuditReport`.

An audit runs three layers of checks (``docs/derivations.md`` §8):

1. **claim checks** (deterministic, gray-box): the spec agrees with the mechanism's own
   parameters; the declared global, local and smooth sensitivities hold on adversarial
   neighbouring inputs;
2. **noise-law conformance**: the noise actually drawn follows the declared law,
   including its tails (the Curator-Attack blind spot of black-box auditors);
3. **exact privacy** of randomizers with a finite output law that expose it through the
   ``output_probabilities`` hook (:mod:`~privaudit.auditing.exact_audit`): the exact ε and δ(ε)
   over every pair of a finite domain (or the searched pairs), used automatically; the
   noise-law check then tests the sampler against the hook on the worst pair, and the
   statistical test below still runs as a cross-check;
3b. **local node privacy** (specs under :class:`~spec.LocalNodeRelation` only,
   :mod:`~privaudit.auditing.checks.local_node`): n public and per-node messages, locality of each
   randomizer, exact per-node and joint accounting (deterministic), and the Lemma 5.4
   global certificate (error rate 10⁻⁶, outside the Bonferroni budget below);
4. **distributional indistinguishability** on the worst pairs found
   (:mod:`~privaudit.auditing.pair_choice`): rejection regions planned from the declared law
   when the spec declares the output densities, and chosen on a search split otherwise
   (and alongside), tested on fresh samples with Clopper–Pearson bounds, and the
   privacy-loss profile where the loss is computable.

Error control.  With α = 1 − confidence, the statistical components share α by
Bonferroni: the noise-law check gets α/10 (:data:`CONFORMANCE_SHARE`) when it applies
(halved with the floating-point image check for an (ε, δ) claim with exact numerics;
that check is deterministic otherwise, :mod:`~privaudit.auditing.checks.float_image`; what
remains is halved again with the spike check, :data:`SPIKE_SHARE`, for an (ε, δ) claim
with δ > 0 when the noise is additive and continuous and the ``statistic`` hook exists,
:mod:`~privaudit.auditing.checks.spike`),
the distributional test the rest, split evenly over the tested pairs (one pair when the
candidates are equivalent under the declared law) and, inside each pair, over the
declared-law events, the data-driven events and the profile
(:mod:`~privaudit.auditing.distinguish.pair`).  The deterministic checks spend no α.  So the
probability that an audit of a mechanism that meets its claims reports a violation is
at most α.

Randomness.  Every component draws from its own stream spawned from
``SeedSequence(config.seed)``, so audits are reproducible from the seed and adding a
component never changes the draws of another.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mechanisms import Mechanism
from spec import AdditiveNoise, SmoothSensitivityNoise
from spec.errors import AuditError

from privaudit._environment import library_versions
from privaudit.execution._threads import single_threaded_blas
from .checks import (
    check_float_image,
    check_global_sensitivity,
    check_local_node,
    check_local_sensitivity_bound,
    check_noise_law,
    check_smooth_sensitivity,
    check_spec_consistency,
    check_spike,
    float_image_applies,
    float_image_unavailable,
    local_node_checks_apply,
    spike_applies,
)
from .config import AuditConfig
from .distinguish import distinguish_pair
from .distinguish.densities import declared_log_densities
from .distinguish.pair import PLAN_PRIOR_OUTPUTS
from privaudit.execution.distributed import DaskExecutor, executor_scope
from .exact_audit import exact_audit_applies, exact_check, exact_privacy, worst_inputs
from .pair_choice import choose_pairs
from .pairs import CandidatePair, to_jsonable, verified_pair
from .report import AccountingTightness, AuditReport
from .results import CheckOutcome, Counterexample, PowerStatement
from .search import candidate_pairs
from .time_budget import plan_to_budget
from privaudit.statistics import claimed_point
from privaudit.execution.streaming import Executor, throttled
from .verdicts import conclusive_power, decide_verdict

__all__ = ["audit"]

Progress = Callable[[str], None]

_STREAMS = ("search", "claims", "conformance", "pilot", "final", "float_image", "local_node",
            "spike")

#: Share of α spent on the noise-law conformance check when it applies.
CONFORMANCE_SHARE = 0.1
#: Part of the conformance share (after the floating-point image check's part) that the
#: spike check (:func:`~privaudit.auditing.checks.check_spike`) gets when it applies.
SPIKE_SHARE = 0.5


def _streams(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed).spawn(len(_STREAMS))
    return {name: np.random.default_rng(child) for name, child in zip(_STREAMS, children)}


def _counterexample(pair: CandidatePair, **values: Any) -> Counterexample:
    return Counterexample(x=to_jsonable(pair.x), y=to_jsonable(pair.y), origin=pair.origin,
                          relation_reason=pair.decision.reason,
                          values={k: to_jsonable(v) for k, v in values.items()})


def audit(
    mechanism: Mechanism,
    *,
    config: AuditConfig | None = None,
    pairs: Sequence[tuple[Any, Any]] = (),
    progress: Progress | None = None,
    executor: Executor | str | None = None,
    clock: Callable[[], float] | None = None,
    **overrides: Any,
) -> AuditReport:
    """Audit ``mechanism`` against its spec.

    Parameters
    ----------
    mechanism : Mechanism or sequence of Mechanism
        Anything implementing the mechanism protocol (``spec`` and batched ``sample``).  A
        sequence is k releases on the same input: it is audited as a
        :class:`~mechanisms.accounting.ComposedMechanism` claiming the PLD accountant's
        bound, and the report's ``accounting`` shows that bound beside the measured ε.
    config : AuditConfig, optional
        How to run the audit; keyword ``overrides`` (``samples=``, ``confidence=``,
        ``seed=`` …) replace single fields.
    pairs : sequence of (x, y)
        Explicit neighbouring pairs to test first (checked with the relation's
        ``decide``; an unrelated pair raises :class:`~spec.errors.NotNeighboursError`).
    progress : callable, optional
        Called with a short message at each stage (the CLI prints them on stderr on a
        TTY), and every few seconds while a test split is drawn and counted.
    executor : Executor, "serial" or "dask", optional
        Maps the test splits' counting over chunks of blocks (:mod:`privaudit.execution.streaming`;
        default serial).  ``"dask"`` runs them on a ``dask.distributed`` local cluster
        started and closed by this call; a :class:`~privaudit.execution.distributed.DaskExecutor`
        object runs them on its cluster (``docs/distributed.md``).  Results do not
        depend on it.
    clock : callable, optional
        The time source of a ``time_budget`` audit's timing pilot (default
        ``time.perf_counter``); inject one to plan for a simulated cost per release.

    time_budget : float, optional (keyword override)
        Seconds the audit may take: a pilot of releases is timed and the configuration
        shrunk to fit (:mod:`privaudit.auditing.time_budget`); the report's ``budget``
        states what the budget can and cannot detect, before and after planning.

    Returns
    -------
    AuditReport
        Its verdict is ``"violation"`` if any check refuted a claim; otherwise
        ``"no_violation"`` when the audit could have detected a true ε of
        ``config.detect_epsilon`` (default twice the claim) and ``"inconclusive"`` when
        it could not (:mod:`privaudit.auditing.verdicts`).  A report of no violation is not a
        proof of privacy.
    """
    with single_threaded_blas(), executor_scope(executor) as run:
        # small matrices: BLAS threads only contend (_threads)
        if isinstance(run, DaskExecutor):
            run.check_shippable(mechanism, f"mechanism {getattr(mechanism, 'name', mechanism)!r}")
        return _audit(mechanism, config=config, pairs=pairs, progress=progress,
                      executor=run, clock=clock, **overrides)


def _audit(mechanism: Mechanism, *, config: AuditConfig | None,
           pairs: Sequence[tuple[Any, Any]], progress: Progress | None,
           executor: Executor | None = None, clock: Callable[[], float] | None = None,
           **overrides: Any) -> AuditReport:
    """:func:`audit` (its docstring), under :func:`single_threaded_blas`."""
    if isinstance(mechanism, (list, tuple)):
        from mechanisms.accounting import ComposedMechanism

        mechanism = ComposedMechanism(mechanism)
    if not isinstance(mechanism, Mechanism):
        raise AuditError(f"audit needs a Mechanism, got {type(mechanism).__name__}")
    cfg = (config if config is not None else AuditConfig()).merged(overrides)
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    budget = None
    if cfg.time_budget is not None:
        say(f"timing a pilot of releases to plan the audit to {cfg.time_budget:g} s")
        planned, budget = plan_to_budget(mechanism, cfg, cfg.time_budget,
                                         clock=clock or time.perf_counter, explicit=len(pairs))
        cfg = planned.merged({"time_budget": None})
        say(budget.statement)
    spec = mechanism.spec
    rng = _streams(cfg.seed)
    alpha = cfg.alpha
    checks: list[CheckOutcome] = []

    # 1. the spec and the mechanism's parameters -------------------------------------------
    say("checking the spec against the mechanism's parameters")
    checks.append(check_spec_consistency(mechanism))

    # 2. candidate pairs -------------------------------------------------------------------
    say(f"generating up to {cfg.pair_budget} neighbouring pairs")
    explicit = [verified_pair(spec, x, y, "explicit") for x, y in pairs]
    candidates = candidate_pairs(spec, rng["search"], budget=cfg.pair_budget,
                                 explicit_pairs=[(p.x, p.y) for p in explicit])

    # 3. sensitivity claims ----------------------------------------------------------------
    inputs = [p.x for p in candidates[: max(4, cfg.pairs_tested * 2)]]
    if spec.global_sensitivity is not None:
        say("checking the global sensitivity claim")
        checks.append(check_global_sensitivity(mechanism, rng["claims"], pairs=candidates,
                                               search_budget=cfg.claim_budget))
    if spec.local_sensitivity_claim is not None:
        say("checking the local sensitivity bound")
        checks.append(check_local_sensitivity_bound(mechanism, rng["claims"], inputs=inputs,
                                                    budget=cfg.claim_budget))
    if spec.smooth_sensitivity_claim is not None:
        say("checking the smooth sensitivity claim")
        checks.extend(check_smooth_sensitivity(mechanism, rng["claims"], inputs=inputs,
                                               pairs=candidates, budget=cfg.claim_budget))

    # 3b. exact privacy of a finite output law (no sampling) ------------------------------
    exact = None
    conformance_inputs = [candidates[0].x]
    if exact_audit_applies(mechanism):
        say("computing the exact privacy of the declared finite output law")
        exact = exact_privacy(mechanism, candidates=candidates)
        checks.append(exact_check(exact))
        conformance_inputs = list(worst_inputs(mechanism, exact))

    # 4. the declared noise law: conformance, spikes at f, floating-point image, LNDP ------
    alpha_conformance = _noise_law_checks(mechanism, cfg, candidates, conformance_inputs, rng,
                                          checks, say, progress, executor)

    # 5. choose the pairs for the distributional test (never from the final samples) ---------
    alpha_dist = alpha - alpha_conformance
    eps_claimed, delta_claimed = claimed_point(spec.guarantee)
    say("ranking pairs")
    choice = choose_pairs(mechanism, cfg, candidates, explicit, rng["pilot"],
                          alpha=alpha_dist, delta=delta_claimed)
    chosen = list(choice.pairs)
    declared = declared_log_densities(mechanism, chosen[0].x, chosen[0].y) is not None
    search_samples = cfg.search_samples_for(declared, approximate=delta_claimed > 0)

    # 6. the distributional test on the chosen pairs -----------------------------------------
    per_pair = alpha_dist / len(chosen)
    results = []
    for i, pair in enumerate(chosen):
        say(f"testing pair {i + 1}/{len(chosen)} ({pair.origin}) with {cfg.samples} samples per side")
        results.append((pair, distinguish_pair(mechanism, pair, samples=cfg.samples,
                                               search_samples=search_samples,
                                               rng=rng["final"], alpha=per_pair,
                                               events_per_direction=cfg.events_per_direction,
                                               prior_outputs=PLAN_PRIOR_OUTPUTS,
                                               executor=executor,
                                               progress=None if progress is None else throttled(
                                                   say, f"pair {i + 1}/{len(chosen)} test split"))))
    best_pair, best = max(results, key=lambda r: r[1].epsilon_lower_bound)
    violated = any(r.violated for _, r in results)
    eps_lb = math.inf if best.epsilon_lower_bound_infinite else float(best.epsilon_lower_bound)
    summary = (f"ε ≥ {eps_lb:.4g} at δ = {delta_claimed:g} on the worst of {len(chosen)} pairs "
               f"(claimed ε = {eps_claimed:.4g})")
    checks.append(CheckOutcome(
        name="distinguishability", status="violated" if violated else "passed",
        summary=summary, statistic=eps_lb, threshold=eps_claimed,
        ratio=(eps_lb / eps_claimed) if eps_claimed > 0 else None, error_rate=alpha_dist,
        counterexample=_counterexample(best_pair, event=best.best_event.description
                                       if best.best_event else "",
                                       epsilon_lower_bound=eps_lb) if violated else None,
        details={"pairs_tested": len(chosen), "alpha_per_pair": per_pair,
                 "pair_objective": choice.objective, "equivalent_pairs_tied": choice.ties,
                 "halving_rounds": choice.halving_rounds, "search_samples": search_samples,
                 "declared_events": len(best.plan.events) if best.plan is not None else 0}))
    profile_violated = any(p.violated for p in best.profile)
    if best.profile:
        checks.append(CheckOutcome(
            name="privacy_profile", status="violated" if profile_violated else "passed",
            summary=("lower confidence bound on δ(ε) exceeds the claimed profile"
                     if profile_violated else "estimated δ(ε) within the claimed profile at "
                     f"{len(best.profile)} values of ε"),
            error_rate=best.alpha_profile))
    # the audit reports a violation when any tested pair does, so its power is (at least)
    # that of its most sensitive pair (privaudit.auditing.verdicts)
    powers = [r.power for _, r in results if isinstance(r.power, PowerStatement)]
    power = min(powers, key=lambda p: p.detectable_epsilon) if powers else None
    if power is not None:
        power = conclusive_power(power, cfg, claimed_epsilon=eps_claimed,
                                 claimed_delta=delta_claimed)
    report = AuditReport(
        mechanism=mechanism.name, spec=spec, spec_hash=spec.content_hash,
        verdict=decide_verdict(any(c.violated for c in checks), power),
        epsilon_lower_bound=eps_lb, epsilon_claimed=eps_claimed, delta_claimed=delta_claimed,
        confidence=cfg.confidence, samples=cfg.samples, seed=cfg.seed, config=cfg,
        checks=tuple(checks), worst_pair=_counterexample(best_pair),
        worst_event=best.best_event, events=tuple(best.events),
        privacy_profile=tuple(best.profile),
        power=power,
        infinite_evidence=best.infinite_evidence or "",
        accounting=AccountingTightness.of(mechanism, eps_lb),
        audit_mode="exact" if exact is not None else "statistical", exact=exact,
        budget=budget, runtime_seconds=time.perf_counter() - started, versions=library_versions())
    say("done")
    return report


def _noise_law_checks(mechanism: Mechanism, cfg: AuditConfig, candidates: Sequence[Any],
                      conformance_inputs: Sequence[Any], rng: dict[str, Any],
                      checks: list[CheckOutcome], say: Progress, progress: Progress | None,
                      executor: Executor | None) -> float:
    """Step 4 of :func:`_audit`: the checks of the declared noise law, appended to ``checks``.

    The noise-law conformance test, the spike windows at f for (ε, δ) claims
    (:mod:`privaudit.auditing.checks.spike`), the floating-point image of the outputs and the
    local-node structural checks.  Returns the share of α they spend (the rest goes to the
    distinguishing test).
    """
    spec = mechanism.spec
    alpha = cfg.alpha
    # conformance of the outputs to the declared law
    conformance_applies = spec.noise is not None and (
        not isinstance(spec.noise, (AdditiveNoise, SmoothSensitivityNoise))
        or mechanism.provides("statistic"))
    alpha_conformance = CONFORMANCE_SHARE * alpha if conformance_applies else 0.0
    # the floating-point image check (4b) is deterministic for pure-DP claims and claims with
    # idealized numerics; an (ε, δ) claim with exact numerics gives it half this share
    float_image = float_image_applies(mechanism) and mechanism.provides("statistic")
    alpha_float = alpha_conformance / 2 if (
        float_image and spec.numerics == "exact" and claimed_point(spec.guarantee)[1] > 0) else 0.0
    # 4c. spikes at f for (ε, δ) claims: with the statistic hook, the declared law bounds
    # the mass of every window around f(x), so both sides' outputs are counted in an
    # a-priori grid of windows
    claimed_delta = claimed_point(spec.guarantee)[1]
    spike = conformance_applies and claimed_delta > 0 and spike_applies(mechanism) is None
    alpha_spike = SPIKE_SHARE * (alpha_conformance - alpha_float) if spike else 0.0
    if conformance_applies:
        say(f"testing the noise law on {cfg.effective_conformance_samples} draws")
        share = (alpha_conformance - alpha_float - alpha_spike) / len(conformance_inputs)
        for x_conf in conformance_inputs:
            checks.append(check_noise_law(mechanism, x_conf, rng["conformance"],
                                          samples=cfg.effective_conformance_samples,
                                          alpha=share))
    if spike:
        say(f"counting outputs near f on {cfg.samples} draws per side")
        checks.append(check_spike(
            mechanism, (candidates[0].x, candidates[0].y), rng["spike"], samples=cfg.samples,
            alpha=alpha_spike, allowance=claimed_delta, executor=executor,
            progress=None if progress is None else throttled(say, "spike check")))

    # 4b. floating-point image: outputs of M(x) the sampler cannot produce under y --------
    if float_image:
        say("checking the floating-point image of the outputs")
        checks.append(check_float_image(mechanism, candidates, rng["float_image"],
                                        alpha=alpha_float))
    elif (unavailable := float_image_unavailable(mechanism)) is not None:
        checks.append(CheckOutcome(name="floating_point.image", status="skipped",
                                   summary=unavailable, details={"reason": unavailable}))

    # 4c. local node privacy: structure, locality, exact joint accounting, Lemma 5.4 --------
    if local_node_checks_apply(mechanism):
        say("checking the local-node structure, locality and joint certificates")
        checks.extend(check_local_node(mechanism, candidates, rng["local_node"]))
    return alpha_conformance
